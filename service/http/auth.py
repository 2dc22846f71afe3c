"""The one place where a request is tied to who makes it: ``Authorization: Bearer <seat token>`` acts for
that seat; ``Authorization: Bearer <platform key>`` (``mlk_...``) is the platform that created the match.

A platform never acts for a seat. It may read any seat's view of its own matches (``?seat=N``, for
moderation) where ``platform="view"``, and do what only owners do (abort, ask for scoring) where
``platform="own"``. Tokens and keys themselves are ``service.domain.tokens``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from flask import request

from service.domain.tokens import is_platform_key, seat_for, token_hash
from service.games.texts import catalogue
from service.http.errors import ApiError
from service.store.platforms import Platforms

_ = catalogue(__file__).gettext

if TYPE_CHECKING:
    from service.application.stores import Stores
    from service.store.repository import MatchRepository

SEAT = re.compile(r"[0-9]{1,2}")  # ASCII digits: str.isdigit() also takes "²", which int() refuses


class Credentials(Protocol):
    """What the checks read of the matches: the platforms' keys and the seats' tokens (``Matches``)."""

    stores: Stores
    repository: MatchRepository


def bearer() -> str | None:
    """The bearer credential of the request; None without one; 401 when the header is malformed."""
    return bearer_of(request.headers.get("Authorization"))


def bearer_of(header: str | None) -> str | None:
    """The bearer credential an ``Authorization`` header gives; None without one; 401 when it is malformed."""
    if not header:
        return None
    scheme, _space, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "malformed_token", _("the Authorization header must be 'Bearer <token>'"))
    return token.strip()


def request_platform(matches: Credentials) -> dict | None:
    """The platform of the request's key; None without a platform key; 401 for a key nobody issued."""
    token = bearer()
    if token is None or not is_platform_key(token):
        return None
    return _platform_of_key(matches, token)


def required_platform(matches: Credentials, whose: str) -> str:
    """The id of the request's platform; 401 ``platform_key_required`` without a key (``whose``: what the
    endpoint serves is a platform's, in words)."""
    platform = request_platform(matches)
    if platform is None:
        raise ApiError(
            401, "platform_key_required", _("{whose}: Authorization: Bearer <platform key>", whose=whose)
        )
    return platform["id"]


def _platform_of_key(matches: Credentials, token: str) -> dict:
    """The platform of a platform key; 401 for a key nobody issued, or rotated out."""
    platform = matches.stores.platforms.of_key(token)
    if platform is None:
        raise ApiError(401, "unknown_platform_key", _("this platform key is not one this server issued"))
    if Platforms.ended(platform):
        ended = datetime.fromtimestamp(platform["expires"], UTC).isoformat(timespec="seconds")
        raise ApiError(
            401,
            "platform_key_rotated",
            _(
                "this platform key was rotated and its grace period ended at {ended}: "
                "use the platform's new key",
                ended=ended.replace("+00:00", "Z"),
            ),
        )
    return platform


def request_seat(
    matches: Credentials, match_id: str, required: bool, platform: str | None = None
) -> int | None:
    """The seat the request acts or reads for; None for a spectator when not ``required``.

    With a platform key: ``platform="view"`` reads as ``?seat=N`` (or a spectator), ``"own"`` only checks
    that the match is the platform's; otherwise a platform key is refused (403), platforms do not act.
    401 when a required credential is missing or malformed, 403 when it is not of this match."""
    return seat_of_request(
        matches, match_id, request.headers.get("Authorization"), request.args.get("seat"), required, platform
    )


def seat_of_request(
    matches: Credentials,
    match_id: str,
    authorization: str | None,
    asked: str | None,
    required: bool,
    platform: str | None = None,
) -> int | None:
    """``request_seat`` of a request told by its ``Authorization`` header and its ``?seat=`` (``asked``), for a
    handler that reads the environ, not Flask's request."""
    token = bearer_of(authorization)
    if token is None:
        if required:
            raise ApiError(401, "missing_token", _("this needs a seat token: Authorization: Bearer <token>"))
        if platform == "view" and asked is not None:
            raise ApiError(
                401,
                "missing_token",
                _(
                    "?seat=N reads a seat's view: send that seat's token (or the match's "
                    "platform key) as Authorization: Bearer <token>"
                ),
            )
        return None
    if is_platform_key(token):
        _platform_of_match(matches, match_id, token)
        if platform == "own":
            return None
        if platform != "view":
            raise ApiError(
                403, "platform_cannot_act", _("a platform reads and moderates; seats act with their tokens")
            )
        return _seat_asked(matches, match_id, required, asked)
    seat = _seat_of_token(matches, match_id, token)
    asked = asked if platform == "view" else None
    if asked is not None and _seat_number(asked, matches, match_id) != seat:
        raise ApiError(
            403,
            "wrong_seat",
            _(
                "this token is seat {seat}'s: it reads that seat's view, not "
                "?seat={asked} (a platform key reads any seat's)",
                seat=seat,
                asked=asked,
            ),
        )
    return seat


