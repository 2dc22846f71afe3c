"""Each match's moves sockets gathered in one gunicorn worker: the match's home.

gunicorn's workers accept from one listening socket, so the seats of a match open their moves sockets
in whichever workers the kernel wakes. A worker keeps the state of the matches it moved last
(``MatchRepository.head``); a seat served by another worker finds its copy behind and reads the log
again before it can judge the move: with two workers half of a four-seat match's moves, with six five
in six. So each match has a home among the live workers (rendezvous hashing of its id over their
process ids: a worker that goes moves only its own matches' homes), and a worker that accepts a moves
socket for a match homed elsewhere passes the connection on before the WebSocket handshake: its file
descriptor (``SCM_RIGHTS``) and the request's text-valued environ, over the home's Unix socket in a
folder only this server's workers share. The home runs the request through the app as if it had
accepted it.

When the home cannot take it (a worker stopping or restarting), the worker serves the socket itself:
the hand-off changes what a move costs, never its outcome, since an append names the head hash it
follows and a stale state is never appended to.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

SUFFIX = ".sock"
HOLD_S = 1.0
"""How long a hand-off may take before the worker that accepted the connection serves it itself."""
TAKEN, YOURS = b"+", b"!"
"""The home says it holds the connection (``TAKEN``); the passing worker then lets it go (``YOURS``)."""
ENVIRON_MAX = 1 << 20
"""The longest environ a worker takes: headers are limited far below it (``serving.gunicorn_settings``)."""

Serve = Callable[[dict[str, Any], socket.socket], None]

_GATHERED: list[re.Pattern] = []


def gather(route: str) -> None:
    """Serve the WebSocket upgrades of ``route`` (a Flask rule with a ``<match_id>``) in their match's home."""
    pattern = re.compile(re.sub(r"<(\w+)>", r"(?P<\1>[^/]+)", route) + "$")
    if pattern not in _GATHERED:
        _GATHERED.append(pattern)


def match_of(path: str) -> str | None:
    """The match whose home serves a request for ``path``, if its route is gathered."""
    for pattern in _GATHERED:
        found = pattern.match(path)
        if found:
            return found["match_id"]
    return None


def home(match_id: str, pids: list[int]) -> int:
    """The worker of ``pids`` whose moves sockets serve ``match_id`` (highest random weight: when a worker
    goes, only the matches it was home to move, each to the next in its own order)."""
    return max(pids, key=lambda pid: hashlib.blake2b(f"{pid}:{match_id}".encode(), digest_size=8).digest())


def forget(folder: str | os.PathLike, pid: int) -> None:
    """Take a worker that is gone out of the listing (its socket file stays when it was killed)."""
    (Path(folder) / f"{pid}{SUFFIX}").unlink(missing_ok=True)


here: Homes | None = None
"""This worker's, when it is one of gunicorn's (``serving``); None in any other process."""


class Homes:
    """This worker's Unix socket in the shared ``folder``, taking the connections the other workers pass
    on, and the means to pass on one of its own."""

    def __init__(
        self, folder: str | os.PathLike, serve: Serve, spawn: Callable[..., Any], pid: int | None = None
    ):
        """``serve(environ, client)`` runs a passed-on request; ``spawn(f, *args)`` starts a green thread;
        ``pid`` names this worker among the others (its process id)."""
        self.folder = Path(folder)
        self.pid = pid or os.getpid()
        self._serve = serve
        self._spawn = spawn
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unlisted = self.folder / f"{self.pid}{SUFFIX}.new"
        unlisted.unlink(missing_ok=True)
        self._listener.bind(str(unlisted))
        self._listener.listen(128)
        spawn(self._accept)
        unlisted.rename(self.folder / f"{self.pid}{SUFFIX}")  # listed once it takes connections

    def close(self) -> None:
        forget(self.folder, self.pid)
        self._listener.close()

    def _live(self) -> list[int]:
        """The workers listening now, listed at each hand-off (a few names: cheaper than keeping a list
        right as workers come and go)."""
        names = [name[: -len(SUFFIX)] for name in os.listdir(self.folder) if name.endswith(SUFFIX)]
        return [int(name) for name in names if name.isdigit()] or [self.pid]

    def pass_on(self, match_id: str, environ: dict[str, Any], client: socket.socket) -> bool:
        """Whether ``client``, a moves socket's connection for ``match_id``, went to the match's home; False
        when this worker is the home or the home could not take it (then this worker serves it)."""
        target = home(match_id, self._live())
        if target == self.pid:
            return False
        text = json.dumps({k: v for k, v in environ.items() if isinstance(v, str)}).encode()
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as link:
                link.settimeout(HOLD_S)
                link.connect(str(self.folder / f"{target}{SUFFIX}"))
                socket.send_fds(link, [len(text).to_bytes(4, "big")], [client.fileno()])
                link.sendall(text)
                if link.recv(1) != TAKEN:
                    return False
                # Only now is it the home's: a home that never hears this closes its copy, so that one
                # connection is never served by two workers, whatever times out where.
                link.sendall(YOURS)
        except OSError:  # gone (its file stays until the arbiter notices), stopping, or too slow
            return False
        return True

    def _accept(self) -> None:
        while True:
            try:
                link, _ = self._listener.accept()
            except OSError:  # closed: the worker is stopping
                return
            self._spawn(self._take, link)

    def _take(self, link: socket.socket) -> None:
        client = None
        try:
            with link:
                link.settimeout(HOLD_S)
                head, fds, _, _ = socket.recv_fds(link, 4, 1)
                if len(fds) != 1:
                    return
                client = socket.socket(fileno=fds[0])
                size = int.from_bytes(head, "big")
                if len(head) != 4 or size > ENVIRON_MAX:
                    return
                text = b""
                while len(text) < size:
                    chunk = link.recv(size - len(text))
                    if not chunk:
                        return
                    text += chunk
                environ = json.loads(text)
                link.sendall(TAKEN)
                if link.recv(1) != YOURS:  # the other worker gave up waiting and serves it itself
                    return
            served, client = client, None
            self._serve(environ, served)
        except (OSError, ValueError):
            pass
        finally:
            if client is not None:  # not passed on: the worker that accepted it serves it
                client.close()


def run_passed_on(app: Callable, environ: dict[str, Any], client: socket.socket) -> None:
    """Run the WSGI ``app`` on a request another worker accepted and passed on, as gunicorn would have: the
    moves route answers the handshake on ``client`` and ends with StopIteration (flask-sock under gunicorn);
    any other answer (a refusal before the handshake) is written as HTTP/1.1, and the connection closed."""
    environ.update(
        {
            "wsgi.input": io.BytesIO(),
            "wsgi.errors": sys.stderr,
            "wsgi.version": (1, 0),
            "wsgi.multithread": True,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
            "gunicorn.socket": client,
        }
    )
    said: list[Any] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: object = None) -> None:
        said[:] = [status, headers]

    try:
        body = b"".join(app(environ, start_response))
        status, headers = said
        lines = [f"HTTP/1.1 {status}", *(f"{k}: {v}" for k, v in headers), "Connection: close", "", ""]
        client.sendall("\r\n".join(lines).encode("latin-1") + body)
    except StopIteration:  # the WebSocket ran and is closed
        pass
    except OSError:
        pass
    finally:
        client.close()
