"""The one ordered list of steps every request passes through, whatever answers it (as Starlette builds its
middleware stack once): the request id, CORS, the size and type guards, the rate limits, the access line and
metrics, ``Retry-After``, ``Location``. ``service.http.app.create_app`` declares the list; nothing else runs
around a view.

The pipeline is the app's WSGI entry. It finds the request's route once (werkzeug's own map, Flask's), runs
each step's ``before`` in order (one may refuse, raising an ``ApiError``, or answer, as the CORS preflight
does), then has the route's one handler answer, and runs the ``after`` of each step that ran, in reverse
order, on the answer's status and headers. A step never sees Flask's request: it reads the ``Exchange``.

Flask (and flask-smorest, flask-sock) answer the routes, except a route whose handler reads the exchange
itself (``direct``: the action POST and the legal-actions GET, the hot paths), which is called straight from
here, without Flask's request context, URL adapter and response object (a third of a POST's CPU). The same
handler is the route's Flask view too, so that it answers the same wherever it is called from: it is called
through Flask whenever Flask would add something of its own, a hook registered on the app the Flask way
(``before_request``...), a ``SERVER_NAME`` or ``TRUSTED_HOSTS`` to check. A hook added the Flask way is
therefore never skipped, only slower; add a step to the list instead.
"""

from __future__ import annotations

import contextlib
import functools
import io
import time
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar, Token
from typing import Any, NamedTuple

from flask import Flask, Response, current_app, request
from werkzeug.exceptions import ClientDisconnected, HTTPException, RequestEntityTooLarge
from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.routing import Rule

from service.games.texts import Reader
from service.http import errors

ROUTES_KEPT = 4096
"""How many requests' routes (a path, a method, an upgrade or not) a process keeps found: a client's next request
to the same URL (a match's next action) is not matched again (werkzeug's matcher: a tenth of a POST's CPU
in the pipeline's own steps)."""

ROUTE_KEPT_LENGTH = 256
"""The longest path whose route is kept. A route takes an id of any length (up to the URL's 8 KiB bound), so
kept whatever their length, 4,096 made-up ids would hold tens of MiB of a process; the real ones are far
shorter."""

StartResponse = Callable[..., Any]
Headers = list[tuple[str, str]]
EXCHANGE = "matchlog.exchange"
"""Where a request's exchange is kept in its environ (for its Flask view, and log lines made in its context)."""

current: ContextVar[Exchange | None] = ContextVar("matchlog_exchange", default=None)
"""The exchange being answered, for the log lines made meanwhile (``request_hooks.request_id``)."""


class Exchange:
    """One request on its way through the pipeline: its environ, its route, and what the steps note of it."""

    def __init__(
        self, app: Flask, environ: dict[str, Any], matched: tuple[Rule, Mapping[str, Any]] | None
    ) -> None:
        self.app = app
        self.environ = environ
        self.method = environ.get("REQUEST_METHOD", "GET").upper()
        self.view_args: Mapping[str, Any]
        rule, self.view_args = matched if matched is not None else (None, {})
        self.endpoint: str | None = rule.endpoint if rule is not None else None
        self.rule: str | None = rule.rule if rule is not None else None
        self.match_id: str | None = self.view_args.get("match_id")
        self.started = time.perf_counter()
        self.request_id = ""
        self.limit: Any = None  # the rate-limit window the answer shows (``ratelimits``)
        self.created: bytes | None = None  # a Flask view's 201 body without a Location, for the Location step
        self.reader: Reader | None = None  # the answer's language (``request_hooks.speak``)
        self.spoken: Token[Reader | None] | None = None
        self._request: Any = None
        self._body: bytes | None = None

    @property
    def request(self) -> Any:
        """The app's request (``guards.GuardedRequest``) of the environ, made when a step needs more than the
        environ says."""
        if self._request is None:
            self._request = self.app.request_class(self.environ)
            self._request.max_content_length = self.app.config.get("MAX_CONTENT_LENGTH")
        return self._request

    def body(self) -> bytes:
        """The request's body, read once: by its stated length where it has a plain one, through werkzeug
        otherwise (chunked; or already read by a guard), 413 over the body limit either way."""
        if self._body is None:
            if self._request is None and self._plain_length() is not None:
                self._body = self._read_length(self._plain_length() or 0)
            else:
                self._body = self.request.get_data(cache=True)
        return self._body

    def _plain_length(self) -> int | None:
        environ = self.environ
        length = environ.get("CONTENT_LENGTH", "")
        if "HTTP_TRANSFER_ENCODING" in environ or not length.isascii() or not length.isdigit():
            return None
        return int(length)

    def _read_length(self, length: int) -> bytes:
        most = self.app.config.get("MAX_CONTENT_LENGTH")
        if most is not None and length > most:
            raise RequestEntityTooLarge()
        data = self.environ["wsgi.input"].read(length) if length else b""
        if len(data) != length:
            raise ClientDisconnected()
        return data

    def hand_on_body(self) -> None:
        """After a step read the body through werkzeug: the environ's input made to give it again, for Flask."""
        data = self.body()
        environ = self.environ
        environ["wsgi.input"] = io.BytesIO(data)
        environ["CONTENT_LENGTH"] = str(len(data))
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        environ.pop("wsgi.input_terminated", None)


