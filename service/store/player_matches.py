"""Each platform's players' matches: the seats a player id holds in matches not over (``active``), and in
matches that ended (``finished``, the newest ``RECENT_KEPT``), so that a platform lists its player's matches
without a search. A store that owns its keys (``Keys.player_matches``): sorted sets of ``<match id>:<seat>``,
one per platform, status and player, so that no platform reads another's players (a player id is a platform's
own). What a row shows is the match's listing summary (``service.store.listings``), read when a page is."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

import redis

from service.store.keys import Keys

STATUSES = ("active", "finished")

RECENT_KEPT = 1_000
"""How many of a player's finished matches are kept, the newest."""


class Held(NamedTuple):
    """A seat a player holds in a match."""

    match_id: str
    seat: int

    @property
    def member(self) -> str:
        return f"{self.match_id}:{self.seat}"

    @classmethod
    def of(cls, member: str) -> Held:
        match_id, _, seat = member.rpartition(":")
        return cls(match_id, int(seat))


class Cursor(NamedTuple):
    """Where a page ended: its last row's score and member (members of one score come in reverse order)."""

    score: int
    member: str

    def __str__(self) -> str:
        return f"{self.score}:{self.member}"

    @classmethod
    def parse(cls, text: str) -> Cursor | None:
        """The cursor ``str`` wrote; None for any other text."""
        score, _, member = text.partition(":")
        match_id, _, seat = member.rpartition(":")
        # ASCII digits: str.isdigit() also takes "²", which int() refuses
        if not (re.fullmatch(r"[0-9]{1,16}", score) and match_id and re.fullmatch(r"[0-9]{1,4}", seat)):
            return None
        return cls(int(score), member)


class PlayerMatches:
    def __init__(self, redis_client: redis.Redis, keys: Keys):
        self.redis = redis_client
        self.keys = keys

    def change(
        self,
        platform: str,
        left: Iterable[tuple[str, Held]],
        taken: Iterable[tuple[str, Held]],
        ended: Iterable[tuple[str, Held]],
        at_ms: int,
    ) -> None:
        """In one round trip: the seats (``player``, ``Held``) ``left`` by their players, the seats ``taken``
        (active from ``at_ms``) and the seats of a match that ``ended`` at ``at_ms`` (finished)."""
        with self.redis.pipeline(transaction=False) as pipe:
            for player, held in left:
                pipe.zrem(self.keys.player_matches(platform, "active", player), held.member)
            for player, held in taken:
                pipe.zadd(self.keys.player_matches(platform, "active", player), {held.member: at_ms})
            for player, held in ended:
                self._ended(pipe, platform, player, held, at_ms)
            pipe.execute()

    def _ended(self, pipe: redis.client.Pipeline, platform: str, player: str, held: Held, at_ms: int) -> None:
        finished = self.keys.player_matches(platform, "finished", player)
        pipe.zrem(self.keys.player_matches(platform, "active", player), held.member)
        pipe.zadd(finished, {held.member: at_ms})
        pipe.zremrangebyrank(finished, 0, -RECENT_KEPT - 1)

    def mend(
        self, platform: str, player: str, ended: Iterable[tuple[Held, int]], gone: Iterable[Held]
    ) -> None:
        """What a page found out: seats of matches that ended (with when, in ms) are moved to the finished
        ones, seats of matches that are no more dropped (a process stopped between an append and ``change``)."""
        with self.redis.pipeline(transaction=False) as pipe:
            for held, at_ms in ended:
                self._ended(pipe, platform, player, held, at_ms)
            for held in gone:
                for status in STATUSES:
                    pipe.zrem(self.keys.player_matches(platform, status, player), held.member)
            pipe.execute()

    def page(
        self, platform: str, player: str, status: str, cursor: Cursor | None, limit: int
    ) -> tuple[list[Held], Cursor | None]:
        """The player's seats of that status, newest first, after ``cursor``, at most ``limit``; and the cursor
        of the next page (None on the last)."""
        key = self.keys.player_matches(platform, status, player)
        found: list[tuple[int, str]] = []
        offset = 0
        while len(found) <= limit:
            batch = self.redis.zrevrangebyscore(
                key,
                "+inf" if cursor is None else cursor.score,
                "-inf",
                start=offset,
                num=limit + 1,
                withscores=True,
            )
            if not batch:
                break
            offset += len(batch)
            for member, score in batch:
                row = (int(score), member.decode())
                if cursor is None or row < (cursor.score, cursor.member):  # the order of ZREVRANGEBYSCORE
                    found.append(row)
        shown = found[:limit]
        more = len(found) > limit
        return [Held.of(member) for _, member in shown], Cursor(*shown[-1]) if more else None
