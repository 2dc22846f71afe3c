"""A match's home worker (``service.http.home_workers``): every moves socket of a match is served by one worker, the
one rendezvous hashing picks among the live ones, and a worker that accepted a socket for a match homed
elsewhere passes the connection itself on; when the home cannot take it, the worker keeps it. Here the
workers are threads of this process; ``tests/integration/test_moves_socket.py`` checks the same on a
real ``matchlog serve``."""

from __future__ import annotations

import socket
import threading
import uuid

import pytest

from service import serving
from service.http import home_workers


def _spawn(f, *args):
    threading.Thread(target=f, args=args, daemon=True).start()


class Received:
    def __init__(self):
        self.got: list[tuple[dict, socket.socket]] = []
        self.event = threading.Event()

    def __call__(self, environ, client):
        self.got.append((environ, client))
        self.event.set()


@pytest.fixture
def two_workers(tmp_path):
    taken = {1001: Received(), 1002: Received()}
    workers = {pid: home_workers.Homes(tmp_path, taken[pid], _spawn, pid=pid) for pid in taken}
    yield workers, taken
    for worker in workers.values():
        worker.close()


def _homed_at(pid: int, pids: list[int]) -> str:
    return next(m for m in (uuid.uuid4().hex for _ in range(1000)) if home_workers.home(m, pids) == pid)


def test_a_match_has_one_home_and_only_a_departed_workers_matches_move():
    matches = [uuid.uuid4().hex for _ in range(300)]
    before = {m: home_workers.home(m, [1, 2, 3]) for m in matches}
    assert set(before.values()) == {1, 2, 3}  # spread over every worker
    assert before == {
        m: home_workers.home(m, [3, 1, 2]) for m in matches
    }  # whatever order they are listed in
    after = {m: home_workers.home(m, [1, 3]) for m in matches}
    assert {m for m in matches if after[m] != before[m]} == {m for m in matches if before[m] == 2}


def test_a_connection_passed_on_reaches_its_home_whole(two_workers):
    workers, taken = two_workers
    match_id = _homed_at(1001, [1001, 1002])
    far, near = socket.socketpair()  # far: the client's end; near: what worker 1002 accepted
    environ = {
        "PATH_INFO": f"/v1/matches/{match_id}/moves",
        "HTTP_AUTHORIZATION": "Bearer t",
        "wsgi.input": object(),
    }
    assert workers[1002].pass_on(match_id, environ, near)
    near.close()  # gunicorn closes the passing worker's copy: the connection stays open in the home
    assert taken[1001].event.wait(5)
    passed_environ, passed = taken[1001].got[0]
    assert passed_environ == {"PATH_INFO": f"/v1/matches/{match_id}/moves", "HTTP_AUTHORIZATION": "Bearer t"}
    far.sendall(b"ping")
    assert passed.recv(4) == b"ping"
    passed.sendall(b"pong")
    assert far.recv(4) == b"pong"
    assert taken[1002].got == []
    passed.close()
    far.close()


def test_a_worker_keeps_the_sockets_of_matches_homed_with_it(two_workers):
    workers, taken = two_workers
    match_id = _homed_at(1002, [1001, 1002])
    far, near = socket.socketpair()
    assert not workers[1002].pass_on(match_id, {}, near)
    near.sendall(b"still here")
    assert far.recv(10) == b"still here"
    assert taken[1001].got == [] and taken[1002].got == []
    far.close()
    near.close()


def test_a_home_that_is_gone_leaves_the_socket_with_the_worker_that_accepted_it(tmp_path):
    gone = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    gone.bind(str(tmp_path / f"1003{home_workers.SUFFIX}"))  # a worker killed outright leaves its file behind
    gone.close()
    taken = Received()
    worker = home_workers.Homes(tmp_path, taken, _spawn, pid=1004)
    try:
        match_id = _homed_at(1003, [1003, 1004])
        far, near = socket.socketpair()
        assert not worker.pass_on(match_id, {"PATH_INFO": "/"}, near)
        near.sendall(b"served here")
        assert far.recv(11) == b"served here"
        # the arbiter takes a worker it saw exit out of the listing (gunicorn's child_exit)
        serving._forgetting(str(tmp_path), None)(None, type("Worker", (), {"pid": 1003})())
        assert not (tmp_path / f"1003{home_workers.SUFFIX}").exists()
        far.close()
        near.close()
    finally:
        worker.close()
    assert not (tmp_path / f"1004{home_workers.SUFFIX}").exists()  # a worker that stops takes itself out


def test_a_passed_on_request_refused_before_the_handshake_gets_its_http_answer():
    far, near = socket.socketpair()

    def refusing(environ, start_response):
        start_response("400 BAD REQUEST", [("Content-Type", "application/json"), ("Content-Length", "2")])
        return [b"{}"]

    home_workers.run_passed_on(refusing, {"PATH_INFO": "/"}, near)
    answer = far.recv(1000)
    assert answer.startswith(b"HTTP/1.1 400 BAD REQUEST\r\n")
    assert b"Connection: close\r\n" in answer and answer.endswith(b"\r\n\r\n{}")
    assert far.recv(10) == b""  # and closed
    far.close()


def test_a_home_serves_a_connection_only_once_the_passing_worker_let_it_go(two_workers, tmp_path):
    """One connection is never served by two workers: the home takes it (``TAKEN``), and serves it only when
    the worker that passed it on answers that it let it go (``YOURS``); one that gave up waiting keeps it."""
    _, taken = two_workers
    _far, near = socket.socketpair()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as link:  # a worker passing it on, then giving up
        link.connect(str(tmp_path / f"1001{home_workers.SUFFIX}"))
        text = b'{"PATH_INFO": "/"}'
        socket.send_fds(link, [len(text).to_bytes(4, "big")], [near.fileno()])
        link.sendall(text)
        assert link.recv(1) == home_workers.TAKEN
    assert not taken[1001].event.wait(0.5)


def test_a_passing_worker_that_hears_nothing_in_time_serves_the_connection_itself(tmp_path, monkeypatch):
    monkeypatch.setattr(home_workers, "HOLD_S", 0.2)
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # a home too busy to answer
    silent.bind(str(tmp_path / f"1005{home_workers.SUFFIX}"))
    silent.listen()
    worker = home_workers.Homes(tmp_path, Received(), _spawn, pid=1006)
    try:
        _far, near = socket.socketpair()
        assert not worker.pass_on(_homed_at(1005, [1005, 1006]), {}, near)
    finally:
        worker.close()
        silent.close()


def test_the_moves_route_is_gathered_by_its_match_id():
    from service.http import moves_socket

    home_workers.gather(moves_socket.ROUTE)
    assert home_workers.match_of("/v1/matches/3f2a/moves") == "3f2a"
    assert home_workers.match_of("/v1/matches/3f2a/moves/x") is None
    assert home_workers.match_of("/v1/matches/3f2a/events") is None
    assert home_workers.match_of("/v1/matches//moves") is None


def test_only_a_websocket_upgrade_is_passed_on():
    class Request:
        def __init__(self, method, headers):
            self.method, self.headers = method, headers

    assert serving._upgrading(Request("GET", [("UPGRADE", " WebSocket"), ("CONNECTION", "Upgrade")]))
    assert not serving._upgrading(Request("GET", [("CONNECTION", "keep-alive")]))  # a plain GET: served here
    assert not serving._upgrading(Request("POST", [("UPGRADE", "websocket")]))
