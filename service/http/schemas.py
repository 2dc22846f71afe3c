"""Request and response shapes of the HTTP API (marshmallow). flask-smorest turns them into
``openapi.yaml``; the request schemas also do the first line of validation (a 400 naming the field)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from service.domain import shown
from service.domain.tournaments import KNOCKOUT_DRAWS
from service.games.protocol import DYNAMICS, UTILITIES
from service.games.texts import LANGUAGES, catalogue

# Stream IDs are 64-bit; keeping versions well inside that means no client number can reach Redis
# as an invalid ID.
MAX_VERSION = 2**53

Version = fields.Integer(strict=True, validate=validate.Range(min=1, max=MAX_VERSION))

_ = catalogue(__file__).gettext


def shown_text(value: str) -> None:
    """Text that other people are shown (a name, a reason): the domain's rule (``service.domain.shown``)."""
    odd = shown.odd_text(value)
    if odd is not None:
        raise ValidationError(odd)


SeatAsked = fields.Integer(
    validate=validate.Range(min=0, max=63),
    metadata={
        "description": "With a platform key: whose view to read (moderation). With a seat token only that seat's "
        "own; without either, a 401."
    },
)


def level_needs_a_bot(data: dict) -> None:
    if "level" in data and not data.get("bot"):
        raise ValidationError(_("a level is a bot's: give one with a bot"), "level")


def ShownText(**kwargs: Any) -> fields.String:
    return fields.String(validate=[validate.Length(min=1, max=shown.LONGEST_NAME), shown_text], **kwargs)


class StrictBoolean(fields.Boolean):
    """true or false, nothing else: marshmallow would also take 1, "yes" or "on"."""

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


class ErrorSchema(Schema):
    # its enum is service.http.errors.ERROR_CODES, and reason's the games' refusals: set in the OpenAPI document
    # when the app is built (service.http.app), since errors.py imports the application and so this module
    error = fields.String(required=True, metadata={"description": "A stable, machine-readable code."})
    message = fields.String(required=True, metadata={"description": "What went wrong, for people."})
    reason = fields.String(metadata={"description": "Why the rules refused an action (with illegal_action)."})
    current_version = fields.Integer(metadata={"description": "The match's version (with version_conflict)."})
    move = fields.Integer(metadata={"description": "Which move of a game record is illegal (1 = the first)."})
    redis = fields.Boolean(metadata={"description": "With not_ready: whether Redis answered."})
    workers = fields.Integer(metadata={"description": "With not_ready: workers with a fresh heartbeat."})
    limit = fields.Integer(
        metadata={"description": "With too_many_webhooks, too_many_seeks, too_many_challenges: the bound."}
    )
    current_status = fields.String(
        metadata={
            "description": "With not_open: what became of the seek or challenge (paired, cancelled...)."
        }
    )
    fields_ = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.String()),
        data_key="fields",
        metadata={"description": "Which request fields are wrong (with invalid_request)."},
    )


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"description": "ok (alive, or ready)"})
    redis = fields.Boolean(metadata={"description": "/readyz: Redis answered a PING"})
    workers = fields.Integer(metadata={"description": "/readyz: workers with a fresh heartbeat"})
    replicas = fields.Integer(
        metadata={
            "description": "/readyz with replicated durability: the fewest replicas "
            "any master of the match store has (at least 1 to be ready)"
        }
    )


class RefusalSchema(Schema):
    reason = fields.String(
        required=True,
        metadata={
            "description": "The reason code of a 422 illegal_action (the game's `<Game>RefusalReason` enum)."
        },
    )
    rule = fields.String(
        required=True,
        metadata={
            "description": "The rule it enforces: an id of the game's rules specification (docs/rules/), such as "
            "spec 2.2 or R-4.5; for the server's own refusals, the README section."
        },
    )
    description = fields.String(
        required=True, metadata={"description": "What the refusal means, for people."}
    )
    by = fields.String(
        required=True,
        validate=validate.OneOf(["game", "server"]),
        metadata={
            "description": "game: the game's rules refuse it; server: the server refuses it whatever the game "
            "(an aborted match, a seat a bot plays, an undo)."
        },
    )


class GameSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    min_players = fields.Integer(required=True)
    max_players = fields.Integer(required=True)
    player_counts = fields.List(fields.Integer(), required=True)
    hidden_information = fields.Boolean(required=True)
    chance = fields.Boolean(
        required=True,
        metadata={
            "description": "Whether chance acts during play (dice, draws). A draw at setup only, such as a first "
            "player drawn from the match seed, is not counted: after it the game is deterministic."
        },
    )
    dynamics = fields.String(
        required=True,
        validate=validate.OneOf(DYNAMICS),
        metadata={
            "description": "sequential: one seat acts at a time; simultaneous: somewhere in the game several "
            "seats act at once (a move's to_act names more than one), as OpenSpiel's dynamics."
        },
    )
    utility = fields.String(
        required=True,
        validate=validate.OneOf(UTILITIES),
        metadata={
            "description": "How the seats' results relate under the default options: competitive (ranked "
            "against each other), cooperative (the seats win or lose together) or mixed (each seat "
            "has a goal of its own, as OpenSpiel's general-sum)."
        },
    )
    utility_by_option = fields.Dict(
        keys=fields.String(),
        required=True,
        values=fields.Dict(keys=fields.String(), values=fields.String(validate=validate.OneOf(UTILITIES))),
        metadata={
            "description": "The match options whose values make the utility another: option -> value -> "
            'utility, e.g. {"mode": {"COOP": "cooperative"}}.'
        },
    )
    description = fields.String(required=True)
    options_schema = fields.Dict(required=True, metadata={"description": "JSON Schema of the match options."})
    packs = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "Content packs installed for the game (the `pack` option)."},
    )
    pictures = fields.List(
        fields.String(),
        required=True,
        metadata={
            "description": "Picture types GET .../picture answers (image/svg+xml); empty: the game draws none."
        },
    )
    record_type = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "The game's record format (a MIME type), for "
            "GET .../record and POST /v1/matches; null if none."
        },
    )
    timeouts = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "The on_timeout policies a clocked match of this game may use."},
    )
    bots = fields.List(
        fields.String(), required=True, metadata={"description": "The bots that can play a seat."}
    )
    entry_types = fields.List(
        fields.String(),
        required=True,
        metadata={
            "description": "The types of entry a match of this game may log (the rules' and the server's own): "
            "what a webhook may ask for."
        },
    )
    refusals = fields.List(
        fields.Nested(RefusalSchema),
        required=True,
        metadata={
            "description": "Every reason an action in a match of this game may be refused with (422 illegal_action): "
            "the game's own, with the rule each enforces, then the server's."
        },
    )


PLAYER_ID = {
    "description": "The platform's own id of the person on this seat: an opaque string, scoped to the "
    "platform (another platform's u-123 is someone else). Kept in the log; rated "
    "(docs/howto/players-and-ratings.md). Needs a platform key."
}


def player_id(**extra: Any) -> fields.String:
    return fields.String(
        validate=[
            validate.Length(min=1, max=128),
            validate.Regexp(
                r"^[^/\x00-\x1f\x7f]+$",
                error="a player id has no / and no control characters (it goes in URLs)",
            ),
        ],
        metadata=PLAYER_ID,
        **extra,
    )