def _platform_of_match(matches: Credentials, match_id: str, token: str) -> None:
    """403 unless the platform key's platform is the match's."""
    owner = _platform_of_key(matches, token)
    if matches.repository.meta(match_id).platform != owner["id"]:
        raise ApiError(403, "not_your_match", _("this match belongs to another platform, or to none"))


def _seat_of_token(matches: Credentials, match_id: str, token: str) -> int:
    """The seat a seat token holds in the match; 403 when it holds none."""
    seat = seat_for(token, matches.repository.meta(match_id).seat_hashes)
    if seat is None:  # this process's copy of the tokens may predate a seat's new one: Redis decides
        seat = seat_for(token, matches.repository.meta(match_id, fresh=True).seat_hashes)
    if seat is None:
        raise ApiError(403, "wrong_token", _("this token is not a seat of this match"))
    return seat


def seat_acting(matches: Credentials, match_id: str, authorization: str | None) -> tuple[int, str]:
    """``acting_seat`` of a request told by its ``Authorization`` header (for a handler that reads the
    environ, not Flask's request): the seat, and the token that holds it."""
    token = bearer_of(authorization)
    if token is None:
        raise ApiError(401, "missing_token", _("this needs a seat token: Authorization: Bearer <token>"))
    if is_platform_key(token):
        _platform_of_match(matches, match_id, token)
        raise ApiError(
            403, "platform_cannot_act", _("a platform reads and moderates; seats act with their tokens")
        )
    return _seat_of_token(matches, match_id, token), token


def acting_seat(matches: Credentials, match_id: str, platform: str | None = None) -> int:
    """``request_seat`` where a seat must act or read (a platform key only with ``platform="view"`` and a
    ``?seat=``): the seat, never None (a missing credential is a 401)."""
    seat = request_seat(matches, match_id, required=True, platform=platform)
    assert seat is not None, "a required seat is a seat, or a 401"
    return seat


def holder() -> str:
    """The digest of the request's seat token, once ``acting_seat`` has let it in: an append it asks for is
    made only while that is still the seat's token (``EventStore.append``), however old this process's copy
    of the seats' tokens was when it let the token in."""
    token = bearer()
    assert token is not None and not is_platform_key(token), "a seat acts with its own token"
    return token_hash(token)


def still_holds(
    matches: Credentials, match_id: str, token: str, seat: int | None, fresh: bool = False
) -> bool:
    """Whether a credential that ``request_seat`` let in still reads what it read then, for a connection that
    outlives its request (a live feed, the moves socket): a platform key still issued and still the match's;
    a seat token still ``seat``'s. A seat's tokens are this process's copy, up to ``META_FRESH_S`` old, or,
    ``fresh``, what Redis holds now (a seat's new token is stored in the append that says it changed hands)."""
    if is_platform_key(token):
        platform = matches.stores.platforms.of_key(token)
        return (
            platform is not None
            and not Platforms.ended(platform)
            and platform["id"] == matches.repository.meta(match_id).platform
        )
    if fresh:  # the one seat's digest, compared as every token is (a seat token always has its seat)
        return (
            seat is not None and seat_for(token, (matches.repository.seat_digest(match_id, seat) or "",)) == 0
        )
    return seat_for(token, matches.repository.meta(match_id).seat_hashes) == seat


def _seat_number(asked: str, matches: Credentials, match_id: str) -> int:
    """``?seat=`` as a seat of the match (``01`` and `` 1`` as webargs reads them); 400 when it is none."""
    text = asked.strip().lstrip("+")
    seats = len(matches.repository.meta(match_id).seat_hashes)
    if not SEAT.fullmatch(text) or int(text) >= seats:
        raise ApiError(
            400,
            "invalid_request",
            _("seat must be 0 to {last}", last=seats - 1),
            fields={"seat": ["no such seat"]},
        )
    return int(text)


def request_owner(matches: Credentials, match_id: str, does: str) -> dict:
    """The match's platform, when the request's key is its: for what only it does (``does``: "aborts it").
    401 without a credential, 403 for a seat's token or another platform's key."""
    if bearer() is None:
        raise ApiError(
            401,
            "platform_key_required",
            _("only the match's platform {does}: Authorization: Bearer <its key>", does=does),
        )
    request_seat(matches, match_id, required=True, platform="own")
    owner = request_platform(matches)
    if owner is None:
        raise ApiError(403, "platform_only", _("only the match's platform {does}", does=does))
    return owner


def _seat_asked(matches: Credentials, match_id: str, required: bool, asked: str | None) -> int | None:
    if asked is None:
        if required:
            raise ApiError(
                400,
                "invalid_request",
                _("a platform reads a seat's view with ?seat=N"),
                fields={"seat": ["required with a platform key"]},
            )
        return None
    return _seat_number(asked, matches, match_id)
