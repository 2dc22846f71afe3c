"""The rule loop through an outage: what redis-py's cluster client raises while no node answers is an
outage, waited out with a warning, not a failure of the loop."""

from __future__ import annotations

import dataclasses
import logging
import random
import threading
import time

import pytest
import redis

from service import metrics
from service.application.matches import Matches
from service.domain.errors import NotReplicated
from service.http.app import create_app
from service.store.events import FeedNotice
from tests.helpers import create, play_random_game
from workers.projector import Projector


def loop_failures() -> float:
    return metrics.FEED_FAILURES.labels("loop")._value.get()


@pytest.mark.parametrize(
    ("raised", "outage"),
    [
        (redis.exceptions.RedisClusterException("Redis Cluster cannot be connected"), True),
        (RuntimeError("a bug"), False),
    ],
)
def test_the_cluster_unreachable_is_an_outage_not_a_loop_failure(
    fake_redis, settings, caplog, monkeypatch, raised, outage
):
    projector = Projector(Matches(fake_redis, settings), fake_redis, consumer="outage", block_ms=10)
    stop = threading.Event()

    def step() -> bool:
        stop.set()
        if outage:  # as the cluster client raises it: from the connection error that sent it to ask again
            raise raised from redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:7000")
        raise raised

    monkeypatch.setattr(projector, "step", step)
    before = loop_failures()
    with caplog.at_level(logging.WARNING, logger="matchlog.projector"):
        projector.run(stop)
    said = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "matchlog.projector"]
    if outage:
        assert said == [("WARNING", f"redis unavailable ({raised}); retrying")]
        assert loop_failures() == before
    else:
        assert said == [("ERROR", "the rule loop failed; trying again in a second")]
        assert loop_failures() == before + 1


def _cluster_down() -> Exception:
    try:
        try:
            raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:7000")
        except redis.exceptions.ConnectionError as cause:
            raise redis.exceptions.RedisClusterException("Redis Cluster cannot be connected") from cause
    except redis.exceptions.RedisClusterException as raised:
        return raised


@pytest.mark.parametrize(
    "outage",
    [
        lambda: redis.exceptions.ConnectionError("Connection closed by server."),
        _cluster_down,
        lambda: NotReplicated("no replica confirmed within 1000 ms"),
    ],
    ids=["connection", "cluster_down", "not_replicated"],
)
def test_notices_an_outage_left_pending_are_handled_before_newer_ones(
    fake_redis, settings, monkeypatch, outage
):
    """A batch cut short by Redis going away (or failing over, or with no replica to confirm a write) leaves
    its notices pending, none of them counted as failed; the worker takes them up again before the notices
    appended since, so that a match's work (its webhook deliveries, each naming the one before it) is done
    in its order, not after newer ones (only once ``claim_idle_ms`` had passed)."""
    settings = dataclasses.replace(settings, claim_idle_ms=60_000)
    matches = Matches(fake_redis, settings)
    client = create_app(settings, fake_redis).test_client()
    match_id, tokens = create(client, "blokus", [{"name": "ann"}, {"name": "bob"}])
    rng = random.Random(4)
    play_random_game(client, match_id, tokens, rng, max_actions=3)
    projector = Projector(matches, fake_redis, consumer="cut-short", block_ms=10)
    handled: list[int] = []
    stop = threading.Event()
    handle = projector.handle

    def flaky(notice: FeedNotice) -> bool:
        if not handled and not getattr(flaky, "failed", False):
            flaky.failed = True  # type: ignore[attr-defined]
            play_random_game(client, match_id, tokens, rng, max_actions=3)  # newer notices meanwhile
            raise outage()
        handled.append(notice.version)
        if len(handled) == 7:  # created, 3 moves, 3 more
            stop.set()
        return handle(notice)

    monkeypatch.setattr(projector, "handle", flaky)
    monkeypatch.setattr(
        threading.Event, "wait", lambda self, timeout=None: self.is_set()
    )  # no second's pause
    projector.run(stop)
    assert handled == sorted(handled) == list(range(1, 8))
    assert not projector._failures, "an outage is no failure of a notice's"


def test_notices_left_when_a_lease_ran_out_mid_batch_come_before_newer_ones(
    fake_redis, settings, monkeypatch
):
    """A worker whose leases it may no longer trust stops mid-batch, leaving the batch's rest pending; when it
    holds the partition again at its next round (no other worker took it), it takes up that rest before the
    notices appended since, not once ``claim_idle_ms`` has passed: the fault harness's ``delivery_order``."""
    settings = dataclasses.replace(settings, claim_idle_ms=60_000)
    matches = Matches(fake_redis, settings)
    client = create_app(settings, fake_redis).test_client()
    match_id, tokens = create(client, "blokus", [{"name": "ann"}, {"name": "bob"}])
    rng = random.Random(5)
    play_random_game(client, match_id, tokens, rng, max_actions=3)
    projector = Projector(matches, fake_redis, consumer="lease-ran-out", block_ms=10)
    handled: list[int] = []
    stop = threading.Event()
    handle, owned = projector.handle, projector.leases.owned
    lapsed = {"once": False}

    def trusted() -> frozenset[int]:
        if len(handled) == 1 and not lapsed["once"]:  # stalled past the lease after the first notice
            lapsed["once"] = True
            play_random_game(client, match_id, tokens, rng, max_actions=3)  # newer notices meanwhile
            return frozenset()
        return owned()

    def recorded(notice: FeedNotice) -> bool:
        handled.append(notice.version)
        if len(handled) == 7:  # created, 3 moves, 3 more
            stop.set()
        return handle(notice)

    monkeypatch.setattr(projector, "handle", recorded)
    monkeypatch.setattr(projector.leases, "owned", trusted)
    monkeypatch.setattr(projector, "_last_rebalance", -10.0)
    monkeypatch.setattr("workers.projector.REBALANCE_S", 0.0)  # a round every step, as after a stall
    monkeypatch.setattr(threading.Event, "wait", lambda self, timeout=None: self.is_set())
    projector.run(stop)
    assert lapsed["once"] and handled == list(range(1, 8))


def test_a_read_waits_no_longer_than_the_leases_are_trusted(fake_redis, settings, monkeypatch):
    """A worker that waited for notices past its leases' trust got notices the partition's next holder should
    have: left pending with it while the holder read the ones after them, they were handled after newer
    notices of their matches (deliveries naming no ``previous_version``). A read now waits no longer."""
    projector = Projector(Matches(fake_redis, settings), fake_redis, consumer="reader", block_ms=1000)
    projector.step()  # holds every partition now, trusted for 0.8 of a lease
    monkeypatch.setattr("workers.projector.REBALANCE_S", 3600.0)  # no round again in this test
    waits: list[int] = []

    def read_feed(
        group: str, consumer: str, partitions: object, count: int, block_ms: int
    ) -> list[FeedNotice]:
        waits.append(block_ms)
        return []

    monkeypatch.setattr(projector.store, "read_feed", read_feed)
    current = projector.leases.current
    projector.leases.current = dataclasses.replace(current, valid_until=time.monotonic() + 0.3)
    projector.step()
    assert 1 <= waits[-1] <= 300, waits
    projector.leases.current = dataclasses.replace(current, valid_until=time.monotonic() + 60)
    projector.step()
    assert waits[-1] == 1000, "a lease trusted for longer: the worker's own wait"
