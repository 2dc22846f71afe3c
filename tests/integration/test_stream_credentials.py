"""Long-lived connections on a real API (gunicorn, one gevent worker, the real Redis) end with their
credential: a live feed opened with a seat's token delivers nothing private once the seat is handed over
(replaced by its platform, or timed out to a bot) and closes; a platform-key feed closes once the key is
revoked; an idle moves socket closes by itself. The heartbeat is set to 10 minutes, so that a close
within the tests' waits is the credential check's doing, not the next ping's."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import time

import pytest
import websocket

from service.store.keys import Keys
from service.store.platforms import Platforms
from service.store.redis_client import connect
from tests.bench.api import HOST, Servers
from tests.sse import Listener

pytestmark = pytest.mark.slow

QUIET = {"MATCHLOG_SSE_HEARTBEAT_S": "600", "MATCHLOG_SSE_IDLE_S": "600"}
WAIT_S = 20  # generous: the checks run every 2 s


@pytest.fixture(scope="module")
def api(redis_url):
    servers = Servers(1, redis_url, env=QUIET)
    platforms = Platforms(connect(servers.url), Keys(servers.namespace))
    yield servers, platforms
    servers.close()


def call(port, method, path, body=None, token=None, source=HOST):
    connection = http.client.HTTPConnection(HOST, port, timeout=10, source_address=(source, 0))
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    answer = connection.getresponse()
    data = json.loads(answer.read())
    connection.close()
    return answer.status, data


class HangUp:
    """A feed's socket: ``close`` hangs up at once (closing the HTTP connection would wait for the Listener's
    read to end)."""

    def __init__(self, sock: socket.socket):
        self._socket = sock

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_RDWR)
        self._socket.close()


def stream(port, match_id, token=None, query="", source=HOST):
    """A live feed; the refusal (status, headers, body) instead when it is refused."""
    connection = http.client.HTTPConnection(HOST, port, timeout=60, source_address=(source, 0))
    connection.request(
        "GET",
        f"/v1/matches/{match_id}/events/stream{query}",
        headers={"Authorization": f"Bearer {token}"} if token else {},
    )
    hang_up = HangUp(connection.sock)
    answer = connection.getresponse()
    if answer.status != 200:
        refusal = answer.status, dict(answer.getheaders()), json.loads(answer.read())
        connection.close()
        return refusal
    return hang_up, Listener(iter(answer.readline, b""))


def chock_a_block(port, key=None, **extra):
    status, created = call(
        port,
        "POST",
        "/v1/matches",
        {"game": "chock-a-block", "players": [{"name": "ann"}, {"name": "bob"}], **extra},
        token=key,
    )
    assert status == 201, created
    return created["id"], [seat["token"] for seat in created["seats"]]


def play(port, match_id, tokens, draws_by_seat_0: int) -> int:
    """Moves by whoever is to act, drawing from the deck (private) when they may, until seat 0 drew that many
    cards; the match's version after."""
    drawn = 0
    while drawn < draws_by_seat_0:
        _, match = call(port, "GET", f"/v1/matches/{match_id}")
        seat = match["to_act"][0]
        _, legal = call(port, "GET", f"/v1/matches/{match_id}/legal-actions", token=tokens[seat])
        action = next((a for a in legal["actions"] if a.get("source") == "DECK"), legal["actions"][0])
        status, answer = call(
            port,
            "POST",
            f"/v1/matches/{match_id}/actions",
            {"expected_version": legal["version"], "action": action},
            token=tokens[seat],
        )
        assert status == 201, answer
        drawn += sum(
            e["type"] == "card_drawn" and e["seat"] == 0 and e["data"]["private"] for e in answer["events"]
        )
    return answer["version"]


def until_closed(listener: Listener) -> list[dict]:
    return listener.until(lambda event: "closed" in event, timeout=WAIT_S)


def private_cards(events, seat=0) -> list[dict]:
    return [
        e
        for e in events
        if e.get("data", {}).get("type") == "card_drawn"
        and e["data"]["seat"] == seat
        and "card" in e["data"]["data"]
    ]


def test_a_seats_feed_shows_nothing_private_after_its_seat_is_replaced_and_closes(api):
    servers, platforms = api
    _, key = platforms.create("arena-replace")
    match_id, tokens = chock_a_block(servers.port, key)
    connection, listener = stream(servers.port, match_id, tokens[0])
    try:
        before = play(servers.port, match_id, tokens, 1)
        seen = listener.until(lambda e: e.get("id") == str(before))
        assert private_cards(seen)  # seat 0's own draw, with its card
        status, replaced = call(
            servers.port, "POST", f"/v1/matches/{match_id}/seats/0/replace", {"name": "cat"}, token=key
        )
        assert status == 200, replaced
        play(servers.port, match_id, [replaced["token"], tokens[1]], 2)  # the newcomer draws for seat 0
        rest = until_closed(listener)
    finally:
        connection.close()
    # the handover itself may be shown or not (this process may learn of the new token first): nothing after it
    assert all(int(e["id"]) <= replaced["version"] for e in rest if "id" in e)
    assert [e.get("event") for e in rest if "event" in e] == ["revoked"]  # said why, then closed
    assert not private_cards(rest)


