"""``sockets.send_whole``: one ``send`` when the kernel takes it all, ``sendall`` for the rest when not."""

from __future__ import annotations

import os
import socket
import threading

from service.sockets import send_whole


class CountingSocket:
    """A socket's send and sendall, counted; the kernel's part played by ``takes`` bytes a send."""

    def __init__(self, takes: int):
        self.takes, self.sent, self.calls = takes, b"", []

    def send(self, data) -> int:
        self.calls.append("send")
        self.sent += bytes(data[: self.takes])
        return min(self.takes, len(data))

    def sendall(self, data) -> None:
        self.calls.append("sendall")
        self.sent += bytes(data)


def test_what_the_kernel_takes_at_once_is_one_send():
    sock = CountingSocket(takes=1 << 20)
    send_whole(sock, b"x" * 500)
    assert (sock.sent, sock.calls) == (b"x" * 500, ["send"])


def test_what_it_does_not_take_at_once_goes_through_sendall():
    sock = CountingSocket(takes=100)
    data = bytes(range(256)) * 4
    send_whole(sock, data)
    assert (sock.sent, sock.calls) == (data, ["send", "sendall"])


def test_a_payload_larger_than_the_buffers_arrives_whole_on_a_real_socket():
    left, right = socket.socketpair()
    left.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    data = os.urandom(2_000_000)
    got = bytearray()

    def read() -> None:
        while len(got) < len(data):
            got.extend(right.recv(65536))

    reader = threading.Thread(target=read)
    reader.start()
    send_whole(left, data)
    reader.join(timeout=30)
    left.close()
    right.close()
    assert bytes(got) == data
