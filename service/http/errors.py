"""The error format, in one place: every error the API returns is

    {"error": "<stable code>", "message": "<a sentence for people>", ...details}

with details such as ``reason`` (why the rules refused an action), ``current_version`` or
``fields`` (which request fields are wrong). Codes are part of the contract (``openapi.yaml``)
and are never renamed.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, current_app, has_request_context, jsonify
from werkzeug.exceptions import HTTPException, default_exceptions
from wsproto.utilities import RemoteProtocolError

from service import metrics
from service.domain.errors import (
    TOURNAMENT_REASONS,
    BrokenChain,
    GuessableIdempotencyKey,
    HiddenUntilRevealed,
    IdempotencyKeyInProgress,
    IdempotencyKeyReused,
    IllegalRecordMove,
    KnownSeedRefused,
    MatchNotFound,
    MatchNotOver,
    MatchOver,
    NoLongerOpen,
    NoRecordFormat,
    NoSuchSeat,
    NotFound,
    NotInChallenge,
    NotReplicated,
    NotTheHolder,
    OutOfTime,
    SeatTaken,
    StorageFull,
    TooManyBotMatches,
    TooManyOpen,
    TooManyWebhooks,
    TournamentRefused,
    Unavailable,
    VersionConflict,
    VersionNotFound,
)
from service.games.protocol import IllegalAction, InvalidOptions, InvalidRecord
from service.games.texts import N_, catalogue

_ = catalogue(__file__).gettext

log = logging.getLogger("matchlog")

# Every ``error`` code the API answers with, in one registry: the contract's enum (``Error.error`` in
# ``openapi.yaml``). An ``ApiError`` with a code not listed here fails tests/http/test_errors.py.
API_ERRORS: dict[str, str] = {
    "invalid_request": "the request does not fit its schema (fields says which)",
    "invalid_record": "a game record that cannot be read",
    "malformed_token": "the Authorization header is not 'Bearer <token>'",
    "missing_token": "this needs a seat token (or the match's platform key)",
    "unknown_platform_key": "a platform key this server did not issue (or revoked)",
    "platform_key_rotated": "a platform key rotated with a grace period that has ended: use the platform's new key",
    "platform_key_required": "only a platform may do this: Authorization: Bearer <platform key>",
    "not_your_match": "the match belongs to another platform, or to none",
    "platform_cannot_act": "a platform reads and moderates; seats act with their tokens",
    "platform_only": "only the match's platform may do this",
    "wrong_token": "the token is not a seat of this match",
    "wrong_seat": "a seat's token asked for another seat's view",
    "match_not_found": "no such match",
    "version_not_found": "no such version of the match (current_version says where it is)",
    "seat_not_found": "no such seat",
    "job_not_found": "no such job for this credential",
    "webhook_not_found": "no such webhook",
    "player_not_found": "the platform has no rated player of that id",
    "analysis_not_found": "nobody has asked for the match's analysis yet",
    "analysis_unavailable": "the match's game has no analysis",
    "match_not_over": "the match has not ended: what was asked exists only once it has (its analysis)",
    "not_your_webhook": "the webhook belongs to another platform",
    "not_acceptable": "the game cannot answer in the asked content type",
    "version_conflict": "the match moved on: read it again (current_version)",
    "out_of_time": "the seat's clock ran out before the move came",
    "seat_taken": "someone has the seat",
    "hidden_until_revealed": "a checkpoint of a hidden-information match that cannot be shown before its end",
    "match_over": "the match has ended (or was aborted)",
    "uri_too_long": "the URL is longer than the server accepts",
    "request_header_fields_too_large": "the headers are larger than the server accepts",
    "unsupported_media_type": "a body type the endpoint does not take",
    "illegal_action": "the rules refuse the action: reason says why (the game's refusals in GET /v1/games)",
    "idempotency_key_reused": "the Idempotency-Key was used for a different request",
    "idempotency_key_in_progress": "the first request with this Idempotency-Key is still running: retry shortly",
    "seed_known_to_creator_refused": "a seed known to its creator where a stranger could sit down (reason)",
    "too_many_requests": "over a rate limit: Retry-After says when to retry",
    "too_many_streams": "this address holds as many live feeds as it may",
    "too_many_sockets": "this address holds as many moves sockets as it may",
    "too_many_analyses": "the caller has as many analyses waiting or running as it may (limit says how many)",
    "too_many_webhooks": "the platform has as many webhooks as it may (limit says how many)",
    "too_many_bot_matches": "this address (or platform) has as many matches of bots only not over as it may",
    "internal_error": "an unexpected error; it has been logged",
    "broken_chain": "the stored log fails its hash chain",
    "storage_unavailable": "the match store is unreachable or failing over; retry",
    "storage_full": "the match store is full and refuses new writes",
    "not_replicated": "no replica confirmed the write in time: retry with the same Idempotency-Key",
    "streams_full": "this server process holds as many live feeds as it may",
    "not_ready": "/readyz: Redis or the workers are not ready",
    "seek_not_found": "no such seek (or it is another platform's, or long gone)",
    "challenge_not_found": "no such challenge (or it is another platform's, or long gone)",
    "not_your_seek": "the seek is another platform's or another client's: its owner cancels it",
    "not_in_challenge": "the player is neither the challenger nor one of the challenged",
    "not_open": "the seek or challenge is paired, cancelled, declined or expired already (status says which)",
    "too_many_seeks": "the player, address or platform has as many open seeks as it may (limit says how many)",
    "too_many_challenges": "the player has as many open challenges as it may (limit says how many)",
    "tournament_not_found": "no such tournament (or, for a change, it is another platform's)",
    "tournament_refused": "the tournament cannot take this now: reason says why",
    "too_many_tournaments": "the platform created as many tournaments in the last day as it may (limit)",
}
# The statuses werkzeug (routing, request parsing, the rate limiter, static files) may answer with, whose
# code is its name in snake case (``method_not_allowed``); any other becomes bad_request or internal_server_error.
HTTP_STATUSES = (400, 404, 405, 406, 412, 413, 414, 415, 416, 422, 429, 431, 500, 501, 503)


WERKZEUG_MESSAGES = (
    N_("The browser (or proxy) sent a request that this server could not understand."),
    N_(
        "The requested URL was not found on the server. If you entered the URL manually please check your "
        "spelling and try again."
    ),
    N_("The method is not allowed for the requested URL."),
    N_(
        "The resource identified by the request is only capable of generating response entities which have "
        "content characteristics not acceptable according to the accept headers sent in the request."
    ),
    N_("The precondition on the request for the URL failed positive evaluation."),
    N_("The data value transmitted exceeds the capacity limit."),
    N_(
        "The length of the requested URL exceeds the capacity limit for this server. The request cannot be "
        "processed."
    ),
    N_("The server does not support the media type transmitted in the request."),
    N_("The server cannot provide the requested range."),
    N_("The request was well-formed but was unable to be followed due to semantic errors."),
    N_("This user has exceeded an allotted request count. Try again later."),
    N_("One or more header fields exceeds the maximum size."),
    N_(
        "The server encountered an internal error and was unable to complete your request. Either the server is "
        "overloaded or there is an error in the application."
    ),
    N_("The server does not support the action requested by the browser."),
    N_(
        "The server is temporarily unable to service your request due to maintenance downtime or capacity "
        "problems. Please try again later."
    ),
)
"""werkzeug's own messages of the statuses it may answer with (``HTTP_STATUSES``), word for word, for the
catalogue: an answer in English says them as werkzeug does (tests/http/test_languages.py checks they are its)."""


MARSHMALLOW_MESSAGES = (
    # its schemas'
    N_("Unknown field."),
    N_("Invalid input type."),
    # its fields' (``default_error_messages``)
    N_("Missing data for required field."),
    N_("Field may not be null."),
    N_("Invalid value."),
    N_("Invalid type."),
    N_("Invalid input."),
    N_("Not a valid string."),
    N_("Not a valid utf-8 string."),
    N_("Not a valid integer."),
    N_("Not a valid number."),
    N_("Number too large."),
    N_("Special numeric values (nan or infinity) are not permitted."),
    N_("Not a valid boolean."),
    N_("Not a valid list."),
    N_("Not a valid tuple."),
    N_("Not a valid mapping type."),
    N_("Not a valid date."),
    N_("Not a valid {obj_type}."),
    N_("Not a valid {awareness} {obj_type}."),
    N_('"{input}" cannot be formatted as a {obj_type}.'),
    N_('"{input}" cannot be formatted as a date.'),
    N_("Not a valid period of time."),
    N_("Not a valid UUID."),
    N_("Not a valid URL."),
    N_("Not a valid email address."),
    N_("Not a valid IP address."),
    N_("Not a valid IPv4 address."),
    N_("Not a valid IPv6 address."),
    N_("Not a valid IP interface."),
    N_("Not a valid IPv4 interface."),
    N_("Not a valid IPv6 interface."),
    # its validators' (``message*``, ``default_message``; Range's with its comparisons filled in)
    N_("Must be one of: {choices}."),
    N_("Must be equal to {other}."),
    N_("String does not match expected pattern."),
    N_("Shorter than minimum length {min}."),
    N_("Longer than maximum length {max}."),
    N_("Length must be between {min} and {max}."),
    N_("Length must be {equal}."),
    N_("One or more of the choices you made was not in: {choices}."),
    N_("One or more of the choices you made was in: {values}."),
    N_("Must be greater than or equal to {min}."),
    N_("Must be greater than {min}."),
    N_("Must be less than or equal to {max}."),
    N_("Must be less than {max}."),
    N_("Must be greater than or equal to {min} and less than or equal to {max}."),
    N_("Must be greater than or equal to {min} and less than {max}."),
    N_("Must be greater than {min} and less than or equal to {max}."),
    N_("Must be greater than {min} and less than {max}."),
)
"""marshmallow's own messages for a field that does not fit its schema, word for word, for the catalogue: an
``invalid_request``'s ``fields`` say them in the reader's language (``field_message``), and in English as
marshmallow does (tests/http/test_languages.py checks they are its)."""


def _template(message: str) -> re.Pattern[str]:
    """A message of ``MARSHMALLOW_MESSAGES`` as a pattern that finds its placeholders' values back."""
    parts = re.split(r"\{(\w+)\}", message)
    return re.compile(
        "".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts))
        + r"\Z",
        re.DOTALL,
    )


