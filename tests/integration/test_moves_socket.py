"""The moves socket (``/v1/matches/{id}/moves``, a WebSocket) on a real ``matchlog serve``: one
connection per seat plays a whole Blokus match, each answer what the POST would answer; the same
refusals (illegal, stale version, schema, idempotency, another seat's token); the log is the same. Every
message the socket sends fits the contract's MovesSocketAnswer, strictly."""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import tempfile
import time
import uuid

import pytest
import websocket

from service.http import home_workers
from tests.bench.api import connection_holders, free_port
from tests.http.test_openapi_components_typed import validator
from tests.integration.test_serve import start_serve, stop_serve

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def served():
    folder = tempfile.mkdtemp(prefix="mlm-", dir="/tmp")
    port = free_port()
    process, http = start_serve(folder, port, MATCHLOG_RATE_LIMIT_PER_TOKEN="5000/second")
    yield port, http
    stop_serve(process)
    shutil.rmtree(folder, ignore_errors=True)


def connect(port, match_id, token):
    return websocket.create_connection(
        f"ws://127.0.0.1:{port}/v1/matches/{match_id}/moves",
        timeout=10,
        header=[f"Authorization: Bearer {token}"] if token else [],
    )


def received(socket) -> dict:
    """The socket's next message, checked strictly against the served contract (MovesSocketAnswer)."""
    message = json.loads(socket.recv())
    errors = [e.message for e in validator("MovesSocketAnswer").iter_errors(message)]
    assert not errors, (errors, message)
    return message


def send(socket, body) -> dict:
    socket.send(json.dumps(body))
    return received(socket)


def test_a_whole_match_over_one_socket_per_seat(served):
    port, http = served
    _, created = http("POST", "/v1/matches", {"game": "blokus", "players": [{"name": n} for n in "abcd"]})
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    sockets = [connect(port, match_id, token) for token in tokens]
    rng = random.Random(5)
    answers = []
    try:
        while True:
            _, match = http("GET", f"/v1/matches/{match_id}")
            if match["status"] == "finished":
                break
            seat = match["to_act"][0]
            _, legal = http("GET", f"/v1/matches/{match_id}/legal-actions", token=tokens[seat])
            answer = send(
                sockets[seat], {"expected_version": legal["version"], "action": rng.choice(legal["actions"])}
            )
            assert answer["status"] == 201, answer
            answers.append(answer)
    finally:
        for socket in sockets:
            socket.close()
    _, log = http("GET", f"/v1/matches/{match_id}/events?limit=1000")
    by_version = {e["version"]: e for e in log["events"]}
    for answer in answers:  # each answer is the POST's: the entries as the seat sees them, now in the log
        assert answer["version"] == answer["events"][-1]["version"]
        for event in answer["events"]:
            assert by_version[event["version"]]["hash"] == event["hash"]
    ended = [e["type"] for e in log["events"]][-2:]  # the worker may have scored it already
    assert ended[-1] == "seed_revealed" or ended == ["seed_revealed", "match_scored"]
    assert len(answers) > 20


def test_the_socket_refuses_as_the_post_does(served):
    port, http = served
    _, created = http("POST", "/v1/matches", {"game": "blokus", "players": [{"name": n} for n in "abcd"]})
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    _, legal = http("GET", f"/v1/matches/{match_id}/legal-actions", token=tokens[0])
    action = legal["actions"][0]
    socket = connect(port, match_id, tokens[0])
    try:
        assert send(socket, {"expected_version": 2, "action": action}) | {"message": ""} == {
            "status": 409,
            "error": "version_conflict",
            "current_version": 1,
            "message": "",
        }
        refused = send(
            socket, {"expected_version": 1, "action": {"type": "place", "piece": "V3", "cells": [[9, 9]]}}
        )
        assert refused["status"] == 422 and refused["error"] == "illegal_action" and refused["reason"]
        wrong = send(socket, {"expected_version": "one", "action": action})
        assert wrong["status"] == 400 and "expected_version" in wrong["fields"]
        key = uuid.uuid4().hex
        first = send(socket, {"expected_version": 1, "action": action, "idempotency_key": key})
        again = send(socket, {"expected_version": 1, "action": action, "idempotency_key": key})
        assert first["status"] == 201 and again == first  # a retry gets the first answer
        other = send(socket, {"expected_version": 1, "action": legal["actions"][1], "idempotency_key": key})
        assert other["status"] == 422 and other["error"] == "idempotency_key_reused"
        socket.send("not json")
        assert received(socket)["status"] == 400
    finally:
        socket.close()
    for token, error in ((None, "missing_token"), ("not-a-token", "wrong_token")):
        refused = connect(port, match_id, token)
        assert received(refused) | {"message": ""} == {
            "status": 401 if token is None else 403,
            "error": error,
            "message": "",
        }
        refused.close()


