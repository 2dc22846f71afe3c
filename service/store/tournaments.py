"""Tournaments as Redis keeps them: each one's log in the event store, as a match's (``TournamentKeys``: the
same append script and hash chain under keys of its own), its sealed seed and its rounds' sealed seat tokens
beside it, and each platform's tournaments by when they were created. The decisions are the use case's
(``service.application.tournaments``) and the domain's (``service.domain.tournaments``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress

import redis

from service.domain.chain import Recorded
from service.store.events import EventStore
from service.store.keys import Keys

LOCK_S = 60
"""The longest a round's start (its matches created) may hold a tournament's lock."""

FEED_KEPT = 1000
"""Announcements kept on a partition's tournament feed (nothing follows it yet: it is only bounded)."""


class TournamentStore:
    def __init__(
        self, redis_client: redis.Redis, keys: Keys, durability: str = "local", replica_wait_ms: int = 1000
    ):
        self.redis = redis_client
        self.keys = keys
        self.tkeys = keys.tournaments()
        self.events = EventStore(redis_client, self.tkeys, durability, replica_wait_ms)

    def created_today(self, platform: str) -> int:
        """How many tournaments ``platform`` created in the last day."""
        now = time.time() * 1000
        return self.redis.zcount(self.keys.platform_tournaments(platform), now - 24 * 3600 * 1000, "+inf")

    def create(self, tournament_id: str, platform: str, created: Recorded, sealed_seed: bytes) -> Recorded:
        """Start the log with ``created`` (chained), the sealed seed beside it; listed under the platform."""
        entry = created.chained(None)
        self.redis.hset(self.tkeys.meta(tournament_id), "seed", sealed_seed)
        self.events.append(tournament_id, 0, None, [entry])
        self._trim(tournament_id)
        now = time.time() * 1000
        key = self.keys.platform_tournaments(platform)
        pipe = self.redis.pipeline()
        pipe.zadd(key, {tournament_id: now})
        pipe.zremrangebyrank(key, 0, -10_001)  # the newest 10,000 are listed
        pipe.execute()
        return entry

    def sealed_seed(self, tournament_id: str) -> bytes | None:
        return self.redis.hget(self.tkeys.meta(tournament_id), "seed")

    def read(self, tournament_id: str, after: int = 0, limit: int | None = None) -> list[Recorded]:
        return self.events.read(tournament_id, after, None, limit)

    def read_since(self, tournament_id: str, version: int, head_hash: str | None) -> list[Recorded] | None:
        """The entries after ``version`` if the log's entry there has ``head_hash``, else None."""
        return self.events.read_since(tournament_id, version, head_hash)

    def version(self, tournament_id: str) -> int:
        return self.events.version(tournament_id)

    def append(
        self, tournament_id: str, version: int, head_hash: str | None, entries: list[Recorded]
    ) -> None:
        """Append ``entries`` (chained here) to a log at ``version`` whose last hash is ``head_hash``:
        VersionConflict if another writer got there first."""
        chained: list[Recorded] = []
        previous = head_hash
        for entry in entries:
            chained.append(entry.chained(previous))
            previous = chained[-1].hash
        self.events.append(tournament_id, version, head_hash, chained)
        self._trim(tournament_id)

    def _trim(self, tournament_id: str) -> None:
        feed = self.tkeys.feed(self.tkeys.partition(tournament_id))
        self.redis.xtrim(feed, maxlen=FEED_KEPT, approximate=True)

    def put_tokens(self, tournament_id: str, round_number: int, sealed: bytes) -> None:
        self.redis.hset(self.tkeys.tokens(tournament_id), f"round:{round_number}", sealed)

    def tokens(self, tournament_id: str, round_number: int) -> bytes | None:
        return self.redis.hget(self.tkeys.tokens(tournament_id), f"round:{round_number}")

    def put_opening(self, tournament_id: str, round_number: int, sealed: bytes) -> None:
        """The sealed match ids and seat tokens of a round being opened, kept until it is appended: a retry
        after a failure midway creates only the matches missing, with the same ids and tokens."""
        self.redis.hset(self.tkeys.tokens(tournament_id), f"opening:{round_number}", sealed)

    def opening(self, tournament_id: str, round_number: int) -> bytes | None:
        return self.redis.hget(self.tkeys.tokens(tournament_id), f"opening:{round_number}")

    def opened(self, tournament_id: str, round_number: int) -> None:
        """The round is appended: what its opening kept (the bots' seat tokens with the rest) is dropped."""
        self.redis.hdel(self.tkeys.tokens(tournament_id), f"opening:{round_number}")

    def mark_match(self, match_id: str, tournament_id: str) -> None:
        self.redis.set(self.keys.match_tournament(match_id), tournament_id)

    def tournament_of(self, match_id: str) -> str | None:
        found = self.redis.get(self.keys.match_tournament(match_id))
        return found.decode() if found else None

    def of_platform(self, platform: str, limit: int) -> list[str]:
        """The platform's newest tournaments, newest first."""
        ids = self.redis.zrevrange(self.keys.platform_tournaments(platform), 0, limit - 1)
        return [i.decode() for i in ids]

    @contextmanager
    def changing(self, tournament_id: str) -> Iterator[None]:
        """The tournament's lock, held while a round starts or results come in: the matches of a round are
        created once, however many organisers' requests race."""
        lock = self.redis.lock(self.tkeys.changing(tournament_id), timeout=LOCK_S, blocking_timeout=LOCK_S)
        lock.acquire()
        try:
            yield
        finally:
            with suppress(redis.exceptions.LockError):
                lock.release()
