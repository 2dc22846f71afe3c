"""Seat tokens: the one place where a request is tied to a seat.

Each seat of a match gets a random token, shown once when the match is created. Only its SHA-256
is stored: tokens carry 192 random bits, so a plain hash is enough (slow password hashes exist for
guessable secrets) and a leaked Redis dump does not let anyone act. A token acts for its own seat only.
Clients send it as ``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from flask import request

from service.errors import ApiError


def new_token() -> str:
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def seat_for(token: str, seat_hashes: list[str]) -> int | None:
    digest = token_hash(token)
    found = None
    for seat, stored in enumerate(seat_hashes):
        if hmac.compare_digest(digest, stored):  # no early exit: the timing says nothing
            found = seat
    return found


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