def _closed_with(socket) -> int:
    opcode, data = socket.recv_data(control_frame=True)
    assert opcode == websocket.ABNF.OPCODE_CLOSE
    return int.from_bytes(data[:2], "big")


def test_the_socket_says_why_it_closes_or_refuses_a_message(served):
    port, http = served
    _, created = http("POST", "/v1/matches", {"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]})
    match_id, token = created["id"], created["seats"][0]["token"]
    socket = connect(port, match_id, token)
    try:
        deep = (socket.send("[" * 100 + "]" * 100), received(socket))[1]
        assert deep["status"] == 400 and "nested deeper" in deep["message"]  # the POST's guard, not a 500
        surrogate = '{"expected_version": 1, "idempotency_key": "\\ud800", "action": {"type": "pass"}}'
        lone = (socket.send(surrogate), received(socket))[1]
        assert (
            lone["status"] == 400 and "lone surrogate" in lone["message"]
        )  # was a 500 from the key's digest
        garbled = (socket.send("{oops"), received(socket))[1]
        assert garbled["status"] == 400 and garbled["message"].startswith("the message is not valid JSON")
        socket.send("x" * (65 * 1024))  # over the body limit: closed 1009, not reset mid-message
        assert _closed_with(socket) == 1009
    finally:
        socket.close()
    socket = connect(port, match_id, token)
    try:  # a client still sending, slowly, long after the limit: read to the end, then closed
        frame = websocket.ABNF.create_frame("y" * 200_000, websocket.ABNF.OPCODE_TEXT).format()
        for at in range(0, len(frame), 10_000):
            socket.sock.sendall(frame[at : at + 10_000])
            time.sleep(0.02)
        assert _closed_with(socket) == 1009
    finally:
        socket.close()
    socket = connect(port, match_id, token)
    try:
        socket.send_binary(b"\x00\x01")
        assert _closed_with(socket) == 1003
    finally:
        socket.close()
    _, match = http("GET", f"/v1/matches/{match_id}")
    assert match["version"] == 1  # nothing of it reached the log


def test_moves_on_the_socket_count_against_the_tokens_write_limit():
    folder = tempfile.mkdtemp(prefix="mlm-", dir="/tmp")
    port = free_port()
    process, http = start_serve(folder, port, MATCHLOG_RATE_LIMIT_PER_TOKEN="3/minute")
    try:
        _, created = http("POST", "/v1/matches", {"game": "blokus", "players": [{"name": n} for n in "abcd"]})
        socket = connect(port, created["id"], created["seats"][0]["token"])
        answers = [send(socket, {"expected_version": 9, "action": {}})["status"] for _ in range(5)]
        socket.close()
        assert answers[:3] != [429] * 3 and answers[3:] == [429, 429]
    finally:
        stop_serve(process)
        shutil.rmtree(folder, ignore_errors=True)


def test_the_socket_answers_pings_and_declines_compression(served):
    """A client's ping gets its pong, with its payload; a client offering permessage-deflate gets no
    extension (the frames stay plain) and plays as any other."""
    port, http = served
    _, created = http("POST", "/v1/matches", {"game": "blokus", "players": [{"name": n} for n in "ab"]})
    match_id, token = created["id"], created["seats"][0]["token"]
    socket = websocket.create_connection(
        f"ws://127.0.0.1:{port}/v1/matches/{match_id}/moves",
        timeout=10,
        header=[f"Authorization: Bearer {token}", "Sec-WebSocket-Extensions: permessage-deflate"],
    )
    try:
        assert "sec-websocket-extensions" not in {k.lower() for k in socket.getheaders()}
        socket.ping("are you there")
        opcode, frame = socket.recv_data_frame(control_frame=True)
        assert (opcode, frame.data) == (websocket.ABNF.OPCODE_PONG, b"are you there")
        _, legal = http("GET", f"/v1/matches/{match_id}/legal-actions", token=token)
        answer = send(socket, {"expected_version": legal["version"], "action": legal["actions"][0]})
        assert answer["status"] == 201 and answer["version"] == legal["version"] + 1
    finally:
        socket.close()


def test_the_socket_pings_its_client_and_closes_one_that_never_answers():
    """Every MATCHLOG_MOVES_PING_S an idle socket pings; a client that answers (websocket-client does) keeps
    playing, one whose last ping went unanswered is closed with 1008."""
    folder = tempfile.mkdtemp(prefix="mlm-", dir="/tmp")
    port = free_port()
    process, http = start_serve(folder, port, MATCHLOG_MOVES_PING_S="0.5")
    try:
        _, created = http("POST", "/v1/matches", {"game": "blokus", "players": [{"name": n} for n in "ab"]})
        match_id, token = created["id"], created["seats"][0]["token"]
        answering = connect(port, match_id, token)
        opcode, _ = answering.recv_data(control_frame=True)  # websocket-client pongs as it reads it
        assert opcode == websocket.ABNF.OPCODE_PING
        time.sleep(2.5)  # past the next check: the pong counted, the connection stays
        assert send(answering, {"expected_version": 1, "action": {"type": "pass"}})["status"] in (201, 422)
        answering.close()
        silent = connect(port, match_id, token)
        frames = [silent.recv_frame() for _ in range(2)]  # the low-level read answers nothing
        assert [f.opcode for f in frames] == [websocket.ABNF.OPCODE_PING, websocket.ABNF.OPCODE_CLOSE]
        assert int.from_bytes(frames[1].data[:2], "big") == 1008
        silent.close()
    finally:
        stop_serve(process)
        shutil.rmtree(folder, ignore_errors=True)


def test_a_seat_handed_to_a_bot_is_not_played_on_its_old_socket(served):
    """A move after the deadline meets the timeout (409 out_of_time) and the seat goes to a bot: the socket's
    token, checked when it opened, holds the seat no more, and the next message closes it."""
    port, http = served
    _, created = http(
        "POST",
        "/v1/matches",
        {
            "game": "blokus",
            "players": [{"name": "ann"}, {"name": "bob"}],
            "clock": {"per_action_s": 1},
            "on_timeout": "bot",
        },
    )
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    _, legal = http("GET", f"/v1/matches/{match_id}/legal-actions", token=tokens[0])
    socket = connect(port, match_id, tokens[0])
    try:
        time.sleep(1.1)
        late = send(socket, {"expected_version": 1, "action": legal["actions"][0]})
        assert late["status"] == 409 and late["error"] in ("out_of_time", "version_conflict"), (
            late
        )  # (or the job won)
        _, match = http("GET", f"/v1/matches/{match_id}")
        again = send(socket, {"expected_version": match["version"], "action": legal["actions"][0]})
        if (
            again["status"] == 422
        ):  # the worker's job timed the seat out: this process may trust the old token
            assert again["reason"] == "seat_played_by_a_bot", again  # for a moment, and the rules refuse it
            time.sleep(2.5)  # past META_FRESH_S: the token is known to be gone
            again = send(socket, {"expected_version": match["version"], "action": legal["actions"][0]})
        assert again["status"] == 403 and again["error"] == "wrong_token", again
        try:
            rest = socket.recv()  # the close frame: nothing more
        except websocket.WebSocketConnectionClosedException:
            rest = ""
        assert rest == "" and not socket.connected
    finally:
        socket.close()
    log = http("GET", f"/v1/matches/{match_id}/events")[1]["events"]
    for before, entry in itertools.pairwise(log):  # every move of seat 0 is its bot's
        if entry["type"] == "placed" and entry["seat"] == 0:
            assert before["type"] == "acted_by" and before["data"]["by"] == "bot:random", (before, entry)


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _listed_homes(serve_pid: int, count: int) -> list[int]:
    """The API workers of a ``matchlog serve``, once ``count`` of them take moves sockets passed on (their Unix
    sockets listed, as ``/proc/net/unix`` shows them): until then a worker alone takes every match as its own."""
    deadline = time.monotonic() + 30
    while True:
        descendants = set(_descendants(serve_pid))
        with open("/proc/net/unix", encoding="ascii", errors="replace") as f:
            # the path it was bound to (it is listed by a rename once it takes connections)
            paths = [line.split()[-1].removesuffix(".new") for line in f if "matchlog-homes-" in line]
        listed = sorted(
            int(name[: -len(home_workers.SUFFIX)])
            for name in (path.rsplit("/", 1)[1] for path in paths)
            if name.endswith(home_workers.SUFFIX) and int(name[: -len(home_workers.SUFFIX)]) in descendants
        )
        if len(listed) >= count or time.monotonic() > deadline:
            return listed
        time.sleep(0.1)


def test_every_socket_of_a_match_is_served_by_the_matchs_home_worker():
    """gunicorn's two workers take connections as they come; a worker that accepts a moves socket for a
    match homed in the other passes it on (``service.http.home_workers``), so one process holds each match's state."""
    folder = tempfile.mkdtemp(prefix="mlm-", dir="/tmp")
    port = free_port()
    process, http = start_serve(folder, port)
    opened = []
    try:
        workers = _listed_homes(process.pid, 2)
        placed = {}  # match id: the client ports of its seats' sockets
        # at least 8 matches, and until each worker is the home of one (by chance, 8 matches all have the
        # same home once in 128 runs: then the test would say nothing of passing a socket on)
        while len(placed) < 8 or len({home_workers.home(m, workers) for m in placed}) < 2:
            assert len(placed) < 40, "rendezvous hashing gave every match the same home"
            _, created = http(
                "POST", "/v1/matches", {"game": "blokus", "players": [{"name": n} for n in "abcd"]}
            )
            sockets = [connect(port, created["id"], seat["token"]) for seat in created["seats"]]
            opened += sockets
            for socket in sockets:  # each answers: the handshake is done, wherever it was passed on to
                assert send(socket, {"expected_version": 9, "action": {}})["status"] == 400
            placed[created["id"]] = [s.sock.getsockname()[1] for s in sockets]
        holders = connection_holders(workers, port)
        assert {holders[p] for ports in placed.values() for p in ports} == set(workers)  # both are homes
        for match_id, ports in placed.items():
            assert {holders[p] for p in ports} == {home_workers.home(match_id, workers)}, match_id
    finally:
        for socket in opened:
            socket.close()
        stop_serve(process)
        shutil.rmtree(folder, ignore_errors=True)


def test_the_socket_answers_in_the_language_of_its_handshake(served):
    """A socket opened with ``Accept-Language: ja`` says its entries' texts and its refusals' messages in
    Japanese, with the same fields as an English one."""
    port, http = served
    _, created = http("POST", "/v1/matches", {"game": "blokus", "players": [{"name": n} for n in "ab"]})
    match_id, token = created["id"], created["seats"][0]["token"]
    _, legal = http("GET", f"/v1/matches/{match_id}/legal-actions", token=token)
    socket = websocket.create_connection(
        f"ws://127.0.0.1:{port}/v1/matches/{match_id}/moves",
        timeout=10,
        header=[f"Authorization: Bearer {token}", "Accept-Language: ja"],
    )
    try:
        refused = send(socket, {"expected_version": 7, "action": legal["actions"][0]})
        assert refused["error"] == "version_conflict" and refused["current_version"] == 1
        assert refused["message"].startswith("対局はバージョン1です")
        accepted = send(socket, {"expected_version": 1, "action": legal["actions"][0]})
        assert accepted["status"] == 201
        assert accepted["events"][0]["text"].startswith("青が")
    finally:
        socket.close()


def test_an_address_holds_as_many_sockets_as_it_may_and_the_next_is_refused():
    """Each socket is a greenlet and one of the process's worker connections, checked every few seconds while
    idle: one address opening sockets without end (any seat's token will do) took every connection of the
    process from everyone. Past MATCHLOG_MOVES_PER_ADDRESS the next says 429 too_many_sockets and closes; one
    closed makes room."""
    folder = tempfile.mkdtemp(prefix="mlm-", dir="/tmp")
    port = free_port()
    # one API process: the cap is each process's (two processes would hold 3 each, and which one takes a
    # socket is the kernel's choice: CI once saw the fourth served by the other process, never refused)
    process, http = start_serve(folder, port, "--workers", "1", MATCHLOG_MOVES_PER_ADDRESS="3")
    try:
        _, created = http("POST", "/v1/matches", {"game": "blokus", "players": [{"name": n} for n in "ab"]})
        match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
        held = [connect(port, match_id, tokens[i % 2]) for i in range(3)]
        for socket in held:  # each one served: a message answered
            assert send(socket, {"expected_version": 9, "action": {}})["status"] == 400
        refused = connect(port, match_id, tokens[0])
        answer = received(refused)
        assert answer["status"] == 429 and answer["error"] == "too_many_sockets", answer
        assert _closed_with(refused) == 1008
        refused.close()
        held.pop().close()

        def admitted() -> bool:
            socket = connect(port, match_id, tokens[1])
            try:  # still refused: its 429 is read, or the refusal's close cut the send short
                return send(socket, {"expected_version": 9, "action": {}})["status"] == 400
            except (websocket.WebSocketException, OSError):
                return False
            finally:
                socket.close()

        deadline = time.monotonic() + 60
        while not admitted():
            assert time.monotonic() < deadline, "a closed socket's place never came back"
            time.sleep(0.2)
        for socket in held:
            socket.close()
    finally:
        stop_serve(process)
        shutil.rmtree(folder, ignore_errors=True)


def test_an_ipv6_client_s_sockets_are_bounded_by_its_64():
    """A host is given a whole /64: bounded by the address, one client had 2^64 bounds (the proxy's client,
    as MATCHLOG_TRUSTED_PROXIES reads it)."""
    folder = tempfile.mkdtemp(prefix="mlm-", dir="/tmp")
    port = free_port()
    process, http = start_serve(  # one API process, as above
        folder, port, "--workers", "1", MATCHLOG_MOVES_PER_ADDRESS="2", MATCHLOG_TRUSTED_PROXIES="1"
    )
    try:
        _, created = http("POST", "/v1/matches", {"game": "blokus", "players": [{"name": n} for n in "ab"]})
        match_id, token = created["id"], created["seats"][0]["token"]

        def from_address(address: str):
            return websocket.create_connection(
                f"ws://127.0.0.1:{port}/v1/matches/{match_id}/moves",
                timeout=10,
                header=[f"Authorization: Bearer {token}", f"X-Forwarded-For: {address}"],
            )

        held = [from_address(f"2001:db8:5:6::{n}") for n in (1, 2)]
        for socket in held:
            assert send(socket, {"expected_version": 9, "action": {}})["status"] == 400
        refused = from_address("2001:db8:5:6::3")
        assert received(refused)["error"] == "too_many_sockets"
        refused.close()
        elsewhere = from_address("2001:db8:5:7::1")  # another /64
        assert send(elsewhere, {"expected_version": 9, "action": {}})["status"] == 400
        for socket in [*held, elsewhere]:
            socket.close()
    finally:
        stop_serve(process)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-WebSocket-Version": "13"},  # no key
        {"Sec-WebSocket-Version": "8", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="},
        {"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="},  # no version
    ],
)
def test_a_handshake_the_socket_cannot_take_is_a_400_not_a_500(served, headers):
    """A handshake wsproto refuses (no key, another version) was an unhandled error: a 500 logged with its
    traceback for anyone's malformed request."""
    import http.client

    port, http_call = served
    _, created = http_call(
        "POST", "/v1/matches", {"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}
    )
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(
            "GET",
            f"/v1/matches/{created['id']}/moves",
            headers={"Connection": "Upgrade", "Upgrade": "websocket", **headers},
        )
        answer = connection.getresponse()
        body = json.loads(answer.read())
    finally:
        connection.close()
    assert answer.status == 400 and body["error"] == "invalid_request", (answer.status, body)
    assert "Sec-WebSocket-" in body["message"] and "Sec-WebSocket-" in body["fields"]["handshake"][0]
