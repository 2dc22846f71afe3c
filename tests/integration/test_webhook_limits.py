"""Webhooks within bounds, against real receivers on loopback and the real Redis: a platform's share of
webhooks and of delivery slots, an attempt that a stalled or dripping receiver cannot stretch, outcomes in
the server's words only, a webhook that keeps failing disabled until its platform enables it, the body of
one append kept once for every webhook, and a signature that covers the delivery id."""

from __future__ import annotations

import dataclasses
import json
import socket
import threading
import time

import pytest
from rq import SimpleWorker
from rq.job import Job

from service.application.deliveries import Deliveries
from service.application.matches import Matches
from service.http.app import create_app
from service.store.jobqueue import WEBHOOKS, JobQueue
from service.store.keys import Keys
from service.store.platforms import Platforms
from service.store.webhooks import Undelivered, Webhooks, post, verify
from tests.helpers import bearer
from tests.integration.test_webhooks import Receiver, work
from workers.jobs import run_here


def deliveries(jobs: JobQueue):
    """The queue webhook deliveries go to."""
    return jobs.queue(WEBHOOKS)


@pytest.fixture
def hooked(settings, real_redis):
    settings = dataclasses.replace(settings, webhooks_private=True, claim_idle_ms=0)
    client = create_app(settings, real_redis).test_client()
    _, key = Platforms(real_redis, Keys(settings.namespace)).create("arena")
    return settings, client, key


class Peer:
    """A loopback socket that accepts connections and does ``behave(connection)`` with each: says nothing,
    drips a byte at a time, or says something that is no HTTP."""

    def __init__(self, behave):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/hook"
        self.closed = threading.Event()
        self.connections: list[socket.socket] = []

        def serve():
            while not self.closed.is_set():
                try:
                    connection, _ = self.listener.accept()
                except OSError:
                    return
                self.connections.append(connection)
                threading.Thread(target=behave, args=(connection, self.closed), daemon=True).start()

        threading.Thread(target=serve, daemon=True).start()

    def close(self):
        self.closed.set()
        self.listener.close()
        for connection in self.connections:
            connection.close()


def silent(connection, closed):
    closed.wait()


def dripping(connection, closed):
    """An answer a byte at a time, each well within any per-read timeout, that never ends."""
    try:
        for byte in b"HTTP/1.1 200 OK" + b" " * 100_000:
            if closed.wait(0.2):
                return
            connection.send(bytes([byte]))
    except OSError:
        return


def banner(connection, closed):
    connection.sendall(b"SSH-2.0-OpenSSH_9.6p1 internal-bastion-7\r\n")
    closed.wait()


def test_a_platform_has_at_most_its_share_of_webhooks(hooked, settings, real_redis):
    settings, _, key = hooked
    client = create_app(dataclasses.replace(settings, webhooks_per_platform=3), real_redis).test_client()
    made = [
        client.post(
            "/v1/webhooks", json={"url": f"http://127.0.0.1:9/{n}", "events": ["placed"]}, headers=bearer(key)
        )
        for n in range(4)
    ]
    assert [m.status_code for m in made] == [201, 201, 201, 409]
    assert made[3].json["error"] == "too_many_webhooks" and made[3].json["limit"] == 3
    assert len(client.get("/v1/webhooks", headers=bearer(key)).json["webhooks"]) == 3


def test_a_receiver_that_never_answers_is_a_timeout():
    peer = Peer(silent)
    try:
        with pytest.raises(Undelivered) as raised:
            post(peer.url, b"{}", {}, allow_private=True, connect_s=1, deadline_s=0.5)
        assert raised.value.outcome == "timeout"
    finally:
        peer.close()


def test_a_receiver_that_drips_its_answer_cannot_stretch_the_attempt():
    """Each byte comes well within the deadline; the status line never ends. A timeout per read would wait
    for ever; the attempt's deadline ends it."""
    peer = Peer(dripping)
    try:
        with pytest.raises(Undelivered) as raised:
            post(peer.url, b"{}", {}, allow_private=True, connect_s=1, deadline_s=1)
        assert raised.value.outcome in ("timeout", "not_http")
    finally:
        peer.close()


