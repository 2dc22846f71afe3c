"""Webhooks against a real HTTP receiver on loopback and the real Redis: a platform registers a URL and
entry types; the rule worker enqueues one delivery per append that brings such entries; the delivery
job POSTs it signed (HMAC-SHA256 of the timestamp and body) with a delivery id, and a failing receiver
gets it again with backoff; every attempt is listed. Private URLs are refused unless allowed. Every body
the receiver gets fits the served contract (WebhookDelivery, or RatingChangedDelivery), strictly."""

from __future__ import annotations

import dataclasses
import hashlib
import http.server
import json
import signal
import threading
import time

import pytest
from rq import Retry, SimpleWorker

from service.application.matches import Matches
from service.http.app import create_app
from service.store.jobqueue import JobQueue
from service.store.keys import Keys
from service.store.platforms import Platforms
from service.store.webhooks import verify
from tests.helpers import act, bearer, start_worker, wait_for
from tests.http.test_openapi_components_typed import validator
from workers.jobs import run_here
from workers.projector import Projector


class Receiver:
    """A loopback HTTP server that records each POST and answers with the next status of ``statuses``
    (after ``stall_first_s`` for the first one: a receiver that hangs while its caller dies)."""

    def __init__(self, statuses, stall_first_s=0.0, answer_headers=(), bodies_of_the_test=False):
        self.statuses = list(statuses)
        self.checked = not bodies_of_the_test  # a body the server made fits the contract; a test's own, not
        self.received = []
        self.answered = []  # the delivery ids of the answers sent, with their status
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.received.append((dict(self.headers), body))
                if len(receiver.received) == 1 and stall_first_s:
                    time.sleep(stall_first_s)
                    return  # its caller is gone by now
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                for name, value in answer_headers:
                    self.send_header(name, value)
                self.end_headers()
                receiver.answered.append((self.headers["Matchlog-Delivery"], status))

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        for _, body in self.received if self.checked else ():  # the server's bodies: what the contract says
            delivery = json.loads(body)
            shape = (
                "RatingChangedDelivery" if delivery.get("event") == "rating_changed" else "WebhookDelivery"
            )
            errors = [e.message for e in validator(shape).iter_errors(delivery)]
            assert not errors, (errors, delivery)


@pytest.fixture
def hooked(settings, real_redis):
    settings = dataclasses.replace(settings, webhooks_private=True, claim_idle_ms=0)
    client = create_app(settings, real_redis).test_client()
    _, key = Platforms(real_redis, Keys(settings.namespace)).create("arena")
    return settings, client, key


def work(settings, real_redis, until, seconds=60):
    """Run the rule worker and the job worker (with its scheduler, for the retries) until ``until()``."""
    matches = Matches(real_redis, settings)
    run_here(
        matches, real_redis
    )  # the jobs run with these settings (webhooks_private), as a worker's do with its own
    projector = Projector(matches, real_redis, consumer="test", block_ms=10)
    queues = JobQueue(real_redis, Keys(settings.namespace)).queues()
    deadline = time.monotonic() + seconds
    while not until():
        assert time.monotonic() < deadline, "the deliveries did not arrive"
        projector.step()
        SimpleWorker(queues, connection=real_redis).work(burst=True, with_scheduler=True)
        time.sleep(0.3)


def test_deliveries_are_signed_retried_and_listed(hooked, real_redis):
    settings, client, key = hooked
    receiver = Receiver([500, 500])  # the first two attempts fail
    try:
        hook = client.post(
            "/v1/webhooks",
            json={"url": receiver.url, "events": ["match_started", "seat_joined"]},
            headers=bearer(key),
        )
        assert hook.status_code == 201, hook.json
        secret = hook.json["secret"]
        created = client.post(
            "/v1/matches",
            json={"game": "blokus", "players": [{"name": "a"}, {"open": True}]},
            headers=bearer(key),
        ).json
        assert (
            client.post(f"/v1/matches/{created['id']}/seats/1/join", json={"name": "bob"}).status_code == 201
        )
        work(settings, real_redis, lambda: len(receiver.received) >= 3)
        bodies = [json.loads(body) for _, body in receiver.received]
        assert [b["delivery"] for b in bodies] == [bodies[0]["delivery"]] * 3  # one delivery, retried twice
        assert [e["type"] for e in bodies[-1]["entries"]] == ["seat_joined", "match_started"]
        for headers, body in receiver.received:
            assert verify(secret, headers["Matchlog-Signature"], body)
            assert headers["Matchlog-Delivery"] == bodies[0]["delivery"]
        assert not verify(
            "another secret", receiver.received[0][0]["Matchlog-Signature"], receiver.received[0][1]
        )
        attempts = client.get(f"/v1/webhooks/{hook.json['id']}/deliveries", headers=bearer(key)).json[
            "deliveries"
        ]
        assert [a["status"] for a in attempts] == [200, 500, 500] and [a["attempt"] for a in attempts] == [
            3,
            2,
            1,
        ]
        assert all(a["at"].endswith("Z") for a in attempts) and bodies[0]["previous_version"] is None
    finally:
        receiver.close()


