"""How the API is served: gunicorn's settings, in one place for ``matchlog api`` and for the
benchmarks' bare stack (``tests/bench/bare.py``), which must be served the same way to compare.

Nothing here imports networking at module level: a process patches for gevent (``patch``) before
anything imports ssl, socket or threading.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import socket

    from _typeshed.wsgi import WSGIApplication
    from gunicorn.arbiter import Arbiter
    from gunicorn.http.message import Request
    from gunicorn.http.unreader import Unreader
    from gunicorn.workers.base import Worker as GunicornWorker

Address = tuple[Any, ...] | str
"""A socket's address, as ``getsockname`` and ``accept`` give it: a host and port (and more, for IPv6), or a path."""

ChildExit = Callable[["Arbiter", "GunicornWorker"], None]
"""gunicorn's ``child_exit`` hook: the arbiter, and the worker that exited."""

WORKER_CLASS = "service.serving.GeventWorker"
"""gunicorn's gevent worker, patching all but ``select`` (``GeventWorker``): a held live-feed connection
(SSE) is a greenlet waiting on a queue, not a thread."""

UNPATCHED = {"select": False}
"""Left to the operating system: ``select``. redis-py polls a connection's socket with timeout 0 before
every command (is stale data waiting?); through gevent's ``poll`` that cost about 30 µs of CPU per
command here, the kernel's own ``poll`` a few. A zero timeout never blocks, so nothing is lost; the API
must not use what waits on a selector with a timeout (simple_websocket's reader thread when it pings: the
moves socket reads its connection itself), redis-py's PubSub with a timeout, or gunicorn's HTTP/2."""


def patch() -> None:
    """Patch the standard library for the worker class (call first thing)."""
    from gevent import monkey

    monkey.patch_all(**UNPATCHED)


def __getattr__(name: str) -> type:
    if name == "GeventWorker":  # made on first use: importing gunicorn's worker imports gevent
        return _gevent_worker()
    raise AttributeError(name)


HOMES_FOLDER: str | None = None
"""Where this server's workers keep their Unix sockets for moves sockets passed on to a match's home
(``service.http.home_workers``): made by ``run`` before the workers are forked, removed when the server exits."""


HEAD_LINE_BYTES = 32 * 1024
"""The longest request line gunicorn reads before it refuses the request (414): every URL the API
accepts (8 KiB, its path counted decoded) fits even with each byte of its path percent-encoded."""

HEAD_BLOCK_BYTES = 32 * 1024
"""The largest header block (and a chunked body's trailer block) gunicorn reads before it refuses the
request (431): twice the API's 16 KiB of headers, for what the API strips (spaces around values)."""

HEAD_FIELDS = 256
"""The most header fields gunicorn parses before it refuses the request (431): twice the API's 128."""


LINGER_BYTES = 256 * 1024
LINGER_S = 2.0
"""After refusing a head, what the client still sends is read and dropped, up to this many bytes and for
this long (``linger``)."""