class Answer:
    """A handler's answer: its status, its headers and its body."""

    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, body: bytes, headers: Headers):
        self.status = status
        self.body = body
        self.headers = headers


After = Callable[[Exchange, int, Headers], None]
"""A step's work after the handler, on the answer's status and headers."""


class Step(NamedTuple):
    """A step of the pipeline: ``before`` the handler (it may refuse, raising, or answer), ``after`` it (on the
    answer's status and headers, which it may change); either may be None."""

    name: str
    before: Callable[[Exchange], Answer | None] | None
    after: After | None


class Pipeline:
    """The app's WSGI entry: every request through the steps, then to its route's handler."""

    def __init__(
        self,
        app: Flask,
        steps: list[Step],
        flask_wsgi: Callable[[dict, StartResponse], Iterable[bytes]],
        translate: Callable[[Exception], Exception] = lambda error: error,
    ):
        self.app = app
        self.steps = steps
        self.translate = translate  # a store's failure in the domain's words, as the Flask handlers do
        self.flask_wsgi = flask_wsgi
        self.direct: dict[tuple[str, str], Callable[[Exchange], Answer]] = {}
        self._adapter: Any = None
        # every route is declared by create_app, before the first request: what a path matched, it matches
        self._routed = functools.lru_cache(maxsize=ROUTES_KEPT)(self._route_of)

    def route(self, endpoint: str, method: str, handler: Callable[[Exchange], Answer]) -> None:
        """Have ``handler`` answer ``method`` on ``endpoint`` straight from the pipeline (its Flask view calls
        it too: ``answer_in_flask``)."""
        self.direct[(endpoint, method)] = handler

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        x = Exchange(self.app, environ, self._match(environ))
        environ[EXCHANGE] = x
        token = current.set(x)
        ran: list[Step] = []
        try:
            answer = None
            try:
                for step in self.steps:
                    ran.append(step)
                    if step.before is not None:
                        answer = step.before(x)
                        if answer is not None:
                            break
                if answer is None:
                    handler = self.direct.get((x.endpoint or "", x.method))
                    if handler is not None and self._flask_adds_nothing():
                        answer = handler(x)
            except Exception as error:
                answer = self.refusal(error)
            if answer is None:
                return self._through_flask(x, environ, start_response, ran)
            headers = [
                ("Content-Type", _content_type(answer)),
                ("Content-Length", str(len(answer.body))),
                *answer.headers,
            ]
            self._after(x, ran, answer.status, headers)
            start_response(_status_line(answer.status), headers)
            return [answer.body]
        finally:
            current.reset(token)

    def refusal(self, error: Exception) -> Answer:
        """An exception's answer in the API's error shape (a step's refusal, or a direct handler's)."""
        if isinstance(error, HTTPException) and not isinstance(error, errors.ApiError):
            status, body, headers = errors.http_error_answer(error, self.app.config.get("MAX_CONTENT_LENGTH"))
        else:
            refusal = errors.api_error_of(self.translate(error))
            status, body, headers = refusal.status, refusal.body, []
        return Answer(status, self.json(body), headers)

    def json(self, obj: Any) -> bytes:
        """``obj`` as the body of a JSON answer, as ``jsonify`` would write it."""
        provider = self.app.json
        if getattr(provider, "indented", False):
            return provider.response(obj).get_data()  # type: ignore[attr-defined]
        return provider.body(obj)  # type: ignore[attr-defined]  # GuardedJSON's

    def _through_flask(
        self, x: Exchange, environ: dict[str, Any], start_response: StartResponse, ran: list[Step]
    ) -> Iterable[bytes]:
        said: list = []

        def capture(status: str, headers: Headers, exc_info: Any = None) -> Callable[[bytes], object]:
            said[:] = [status, headers, exc_info]
            return _unwritable

        try:
            body = self.flask_wsgi(environ, capture)
        except BaseException:  # a WebSocket's end, which flask-sock raises under gunicorn: the access line
            if not said:
                self._after(x, ran, 200, [])
            raise
        status_line, headers, exc_info = said
        status = int(status_line.split(" ", 1)[0])
        if status == 201 and not any(k.lower() == "location" for k, _ in headers):
            whole = b"".join(body)
            if hasattr(body, "close"):
                body.close()
            body = [whole]
            x.created = whole
        self._after(x, ran, status, headers)
        start_response(status_line, headers, exc_info)
        return body

    def _after(self, x: Exchange, ran: list[Step], status: int, headers: Headers) -> None:
        for step in reversed(ran):
            if step.after is not None:
                step.after(x, status, headers)

    def _match(self, environ: dict[str, Any]) -> tuple[Rule, Mapping[str, Any]] | None:
        path = environ.get("PATH_INFO") or "/"
        route = self._routed if len(path) <= ROUTE_KEPT_LENGTH else self._route_of
        try:
            return route(path, environ.get("REQUEST_METHOD", "GET").upper(), _upgrade(environ))
        except HTTPException:  # no route (404, 405), or a redirect: Flask answers it
            return None

    def _route_of(self, path: str, method: str, websocket: bool) -> tuple[Rule, Mapping[str, Any]]:
        """The route of a WSGI path; HTTPException where there is none (never kept: only routes found are)."""
        adapter = self._adapter
        if adapter is None:
            adapter = self._adapter = self.app.url_map.bind("localhost")
        with contextlib.suppress(UnicodeEncodeError):  # as werkzeug reads a WSGI path
            path = path.encode("latin-1").decode("utf-8", "replace")
        return adapter.match(path, method, return_rule=True, websocket=websocket)

    def _flask_adds_nothing(self) -> bool:
        """Whether Flask would run nothing of its own around the view: no hook, no host to check."""
        app = self.app
        return not (
            any(app.before_request_funcs.values())
            or any(app.after_request_funcs.values())
            or any(app.teardown_request_funcs.values())
            or any(app.url_value_preprocessors.values())
            or app.config.get("SERVER_NAME")
            or app.config.get("TRUSTED_HOSTS")
        )


def answer_in_flask(handler: Callable[[Exchange], Answer]) -> Response:
    """``handler`` as the Flask view of its route: the same answer, as a Flask response."""
    answer = handler(request.environ[EXCHANGE])
    response = current_app.response_class(answer.body, status=answer.status, mimetype="application/json")
    response.headers.extend(answer.headers)
    return response


def _upgrade(environ: dict[str, Any]) -> bool:
    """Whether the request asks for a WebSocket (as werkzeug's ``bind_to_environ`` tells)."""
    connection = environ.get("HTTP_CONNECTION", "").lower()
    return environ.get("HTTP_UPGRADE", "").lower() == "websocket" and any(
        v.strip() == "upgrade" for v in connection.split(",")
    )


def _content_type(answer: Answer) -> str:
    return "application/json" if answer.body or answer.status != 204 else "text/html; charset=utf-8"


def _status_line(status: int) -> str:
    return f"{status} {HTTP_STATUS_CODES.get(status, 'UNKNOWN').upper()}"


def _unwritable(data: bytes) -> None:
    raise RuntimeError("the API's views return their bodies; none writes through start_response's write()")
