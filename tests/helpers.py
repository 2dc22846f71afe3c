"""Small client-side helpers shared by the API tests: they do what any HTTP client would."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time

PLAYERS = [{"name": n} for n in ("ann", "bob", "cat", "dan")]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client, game="blokus", players=PLAYERS, **extra):
    response = client.post("/v1/matches", json={"game": game, "players": players, **extra})
    assert response.status_code == 201, response.json
    body = response.json
    return body["id"], [seat["token"] for seat in body["seats"]]


def act(client, match_id, token, expected_version, action, **headers):
    return client.post(
        f"/v1/matches/{match_id}/actions",
        headers={**bearer(token), **headers},
        json={"expected_version": expected_version, "action": action},
    )


def play_random_game(
    client,
    match_id,
    tokens,
    rng: random.Random,
    on_action=None,
    on_listing=None,
    max_actions: int | None = None,
):
    """Play through the API only: read who acts, list their legal actions, post one; to the end, or
    ``max_actions``. ``on_listing(seat, listing)`` sees each list, ``on_action(answer)`` each answer."""
    played = 0
    while max_actions is None or played < max_actions:
        match = client.get(f"/v1/matches/{match_id}").json
        if match["status"] == "finished":
            return match
        seat = match["to_act"][0]
        legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json
        assert legal["actions"], "the seat to act always has a legal action"
        if on_listing:
            on_listing(seat, legal)
        response = act(client, match_id, tokens[seat], legal["version"], rng.choice(legal["actions"]))
        assert response.status_code == 201, response.json
        played += 1
        if on_action:
            on_action(response.json)
    return client.get(f"/v1/matches/{match_id}").json


def run_jobs(redis_client, settings) -> None:
    """Run every queued background job (scoring...) here and now, as a worker would."""
    from rq import SimpleWorker

    from service.application.matches import Matches
    from service.store.jobqueue import JobQueue
    from service.store.keys import Keys
    from service.store.redis_client import for_jobs
    from workers.jobs import run_here

    jobs = for_jobs(settings.rq_redis_url, redis_client)  # RQ's own Redis beside a cluster
    if jobs is not redis_client:
        run_here(Matches(redis_client, settings, jobs_redis=jobs), jobs)
    queues = JobQueue(jobs, Keys(settings.namespace)).queues()
    SimpleWorker(queues, connection=jobs).work(burst=True)


def score(client, redis_client, settings, match_id, token) -> dict:
    """Ask for scoring as a seat, run the job, and return the result the job reports."""
    answer = client.post(f"/v1/matches/{match_id}/score", headers=bearer(token))
    assert answer.status_code == 202, answer.json
    run_jobs(redis_client, settings)
    job = client.get(f"/v1/jobs/{answer.json['job_id']}", headers=bearer(token)).json
    assert job["status"] == "finished", job
    return job["result"]


def full_log(client, match_id, token=None) -> list[dict]:
    """Every log entry of a match as ``token``'s seat (or a spectator) sees it, page after page."""
    headers = bearer(token) if token else {}
    entries, after = [], 0
    while True:
        page = client.get(f"/v1/matches/{match_id}/events?after={after}&limit=1000", headers=headers).json[
            "events"
        ]
        if not page:
            return entries
        entries += page
        after = page[-1]["version"]


class _Beating:
    def __init__(self, redis_client, key: str, name: str):
        self.redis, self.key, self.name = redis_client, key, name

    def heartbeat(self) -> None:
        """What a rule worker's partition round records: its name, scored by Redis's clock in ms."""
        seconds, micros = self.redis.time()
        self.redis.zadd(self.key, {self.name: seconds * 1000 + micros // 1000})


def beating_worker(redis_client, settings):
    """A rule worker's heartbeat, as a live one leaves it (``/readyz`` wants one); it runs nothing, and beats
    again only when asked (``heartbeat()``)."""
    import uuid

    from service.store.keys import Keys

    worker = _Beating(redis_client, Keys(settings.namespace).feed_members, f"test-{uuid.uuid4().hex[:8]}")
    worker.heartbeat()
    return worker


def wait_for(condition, timeout=60.0, every=0.05):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {condition.__doc__ or condition}")
        time.sleep(every)


def start_worker(redis_url, settings, **env) -> subprocess.Popen:
    """``matchlog worker`` as its own process (so that a test may kill it), quick to claim a dead one's work
    (and, within 2 s, the feed partitions of one that stopped renewing its leases)."""
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "MATCHLOG_NAMESPACE": settings.namespace,
        "MATCHLOG_SECRET_KEY": settings.secret_key,
        "MATCHLOG_CLAIM_IDLE_MS": "500",
        "MATCHLOG_SNAPSHOT_EVERY": "4",
        "MATCHLOG_PARTITION_LEASE_MS": "2000",
        "MATCHLOG_DURABILITY": settings.durability,
        **({"RQ_REDIS_URL": settings.rq_redis_url} if settings.rq_redis_url else {}),
        **env,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "service.cli", "worker"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
