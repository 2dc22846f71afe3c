"""How the API is served: gunicorn's settings, in one place for ``matchlog api`` and for the
benchmarks' bare stack (``tests/bench/bare.py``), which must be served the same way to compare.

Nothing here imports networking at module level: a process patches for gevent (``patch``) before
anything imports ssl, socket or threading.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

WORKER_CLASS = "service.serving.GeventWorker"
"""gunicorn's gevent worker, patching all but ``select`` (``GeventWorker``): a held live-feed connection
(SSE) is a greenlet waiting on a queue, not a thread."""

UNPATCHED = {"select": False}
"""Left to the operating system: ``select``. redis-py polls a connection's socket with timeout 0 before
every command (is stale data waiting?); through gevent's ``poll`` that cost about 30 µs of CPU per
command here, the kernel's own ``poll`` a few. A zero timeout never blocks, so nothing is lost; the API
must not use what waits on a selector with a timeout (simple_websocket's reader thread when it pings: the
moves socket reads its connection itself), redis-py's PubSub with a timeout, or gunicorn's HTTP/2."""


def send_whole(sock, data: bytes) -> None:
    """``sock.sendall(data)`` in one ``send`` when the kernel takes it all, as it takes a command or an answer
    of a few hundred bytes: gevent's ``sendall`` asks the kernel for the socket's buffer size first
    (``getsockopt``), one system call more for every command and every answer. The rest, if any, goes
    through ``sendall``; a timeout is the socket's, as ``sendall``'s is."""
    sent = sock.send(data)
    if sent < len(data):
        sock.sendall(memoryview(data)[sent:])


def patch() -> None:
    """Patch the standard library for the worker class (call first thing)."""
    from gevent import monkey

    monkey.patch_all(**UNPATCHED)


def __getattr__(name: str):
    if name == "GeventWorker":  # made on first use: importing gunicorn's worker imports gevent
        return _gevent_worker()
    raise AttributeError(name)


HOMES_FOLDER: str | None = None
"""Where this server's workers keep their Unix sockets for moves sockets passed on to a match's home
(``service.homes``): made by ``run`` before the workers are forked, removed when the server exits."""


def _gevent_worker():
    import gevent
    from gevent import socket
    from gunicorn.http import wsgi
    from gunicorn.workers.ggevent import GeventWorker

    from service import homes

    class Worker(GeventWorker):
        def patch(self):  # gunicorn's own patches everything, select too
            patch()
            self.sockets: list[socket.socket] = [
                socket.socket(s.FAMILY, socket.SOCK_STREAM, fileno=s.sock.detach()) for s in self.sockets
            ]

        def run(self):
            if HOMES_FOLDER is None:
                return super().run()
            homes.here = homes.Homes(
                HOMES_FOLDER,
                lambda environ, client: homes.run_passed_on(self.wsgi, environ, client),
                gevent.spawn,
            )
            try:
                return super().run()
            finally:
                homes.here.close()

        def handle_request(self, listener_name, req, sock, addr):
            # a moves socket of a match homed in another worker goes there before the app sees it
            here = homes.here
            # (a TLS connection's state cannot go with its descriptor)
            if here is not None and not hasattr(sock, "cipher") and _upgrading(req):
                match_id = homes.match_of(req.path)
                if match_id is not None:
                    _, environ = wsgi.create(req, sock, addr, listener_name, self.cfg)
                    if here.pass_on(match_id, environ, sock):
                        raise StopIteration()  # gunicorn closes this worker's copy; the home's stays open
            return super().handle_request(listener_name, req, sock, addr)

    return Worker


def _upgrading(req) -> bool:
    """Whether gunicorn's request asks for a WebSocket."""
    return req.method == "GET" and any(
        name == "UPGRADE" and value.strip().lower() == "websocket" for name, value in req.headers
    )


def gunicorn_settings(host: str, port: int, workers: int) -> dict[str, Any]:
    return {
        "bind": f"{host}:{port}",
        "workers": workers,
        "worker_class": WORKER_CLASS,
        "worker_connections": 4000,
        "keepalive": 5,
        "graceful_timeout": 5,  # a held live feed does not end by itself: on a stop its client reconnects (retry:)
        "accesslog": None,
        "control_socket_disable": True,  # several APIs on one host would fight over it
        # limits above the app's (a 16 KiB URL or header block, or over 128 header fields, answered 414 or 431
        # in the API's error shape): gunicorn reads 0 as its own default of 8190 bytes a field and 100 fields,
        # and answers in HTML; what it still refuses (a field over 32 KiB, over 32,768 fields, its maximum)
        # its buffer limit is made of
        "limit_request_line": 0,
        "limit_request_field_size": 32 * 1024,
        "limit_request_fields": 32768,
    }


def _forgetting(folder: str, then: Callable | None) -> Callable:
    """gunicorn's ``child_exit`` hook: a worker gone (killed, say) is no match's home any more."""

    def child_exit(server, worker) -> None:
        from service import homes

        homes.forget(folder, worker.pid)
        if then is not None:
            then(server, worker)

    return child_exit


def run(load: Callable[[], Any], host: str, port: int, workers: int, **extra: Any) -> None:
    """Serve the WSGI app ``load()`` makes under gunicorn, until stopped."""
    import shutil
    import tempfile

    from gunicorn.app.base import BaseApplication

    global HOMES_FOLDER
    HOMES_FOLDER = tempfile.mkdtemp(prefix="matchlog-homes-")
    folder = HOMES_FOLDER

    class Gunicorn(BaseApplication):
        def load_config(self):
            settings = {**gunicorn_settings(host, port, workers), **extra}
            settings["on_exit"] = lambda server: shutil.rmtree(folder, ignore_errors=True)
            settings["child_exit"] = _forgetting(folder, settings.get("child_exit"))
            for name, value in settings.items():
                self.cfg.set(name, value)

        def load(self):
            return load()

    Gunicorn().run()
