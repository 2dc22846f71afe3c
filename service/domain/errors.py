"""What a client can be refused, one class per refusal: every layer raises these, and the HTTP error format
(``service.http.errors``) maps each to its stable ``error`` code, so it depends on nothing but this module
and the games' own refusals (``service.games.protocol``). The store's failures reach it as ``Unavailable``
(``service.store.errors`` translates redis-py's)."""

from __future__ import annotations

from service.games.protocol import IllegalAction

# -- the log ---------------------------------------------------------------------------------------------


class MatchNotFound(Exception):
    """No match of that id."""


class VersionNotFound(Exception):
    """No such version of the match; ``current_version`` says where it is."""

    def __init__(self, current_version: int):
        super().__init__(f"the match has versions 1 to {current_version}")
        self.current_version = current_version


class VersionConflict(Exception):
    """The log moved on from the version an append was decided at: the append is refused, never merged."""

    def __init__(self, current_version: int):
        super().__init__(f"the match is at version {current_version}")
        self.current_version = current_version


class OutOfTime(VersionConflict):
    """A move from a seat whose clock had run out: the timeout was appended instead."""


class NotTheHolder(Exception):
    """The seat's token that asked for an append is no longer the seat's: the seat was handed to someone
    else (``seat_replaced``) after the process that let the token in last read the seats' tokens."""


class BrokenChain(ValueError):
    """A log entry whose hash does not follow from the entries before it: the log was changed."""

    def __init__(self, version: int, why: str = "breaks the hash chain: the log was changed at or before it"):
        super().__init__(f"entry {version} {why}")
        self.version = version


class IllegalRecordMove(Exception):
    """Move ``number`` (1-based) of an imported game record breaks a rule."""

    def __init__(self, number: int, refusal: IllegalAction):
        super().__init__(f"move {number}: {refusal.message}")
        self.number = number
        self.refusal = refusal


# -- a match's seats and its end -------------------------------------------------------------------------


class SeatTaken(Exception):
    """A join for a seat that is not open (any more)."""


class NoSuchSeat(Exception):
    """A join for a seat number the match does not have."""


class MatchOver(Exception):
    """An abort, a join or a seat replacement for a match that has ended."""


class MatchNotOver(Exception):
    """Something only a finished match has (its analysis) asked of one still running."""


class HiddenUntilRevealed(Exception):
    """What would tell hidden data (a legacy log's head hash) waits for the seed to be revealed."""


class NoRecordFormat(Exception):
    """The game has no record format, or not the one asked for."""


class NoAnalysis(Exception):
    """The game has no analyst, or no way to judge a seat's choices from what it could see."""


KNOWN_SEED_REASONS = {
    "open_seat": "a seat is left open for someone to join",
    "public": "the match would be listed for anyone",
}
"""The ``reason`` of a ``seed_known_to_creator_refused`` answer."""


class KnownSeedRefused(Exception):
    """``seed_known_to_creator`` where someone other than the creator could sit down unaware: a seat left
    open, or a match listed for anyone. ``reason``: one of ``KNOWN_SEED_REASONS``."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


# -- budgets ---------------------------------------------------------------------------------------------


class TooManyBotMatches(Exception):
    """The creator has as many matches with only bots in them not over as it may (``MATCHLOG_BOT_MATCHES_PER_*``)."""

    def __init__(self, cap: int, creator: str):
        super().__init__(
            f"this {creator} has {cap} matches whose seats are all bots not over, as many as one {creator} may: "
            "wait for one to end (or abort one)"
        )
        self.cap = cap


class TooManyWebhooks(Exception):
    """The platform has as many webhooks as it may (``MATCHLOG_WEBHOOKS_PER_PLATFORM``)."""

    def __init__(self, limit: int):
        super().__init__(f"a platform has at most {limit} webhooks")
        self.limit = limit


# -- idempotency keys ------------------------------------------------------------------------------------


class IdempotencyKeyReused(Exception):
    """The Idempotency-Key was used for a different request."""


class IdempotencyKeyInProgress(Exception):
    """The first request with this Idempotency-Key is still running: try again in a moment."""


class GuessableIdempotencyKey(Exception):
    """An Idempotency-Key shorter than ``ANONYMOUS_KEY_MIN`` where no caller scopes it."""


# -- the store away --------------------------------------------------------------------------------------


class Unavailable(Exception):
    """The match store is unreachable or failing over: nothing is known to have been decided; retry."""


class StorageFull(Unavailable):
    """The match store is full and refuses new writes; nothing was lost."""


class NotReplicated(Exception):
    """No replica confirmed an append in time (``replicated`` durability): it may or may not survive a
    failover."""
