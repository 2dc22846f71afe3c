"""Seeks, ``/v1/seeks``: a player asks for a match and the server pairs it by rating (the use case is
``service.application.seeks``). A platform seeks for its players with its key and sees its own seeks only;
where the server allows anonymous matches, a client seeks without one and gets an owner token for its seek."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from flask import current_app, request

from service.application.idempotency import ANYONE
from service.application.seeks import NewSeek, Seeks, expires_ms
from service.domain.errors import NotFound
from service.domain.tokens import is_platform_key, token_hash
from service.http import schemas
from service.http.auth import bearer, request_platform
from service.http.errors import ApiError, not_a_cursor
from service.http.routes import CREATE_EXAMPLE, _clock, _creator, _errors, matches, v1


def seeks() -> Seeks:
    return current_app.extensions["matchlog-seeks"]


def iso(ms: int) -> str:
    """Epoch milliseconds as the API writes times (ISO 8601, milliseconds, Z)."""
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


CURSOR_MS = re.compile(r"[0-9]{1,15}")  # ASCII digits: str.isdigit() also takes "²", which int() refuses


def cursor_at(query: dict[str, Any]) -> tuple[int, str] | None:
    """Where a page of seeks or challenges starts: its ``cursor``, ``<ms>:<id>`` (``cursor_of``), read."""
    cursor = query.get("cursor")
    if cursor is None:
        return None
    at, _, record_id = cursor.partition(":")
    if not CURSOR_MS.fullmatch(at) or len(record_id) != 32:
        raise not_a_cursor()
    return int(at), record_id


def cursor_of(following: tuple[int, str] | None) -> str | None:
    """The ``next_cursor`` of a page that ends before ``following`` (``(created_ms, id)``), or None."""
    return None if following is None else f"{following[0]}:{following[1]}"


def shown(record: dict[str, Any], owner: bool) -> dict[str, Any]:
    """A seek as the API shows it: the seat's token to its owner only."""
    clock = record["clock"]
    return {
        "id": record["id"],
        "game": record["game"],
        "players": record["players"],
        "options": record["options"],
        "name": record["name"],
        "player": record["player"],
        "rated": record["rated"],
        "rating": record["rating"],
        "bot": record["bot"],
        "bots_allowed": record["bots_allowed"],
        "clock": record["clock_shown"],
        "on_timeout": clock["on_timeout"] if clock else None,
        "status": record["status"],
        "reason": record["reason"],
        "created_at": iso(record["created_ms"]),
        "expires_at": iso(expires_ms(record)),
        "match": record["match"],
        "seat": record["seat"],
        "token": seeks().token(record) if owner else None,
    }


def _visible(seek_id: str) -> tuple[dict[str, Any], bool]:
    """The seek and whether the caller owns it; 404 for a seek the caller may not see (another platform's
    is not told apart from none)."""
    record = seeks().get(seek_id)
    platform = request_platform(matches())
    if record["platform"] is not None:
        if platform is None or platform["id"] != record["platform"]:
            raise NotFound("seek", f"no seek {seek_id!r} of this platform")
        return record, True
    token = bearer()
    owns = token is not None and not is_platform_key(token) and token_hash(token) == record["owner"]
    return record, owns


@v1.route("/seeks", methods=["POST"])
@v1.doc(operationId="createSeek")
@v1.arguments(
    schemas.CreateSeekSchema(),
    example={"game": CREATE_EXAMPLE["game"], "players": 2, "name": "alice"},
)
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(201, schemas.CreatedSeekSchema)
@_errors(400, 401, 409, 413, 422, 429, 503)
def create_seek(body: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """Ask for a match: the seek waits in its pool (same game, options, players, clock and rated) until
    seeks within each other's rating window meet, or expires after 10 minutes (`no_opponent_in_time`). A
    seek that meets at once answers `paired`, with its match, its seat and the seat's token.

    With a platform key, for one of its players (`player`), who may have 3 seeks open; without one (where
    the server allows anonymous matches), the answer's `owner_token` reads the seek's token later and
    cancels it, and an address (an IPv6 one: its /64) may have 3 open. Bots meet only seeks that allow bots
    (`bots_allowed`)."""
    platform = _creator()
    new = NewSeek(
        body["game"],
        body["players"],
        body.get("name") or body.get("player") or "anonymous",
        body["options"],
        _clock(body),
        body.get("clock"),
        body["rated"],
        body["bot"],
        body["bots_allowed"],
        platform,
        body.get("player"),
        request.remote_addr,  # behind proxies, their client (as the rate limits count it)
    )

    def post(remember: object) -> dict[str, Any]:
        record, owner = seeks().post(new)
        return shown(record, True) | ({"owner_token": owner} if owner else {})

    caller = f"platform:{platform}" if platform else ANYONE
    return matches().idempotency.once(None, "seek", caller, headers.get("idempotency_key"), body, post)


@v1.route("/seeks", methods=["GET"])
@v1.doc(operationId="listSeeks")
@v1.arguments(schemas.CursorPageQuerySchema(), location="query")
@v1.response(200, schemas.SeeksSchema)
@_errors(400, 401)
def list_seeks(query: dict[str, Any]) -> dict[str, Any]:
    """The open seeks, oldest first: with a platform key the platform's, without one the anonymous ones;
    `cursor` pages on. Nobody's seat token is in a listing."""
    platform = request_platform(matches())
    rows, following = seeks().listed(platform["id"] if platform else None, cursor_at(query), query["limit"])
    return {"seeks": [shown(row, False) for row in rows], "next_cursor": cursor_of(following)}


@v1.route("/seeks/<seek_id>", methods=["GET"])
@v1.doc(operationId="getSeek")
@v1.response(200, schemas.SeekSchema)
@_errors(401, 404)
def get_seek(seek_id: str) -> dict[str, Any]:
    """A seek: open, paired (with its match and seat, and for its owner the seat's token), cancelled or
    expired (with a reason). A platform's seek is its platform's only."""
    record, owner = _visible(seek_id)
    return shown(record, owner)


@v1.route("/seeks/<seek_id>", methods=["DELETE"])
@v1.doc(operationId="cancelSeek")
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(200, schemas.SeekSchema)
@_errors(401, 403, 404, 409, 422, 503)
def cancel_seek(headers: dict[str, Any], seek_id: str) -> dict[str, Any]:
    """Cancel an open seek (its platform's key, or its owner token): 409 `not_open` once it was paired,
    cancelled or expired."""
    record, owner = _visible(seek_id)
    if not owner:
        raise ApiError(403, "not_your_seek", "only the seek's owner cancels it: its owner_token")
    return matches().idempotency.once(
        None,
        "seek-cancel",
        f"seek:{record['id']}",  # only its owner gets this far
        headers.get("idempotency_key"),
        [record["id"]],
        lambda remember: shown(seeks().cancel(record["id"]), True),
    )
