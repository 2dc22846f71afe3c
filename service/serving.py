"""How the API is served: gunicorn's settings, in one place for ``matchlog api`` and for the
benchmarks' bare stack (``tests/bench/bare.py``), which must be served the same way to compare.

Nothing here imports networking at module level: a process patches for gevent (``patch``) before
anything imports ssl, socket or threading.
"""

from __future__ import annotations

from typing import Any, Callable

WORKER_CLASS = "gevent"
"""gevent: a held live-feed connection (SSE) is a greenlet waiting on a queue, not a thread."""


def patch() -> None:
    """Patch the standard library for the worker class, if it needs it (call first thing)."""
    if WORKER_CLASS == "gevent":
        from gevent import monkey

        monkey.patch_all()


def gunicorn_settings(host: str, port: int, workers: int) -> dict[str, Any]:
    return {
        "bind": f"{host}:{port}",
        "workers": workers,
        "worker_class": WORKER_CLASS,
        "worker_connections": 4000,
        "keepalive": 5,
        "accesslog": None,
        "control_socket_disable": True,  # several APIs on one host would fight over it
        # no limits of gunicorn's own: the app answers 414 and 431 itself, in the API's error shape
        "limit_request_line": 0,
        "limit_request_field_size": 0,
    }


def run(load: Callable[[], Any], host: str, port: int, workers: int, **extra: Any) -> None:
    """Serve the WSGI app ``load()`` makes under gunicorn, until stopped."""
    from gunicorn.app.base import BaseApplication

    class Gunicorn(BaseApplication):
        def load_config(self):
            for name, value in {**gunicorn_settings(host, port, workers), **extra}.items():
                self.cfg.set(name, value)

        def load(self):
            return load()

    Gunicorn().run()