def match_game(*, asked: bool = True) -> fields.String:
    """The ``game`` of a match a request asks for (a match, a seek, a challenge, a tournament's matches), or,
    not ``asked``, of one an answer shows (the contract types it per game where it carries the options)."""
    if not asked:
        return fields.String(required=True)
    return fields.String(
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata={"description": "A game id from GET /v1/games."},
    )


def match_options(whose: str = "The match's", *, asked: bool = True) -> fields.Dict:
    """The ``options`` beside a ``match_game``: asked, checked against the game's options_schema (none: its
    defaults); shown, as they were asked (``whose``: the match's, or every match's of a tournament)."""
    if not asked:
        return fields.Dict(
            keys=fields.String(), required=True, metadata={"description": f"{whose} options, as asked."}
        )
    return fields.Dict(
        keys=fields.String(),
        load_default=dict,
        metadata={"description": f"{whose} options, checked against the game's options_schema."},
    )


class PlayerSchema(Schema):
    name = ShownText()
    player = player_id()
    open = StrictBoolean(
        metadata={"description": "true: leave this seat open for someone to join (the lobby)."}
    )
    bot = fields.String(
        validate=validate.Length(min=1, max=64),
        metadata={
            "description": "A bot plays this seat, on the server's workers: random (any legal action), greedy "
            "(the best immediate standing), or the game's own (the catalogue's bots). It sees only "
            "what the seat may see."
        },
    )
    level = fields.Integer(
        validate=validate.Range(min=1, max=3),
        metadata={"description": "A search bot's strength, 1 to 3: how long it thinks per move."},
    )

    @validates_schema
    def _name_or_open(self, data: dict[str, Any], **kwargs: Any) -> None:
        if (data.get("open") and (data.get("name") or data.get("bot"))) or not (
            data.get("name") or data.get("open") or data.get("bot")
        ):
            raise ValidationError(
                _('give a seat a "name", a "bot", or "open": true to leave it for someone to join')
            )
        level_needs_a_bot(data)


class WebhookSchema(Schema):
    url = fields.String(required=True, validate=validate.Length(min=8, max=2000))
    events = fields.List(
        fields.String(validate=validate.Length(min=1, max=64)),
        required=True,
        validate=validate.Length(min=1, max=50),
        metadata={
            "description": "Entry types to deliver, e.g. match_started, match_scored; and "
            "rating_changed: a match of the platform rated its players; seek_paired, seek_expired: what "
            "became of the platform's seeks; tournament_round_started, tournament_game_finished, "
            "tournament_finished: its tournaments' changes, with their standings."
        },
    )
    secret = fields.String(
        validate=validate.Length(min=16, max=200),
        metadata={"description": "Signs the deliveries; made by the server when omitted."},
    )
    language = fields.String(
        validate=validate.OneOf(LANGUAGES),
        metadata={
            "description": "The language of the deliveries' texts (each entry's `text`): en (the default), "
            "ko or ja. Machine-readable fields are the same in every language."
        },
    )


class WebhookListedSchema(Schema):
    id = fields.String(required=True)
    url = fields.String(required=True)
    events = fields.List(fields.String(), required=True)
    language = fields.String(
        validate=validate.OneOf(LANGUAGES),
        metadata={
            "description": "The language of the deliveries' texts (each entry's `text`): en (the default), "
            "ko or ja. Machine-readable fields are the same in every language."
        },
    )
    status = fields.String(
        required=True,
        validate=validate.OneOf(["enabled", "disabled"]),
        metadata={
            "description": "disabled: nothing is delivered to it (not even what was queued) until the "
            "platform enables it again (PATCH)."
        },
    )
    disabled_at = fields.String(
        required=True, allow_none=True, metadata={"description": "When it was disabled (UTC, ISO 8601)."}
    )
    disabled_reason = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(["failing"]),
        metadata={
            "description": "failing: its latest deliveries (MATCHLOG_WEBHOOK_DISABLE_AFTER, 5 by default) "
            "each failed every attempt; GET its deliveries for how."
        },
    )


class WebhookPatchSchema(Schema):
    status = fields.String(
        required=True,
        validate=validate.OneOf(["enabled"]),
        metadata={"description": "enabled: deliver again, from the next append on."},
    )


class WebhookCreatedSchema(WebhookListedSchema):
    secret = fields.String(required=True, metadata={"description": "Shown only now."})


class WebhooksSchema(Schema):
    webhooks = fields.List(fields.Nested(WebhookListedSchema), required=True)


class DeliveriesQuerySchema(Schema):
    cursor = fields.String(
        validate=validate.Regexp(r"^[0-9]{1,20}-[0-9]{1,20}$"),
        metadata={"description": "next_cursor of the previous page."},
    )
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))


class DeliveriesSchema(Schema):
    deliveries = fields.List(
        fields.Dict(),
        required=True,
        metadata={"description": "Newest first (typed in service/http/openapi_components.py)."},
    )
    next_cursor = fields.String(
        allow_none=True, required=True, metadata={"description": "null on the last page"}
    )


class AbortSchema(Schema):
    reason = fields.String(
        validate=[validate.Length(min=1, max=200), shown_text], metadata={"description": "Kept in the log."}
    )


class JoinSchema(Schema):
    name = ShownText(required=True)
    player = player_id()


class ReplaceSeatSchema(Schema):
    name = ShownText(
        metadata={"description": "A person plays the seat from now on (a new token comes in the answer)."}
    )
    bot = fields.String(
        validate=validate.Length(min=1, max=64),
        metadata={"description": "A bot plays the seat (the catalogue's bots)."},
    )
    level = fields.Integer(
        validate=validate.Range(min=1, max=3), metadata={"description": "A search bot's strength."}
    )
    player = player_id()

    @validates_schema
    def _one(self, data: dict[str, Any], **kwargs: Any) -> None:
        if bool(data.get("name")) == bool(data.get("bot")):
            raise ValidationError(_('give the seat to a "bot" or to a person by "name"'))
        level_needs_a_bot(data)


class ReplacedSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    bot = fields.String(metadata={"description": "The bot that plays the seat now."})
    level = fields.Integer(metadata={"description": "With bot: its level."})
    token = fields.String(
        metadata={"description": "The person's token, shown only once; the old one stopped working."}
    )
    version = fields.Integer(required=True)


class JoinedSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "Acts for this seat. Shown only once."})
    version = fields.Integer(required=True)
    started = fields.Boolean(required=True, metadata={"description": "This join filled the last open seat."})


class LobbyQuerySchema(Schema):
    status = fields.String(
        validate=validate.OneOf(["open", "active", "finished", "aborted"]),
        metadata={
            "description": "open: matches with a seat someone may still join (without "
            "a platform key: the lobby, public or not)."
        },
    )
    game = fields.String(validate=validate.Length(min=1, max=64))
    cursor = fields.String(
        validate=validate.Regexp(r"^[0-9]{1,16}(\.[0-9]{1,6})?$"),
        metadata={"description": "next_cursor of the previous page."},
    )
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
    order = fields.String(load_default="oldest", validate=validate.OneOf(["oldest", "newest"]))