def test_only_wanted_types_and_own_matches_are_delivered_once(hooked, real_redis):
    settings, client, key = hooked
    receiver = Receiver([])
    try:
        client.post("/v1/webhooks", json={"url": receiver.url, "events": ["placed"]}, headers=bearer(key))
        mine = client.post(
            "/v1/matches",
            json={"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]},
            headers=bearer(key),
        ).json
        client.post(
            "/v1/matches", json={"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}
        )  # anonymous
        token = mine["seats"][0]["token"]
        legal = client.get(f"/v1/matches/{mine['id']}/legal-actions", headers=bearer(token)).json
        assert act(client, mine["id"], token, 1, legal["actions"][0]).status_code == 201
        work(settings, real_redis, lambda: len(receiver.received) >= 1)
        work(settings, real_redis, lambda: True)  # a second pass delivers nothing again
        assert len(receiver.received) == 1
        body = json.loads(receiver.received[0][1])
        assert body["match"] == mine["id"] and [e["type"] for e in body["entries"]] == ["placed"]
        now = client.get(f"/v1/matches/{mine['id']}").json  # after the append: whose turn, and the status
        assert (body["to_act"], body["status"]) == (now["to_act"], "active") and now["to_act"] == [1]
    finally:
        receiver.close()


def test_a_redirect_is_a_failed_delivery_never_followed(hooked, real_redis):
    settings, client, key = hooked
    inside = Receiver([])  # what a redirect could point at: an address nobody checked
    outside = Receiver([302] * 10, answer_headers=[("Location", inside.url)])
    try:
        hook = client.post(
            "/v1/webhooks", json={"url": outside.url, "events": ["match_started"]}, headers=bearer(key)
        )
        created = client.post(
            "/v1/matches",
            json={"game": "blokus", "players": [{"name": "a"}, {"open": True}]},
            headers=bearer(key),
        ).json
        client.post(f"/v1/matches/{created['id']}/seats/1/join", json={"name": "bob"})
        work(settings, real_redis, lambda: len(outside.received) >= 2)
        attempts = client.get(f"/v1/webhooks/{hook.json['id']}/deliveries", headers=bearer(key)).json[
            "deliveries"
        ]
        assert {a["status"] for a in attempts} == {302} and inside.received == []
    finally:
        outside.close()
        inside.close()


def test_urls_nobody_can_deliver_to_are_refused_with_a_reason(settings, real_redis):
    client = create_app(settings, real_redis).test_client()
    _, key = Platforms(real_redis, Keys(settings.namespace)).create("arena")
    for url in (
        "http://[zz]/",
        "http://[::1/",
        "http://8.8.8.8:0/",
        "http://8.8.8.8/a b",
        "http://8.8.8.8/\r\nX: 1",
        "http://8.8.8.8/\u0000",
        "http://100.64.0.1/",
        "http://[2002:7f00:1::]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[64:ff9b::a00:1]/",
        "http://[::10.0.0.1]/",
    ):
        answer = client.post(
            "/v1/webhooks", json={"url": url, "events": ["match_scored"]}, headers=bearer(key)
        )
        assert answer.status_code == 400 and answer.json["fields"]["url"], url


def test_private_urls_are_refused_unless_allowed(settings, real_redis):
    client = create_app(settings, real_redis).test_client()
    _, key = Platforms(real_redis, Keys(settings.namespace)).create("arena")
    for url in ("http://127.0.0.1:9/x", "http://10.1.2.3/x", "http://[::1]/x", "ftp://example.com/x"):
        answer = client.post(
            "/v1/webhooks", json={"url": url, "events": ["match_scored"]}, headers=bearer(key)
        )
        assert answer.status_code == 400 and "url" in answer.json["fields"], url
        if "//1" in url:
            assert "MATCHLOG_WEBHOOKS_PRIVATE=true" in answer.json["fields"]["url"][0]  # what allows them
    assert (
        client.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/x", "events": ["x"]}).status_code == 401
    )


def test_a_webhook_names_entry_types_that_exist(hooked):
    _, client, key = hooked
    typo = client.post(
        "/v1/webhooks",
        json={"url": "http://127.0.0.1:9/x", "events": ["Placed", "placed"]},
        headers=bearer(key),
    )
    assert typo.status_code == 400 and "'Placed'" in typo.json["fields"]["events"][0]
    assert client.get("/v1/webhooks", headers=bearer(key)).json == {"webhooks": []}  # nothing half-registered
    catalogue = {game["id"]: game["entry_types"] for game in client.get("/v1/games").json}
    assert "placed" in catalogue["blokus"] and "match_scored" in catalogue["blokus"]
    assert "placed" not in catalogue["block-block"]
    every = sorted({kind for kinds in catalogue.values() for kind in kinds})
    for some in (every[i : i + 50] for i in range(0, len(every), 50)):  # at most 50 types per webhook
        made = client.post(
            "/v1/webhooks", json={"url": "http://127.0.0.1:9/x", "events": some}, headers=bearer(key)
        )
        assert made.status_code == 201 and made.json["events"] == some


def test_a_platform_lists_its_own_webhooks_without_their_secrets(hooked, real_redis, settings):
    _, client, key = hooked
    _, other = Platforms(real_redis, Keys(settings.namespace)).create("elsewhere")
    made = [
        client.post(
            "/v1/webhooks",
            json={"url": f"http://127.0.0.1:9/{n}", "events": ["placed", "match_started"]},
            headers=bearer(key),
        ).json
        for n in range(2)
    ]
    client.post(
        "/v1/webhooks", json={"url": "http://127.0.0.1:9/other", "events": ["placed"]}, headers=bearer(other)
    )
    listed = client.get("/v1/webhooks", headers=bearer(key))
    assert listed.status_code == 200
    assert listed.json["webhooks"] == sorted(
        (
            {k: h[k] for k in ("id", "url", "events", "status", "disabled_at", "disabled_reason")}
            for h in made
        ),
        key=lambda h: h["id"],
    )
    assert client.get("/v1/webhooks").json["error"] == "platform_key_required"


def test_a_platform_deletes_its_own_webhook_and_nothing_more_is_delivered_to_it(hooked, real_redis, settings):
    settings, client, key = hooked
    _, other = Platforms(real_redis, Keys(settings.namespace)).create("elsewhere")
    receiver = Receiver([])
    try:
        hook = client.post(
            "/v1/webhooks", json={"url": receiver.url, "events": ["match_started"]}, headers=bearer(key)
        ).json
        assert (
            client.delete(f"/v1/webhooks/{hook['id']}", headers=bearer(other)).json["error"]
            == "not_your_webhook"
        )
        deleted = client.delete(f"/v1/webhooks/{hook['id']}", headers=bearer(key))
        assert deleted.status_code == 204 and deleted.data == b""
        assert client.get("/v1/webhooks", headers=bearer(key)).json == {"webhooks": []}
        again = client.delete(f"/v1/webhooks/{hook['id']}", headers=bearer(key))
        assert again.status_code == 404 and again.json["error"] == "webhook_not_found"
        created = client.post(
            "/v1/matches",
            json={"game": "blokus", "players": [{"name": "a"}, {"open": True}]},
            headers=bearer(key),
        ).json
        assert (
            client.post(f"/v1/matches/{created['id']}/seats/1/join", json={"name": "bob"}).status_code == 201
        )
        work(settings, real_redis, lambda: True)
        assert receiver.received == []
    finally:
        receiver.close()


def test_a_worker_killed_mid_delivery_loses_no_delivery(hooked, real_redis, redis_url):
    """The worker dies while its POST hangs, with more deliveries queued behind it: another worker
    delivers them all, the dead one's again once its job outlives the delivery timeout."""
    settings, client, key = hooked
    receiver = Receiver([], stall_first_s=8)
    workers = []
    try:
        client.post("/v1/webhooks", json={"url": receiver.url, "events": ["placed"]}, headers=bearer(key))
        match = client.post(
            "/v1/matches",
            json={"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]},
            headers=bearer(key),
        ).json
        tokens = [seat["token"] for seat in match["seats"]]
        for _version in range(1, 4):  # three appends that bring a placement: three deliveries
            seat = client.get(f"/v1/matches/{match['id']}").json["to_act"][0]
            legal = client.get(f"/v1/matches/{match['id']}/legal-actions", headers=bearer(tokens[seat])).json
            assert (
                act(client, match["id"], tokens[seat], legal["version"], legal["actions"][0]).status_code
                == 201
            )
        workers.append(start_worker(redis_url, settings, MATCHLOG_WEBHOOKS_PRIVATE="true"))
        wait_for(lambda: receiver.received, timeout=30)
        workers[0].send_signal(signal.SIGKILL)
        workers[0].wait()
        workers.append(start_worker(redis_url, settings, MATCHLOG_WEBHOOKS_PRIVATE="true"))

        def all_delivered():
            """three deliveries, each answered 200"""
            return len({delivery for delivery, status in receiver.answered if status == 200}) == 3

        wait_for(all_delivered, timeout=90, every=0.2)
        stalled = receiver.received[0][0]["Matchlog-Delivery"]
        assert stalled in {delivery for delivery, _ in receiver.answered}, (
            "the dead worker's delivery came again"
        )
    finally:
        for worker in workers:
            worker.kill()
            worker.wait()
        receiver.close()


def test_a_failed_delivery_is_one_warning_line_not_a_traceback(real_redis, settings, caplog):
    from workers.jobs import DeliveryFailed
    from workers.worker import _JobWorker

    queue = JobQueue(real_redis, Keys(settings.namespace)).queue("webhooks")
    worker = _JobWorker([queue], connection=real_redis)
    job = queue.enqueue(
        "workers.jobs.deliver_webhook", "h", "d", "{}", settings.namespace, retry=Retry(max=1)
    )
    failed = DeliveryFailed("delivery d of webhook h to 127.0.0.1:9 failed (attempt 1): 500")
    with caplog.at_level("DEBUG"):
        worker.handle_exception(job, DeliveryFailed, failed, None)
        job.retries_left = 0
        worker.handle_exception(job, DeliveryFailed, failed, None)
    lines = [(r.levelname, r.getMessage()) for r in caplog.records if r.levelno >= 30]
    assert lines == [
        ("WARNING", f"webhook {failed}; tried again later"),
        ("ERROR", f"webhook {failed}; the last attempt: given up"),
    ]
    with caplog.at_level("DEBUG"):
        worker.handle_exception(job, ValueError, ValueError("a bug"), None)  # anything else: RQ's traceback
    assert any("a bug" in r.getMessage() and r.levelname == "ERROR" for r in caplog.records)
    job.delete()


def test_a_delivery_goes_to_the_address_its_check_approved(monkeypatch):
    """DNS rebinding: a name that resolves to an approved address for the check and elsewhere a moment
    later. The delivery connects to the checked address; it never asks the name again."""
    import socket

    from service.store import webhooks

    receiver = Receiver([], bodies_of_the_test=True)
    port = receiver.server.server_address[1]
    answers = iter([("127.0.0.1", port)] + [("127.0.0.2", port)] * 10)  # nothing listens on .2
    real = socket.getaddrinfo

    def rebinding(host, *args, **kwargs):
        if host != "rebind.test":
            return real(host, *args, **kwargs)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", next(answers))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    try:
        status = webhooks.post(
            f"http://rebind.test:{port}/hooks",
            b"{}",
            {"Content-Type": "application/json"},
            allow_private=True,
            connect_s=2,
            deadline_s=5,
        )
        assert status == 200 and len(receiver.received) == 1
        assert receiver.received[0][0]["Host"] == f"rebind.test:{port}"  # the name, kept for the receiver
    finally:
        receiver.close()


def test_a_webhook_gets_private_draws_sealed_as_a_spectator_sees_them(hooked, real_redis):
    """A platform's receiver is a spectator: a private deck draw reaches it without its card, with the
    public data and commitment its hash covers, and the real card's whole-entry hash is nowhere in it."""
    from service.domain.chain import canonical_json
    from tests.integration.test_hidden_on_serve import play_drawing

    settings, client, key = hooked
    receiver = Receiver([])
    try:
        client.post("/v1/webhooks", json={"url": receiver.url, "events": ["card_drawn"]}, headers=bearer(key))
        created = client.post(
            "/v1/matches",
            json={"game": "chock-a-block", "players": [{"name": "a"}, {"name": "b"}]},
            headers=bearer(key),
        ).json
        match_id = created["id"]
        play_drawing(client, match_id, [s["token"] for s in created["seats"]])
        work(settings, real_redis, lambda: any(b'"private":true' in body for _, body in receiver.received))
        whole = {e.version: e for e in Matches(real_redis, settings).repository.read(match_id)[1]}
        drawn = [
            e
            for _, body in receiver.received
            for e in json.loads(body)["entries"]
            if e["data"].get("private")
        ]
        assert drawn
        for entry in drawn:
            truth = whole[entry["version"]]
            assert (
                "card" not in entry["data"] and entry["public_data"] == entry["data"] and entry["commitment"]
            )
            prev = whole[truth.version - 1].hash
            guessed = hashlib.sha256(
                prev.encode()
                + b"\n"
                + canonical_json([truth.version, truth.type, truth.seat, truth.data, truth.at])
            ).hexdigest()
            assert guessed != entry["hash"]
    finally:
        receiver.close()


def _placements(client, match_id, tokens, count):
    for _ in range(count):
        seat = client.get(f"/v1/matches/{match_id}").json["to_act"][0]
        legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json
        assert act(client, match_id, tokens[seat], legal["version"], legal["actions"][0]).status_code == 201


def test_each_delivery_names_the_previous_one_so_a_receiver_can_put_them_in_order(hooked, real_redis):
    """The first delivery fails and is retried after the later ones arrived: each names the version of the
    delivery before it (of this match to this hook), and holding one until its previous one came puts them
    back in version order."""
    settings, client, key = hooked
    receiver = Receiver([500])
    try:
        client.post("/v1/webhooks", json={"url": receiver.url, "events": ["placed"]}, headers=bearer(key))
        match = client.post(
            "/v1/matches",
            json={"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]},
            headers=bearer(key),
        ).json
        _placements(client, match["id"], [s["token"] for s in match["seats"]], 4)
        answered = lambda: len({d for d, status in receiver.answered if status == 200}) == 4  # noqa: E731
        work(settings, real_redis, answered)
        bodies = [json.loads(body) for _, body in receiver.received]
        arrived = [b["version"] for b in bodies]
        assert arrived != sorted(arrived)  # the failed first one came again after the others
        chain = {b["version"]: b["previous_version"] for b in bodies}
        versions = sorted(chain)
        assert chain == dict(zip(versions, [None] + versions[:-1]))
        # the receiver of docs/howto/webhooks.md: hold a delivery until the previous one was handled
        handled, held = [], {}
        for body in bodies:
            if body["version"] in handled:
                continue  # a retry of one handled already
            held[body["previous_version"]] = body
            while (handled[-1] if handled else None) in held:
                handled.append(held.pop(handled[-1] if handled else None)["version"])
        assert handled == versions and not held
    finally:
        receiver.close()


def test_a_retry_comes_no_sooner_than_the_documented_backoff(hooked, real_redis):
    """RQ registers a retry at a whole second: the time it registered, read against the failed attempt's,
    is at least the documented 1 s later, and at most 2 s (no clock is raced here)."""
    from datetime import datetime

    from rq.registry import ScheduledJobRegistry

    from service.store.jobqueue import DELIVERY_BACKOFF_S

    settings, client, key = hooked
    receiver = Receiver([500, 500])
    try:
        hook = client.post(
            "/v1/webhooks", json={"url": receiver.url, "events": ["match_started"]}, headers=bearer(key)
        ).json
        match = client.post(
            "/v1/matches",
            json={"game": "blokus", "players": [{"name": "a"}, {"open": True}]},
            headers=bearer(key),
        ).json
        client.post(f"/v1/matches/{match['id']}/seats/1/join", json={"name": "bob"})
        matches = Matches(real_redis, settings)
        run_here(matches, real_redis)
        projector = Projector(matches, real_redis, consumer="test", block_ms=10)
        queue = JobQueue(real_redis, Keys(settings.namespace)).queue("webhooks")
        registry = ScheduledJobRegistry(queue=queue)
        for attempt, backoff in zip((1, 2), DELIVERY_BACKOFF_S):
            deadline = time.monotonic() + 30
            while len(receiver.received) < attempt:  # no scheduler: the retry stays registered, not moved
                assert time.monotonic() < deadline
                projector.step()
                SimpleWorker([queue], connection=real_redis).work(burst=True, with_scheduler=False)
            failed = client.get(f"/v1/webhooks/{hook['id']}/deliveries", headers=bearer(key)).json[
                "deliveries"
            ][0]
            assert failed["attempt"] == attempt and failed["status"] == 500
            started = datetime.fromisoformat(failed["at"].replace("Z", "+00:00")).timestamp()
            ended = started + failed["ms"] / 1000
            ((job_id, registered),) = real_redis.zrange(registry.key, 0, -1, withscores=True)
            assert ended + backoff <= registered + 0.001 and registered <= ended + backoff + 1.5
            real_redis.zadd(registry.key, {job_id: 0})  # due now: the rule loop moves it
    finally:
        receiver.close()


def test_delivery_attempts_page_newest_first_with_a_cursor(hooked, real_redis):
    settings, client, key = hooked
    hook = client.post(
        "/v1/webhooks", json={"url": "http://127.0.0.1:9/x", "events": ["placed"]}, headers=bearer(key)
    ).json
    webhooks = Matches(real_redis, settings).stores.webhooks
    for n in range(250):
        webhooks.record(
            hook["id"],
            {"delivery": f"d{n}", "attempt": 1, "at": "2026-11-27T16:00:00.000Z", "status": 200, "ms": 1.0},
        )
    seen, cursor = [], None
    while True:
        page = client.get(
            f"/v1/webhooks/{hook['id']}/deliveries",
            query_string={"limit": 100, **({"cursor": cursor} if cursor else {})},
            headers=bearer(key),
        )
        assert page.status_code == 200, page.json
        seen += [a["delivery"] for a in page.json["deliveries"]]
        cursor = page.json["next_cursor"]
        if cursor is None:
            break
    assert seen == [f"d{n}" for n in reversed(range(250))]
    bad = client.get(f"/v1/webhooks/{hook['id']}/deliveries?cursor=nope", headers=bearer(key))
    assert bad.status_code == 400


def test_a_webhook_gets_the_texts_in_the_language_it_registered_with(hooked, real_redis):
    """Two webhooks of one platform, one registered with ``language: ko``: the same delivery but for its
    ids, each entry's text in the hook's language (English by default)."""
    settings, client, key = hooked
    receiver = Receiver([])
    try:
        for language in ("ko", None):
            hook = client.post(
                "/v1/webhooks",
                json={
                    "url": receiver.url,
                    "events": ["placed"],
                    **({"language": language} if language else {}),
                },
                headers=bearer(key),
            )
            assert hook.status_code == 201, hook.json
        mine = client.post(
            "/v1/matches",
            json={"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]},
            headers=bearer(key),
        ).json
        token = mine["seats"][0]["token"]
        legal = client.get(f"/v1/matches/{mine['id']}/legal-actions", headers=bearer(token)).json
        assert act(client, mine["id"], token, 1, legal["actions"][0]).status_code == 201
        work(settings, real_redis, lambda: len(receiver.received) >= 2)
        bodies = sorted(
            (json.loads(body) for _, body in receiver.received), key=lambda b: b["entries"][0]["text"]
        )
        english, korean = bodies  # ASCII sorts before Hangul
        assert english["entries"][0]["text"].startswith("blue placed ")
        assert korean["entries"][0]["text"].startswith("파랑이(가) ")
        ids = ("delivery", "webhook")
        same = [{k: v for k, v in b.items() if k not in ids} for b in bodies]
        for body in same:
            body["entries"] = [{k: v for k, v in e.items() if k != "text"} for e in body["entries"]]
        assert same[0] == same[1]
    finally:
        receiver.close()