def test_a_platform_feed_closes_once_its_key_is_revoked(api):
    servers, platforms = api
    platform_id, key = platforms.create("arena-revoke")
    match_id, tokens = chock_a_block(servers.port, key)
    connection, listener = stream(servers.port, match_id, key, query="?seat=0")
    try:
        listener.until(lambda e: e.get("id") == "1")
        platforms.revoke(platform_id)  # what `matchlog keys revoke` does to the key
        revoked_at = call(servers.port, "GET", f"/v1/matches/{match_id}")[1]["version"]
        play(
            servers.port, match_id, tokens, 2
        )  # seats still play: their draws must not reach the revoked key
        rest = until_closed(listener)
    finally:
        connection.close()
    assert all(int(e["id"]) <= revoked_at for e in rest if "id" in e)
    assert [e.get("event") for e in rest if "event" in e] == ["revoked"]


def test_a_seats_feed_closes_when_its_seat_times_out_to_a_bot(api):
    servers, _ = api
    match_id, tokens = chock_a_block(servers.port, clock={"per_action_s": 1}, on_timeout="bot")
    first = call(servers.port, "GET", f"/v1/matches/{match_id}")[1]["to_act"][0]  # the first player is dealt
    connection, listener = stream(servers.port, match_id, tokens[first])
    try:
        listener.until(lambda e: e.get("id") == "1")
        _, legal = call(servers.port, "GET", f"/v1/matches/{match_id}/legal-actions", token=tokens[first])
        time.sleep(
            1.5
        )  # past the seat's deadline: its late move meets the timeout, and the seat goes to a bot
        status, late = call(
            servers.port,
            "POST",
            f"/v1/matches/{match_id}/actions",
            {"expected_version": legal["version"], "action": legal["actions"][0]},
            token=tokens[first],
        )
        assert status == 409 and late["error"] == "out_of_time", late
        rest = until_closed(listener)
    finally:
        connection.close()
    timed_out = [int(e["id"]) for e in rest if e.get("data", {}).get("type") == "timed_out"]
    assert all(int(e["id"]) <= max(timed_out, default=late["current_version"]) for e in rest if "id" in e)
    assert [e.get("event") for e in rest if "event" in e] == ["revoked"]


def test_an_idle_moves_socket_closes_once_its_seat_is_replaced(api):
    servers, platforms = api
    _, key = platforms.create("arena-socket")
    match_id, tokens = chock_a_block(servers.port, key)
    socket = websocket.create_connection(
        f"ws://{HOST}:{servers.port}/v1/matches/{match_id}/moves",
        timeout=WAIT_S,
        header=[f"Authorization: Bearer {tokens[0]}"],
    )
    try:
        status, _ = call(
            servers.port, "POST", f"/v1/matches/{match_id}/seats/0/replace", {"bot": "random"}, token=key
        )
        assert status == 200
        told = json.loads(socket.recv())  # unasked: the socket says why, then closes
        assert told["status"] == 403 and told["error"] == "wrong_token", told
        opcode, data = socket.recv_data(control_frame=True)
        assert opcode == websocket.ABNF.OPCODE_CLOSE and int.from_bytes(data[:2], "big") == 1008
    finally:
        socket.close()


# -- what a live feed costs the server ---------------------------------------------------------------

CAPPED = {**QUIET, "MATCHLOG_SSE_PER_ADDRESS": "3", "MATCHLOG_SSE_PER_PROCESS": "5"}


def test_feeds_are_capped_per_address_and_per_process_and_healthz_still_answers(redis_url):
    """Up to each cap and one more, each refusal in the API's error shape with Retry-After; /healthz answers
    all the while; streams whose clients left free their slots (long before the 10-minute heartbeat)."""
    servers = Servers(1, redis_url, env=CAPPED)
    held = []
    try:
        match_id, _ = chock_a_block(servers.port)
        held += [stream(servers.port, match_id, source="127.0.0.2") for _ in range(3)]
        assert all(isinstance(s[1], Listener) for s in held)
        status, headers, body = stream(servers.port, match_id, source="127.0.0.2")
        assert status == 429 and body["error"] == "too_many_streams" and int(headers["Retry-After"]) >= 1, (
            body
        )
        held += [stream(servers.port, match_id, source="127.0.0.3") for _ in range(2)]  # the process's 5th
        assert all(isinstance(s[1], Listener) for s in held)
        status, headers, body = stream(servers.port, match_id, source="127.0.0.4")
        assert status == 503 and body["error"] == "streams_full" and int(headers["Retry-After"]) >= 1, body
        status, health = call(servers.port, "GET", "/healthz")  # (a 10 s timeout: no latency is asserted)
        assert status == 200 and health["status"] == "ok"
        for connection, _ in held[:3]:
            connection.close()
        deadline = time.monotonic() + WAIT_S
        while not isinstance((again := stream(servers.port, match_id, source="127.0.0.2"))[1], Listener):
            assert time.monotonic() < deadline, again  # the closed clients' slots came back
            time.sleep(0.2)
        held.append(again)
    finally:
        for feed in held:
            if isinstance(feed[0], HangUp):
                feed[0].close()
        servers.close()


def test_an_idle_feed_is_closed_and_its_client_resumes(redis_url):
    servers = Servers(1, redis_url, env={**QUIET, "MATCHLOG_SSE_IDLE_S": "1"})
    try:
        match_id, tokens = chock_a_block(servers.port)
        connection, listener = stream(servers.port, match_id)
        seen = until_closed(listener)  # nothing new came for a second: closed
        connection.close()
        last = [e["id"] for e in seen if "id" in e][-1]
        version = play(servers.port, match_id, tokens, 1)
        connection, listener = stream(servers.port, match_id, query=f"?after={last}")
        resumed = listener.until(lambda e: e.get("id") == str(version))
        connection.close()
        assert [int(e["id"]) for e in resumed if "id" in e] == list(range(int(last) + 1, version + 1))
    finally:
        servers.close()
