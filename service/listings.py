"""The listings: the public matches (the newest ``PUBLIC_LISTED``), the lobby (public matches with a seat
open), each platform's matches, and each of those narrowed to one game, one status or both. A store that
owns its keys: sorted sets scored by creation time (ms), so that a page reads only the matches it shows."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import redis

from service import views
from service.keys import Keys
from service.replay import MatchState
from service.repository import MatchNotFound

PUBLIC_LISTED = 10_000
"""How many of the newest public matches are listed (older ones stay readable by their id)."""


class Listings:
    def __init__(self, redis_client: redis.Redis, keys: Keys, load: Callable[[str], MatchState]):
        """``load(match_id)``: a match's latest state (MatchNotFound for none), to tell a match's status."""
        self.redis = redis_client
        self.keys = keys
        self.load = load

    def _indexes(self, platform: str | None) -> list[str]:
        """The public matches and, for a platform's match, the platform's."""
        return [self.keys.public_matches] + ([self.keys.platform_matches(platform)] if platform else [])

    def add(
        self, match_id: str, game_id: str, status: str, platform: str | None, public: bool, created_ms: float
    ) -> None:
        """List a new match: in its platform's matches and, if ``public``, for anyone (a private match is
        joined by its id, not found)."""
        listed = [self.keys.platform_matches(platform)] if platform else []
        if public:
            listed.append(self.keys.public_matches)
        with self.redis.pipeline(transaction=False) as pipe:
            for index in listed:
                self._list(pipe, index, match_id, game_id, status, created_ms)
            pipe.execute()

    def closed(self, match_id: str) -> None:
        """The match has no seat to join any more (it started, or was aborted): out of the lobby."""
        self.redis.zrem(self.keys.open_matches, match_id)

    def page(
        self,
        platform: str | None,
        game_id: str | None,
        status: str | None,
        cursor: str | None,
        limit: int,
        newest_first: bool = False,
    ) -> tuple[list[tuple[str, MatchState]], str | None]:
        """Matches by creation time, of one game and status if given, and the cursor of the next page
        (None on the last): a platform's own; else the lobby (``status`` open: a public match with a seat
        to join); else the public ones.

        A page loads its matches only (and, once, any the listing still has under a status they have left),
        however many others there are."""
        index = self.keys.platform_matches(platform) if platform else self.keys.public_matches
        narrowed = self.keys.listing(index, game_id, status)
        bound = f"({cursor}" if cursor else "+inf" if newest_first else "-inf"
        found: list[tuple[str, MatchState]] = []
        next_cursor = None
        while len(found) < limit:
            if newest_first:
                batch = self.redis.zrevrangebyscore(
                    narrowed, bound, "-inf", start=0, num=limit, withscores=True
                )
            else:
                batch = self.redis.zrangebyscore(narrowed, bound, "+inf", start=0, num=limit, withscores=True)
            if not batch:
                break
            for member, score in batch:
                bound = f"({score!r}"
                match_id = member.decode()
                try:
                    state = self.load(match_id)
                except MatchNotFound:
                    self.redis.zrem(narrowed, match_id)
                    continue
                if (
                    status and views.status_of(state) != status
                ):  # its status changed without its listings following
                    self._move(index, match_id, state.game_id, status, views.status_of(state), score)
                    continue
                found.append((match_id, state))
                if len(found) == limit:
                    next_cursor = repr(score)
                    break
        return found, next_cursor

    def relist(self, match_id: str, platform: str | None, game_id: str, old: str, new: str) -> None:
        """A match whose status changed from ``old`` to ``new`` moves to the listings of its new status."""
        for index in self._indexes(platform):
            score = self.redis.zscore(index, match_id)
            if (
                score is not None
            ):  # listed there (a private match, or one past the newest PUBLIC_LISTED, is not)
                self._move(index, match_id, game_id, old, new, score)

    def index_all(self, platforms: Iterable[str]) -> int:
        """Put every listed match in the listings narrowed to its game and status (for matches created
        before these were kept: ``matchlog migrate`` runs it). Returns how many it listed."""
        indexes = [self.keys.public_matches] + [self.keys.platform_matches(p) for p in platforms]
        listed = 0
        for index in indexes:
            for member, score in self.redis.zscan_iter(index):
                try:
                    state = self.load(member.decode())
                except MatchNotFound:
                    continue
                with self.redis.pipeline(transaction=False) as pipe:
                    self._list(pipe, index, member.decode(), state.game_id, views.status_of(state), score)
                    pipe.execute()
                listed += 1
        return listed

    def _list(self, pipe, index: str, match_id: str, game_id: str, status: str, score: float) -> None:
        """Put a match in ``index`` and its listings narrowed to the match's game and status (the public
        ones keep their newest ``PUBLIC_LISTED``)."""
        for narrowed in {
            self.keys.listing(index, *by)
            for by in ((None, None), (game_id, None), (None, status), (game_id, status))
        }:
            pipe.zadd(narrowed, {match_id: score})
            if index == self.keys.public_matches:
                pipe.zremrangebyrank(narrowed, 0, -PUBLIC_LISTED - 1)

    def _move(self, index: str, match_id: str, game_id: str, old: str, new: str, score: float) -> None:
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrem(self.keys.listing(index, None, old), match_id)
            pipe.zrem(self.keys.listing(index, game_id, old), match_id)
            self._list(pipe, index, match_id, game_id, new, score)
            pipe.execute()