class Seconds(fields.Float):
    """A JSON number of seconds: marshmallow's Float would also take the string "30"."""

    # marshmallow's Field declares it an instance attribute, which a ClassVar may not override
    default_error_messages = {"invalid": "Not a valid number."}  # noqa: RUF012

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> float:
        if isinstance(value, str):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


class ClockSchema(Schema):
    initial_s = Seconds(
        validate=validate.Range(min=1, max=7 * 24 * 3600),
        metadata={"description": "Fischer: each seat's time for the whole match..."},
    )
    increment_s = Seconds(
        validate=validate.Range(min=0, max=24 * 3600),
        metadata={"description": "... and what each of its moves adds back (default 0)."},
    )
    per_action_s = Seconds(
        validate=validate.Range(min=1, max=7 * 24 * 3600),
        metadata={"description": "Or: a fresh allowance each time the seat is to act."},
    )

    @validates_schema
    def _one_kind(self, data: dict[str, Any], **kwargs: Any) -> None:
        if ("initial_s" in data) == ("per_action_s" in data) or (
            "increment_s" in data and "per_action_s" in data
        ):
            raise ValidationError(_('give "initial_s" (and "increment_s"), or "per_action_s"'))


def on_timeout_needs_a_clock(original: Any) -> None:
    """An ``on_timeout`` other than ``bot`` in a body without a ``clock``: a 400 naming it. (``bot``, the
    default, is what a generated client sends along with every match.)"""
    if isinstance(original, dict) and original.get("on_timeout", "bot") != "bot" and "clock" not in original:
        raise ValidationError(
            _("on_timeout says what happens when a clock runs out: give the match a clock"), "on_timeout"
        )


class ClockFields(Schema):
    """A new match's clock and what its timeouts do, as a seek or challenge asks for them."""

    clock = fields.Nested(ClockSchema, metadata={"description": "The match's turn clocks, as a match's."})
    on_timeout = fields.String(
        load_default="bot",
        validate=validate.OneOf(["pass", "bot", "forfeit"]),
        metadata={"description": "When a seat's clock runs out, as a match's (only with a clock)."},
    )

    @validates_schema(pass_original=True)
    def _on_timeout_needs_a_clock(self, data: dict[str, Any], original: Any, **kwargs: Any) -> None:
        on_timeout_needs_a_clock(original)


class CreateMatchSchema(Schema):
    game = match_game()
    players = fields.List(
        fields.Nested(PlayerSchema),
        required=True,
        validate=validate.Length(min=1, max=16),
        metadata={"description": "One entry per seat, in seat order."},
    )
    options = match_options()
    seed = fields.String(
        validate=validate.Length(min=1, max=256),
        metadata={
            "description": "Extra entropy, mixed into the server's own (at least 128 "
            "bits): all chance in the match comes from the result, secret "
            "until the match ends (only a salted commitment is logged). "
            "With seed_known_to_creator, the match's seed itself."
        },
    )
    seed_known_to_creator = StrictBoolean(
        load_default=False,
        metadata={
            "description": "A deterministic match: `seed` is its seed, so its creator "
            "knows every hidden card. The log and the match say so. Only "
            "with every seat filled now, and never listed: an open seat "
            "or public true is 422 seed_known_to_creator_refused."
        },
    )
    clock = fields.Nested(
        ClockSchema,
        metadata={
            "description": "Turn clocks: the time left of each seat is in the match as every seat sees it."
        },
    )
    on_timeout = fields.String(
        load_default="bot",
        validate=validate.OneOf(["pass", "bot", "forfeit"]),
        metadata={
            "description": "When a seat's clock runs out (only with a clock): a bot takes the seat over, or it passes "
            "or forfeits where the game has such a move (the catalogue's timeouts, which a match's options may "
            "narrow: a pass only where its rules allow one)."
        },
    )
    undo = fields.String(
        load_default="none",
        validate=validate.OneOf(["none", "until_next_action", "with_consent"]),
        metadata={
            "description": "Whether a seat may take back its last move (POST .../undo): "
            "never, at once until the next move, or when the other seats "
            "accept. Never past a move that revealed hidden information."
        },
    )
    public = StrictBoolean(
        metadata={
            "description": "Listed for anyone (GET /v1/matches, the viewer's front page). "
            "Default: true, unless a platform key creates the match."
        }
    )

    @validates_schema(pass_original=True)
    def _on_timeout_needs_a_clock(self, data: dict[str, Any], original: Any, **kwargs: Any) -> None:
        on_timeout_needs_a_clock(original)


class ImportMatchSchema(Schema):
    # record_type's enum is the hosted games' record formats: set in the OpenAPI document when the app is
    # built (service.http.app); the import refuses another with 400 invalid_record
    record_type = fields.String(
        required=True,
        validate=validate.Length(min=1, max=100),
        metadata={"description": "The record's format: a game's record_type in the catalogue."},
    )
    record = fields.String(
        required=True,
        validate=validate.Length(min=1),
        metadata={"description": "The game record, as text (UTF-8), as GET .../record answers it."},
    )


class SeatSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(metadata={"description": "Absent while the seat is open."})
    open = fields.Boolean(metadata={"description": "true: nobody has joined this seat yet."})
    bot = fields.String(
        metadata={
            "description": "The bot that plays this seat, if one does (a name of the catalogue's bots)."
        }
    )
    level = fields.Integer(
        metadata={"description": "With bot: the level its creator chose (none: the bot's default)."}
    )
    player = fields.String(
        metadata={
            "description": "The platform's player id of whoever holds the seat, where it named one: shown "
            "only to the match's platform (its key) and the match's seats (their tokens)."
        }
    )


class SeatTokenSchema(SeatSchema):
    token = fields.String(
        metadata={"description": "Acts for this seat. Shown only once (an open seat's comes with its join)."}
    )
    play_url = fields.String(
        metadata={
            "description": "A person's seat: its page on this server, to hand to whoever plays it (it holds the "
            "token, in the fragment, which browsers never send). Relative to the API's address."
        }
    )


class CreatedMatchSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatTokenSchema), required=True)
    spectate_url = fields.String(
        required=True,
        metadata={
            "description": "The match's page for spectators, on this server. Relative to the API's address."
        },
    )
    creator_token = fields.String(
        metadata={
            "description": "Only for a match created without a platform key, "
            "shown only now: it aborts the match "
            "(POST /v1/matches/{id}/abort with `Authorization: "
            "Bearer <creator token>`)."
        }
    )


class MatchTournamentSchema(Schema):
    id = fields.String(
        required=True, metadata={"description": "The tournament's id: GET /v1/tournaments/{id}."}
    )
    round = fields.Integer(
        required=True, metadata={"description": "The round the match is of (an arena's: its wave)."}
    )


class MatchSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(
        required=True,
        validate=validate.OneOf(["open", "active", "finished", "aborted"]),
        metadata={"description": "open: a seat is still open, nobody acts yet."},
    )
    version = fields.Integer(required=True)
    created_at = fields.String(
        required=True,
        metadata={"format": "date-time", "description": "When the match was created (UTC)."},
    )
    updated_at = fields.String(
        required=True,
        metadata={
            "format": "date-time",
            "description": "When its log last grew (UTC): the time of its latest entry, a move, a join, a "
            "handover, its end or its result.",
        },
    )
    ended_at = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "format": "date-time",
            "description": "When it ended, finished or aborted (UTC); null while it goes on.",
        },
    )
    players = fields.List(fields.Nested(SeatSchema), required=True)
    options = fields.Dict(required=True)
    to_act = fields.List(fields.Integer(), required=True, metadata={"description": "Seats that may act now."})
    seed_known_to_creator = fields.Boolean(
        required=True,
        metadata={"description": "The creator chose the seed: hidden information is known to them."},
    )
    result = fields.Dict(metadata={"description": "Present once the scoring job has recorded the result."})
    analysis = fields.String(
        validate=validate.OneOf(("queued", "running", "done", "failed")),
        metadata={
            "description": "Once the match has ended and someone asked for its analysis: where it stands "
            "(GET /v1/matches/{id}/analysis has it)."
        },
    )
    undo = fields.String(required=True, metadata={"description": "none, until_next_action or with_consent."})
    clock = fields.Dict(
        metadata={
            "description": "Turn clocks: settings, on_timeout, remaining_ms per seat (as of "
            "as_of), and the seats whose clocks run."
        }
    )
    undo_request = fields.Dict(
        metadata={"description": "An undo waiting for the other seats: {seat, to_version, accepted}."}
    )
    tournament = fields.Nested(
        MatchTournamentSchema,
        metadata={
            "description": "A tournament's match: the tournament and round it is played for, as its "
            "match_created says. Anyone may read it, as anyone may read the tournament."
        },
    )


class LobbySchema(Schema):
    matches = fields.List(fields.Nested(MatchSchema), required=True)
    next_cursor = fields.String(
        allow_none=True, required=True, metadata={"description": "null on the last page"}
    )


class StateQuerySchema(Schema):
    seat = SeatAsked
    version = fields.Integer(
        validate=validate.Range(min=1, max=MAX_VERSION),
        metadata={"description": "An earlier version; the latest when omitted."},
    )


class StateSchema(Schema):
    game = fields.String(required=True, metadata={"description": "The match's game."})
    version = fields.Integer(required=True)
    state = fields.Dict(required=True, metadata={"description": "The game state as the caller may see it."})
    clock = fields.Dict(
        metadata={
            "description": "A clocked match's clocks at that version, as every seat sees "
            "them: remaining_ms per seat (the running ones charged up to "
            "now for the latest version), running seats, settings."
        }
    )


class SeatQuerySchema(Schema):
    seat = SeatAsked


class LegalActionsQuerySchema(SeatQuerySchema):
    text = fields.Boolean(
        load_default=False,
        metadata={
            "description": "With true, `texts` gives each listed action in the words its log entry will "
            "use once taken (the entry's `text`), for a person, a screen reader or a chat bot to pick it by."
        },
    )


class SubmitActionSchema(Schema):
    game = fields.String(
        validate=validate.Length(min=1, max=64),
        metadata={"description": "The match's game, if the client says it (another game's is refused)."},
    )
    expected_version = fields.Integer(
        strict=True,
        required=True,
        validate=validate.Range(min=1, max=MAX_VERSION),
        metadata={"description": "The version the action was chosen at."},
    )
    action = fields.Dict(
        required=True,
        metadata={
            "description": "The action, in the shape of the match's game (one of Action's shapes, named after "
            "the game: `<Game>Action`); legal-actions lists them ready to post.",
            "allOf": [{"$ref": "#/components/schemas/Action"}],
        },
    )


IDEMPOTENCY_KEY_LENGTH = validate.Length(min=1, max=128)
"""An ``Idempotency-Key``'s bounds (the action POST's handler checks them without the schema)."""


class IdempotencyHeaderSchema(Schema):
    idempotency_key = fields.String(
        data_key="Idempotency-Key",
        validate=IDEMPOTENCY_KEY_LENGTH,
        metadata={
            "description": "A retry with the same key (and the same body) "
            "within the retention window (24 h by default) gets "
            "the first answer back and changes nothing; the same "
            "key with another body is 422 "
            "idempotency_key_reused; while the first is still "
            "running, 409 idempotency_key_in_progress. Keys are "
            "scoped by endpoint and by caller (seat token, "
            "platform, creator token); where there is no caller "
            "(an anonymous create, a join) the key itself is the "
            "client's secret, the only thing that keeps a stranger "
            "from the first answer's tokens: it must then be random "
            "and at least 21 characters long (a UUID), or the "
            "request is 400 invalid_request."
        },
    )


class EventSchema(Schema):
    version = fields.Integer(required=True)
    type = fields.String(required=True)
    seat = fields.Integer(required=True, allow_none=True)
    data = fields.Dict(required=True)
    at = fields.String(required=True, metadata={"description": "When it was appended (UTC, ISO 8601)."})
    hash = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "SHA-256 of the previous entry's hash, a newline and this entry's canonical JSON "
            "[version, type, seat, data, at] (sorted keys, no spaces, UTF-8): the hash chain. For "
            "an entry with `commitment`, the canonical JSON is [version, type, seat, public_data, at, "
            "commitment] instead, so that the hash tells nothing about what is hidden. null in logs "
            "written before the chain, and, in a hidden-information match whose log predates "
            "commitments, until the seed is revealed."
        },
    )
    public_data = fields.Dict(
        metadata={
            "description": "Only on an entry part of whose data is hidden from some viewer: its data as a "
            "spectator sees it, which the hash chain covers in place of `data`."
        }
    )
    commitment = fields.String(
        metadata={
            "description": "Only on an entry part of whose data is hidden from some viewer: HMAC-SHA256 (hex) of "
            "the canonical JSON [version, type, seat, data] of the whole entry, under a key that "
            "stays secret until `seed_revealed` (HMAC-SHA256 keyed with the salt, of "
            '"matchlog commitments\\n" and the seed). Check it once the seed is revealed.'
        }
    )
    text = fields.String(
        metadata={
            "description": 'The entry in plain words, as this view shows it ("blue placed F5 '
            'at c3"); not part of the hash chain.'
        }
    )


class AcceptedSchema(Schema):
    game = fields.String(required=True, metadata={"description": "The match's game."})
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)


class EventsQuerySchema(Schema):
    seat = SeatAsked
    after = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_VERSION),
        metadata={"description": "Entries with a version above this."},
    )
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))


class StreamQuerySchema(Schema):
    seat = SeatAsked
    after = fields.Integer(
        validate=validate.Range(min=0, max=MAX_VERSION),
        metadata={
            "description": "Start after this version (default 0); a reconnect's Last-Event-ID wins over it."
        },
    )


class EventsSchema(Schema):
    game = fields.String(required=True, metadata={"description": "The match's game."})
    version = fields.Integer(required=True, metadata={"description": "The match's current version."})
    events = fields.List(fields.Nested(EventSchema), required=True)


