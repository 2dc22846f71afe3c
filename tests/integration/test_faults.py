"""Faults on real processes: a worker killed mid-work, Redis killed and restarted on its files,
Redis away while the API runs."""

from __future__ import annotations

import random
import shutil
import signal
import tempfile

import pytest

from service.application.matches import Matches
from service.domain import replay
from service.domain.replay import MatchState
from service.games.blokus import GAME
from service.http.app import create_app
from service.store import snapshots as snapshots_format
from service.store.embedded_redis import EmbeddedRedis
from service.store.events import EventStore
from service.store.jobqueue import SCORING, JobQueue
from service.store.keys import Keys
from service.store.redis_client import connect
from tests.helpers import act, create, play_random_game, start_worker, wait_for
from workers.projector import GROUP, Projector

pytestmark = pytest.mark.slow


def test_a_worker_killed_mid_work_loses_and_duplicates_nothing(real_client, real_redis, redis_url, settings):
    store = EventStore(real_redis, Keys(settings.namespace))
    match_ids = []
    for seed in range(5):
        match_id, tokens = create(real_client)
        play_random_game(real_client, match_id, tokens, random.Random(seed))
        match_ids.append(match_id)
    for match_id in match_ids:  # snapshots are a cache: drop them so the worker has them all to make
        real_redis.delete(store.keys.snapshots(match_id))

    first = start_worker(redis_url, settings)

    def pending():
        try:
            return store.feed_pending(GROUP)
        except Exception:  # the group does not exist until the worker makes it
            return 0

    wait_for(lambda: pending() > 0, every=0.001)
    first.send_signal(signal.SIGKILL)
    first.wait()
    assert pending() > 0, "the worker died holding notices it had not finished"

    second = start_worker(redis_url, settings)
    try:

        def all_scored():
            """every match scored and every notice acknowledged"""
            return (
                all(real_client.get(f"/v1/matches/{m}").json.get("result") for m in match_ids)
                and pending() == 0
            )

        wait_for(all_scored, timeout=90, every=0.2)
    finally:
        second.terminate()
        second.wait(timeout=30)

    for match_id in match_ids:
        log = store.read(match_id)
        assert [e.type for e in log].count("match_scored") == 1
        assert [e.version for e in log] == list(range(1, len(log) + 1))
        revealed = next(e.data for e in log if e.type == "seed_revealed")
        snapshots = real_redis.hgetall(store.keys.snapshots(match_id))
        assert snapshots, "the worker rebuilt the snapshots"
        for version, raw in snapshots.items():
            snapshot = MatchState.from_json(snapshots_format.decode(raw)["state"])
            assert snapshot == replay.replay(log[: int(version)], revealed["seed"], revealed["salt"])


@pytest.fixture
def own_redis():
    """An embedded Redis this test may kill and restart."""
    folder = tempfile.mkdtemp(prefix="mlk-", dir="/tmp")
    server = EmbeddedRedis(folder).start()
    yield server
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


def test_redis_killed_and_restarted_loses_no_acknowledged_action(own_redis, settings):
    client = create_app(settings, connect(own_redis.url)).test_client()
    match_id, tokens = create(client)
    acknowledged = []
    play_random_game(
        client,
        match_id,
        tokens,
        random.Random(3),
        max_actions=30,
        on_action=lambda answer: acknowledged.extend(answer["events"]),
    )
    assert len({e["version"] for e in acknowledged}) >= 30

    own_redis.kill()  # SIGKILL right after the last acknowledgement: no chance to flush anything

    down = client.get(f"/v1/matches/{match_id}/events")
    assert down.status_code == 503 and down.json["error"] == "storage_unavailable"
    refused = act(client, match_id, tokens[0], 999, {"type": "place", "cells": [[0, 0]]})
    assert refused.status_code == 503

    own_redis.start()  # a new server on the same files
    # the same app recovers by itself
    log = client.get(f"/v1/matches/{match_id}/events?limit=1000").json["events"]
    assert log[1:] == acknowledged
    fresh = create_app(settings, connect(own_redis.url)).test_client()
    state = fresh.get(f"/v1/matches/{match_id}/state").json
    assert state["version"] == acknowledged[-1]["version"]


def test_a_game_end_is_scored_even_if_the_scoring_job_is_lost(real_client, real_redis, redis_url, settings):
    """The game-over notice stays pending until the result is in the log, so a lost job is redone."""
    match_id, tokens = create(real_client)
    play_random_game(real_client, match_id, tokens, random.Random(11))
    projector = Projector(Matches(real_redis, settings), real_redis, consumer="doomed", block_ms=10)
    while projector.step():
        pass
    jobs = JobQueue(real_redis, Keys(settings.namespace)).queue(SCORING).key
    assert real_redis.llen(jobs) == 1, "the projector enqueued the scoring job"
    real_redis.delete(jobs)  # ... which is lost, as if its worker had died with it

    worker = start_worker(redis_url, settings)
    store = EventStore(real_redis, Keys(settings.namespace))
    try:
        wait_for(lambda: real_client.get(f"/v1/matches/{match_id}").json.get("result"), timeout=60)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    result = real_client.get(f"/v1/matches/{match_id}").json["result"]
    final = replay.replay(store.read(match_id))
    assert result == {"final": True, **GAME.scores(final.game)}


def test_a_worker_started_while_redis_is_away_waits_for_it(settings, caplog):
    """RQ's worker asks Redis about itself as it is made: a worker started before its Redis used to exit
    there, where the README says it waits and carries on."""
    import threading

    from workers import worker

    stop = threading.Event()
    failures = []

    def run():
        try:
            worker.run(settings, "redis://127.0.0.1:1/0", stop)
        except Exception as error:
            failures.append(error)

    thread = threading.Thread(target=run, daemon=True)
    with caplog.at_level("WARNING", logger="matchlog.worker"):
        thread.start()
        thread.join(timeout=2.5)
        assert thread.is_alive() and not failures, failures
        stop.set()
        thread.join(timeout=10)
    assert not thread.is_alive() and not failures
    assert any("redis unavailable" in r.getMessage() for r in caplog.records if r.name == "matchlog.worker")
