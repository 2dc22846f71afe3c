"""The live feed, ``GET /v1/matches/{id}/events/stream`` (Server-Sent Events), on the app in-process: the
backlog then each new entry, resumable with ``Last-Event-ID`` or ``?after=``, heartbeats, the same
``event_view`` gate as ``/events`` for seats and spectators, and an ``end`` event once scored."""

from __future__ import annotations

import dataclasses
import random

from service.http.app import create_app
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.helpers import act, bearer, create, full_log, play_random_game, run_jobs
from tests.sse import Listener


def live_client(settings, fake_redis):
    return create_app(dataclasses.replace(settings, sse_heartbeat_s=0.2), fake_redis).test_client()


def stream(client, match_id, token=None, **headers):
    headers = {**headers, **(bearer(token) if token else {})}
    query = headers.pop("query", "")
    answer = client.get(f"/v1/matches/{match_id}/events/stream{query}", headers=headers, buffered=False)
    assert answer.status_code == 200 and answer.mimetype == "text/event-stream"
    return Listener(answer.response)


def test_the_backlog_then_each_new_entry_with_its_version_as_id(settings, fake_redis):
    client = live_client(settings, fake_redis)
    match_id, tokens = create(client)
    listener = stream(client, match_id)
    first = listener.until(lambda e: e.get("id") == "1")
    assert first[-1]["data"]["type"] == "match_created"
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json
    assert act(client, match_id, tokens[0], 1, legal["actions"][0]).status_code == 201
    pushed = listener.until(lambda e: e.get("id") == "2")[-1]
    # the entry as /events has it, with its match's game (an entry alone says it), and whose turn it is
    # after it and the match's status: what the match says now
    page = client.get(f"/v1/matches/{match_id}/events?after=1").json
    match = client.get(f"/v1/matches/{match_id}").json
    assert pushed["data"] == {
        "game": page["game"],
        **page["events"][0],
        "to_act": match["to_act"],
        "status": match["status"],
    }
    assert page["game"] == "blokus" and match["to_act"] == [1]
    assert listener.until(lambda e: e.get("comment") == "ping")  # heartbeats while nothing happens
    scraped = client.get("/metrics").get_data(as_text=True)
    assert any(
        line.startswith("matchlog_live_subscribers ") and float(line.split()[1]) >= 1
        for line in scraped.splitlines()
    )


def test_resume_with_last_event_id_or_after(settings, fake_redis):
    client = live_client(settings, fake_redis)
    match_id, tokens = create(client)
    play_random_game(client, match_id, tokens, random.Random(1), max_actions=5)
    resumed = stream(client, match_id, **{"Last-Event-ID": "4"}).until(lambda e: e.get("id") == "6")
    assert [e["id"] for e in resumed if "id" in e] == ["5", "6"]
    after = stream(client, match_id, query="?after=5").until(lambda e: e.get("id") == "6")
    assert [e["id"] for e in after if "id" in e] == ["6"]
    garbled = client.get(f"/v1/matches/{match_id}/events/stream", headers={"Last-Event-ID": "zz"})
    assert garbled.status_code == 400 and "Last-Event-ID" in garbled.json["fields"]  # not a replay from 1
    for odd in ("9" * 5000, "9" * 23, "²"):  # too long for an int, past any stream id, a digit int() refuses
        answer = client.get(f"/v1/matches/{match_id}/events/stream", headers={"Last-Event-ID": odd})
        assert answer.status_code == 400 and "Last-Event-ID" in answer.json["fields"]
    # an EventSource opened on ?after=2 reconnects to that URL with the last id it got: nothing comes twice
    reconnected = stream(client, match_id, query="?after=2", **{"Last-Event-ID": "5"}).until(
        lambda e: e.get("id") == "6"
    )
    assert [e["id"] for e in reconnected if "id" in e] == ["6"]
    garbled_reconnect = client.get(
        f"/v1/matches/{match_id}/events/stream?after=2", headers={"Last-Event-ID": "zz"}
    )
    assert garbled_reconnect.status_code == 400 and "Last-Event-ID" in garbled_reconnect.json["fields"]


def test_each_seat_and_a_spectator_see_what_events_shows_them(settings, fake_redis):
    client = live_client(settings, fake_redis)
    match_id, tokens = create(
        client, game="chock-a-block", players=[{"name": "a"}, {"name": "b"}, {"name": "c"}]
    )
    listeners = {
        None: stream(client, match_id),
        0: stream(client, match_id, tokens[0]),
        1: stream(client, match_id, tokens[1]),
    }
    play_random_game(client, match_id, tokens, random.Random(2), max_actions=25)
    version = client.get(f"/v1/matches/{match_id}").json["version"]
    for seat, listener in listeners.items():
        got = [e["data"] for e in listener.until(lambda e: e.get("id") == str(version)) if "data" in e]
        logged = full_log(client, match_id, tokens[seat] if seat is not None else None)
        after = [{"to_act": e.pop("to_act"), "status": e.pop("status")} for e in got]
        assert got == [{"game": "chock-a-block", **entry} for entry in logged]
        now = client.get(f"/v1/matches/{match_id}").json  # after the last entry: what the match says
        assert after[-1] == {"to_act": now["to_act"], "status": now["status"]}
        assert after[0]["status"] == "active" and after[0]["to_act"]  # every seat named at creation


