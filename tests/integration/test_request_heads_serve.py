"""Request heads on a real ``matchlog serve``: one far over the API's limits is refused after the serving
layer's bounded read, in the API's error shape, and its connection closed; one that arrives slowly is
closed. (Heads over the API's limits but within what the serving layer reads get the API's own 414 and
431: ``tests/integration/test_serve.py``.)"""

from __future__ import annotations

import json
import shutil
import socket
import tempfile
import threading

import pytest

from service import serving
from tests.bench.api import free_port
from tests.integration.test_serve import start_serve, stop_serve

pytestmark = pytest.mark.slow

MIB = 1024 * 1024


@pytest.fixture(scope="module")
def port():
    folder = tempfile.mkdtemp(prefix="mlh-", dir="/tmp")
    port = free_port()
    process, _ = start_serve(folder, port)
    yield port
    stop_serve(process)
    shutil.rmtree(folder, ignore_errors=True)


class Sending:
    """A connection sending ``head`` in a thread of its own, ``pace`` seconds between pieces of ``piece``
    bytes, while the test reads what the server answers."""

    def __init__(self, port: int, head: bytes, piece: int = 64 * 1024, pace: float = 0.0):
        self.sock = socket.socket()
        # a small send buffer: what the client has sent is then about what the server took
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
        self.sock.settimeout(60)  # the generous bound on waiting for an answer or a close
        self.sock.connect(("127.0.0.1", port))
        self.head, self.piece, self.pace = head, piece, pace
        self.sent = 0
        self.stop = threading.Event()
        self.sender = threading.Thread(target=self._send, daemon=True)
        self.sender.start()

    def _send(self) -> None:
        try:
            for at in range(0, len(self.head), self.piece):
                if self.stop.wait(self.pace):
                    return
                self.sent += self.sock.send(self.head[at : at + self.piece])
        except OSError:  # the server closed the connection
            pass

    def read_until_closed(self) -> bytes:
        """Everything the server sent before it closed the connection (a timeout fails the test)."""
        answer = b""
        try:
            while chunk := self.sock.recv(65536):
                answer += chunk
        except ConnectionResetError:  # closed with the rest of the head unread
            pass
        return answer

    def close(self) -> None:
        self.stop.set()
        self.sender.join(timeout=10)
        self.sock.close()


def refused(port: int, head: bytes, closing: bool = True) -> tuple[int, dict, int]:
    """The status and body the server answered ``head`` with, once it closed, and how much of it was sent."""
    sending = Sending(port, head)
    try:
        answer = sending.read_until_closed()
    finally:
        sending.close()
    status_line, _, rest = answer.partition(b"\r\n")
    headers, _, body = rest.partition(b"\r\n\r\n")
    assert not closing or b"connection: close" in headers.lower(), answer[:500]
    return int(status_line.split()[1]), json.loads(body), sending.sent


def test_an_8_mib_request_line_is_refused_414_after_a_bounded_read_and_closed(port):
    head = b"GET /v1/games?x=" + b"a" * (8 * MIB) + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    status, body, sent = refused(port, head)
    assert status == 414 and body["error"] == "uri_too_long", body
    assert sent < len(head) // 2, sent  # the server stopped reading: the rest could not be sent


def test_an_8_mib_header_block_is_refused_431_after_a_bounded_read_and_closed(port):
    field = b"X-Pad-%06d: " + b"b" * 1000 + b"\r\n"
    head = b"GET /v1/games HTTP/1.1\r\nHost: x\r\n" + b"".join(field % i for i in range(8 * 1024)) + b"\r\n"
    status, body, sent = refused(port, head)
    assert status == 431 and body["error"] == "request_header_fields_too_large", body
    assert sent < len(head) // 2, sent


def test_one_header_field_of_8_mib_is_refused_431_after_a_bounded_read_and_closed(port):
    head = b"GET /v1/games HTTP/1.1\r\nHost: x\r\nX-Long: " + b"c" * (8 * MIB) + b"\r\n\r\n"
    status, body, sent = refused(port, head)
    assert status == 431 and body["error"] == "request_header_fields_too_large", body
    assert sent < len(head) // 2, sent


def test_a_chunked_bodys_8_mib_trailer_block_is_refused_after_a_bounded_read(port):
    body = b'{"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}'
    trailers = b"".join(b"X-T-%d: %s\r\n" % (i, b"t" * 1000) for i in range(8 * 1024))
    request = (
        b"POST /v1/matches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n%s\r\n0\r\n" % (len(body), body) + trailers + b"\r\n"
    )
    status, answer, sent = refused(port, request, closing=False)  # the body's reader refuses it, in the app
    assert status == 400 and answer["error"] == "invalid_request", answer  # not a match made
    assert sent < len(request) // 2, sent


def test_a_head_just_over_the_serving_layers_bounds_is_refused_in_the_apis_shape(port):
    line = b"GET /v1/games?x=" + b"a" * serving.HEAD_LINE_BYTES + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    fields = b"".join(b"X-%d: y\r\n" % i for i in range(serving.HEAD_FIELDS + 1))
    many = b"GET /v1/games HTTP/1.1\r\nHost: x\r\n" + fields + b"\r\n"
    assert refused(port, line)[:2] == (414, json.loads(serving.LINE_REFUSAL.partition(b"\r\n\r\n")[2]))
    assert refused(port, many)[:2] == (431, json.loads(serving.HEADERS_REFUSAL.partition(b"\r\n\r\n")[2]))


def test_a_head_sent_a_byte_at_a_time_is_closed_without_an_answer(port):
    head = b"GET /v1/games HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"s" * 1000 + b"\r\n\r\n"
    sending = Sending(port, head, piece=1, pace=0.5)  # 500 s to send it all
    try:
        assert sending.read_until_closed() == b""  # closed (keepalive's 5 s) long before the socket's 60 s
    finally:
        sending.close()
    assert sending.sent < len(head)
