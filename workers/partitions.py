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
A worker stalled *in* a notice's work can still outlive its lease: each lease taken comes with a fencing
token, higher than the partition's earlier ones (``service.store.fences``), which the writes of that work
check, so that the worker that lost the partition writes nothing more for it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import redis

from service.store.fences import Fence
from service.store.keys import Keys

REBALANCE = """
-- KEYS: members (zset: worker -> last heartbeat ms), owners (hash: partition -> worker|expiry ms),
-- tokens (hash: partition -> fencing token of its latest lease). ARGV: worker, lease ms, partitions.
-- Returns the partitions this worker holds, each followed by its lease's token.
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
      local token = tonumber(redis.call('HGET', KEYS[3], p) or '0')
      if holder ~= me or expiry <= now or token == 0 then  -- taken, not renewed: a newer token
        token = math.max(token + 1, now)
        redis.call('HSET', KEYS[3], p, token)
      end
      redis.call('HSET', KEYS[2], p, me .. '|' .. (now + lease))
      owned[#owned + 1] = p
      owned[#owned + 1] = token
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
    gained: frozenset[
        int
    ]  # leases taken (not renewed) in this round: their pending notices are this worker's
    valid_until: float  # time.monotonic() after which the leases are not to be trusted
    tokens: dict[int, int] = field(default_factory=dict)  # partition -> its lease's fencing token


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
        flat = self._rebalance(
            keys=[self.keys.feed_members, self.keys.feed_owners, self.keys.feed_tokens],
            args=[self.worker, self.lease_ms, self.keys.partitions],
        )
        tokens = {int(p): int(token) for p, token in zip(flat[::2], flat[1::2])}
        before = self.current.tokens
        self.current = Round(
            frozenset(tokens),
            frozenset(p for p, token in tokens.items() if before.get(p) != token),
            started + self.lease_ms / 1000 * 0.8,
            tokens,
        )
        return self.current

    def owned(self) -> frozenset[int]:
        """The partitions this worker may read now (none once its leases may have run out)."""
        return self.current.owned if time.monotonic() < self.current.valid_until else frozenset()

    def trusted_ms(self) -> int:
        """How long this worker's leases are still to be trusted, in ms (at least 1: a wait of 0 is for ever)."""
        return max(1, int((self.current.valid_until - time.monotonic()) * 1000))

    def fence(self, partition: int) -> Fence | None:
        """The fencing token of this worker's lease of ``partition`` (None: it holds none)."""
        token = self.current.tokens.get(partition)
        return Fence(partition, token) if token is not None else None

    def lost(self, partition: int) -> None:
        """Another worker holds ``partition`` now (its writes refused this one's token): not read any more."""
        tokens = {p: t for p, t in self.current.tokens.items() if p != partition}
        self.current = Round(
            frozenset(tokens), self.current.gained - {partition}, self.current.valid_until, tokens
        )

    def start_over(self) -> None:
        """Count every partition as newly gained at the next round (its group made again, its pending claimed)."""
        self.current = Round(frozenset(), frozenset(), 0.0)

    def resign(self) -> None:
        self._resign(keys=[self.keys.feed_members, self.keys.feed_owners], args=[self.worker])
        self.current = Round(frozenset(), frozenset(), 0.0)
