"""Fixed rate-limit windows, counted in the match store's Redis: every window a request counts in, hit in one
script call.

A window is counted as the ``limits`` library's fixed-window strategy counts it (``INCRBY``; the first hit
sets the expiry), under the same key, so that the counts are the ones flask-limiter kept: hits stop at the
first window over its amount, which is still counted, as flask-limiter's first breach is. flask-limiter made
one round trip per window and two more for the answer's headers; this makes one for them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis
from redis.cluster import RedisCluster

from service.store.redis_client import Lines

_HIT = """
local shown = 1
for i, key in ipairs(KEYS) do
    local amount = tonumber(ARGV[2 * i])
    local count = redis.call("incrby", key, 1)
    if count == 1 then
        redis.call("expire", key, ARGV[2 * i - 1])
    end
    if count > amount then
        return {i, count, redis.call("ttl", key)}
    end
    if i == 1 then
        shown = count
    end
end
return {0, shown, redis.call("ttl", KEYS[1])}
"""
"""KEYS: the windows in the order they are hit; ARGV: each one's expiry (s) and amount. Returns the window
over its amount (1-based; 0 for none), then the count and the seconds to live of the window the answer shows
(the one over, else the first)."""


@dataclass(frozen=True)
class Window:
    key: str
    expiry: int
    amount: int


@dataclass(frozen=True)
class Hit:
    """What one request's hit says: ``over`` (the index of the window it went over, or None), and the count and
    seconds to live of the window shown (the one over, else the first)."""

    over: int | None
    count: int
    ttl: int


class RateWindows:
    """The windows in one Redis (or a Redis Cluster: there, one call per window, each in its own slot)."""

    def __init__(self, client: redis.Redis):
        self.client = client
        self.script = client.register_script(_HIT)
        self.cluster = isinstance(client, RedisCluster)
        self.lines = Lines(client) if Lines.possible(client) else None

    def hit(self, windows: list[Window]) -> Hit:
        if not self.cluster:
            return self._hit(windows, 0)
        first = None
        for i, window in enumerate(windows):
            hit = self._hit([window], i)
            if hit.over is not None:
                return hit
            first = first or hit
        assert first is not None, "a request counts in one window at least"
        return first

    def _hit(self, windows: list[Window], offset: int) -> Hit:
        keys = [w.key for w in windows]
        args = [value for w in windows for value in (w.expiry, w.amount)]
        over, count, ttl = self._run(keys, args)
        return Hit(int(over) - 1 + offset if int(over) else None, int(count), int(ttl))

    def _run(self, keys: list[str], args: list[int]) -> Any:
        if self.lines is None:
            return self.script(keys=keys, args=args)
        try:
            return self.lines.call("EVALSHA", self.script.sha, len(keys), *keys, *args)
        except redis.exceptions.NoScriptError:
            self.script.sha = self.client.script_load(_HIT)
            return self.lines.call("EVALSHA", self.script.sha, len(keys), *keys, *args)
