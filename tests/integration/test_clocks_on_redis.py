"""Clocks on the real Redis: deadlines are RQ scheduled jobs, kept in Redis, so a worker killed with
deadlines pending loses none; a deadline that races a last-moment move resolves to exactly one of them;
a match whose people stopped playing finishes by itself (their seats go to bots)."""

from __future__ import annotations

import signal
import threading
import time

import pytest
from rq.registry import ScheduledJobRegistry

from service.application.matches import Matches
from service.domain import replay
from service.domain.chain import Recorded
from service.store.jobqueue import JobQueue
from service.store.keys import Keys
from tests.helpers import act, bearer, full_log, start_worker, wait_for

pytestmark = pytest.mark.slow


def _clocked(client, per_action_s=1, on_timeout="bot", game="blokus"):
    created = client.post(
        "/v1/matches",
        json={
            "game": game,
            "players": [{"name": "ann"}, {"name": "bob"}],
            "clock": {"per_action_s": per_action_s},
            "on_timeout": on_timeout,
        },
    )
    assert created.status_code == 201, created.json
    return created.json["id"], [s["token"] for s in created.json["seats"]]


def test_an_abandoned_match_times_out_to_bots_and_finishes(real_client, redis_url, settings):
    match_id, _ = _clocked(real_client, per_action_s=1)
    worker = start_worker(redis_url, settings)
    try:
        wait_for(lambda: real_client.get(f"/v1/matches/{match_id}").json.get("result"), timeout=90, every=0.3)
    finally:
        worker.kill()
        worker.wait()
    log = full_log(real_client, match_id)
    timed_out = [e for e in log if e["type"] == "timed_out"]
    assert sorted(e["seat"] for e in timed_out) == [0, 1] and all(
        e["data"] == {"on_timeout": "bot"} for e in timed_out
    )
    match = real_client.get(f"/v1/matches/{match_id}").json
    assert match["players"] == [
        {"seat": 0, "name": "random bot", "bot": "random"},
        {"seat": 1, "name": "random bot", "bot": "random"},
    ]
    replayed = replay.replay([Recorded.from_dict(e) for e in log])  # timeouts, bots and all: no clock needed
    assert replayed.result == match["result"] and replayed.clock["running"] == []


def test_a_move_racing_its_deadline_check_after_the_deadline_meets_one_timeout(
    real_client, real_redis, settings
):
    matches = Matches(real_redis, settings)
    outcomes = set()
    for _ in range(6):
        match_id, tokens = _clocked(real_client, per_action_s=1, on_timeout="forfeit", game="block-block")
        seat = real_client.get(f"/v1/matches/{match_id}").json["to_act"][0]
        legal = real_client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json
        time.sleep(1.05)  # the clock is out: a move and the deadline check now race for version 1
        results = {}
        go = threading.Barrier(2)

        def move(go=go, results=results, match_id=match_id, token=tokens[seat], legal=legal):
            go.wait()
            results["move"] = act(real_client, match_id, token, 1, legal["actions"][0]).status_code

        def deadline(go=go, results=results, match_id=match_id):
            go.wait()
            results["deadline"] = matches.clocks.check(match_id, 1)

        threads = [threading.Thread(target=move), threading.Thread(target=deadline)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        log = full_log(real_client, match_id)
        # the move came after the deadline: refused whoever appends the timeout, which is appended once
        assert results["move"] == 409 and [e["type"] for e in log].count("timed_out") == 1, results
        assert log[1]["type"] == "timed_out"
        outcomes.add("the job's" if results["deadline"] == "timed out" else "the move's")
    assert outcomes  # who appends the timeout depends on the moment; exactly one always does


def test_a_worker_killed_with_deadlines_pending_loses_none(real_client, real_redis, redis_url, settings):
    matches = [_clocked(real_client, per_action_s=4)[0] for _ in range(3)]
    first = start_worker(redis_url, settings)
    scheduled = ScheduledJobRegistry(queue=JobQueue(real_redis, Keys(settings.namespace)).queue("clocks"))
    wait_for(lambda: len(scheduled.get_job_ids()) >= 3, timeout=30)
    first.send_signal(signal.SIGKILL)
    first.wait()
    second = start_worker(redis_url, settings)
    try:

        def all_timed_out():
            """each match's first seat timed out"""
            return all(any(e["type"] == "timed_out" for e in full_log(real_client, m)) for m in matches)

        wait_for(all_timed_out, timeout=60, every=0.3)
    finally:
        second.kill()
        second.wait()