class SigningKeySchema(Schema):
    algorithm = fields.String(required=True, metadata={"description": "Ed25519"})
    public_key = fields.String(required=True, metadata={"description": "Raw public key, base64url."})


class CheckpointSchema(Schema):
    match = fields.String(required=True)
    version = fields.Integer(required=True)
    hash = fields.String(
        required=True, allow_none=True, metadata={"description": "The hash of entry `version`."}
    )
    signed_at = fields.String(required=True)
    algorithm = fields.String(required=True, metadata={"description": "Ed25519"})
    public_key = fields.String(required=True, metadata={"description": "The server's key, raw, base64url."})
    signature = fields.String(
        required=True,
        metadata={
            "description": "Ed25519 signature (base64url) of the JSON {hash, match, version}, sorted keys, no spaces."
        },
    )


EXPORT_LIMIT = 20
"""The most matches an export's page holds (``service.application.exports``): each comes with its whole log (a
long match's is some 100 entries)."""


class ExportQuerySchema(Schema):
    game = fields.String(
        validate=validate.Length(min=1, max=64), metadata={"description": "Only this game's matches."}
    )
    cursor = fields.String(
        validate=validate.Regexp(r"^[0-9]{1,16}(\.[0-9]{1,6})?$"),
        metadata={"description": "next_cursor of the previous page."},
    )
    limit = fields.Integer(
        load_default=10,
        validate=validate.Range(min=1, max=EXPORT_LIMIT),
        metadata={"description": "How many matches, at most: each comes with its whole log."},
    )


class ExportedRecordSchema(Schema):
    type = fields.String(
        required=True,
        metadata={
            "description": "The record's MIME type (the game's record format, as `GET /v1/games` lists it)."
        },
    )
    text = fields.String(
        required=True, metadata={"description": "The record, as GET /v1/matches/{match_id}/record gives it."}
    )


class ExportedMatchSchema(Schema):
    match = fields.Nested(
        MatchSchema, required=True, metadata={"description": "The match, as GET /v1/matches lists it."}
    )
    log = fields.List(
        fields.Nested(EventSchema),
        required=True,
        metadata={
            "description": "Its whole log, oldest first, as GET /v1/matches/{match_id}/log gives it to a "
            "spectator (the seed is revealed: every entry is shown whole), up to the match's version."
        },
    )
    record = fields.Nested(
        ExportedRecordSchema,
        metadata={"description": "Its game record, in its game's format; absent for a game without one."},
    )


class ExportSchema(Schema):
    matches = fields.List(fields.Nested(ExportedMatchSchema), required=True)
    next_cursor = fields.String(
        allow_none=True, required=True, metadata={"description": "null on the last page"}
    )


class JobAcceptedSchema(Schema):
    job_id = fields.String(required=True)


class JobSchema(Schema):
    game = fields.String(required=True, metadata={"description": "The match's game."})
    id = fields.String(required=True)
    status = fields.String(required=True, metadata={"description": "queued, started, finished, failed, ..."})
    result = fields.Dict(
        metadata={
            "description": "The job's return value, once finished: the result (final "
            "false before the end; then, in a game with hidden "
            "information, only withheld: hidden_information)."
        }
    )
    error = fields.String(metadata={"description": "Why the job failed."})


class CursorPageQuerySchema(Schema):
    cursor = fields.String(
        validate=validate.Length(max=200),
        metadata={"description": "The next_cursor of the page before: the page after it."},
    )
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))


class LeaderboardQuerySchema(CursorPageQuerySchema):
    pool = fields.String(
        validate=validate.Length(min=1, max=200),
        metadata={
            "description": "The rating pool (the answer's pools lists the game's): the game's variant or mode and "
            "its seats, such as `<game>:<variant>:2p`. By default the pool with the most rated players."
        },
    )


class RatingFields(Schema):
    mu = fields.Float(
        required=True,
        metadata={"description": "The rating's mean (openskill Plackett-Luce; 25 to begin with)."},
    )
    sigma = fields.Float(required=True, metadata={"description": "Its uncertainty (25/3 to begin with)."})
    rating = fields.Float(
        required=True,
        metadata={"description": "mu - 3 sigma: the conservative rating leaderboards order by."},
    )


class LeaderboardRowSchema(RatingFields):
    place = fields.Integer(required=True)
    player = fields.String(
        required=True, metadata={"description": "The platform's player id (`bot:<bot>` for a bot)."}
    )
    games = fields.Integer(required=True, metadata={"description": "Rated matches in this pool."})


class LeaderboardSchema(Schema):
    game = fields.String(required=True)
    pool = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The pool shown (null: the game has no rated match yet)."},
    )
    pools = fields.List(
        fields.String(), required=True, metadata={"description": "The game's pools with ratings."}
    )
    players = fields.List(fields.Nested(LeaderboardRowSchema), required=True)
    next_cursor = fields.String(required=True, allow_none=True)


class SeatRecordSchema(Schema):
    seat = fields.Integer(required=True)
    games = fields.Integer(required=True)
    wins = fields.Integer(required=True)


class PoolRecordSchema(RatingFields):
    pool = fields.String(required=True)
    game = fields.String(required=True)
    games = fields.Integer(required=True)
    wins = fields.Integer(
        required=True, metadata={"description": "Rated matches ranked first (a shared first too)."}
    )
    average_rank = fields.Float(required=True, allow_none=True)
    by_seat = fields.List(fields.Nested(SeatRecordSchema), required=True)


class PlayerProfileSchema(Schema):
    player = fields.String(required=True)
    pools = fields.List(fields.Nested(PoolRecordSchema), required=True)


class PlayerMatchesQuerySchema(CursorPageQuerySchema):
    status = fields.String(
        validate=validate.OneOf(["active", "finished"]),
        metadata={
            "description": "The player's matches by status, rated or not: `active`, those not over (open or "
            "active), newest seat first; `finished`, the newest 1,000 that ended (finished or aborted), "
            "newest end first. Without it: the player's rated matches."
        },
    )


RATED_ONLY = "Rated matches only (without `status`): "
BY_STATUS_ONLY = "With `status` only: "


class PlayerMatchSchema(Schema):
    match = fields.String(required=True)
    game = fields.String(required=True)
    seat = fields.Integer(required=True, metadata={"description": "The seat the player holds."})
    mu = fields.Float(metadata={"description": RATED_ONLY + "the rating's mean (openskill Plackett-Luce)."})
    sigma = fields.Float(metadata={"description": RATED_ONLY + "its uncertainty."})
    rating = fields.Float(metadata={"description": RATED_ONLY + "mu - 3 sigma."})
    pool = fields.String(metadata={"description": RATED_ONLY + "the rating pool."})
    ended_ms = fields.Integer(
        metadata={"description": RATED_ONLY + "when the game ended, ms since the epoch."}
    )
    rank = fields.Integer(metadata={"description": RATED_ONLY + "the seat's rank."})
    players = fields.Integer(metadata={"description": RATED_ONLY + "rated seats in the match."})
    status = fields.String(
        validate=validate.OneOf(["open", "active", "finished", "aborted"]),
        metadata={"description": BY_STATUS_ONLY + "the match's status."},
    )
    version = fields.Integer(
        metadata={"description": BY_STATUS_ONLY + "the match's version (an action expects it)."}
    )
    to_act = fields.List(
        fields.Integer(), metadata={"description": BY_STATUS_ONLY + "the seats that may act now."}
    )
    created_at = fields.String(
        metadata={"format": "date-time", "description": BY_STATUS_ONLY + "when the match was created."}
    )
    updated_at = fields.String(
        metadata={"format": "date-time", "description": BY_STATUS_ONLY + "the time of its latest entry."}
    )
    ended_at = fields.String(
        allow_none=True,
        metadata={
            "format": "date-time",
            "description": BY_STATUS_ONLY + "when it ended; null while it goes on.",
        },
    )


