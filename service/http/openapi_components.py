"""The typed part of ``openapi.yaml``: what each game shows (its ``Contract``: view, events, result, content,
beside its ``options_schema``) and the server's own entries, as OpenAPI 3.0 components.

For a game whose component prefix is ``Chess`` (a game ``chess``: ``service.games.action_component``
without ``Action``), say:

``ChessView``, ``ChessOptions``, ``ChessResult``, ``ChessContent``
    The game's own schemas, from JSON Schema into OpenAPI 3.0 (``openapi30``).
``Chess<Type>Entry`` (``ChessMovedEntry``, ``ChessSeatJoinedEntry``...), ``ChessEntry``
    A log entry of each type, its ``data`` (and ``public_data``) typed; ``ChessEntry`` is one of them, told
    apart by ``type`` (a discriminator).
``ChessFeedEntry``
    An entry as the live feed sends it, alone: with the match's ``game``.
``ChessState``, ``ChessEvents``, ``ChessMatch``, ``ChessJob``, ``ChessWebhookDelivery``
    The answers that carry the game's data, each with the match's ``game``. ``State``, ``Events``,
    ``Accepted``, ``Match``, ``Job``, ``FeedEntry`` and ``WebhookDelivery`` are one of the games' shapes,
    told apart by ``game`` (a discriminator), so a client narrows on ``game`` and then on an entry's
    ``type``. ``Event`` (a line of ``/log``, which carries no ``game``) is any of the games' entries.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from typing import Any

from service.domain.replay import SHELL_EVENTS
from service.games import action_component
from service.games.protocol import ActionNames, Game
from service.store.webhooks import OUTCOMES

REF = "#/components/schemas/"


def prefix(game: Game) -> str:
    return action_component(game).removesuffix("Action")


def ref(name: str) -> dict[str, str]:
    return {"$ref": REF + name}


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def openapi30(schema: Any) -> Any:
    """A JSON Schema (``type`` lists with ``"null"``, ``const``, ``anyOf`` with a null branch) as an OpenAPI 3.0
    schema (``nullable``, ``enum``)."""
    if isinstance(schema, list):
        return [openapi30(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("$comment", "$schema"):
            continue
        if key in ("properties", "patternProperties"):
            out[key] = {name: openapi30(item) for name, item in value.items()}
        elif key in ("items", "additionalProperties", "not") and isinstance(value, dict):
            out[key] = openapi30(value)
        elif key in ("anyOf", "oneOf", "allOf"):
            out[key] = [openapi30(item) for item in value]
        elif key == "const":
            out["enum"] = [value]
            if type(value) in (str, bool, int, float) and "type" not in schema:
                out["type"] = {str: "string", bool: "boolean", int: "integer", float: "number"}[type(value)]
        else:
            out[key] = copy.deepcopy(value)
    kinds_of = {str: "string", bool: "boolean", int: "integer", float: "number"}
    values = [v for v in out.get("enum", []) if v is not None]
    if "type" not in out and len({type(v) for v in values}) > 1:  # ["random", 0, 1]: one enum a type
        by_type: dict[str, list] = {}
        for value in values:
            by_type.setdefault(kinds_of[type(value)], []).append(value)
        if None in out.pop("enum"):
            out["nullable"] = True
        out["anyOf"] = [{"type": kind, "enum": listed} for kind, listed in by_type.items()]
    elif "type" not in out and values and all(type(v) is bool for v in values):
        out["type"] = "boolean"  # [false, true] alone: generated clients need the type to read it
    kind = out.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        if "null" in kind:
            out["nullable"] = True
        if len(kinds) == 1:
            out["type"] = kinds[0]
        else:
            del out["type"]
            out["anyOf"] = [{"type": k} for k in kinds]
    elif kind == "null":
        del out["type"]
        out.update(nullable=True, enum=[None])
    for key in ("anyOf", "oneOf"):
        if key in out:
            branches = [b for b in out[key] if b != {"nullable": True, "enum": [None]}]
            if len(branches) < len(out[key]):
                out["nullable"] = True
                out[key] = branches
            if len(out[key]) == 1 and key == "anyOf":
                only = out.pop(key)[0]
                out = {**only, **out} if "$ref" not in only else {**out, "allOf": [only]}
    if out.get("nullable") and "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def _closed(
    properties: dict[str, Any], required: Iterable[str], description: str | None = None
) -> dict[str, Any]:
    schema = {
        "type": "object",
        "properties": properties,
        "required": sorted(required),
        "additionalProperties": False,
    }
    return {**schema, "description": description} if description else schema


INT, STR, BOOL = {"type": "integer"}, {"type": "string"}, {"type": "boolean"}
PLAYER_ID = {
    **STR,
    "description": "The platform's own id of whoever plays the seat (docs/howto/players-and-ratings.md).",
}

SHELL_DATA: dict[str, dict[str, Any]] = {
    "seat_joined": _closed({"seat": INT, "name": STR, "player": PLAYER_ID}, ["seat", "name"]),
    "match_started": _closed({}, []),
    "match_aborted": _closed({"reason": STR}, ["reason"]),
    "seed_revealed": _closed(
        {"seed": STR, "salt": {**STR, "nullable": True}},
        ["seed"],
        "The match's seed, and the "
        "salt of its commitment in match_created (none in logs from before salted commitments).",
    ),
    "acted_by": _closed(
        {
            "by": {
                **STR,
                "nullable": True,
                "description": "bot:<name> for a seat's bot, timeout for "
                "its clock, conceded for the server's move for "
                "a seat that conceded; null: the seat's person "
                "(a move marked where undo is on).",
            }
        },
        ["by"],
    ),
    "seat_replaced": _closed({"seat": INT, "name": STR, "bot": STR, "player": PLAYER_ID}, ["seat", "name"]),
    "undone": _closed({"to_version": INT}, ["to_version"]),
    "undo_requested": _closed({"to_version": INT}, ["to_version"]),
    "undo_accepted": _closed({}, []),
    "undo_refused": _closed({}, []),
    "timed_out": _closed(
        {"on_timeout": {"type": "string", "enum": ["pass", "bot", "forfeit"]}}, ["on_timeout"]
    ),
    "seat_conceded": _closed(
        {"seat": INT}, ["seat"], "The seat gave up (POST .../concede): out of play from now on."
    ),
}
"""The data of the server's own entries that are the same in every game (match_created and match_scored
carry the game's options, content and result: they are the game's)."""

CREATED_PLAYER = _closed(
    {"seat": INT, "name": STR, "open": {"type": "boolean", "enum": [True]}, "bot": STR, "player": PLAYER_ID},
    ["seat"],
)
LOGGED_CLOCK = _closed(
    {
        "initial_ms": INT,
        "increment_ms": INT,
        "per_action_ms": INT,
        "on_timeout": {"type": "string", "enum": ["pass", "bot", "forfeit"]},
    },
    ["on_timeout"],
)
WITHHELD = _closed(
    {
        "final": {"type": "boolean", "enum": [False]},
        "withheld": {"type": "string", "enum": ["hidden_information"]},
    },
    ["final", "withheld"],
    "The scores of a hidden-information match before its end: withheld (they would count what some "
    "seats cannot see).",
)


TO_ACT: dict[str, Any] = {
    "type": "array",
    "items": INT,
    "description": "On a live-feed entry or a webhook body: the seats that may act after it (none once the "
    "match is over), as the match's to_act would say then.",
}
STATUS: dict[str, Any] = {
    "type": "string",
    "enum": ["open", "active", "finished", "aborted"],
    "description": "On a live-feed entry or a webhook body: the match's status after it, as the match's "
    "status would say then.",
}


def _game(game: Game, description: str | None = None) -> dict[str, Any]:
    schema = {"type": "string", "enum": [game.info.id]}
    return {**schema, "description": description} if description else schema


def _entry(game: Game, type_: str, data: dict[str, Any], description: str | None = None) -> dict[str, Any]:
    """A log entry of one type (EventSchema's fields), its data typed: ``public_data`` is the same data as a
    spectator sees it. ``game`` only where an entry travels alone (the live feed): an envelope says it
    elsewhere, and the log as written has none."""
    properties = {
        "game": _game(game, "The match's game: on the live feed's entries (FeedEntry), not in a page's."),
        "version": INT,
        "type": {"type": "string", "enum": [type_]},
        "seat": {**INT, "nullable": True},
        "data": data,
        "at": {**STR, "description": "When it was appended (UTC, ISO 8601)."},
        "hash": {**STR, "nullable": True, "description": "The hash chain (see Event)."},
        "public_data": data,
        "commitment": {**STR, "description": "HMAC-SHA256 (hex) of the whole entry (see Event)."},
        "text": {**STR, "description": "The entry in plain words, as this view shows it."},
        "to_act": ref("ToAct"),  # on the live feed's entries (FeedEntry requires them)
        "status": ref("MatchStatus"),
    }
    return _closed(properties, ["version", "type", "seat", "data", "at", "hash"], description)


def game_components(game: Game, match: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The components of one game (none but its entries and answers where it declares no contract);
    ``match`` is the Match component marshmallow made, which the game's match types."""
    p, contract = prefix(game), game.contract
    loose = {"type": "object", "additionalProperties": True}
    components: dict[str, dict[str, Any]] = {
        f"{p}View": {
            **openapi30(contract.state),
            "description": f"{game.info.name}: the state as a seat (or a spectator) sees it.",
        }
        if contract
        else loose,
        f"{p}Options": {
            **openapi30(game.options_schema),
            "description": f"{game.info.name}: the match options (resolved: every default filled in).",
        },
    }
    result: dict[str, Any] = openapi30(contract.result) if contract else {"type": "object", "properties": {}}
    components[f"{p}Result"] = {
        **result,
        "description": f"{game.info.name}: the result as scoring recorded it: final (false for the "
        "provisional scores of a match still running), aborted for a match ended early, "
        "and the game's scores, ranks and breakdown.",
        "properties": {
            "final": BOOL,
            "aborted": {"type": "boolean", "enum": [True]},
            "conceded": {
                "type": "array",
                "items": INT,
                "description": "The seats that conceded, in order: they rank after every seat still in play.",
            },
            **result.get("properties", {}),
        },
        "required": sorted({"final", *result.get("required", [])}),
    }
    if game.packs is not None:  # match_created keeps the loaded pack: typed where the contract says how
        components[f"{p}Content"] = {
            **(openapi30(contract.content) if contract and contract.content is not None else loose),
            "description": f"{game.info.name}: a loaded content pack, as match_created keeps it.",
        }
    created = _closed(
        {
            "game": {"type": "string", "enum": [game.info.id]},
            "options": ref(f"{p}Options"),
            "players": {"type": "array", "items": CREATED_PLAYER},
            "seed_commitment": STR,
            "seed_sha256": {
                **STR,
                "description": "SHA-256 (hex) of the seed: the commitment in logs written before "
                "seed_commitment (which such a log does not have).",
            },
            "chain": {
                **INT,
                "description": "How the log is chained: 2, hidden data through commitments; 3, also naming "
                "the match (match); absent in logs written before sealing.",
            },
            "match": {
                **STR,
                "description": "The match's id (chain 3 on): the hash chain covers it, so the log and a "
                "checkpoint of it are of this match alone.",
            },
            "views": {
                **STR,
                "description": "The game's views_version when the log was written (the audit proves "
                "entries whose view has changed since by their commitments).",
            },
            "seed_known_to_creator": {"type": "boolean", "enum": [True]},
            "undo": {"type": "string", "enum": ["until_next_action", "with_consent"]},
            "clock": LOGGED_CLOCK,
            **({"content_sha256": STR, "content": ref(f"{p}Content")} if f"{p}Content" in components else {}),
        },
        ["game", "options", "players"],  # and seed_commitment, or seed_sha256 in an older log
    )
    data = {
        "match_created": created,
        "match_scored": ref(f"{p}Result"),
        **{t: ref(f"ShellData{camel(t)}") for t in SHELL_DATA},
    }
    for type_, schema in sorted(contract.events.items()) if contract else []:
        data[type_] = openapi30(schema)
    for type_ in sorted(
        set(game.event_types) - set(data)
    ):  # a game type its contract forgot: untyped, not absent
        data[type_] = {"type": "object"}
    mapping = {}
    for type_ in [*SHELL_EVENTS, *sorted(set(data) - set(SHELL_EVENTS))]:
        name = f"{p}{camel(type_)}Entry"
        components[name] = _entry(game, type_, data[type_])
        mapping[type_] = REF + name
    components[f"{p}Entry"] = {
        "description": f"{game.info.name}: a log entry, by its type.",
        "oneOf": [{"$ref": r} for r in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    said = {"type": "object", "properties": {"game": _game(game)}, "required": ["game", "status", "to_act"]}
    # each type's entry with game required, not allOf the Entry union: a generator reads allOf over a
    # discriminated union as a subtype of it, and drops the type it discriminates by
    components[f"{p}FeedEntry"] = {
        "description": f"{game.info.name}: a log entry as the live feed sends it, with the match's game.",
        "oneOf": [{"allOf": [{"$ref": r}, said]} for r in mapping.values()],
    }
    components[f"{p}State"] = _closed(
        {"game": _game(game), "version": INT, "state": ref(f"{p}View"), "clock": ref("MatchClock")},
        ["game", "version", "state"],
        f"{game.info.name}: the state at a version.",
    )
    components[f"{p}Events"] = _closed(
        {"game": _game(game), "version": INT, "events": {"type": "array", "items": ref(f"{p}Entry")}},
        ["game", "version", "events"],
        f"{game.info.name}: log entries and the match's version.",
    )
    typed = copy.deepcopy(match)
    typed["properties"].update(
        {
            "game": {"type": "string", "enum": [game.info.id]},
            "options": {
                "allOf": [ref(f"{p}Options")],
                "description": "The options, resolved (every default filled in).",
            },
            "result": {
                "allOf": [ref(f"{p}Result")],
                "description": "Present once the scoring job has recorded it.",
            },
            "clock": {
                "allOf": [ref("MatchClock")],
                "description": "A clocked match's clocks, as every seat sees them.",
            },
            "undo": {"type": "string", "enum": ["none", "until_next_action", "with_consent"]},
            "undo_request": {
                "allOf": [ref("UndoRequest")],
                "description": "An undo waiting for the other seats.",
            },
        }
    )
    components[f"{p}Match"] = {
        **typed,
        "additionalProperties": False,
        "description": f"A {game.info.name} match.",
    }
    components[f"{p}WebhookDelivery"] = _closed(
        {
            "game": _game(game),
            "delivery": {**STR, "description": "The Matchlog-Delivery id (the same on every retry)."},
            "webhook": STR,
            "match": STR,
            "version": INT,
            "previous_version": {
                "type": "integer",
                "nullable": True,
                "description": "The version of the delivery of this match to this webhook before this "
                "one (null: the first): hold a delivery until that one has come.",
            },
            "entries": {
                "type": "array",
                "items": ref(f"{p}Entry"),
                "description": "The entries of one append that the webhook asked for, as a spectator sees them.",
            },
            # after the append; absent in a delivery an older release enqueued
            "to_act": ref("ToAct"),
            "status": ref("MatchStatus"),
        },
        ["game", "delivery", "webhook", "match", "version", "previous_version", "entries"],
        f"A webhook delivery of a {game.info.name} match.",
    )
    return components


def game_job(game: Game, job: dict[str, Any]) -> dict[str, Any]:
    """A scoring job of a match of ``game`` (``job``: the Job component marshmallow made): its result is the
    game's, or the withheld provisional scores of a hidden-information match."""
    typed = copy.deepcopy(job)
    typed["properties"]["game"] = _game(game, "The match's game.")
    typed["properties"]["result"] = {
        "description": job["properties"]["result"].get("description", ""),
        "anyOf": [ref(f"{prefix(game)}Result"), ref("WithheldResult")],
    }
    typed["required"] = sorted({*typed.get("required", []), "game"})
    return {
        **typed,
        "additionalProperties": False,
        "description": f"A scoring job of a {game.info.name} match.",
    }


def components(games: list[Game], served: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every typed component, and the marshmallow-made ones (``served``) that carry game data made into
    unions of the games' shapes."""
    out: dict[str, dict[str, Any]] = {f"ShellData{camel(t)}": schema for t, schema in SHELL_DATA.items()}
    for game in games:
        out.update(game_components(game, served["Match"]))
        out[f"{prefix(game)}Job"] = game_job(game, served["Job"])
    names = [prefix(game) for game in games]

    def union(kind: str, suffix: str, description: str, discriminator: str | None = None) -> dict[str, Any]:
        schema: dict[str, Any] = {"description": description, kind: [ref(f"{n}{suffix}") for n in names]}
        if discriminator:
            schema["discriminator"] = {
                "propertyName": discriminator,
                "mapping": {g.info.id: REF + f"{prefix(g)}{suffix}" for g in games},
            }
        return schema

    out["ToAct"], out["MatchStatus"] = TO_ACT, STATUS
    out["MatchClock"] = _closed(
        {
            **LOGGED_CLOCK["properties"],
            "remaining_ms": {
                "type": "array",
                "items": INT,
                "description": "Each seat's time left, as of as_of.",
            },
            "running": {"type": "array", "items": INT, "description": "The seats whose clocks run."},
            "as_of": {
                **STR,
                "description": "UTC, ISO 8601: now for the latest version, else that version's entry.",
            },
        },
        ["on_timeout", "remaining_ms", "running", "as_of"],
        "Turn clocks, as every seat sees them: the settings (initial_ms and increment_ms, or per_action_ms), "
        "on_timeout, and each seat's time left.",
    )
    out["UndoRequest"] = _closed(
        {"seat": INT, "to_version": INT, "accepted": {"type": "array", "items": INT}},
        ["seat", "to_version", "accepted"],
        "An undo waiting for the other seats' consent.",
    )
    out["Match"] = union("oneOf", "Match", "A match of one of the games, by its game.", "game")
    out["State"] = union(
        "oneOf", "State", "The state as the caller may see it, in the shape of the match's game.", "game"
    )
    out["Events"] = union("oneOf", "Events", "Log entries, typed by the match's game.", "game")
    out["Accepted"] = union(
        "oneOf", "Events", "The entries the action appended, and the match's version after them.", "game"
    )
    out["Event"] = union(
        "anyOf", "Entry", "A log entry of one of the games, as /log writes it (its game is the match's)."
    )
    out["FeedEntry"] = union(
        "oneOf", "FeedEntry", "A log entry as the live feed sends it, by the match's game.", "game"
    )
    out["MatchResult"] = {
        "description": "A result: one game's, or the withheld provisional scores of a "
        "hidden-information match.",
        "anyOf": [*(ref(f"{n}Result") for n in names), ref("WithheldResult")],
    }
    out["WithheldResult"] = WITHHELD
    out["Job"] = union("oneOf", "Job", "A scoring job, by its match's game.", "game")
    out["Deliveries"] = _closed(
        {
            "deliveries": {
                "type": "array",
                "description": "Newest first, a page (limit).",
                "items": _closed(
                    {
                        "delivery": STR,
                        "attempt": INT,
                        "at": {**STR, "description": "When the attempt started (UTC, ISO 8601)."},
                        "outcome": {
                            "type": "string",
                            "enum": list(OUTCOMES),
                            "description": "status: the receiver answered (status says with what); else why "
                            "no answer came: timeout (no connection, or no status line, within the attempt's "
                            "deadline), refused, reset, unreachable, tls (the handshake or the certificate "
                            "failed), not_http (closed, or answered other than HTTP), address_refused (the "
                            "host resolved to an address deliveries may not go to); unknown: recorded by an "
                            "older release. Never the receiver's bytes.",
                        },
                        "status": {**INT, "description": "The receiver's HTTP status (outcome status)."},
                        "ms": {"type": "number", "description": "Time taken."},
                    },
                    ["delivery", "attempt", "at", "outcome", "ms"],
                ),
            },
            "next_cursor": {
                "type": "string",
                "nullable": True,
                "description": "The cursor of the next, older page; null on the last.",
            },
        },
        ["deliveries", "next_cursor"],
    )
    out["WebhookDelivery"] = union(
        "oneOf",
        "WebhookDelivery",
        "The body of a webhook delivery (POST to the "
        "webhook's url, signed with Matchlog-Signature): the entries of one append, by "
        "the match's game.",
        "game",
    )
    rating = _closed({"mu": {"type": "number"}, "sigma": {"type": "number"}}, ["mu", "sigma"])
    out["RatingChangedDelivery"] = _closed(
        {
            "delivery": STR,
            "webhook": STR,
            "event": {"type": "string", "enum": ["rating_changed"]},
            "match": STR,
            "game": STR,
            "pool": {**STR, "description": "The rating pool: <game>[:<variant>]:<n>p."},
            "players": {
                "type": "array",
                "items": _closed(
                    {
                        "player": STR,
                        "mu": {"type": "number"},
                        "sigma": {"type": "number"},
                        "rating": {"type": "number", "description": "mu - 3 sigma."},
                        "before": {**rating, "description": "Absent for a player's first rated match."},
                    },
                    ["player", "mu", "sigma", "rating"],
                ),
            },
        },
        ["delivery", "webhook", "event", "match", "game", "pool", "players"],
        "A rating_changed delivery: a match of the platform rated its players (docs/howto/players-and-ratings.md).",
    )
    # its own component, not in WebhookDelivery's union: a hook that asks for entries gets entries only
    out.update(moves_socket_components(games, served))
    return out


MOVES_SOCKET = "/v1/matches/{match_id}/moves"
"""The moves socket's route (a WebSocket: no operation of OpenAPI 3.0 describes it)."""


def moves_socket_components(
    games: list[Game], served: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """What the moves socket answers (``service.http.moves_socket``), as components: each game's accepted
    move (the POST's answer with its status, 201, without the game: the socket is one match's, whose game
    the client knows) and a refusal (the API's error with its status). ``MovesSocketMove`` (what it takes)
    is the marshmallow schema the socket loads with."""
    status = {"type": "integer", "description": "The HTTP status the same POST would answer."}
    out: dict[str, dict[str, Any]] = {}
    for game in games:
        p = prefix(game)
        out[f"{p}MovesSocketAccepted"] = _closed(
            {
                "status": {**status, "enum": [201]},
                "version": INT,
                "events": {"type": "array", "items": ref(f"{p}Entry")},
            },
            ["status", "version", "events"],
            f"{game.info.name}: a move the socket accepted: the entries it appended and the match's version.",
        )
    error = served["Error"]
    out["MovesSocketRefused"] = _closed(
        {
            "status": status,
            **copy.deepcopy(error["properties"]),
            "retry_after": {
                **INT,
                "description": "With too_many_requests: the seconds to wait, as the POST's Retry-After header.",
            },
        },
        ["status", *error.get("required", [])],
        "A message the socket refused, in the API's error format (Error), with the status the POST would answer.",
    )
    out["MovesSocketAnswer"] = {
        "description": f"Each message the moves socket (GET {MOVES_SOCKET}, upgraded to a WebSocket) sends: "
        "the answer to one move, accepted (in the shape of the match's game) or refused.",
        "anyOf": [*(ref(f"{prefix(game)}MovesSocketAccepted") for game in games), ref("MovesSocketRefused")],
    }
    return out


def optional_defaults(request: dict[str, Any]) -> None:
    """A request body's fields with a default, optional to generated clients: openapi-typescript makes a
    property with a ``default`` required (as it is in an answer), so that ``{game, players}`` would not
    compile. The default is said in the description instead."""
    for field in request.get("properties", {}).values():
        if "default" in field:
            default = json.dumps(field.pop("default"))
            field["description"] = (field.get("description", "") + f" Default: {default}.").strip()


def renamed_action(
    schema: dict[str, Any], names: ActionNames, schemas: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """A game's action component (``schema``, as marshmallow made it) in the API's names: its types and
    fields renamed, a nested object it refers to copied in and renamed too (the referred component may
    also describe answers, which keep their names)."""

    def rename(node: Any) -> Any:
        if isinstance(node, list):
            return [rename(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return rename(schemas[node["$ref"].rsplit("/", 1)[-1]])
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "properties":
                out[key] = {names.fields.get(name, name): rename(field) for name, field in value.items()}
            elif key == "required":
                out[key] = [names.fields.get(name, name) for name in value]
            else:
                out[key] = rename(value)
        return out

    renamed = rename(schema)
    kind = renamed["properties"]["type"]
    kind["enum"] = [names.types.get(value, value) for value in kind["enum"]]
    return renamed


def deprecated_action(schema: dict[str, Any], game: Game) -> dict[str, Any]:
    """The action in the engine's own names, still accepted (docs/reference/naming.md)."""
    return {
        **copy.deepcopy(schema),
        "deprecated": True,
        "description": f"{game.info.name}: an action in the names of the rules spec, as the API listed them "
        f"before; still accepted, deprecated: legal-actions lists {action_component(game)}.",
    }
