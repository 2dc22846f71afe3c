"""The abandonment watch, a store that owns its key (``Keys.activity``): each match not over, by when it was
last appended to (give or take a minute, ``service.application.abandonment``). It is only where to look: a
match is ended as abandoned by its log's last entry, never by the watch alone. The bots' budgets read it too:
a match no longer watched is over (``service.store.budgets``)."""

from __future__ import annotations

import redis

from service.store.keys import Keys


class AbandonmentWatch:
    def __init__(self, redis_client: redis.Redis, keys: Keys):
        self.redis = redis_client
        self.keys = keys

    def active(self, match_id: str, at_ms: float, first: bool = False) -> None:
        """The match was appended to at ``at_ms`` (``first``: unless the watch has it already)."""
        self.redis.zadd(self.keys.activity, {match_id: at_ms}, nx=first)

    def forget(self, match_id: str) -> None:
        """The match is over, or gone: it leaves the watch."""
        self.redis.zrem(self.keys.activity, match_id)

    def idle_since(self, cutoff_ms: float, limit: int) -> list[str]:
        """Up to ``limit`` matches last seen active at or before ``cutoff_ms``, the longest idle first."""
        found = self.redis.zrangebyscore(self.keys.activity, "-inf", cutoff_ms, start=0, num=limit)
        return [member.decode() for member in found]
