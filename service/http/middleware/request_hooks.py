"""The manners of a public HTTP API, installed once for every route: a request id, CORS, ``Location`` on
every 201, structured access logs, and the metrics of every answer (the health probes ``/healthz`` and
``/readyz`` are routes of ``service.http.routes``).

- ``X-Request-Id``: a client's id (up to 128 characters of ``[A-Za-z0-9._:-]``) is kept, otherwise one
  is made; it is echoed on the answer and carried by every log line of the request.
- CORS: for the configured origins (``MATCHLOG_CORS_ORIGINS``, default ``*``), reads and writes with
  ``Authorization``; a preflight (``OPTIONS`` with ``Access-Control-Request-Method``) is answered here,
  before any other check, with 204.
- Access log: one JSON line per request on the ``matchlog.access`` logger: method, the route's path
  template (never a token-bearing URL), status, latency, match id, request id.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, cast

from flask import Flask, Response, g, has_request_context, request

from service.domain.chain import built_once, utc_second

ACCESS = logging.getLogger("matchlog.access")
REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
ALLOWED_HEADERS = "Authorization, Content-Type, Idempotency-Key, Last-Event-ID, X-Request-Id"
EXPOSED_HEADERS = "Location, Retry-After, X-Match-Version, X-Request-Id"
METHODS = (
    "GET, POST, PATCH, DELETE, OPTIONS"  # DELETE, PATCH: a platform page removes or enables its webhooks
)


def request_id() -> str | None:
    answering_outside = _outside_flask.get()  # first: a Flask context left pushed is not this request's
    if answering_outside is not None:
        return answering_outside
    return g.get("request_id") if has_request_context() else None


_outside_flask: ContextVar[str | None] = ContextVar("matchlog_request_id", default=None)
"""The id of the request being answered outside Flask's request context (``service.http.middleware.express``), for its
log lines and its access line."""


def request_id_of(environ: dict) -> str:
    """The client's ``X-Request-Id`` (the environ read as werkzeug's headers would read it), else a new one."""
    given = environ.get("HTTP_X_REQUEST_ID", "")
    return given if REQUEST_ID.fullmatch(given) else new_request_id()


@contextmanager
def answering(request_id: str) -> Iterator[None]:
    """A request answered outside Flask's request context: its log lines carry ``request_id``."""
    token = _outside_flask.set(request_id)
    try:
        yield
    finally:
        _outside_flask.reset(token)


def new_request_id() -> str:
    """128 random bits as 32 hex digits, as ``uuid.uuid4().hex`` gave them but for its version digits, at a
    fifth of its cost (no UUID object per request)."""
    return os.urandom(16).hex()