def test_the_stream_ends_once_the_match_is_scored(settings, fake_redis):
    client = live_client(settings, fake_redis)
    match_id, tokens = create(client)
    listener = stream(client, match_id, tokens[0])
    play_random_game(client, match_id, tokens, random.Random(3))
    client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[0]))
    run_jobs(fake_redis, settings)
    events = listener.until(lambda e: e.get("event") == "end", timeout=20)
    assert events[-2]["data"]["type"] == "match_scored"
    assert listener.until(lambda e: "closed" in e)
    last = events[-1]["id"]  # a client that reconnects with the end's own id is told the end again, at once
    again = stream(client, match_id, **{"Last-Event-ID": last}).until(lambda e: "closed" in e, timeout=5)
    assert [e.get("event") for e in again if "event" in e] == ["end"] and again[-2]["id"] == last


def _draw_for_seat_0(client, match_id, tokens, draws: int) -> int:
    """Moves by whoever is to act, drawing from the deck (a private card) when they may, until seat 0 drew
    ``draws`` cards; the version after."""
    while draws:
        seat = client.get(f"/v1/matches/{match_id}").json["to_act"][0]
        legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json
        action = next((a for a in legal["actions"] if a.get("source") == "DECK"), legal["actions"][0])
        answer = act(client, match_id, tokens[seat], legal["version"], action)
        assert answer.status_code == 201, answer.json
        draws -= sum(e["type"] == "card_drawn" and e["seat"] == 0 for e in answer.json["events"])
    return answer.json["version"]


def test_a_seat_handed_over_in_another_process_ends_its_feed_at_the_handover(settings, fake_redis):
    """The feed's process still trusts its copy of the seat tokens (up to 2 s old) when the log says the
    seat was replaced elsewhere: the feed asks Redis then, and shows nothing of the new holder's."""
    here, elsewhere = (
        live_client(settings, fake_redis),
        live_client(settings, fake_redis),
    )  # two API processes
    _, key = Platforms(fake_redis, Keys(settings.namespace)).create("arena")
    created = here.post(
        "/v1/matches",
        headers=bearer(key),
        json={"game": "chock-a-block", "players": [{"name": "ann"}, {"name": "bob"}]},
    ).json
    match_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]
    listener = stream(here, match_id, tokens[0])
    listener.until(lambda e: e.get("id") == "1")
    replaced = elsewhere.post(
        f"/v1/matches/{match_id}/seats/0/replace", json={"name": "cat"}, headers=bearer(key)
    )
    assert replaced.status_code == 200
    _draw_for_seat_0(elsewhere, match_id, [replaced.json["token"], tokens[1]], 2)
    rest = listener.until(lambda e: "closed" in e)
    assert all(int(e["id"]) <= replaced.json["version"] for e in rest if "id" in e)
    assert [e.get("event") for e in rest if "event" in e] == ["revoked"]
    assert not [e for e in rest if "card" in e.get("data", {}).get("data", {})]


def test_feeds_are_counted_per_client_address_behind_trusted_proxies(settings, fake_redis):
    app = create_app(
        dataclasses.replace(settings, sse_heartbeat_s=0.2, sse_per_address=1, trusted_proxies=1), fake_redis
    )
    client = app.test_client()
    match_id, _ = create(client)
    forwarded = lambda address: {"X-Forwarded-For": address}  # noqa: E731
    stream(client, match_id, **forwarded("203.0.113.1"))
    refused = client.get(f"/v1/matches/{match_id}/events/stream", headers=forwarded("203.0.113.1"))
    assert refused.status_code == 429 and refused.json["error"] == "too_many_streams"
    assert refused.headers["Retry-After"] == "1"
    stream(client, match_id, **forwarded("203.0.113.2"))  # another client behind the same proxy


def test_an_ipv6_client_s_feeds_are_counted_by_its_64(settings, fake_redis):
    # a host is given a whole /64: counted by the address, one client held 2^64 times the cap
    app = create_app(dataclasses.replace(settings, sse_heartbeat_s=0.2, sse_per_address=1), fake_redis)
    client = app.test_client()
    match_id, _ = create(client)

    def opened(address: str):
        url = f"/v1/matches/{match_id}/events/stream"
        return client.get(url, environ_base={"REMOTE_ADDR": address}, buffered=False)

    held = [opened("2001:db8:1:2::1")]
    refused = opened("2001:db8:1:2::2")  # the same /64
    assert refused.status_code == 429 and refused.json["error"] == "too_many_streams"
    held += [opened("2001:db8:1:3::1"), opened("192.0.2.7")]  # another /64, an IPv4 client
    assert [answer.status_code for answer in held] == [200, 200, 200]
    assert opened("::ffff:192.0.2.7").status_code == 429  # the IPv4 client, written in IPv6