class PlayerMatchesSchema(Schema):
    player = fields.String(required=True)
    matches = fields.List(
        fields.Nested(PlayerMatchSchema),
        required=True,
        metadata={
            "description": "Newest first; a rated match's mu, sigma and rating as the match left it, a match "
            "listed by status as it stands now."
        },
    )
    next_cursor = fields.String(required=True, allow_none=True)


CLASSIFICATIONS = ("best", "good", "inaccuracy", "mistake", "blunder")
ACTION_REF = {"allOf": [{"$ref": "#/components/schemas/Action"}]}


class AnalysedMoveSchema(Schema):
    version = fields.Integer(
        required=True, metadata={"description": "The version of the action's first entry in the log."}
    )
    seat = fields.Integer(required=True)
    action = fields.Dict(
        required=True, metadata={"description": "The action the seat played, as it was posted.", **ACTION_REF}
    )
    alternatives = fields.Integer(
        required=True,
        metadata={"description": "How many legal actions the seat had, as far as it could see."},
    )
    forced = fields.Boolean(
        required=True, metadata={"description": "The only legal action: best, and left out of the accuracy."}
    )
    loss = fields.Float(
        required=True,
        metadata={"description": "Points below the best action found (0: the played one is best)."},
    )
    classification = fields.String(required=True, validate=validate.OneOf(CLASSIFICATIONS))
    value = fields.Float(
        metadata={
            "description": "The played action's value for the seat, in the game's points (not when forced)."
        }
    )
    best_value = fields.Float(metadata={"description": "The best value found (not when forced)."})
    best_action = fields.Dict(
        metadata={
            "description": "The best action found, from what the seat could see (not when forced).",
            **ACTION_REF,
        }
    )


class AnalysedSeatSchema(Schema):
    seat = fields.Integer(required=True)
    actions = fields.Integer(
        required=True, metadata={"description": "Actions analysed, forced ones included."}
    )
    forced = fields.Integer(required=True)
    accuracy = fields.Float(
        required=True,
        allow_none=True,
        metadata={
            "description": "0 to 100: the mean of 100 exp(-loss / 5) over the seat's unforced actions "
            "(null: none)."
        },
    )
    average_loss = fields.Float(required=True, allow_none=True)
    classifications = fields.Dict(
        keys=fields.String(validate=validate.OneOf(CLASSIFICATIONS)),
        values=fields.Integer(),
        required=True,
        metadata={"description": "How many unforced actions fell in each class."},
    )


class AnalysisResultSchema(Schema):
    game = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "The log version analysed (its last)."})
    method = fields.String(required=True, metadata={"description": "How the game's analyst values a choice."})
    thresholds = fields.Dict(
        keys=fields.String(validate=validate.OneOf(CLASSIFICATIONS[:-1])),
        values=fields.Float(),
        required=True,
        metadata={"description": "Each class's largest loss, in points; above mistake's: blunder."},
    )
    seats = fields.List(fields.Nested(AnalysedSeatSchema), required=True)
    moves = fields.List(
        fields.Nested(AnalysedMoveSchema), required=True, metadata={"description": "In log order."}
    )


class AnalysisProgressSchema(Schema):
    done = fields.Integer(required=True)
    total = fields.Integer(required=True, metadata={"description": "0 until the job has read the log."})


class AnalysisSchema(Schema):
    match = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(("queued", "running", "done", "failed")))
    job_id = fields.String(
        required=True, metadata={"description": "The background job that analyses the match."}
    )
    progress = fields.Nested(AnalysisProgressSchema, required=True)
    requested_at = fields.String(required=True)
    finished_at = fields.String(metadata={"description": "Once done."})
    analysis = fields.Nested(
        AnalysisResultSchema, metadata={"description": "Once done; kept, never recomputed."}
    )
    error = fields.String(metadata={"description": "Why it failed (failed: asking again retries)."})


# -- players meet: seeks, challenges, rematches (docs/howto/seeks-and-challenges.md) ---------------------------


class CreateSeekSchema(ClockFields):
    game = match_game()
    players = fields.Integer(
        load_default=2,
        validate=validate.Range(min=2, max=5),
        metadata={"description": "How many players the match is for (one of the game's player_counts)."},
    )
    options = match_options()
    name = ShownText(metadata={"description": "The seat's name in the match (default: the player id)."})
    player = player_id()
    rated = StrictBoolean(
        load_default=False,
        metadata={
            "description": "Paired by the player's rating in the match's rating pool, and the match rated "
            "(a platform's player only). Seeks meet only rated with rated."
        },
    )
    bot = StrictBoolean(
        load_default=False,
        metadata={"description": "The seeking player is a bot (a program, not a person)."},
    )
    bots_allowed = StrictBoolean(
        load_default=False,
        metadata={
            "description": "Bots may be among the opponents. A bot's seek meets another only where both "
            "allowed bots: nobody plays a bot who did not ask to."
        },
    )


SEEK_STATUSES = ["open", "paired", "cancelled", "expired"]


class SeekSchema(Schema):
    id = fields.String(required=True)
    game = match_game(asked=False)
    players = fields.Integer(required=True, metadata={"description": "How many players the match is for."})
    options = match_options(asked=False)
    name = fields.String(required=True, metadata={"description": "The seat's name in the match."})
    player = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The platform's player id (null: anonymous)."},
    )
    rated = fields.Boolean(required=True)
    rating = fields.Float(
        required=True,
        metadata={
            "description": "What the seek is paired by: 1500 + 40 * (mu - 25) of the player's rating in the "
            "match's pool (1500 unrated). Seeks meet within 100 of each other at once, 20 more a second "
            "waited, at most 700."
        },
    )
    bot = fields.Boolean(required=True, metadata={"description": "The seeking player is a bot."})
    bots_allowed = fields.Boolean(required=True, metadata={"description": "Bots may be among the opponents."})
    clock = fields.Nested(ClockSchema, required=True, allow_none=True)
    on_timeout = fields.String(
        required=True, allow_none=True, validate=validate.OneOf(["pass", "bot", "forfeit"])
    )
    status = fields.String(
        required=True,
        validate=validate.OneOf(SEEK_STATUSES),
        metadata={
            "description": "open: waiting; paired: match says which match, seat which seat; cancelled by its "
            "owner; expired (reason says why)."
        },
    )
    reason = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "Why it expired: no_opponent_in_time (10 minutes without a match)."},
    )
    created_at = fields.String(required=True, metadata={"format": "date-time"})
    expires_at = fields.String(
        required=True, metadata={"format": "date-time", "description": "When it expires if still open."}
    )
    match = fields.String(required=True, allow_none=True, metadata={"description": "The match, once paired."})
    seat = fields.Integer(required=True, allow_none=True, metadata={"description": "Its seat in the match."})
    token = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "Once paired, the seat's token: shown to the seek's owner only (its platform's key, "
            "or its owner_token), null to anyone else."
        },
    )


