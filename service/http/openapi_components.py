"""The typed part of ``openapi.yaml``: what each game shows (its ``Contract``: view, events, result, content,
beside its ``options_schema``) and the server's own entries, as OpenAPI 3.0 components.

For a game whose component prefix is ``Chess`` (a game ``chess``: ``service.games.action_component``
without ``Action``), say:

``ChessView``, ``ChessOptions``, ``ChessResult``, ``ChessContent``
    The game's own schemas, from JSON Schema into OpenAPI 3.0 (``openapi30``).
``Chess<Name>`` (``ChessPieceSet``...)
    A shape the game's schemas share, written once in its contract's ``$defs`` and referred to.
``Chess<Type>Entry`` (``ChessMovedEntry``, ``ChessSeatJoinedEntry``...), ``ChessEntry``
    A log entry of each type, its ``data`` (and ``public_data``) typed; ``ChessEntry`` is one of them, told
    apart by ``type`` (a discriminator).
``Chess<Type>FeedEntry``, ``ChessFeedEntry``
    An entry as the live feed sends it, alone: with the match's ``game``, ``status`` and ``to_act``
    (``ChessFeedFields``); ``ChessFeedEntry`` is one of them, by ``type``.
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
from service.domain.tournaments import KINDS as TOURNAMENT_KINDS
from service.domain.tournaments import KNOCKOUT_DRAWS
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
    elif "type" not in out and values and all(type(v) is str for v in values):
        out["type"] = "string"  # an option's choices: a typed enum, not any value
        if None in out["enum"]:
            out["nullable"] = True
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
                "description": "`bot:<name>` for a seat's bot, timeout for "
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


ENTRY_FIELDS = ("at", "hash", "commitment", "text")
"""The fields every entry of every game has alike: components (``Entry<Field>``, EventSchema's), which each
entry type refers to rather than repeats (131 entry types)."""


def _entry(game: Game, type_: str, data: dict[str, Any], description: str | None = None) -> dict[str, Any]:
    """A log entry of one type (EventSchema's fields), its data typed: ``public_data`` is the same data as a
    spectator sees it. ``game`` only where an entry travels alone (the live feed): an envelope says it
    elsewhere, and the log as written has none."""
    properties = {
        "game": _game(game),
        "version": INT,
        "type": {"type": "string", "enum": [type_]},
        "seat": {**INT, "nullable": True},
        "data": data,
        **{field: ref(f"Entry{camel(field)}") for field in ENTRY_FIELDS[:2]},
        "public_data": data,
        **{field: ref(f"Entry{camel(field)}") for field in ENTRY_FIELDS[2:]},
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
            **_told_once(openapi30(game.options_schema)),
            "description": f"{game.info.name}: the match options (resolved: every default filled in), each "
            f"as {p}CreateOptions describes it.",
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
            "tournament": {
                "allOf": [ref("MatchTournament")],
                "description": "A tournament's match: the tournament and round it is played for.",
            },
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
    for type_, schema in data.items():  # each its own component: data and public_data refer to it
        # (not a union: openapi-python-client 0.29.1 imports a module it never writes for a referred one)
        if "$ref" not in schema and not {"anyOf", "oneOf", "allOf"} & set(schema):
            components[f"{p}{camel(type_)}Data"] = schema
            data[type_] = ref(f"{p}{camel(type_)}Data")
    mapping = {}
    for type_ in [*SHELL_EVENTS, *sorted(set(data) - set(SHELL_EVENTS))]:
        name = f"{p}{camel(type_)}Entry"
        components[name] = _entry(game, type_, data[type_])
        mapping[type_] = REF + name
    components[f"{p}Entry"] = {
        "description": f"{game.info.name}: a log entry, by its type (with its match's game on the live feed's "
        "entries, FeedEntry, not in a page's).",
        "oneOf": [{"$ref": r} for r in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    # each type's entry with game, status and to_act required, not allOf the Entry union: a generator reads
    # allOf over a discriminated union as a subtype of it, and drops the type it discriminates by. Each is a
    # component of its own (an inline allOf in a union is more than openapi-python-client parses), and the
    # game's union is discriminated by type, as its entries are.
    components[f"{p}FeedFields"] = {
        "type": "object",
        "properties": {"game": _game(game), "to_act": ref("ToAct"), "status": ref("MatchStatus")},
        "required": ["game", "status", "to_act"],
        "description": f"What a {game.info.name} entry carries on the live feed beside its own fields.",
    }
    fed = {}
    for type_, entry in mapping.items():
        name = f"{p}{camel(type_)}FeedEntry"
        components[name] = {"allOf": [{"$ref": entry}, ref(f"{p}FeedFields")]}
        fed[type_] = REF + name
    components[f"{p}FeedEntry"] = {
        "description": f"{game.info.name}: a log entry as the live feed sends it, with the match's game.",
        "oneOf": [{"$ref": r} for r in fed.values()],
        "discriminator": {"propertyName": "type", "mapping": fed},
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
    shared = (
        {f"{p}{name}": openapi30(schema) for name, schema in sorted(contract.defs.items())}
        if contract
        else {}
    )
    if set(shared) & set(components):
        raise ValueError(
            f"{game.info.id}'s contract names a $defs shape as a component of its own: {set(shared) & set(components)}"
        )
    return _defs_as_components({**shared, **components}, p)


def _told_once(options: dict[str, Any]) -> dict[str, Any]:
    """A game's options schema without its options' descriptions: ``<Game>CreateOptions``, where a client
    chooses them, carries each one's (some run to a paragraph: twice was 13 KB of the contract)."""
    return {
        **options,
        "properties": {
            name: {key: value for key, value in option.items() if key != "description"}
            for name, option in options.get("properties", {}).items()
        },
    }


def _defs_as_components(node: Any, p: str) -> Any:
    """``node`` with a game contract's ``#/$defs/<Name>`` references made the game's component
    ``<Game><Name>`` (``p``: the game's prefix), where its ``$defs`` are."""
    if isinstance(node, list):
        return [_defs_as_components(item, p) for item in node]
    if not isinstance(node, dict):
        return node
    target = node.get("$ref")
    if isinstance(target, str) and target.startswith("#/$defs/"):
        return {**node, "$ref": REF + p + target.removeprefix("#/$defs/")}
    return {key: _defs_as_components(value, p) for key, value in node.items()}


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
        "anyOf",
        "Entry",
        "A log entry of one of the games, as /log writes it (its game is the match's). `public_data`: "
        + served["Event"]["properties"]["public_data"]["description"],
    )
    out.update({f"Entry{camel(field)}": served["Event"]["properties"][field] for field in ENTRY_FIELDS})
    # no discriminator: its branches are unions (by type) themselves, which a discriminator's mapping may not
    # name (openapi-typescript warns); each branch's game enum tells them apart all the same
    out["FeedEntry"] = union(
        "oneOf", "FeedEntry", "A log entry as the live feed sends it, by the match's game."
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
            "pool": {**STR, "description": "The rating pool: `<game>[:<variant>]:<n>p`."},
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
    out["SeekPairedDelivery"] = _closed(
        {
            "delivery": STR,
            "webhook": STR,
            "event": {"type": "string", "enum": ["seek_paired"]},
            "match": STR,
            "game": STR,
            "seeks": {
                "type": "array",
                "items": _closed(
                    {"seek": STR, "player": STR, "seat": INT, "bot": {"type": "boolean"}},
                    ["seek", "player", "seat", "bot"],
                ),
            },
        },
        ["delivery", "webhook", "event", "match", "game", "seeks"],
        "A seek_paired delivery: seeks of the platform's players met, and their match started; each seat's "
        "token is its seek's owner's (GET /v1/seeks/{seek_id}), never in a delivery "
        "(docs/howto/seeks-and-challenges.md).",
    )
    out["SeekExpiredDelivery"] = _closed(
        {
            "delivery": STR,
            "webhook": STR,
            "event": {"type": "string", "enum": ["seek_expired"]},
            "seek": STR,
            "player": STR,
            "reason": {"type": "string", "enum": ["no_opponent_in_time"]},
        },
        ["delivery", "webhook", "event", "seek", "player", "reason"],
        "A seek_expired delivery: a seek of one of the platform's players met nobody in time.",
    )
    standings = {"type": "array", "items": ref("TournamentStanding"), "description": "After the append."}
    tournament = {"delivery": STR, "webhook": STR, "tournament": STR, "version": INT, "standings": standings}
    required = ["delivery", "webhook", "event", "tournament", "version", "standings"]
    out["TournamentRoundStartedDelivery"] = _closed(
        {
            **tournament,
            "event": {"type": "string", "enum": ["tournament_round_started"]},
            "round": INT,
            "matches": {
                "type": "array",
                "items": _closed(
                    {"match": STR, "players": {"type": "array", "items": STR}}, ["match", "players"]
                ),
            },
        },
        [*required, "round", "matches"],
        "A tournament_round_started delivery: a round (an arena's wave) of one of the platform's tournaments "
        "started; its seats' tokens are in the tournament's answer to its platform, never in a delivery "
        "(docs/howto/tournaments.md).",
    )
    out["TournamentGameFinishedDelivery"] = _closed(
        {
            **tournament,
            "event": {"type": "string", "enum": ["tournament_game_finished"]},
            "round": INT,
            "match": STR,
            "ranks": {"type": "array", "items": INT},
        },
        [*required, "round", "match", "ranks"],
        "A tournament_game_finished delivery: a match's result came into the tournament.",
    )
    out["TournamentFinishedDelivery"] = _closed(
        {
            **tournament,
            "event": {"type": "string", "enum": ["tournament_finished"]},
            "seed": {**STR, "description": "The tournament's seed, revealed."},
        },
        [*required, "seed"],
        "A tournament_finished delivery: the tournament finished; its standings are final.",
    )
    out["FeedEnd"] = _closed({}, [], "The data of the live feed's end event: nothing.")
    out["FeedEvent"] = feed_event(
        ["message", "end", "revoked"],
        "message (the default) for an entry; end: the match is scored; revoked: the credential no longer holds.",
        "FeedEntry",
        "The event's data line, decoded from its JSON: the entry, with its match's game (FeedEntry); {} with end.",
        "One event of the live feed (GET /v1/matches/{match_id}/events/stream, Server-Sent Events), its data "
        "decoded: an entry (id: its version), end (data: {}), revoked (no data), or the retry advice that "
        "opens the stream. A component, so that generated clients have its type.",
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


def action_types(schema: dict[str, Any], game: Game) -> dict[str, dict[str, Any]]:
    """A game's action (``schema``: its one shape, in the API's names) as a union of one shape per type,
    ``<Game><Type>Action`` (``ChessMoveAction``), told apart by ``type`` (a discriminator), under the
    action's own name: each shape has ``type`` (one value) and that type's fields (the game's
    ``action_parameters``), so a generated client narrows an action by its type. A game without
    ``action_parameters`` keeps its one shape."""
    name = action_component(game)
    if game.action_parameters is None:
        return {name: schema}
    names = game.action_names or ActionNames({}, {})
    fields = dict(schema["properties"])
    out: dict[str, dict[str, Any]] = {}
    uses: dict[str, int] = {}
    for parameters in game.action_parameters.values():
        for field in {*parameters.required, *parameters.optional}:
            uses[names.fields.get(field, field)] = uses.get(names.fields.get(field, field), 0) + 1
    for field, count in uses.items():  # a structured field of several types: written once, referred to
        if count > 1 and "properties" in fields[field]:
            out[f"{prefix(game)}Action{camel(field)}"] = fields[field]
            fields[field] = ref(f"{prefix(game)}Action{camel(field)}")
    mapping = {}
    for kind, parameters in game.action_parameters.items():
        type_ = names.types.get(kind, kind)
        required = [names.fields.get(field, field) for field in parameters.required]
        optional = [names.fields.get(field, field) for field in parameters.optional]
        variant = f"{prefix(game)}{camel(type_)}Action"
        out[variant] = _closed(
            {
                "type": {"type": "string", "enum": [type_]},
                **{field: copy.deepcopy(fields[field]) for field in [*required, *optional]},
            },
            ["type", *required],
            f"{game.info.name}: a {type_} action.",
        )
        mapping[type_] = REF + variant
    out[name] = {
        "description": f"{game.info.name}: an action, by its type (legal-actions lists them ready to post).",
        "oneOf": [{"$ref": target} for target in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    return out


def submit_actions(games: list[Game], accepted: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
    """The body of ``POST .../actions`` for each game, ``<Game>SubmitAction``, and ``SubmitAction``, any of
    them: a client that says its match's ``game`` (or types its body as that game's) has its compiler refuse
    another game's action. ``accepted``: each game's action components (its deprecated names too)."""
    out: dict[str, dict[str, Any]] = {}
    for game in games:
        actions = [ref(name) for name in accepted[game.info.id]]
        out[f"{prefix(game)}SubmitAction"] = _closed(
            {
                "game": _game(
                    game,
                    "The match's game, if the client says it: a match of another game is 400 invalid_request. "
                    "Optional: the action's shape is the match's game's either way.",
                ),
                "expected_version": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 2**53,
                    "description": "The version the action was chosen at.",
                },
                "action": actions[0] if len(actions) == 1 else {"anyOf": actions},
            },
            ["expected_version", "action"],
            f"An action of a {game.info.name} match, and the version it was chosen at.",
        )
    out["SubmitAction"] = {
        "description": "An action and the version it was chosen at, in the shape of the match's game "
        "(`<Game>SubmitAction`); `game`, when given, says which.",
        "anyOf": [ref(f"{prefix(game)}SubmitAction") for game in games],
    }
    return out


def socket_moves(games: list[Game], served: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each game's message to the moves socket, ``<Game>MovesSocketMove``: its ``<Game>SubmitAction`` (after
    ``submit_actions``) with the socket's ``idempotency_key``, so that a client typing its messages as its
    match's game has its compiler refuse another game's action. ``MovesSocketMove`` stays, any game's."""
    key = served["MovesSocketMove"]["properties"]["idempotency_key"]
    out: dict[str, dict[str, Any]] = {}
    for game in games:
        move = copy.deepcopy(served[f"{prefix(game)}SubmitAction"])
        move["properties"]["idempotency_key"] = copy.deepcopy(key)
        move["description"] = (
            f"A move of a {game.info.name} match sent on the moves socket: its SubmitAction, and a key "
            "to retry it by."
        )
        out[f"{prefix(game)}MovesSocketMove"] = move
    return out


def deprecated_action(schema: dict[str, Any], game: Game) -> dict[str, Any]:
    """The action in the engine's own names, still accepted (docs/reference/naming.md)."""
    return {
        **copy.deepcopy(schema),
        "deprecated": True,
        "description": f"{game.info.name}: an action in the names of the rules spec, as the API listed them "
        f"before; still accepted, deprecated: legal-actions lists {action_component(game)}.",
    }


def name_enums(
    served: dict[str, dict[str, Any]], bots: Iterable[str], entry_types: Iterable[str], others: Iterable[str]
) -> None:
    """The names a client picks from as enums (``BotName``, ``EntryType``, ``WebhookEvent``), where the
    catalogue lists them, a seat names its bot and a webhook its events: a typo is a type error. The server
    checks the same names (a bot another game has, or an entry type, stays its refusal to make)."""
    entry_types = sorted(entry_types)
    served["BotName"] = {
        "type": "string",
        "enum": sorted(bots),
        "description": "A bot that can play a seat: random, greedy, or a game's own (the catalogue's bots).",
    }
    served["EntryType"] = {
        "type": "string",
        "enum": entry_types,
        "description": "The type of a log entry: the server's own and every hosted game's.",
    }
    served["WebhookEvent"] = {
        "type": "string",
        "enum": sorted({*entry_types, *others}),
        "description": "What a webhook may ask for: an entry type, rating_changed (a match rated its players), "
        "seek_paired or seek_expired (what became of the platform's seeks), tournament_round_started, "
        "tournament_game_finished or tournament_finished (its tournaments' changes, with their standings).",
    }
    served["Game"]["properties"]["bots"]["items"] = ref("BotName")
    served["Game"]["properties"]["entry_types"]["items"] = ref("EntryType")
    for name in ("Player", "ReplaceSeat"):
        field = served[name]["properties"]["bot"]
        served[name]["properties"]["bot"] = {"allOf": [ref("BotName")], "description": field["description"]}
    for name in ("Webhook", "WebhookListed", "WebhookCreated"):
        served[name]["properties"]["events"]["items"] = ref("WebhookEvent")


def create_matches(games: list[Game], create: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The create body for each game, ``<Game>CreateMatch`` (``create``: the one shape marshmallow made,
    defaults already moved to descriptions), its ``options`` typed as ``<Game>CreateOptions`` (the game's
    options_schema, every option optional: a typo is a type error, and a 400 naming it); ``CreateMatch`` is
    one of them, told apart by ``game``."""
    out: dict[str, dict[str, Any]] = {}
    mapping = {}
    for game in games:
        p = prefix(game)
        options = openapi30(game.options_schema)
        optional_defaults(options)
        out[f"{p}CreateOptions"] = {
            **options,
            "description": f"{game.info.name}: the match options a create may set (GET /v1/games has each "
            "one's default).",
        }
        body = copy.deepcopy(create)
        body["properties"]["game"] = _game(game, "A game id from GET /v1/games.")
        body["properties"]["options"] = {
            "allOf": [ref(f"{p}CreateOptions")],
            "description": create["properties"]["options"].get("description", ""),
        }
        out[f"{p}CreateMatch"] = {**body, "description": f"A new {game.info.name} match."}
        mapping[game.info.id] = REF + f"{p}CreateMatch"
    out["CreateMatch"] = {
        "description": "A new match, in the shape of its game.",
        "oneOf": [{"$ref": target} for target in mapping.values()],
        "discriminator": {"propertyName": "game", "mapping": mapping},
    }
    return out


MEETINGS = {
    "Seek": ("options", "clock"),
    "CreatedSeek": ("options", "clock"),
    "Challenge": ("options", "clock"),
}
"""The answers of players meeting (seeks, challenges) that carry a match's settings as they were asked."""


def meeting_settings(games: list[Game], served: dict[str, dict[str, Any]]) -> None:
    """The settings a seek or challenge shows, typed: its ``options`` one of the games' create options (as
    asked, which the game's options_schema checked), its ``clock`` a create's ``Clock`` or null."""
    for name, (options, clock) in MEETINGS.items():
        properties = served[name]["properties"]
        properties[options] = {
            "anyOf": [ref(f"{prefix(game)}CreateOptions") for game in games],
            "description": properties[options].get("description", "The match's options, as asked."),
        }
        properties[clock] = {
            "allOf": [ref("Clock")],
            "nullable": True,
            "description": "The match's turn clocks, as asked (null: none).",
        }


def python_titles(served: dict[str, dict[str, Any]]) -> None:
    """A title, ``<Name>Body``, for each object component with an enum or array property named as the
    component in snake_case (``Error.error``, ``Webhooks.webhooks``): openapi-python-client names its class
    after the title and, inside ``from_dict``, a variable after both, which ``mypy --strict`` then finds
    given two types. The component's name, which every other generator uses, stays."""
    for name, schema in served.items():
        snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")
        field = schema.get("properties", {}).get(snake, {})
        if "enum" in field or "items" in field:  # (a plain or nested one's variable keeps one type)
            schema["title"] = f"{name}Body"


ACCEPT_LANGUAGE, LANG, CONTENT_LANGUAGE = "AcceptLanguage", "Lang", "ContentLanguage"
"""The names, among the contract's ``components``, of the language a client asks for and the one it gets."""


def document_languages(contract: dict[str, Any], languages: Iterable[str]) -> dict[str, Any]:
    """``contract`` with the languages of its texts declared (issue 46): every operation of ``/v1`` takes
    ``Accept-Language`` and ``?lang=`` (each refusal's ``message`` is a text), and every answer that carries
    texts (a refusal; entries' ``text``; the listed actions' ``texts``; a picture) says ``Content-Language``.
    Idempotent: the contract may be written from the same spec again."""
    spoken = list(languages)
    components = contract.setdefault("components", {})
    components.setdefault("parameters", {})[ACCEPT_LANGUAGE] = {
        "in": "header",
        "name": "Accept-Language",
        "required": False,
        "description": "The languages the client reads, as browsers send them (ko-KR,ko;q=0.9,en;q=0.8): the "
        f"texts of the answer (entries' `text`, listed actions' `texts`, refusals' `message`) are in the "
        f"first the server speaks ({', '.join(spoken)}), else English. Machine-readable fields never change.",
        "schema": {"type": "string"},
    }
    components["parameters"][LANG] = {
        "in": "query",
        "name": "lang",
        "required": False,
        "description": f"The language of the answer's texts, for a link ({', '.join(spoken)}; it wins over "
        "Accept-Language); one the server does not speak is ignored.",
        "schema": {"type": "string"},
    }
    components.setdefault("headers", {})[CONTENT_LANGUAGE] = {
        "description": "The language the answer's texts are written in.",
        "schema": {"type": "string", "enum": list(spoken)},
    }

    def header() -> dict[str, Any]:  # a dict of its own each time: YAML would write aliases of a shared one
        return {"Content-Language": {"$ref": f"#/components/headers/{CONTENT_LANGUAGE}"}}

    for answer in components.get("responses", {}).values():  # the shared error answers
        answer.setdefault("headers", {}).update(header())
    schemas = components.get("schemas", {})
    for path, operations in contract.get("paths", {}).items():
        if not path.startswith("/v1/"):
            continue
        for operation in operations.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            parameters = operation.setdefault("parameters", [])
            for name in (ACCEPT_LANGUAGE, LANG):
                ref = {"$ref": f"#/components/parameters/{name}"}
                if ref not in parameters:
                    parameters.append(ref)
            for status, answer in operation["responses"].items():
                if "$ref" in answer or not ("content" in answer or status.startswith("2")):
                    continue
                if int(status) >= 400 or _carries_texts(answer, schemas):
                    answer.setdefault("headers", {}).update(header())
    return contract


PICTURE = "image/svg+xml"
"""A picture's type: its words are texts too (the games' pictures are drawn in the reader's language)."""


def _carries_texts(answer: dict[str, Any], schemas: dict[str, Any]) -> bool:
    """Whether an answer's body has a ``text`` or ``texts`` property anywhere in the schemas it refers to, or
    is a picture."""
    if PICTURE in answer.get("content", {}):
        return True
    seen: set[str] = set()
    todo = [answer]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            properties = node.get("properties")
            if isinstance(properties, dict) and ({"text", "texts"} & set(properties)):
                return True
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(REF) and ref not in seen:
                seen.add(ref)
                todo.append(schemas.get(ref.removeprefix(REF), {}))
            todo.extend(v for k, v in node.items() if k != "$ref")
        elif isinstance(node, list):
            todo.extend(node)
    return False


FRACTION = {**STR, "description": "An exact fraction: 1, 1/2, 7/2."}


def tournament_data(games: list[Game]) -> dict[str, dict[str, Any]]:
    """Each entry type of a tournament's log (``service.domain.tournaments``): its data, closed."""
    options = {
        "anyOf": [ref(f"{prefix(game)}Options") for game in games],
        "description": "Every match's options, resolved (every default filled in).",
    }
    return {
        "tournament_created": _closed(
            {
                "chain": {
                    **INT,
                    "description": "The log's format: 2, its rounds' match ids derived from the seed (the "
                    "audit checks them); 1, written when they were drawn at random.",
                },
                "tournament": STR,
                "platform": {**STR, "nullable": True},
                "name": STR,
                "kind": {**STR, "enum": list(TOURNAMENT_KINDS)},
                "game": STR,
                "options": options,
                "players_per_match": INT,
                "rounds": {**INT, "nullable": True},
                "rated": BOOL,
                "bots_allowed": BOOL,
                "max_players": INT,
                "seed_commitment": {**STR, "description": "SHA-256 (hex) of the seed."},
                "duration_minutes": {**INT, "description": "An arena's window."},
                "knockout_draws": {
                    **STR,
                    "enum": list(KNOCKOUT_DRAWS),
                    "description": "A knockout's drawn meeting: the higher seed through, or played again.",
                },
                "schedule": _closed(
                    {
                        "starts_at": {
                            **STR,
                            "nullable": True,
                            "description": "When the first round starts by itself (UTC).",
                        },
                        "round_interval": {
                            **INT,
                            "nullable": True,
                            "description": "Seconds from a round's last result to the next round's start.",
                        },
                    },
                    ["starts_at", "round_interval"],
                ),
            },
            [
                "chain",
                "tournament",
                "name",
                "kind",
                "game",
                "options",
                "players_per_match",
                "rounds",
                "rated",
                "bots_allowed",
                "max_players",
                "seed_commitment",
            ],
        ),
        "player_registered": _closed(
            {
                "player": STR,
                "name": STR,
                "rating": {"type": "number"},
                "bot": {**STR, "nullable": True},
            },
            ["player", "name", "rating", "bot"],
        ),
        "player_withdrew": _closed({"player": STR}, ["player"]),
        "round_started": _closed(
            {
                "round": INT,
                "matches": {
                    "type": "array",
                    "items": _closed(
                        {
                            "match": STR,
                            "players": {"type": "array", "items": STR},
                            "meeting": {
                                **STR,
                                "description": "A knockout's: the bracket's meeting it decides.",
                            },
                        },
                        ["match", "players"],
                    ),
                },
                "byes": {
                    "type": "array",
                    "items": _closed({"player": STR, "points": FRACTION}, ["player", "points"]),
                },
                "walkovers": {
                    "type": "array",
                    "description": "A knockout's meetings decided without a game: who goes through each.",
                    "items": _closed({"meeting": STR, "player": STR}, ["meeting", "player"]),
                },
                "seeds": {
                    "type": "array",
                    "items": STR,
                    "description": "A knockout's first round: the field in seed order.",
                },
                "at": {**STR, "description": "An arena's wave: when it was paired (UTC)."},
                "closes": {**STR, "description": "An arena's first wave: when its window closes (UTC)."},
                "started_by": {
                    **STR,
                    "enum": ["schedule"],
                    "description": "A round the tournament's schedule started at its time (absent: the "
                    "organiser, or an arena's own pairing).",
                },
            },
            ["round", "matches", "byes"],
        ),
        "game_finished": _closed(
            {"round": INT, "match": STR, "ranks": {"type": "array", "items": INT}},
            ["round", "match", "ranks"],
        ),
        "tournament_finished": _closed(
            {
                "seed": STR,
                "standings": {"type": "array", "items": ref("TournamentStanding")},
                "at": {**STR, "description": "An arena's end: when it finished (UTC)."},
            },
            ["seed", "standings"],
        ),
    }


def feed_event(events: list[str], said: str, entry: str, data: str, description: str) -> dict[str, Any]:
    """A live feed's event as a component, its data decoded: an ``entry`` component or the end's {}."""
    return _closed(
        {
            "event": {"type": "string", "enum": events, "description": said},
            "id": {**STR, "pattern": "^[0-9]+$", "description": "The entry's version (end: the last one)."},
            "retry": {**INT, "description": "How long a client waits before reconnecting, in ms."},
            "data": {"oneOf": [ref(entry), ref("FeedEnd")], "description": data},
        },
        [],
        description,
    )


def tournament_components(games: list[Game], served: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """A tournament's log entries, one closed component per type and ``TournamentEntry`` one of them (by
    ``type``); the settings the tournament answers show, typed as a match's."""
    out: dict[str, dict[str, Any]] = {}
    mapping = {}
    for type_, data in tournament_data(games).items():
        name = f"Tournament{camel(type_)}Entry"
        out[name] = _closed(
            {
                "version": INT,
                "type": {**STR, "enum": [type_]},
                "seat": {**INT, "nullable": True, "enum": [None]},
                "data": data,
                "at": ref("EntryAt"),
                "hash": ref("EntryHash"),
            },
            ["version", "type", "seat", "data", "at", "hash"],
        )
        mapping[type_] = REF + name
    out["TournamentEntry"] = {
        "description": "An entry of a tournament's log, by its type (docs/reference/pairing.md).",
        "oneOf": [{"$ref": target} for target in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    served["TournamentLog"]["properties"]["entries"]["items"] = ref("TournamentEntry")
    created = out["TournamentTournamentCreatedEntry"]["properties"]["data"]["properties"]
    served["Tournament"]["properties"]["options"] = created["options"]
    served["Tournament"]["properties"]["current_round"] = {
        "allOf": [ref("TournamentRound")],
        "nullable": True,
        "description": "The round being played or last played (null before the first).",
    }
    served["Tournament"]["properties"]["bracket"] = {
        "allOf": [ref("TournamentBracket")],
        "nullable": True,
        "description": "A knockout's bracket once its first round started (null otherwise).",
    }
    served["CreateTournament"]["properties"]["options"] = {
        "anyOf": [ref(f"{prefix(game)}CreateOptions") for game in games],
        "description": served["CreateTournament"]["properties"]["options"].get("description", ""),
    }
    out["TournamentFeedEntry"] = _closed(
        {
            "tournament": STR,
            "entry": ref("TournamentEntry"),
            "standings": {
                "type": "array",
                "items": ref("TournamentStanding"),
                "nullable": True,
                "description": "The standings after the entry, as GET shows them, on the last entry of what the "
                "stream sends at once (its backlog, or what one append brought); null on the entries before it.",
            },
        },
        ["tournament", "entry", "standings"],
        "An entry of a tournament's live feed (GET /v1/tournaments/{tournament_id}/events/stream).",
    )
    out["TournamentFeedEvent"] = feed_event(
        ["message", "end"],
        "message (the default) for an entry; end: the tournament has finished.",
        "TournamentFeedEntry",
        "The event's data line, decoded from its JSON: the entry with the standings (TournamentFeedEntry); "
        "{} with end.",
        "One event of a tournament's live feed (Server-Sent Events), its data decoded: an entry (id: its "
        "version), end (data: {}), or the retry advice that opens the stream. A component, so that generated "
        "clients have its type.",
    )
    return out