def test_an_attempt_records_an_outcome_never_the_peers_bytes(hooked, real_redis):
    settings, client, key = hooked
    peer = Peer(banner)
    closed = socket.create_server(("127.0.0.1", 0))
    refused = f"http://127.0.0.1:{closed.getsockname()[1]}/hook"
    closed.close()  # nothing listens there now
    try:
        hooks = [
            client.post("/v1/webhooks", json={"url": url, "events": ["placed"]}, headers=bearer(key)).json[
                "id"
            ]
            for url in (peer.url, refused)
        ]
        matches = Matches(real_redis, settings)
        run_here(matches, real_redis)
        jobs = JobQueue(real_redis, Keys(settings.namespace))
        for hook in hooks:
            deliveries(jobs).enqueue(
                "workers.jobs.deliver_webhook", hook, f"d-{hook}", "{}", settings.namespace
            )
        SimpleWorker([deliveries(jobs)], connection=real_redis).work(burst=True)
        attempts = [
            client.get(f"/v1/webhooks/{hook}/deliveries", headers=bearer(key)).json["deliveries"]
            for hook in hooks
        ]
        assert [[a["outcome"] for a in listed] for listed in attempts] == [["not_http"], ["refused"]]
        assert "SSH" not in json.dumps(attempts) and all("error" not in a for a in attempts[0])
    finally:
        peer.close()


def test_tls_to_a_receiver_that_speaks_no_tls_is_a_tls_outcome():
    receiver = Receiver([])
    try:
        with pytest.raises(Undelivered) as raised:
            post(
                receiver.url.replace("http:", "https:"),
                b"{}",
                {},
                allow_private=True,
                connect_s=1,
                deadline_s=2,
            )
        assert raised.value.outcome == "tls"
    finally:
        receiver.close()


def test_an_attempt_an_older_release_kept_shows_no_error_text(hooked, real_redis):
    settings, client, key = hooked
    hook = client.post(
        "/v1/webhooks", json={"url": "http://127.0.0.1:9/", "events": ["placed"]}, headers=bearer(key)
    ).json["id"]
    old = {
        "delivery": "d",
        "attempt": 1,
        "at": "2026-11-27T16:00:00.000Z",
        "error": "SSH-2.0-OpenSSH_9.6",
        "ms": 1,
    }
    real_redis.xadd(Keys(settings.namespace).webhook_attempts(hook), {"attempt": json.dumps(old)})
    listed = client.get(f"/v1/webhooks/{hook}/deliveries", headers=bearer(key)).json["deliveries"]
    assert listed == [
        {"delivery": "d", "attempt": 1, "at": "2026-11-27T16:00:00.000Z", "outcome": "unknown", "ms": 1}
    ]


def test_the_signature_covers_the_delivery_id(hooked, real_redis):
    settings, client, key = hooked
    receiver = Receiver([])
    try:
        secret = client.post(
            "/v1/webhooks", json={"url": receiver.url, "events": ["match_started"]}, headers=bearer(key)
        ).json["secret"]
        created = client.post(
            "/v1/matches",
            json={"game": "blokus", "players": [{"name": "a"}, {"open": True}]},
            headers=bearer(key),
        ).json
        client.post(f"/v1/matches/{created['id']}/seats/1/join", json={"name": "bob"})
        work(settings, real_redis, lambda: receiver.received)
        headers, body = receiver.received[0]
        assert verify(secret, headers["Matchlog-Signature"], body, delivery=headers["Matchlog-Delivery"])
        assert not verify(
            secret, headers["Matchlog-Signature"], body, delivery=headers["Matchlog-Delivery"] + "x"
        )
        assert verify(secret, headers["Matchlog-Signature"], body)  # v1, kept one more release
    finally:
        receiver.close()


def test_a_platforms_deliveries_take_at_most_its_slots_and_the_rest_wait_their_turn(settings, real_redis):
    keys = Keys(settings.namespace)
    store = Webhooks(real_redis, keys, Matches(real_redis, settings).stores.server_key)
    with (
        store.slot("arena", "a", 2, 30) as first,
        store.slot("arena", "b", 2, 30) as second,
        store.slot("arena", "c", 2, 30) as third,
        store.slot("elsewhere", "c", 2, 30) as other,
    ):
        assert (first, second, third, other) == (True, True, False, True)
    with store.slot("arena", "c", 2, 30) as later:
        assert later