class CreatedSeekSchema(SeekSchema):
    owner_token = fields.String(
        metadata={
            "description": "A seek made without a platform key: the token that reads its seat's token and "
            "cancels it (`Authorization: Bearer <owner token>`), shown only now."
        }
    )


class SeeksSchema(Schema):
    seeks = fields.List(fields.Nested(SeekSchema), required=True)
    next_cursor = fields.String(required=True, allow_none=True)


CHALLENGE_STATUSES = ["open", "started", "declined", "cancelled", "expired"]


class CreateChallengeSchema(ClockFields):
    challenger = player_id(required=True)
    challenged = fields.List(
        player_id(),
        required=True,
        validate=validate.Length(min=1, max=4),
        metadata={
            "description": "The platform's players challenged, by id: the match has a seat for each of them "
            "and one for the challenger."
        },
    )
    game = match_game()
    options = match_options()
    names = fields.Dict(
        keys=fields.String(validate=validate.Length(min=1, max=128)),
        values=ShownText(),
        load_default=dict,
        validate=validate.Length(max=5),
        metadata={"description": "A seat name per player id (default: the id)."},
    )
    rated = StrictBoolean(
        load_default=True,
        metadata={"description": "The match carries the players' ids, and so is rated (false: names only)."},
    )


class ChallengeAnswerSchema(Schema):
    player = player_id(required=True)


class ChallengeSchema(Schema):
    id = fields.String(required=True)
    challenger = fields.String(required=True)
    challenged = fields.List(fields.String(), required=True)
    accepted = fields.List(fields.String(), required=True, metadata={"description": "Who accepted so far."})
    game = match_game(asked=False)
    options = match_options(asked=False)
    rated = fields.Boolean(required=True)
    clock = fields.Nested(ClockSchema, required=True, allow_none=True)
    on_timeout = fields.String(
        required=True, allow_none=True, validate=validate.OneOf(["pass", "bot", "forfeit"])
    )
    status = fields.String(
        required=True,
        validate=validate.OneOf(CHALLENGE_STATUSES),
        metadata={
            "description": "open until every challenged player accepts (started), one declines (declined), "
            "the challenger withdraws (cancelled) or a day passes (expired)."
        },
    )
    declined_by = fields.String(required=True, allow_none=True)
    created_at = fields.String(required=True, metadata={"format": "date-time"})
    expires_at = fields.String(required=True, metadata={"format": "date-time"})
    match = fields.String(
        required=True, allow_none=True, metadata={"description": "The match, once started."}
    )
    seats = fields.List(
        fields.Nested(SeatTokenSchema),
        required=True,
        metadata={
            "description": "Once started, the match's seats with their tokens (for the platform to hand out)."
        },
    )


class ChallengesQuerySchema(CursorPageQuerySchema):
    player = player_id(required=True)


class ChallengesSchema(Schema):
    challenges = fields.List(fields.Nested(ChallengeSchema), required=True)
    next_cursor = fields.String(required=True, allow_none=True)


class RematchOfferSchema(Schema):
    match = fields.String(required=True, metadata={"description": "The finished match it is a rematch of."})
    seats = fields.Integer(required=True)
    accepted = fields.List(
        fields.Integer(),
        required=True,
        metadata={"description": "The seats (of the finished match) that accepted."},
    )
    status = fields.String(required=True, validate=validate.OneOf(["open", "started"]))
    rematch = fields.String(
        required=True, allow_none=True, metadata={"description": "The new match, once started."}
    )
    seat = fields.Integer(
        required=True, allow_none=True, metadata={"description": "The asking seat's seat in the new match."}
    )
    token = fields.String(
        required=True, allow_none=True, metadata={"description": "The asking seat's token in the new match."}
    )


# -- tournaments (service.http.tournament_routes) --------------------------------------------------------------

TOURNAMENT_KINDS = ["round_robin", "swiss", "single_elimination", "double_elimination", "arena"]


class CreateTournamentSchema(Schema):
    name = ShownText(
        required=True, metadata={"description": "What the tournament is called, shown to players."}
    )
    kind = fields.String(
        required=True,
        validate=validate.OneOf(TOURNAMENT_KINDS),
        metadata={
            "description": "round_robin (every pair, or every pod, meets once), swiss (FIDE Dutch for two "
            "players, score groups with rematch avoidance and seat balance for pods), single_elimination or "
            "double_elimination (a seeded bracket of two-player meetings) or arena (two-player games paired "
            "continuously over a window of duration_minutes): docs/reference/pairing.md."
        },
    )
    game = match_game()
    options = match_options("Every match's")
    players_per_match = fields.Integer(
        load_default=2,
        validate=validate.Range(min=2, max=5),
        metadata={
            "description": "Players in each match: 2, or a pod of 3 to 5 (the game must take as many); a "
            "knockout's are 2."
        },
    )
    rounds = fields.Integer(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=1, max=50),
        metadata={
            "description": "A Swiss's rounds (required for one); a round robin plays its schedule and a "
            "knockout its bracket: none."
        },
    )
    rated = StrictBoolean(
        load_default=True,
        metadata={"description": "The matches carry the players' ids, and so are rated (false: names only)."},
    )
    bots_allowed = StrictBoolean(
        load_default=False, metadata={"description": "Whether a bot may be registered to play in it."}
    )
    max_players = fields.Integer(
        load_default=1000,
        validate=validate.Range(min=2, max=1000),
        metadata={
            "description": "The largest field (a round robin's is bounded by its schedule of at most 2,016 "
            "games: 64 players in pairs, 23 in pods of three, 16 of four, 14 of five)."
        },
    )

    duration_minutes = fields.Integer(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=1, max=1440),
        metadata={
            "description": "An arena's window (required for one, none for another kind): it opens with its "
            "first pairings (POST .../rounds) and pairs no more after this many minutes."
        },
    )
    knockout_draws = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.OneOf(KNOCKOUT_DRAWS),
        metadata={
            "description": "A knockout's drawn meeting (none for another kind): `higher_seed` (the default) goes "
            "through, or `replay`: the meeting is played again in the next round, seats swapped, at most twice, "
            "then the higher seed goes through."
        },
    )
    starts_at = fields.AwareDateTime(
        format="iso",
        load_default=None,
        allow_none=True,
        metadata={
            "description": "The schedule: when the first round starts by itself (an arena: its window opens), "
            "with its time zone (`Z` for UTC); later than now, at most 90 days ahead. The organiser may still "
            "start it earlier (POST .../rounds). None: the organiser starts it."
        },
    )
    round_interval = fields.Integer(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=0, max=604800),
        metadata={
            "description": "The schedule: the seconds from a round's last result to the next round's start, "
            "which then starts by itself (0: at once; at most a week); not for an arena. None: the organiser "
            "starts each round after the first."
        },
    )

    @validates_schema
    def _knockout_of_two(self, data: dict[str, Any], **kwargs: Any) -> None:
        if (data.get("kind", "").endswith("_elimination") or data.get("kind") == "arena") and data.get(
            "players_per_match", 2
        ) != 2:
            raise ValidationError(
                _("a knockout's meetings are of two players: give 2"), field_name="players_per_match"
            )


