"""Challenges and rematches as Redis keeps them: each a JSON record, changed under a lock of its own (an
accept that completes it starts one match, however many answers race), and each platform player's
challenges, from or to it, by when they were made. The decisions are the use case's
(``service.application.challenges``)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import redis

from service.domain.errors import Unavailable
from service.store.keys import Keys

KEPT_S = 24 * 3600
"""How long a challenge's record stays readable, and a rematch offer stands, after it was made."""

LOCK_S = 30
"""The longest an answer may hold a challenge's (or rematch's) lock: one that dies frees it after this."""


class ChallengeStore:
    def __init__(self, redis_client: redis.Redis, keys: Keys):
        self.redis = redis_client
        self.keys = keys

    def add(self, challenge: dict[str, Any], per_player: int) -> bool:
        """File a new challenge under each of its players; False (nothing filed) when its challenger has
        made ``per_player`` in the last day already."""
        platform, at = challenge["platform"], challenge["created_ms"]
        made = self.keys.challenges_made(platform, challenge["challenger"])
        pipe = self.redis.pipeline()
        pipe.zremrangebyscore(made, "-inf", at - KEPT_S * 1000)
        pipe.zadd(made, {challenge["id"]: at})
        pipe.expire(made, KEPT_S)
        pipe.zcard(made)
        if pipe.execute()[-1] > per_player:  # counted after the add: racing ones never pass it together
            self.redis.zrem(made, challenge["id"])
            return False
        pipe = self.redis.pipeline()
        pipe.set(self.keys.challenge(challenge["id"]), json.dumps(challenge), ex=KEPT_S)
        for player in [challenge["challenger"], *challenge["challenged"]]:
            key = self.keys.player_challenges(platform, player)
            pipe.zadd(key, {challenge["id"]: at})
            pipe.zremrangebyscore(key, "-inf", at - KEPT_S * 1000)
            pipe.expire(key, KEPT_S)
        pipe.execute()
        return True

    def get(self, challenge_id: str) -> dict[str, Any] | None:
        raw = self.redis.get(self.keys.challenge(challenge_id))
        return None if raw is None else json.loads(raw)

    def put(self, challenge: dict[str, Any]) -> None:
        self.redis.set(self.keys.challenge(challenge["id"]), json.dumps(challenge), keepttl=True)

    def of_player(
        self, platform: str, player: str, before: tuple[int, str] | None, limit: int
    ) -> list[dict[str, Any]]:
        """A page of the player's challenges of the last day, newest first, before ``(created_ms, id)``."""
        key = self.keys.player_challenges(platform, player)
        high = before[0] if before else "+inf"
        low = time.time() * 1000 - KEPT_S * 1000
        ids = self.redis.zrevrangebyscore(key, high, low, start=0, num=limit + 64, withscores=True)
        wanted = [i.decode() for i, at in ids if before is None or (int(at), i.decode()) < before]
        found = [self.get(i) for i in wanted[:limit]]
        return [c for c in found if c is not None]

    def rematch(self, match_id: str) -> dict[str, Any] | None:
        raw = self.redis.get(self.keys.rematch(match_id))
        return None if raw is None else json.loads(raw)

    def put_rematch(self, match_id: str, rematch: dict[str, Any]) -> None:
        self.redis.set(self.keys.rematch(match_id), json.dumps(rematch), ex=KEPT_S)

    @contextmanager
    def changing(self, key: str) -> Iterator[None]:
        """The lock of one challenge or rematch (its key), held while it changes; Unavailable (nothing changed)
        when its holder keeps it past ``LOCK_S``: going on unlocked, two acceptances could each start a match."""
        lock = self.redis.lock(self.keys.lock(key), timeout=LOCK_S, blocking_timeout=LOCK_S)
        if not lock.acquire():
            raise Unavailable(f"the lock of {key} is held past {LOCK_S} s: retry shortly")
        try:
            yield
        finally:
            with suppress(redis.exceptions.LockError):  # held past LOCK_S and taken by another: theirs now
                lock.release()
