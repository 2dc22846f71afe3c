"""Feed partitions shared out among the live rule workers, the way Kafka shares a topic's partitions
within a consumer group: each partition is read by exactly one live worker at a time, a dead worker's
partitions (and the notices it left pending) go to the others, and a new worker takes its share.

Every worker calls ``rebalance`` about once a second. One Lua script, on two keys in one hash slot,
does a whole round atomically with Redis's own clock: it records the worker's heartbeat, forgets
workers silent for a lease, works out this worker's share of the partitions (sorted live workers,
partition ``p`` to worker ``p mod n``), renews or takes the leases of that share where they are free
or expired, and lets go of the rest. A partition another worker still holds is taken only once that
worker has let go of it (at its next round) or its lease has run out (it is dead), so two workers
never hold one partition. A worker trusts its leases only for a lease's time after the round that
renewed them, by its own clock: a worker stalled longer stops reading before anyone else may start.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import redis

from service.store.keys import Keys

REBALANCE = """
-- KEYS: members (zset: worker -> last heartbeat ms), owners (hash: partition -> worker|expiry ms)
-- ARGV: worker, lease ms, partitions
local now_pair = redis.call('TIME')
local now = tonumber(now_pair[1]) * 1000 + math.floor(tonumber(now_pair[2]) / 1000)
local me, lease, partitions = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], now, me)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - lease)
redis.call('PEXPIRE', KEYS[1], lease * 10)
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
table.sort(members)
local index = 0
for i, member in ipairs(members) do if member == me then index = i - 1 end end
local owners = {}
local flat = redis.call('HGETALL', KEYS[2])
for i = 1, #flat, 2 do owners[tonumber(flat[i])] = flat[i + 1] end
local owned = {}
for p = 0, partitions - 1 do
  local holder, expiry = nil, 0
  if owners[p] then
    local bar = string.find(owners[p], '|', 1, true)
    holder, expiry = string.sub(owners[p], 1, bar - 1), tonumber(string.sub(owners[p], bar + 1))
  end
  local free = holder == nil or holder == me or expiry <= now
  if p % #members == index then
    if free then
      redis.call('HSET', KEYS[2], p, me .. '|' .. (now + lease))
      owned[#owned + 1] = p
    end
  elseif holder == me then
    redis.call('HDEL', KEYS[2], p)
  end
end
return owned
"""

RESIGN = """
-- KEYS: members, owners. ARGV: worker. A worker that stops lets go of everything at once.
redis.call('ZREM', KEYS[1], ARGV[1])
local flat = redis.call('HGETALL', KEYS[2])
for i = 1, #flat, 2 do
  if string.sub(flat[i + 1], 1, #ARGV[1] + 1) == ARGV[1] .. '|' then redis.call('HDEL', KEYS[2], flat[i]) end
end
return 1
"""


@dataclass(frozen=True)
class Round:
    owned: frozenset[int]
    gained: frozenset[int]  # owned now and not before: their pending notices are this worker's to finish
    valid_until: float  # time.monotonic() after which the leases are not to be trusted


class PartitionLeases:
    def __init__(self, redis_client: redis.Redis, keys: Keys, worker: str, lease_ms: int):
        self.keys = keys
        self.worker = worker
        self.lease_ms = lease_ms
        self._rebalance = redis_client.register_script(REBALANCE)
        self._resign = redis_client.register_script(RESIGN)
        self.current = Round(frozenset(), frozenset(), 0.0)

    def rebalance(self) -> Round:
        started = time.monotonic()
        owned = frozenset(
            int(p)
            for p in self._rebalance(
                keys=[self.keys.feed_members, self.keys.feed_owners],
                args=[self.worker, self.lease_ms, self.keys.partitions],
            )
        )
        self.current = Round(owned, owned - self.current.owned, started + self.lease_ms / 1000 * 0.8)
        return self.current

    def owned(self) -> frozenset[int]:
        """The partitions this worker may read now (none once its leases may have run out)."""
        return self.current.owned if time.monotonic() < self.current.valid_until else frozenset()

    def start_over(self) -> None:
        """Count every partition as newly gained at the next round (its group made again, its pending claimed)."""
        self.current = Round(frozenset(), frozenset(), 0.0)

    def resign(self) -> None:
        self._resign(keys=[self.keys.feed_members, self.keys.feed_owners], args=[self.worker])
        self.current = Round(frozenset(), frozenset(), 0.0)
