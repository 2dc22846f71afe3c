"""``MATCHLOG_DURABILITY=replicated`` on a real Redis Cluster: a master SIGKILLed under load, its replica
promoted, and every action the API acknowledged still in the log. During the failover the API answers
503 (``storage_unavailable`` or ``not_replicated``), and a client that retries with the same
``Idempotency-Key`` learns whether its action landed. The promoted replica has no replica of its own
until the dead node comes back (restarted, as an orchestrator would): until then its matches answer
``not_replicated``, and then the API serves them again by itself, with no restart of its own."""

from __future__ import annotations

import dataclasses
import threading
import time
import uuid

import pytest

from service.domain.chain import verify_chain
from service.http.app import create_app
from service.store.events import EventStore
from service.store.keys import Keys
from service.store.platforms import Platforms
from service.store.redis_client import connect
from tests.helpers import bearer, beating_worker, create
from tests.redis_cluster import LocalCluster

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
def doomed_cluster():
    """A cluster of this test's own: one of its masters is killed."""
    with LocalCluster(node_timeout_ms=1000) as cluster:
        yield cluster


class Player(threading.Thread):
    """Plays one match as fast as it can, as a careful client: a 503 is retried with the same
    Idempotency-Key until the action is known to be in the log (201) or not (a fresh listing)."""

    def __init__(self, app, match_id, tokens, stop):
        super().__init__(daemon=True)
        self.client, self.match_id, self.tokens, self.stop = app.test_client(), match_id, tokens, stop
        self.acknowledged: list[tuple[float, dict]] = []  # (when, the entry the 201 named)
        self.unavailable: list[tuple[float, str]] = []
        self.failed: list[str] = []

    def run(self):
        while not self.stop.is_set():
            try:
                self.move()
            except Exception as error:  # the assertion reports it
                self.failed.append(repr(error))
                return

    def answer(self, method, url, **kwargs):
        """The first answer other than 503, waiting out the failover."""
        while True:
            response = getattr(self.client, method)(url, **kwargs)
            if response.status_code != 503:
                return response
            self.unavailable.append((time.monotonic(), response.json["error"]))
            if self.stop.is_set():
                return response
            time.sleep(0.05)

    def move(self):
        match = self.answer("get", f"/v1/matches/{self.match_id}").json
        if match.get("status") != "active":
            self.stop.wait(0.05)
            return
        seat = match["to_act"][0]
        listing = self.answer(
            "get", f"/v1/matches/{self.match_id}/legal-actions", headers=bearer(self.tokens[seat])
        )
        if listing.status_code != 200:
            return
        body = {"expected_version": listing.json["version"], "action": listing.json["actions"][-1]}
        headers = {**bearer(self.tokens[seat]), "Idempotency-Key": uuid.uuid4().hex}
        response = self.answer("post", f"/v1/matches/{self.match_id}/actions", json=body, headers=headers)
        if response.status_code == 201:
            self.acknowledged += [(time.monotonic(), e) for e in response.json["events"]]
        elif response.status_code not in (409, 503):
            self.failed.append(f"{response.status_code} {response.json}")


def test_no_acknowledged_action_is_lost_when_a_master_dies(doomed_cluster, redis_url, settings):
    settings = dataclasses.replace(
        settings, durability="replicated", replica_wait_ms=500, rq_redis_url=redis_url
    )
    store = connect(doomed_cluster.startup_url)
    app = create_app(settings, store)
    client = app.test_client()
    matches = [create(client, "blokus") for _ in range(9)]
    keys = Keys(settings.namespace, settings.feed_partitions)
    assert (
        app.extensions["matchlog"].repository.readiness(0, replicated=True)["replicas"] == 1
    )  # every master has its replica
    victim = doomed_cluster.master_of(keys.log(matches[0][0]))
    on_victim = [m for m, _ in matches if doomed_cluster.master_of(keys.log(m)) == victim]

    stop = threading.Event()
    players = [Player(app, match_id, tokens, stop) for match_id, tokens in matches]
    for player in players:
        player.start()
    time.sleep(1.5)  # under load
    before_kill = sum(len(p.acknowledged) for p in players)
    killed_at = time.monotonic()
    doomed_cluster.kill(victim)
    doomed_cluster.wait_promoted(victim, timeout=30)
    promoted_at = time.monotonic()
    time.sleep(1.0)  # a master without a replica: nothing of its slots can be acknowledged
    doomed_cluster.restart(victim)  # back, as a replica of the promoted one
    restarted_at = time.monotonic()
    time.sleep(2.0)  # and on, after the failover
    stop.set()
    for player in players:
        player.join(timeout=30)

    assert not [f for p in players for f in p.failed]
    assert before_kill > 0
    unavailable = [(t, error) for p in players for t, error in p.unavailable]
    print(
        f"\nmatches on the killed master: {len(on_victim)} of {len(matches)}; acknowledged "
        f"{sum(len(p.acknowledged) for p in players)} entries; 503s: {len(unavailable)} "
        f"({sorted({e for _, e in unavailable})}); failover took {promoted_at - killed_at:.1f} s"
    )
    alone = {e for t, e in unavailable if promoted_at < t < restarted_at}
    assert unavailable and {e for _, e in unavailable} <= {"storage_unavailable", "not_replicated"}
    assert all(t >= killed_at for t, _ in unavailable), "no 503 before the crash"
    assert "not_replicated" in alone, "a master with no replica acknowledges nothing"
    recovered = [t for p in players if p.match_id in on_victim for t, _ in p.acknowledged if t > restarted_at]
    assert recovered, "the matches of the killed master took actions again, with no restart of the API"

    fresh = connect(doomed_cluster.startup_url)  # a client that never saw the old master
    reader = EventStore.of(fresh, settings)
    for player in players:
        log = reader.read(player.match_id)
        verify_chain(log)
        by_version = {entry.version: entry for entry in log}
        for _, entry in player.acknowledged:
            kept = by_version.get(entry["version"])
            assert kept is not None, f"acknowledged version {entry['version']} of {player.match_id} was lost"
            assert (kept.type, kept.seat, kept.data) == (entry["type"], entry["seat"], entry["data"])


def test_with_no_replica_to_confirm_the_api_answers_not_replicated(real_redis, settings):
    """The suite's single Redis has no replica: with replicated durability nothing can be acknowledged,
    and the answer says what the client should do."""
    client = create_app(
        dataclasses.replace(
            settings,
            durability="replicated",
            replica_wait_ms=50,
            rate_limit_per_address="500/second",
            webhooks_private=True,
        ),  # its headers: Retry-After kept
        real_redis,
    ).test_client()
    answer = client.post("/v1/matches", json={"game": "blokus", "players": [{"name": n} for n in "abcd"]})
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "1"
    assert answer.json["error"] == "not_replicated" and "Idempotency-Key" in answer.json["message"]
    _, key = Platforms(real_redis, Keys(settings.namespace)).create("arena")
    hooked = client.post(
        "/v1/webhooks", json={"url": "http://127.0.0.1:9/hook", "events": ["placed"]}, headers=bearer(key)
    )
    assert hooked.status_code == 503 and hooked.json["error"] == "not_replicated"
    assert client.get("/v1/webhooks", headers=bearer(key)).json == {"webhooks": []}  # not registered
    beating_worker(real_redis, settings)
    ready = client.get("/readyz")
    assert ready.status_code == 503 and ready.json["error"] == "not_ready" and ready.json["replicas"] == 0
    local = create_app(settings, real_redis).test_client()
    assert (
        local.post(
            "/v1/matches", json={"game": "blokus", "players": [{"name": n} for n in "abcd"]}
        ).status_code
        == 201
    )
