"""The express lane: a plain ``POST /v1/matches/{id}/actions`` answered straight from the WSGI environ,
without Flask's per-request machinery (its request context, URL map, hooks and response object), which
cost a third of such a request's CPU.

A plain POST is one that every guard would let through as it is: a JSON body of a stated length within the
limit, no query string, no ``Origin`` (CORS), an ``Accept`` that takes JSON or none, a seat's bearer token,
a body and an action that the compiled schemas take, and an ``Idempotency-Key`` that fits. Anything else,
or anything that goes wrong before the action is submitted (nothing is written by then), goes to Flask with
its body, which answers it as it always has, refusals and all. Once submitted, the answer is made here from
the same parts Flask's would be (``service.http.routes.played``, ``accepted_body``, ``errors.api_error_of``,
``errors.retry_after``, the manners' ``answered``), with the same status line and headers in the same
order: ``tests/http/test_routes_lean.py`` plays twin matches of every game through both and compares the bytes.

The lane stands aside, at each request, where an answer would carry more than it makes or a check it does
not make applies: with rate limits installed (their headers), indented answers (debug), or Flask settings
that check the host or change how a URL is matched (``SERVER_NAME``, ``TRUSTED_HOSTS``).
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask
from werkzeug.http import HTTP_STATUS_CODES

from service.domain.tokens import is_platform_key, seat_of_digest, token_hash
from service.http import errors
from service.http.auth import bearer_of
from service.http.middleware import request_hooks
from service.http.middleware.guards import MATCH_ID, within_limits
from service.http.routes import accepted_body, load_action, plain_submission, played
from service.store.errors import translated

ENDPOINT = "v1.submit_action"
JSON = "application/json"
TAKES_JSON = frozenset({"", "*/*", JSON})
"""``Accept`` headers under which the guards' content negotiation picks JSON: no other to weigh."""

StartResponse = Callable[[str, list[tuple[str, str]]], Any]


class Express:
    """The lane, called with each request's environ before Flask: the answer's body, or None (Flask's)."""

    def __init__(self, app: Flask):
        self.app = app
        self.config = app.config
        self.extensions = app.extensions
        self.matches = app.extensions["matchlog"]
        self.answered = app.extensions["matchlog-answered"]
        (self.route,) = (
            rule.rule for rule in app.url_map.iter_rules(ENDPOINT)
        )  # the view's, as Flask has it
        self.path = re.compile(
            re.escape(self.route).replace(re.escape("<match_id>"), f"({MATCH_ID.pattern})")
        )

    @staticmethod
    def possible(body_types, answers) -> bool:
        """Whether the route reads and answers JSON (then a JSON body and a JSON answer pass its guards)."""
        return JSON in body_types(ENDPOINT) and JSON in answers(ENDPOINT)

    def __call__(self, environ: dict, start_response: StartResponse) -> Iterable[bytes] | None:
        found = self.path.fullmatch(environ.get("PATH_INFO", ""))
        if found is None or not self._open() or not self._plain(environ):
            return None
        started = time.perf_counter()
        length = int(environ["CONTENT_LENGTH"])
        try:
            body = environ["wsgi.input"].read(length)
        except Exception as error:  # the client gone, a timeout: Flask meets the same when it reads
            environ["wsgi.input"] = _Unreadable(error)
            return None
        environ["wsgi.input"] = io.BytesIO(body)  # Flask reads it again, if it is Flask's to answer
        match_id = found.group(1)
        try:
            taken = self._taken(environ, match_id, body) if len(body) == length else None
        except Exception:  # a refusal, or a failure to read: Flask's to say, as it would have
            taken = None
        if taken is None:
            return None
        request_id = request_hooks.request_id_of(environ)
        with request_hooks.answering(request_id):
            try:
                answer, headers = played(self.matches, match_id, *taken)
                status, obj = 201, accepted_body(answer)
            except Exception as error:  # as Flask's error handler answers it
                refusal = errors.api_error_of(translated(error))
                status, obj, headers = refusal.status, refusal.body, {}
            payload = self.app.json.body(obj)  # type: ignore[attr-defined]  # GuardedJSON's
            listed = [("Content-Type", JSON), ("Content-Length", str(len(payload))), *headers.items()]
            listed.append(("X-Request-Id", request_id))
            wait = errors.retry_after(status, None)
            if wait is not None:
                listed.append(("Retry-After", wait))
            start_response(f"{status} {HTTP_STATUS_CODES[status].upper()}", listed)
            self.answered(self.route, "POST", status, time.perf_counter() - started, match_id)
        return [payload]

    def _open(self) -> bool:
        """Whether nothing but the lane's own checks stands between a plain POST and its answer now."""
        config = self.config
        return (
            "matchlog-limiter" not in self.extensions
            and not getattr(self.app.json, "indented", True)
            and not config.get("SERVER_NAME")
            and not config.get("TRUSTED_HOSTS")
        )

    def _plain(self, environ: dict) -> bool:
        """What the guards check before the body is read, as they would pass it. A body is read by its
        stated length only: chunked, werkzeug reads it whole, whatever the length says."""
        length = environ.get("CONTENT_LENGTH", "")
        most = self.config.get("MAX_CONTENT_LENGTH")
        return (
            environ.get("REQUEST_METHOD") == "POST"
            and not environ.get("QUERY_STRING")
            and environ.get("CONTENT_TYPE") == JSON
            and "HTTP_TRANSFER_ENCODING" not in environ
            and length.isascii()
            and length.isdigit()
            and int(length) > 0
            and (most is None or int(length) <= most)
            and not environ.get("HTTP_ORIGIN")
            and environ.get("HTTP_ACCEPT", "") in TAKES_JSON
            and within_limits(environ)
        )

    def _taken(self, environ: dict, match_id: str, body: bytes) -> tuple | None:
        """``played``'s arguments after the match id, when the request is one the lane answers."""
        key = environ.get("HTTP_IDEMPOTENCY_KEY")
        loaded = plain_submission(self.app.json.loads(body), key)
        if loaded is None:
            return None
        token = bearer_of(environ.get("HTTP_AUTHORIZATION"))
        if token is None or is_platform_key(token):
            return None
        digest = token_hash(token)  # the seat's, and the append checks it is still the seat's
        seat = seat_of_digest(digest, self.matches.repository.meta(match_id).seat_hashes)
        if seat is None:
            return None
        game_id = self.matches.repository.meta(match_id).game_id
        action = load_action(game_id, loaded["action"])
        return seat, game_id, action, loaded["expected_version"], key, digest


class _Unreadable(io.RawIOBase):
    """A request's body that failed as the lane read it: fails the same way when Flask reads it."""

    def __init__(self, error: Exception):
        self.error = error

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        raise self.error

    def read(self, size: int = -1) -> bytes:
        raise self.error

    def readline(self, size: int | None = -1) -> bytes:
        raise self.error
