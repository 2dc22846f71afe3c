"""The manners of a public HTTP API, steps of the request pipeline (``service.http.middleware.pipeline``)
for every route: a request id, CORS, ``Location`` on every 201, structured access logs, and the metrics of
every answer (the health probes ``/healthz`` and ``/readyz`` are routes of ``service.http.probe_routes``).

- ``X-Request-Id``: a client's id (up to 128 characters of ``[A-Za-z0-9._:-]``) is kept, otherwise one
  is made; it is echoed on the answer and carried by every log line of the request.
- CORS: for the configured origins (``MATCHLOG_CORS_ORIGINS``, default ``*``), reads and writes with
  ``Authorization``; a preflight (``OPTIONS`` with ``Access-Control-Request-Method``) is answered here,
  before any other check, with 204.
- Language: the texts of an answer (entries' ``text``, refusals' ``message``) in the language ``?lang=`` names,
  else the best ``Accept-Language`` the server speaks, else English (``service.games.texts``); an answer that
  carries texts says which in ``Content-Language``, and ``Vary: Accept-Language``.
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
from collections.abc import Callable
from typing import Any

from flask import has_request_context, request
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

from service.domain.chain import built_once, utc_second
from service.games import texts
from service.http.middleware import pipeline
from service.http.middleware.pipeline import After, Answer, Exchange

ACCESS = logging.getLogger("matchlog.access")
REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
ALLOWED_HEADERS = "Authorization, Content-Type, Idempotency-Key, Last-Event-ID, X-Request-Id"
EXPOSED_HEADERS = "Location, Retry-After, X-Match-Version, X-Request-Id"
METHODS = (
    "GET, POST, PATCH, DELETE, OPTIONS"  # DELETE, PATCH: a platform page removes or enables its webhooks
)


def request_id() -> str | None:
    """The id of the request being answered: the pipeline's, or, in a stream answered after it returned, that
    of the request whose context the stream keeps."""
    x = pipeline.current.get()
    if x is None and has_request_context():
        x = request.environ.get(pipeline.EXCHANGE)
    return x.request_id if x is not None else None


def request_id_of(environ: dict) -> str:
    """The client's ``X-Request-Id`` (the environ read as werkzeug's headers would read it), else a new one."""
    given = environ.get("HTTP_X_REQUEST_ID", "")
    return given if REQUEST_ID.fullmatch(given) else new_request_id()


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


def access(observe: Callable[[str | None, str, int, float], None]) -> After:
    """The pipeline's step after every answer: its metrics (``observe(route, method, status, seconds)``) and its
    access line."""

    def after(x: Exchange, status: int, headers: list[tuple[str, str]]) -> None:
        seconds = time.perf_counter() - x.started
        observe(x.rule, x.method, status, seconds)
        _log_access(
            {
                "method": x.method,
                "route": x.rule,
                "status": status,
                "latency_ms": round(seconds * 1000, 2),
                "match_id": x.match_id,
            }
        )

    return after


def identify(x: Exchange) -> None:
    """The request's id: the client's, or a new one."""
    x.request_id = request_id_of(x.environ)


def echo_id(x: Exchange, status: int, headers: list[tuple[str, str]]) -> None:
    headers.append(("X-Request-Id", x.request_id or new_request_id()))


def preflight(x: Exchange) -> Answer | None:
    """A CORS preflight, answered before any other check: 204."""
    if x.method == "OPTIONS" and x.environ.get("HTTP_ACCESS_CONTROL_REQUEST_METHOD"):
        return Answer(204, b"", [])
    return None


def cors(origins: tuple[str, ...]) -> After:
    """The step's ``after``: the CORS headers of an answer to one of ``origins``."""

    def after(x: Exchange, status: int, headers: list[tuple[str, str]]) -> None:
        origin = x.environ.get("HTTP_ORIGIN")
        if not origin or not ("*" in origins or origin in origins):
            return
        headers.append(("Access-Control-Allow-Origin", "*" if "*" in origins else origin))
        headers.append(("Access-Control-Expose-Headers", EXPOSED_HEADERS))
        _vary_origin(headers)
        if x.method == "OPTIONS":
            headers.append(("Access-Control-Allow-Methods", METHODS))
            headers.append(("Access-Control-Allow-Headers", ALLOWED_HEADERS))
            headers.append(("Access-Control-Max-Age", "600"))

    return after


def _vary_origin(headers: list[tuple[str, str]]) -> None:
    _vary(headers, "Origin")


def _vary(headers: list[tuple[str, str]], header: str) -> None:
    for i, (name, value) in enumerate(headers):
        if name.lower() == "vary":
            if header.lower() not in [v.strip().lower() for v in value.split(",")]:
                headers[i] = (name, f"{value}, {header}")
            return
    headers.append(("Vary", header))


LANG = re.compile(r"(?:^|&)lang=([A-Za-z-]{1,16})(?:&|$)")


def language_of(environ: dict[str, Any]) -> str:
    """The language an answer to ``environ`` is written in: ``?lang=`` (for links), if the server speaks it;
    else the client's most preferred ``Accept-Language`` it speaks (``ko-KR`` is Korean); else English."""
    asked = LANG.search(environ.get("QUERY_STRING", ""))
    if asked and asked.group(1).lower() in texts.LANGUAGES:
        return asked.group(1).lower()
    header = environ.get("HTTP_ACCEPT_LANGUAGE")
    if not header:
        return texts.SOURCE
    # werkzeug parses and orders by quality; its best_match would prefer a later exact "ko" to a first "ja-JP"
    for tag, quality in parse_accept_header(header[:1024], LanguageAccept):
        primary = tag.split("-", 1)[0].lower()
        if quality > 0 and primary in texts.LANGUAGES:
            return primary
    return texts.SOURCE


def speak(x: Exchange) -> None:
    """The request's language, for every text made while it is answered (the step's ``after`` ends it)."""
    x.reader = texts.Reader(language_of(x.environ))
    x.spoken = texts.start_speaking(x.reader)


def said_language(x: Exchange, status: int, headers: list[tuple[str, str]]) -> None:
    """``Content-Language`` on an answer that carries texts for people (every refusal: its ``message``)."""
    if x.spoken is not None:
        texts.stop_speaking(x.spoken)
        x.spoken = None
    if x.reader is not None and (x.reader.said or status >= 400):
        headers.append(("Content-Language", x.reader.language))
        _vary(headers, "Accept-Language")


def location(x: Exchange, status: int, headers: list[tuple[str, str]]) -> None:
    """``Location`` on a 201 whose view said none: the match, or the first entry an action appended."""
    if x.created is None:
        return
    match_id, where = created_at(x.endpoint, x.created, x.match_id)
    x.match_id = match_id or x.match_id
    if where:
        headers.append(("Location", where))


def created_at(endpoint: str | None, body: bytes, match_id: str | None) -> tuple[str | None, str | None]:
    """The match a 201 answer is about, and where its new resource is: the match, or the first entry
    an action appended."""
    try:
        answer = json.loads(body)
    except ValueError:
        answer = None
    answer = answer if isinstance(answer, dict) else {}
    if endpoint == "v1.create_webhook":
        return None, f"/v1/webhooks/{answer.get('id')}/deliveries"
    match_id = match_id or answer.get("id")
    if not match_id:
        return None, None
    events = answer.get("events")
    if events and isinstance(events[0], dict):
        return match_id, f"/v1/matches/{match_id}/events?after={events[0]['version'] - 1}"
    return match_id, f"/v1/matches/{match_id}"
