"""The analysis on the real Redis with real ``matchlog worker`` processes: a bot-only match played to its end
through the API, its analysis asked for, polled while it runs and read when done; a worker killed in the
middle of an analysis leaves it to another, which finishes it once."""

from __future__ import annotations

import time

import pytest
from rq.registry import StartedJobRegistry

from service.store.jobqueue import ANALYSIS_TIMEOUT_S, RQ_HEARTBEAT_GRACE_S, JobQueue
from service.store.keys import Keys
from tests.helpers import start_worker, wait_for

pytestmark = pytest.mark.slow


def _finished_bot_match(client, game, options, bots) -> str:
    created = client.post(
        "/v1/matches", json={"game": game, "options": options, "players": [{"bot": b} for b in bots]}
    )
    assert created.status_code == 201, created.json
    match_id = created.json["id"]

    def scored():
        """the bots played the match to its end, and it is scored"""
        return client.get(f"/v1/matches/{match_id}").json.get("result") is not None

    wait_for(scored, timeout=240, every=0.5)
    return match_id


def test_a_bot_match_played_to_the_end_is_analysed_by_a_worker(real_client, redis_url, settings):
    worker = start_worker(redis_url, settings)
    try:
        match_id = _finished_bot_match(real_client, "chock-a-block", {}, ["greedy", "random", "random"])
        asked = real_client.post(f"/v1/matches/{match_id}/analysis")
        assert asked.status_code == 202 and asked.json["status"] in ("queued", "running", "done")
        seen = set()

        def done():
            """the analysis is done"""
            answer = real_client.get(f"/v1/matches/{match_id}/analysis").json
            seen.add(answer["status"])
            assert answer["progress"]["done"] <= answer["progress"]["total"] or answer["status"] == "queued"
            return answer["status"] == "done"

        wait_for(done, timeout=240, every=0.05)
        result = real_client.get(f"/v1/matches/{match_id}/analysis").json
        assert result["job_id"] == asked.json["job_id"]
        moves = result["analysis"]["moves"]
        assert moves and result["progress"] == {"done": len(moves), "total": len(moves)}
        assert {s["seat"] for s in result["analysis"]["seats"]} == {0, 1, 2}
        again = real_client.post(f"/v1/matches/{match_id}/analysis").json
        assert again == result  # kept, not recomputed
    finally:
        worker.kill()
        worker.wait()


def test_a_worker_killed_mid_analysis_leaves_it_to_another(real_client, real_redis, redis_url, settings):
    first = start_worker(redis_url, settings)
    try:
        match_id = _finished_bot_match(real_client, "blokus", {"variant": "two_player"}, ["greedy", "greedy"])
        real_client.post(f"/v1/matches/{match_id}/analysis")

        def running():
            """the analysis is under way"""
            answer = real_client.get(f"/v1/matches/{match_id}/analysis").json
            return answer["status"] == "running" and answer["progress"]["done"] >= 2

        wait_for(running, timeout=120, every=0.02)
    finally:
        first.kill()
        first.wait()
    stalled = real_client.get(f"/v1/matches/{match_id}/analysis").json
    assert stalled["status"] == "running"
    # the job's timeout passes (a worker takes a dead one's job back only then): as if it had
    queue = JobQueue(real_redis, Keys(settings.namespace)).queue("analyses")
    StartedJobRegistry(queue=queue).cleanup(timestamp=time.time() + ANALYSIS_TIMEOUT_S + RQ_HEARTBEAT_GRACE_S)
    second = start_worker(redis_url, settings)
    try:

        def done():
            """another worker took the job back and finished it"""
            return real_client.get(f"/v1/matches/{match_id}/analysis").json["status"] == "done"

        wait_for(done, timeout=300, every=0.2)
    finally:
        second.kill()
        second.wait()
    result = real_client.get(f"/v1/matches/{match_id}/analysis").json
    assert result["progress"]["done"] == len(result["analysis"]["moves"]) > 10