class RequestIdFilter(logging.Filter):
    """Puts the current request's id on every log record made while it is handled."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id()
        return True


class JsonLines(logging.Formatter):
    """Every log line one JSON object: time, level, logger, message, request id, and an access record's
    fields, so that logs can be searched by request id or match id without parsing prose."""

    def format(self, record: logging.LogRecord) -> str:
        line = _line(
            record.created,
            record.levelname,
            record.name,
            record.getMessage(),
            getattr(record, "request_id", None),
            getattr(record, "access", {}),
        )
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return _LINE(line)


def _line(
    created: float, level: str, logger: str, message: str, request_id: str | None, fields: dict
) -> dict:
    return {
        "time": log_time(created),
        "level": level,
        "logger": logger,
        "message": message,
        "request_id": request_id,
        **fields,
    }


def log_time(created: float) -> str:
    """``datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")``, the same text, its date and
    second formatted once a second rather than at every line (most of an access line's cost). Rounded as
    ``fromtimestamp`` rounds: to the nearest microsecond, halves to even, then the milliseconds cut."""
    fraction, seconds = math.modf(created)
    microseconds = round(fraction * 1e6)
    if microseconds >= 1_000_000:
        seconds, microseconds = seconds + 1, microseconds - 1_000_000
    elif microseconds < 0:
        seconds, microseconds = seconds - 1, microseconds + 1_000_000
    return f"{utc_second(int(seconds))}.{microseconds // 1000:03d}+00:00"


_LINE = built_once(json.JSONEncoder(default=str))  # json.dumps(line, default=str)
_configured: logging.StreamHandler | None = None
"""The handler ``configure_logging`` installed: while it is the only way out of ``matchlog.access``, an
access line is written on it straight (``_log_access``)."""


def configure_logging(level: int = logging.INFO) -> None:
    global _configured
    handler = logging.StreamHandler()
    handler.setFormatter(JsonLines())
    handler.addFilter(RequestIdFilter())
    logging.basicConfig(level=level, handlers=[handler], force=True)
    _configured = handler


def _straight_out() -> logging.StreamHandler | None:
    """``configure_logging``'s handler, if an access record would reach it and nothing else, unchanged: then
    ``_log_access`` may write the line without a record (the logging machinery cost more than the answer's
    JSON). Anything else (a handler a test or an operator added, a filter, a level) takes the record path."""
    handler = _configured
    if handler is None or not ACCESS.isEnabledFor(logging.INFO) or handler.level > logging.INFO:
        return None
    if type(handler.formatter) is not JsonLines or [type(f) for f in handler.filters] != [RequestIdFilter]:
        return None
    logger: logging.Logger | None = ACCESS
    while logger is not None:
        if logger.filters or logger.handlers != ([handler] if logger.parent is None else []):
            return None
        if logger.parent is None:
            return handler
        if not logger.propagate:
            return None
        logger = logger.parent
    return None


def _log_access(fields: dict[str, Any]) -> None:
    """The ``matchlog.access`` line of a request: written straight where it can be (``_straight_out``), the
    same line the record would have made, still written and flushed at once, as a record otherwise."""
    handler = _straight_out()
    if handler is None:
        ACCESS.info("request", extra={"access": fields})
        return
    level = logging.getLevelName(logging.INFO)
    text = _LINE(_line(time.time(), level, ACCESS.name, "request", request_id(), fields))
    handler.acquire()
    try:
        handler.stream.write(text + handler.terminator)
        handler.flush()
    except Exception:  # as emit does: logging's own report, never the request's failure
        handler.handleError(ACCESS.makeRecord(ACCESS.name, logging.INFO, "", 0, "request", (), None))
    finally:
        handler.release()


def install(
    app: Flask,
    cors_origins: tuple[str, ...],
    observe: Callable[[str | None, str, int, float], None] = lambda *_: None,
) -> None:
    """Register before the request guards: a preflight must not meet a body or ``Accept`` check.
    ``observe(route, method, status, seconds)`` sees every answer (the metrics)."""

    def answered(route: str | None, method: str, status: int, seconds: float, match_id: str | None) -> None:
        """What every answer leaves behind: its metrics and its access line."""
        observe(route, method, status, seconds)
        _log_access(
            {
                "method": method,
                "route": route,
                "status": status,
                "latency_ms": round(seconds * 1000, 2),
                "match_id": match_id,
            }
        )

    app.extensions["matchlog-answered"] = (
        answered  # for the answers made outside Flask (service.http.middleware.express)
    )

    @app.before_request
    def _start():
        # the environ read as werkzeug's headers and method would read it, without building them
        environ = request.environ
        g.request_id = request_id_of(environ)
        g.started = time.perf_counter()
        if environ.get("REQUEST_METHOD", "GET").upper() == "OPTIONS" and environ.get(
            "HTTP_ACCESS_CONTROL_REQUEST_METHOD"
        ):
            return Response(status=204)
        return None

    @app.after_request
    def _finish(response: Response) -> Response:
        req = cast(Any, request)._get_current_object()  # once, not through the proxy at every use
        response.headers["X-Request-Id"] = g.get("request_id") or new_request_id()
        origin = req.environ.get("HTTP_ORIGIN")  # what req.headers.get("Origin") reads, without building them
        if origin and ("*" in cors_origins or origin in cors_origins):
            response.headers["Access-Control-Allow-Origin"] = "*" if "*" in cors_origins else origin
            response.headers["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
            response.vary.add("Origin")
            if req.method == "OPTIONS":
                response.headers["Access-Control-Allow-Methods"] = METHODS
                response.headers["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
                response.headers["Access-Control-Max-Age"] = "600"
        match_id = (req.view_args or {}).get("match_id")
        if response.status_code == 201 and "Location" not in response.headers:  # unless the view said where
            match_id, location = created_at(response, match_id)
            if location:
                response.headers["Location"] = location
        route = req.url_rule.rule if req.url_rule else None
        seconds = time.perf_counter() - g.get("started", time.perf_counter())
        answered(route, req.method, response.status_code, seconds, match_id)
        return response


def created_at(response: Response, match_id: str | None) -> tuple[str | None, str | None]:
    """The match a 201 answer is about, and where its new resource is: the match, or the first entry
    an action appended."""
    body = response.get_json(silent=True) or {}
    if request.endpoint == "v1.create_webhook":
        return None, f"/v1/webhooks/{body.get('id')}/deliveries"
    match_id = match_id or body.get("id")
    if not match_id:
        return None, None
    events = body.get("events")
    if events and isinstance(events[0], dict):
        return match_id, f"/v1/matches/{match_id}/events?after={events[0]['version'] - 1}"
    return match_id, f"/v1/matches/{match_id}"
