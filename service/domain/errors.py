"""What a client can be refused, one class per refusal: every layer raises these, and the HTTP error format
(``service.http.errors``) maps each to its stable ``error`` code, so it depends on nothing but this module
and the games' own refusals (``service.games.protocol``). The store's failures reach it as ``Unavailable``
(``service.store.errors`` translates redis-py's)."""

from __future__ import annotations

from service.games.protocol import IllegalAction
from service.games.texts import N_, catalogue

_ = catalogue(__file__).gettext

# -- the log ---------------------------------------------------------------------------------------------


class MatchNotFound(Exception):
    """No match of that id."""


class MatchIdTaken(Exception):
    """A match created under an id its creator derived (a tournament's round) finds the id held by a match
    it did not create: never a client's doing (the ids are keyed with a secret), so a server fault, not a
    refusal, and nothing is overwritten."""


class VersionNotFound(Exception):
    """No such version of the match; ``current_version`` says where it is."""

    def __init__(self, current_version: int):
        super().__init__(_("the match has versions 1 to {current_version}", current_version=current_version))
        self.current_version = current_version


class VersionConflict(Exception):
    """The log moved on from the version an append was decided at: the append is refused, never merged."""

    def __init__(self, current_version: int):
        super().__init__(_("the match is at version {current_version}", current_version=current_version))
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
        super().__init__(_("move {number}: {message}", number=number, message=refusal.message))
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


# -- players meet ----------------------------------------------------------------------------------------

PAIRING_REASONS = {
    "pod_size": "a pod is of 2 players, or of 3 to 5",
    "too_few_players": "fewer players than a pairing needs",
    "duplicate_player": "the same player twice in one field",
    "unknown_player": "a result or a player named who is not in the field",
    "bad_result": "a result whose ranks do not match its players",
    "bad_seek": "a seek whose numbers cannot be paired (a count below 2, a negative window)",
}
"""The ``reason`` of a ``pairing_refused``: what the pure pairing core (``service.domain.pairing``) cannot
decide from the data it was given."""


class PairingRefused(ValueError):
    """Data a pairing, a bracket or a standing cannot be decided from. ``reason``: one of
    ``PAIRING_REASONS``."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


class NotFound(LookupError):
    """No such seek (``what`` = ``seek``) or challenge (``challenge``), or none the caller may see."""

    def __init__(self, what: str, message: str):
        super().__init__(message)
        self.what = what


class NoLongerOpen(Exception):
    """A seek or challenge that has become a match, or was cancelled, declined or expired: ``status`` says
    which."""

    def __init__(self, what: str, status: str):
        super().__init__(f"the {what} is {status}: it can no longer be changed")
        self.what = what
        self.status = status


class NotInChallenge(Exception):
    """A player who is neither the challenger nor one of the challenged answers a challenge."""

    def __init__(self, player: str):
        super().__init__(f"{player!r} is neither the challenger nor one of the challenged")


class TooManyOpen(Exception):
    """As many seeks (or challenges) as the caller may have: ``limit`` of them; the message says per what."""

    def __init__(self, what: str, limit: int, message: str):
        super().__init__(message)
        self.what = what
        self.limit = limit


# -- budgets ---------------------------------------------------------------------------------------------


CREATORS = {"address": N_("address"), "platform": N_("platform")}
"""Who a ``TooManyBotMatches`` counts the matches of, in words."""


class TooManyBotMatches(Exception):
    """The creator has as many matches with only bots in them not over as it may (``MATCHLOG_BOT_MATCHES_PER_*``)."""

    def __init__(self, cap: int, creator: str):
        super().__init__(
            _(
                "this {creator} has {cap} matches whose seats are all bots not over, as many as one {creator} "
                "may: wait for one to end (or abort one)",
                creator=_(CREATORS.get(creator, creator)),
                cap=cap,
            )
        )
        self.cap = cap


class TooManyWebhooks(Exception):
    """The platform has as many webhooks as it may (``MATCHLOG_WEBHOOKS_PER_PLATFORM``)."""

    def __init__(self, limit: int):
        super().__init__(_("a platform has at most {limit} webhooks", limit=limit))
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


class LeaseLost(Exception):
    """A rule worker's write for a feed partition refused: another worker took the partition's lease since
    this one's (a newer fencing token, ``service.store.fences``); the worker leaves the notice to it."""


# -- tournaments -----------------------------------------------------------------------------------------

TOURNAMENT_REASONS = {
    "registration_closed": N_(
        "a round robin or a knockout takes no entries once its first round has started"
    ),
    "already_registered": N_("the player is registered already"),
    "not_registered": N_("the player is not in the tournament, or has withdrawn already"),
    "tournament_full": N_("the tournament has as many players as it may"),
    "bots_not_allowed": N_("the tournament does not let bots take part"),
    "round_in_play": N_("the current round has games not finished yet"),
    "bad_result": N_(
        "the result is not of a match of the current round, or its ranks do not fit its players"
    ),
    "no_round_left": N_("every round has been played"),
    "tournament_over": N_("the tournament has finished"),
    "too_few_players": N_("fewer players than a round can be paired for"),
}
"""The ``reason`` of a ``tournament_refused``: what the tournament's log cannot take in its state."""


class TournamentRefused(Exception):
    """An entry the tournament's log cannot take now. ``reason``: one of ``TOURNAMENT_REASONS``."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


class TournamentForged(ValueError):
    """A tournament's log whose entry at ``version`` is not what its rules and its seed make of the entries
    before it (a pairing, a bye, a result or a standing changed, the seed not the one committed to, entries
    out of order). ``reason`` says which check failed."""

    def __init__(self, version: int, reason: str, message: str):
        super().__init__(f"entry {version}: {message}")
        self.version = version
        self.reason = reason
