"""A TCP proxy on loopback that the harness can cut and heal: a partition between one API process and one
Redis node, without touching the node (other clients still reach it).

    proxy = Proxy(target_port).start()     # listens on proxy.port, forwards to 127.0.0.1:target_port
    proxy.cut()                            # open connections reset, new ones refused until healed
    proxy.heal()
    proxy.stop()

Cut means gone, as a partition that the kernel reports: connections are closed and new ones are accepted
and closed at once, so a client sees a connection error rather than waiting out its socket timeout (a
silent drop is what SIGSTOP of the node gives the harness already).
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading

CHUNK = 64 * 1024
MAX_CONNECTIONS = 256
"""Connections held at once; past them a new one is closed (an API process keeps a pool of 32 per node)."""


class Proxy:
    def __init__(self, target_port: int, host: str = "127.0.0.1"):
        self.target = (host, target_port)
        self.host = host
        self.port = 0
        self._listener: socket.socket | None = None
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._cut = threading.Event()
        self._stopped = threading.Event()

    def start(self) -> Proxy:
        listener = socket.create_server((self.host, 0))
        listener.settimeout(0.2)
        self._listener = listener
        self.port = listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True, name=f"proxy-{self.port}").start()
        return self

    @property
    def is_cut(self) -> bool:
        return self._cut.is_set()

    def cut(self) -> None:
        """Reset every open connection and refuse new ones until ``heal``."""
        self._cut.set()
        self._close_all()

    def heal(self) -> None:
        self._cut.clear()

    def stop(self) -> None:
        self._stopped.set()
        self._close_all()
        if self._listener is not None:
            self._listener.close()

    def _close_all(self) -> None:
        with self._lock:
            open_now, self._open = self._open, set()
        for sock in open_now:
            _reset(sock)

    def _accept(self) -> None:
        assert self._listener is not None
        while not self._stopped.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if self._cut.is_set() or len(self._open) >= MAX_CONNECTIONS:
                _reset(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=2)
            except OSError:
                _reset(client)
                continue
            upstream.settimeout(None)
            client.settimeout(None)
            with self._lock:
                self._open.update((client, upstream))
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while True:
                data = source.recv(CHUNK)
                if not data or self._cut.is_set():
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with self._lock:
                self._open.discard(source)
                self._open.discard(sink)
            _reset(source)
            _reset(sink)


def _reset(sock: socket.socket) -> None:
    """Close with an RST (linger 0), as a broken path is reported, rather than a polite FIN."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked reading it
    with contextlib.suppress(OSError):
        sock.close()