class TournamentPlayerSchema(Schema):
    player = player_id(required=True)
    name = ShownText(metadata={"description": "The player's seat name in its matches (default: the id)."})
    bot = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Length(min=1, max=64),
        metadata={
            "description": "A bot of the game (GET /v1/games) that plays this entry, where the tournament "
            "allows bots; the seat says so in every match."
        },
    )


class TournamentEntrantSchema(Schema):
    player = fields.String(required=True)
    name = fields.String(required=True)
    rating = fields.Float(
        required=True,
        metadata={
            "description": "What the seeding orders by: 1500 + 40 * (mu - 25) of its rating, 1500 unrated."
        },
    )
    bot = fields.String(
        required=True, allow_none=True, metadata={"description": "The bot that plays it, if one."}
    )
    withdrawn = fields.Boolean(required=True)
    joined_round = fields.Integer(
        required=True, metadata={"description": "Rounds started before it registered (a late entry's)."}
    )


class TournamentStandingSchema(Schema):
    place = fields.Integer(required=True)
    player = fields.String(required=True)
    points = fields.String(required=True, metadata={"description": "An exact fraction: 1, 1/2, 7/2."})
    buchholz = fields.String(required=True)
    sonneborn_berger = fields.String(required=True)
    wins = fields.Integer(required=True)
    games = fields.Integer(required=True)
    byes = fields.Integer(required=True)


class TournamentMatchSchema(Schema):
    match = fields.String(required=True)
    players = fields.List(fields.String(), required=True, metadata={"description": "In seat order."})
    ranks = fields.List(
        fields.Integer(),
        required=True,
        allow_none=True,
        metadata={"description": "Each player's finishing rank once the match ended (1 best, ties equal)."},
    )
    seats = fields.List(
        fields.Nested(SeatTokenSchema),
        metadata={"description": "For the tournament's platform only: the match's seats and their tokens."},
    )


class TournamentByeSchema(Schema):
    player = fields.String(required=True)
    points = fields.String(required=True)


class TournamentRoundSchema(Schema):
    number = fields.Integer(required=True)
    matches = fields.List(fields.Nested(TournamentMatchSchema), required=True)
    byes = fields.List(fields.Nested(TournamentByeSchema), required=True)
    complete = fields.Boolean(required=True, metadata={"description": "Every match of the round has ended."})


class TournamentMeetingSchema(Schema):
    meeting = fields.String(
        required=True,
        metadata={
            "description": "`W2-1`: the winners' bracket's round 2, its first meeting; `L3-1`: the losers' "
            "bracket's; `GF`: the grand final; `GF2`: its deciding game, played only if the losers' bracket's "
            "winner takes `GF`."
        },
    )
    players = fields.List(
        fields.String(allow_none=True),
        required=True,
        metadata={"description": "Its two sides in seat order; null: not known yet, or nobody (a bye)."},
    )
    winner = fields.String(required=True, allow_none=True, metadata={"description": "Who went through."})
    match = fields.String(
        required=True, allow_none=True, metadata={"description": "The match that decided it, if one did."}
    )
    walkover = fields.Boolean(
        required=True,
        metadata={"description": "Decided without a game: a withdrawn player's opponent went on."},
    )


class TournamentBracketSchema(Schema):
    seeds = fields.List(
        fields.String(),
        required=True,
        metadata={
            "description": "The field in seed order (rating, then the seed), as the first round recorded it."
        },
    )
    meetings = fields.List(fields.Nested(TournamentMeetingSchema), required=True)
    champion = fields.String(required=True, allow_none=True)


class TournamentSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(TOURNAMENT_KINDS))
    game = match_game(asked=False)
    options = match_options("Every match's", asked=False)
    players_per_match = fields.Integer(required=True)
    rounds = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "The rounds it plays (a round robin's: known once its first round started)."
        },
    )
    rated = fields.Boolean(required=True)
    bots_allowed = fields.Boolean(required=True)
    max_players = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["registering", "playing", "finished"]))
    version = fields.Integer(required=True, metadata={"description": "The log's version (its entries)."})
    seed_commitment = fields.String(required=True, metadata={"description": "SHA-256 (hex) of the seed."})
    seed = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The seed, revealed when the tournament finishes."},
    )
    players = fields.List(fields.Nested(TournamentEntrantSchema), required=True)
    standings = fields.List(
        fields.Nested(TournamentStandingSchema),
        required=True,
        metadata={
            "description": "Best first. Final once finished (as the log records them); before, provisional, with "
            "ties past the tie-breaks ordered by the seed's commitment, not the secret seed."
        },
    )
    current_round = fields.Nested(TournamentRoundSchema, required=True, allow_none=True)
    bracket = fields.Nested(TournamentBracketSchema, required=True, allow_none=True)
    duration_minutes = fields.Integer(
        required=True, allow_none=True, metadata={"description": "An arena's window."}
    )
    knockout_draws = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(KNOCKOUT_DRAWS),
        metadata={"description": "What a knockout makes of a drawn meeting (null for another kind)."},
    )
    closes = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "When an arena's window closes (UTC, `YYYY-MM-DDTHH:MM:SS`), once it opened."
        },
    )
    starts_at = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The schedule's first round (UTC, `YYYY-MM-DDTHH:MM:SS`), if it has one."},
    )
    round_interval = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "The schedule's seconds from a round's last result to the next round's start."
        },
    )
    next_round_at = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "When the schedule starts the next round (UTC, `YYYY-MM-DDTHH:MM:SS`): a time passed "
            "means as soon as the field can be paired. None while a game of the round runs, when the organiser "
            "starts it, and once finished."
        },
    )


class TournamentCheckpointSchema(Schema):
    tournament = fields.String(required=True)
    version = fields.Integer(required=True)
    hash = fields.String(required=True, metadata={"description": "The hash of entry `version`."})
    signed_at = fields.String(required=True)
    algorithm = fields.String(required=True, metadata={"description": "Ed25519"})
    public_key = fields.String(required=True, metadata={"description": "The server's key, raw, base64url."})
    signature = fields.String(
        required=True,
        metadata={
            "description": "Ed25519 signature (base64url) of the JSON {hash, tournament, version}, sorted keys, "
            "no spaces."
        },
    )


class TournamentLogQuerySchema(Schema):
    after = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_VERSION),
        metadata={"description": "Entries with a version above this."},
    )
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))


class TournamentStreamQuerySchema(Schema):
    after = fields.Integer(
        validate=validate.Range(min=0, max=MAX_VERSION),
        metadata={
            "description": "Start after this version (default 0); a reconnect's Last-Event-ID wins over it."
        },
    )


class TournamentLogSchema(Schema):
    tournament = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "The log's current version."})
    entries = fields.List(fields.Nested(EventSchema), required=True)
