"""What every request must be before a view sees it, checked once for the whole API.

Each refusal is an ``ApiError`` in the one error shape: a URL or headers too large (414, 431; the
WSGI server's own limits are lifted so that these answers are ours, not its HTML), a body that is not
JSON where JSON is expected (415), JSON nested too deep to parse safely or holding a lone surrogate,
which no UTF-8 log can store (400), an ``Accept`` header the endpoint cannot satisfy (406), and a
match id that is not one (404).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any, NoReturn, cast

import orjson
from flask import Flask, Request, Response
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import RequestEntityTooLarge

from service.domain.immutable import FrozenDict, FrozenList
from service.games.texts import catalogue
from service.http.errors import ApiError, invalid

_ = catalogue(__file__).gettext

if TYPE_CHECKING:
    from service.http.middleware.pipeline import Exchange

MAX_URL_BYTES = 8 * 1024
MAX_HEADER_BYTES = 16 * 1024
# a browser sends about 20; gunicorn lets up to 32,768 through for this answer to be ours
MAX_HEADER_FIELDS = 128
MAX_JSON_DEPTH = 32
MATCH_ID = re.compile(r"[0-9a-f]{32}")
JSON = "application/json"


class InvalidJSON(ValueError):
    """A body that is JSON by its type but that the API refuses to read."""


def check_depth(text: str | bytes, limit: int = MAX_JSON_DEPTH) -> None:
    """Refuse nesting deeper than ``limit`` before parsing: the parser recurses once per level."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if text.count("[") + text.count("{") <= limit:  # the common case, counted in C
        return
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                raise InvalidJSON(f"JSON nested deeper than {limit} levels")
        elif char in "]}":
            depth -= 1


def check_strings(value: Any, path: str = "body") -> None:
    """Refuse strings that are not Unicode text (a lone surrogate such as "\\ud800")."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidJSON(f"{path}: a lone surrogate is not text") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            check_strings(key, path)
            check_strings(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            check_strings(item, f"{path}.{i}")


_ORJSON = (
    orjson.OPT_NON_STR_KEYS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


class GuardedJSON(DefaultJSONProvider):
    """Flask's JSON, reading only what the log can hold, and answering through orjson: the same JSON
    (compact, keys in order, what the standard encoder cannot take handed to Flask's ``default``),
    in a fraction of the time a long answer (a list of legal actions) took the standard encoder."""

    sort_keys = False  # the standard encoder's answers keep their keys in order too, as orjson's do

    @staticmethod
    def _plain(obj: Any) -> Any:
        """A shared pack's parts as the dict or list they read as (orjson hands subclasses to ``default``)."""
        if isinstance(obj, FrozenDict):
            return dict(obj)
        if isinstance(obj, FrozenList):
            return list(obj)
        return DefaultJSONProvider.default(obj)

    @property
    def indented(self) -> bool:
        """Answers are indented for people (Flask's ``compact`` rule), not written by orjson."""
        return (self.compact is None and self._app.debug) or self.compact is False

    def response(self, *args: Any, **kwargs: Any) -> Response:
        if self.indented:  # the app's response_class: Flask types it as werkzeug's base class
            return cast(Response, super().response(*args, **kwargs))
        body = self.body(self._prepare_response_obj(args, kwargs))
        return cast(Flask, self._app).response_class(body, mimetype=self.mimetype)

    def body(self, obj: Any) -> bytes:
        """The body of a compact answer of ``obj`` (``response``'s, when not ``indented``)."""
        try:
            return orjson.dumps(obj, default=self._plain, option=_ORJSON | orjson.OPT_APPEND_NEWLINE)
        except TypeError:  # what orjson refuses (an integer over 64 bits...): the standard encoder decides
            return f"{self.dumps(obj, separators=(',', ':'))}\n".encode()

    def part(self, obj: Any) -> bytes:
        """``obj`` as it stands inside a compact answer's body, for answers put together from parts; raises
        TypeError where ``response`` would leave the body to the standard encoder (the caller does too)."""
        return orjson.dumps(obj, default=self._plain, option=_ORJSON)

    def text(self, obj: Any) -> str:
        """``obj`` as the compact JSON an answer carries, for answers outside an HTTP response (the moves socket)."""
        try:
            return orjson.dumps(obj, default=self._plain, option=_ORJSON).decode()
        except TypeError:
            return json.dumps(obj, default=self._plain, separators=(",", ":"), ensure_ascii=False)

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        check_depth(s)
        value = json.loads(s, **kwargs)
        escaped = b"\\u" in s if isinstance(s, bytes) else "\\u" in s
        if escaped:  # a surrogate can only come from an escape
            check_strings(value)
        return value


class GuardedRequest(Request):
    def on_json_loading_failed(self, e: ValueError | None) -> NoReturn:
        message = str(e) if isinstance(e, InvalidJSON) else f"the body is not valid JSON ({e})"
        raise invalid({"body": [message]}, message)


def within_limits(environ: dict) -> bool:
    """Whether the URL and the headers are surely within their limits, judged from bounds that cost a
    fraction of the exact sizes: the URL's path at most 3 bytes a character once decoded (and a query string
    in ASCII, which cannot fail to decode), each header field's name at most three times its length once
    werkzeug titles it. False: measure them exactly."""
    query = environ.get("QUERY_STRING", "")
    if not query.isascii() or 3 * len(environ.get("PATH_INFO") or "") + len(query) + 2 > MAX_URL_BYTES:
        return False
    fields = size = 0
    for key, value in environ.items():
        if key[:5] == "HTTP_" or key in _CONTENT_KEYS:
            fields += 1
            size += 3 * len(key) + len(value) + 4
    return fields <= MAX_HEADER_FIELDS and size <= MAX_HEADER_BYTES


_CONTENT_KEYS = frozenset({"CONTENT_TYPE", "CONTENT_LENGTH"})


def _check_sizes(x: Exchange) -> None:
    if not within_limits(x.environ):
        _measure_sizes(x.request)


def _measure_sizes(req: Request) -> None:
    url = len(req.full_path.encode("utf-8", errors="replace"))
    if url > MAX_URL_BYTES:
        raise ApiError(
            414,
            "uri_too_long",
            _("the URL is {url} bytes; at most {most}", url=url, most=MAX_URL_BYTES),
        )
    fields = len(req.headers)
    if fields > MAX_HEADER_FIELDS:
        raise ApiError(
            431,
            "request_header_fields_too_large",
            _(
                "the request has {fields} header fields; at most {most}",
                fields=fields,
                most=MAX_HEADER_FIELDS,
            ),
        )
    headers = sum(len(k) + len(v) + 4 for k, v in req.headers.items())
    if headers > MAX_HEADER_BYTES:
        raise ApiError(
            431,
            "request_header_fields_too_large",
            _(
                "the headers are {headers} bytes; at most {most}",
                headers=headers,
                most=MAX_HEADER_BYTES,
            ),
        )


_WITH_BODY = frozenset({"POST", "PUT", "PATCH"})


def _check_body_type(x: Exchange, body_types: Callable[[str | None], Collection[str]]) -> None:
    if x.method not in _WITH_BODY:
        return
    environ = x.environ
    if environ.get("CONTENT_TYPE") == JSON and JSON in body_types(x.endpoint):
        return  # the common case, told from the environ
    req = x.request
    if req.content_length or req.data:
        accepted = body_types(x.endpoint)
        if req.mimetype not in accepted:
            raise ApiError(
                415,
                "unsupported_media_type",
                _(
                    "send the body as {accepted}, not {given}",
                    accepted=" or ".join(sorted(accepted)),
                    given=req.mimetype or "untyped",
                ),
            )


def _check_streamed_size(x: Exchange, limit: int | None) -> None:
    """A body sent without a length (chunked) is cut at the size limit by the WSGI layer without a word,
    and the cut JSON would be refused as broken: one that goes past the limit is a 413, as a body that
    says its length over the limit is. The body read is handed on to the route's handler."""
    environ = x.environ
    if not limit or x.method not in _WITH_BODY:
        return
    if environ.get("CONTENT_LENGTH") and "HTTP_TRANSFER_ENCODING" not in environ:
        return  # a stated length: werkzeug holds the body to it
    req = x.request
    if req.content_length is not None:
        return
    try:
        body = req.get_data(cache=True)
    except RequestEntityTooLarge:
        raise
    except Exception as error:  # the WSGI server's own complaint: a chunk that is no chunk, a body cut off
        raise invalid(
            {"body": [f"{error}"]}, _("the body could not be read ({kind})", kind=type(error).__name__)
        ) from None
    if len(body) >= limit and environ["wsgi.input"].read(1):  # cut at the limit, and more was coming
        raise RequestEntityTooLarge()
    x.hand_on_body()


def _check_match_id(x: Exchange) -> None:
    match_id = x.match_id
    if match_id is not None and not MATCH_ID.fullmatch(match_id):
        raise ApiError(404, "match_not_found", _("no such match: a match id is 32 lower-case hex digits"))


def _check_accept(x: Exchange, answers: Callable[[str | None], list[str] | None]) -> None:
    accept = x.environ.get("HTTP_ACCEPT")
    if not accept:  # no Accept header: anything will do
        return
    offered = answers(x.endpoint)
    if accept in _TAKES_JSON and offered and JSON in offered:
        return  # the common case, told from the environ
    req = x.request
    if req.accept_mimetypes and offered and req.accept_mimetypes.best_match(offered) is None:
        raise ApiError(406, "not_acceptable", _("this answers {types}", types=" or ".join(offered)))


_TAKES_JSON = frozenset({"*/*", JSON})


def install(app: Flask) -> None:
    """Flask's JSON and request class, the guarded ones."""
    app.json = GuardedJSON(app)
    app.request_class = GuardedRequest


def check(
    app: Flask,
    body_types: Callable[[str | None], Collection[str]],
    answers: Callable[[str | None], list[str] | None],
) -> Callable[[Exchange], None]:
    """The pipeline's step before every handler. ``body_types(endpoint)`` and ``answers(endpoint)`` say which
    body types an endpoint reads and which it can answer in."""

    def before(x: Exchange) -> None:
        _check_sizes(x)
        _check_streamed_size(x, app.config.get("MAX_CONTENT_LENGTH"))
        _check_match_id(x)
        _check_body_type(x, body_types)
        _check_accept(x, answers)

    return before
