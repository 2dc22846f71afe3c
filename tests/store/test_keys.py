"""Key naming: every key of a match in one hash slot with its feed partition, partitions spread over
the slot space (so over a cluster's masters)."""

from __future__ import annotations

import uuid

from redis.crc import key_slot

from service.store.keys import Keys, partition_tags


def test_every_key_of_a_match_shares_the_slot_of_its_feed_partition():
    keys = Keys("ns", 64)
    for _ in range(200):
        match_id = uuid.uuid4().hex
        feed_slot = key_slot(keys.feed(keys.partition(match_id)).encode())
        for key in (
            keys.log(match_id),
            keys.meta(match_id),
            keys.snapshots(match_id),
            keys.idempotency(match_id, 1, "retry-7"),
            keys.unused(match_id),
        ):
            assert key_slot(key.encode()) == feed_slot


def test_partitions_fall_in_their_own_slice_of_the_slot_space():
    for partitions in (1, 3, 64, 1000):
        slots = [key_slot(Keys("ns", partitions).feed(p).encode()) for p in range(partitions)]
        assert [s * partitions // 16384 for s in slots] == list(range(partitions))
    assert len(set(partition_tags(64))) == 64


def test_a_feed_key_names_its_partition_and_a_match_key_its_match():
    keys = Keys("ns", 64)
    assert [keys.partition_of_feed(keys.feed(p)) for p in range(64)] == list(range(64))
    assert keys.match_id_of(keys.log("abc")) == ("abc", "log")
    assert keys.match_id_of("ns:match:abc:meta") == ("abc", "meta")  # the layout before partitions
    assert keys.match_id_of(keys.pack("d1")) is None


def test_matches_spread_evenly_over_partitions():
    keys = Keys("ns", 64)
    counts = [0] * 64
    for i in range(6400):
        counts[keys.partition(uuid.UUID(int=i * 7919).hex)] += 1
    assert min(counts) > 50 and max(counts) < 150