def linger(sock: socket.socket, limit: int = LINGER_BYTES, wait: float = LINGER_S) -> None:
    """Close in stages (RFC 9112 9.6): end our side, then read what the client still sends until it closes
    its own, up to ``limit`` bytes or ``wait`` seconds. Closed with its head unread, the connection would be
    reset, and a client still sending (or whose kernel takes the reset first) would never read the answer."""
    import socket

    sock.shutdown(socket.SHUT_WR)
    deadline = time.monotonic() + wait
    dropped = bytearray(64 * 1024)
    while limit > 0 and (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        got = sock.recv_into(dropped, min(limit, len(dropped)))
        if not got:
            return
        limit -= got


def head_refusal(status: str, error: str, message: str) -> bytes:
    """The whole HTTP answer refusing a head, in the API's error shape (``service.http.errors``', which cannot be
    imported here: it imports what imports this module); the connection closes after it."""
    body = json.dumps({"error": error, "message": message}).encode() + b"\n"
    return (
        f"HTTP/1.1 {status}\r\nConnection: close\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


LINE_REFUSAL = head_refusal(
    "414 URI Too Long",
    "uri_too_long",
    f"the request line is over {HEAD_LINE_BYTES} bytes, more than the server reads",
)
HEADERS_REFUSAL = head_refusal(
    "431 Request Header Fields Too Large",
    "request_header_fields_too_large",
    f"the headers are over {HEAD_BLOCK_BYTES} bytes or {HEAD_FIELDS} fields, more than the server reads",
)


def _head_bounded_request() -> type[Request]:
    from gunicorn.http.message import Request

    class HeadBoundedRequest(Request):
        """gunicorn's request, reading at most ``HEAD_LINE_BYTES`` of request line and ``HEAD_BLOCK_BYTES`` of
        header block (and of trailers): its own bound of the block is the product of its field limits,
        a gigabyte at the API's, and its parser scans the whole buffer again at every read, so an 8 MiB head
        cost seconds of CPU before anything refused it."""

        def parse(self, unreader: Unreader) -> bytes:
            # set after gunicorn's __init__ has read them from the settings, before it parses
            self.limit_request_line = self._fast_limit_request_line = HEAD_LINE_BYTES
            self.max_buffer_headers = HEAD_BLOCK_BYTES
            return super().parse(unreader)

    return HeadBoundedRequest


def _gevent_worker() -> type[GunicornWorker]:
    import gevent
    from gevent import socket
    from gunicorn import util
    from gunicorn.http import wsgi
    from gunicorn.http.errors import LimitRequestHeaders, LimitRequestLine
    from gunicorn.http.parser import RequestParser
    from gunicorn.workers.ggevent import GeventWorker

    from service.http import home_workers

    refusals = {LimitRequestLine: LINE_REFUSAL, LimitRequestHeaders: HEADERS_REFUSAL}

    class Worker(GeventWorker):
        def patch(self) -> None:  # gunicorn's own patches everything, select too
            patch()
            self.sockets: list[socket.socket] = [
                socket.socket(s.FAMILY, socket.SOCK_STREAM, fileno=s.sock.detach()) for s in self.sockets
            ]
            # gunicorn makes each connection's parser itself (``http.get_parser``), with no setting for the
            # class of its requests: this worker process's parsers read bounded heads
            RequestParser.mesg_class = _head_bounded_request()

        def handle_error(
            self, req: Request, client: socket.socket, addr: Address, exc: BaseException
        ) -> None:
            refusal = refusals.get(type(exc))
            if refusal is None:  # gunicorn's other refusals stay its own (HTML)
                return super().handle_error(req, client, addr, exc)
            self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)  # as gunicorn logs it
            with contextlib.suppress(OSError):  # gone, or lingered long enough: gunicorn closes it
                util.write_nonblock(client, refusal)
                linger(client)

        def run(self) -> None:
            if HOMES_FOLDER is None:
                return super().run()
            home_workers.here = home_workers.Homes(
                HOMES_FOLDER,
                lambda environ, client: home_workers.run_passed_on(self.wsgi, environ, client),
                gevent.spawn,
            )
            try:
                return super().run()
            finally:
                home_workers.here.close()

        def handle_request(
            self, listener_name: Address, req: Request, sock: socket.socket, addr: Address
        ) -> None:
            # a moves socket of a match homed in another worker goes there before the app sees it
            here = home_workers.here
            # (a TLS connection's state cannot go with its descriptor)
            if here is not None and not hasattr(sock, "cipher") and _upgrading(req):
                match_id = home_workers.match_of(req.path)
                if match_id is not None:
                    _, environ = wsgi.create(req, sock, addr, listener_name, self.cfg)
                    if here.pass_on(match_id, environ, sock):
                        raise StopIteration()  # gunicorn closes this worker's copy; the home's stays open
            return super().handle_request(listener_name, req, sock, addr)

    return Worker


def _upgrading(req: Request) -> bool:
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
        # what gunicorn reads of a head lies above the app's limits (an 8 KiB URL, 16 KiB of headers, 128
        # fields: answered 414 or 431 in the API's error shape), so that the app's answers apply; its own
        # refusals of what lies beyond are in that shape too (``Worker.handle_error``). The request line and
        # the whole header block are bounded by ``HeadBoundedRequest``: 0 here only lifts gunicorn's cap of
        # 8,190 bytes, under a URL the app accepts. The keepalive (5 s) is also the time a head may take to
        # arrive: gevent's worker reads each head under that timer and closes the connection when it fires
        "limit_request_line": 0,
        "limit_request_field_size": HEAD_BLOCK_BYTES,
        "limit_request_fields": HEAD_FIELDS,
    }


def _forgetting(folder: str, then: ChildExit | None) -> ChildExit:
    """gunicorn's ``child_exit`` hook: a worker gone (killed, say) is no match's home any more."""

    def child_exit(server: Arbiter, worker: GunicornWorker) -> None:
        from service.http import home_workers

        home_workers.forget(folder, worker.pid)
        if then is not None:
            then(server, worker)

    return child_exit


def run(load: Callable[[], WSGIApplication], host: str, port: int, workers: int, **extra: Any) -> None:
    """Serve the WSGI app ``load()`` makes under gunicorn, until stopped."""
    import shutil
    import tempfile

    from gunicorn.app.base import BaseApplication

    global HOMES_FOLDER
    HOMES_FOLDER = tempfile.mkdtemp(prefix="matchlog-homes-")
    folder = HOMES_FOLDER

    class Gunicorn(BaseApplication):
        def load_config(self) -> None:
            settings = {**gunicorn_settings(host, port, workers), **extra}
            settings["on_exit"] = lambda server: shutil.rmtree(folder, ignore_errors=True)
            settings["child_exit"] = _forgetting(folder, settings.get("child_exit"))
            for name, value in settings.items():
                self.cfg.set(name, value)

        def load(self) -> WSGIApplication:
            return load()

    Gunicorn().run()