_PLAIN = frozenset(m for m in MARSHMALLOW_MESSAGES if "{" not in m)
_TEMPLATES = sorted(
    ((m, _template(m)) for m in MARSHMALLOW_MESSAGES if "{" in m),
    key=lambda known: -len(re.sub(r"\{\w+\}", "", known[0])),  # the most specific first
)


def field_message(message: str) -> str:
    """A field's message in the reader's language: one of marshmallow's (its values found back in it and
    said in the translation) translated, any other (the server's own, already said) as it is."""
    if message in _PLAIN:
        return _(message)
    for template, pattern in _TEMPLATES:
        found = pattern.match(message)
        if found:
            return _(template, **found.groupdict())
    return message


def _snake(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


HTTP_ERRORS: dict[int, str] = {status: _snake(default_exceptions[status]().name) for status in HTTP_STATUSES}
ERROR_CODES: frozenset[str] = frozenset(API_ERRORS) | frozenset(HTTP_ERRORS.values())
"""The ``error`` codes of the contract: the API's own and the werkzeug-derived ones."""


def http_code(status: int | None) -> str:
    """The ``error`` code of a werkzeug exception of ``status``."""
    if status in HTTP_ERRORS:
        return HTTP_ERRORS[status]
    return HTTP_ERRORS[500] if status is None or status >= 500 else HTTP_ERRORS[400]


class ApiError(Exception):
    def __init__(self, status: int, error: str, message: str, **details: Any):
        super().__init__(message)
        self.status = status
        self.body = {"error": error, "message": message, **details}


def invalid(fields: dict[str, list[str]], message: str | None = None) -> ApiError:
    """400 naming each wrong field, e.g. ``{"options.variant": ["must be one of ..."]}``."""
    said = {field: [field_message(m) for m in messages] for field, messages in fields.items()}
    return ApiError(400, "invalid_request", message or _("the request is not valid"), fields=said)


def unknown_game(game: object, field: str = "game") -> ApiError:
    """400: a game id no package serves."""
    return invalid({field: [_("unknown game {game}; GET /v1/games lists them", game=repr(game))]})


def not_a_cursor(field: str = "cursor") -> ApiError:
    """400: a paging cursor this endpoint did not give (forged, or another endpoint's)."""
    return invalid({field: [_("not a cursor this endpoint gave")]})


def flatten(messages: Any, prefix: str = "") -> dict[str, list[str]]:
    """marshmallow's nested error dict as ``{"a.b.0": [...]}``."""
    if isinstance(messages, dict):
        out: dict[str, list[str]] = {}
        for key, value in messages.items():
            out.update(flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        return {prefix or "body": messages}
    return {prefix or "body": [str(messages)]}


def http_error(error: HTTPException) -> Response:
    status, body, headers = http_error_answer(
        error, current_app.config.get("MAX_CONTENT_LENGTH") if has_request_context() else None
    )
    response = jsonify(body)
    response.status_code = status
    response.headers.extend(headers)
    return response


def http_error_answer(error: HTTPException, max_body: int | None) -> tuple[int, dict, list[tuple[str, str]]]:
    """A werkzeug exception's answer: its status, its body in the error shape, and its headers."""
    data = getattr(error, "data", None) or {}
    if error.code in (400, 422) and "messages" in data:  # webargs: the request failed its schema
        messages = data["messages"]
        fields = flatten(
            {k: v for loc in messages.values() for k, v in loc.items()}
            if all(isinstance(v, dict) for v in messages.values())
            else messages
        )
        return 400, invalid(fields).body, []
    message = error.description or error.name
    body = {
        "error": http_code(error.code),
        "message": _(message) if message in WERKZEUG_MESSAGES else message,
    }
    if error.code == 413 and max_body:
        body["message"] = _("the body is over this server's limit of {limit} bytes", limit=max_body)
    headers = []
    if error.code == 405 and getattr(error, "valid_methods", None):
        headers.append(("Allow", ", ".join(error.valid_methods)))  # type: ignore[attr-defined]
    return error.code or 500, body, headers


def _unavailable(error: Exception) -> ApiError:
    return ApiError(503, "storage_unavailable", _("the match store is unreachable; retry shortly"))


def _unexpected(error: Exception) -> ApiError:
    log.error("unhandled error", exc_info=error)
    return ApiError(500, "internal_error", _("an unexpected error; it has been logged"))


def _not_found(error: NotFound) -> ApiError:
    if error.what == "seek":
        return ApiError(404, "seek_not_found", str(error))
    if error.what == "tournament":
        return ApiError(404, "tournament_not_found", _("no such tournament"))
    return ApiError(404, "challenge_not_found", str(error))


def _too_many(error: TooManyOpen) -> ApiError:
    if error.what == "analysis":
        return ApiError(429, "too_many_analyses", str(error), limit=error.limit)
    if error.what == "seek":
        return ApiError(429, "too_many_seeks", str(error), limit=error.limit)
    if error.what == "tournament":
        return ApiError(
            429,
            "too_many_tournaments",
            _(
                "the platform created {limit} tournaments in the last day, as many as it may",
                limit=error.limit,
            ),
            limit=error.limit,
        )
    return ApiError(429, "too_many_challenges", str(error), limit=error.limit)


# the API face of the application's exceptions, for HTTP answers and the moves socket alike
DOMAIN = {
    IllegalAction: lambda e: ApiError(422, "illegal_action", e.message, reason=e.reason),
    VersionConflict: lambda e: ApiError(
        409,
        "version_conflict",
        _(
            "the match is at version {version}: read it again and choose an action at that version",
            version=e.current_version,
        ),
        current_version=e.current_version,
    ),
    OutOfTime: lambda e: ApiError(
        409,
        "out_of_time",
        _(
            "this seat's clock ran out before the move came: the timeout was applied, the match is at version "
            "{version}",
            version=e.current_version,
        ),
        current_version=e.current_version,
    ),
    InvalidOptions: lambda e: invalid({e.field: [e.message]}, f"{e.field}: {e.message}"),
    MatchNotFound: lambda e: ApiError(404, "match_not_found", _("no such match")),
    VersionNotFound: lambda e: ApiError(404, "version_not_found", str(e), current_version=e.current_version),
    IllegalRecordMove: lambda e: ApiError(
        422, "illegal_action", str(e), reason=e.refusal.reason, move=e.number
    ),
    InvalidRecord: lambda e: ApiError(
        400, "invalid_record", _("the game record cannot be read: {why}", why=e)
    ),
    NoRecordFormat: lambda e: ApiError(406, "not_acceptable", str(e)),
    BrokenChain: lambda e: ApiError(
        500, "broken_chain", _("the stored log fails its hash chain: {why}", why=e)
    ),
    SeatTaken: lambda e: ApiError(409, "seat_taken", str(e)),
    TooManyWebhooks: lambda e: ApiError(
        409,
        "too_many_webhooks",
        _("{why}: delete one first, or ask the operator to allow more", why=e),
        limit=e.limit,
    ),
    TooManyBotMatches: lambda e: ApiError(429, "too_many_bot_matches", str(e)),
    HiddenUntilRevealed: lambda e: ApiError(409, "hidden_until_revealed", str(e)),
    MatchOver: lambda e: ApiError(409, "match_over", str(e)),
    MatchNotOver: lambda e: ApiError(409, "match_not_over", str(e)),
    NotFound: lambda e: _not_found(e),
    NoLongerOpen: lambda e: ApiError(409, "not_open", str(e), current_status=e.status),
    NotInChallenge: lambda e: ApiError(403, "not_in_challenge", str(e)),
    TournamentRefused: lambda e: ApiError(
        409, "tournament_refused", _(TOURNAMENT_REASONS[e.reason]), reason=e.reason
    ),
    TooManyOpen: lambda e: _too_many(e),
    NoSuchSeat: lambda e: ApiError(404, "seat_not_found", str(e)),
    KnownSeedRefused: lambda e: ApiError(
        422,
        "seed_known_to_creator_refused",
        str(e),
        reason=e.reason,
        fields={"seed_known_to_creator": [str(e)]},
    ),
    GuessableIdempotencyKey: lambda e: invalid({"Idempotency-Key": [str(e)]}, str(e)),
    NotTheHolder: lambda e: ApiError(
        403, "wrong_token", _("this token no longer holds the seat: it was handed to someone else")
    ),
    IdempotencyKeyReused: lambda e: ApiError(
        422, "idempotency_key_reused", _("this Idempotency-Key was already used for a different request")
    ),
    IdempotencyKeyInProgress: lambda e: ApiError(409, "idempotency_key_in_progress", str(e)),
    NotReplicated: lambda e: ApiError(
        503,
        "not_replicated",
        _(
            "no replica confirmed the write in time, so it may or may not survive a failover: "
            "send the request again with the same Idempotency-Key to learn whether it was "
            "appended (its first answer comes back) or to append it now"
        ),
    ),
    # the moves socket's handshake as wsproto refuses it, before any frame (no key, another version): the
    # client's mistake, answered in HTTP still
    RemoteProtocolError: lambda e: invalid(
        {"handshake": [str(e)]}, _("not a WebSocket handshake the server takes: {why}", why=e)
    ),
    # the store's failures, as the store translates redis-py's (``service.store.errors.translated``)
    Unavailable: _unavailable,
    StorageFull: lambda e: ApiError(
        503, "storage_full", _("the match store is full and refuses new writes; nothing was lost")
    ),
}


def api_error_of(error: Exception) -> ApiError:
    """The API's answer to an exception (its own, the domain's, or a logged 500), counted in the metrics."""
    answer = error if isinstance(error, ApiError) else _domain(error)
    if answer.body["error"] == "illegal_action":
        metrics.ILLEGAL.labels(answer.body.get("reason", "")).inc()
    elif answer.body["error"] == "version_conflict":
        metrics.CONFLICTS.inc()
    elif answer.status == 503:
        log.warning("%s: %s", answer.body["error"], error)
    return answer


def _domain(error: Exception) -> ApiError:
    kind = next((kind for kind in type(error).__mro__ if kind in DOMAIN), None)
    return _unexpected(error) if kind is None else DOMAIN[kind](error)


def retry_after(status: int, given: str | None) -> str | None:
    """The ``Retry-After`` an answer of ``status`` carries (``given``: what the rate limiter put, rounded
    down): a second for a 503, at least one for a 429, none on any other answer."""
    if status == 503:
        return "1"
    if status == 429:
        return str(max(1, int(given or 1)))
    return None


def register(app: Flask, translate: Callable[[Exception], Exception] = lambda error: error) -> None:
    """The error format as the app's handlers; ``translate`` puts a failure of the store in the domain's
    words first (``service.store.errors.translated``)."""

    @app.errorhandler(ApiError)
    def api_error(error: Exception) -> tuple[Response, int]:
        answer = api_error_of(translate(error))
        return jsonify(answer.body), answer.status

    for kind in DOMAIN:
        app.register_error_handler(kind, api_error)

    app.register_error_handler(HTTPException, http_error)
    app.register_error_handler(Exception, api_error)


def retry_after_only_on_refusals(x: Any, status: int, headers: list[tuple[str, str]]) -> None:
    """The pipeline's step after every answer (after the rate limits', which say when their window resets
    on every answer): ``Retry-After`` on a 429 or a 503 only (``retry_after``)."""
    at = next((i for i, (k, _) in enumerate(headers) if k.lower() == "retry-after"), None)
    wait = retry_after(status, headers[at][1] if at is not None else None)
    if at is not None:
        del headers[at]
    if wait is not None:
        headers.insert(len(headers) if at is None else at, ("Retry-After", wait))
