"""Writing to a socket in as few system calls as the kernel allows: shared by what the API serves (the
moves socket) and by the store's Redis connections, so it sits beside the settings, below both."""

from __future__ import annotations

from typing import Protocol


class Sender(Protocol):
    """What ``send_whole`` sends through: a socket, gevent's or the kernel's."""

    def send(self, data: bytes, /) -> int: ...

    def sendall(self, data: memoryview, /) -> None: ...


def send_whole(sock: Sender, data: bytes) -> None:
    """``sock.sendall(data)`` in one ``send`` when the kernel takes it all, as it takes a command or an answer
    of a few hundred bytes: gevent's ``sendall`` asks the kernel for the socket's buffer size first
    (``getsockopt``), one system call more for every command and every answer. The rest, if any, goes
    through ``sendall``; a timeout is the socket's, as ``sendall``'s is."""
    sent = sock.send(data)
    if sent < len(data):
        sock.sendall(memoryview(data)[sent:])
