"""Seat tokens: each seat of a match gets a random token, shown once when the match is created.

Only its SHA-256 is stored: tokens carry 192 random bits, so a plain hash is enough (slow password
hashes exist for guessable secrets) and a leaked Redis dump does not let anyone act. A token acts for
its own seat only. The HTTP side of it (the Authorization header) is ``service.http.auth``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable


def new_token() -> str:
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def seat_for(token: str, seat_hashes: Iterable[str]) -> int | None:
    return seat_of_digest(token_hash(token), seat_hashes)


def seat_of_digest(digest: str, seat_hashes: Iterable[str]) -> int | None:
    """The seat whose token has ``digest`` (``token_hash``), if any."""
    found = None
    for seat, stored in enumerate(seat_hashes):
        if hmac.compare_digest(digest, stored):  # no early exit: the timing says nothing
            found = seat
    return found


PLATFORM_PREFIX = "mlk_"
"""Platform keys start with this, so one Authorization header tells a platform from a seat."""


def new_platform_key() -> str:
    return PLATFORM_PREFIX + secrets.token_urlsafe(32)


def is_platform_key(token: str) -> bool:
    return token.startswith(PLATFORM_PREFIX)
