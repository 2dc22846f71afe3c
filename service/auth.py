"""The one place where a request is tied to a seat: ``Authorization: Bearer <seat token>``.

Tokens themselves (how they are made and checked) are ``service.tokens``.
"""

from __future__ import annotations

from flask import request

from service.errors import ApiError
from service.tokens import seat_for


def request_seat(matches, match_id: str, required: bool) -> int | None:
    """The seat the request's bearer token acts for; None for a spectator when not ``required``.

    401 when a required token is missing or the header is malformed, 403 when the token is not one
    of this match's seats."""
    header = request.headers.get("Authorization")
    if not header:
        if required:
            raise ApiError(401, "missing_token", "this needs a seat token: Authorization: Bearer <token>")
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "malformed_token", "the Authorization header must be 'Bearer <token>'")
    seat = seat_for(token.strip(), matches.seat_hashes(match_id))
    if seat is None:
        raise ApiError(403, "wrong_token", "this token is not a seat of this match")
    return seat
