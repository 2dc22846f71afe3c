"""Fencing tokens for the feed partitions' leases (the fencing of Kleppmann's "How to do distributed locking").

A rule worker holds a partition by a lease (``workers.partitions``); a worker stalled in one notice's work (its
``WAIT``s on a loaded or failing cluster) can outlive its lease while another worker takes the partition, and
both then work on the same matches. Each time a lease is taken it comes with a token higher than any the
partition gave before (Redis's clock in ms, or one more than the last if that is higher: a counter lost in a
failover does not go back). The worker shows it at once in the partition's fence (``Keys.feed_fence``), and
every write its work on a notice makes for the partition's matches (the record of a webhook's deliveries, the
acknowledgement of the notice) checks it in the same script as the write: a token older than the fence is
refused (``LeaseLost``), so the worker that lost the partition writes nothing more there and drops its batch.
A writer without a lease (a tool delivering by hand) passes no fence and is not checked.
"""

from __future__ import annotations

from dataclasses import dataclass

import redis

from service.store.keys import Keys

CHECK = """
-- fenced(fence key, token): true when a newer token than this one has been shown; else shows this one
local function fenced(key, token)
  if token == 0 then return false end
  local newest = tonumber(redis.call('GET', key) or '0')
  if token < newest then return true end
  if token > newest then redis.call('SET', key, token) end
  return false
end
"""
"""The check, to open a script that writes in the partition's slot (its keys under the partition's tag)."""

_SHOW = (
    CHECK
    + """
-- KEYS: the fence. ARGV: token. 1: shown (or shown already); 0: a newer one was
return fenced(KEYS[1], tonumber(ARGV[1])) and 0 or 1
"""
)


@dataclass(frozen=True)
class Fence:
    """A worker's lease of a feed partition, by its token."""

    partition: int
    token: int


class Fences:
    def __init__(self, redis_client: redis.Redis, keys: Keys):
        self.keys = keys
        self._show = redis_client.register_script(_SHOW)

    def show(self, fence: Fence) -> bool:
        """Raise the partition's fence to the token of a lease just taken: from now on no older token writes
        there. False: a newer one is there already (another worker took the partition since)."""
        return bool(self._show(keys=[self.keys.feed_fence(fence.partition)], args=[fence.token]))
