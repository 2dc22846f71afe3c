"""The feed's partitions shared out among rule workers, Kafka-style, on a real Redis: one live reader
per partition, a dead worker's partitions and pending notices taken over, a new worker's share given
to it."""

from __future__ import annotations

import dataclasses
import time

import pytest

from service.application.matches import Matches
from service.store.keys import Keys
from tests.helpers import create, wait_for
from workers.projector import GROUP, Projector

pytestmark = pytest.mark.redis

LEASE_MS = 1000


@pytest.fixture
def workers(real_redis, settings):
    """Projectors in this process, each a worker of its own name, with short leases."""
    settings = dataclasses.replace(settings, partition_lease_ms=LEASE_MS, claim_idle_ms=60_000)
    return lambda name: Projector(Matches(real_redis, settings), real_redis, consumer=name, block_ms=10)


def owners(*projectors) -> list[frozenset[int]]:
    return [p.leases.owned() for p in projectors]


def test_each_partition_is_read_by_exactly_one_live_worker(workers):
    first, second = workers("first"), workers("second")
    first.leases.rebalance()
    assert owners(first) == [frozenset(range(64))], "a lone worker reads every partition"
    second.leases.rebalance()
    assert owners(second) == [frozenset()], "a partition still held is not taken"
    first.leases.rebalance()  # it sees the newcomer and lets go of the newcomer's share
    second.leases.rebalance()
    mine, yours = owners(first, second)
    assert not mine & yours and mine | yours == frozenset(range(64))
    assert len(mine) == len(yours) == 32


def test_a_new_worker_spreads_the_partitions(workers):
    crew = [workers(f"w{i}") for i in range(3)]
    for _ in range(3):
        for worker in crew:
            worker.leases.rebalance()
    shares = owners(*crew)
    assert sorted(len(s) for s in shares) == [21, 21, 22]
    assert frozenset().union(*shares) == frozenset(range(64)) and sum(map(len, shares)) == 64


def test_a_dead_workers_partitions_and_pending_notices_are_taken_over(workers, real_client, real_redis):
    doomed, heir = workers("doomed"), workers("heir")
    doomed.leases.rebalance()
    doomed.store.ensure_group(GROUP, range(64))
    match_ids = [create(real_client)[0] for _ in range(6)]
    read = doomed.store.read_feed(GROUP, "doomed", doomed.leases.owned(), count=100, block_ms=10)
    assert {n.match_id for n in read} == set(match_ids)
    assert doomed.store.feed_pending(GROUP) == 6, "read, not acknowledged: the worker died mid-way"

    heir.step()
    assert owners(heir) == [frozenset()], "the dead worker's leases still hold"
    time.sleep(LEASE_MS / 1000)
    heir._last_rebalance = 0  # its next step rebalances at once
    handled = heir.step()
    assert owners(heir) == [frozenset(range(64))]
    assert handled == 6 and doomed.store.feed_pending(GROUP) == 0, "its pending notices were finished"
    assert owners(doomed) == [frozenset()], "a worker stalled past its lease stops reading by itself"


def test_a_worker_that_stops_hands_its_partitions_over_at_once(workers):
    leaving, staying = workers("leaving"), workers("staying")
    leaving.leases.rebalance()
    staying.leases.rebalance()
    assert owners(staying) == [frozenset()]
    leaving.leases.resign()
    staying.leases.rebalance()
    assert owners(staying) == [frozenset(range(64))]


def test_workers_forget_dead_consumers_of_a_partition(workers, real_client, real_redis, settings):
    gone = workers("gone")
    gone.step()
    match_id, _ = create(real_client)
    partition = gone.store.partition(match_id)
    wait_for(lambda: gone.step() == 0 and not gone.store.feed_pending(GROUP))
    gone.leases.resign()
    alive = workers("alive")
    alive.claim_idle_ms = 0  # its chores run on every step, and every consumer counts as idle
    alive.step()
    alive.step()
    feed = Keys(settings.namespace, settings.feed_partitions).feed(partition)
    names = {c["name"] for c in real_redis.xinfo_consumers(feed, GROUP)}
    assert b"gone" not in names and "gone" not in names