def test_a_delivery_over_its_platforms_slots_comes_again_later_not_lost(hooked, real_redis):
    settings, client, key = hooked
    settings = dataclasses.replace(settings, webhook_slots_per_platform=1)
    receiver = Receiver([], bodies_of_the_test=True)
    try:
        hook = client.post(
            "/v1/webhooks", json={"url": receiver.url, "events": ["placed"]}, headers=bearer(key)
        ).json["id"]
        matches = Matches(real_redis, settings)
        run_here(matches, real_redis)
        platform = matches.stores.webhooks.get(hook)["platform"]
        jobs = JobQueue(real_redis, Keys(settings.namespace))
        with Deliveries(matches.stores).slot(platform, "a stalled delivery") as taken:
            assert taken
            jobs.enqueue_delivery("d1", hook, '{"delivery":"d1"}')
            SimpleWorker([deliveries(jobs)], connection=real_redis).work(burst=True)
            assert receiver.received == [] and Job.exists("hook-d1_wait1", connection=real_redis)
        deadline = time.monotonic() + 30
        while not receiver.received:
            assert time.monotonic() < deadline, "the deferred delivery never came"
            jobs.enqueue_overdue()
            SimpleWorker([deliveries(jobs)], connection=real_redis).work(burst=True)
            time.sleep(0.3)
        assert receiver.received[0][0]["Matchlog-Delivery"] == "d1"
    finally:
        receiver.close()


def test_a_webhook_that_keeps_failing_is_disabled_until_its_platform_enables_it(hooked, real_redis):
    settings, client, key = hooked
    settings = dataclasses.replace(settings, webhook_disable_after=2)
    receiver = Receiver([500] * 10, bodies_of_the_test=True)
    try:
        hook = client.post(
            "/v1/webhooks", json={"url": receiver.url, "events": ["placed"]}, headers=bearer(key)
        ).json["id"]
        run_here(Matches(real_redis, settings), real_redis)
        queue = deliveries(JobQueue(real_redis, Keys(settings.namespace)))
        for n in range(3):  # no retries: each attempt is its delivery's last
            queue.enqueue("workers.jobs.deliver_webhook", hook, f"d{n}", "{}", settings.namespace)
        SimpleWorker([queue], connection=real_redis).work(burst=True)
        listed = client.get("/v1/webhooks", headers=bearer(key)).json["webhooks"][0]
        assert listed["status"] == "disabled" and listed["disabled_reason"] == "failing"
        assert listed["disabled_at"].endswith("Z") and len(receiver.received) == 2  # the third not sent
        enabled = client.patch(f"/v1/webhooks/{hook}", json={"status": "enabled"}, headers=bearer(key))
        assert enabled.status_code == 200 and enabled.json["status"] == "enabled"
        assert enabled.json["disabled_at"] is None
    finally:
        receiver.close()


def test_one_appends_body_is_kept_once_for_every_webhook(hooked, real_redis):
    settings, client, key = hooked
    receiver = Receiver([])
    try:
        for _ in range(5):
            client.post(
                "/v1/webhooks", json={"url": receiver.url, "events": ["match_started"]}, headers=bearer(key)
            )
        created = client.post(
            "/v1/matches",
            json={"game": "blokus", "players": [{"name": "a"}, {"open": True}]},
            headers=bearer(key),
        ).json
        client.post(f"/v1/matches/{created['id']}/seats/1/join", json={"name": "bob"})
        work(settings, real_redis, lambda: len(receiver.received) >= 5)
        bodies = list(real_redis.scan_iter(match=f"{settings.namespace}:webhook-body:*"))
        assert len(bodies) == 1
        delivered = [json.loads(body) for _, body in receiver.received]
        assert len({d["webhook"] for d in delivered}) == 5
        assert all(d["entries"] == delivered[0]["entries"] and d["match"] == created["id"] for d in delivered)
    finally:
        receiver.close()


def test_a_delivery_job_of_an_older_release_still_delivers(hooked, real_redis):
    """Enqueued before the body was kept once: (hook, delivery, whole body, namespace)."""
    settings, client, key = hooked
    receiver = Receiver([], bodies_of_the_test=True)
    try:
        hook = client.post(
            "/v1/webhooks", json={"url": receiver.url, "events": ["placed"]}, headers=bearer(key)
        ).json["id"]
        run_here(Matches(real_redis, settings), real_redis)
        queue = deliveries(JobQueue(real_redis, Keys(settings.namespace)))
        queue.enqueue(
            "workers.jobs.deliver_webhook", hook, "old", '{"delivery":"old","entries":[]}', settings.namespace
        )
        SimpleWorker([queue], connection=real_redis).work(burst=True)
        assert receiver.received[0][1] == b'{"delivery":"old","entries":[]}'
    finally:
        receiver.close()
