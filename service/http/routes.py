"""The HTTP API's matches, ``/v1``: games, matches, their seats and actions, and jobs, as thin views over the
use cases. Each view authenticates, checks the request's shape, calls one use case and shapes the answer;
rules and storage live elsewhere. The blueprint ``v1`` is here; the log and live feed, webhooks, players and
analyses join it from their own modules (``feed_routes``, ``webhook_routes``, ``player_routes``,
``analysis_routes``), and the probes are ``probe_routes``. A view's docstring is its operation's summary and
description in the contract, so it is written in Markdown (`single backticks`), as OpenAPI reads it."""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable, Hashable
from http import HTTPStatus
from typing import Any, TypeVar, cast

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask, Request, Response, current_app, request
from flask_smorest import Blueprint as _Blueprint
from flask_smorest.utils import deepupdate
from marshmallow import Schema, ValidationError
from webargs.flaskparser import FlaskParser

from service import metrics, versions
from service.application import entry_time, listings, records
from service.application.idempotency import ANYONE
from service.application.matches import Matches, NewMatch
from service.application.scoring import Scoring
from service.application.seats import Seats
from service.domain import clocks, projections, replay
from service.domain.lifecycle import refusals_of
from service.domain.replay import SHELL_EVENTS, MatchState
from service.domain.tokens import is_platform_key, seat_for, token_hash
from service.domain.tournaments import PUSHED as TOURNAMENT_EVENTS
from service.games import GAMES, legal_actions_component
from service.games.bots import bots_of, shown_bot
from service.games.kit import game_words
from service.games.protocol import Game, InvalidRecord
from service.games.texts import carries_texts, catalogue, language, schema_said
from service.http import fastload, schemas
from service.http.auth import (
    acting_seat,
    bearer,
    holder,
    request_owner,
    request_platform,
    request_seat,
    seat_acting,
    seat_of_request,
)
from service.http.errors import ApiError, flatten, invalid, retry_after, unknown_game
from service.http.middleware.guards import GuardedJSON
from service.http.middleware.pipeline import Answer, Exchange, answer_in_flask
from service.http.viewer import pages
from service.store import packs
from service.store.repository import Lru, MatchNotFound

_ = catalogue(__file__).gettext

# private: flask-smorest's documentation of a view (``_apidoc``, ``_prepare_doc_cbks``, ``utils.deepupdate``) in
# Blueprint below, webargs's ``_raw_load_json`` in _Parser
versions.require("flask-smorest", "0.47.", user=__name__)
versions.require("webargs", "8.", user=__name__)

View = TypeVar("View", bound=Callable[..., Any])
"""A view function, as a decorator gives it back."""


class _Parser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 400  # a body that fails its schema is a bad request, not 422

    def _raw_load_json(self, req: Request) -> Any:
        # through Flask's (guarded) JSON, so that every body is read by the same rules
        return req.get_json() if req.is_json else super()._raw_load_json(req)


class Blueprint(_Blueprint):
    """flask-smorest's blueprint, with documentation that depends on the games: it is built when
    the app is, from the games registered then (``games_doc``), not when this module is imported."""

    ARGUMENTS_PARSER = _Parser()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._prepare_doc_cbks.extend([self._prepare_games_doc, self._shared_parameters])

    @staticmethod
    def contract(*decorators: Callable[[View], View]) -> Callable[[View], View]:
        """Document an operation with flask-smorest's decorators (``arguments``, ``response``, ``doc``...)
        without their wrappers: the view reads its request and makes its answer itself, once, and
        flask-smorest only writes the contract. The decorators apply as if stacked in this order."""

        def decorate(view: View) -> View:
            documented = view
            for decorator in reversed(decorators):
                documented = decorator(documented)
            view._apidoc = documented._apidoc  # type: ignore[attr-defined]  # flask-smorest's, on the function
            return view

        return decorate

    @staticmethod
    def _prepare_games_doc(doc: dict[str, Any], doc_info: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        build = doc_info.get("games_doc")
        return deepupdate(doc, build(list(GAMES.values()))) if build else doc

    @staticmethod
    def _shared_parameters(doc: dict[str, Any], doc_info: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """The ``Idempotency-Key`` header as a reference to its one description (``document_shared``), not
        written out again on every operation that takes it."""
        if "parameters" in doc:
            doc["parameters"] = [
                IDEMPOTENCY_KEY
                if isinstance(p, dict) and isinstance(p.get("schema"), schemas.IdempotencyHeaderSchema)
                else p
                for p in doc["parameters"]
            ]
        return doc

    @staticmethod
    def games_doc(build: Callable[[list[Game]], dict]) -> Callable[[View], View]:
        """Document an operation with ``build(games)``, an OpenAPI operation fragment."""

        def decorate(view: View) -> View:
            view._apidoc = {**getattr(view, "_apidoc", {}), "games_doc": build}  # type: ignore[attr-defined]
            return view

        return decorate


SVG = "image/svg+xml"
JSON = "application/json"
JSONL = "application/jsonl"
EVENT_STREAM = "text/event-stream"
TEXT = "text/plain"
Security = list[dict[str, list[str]]]  # OpenAPI's security requirements: any one of them will do
SEAT: Security = [{"seatToken": []}]
SEAT_OR_PLATFORM: Security = [
    {"seatToken": []},
    {"platformKey": []},
]  # a seat of the match, or the match's platform
PLATFORM: Security = [{"platformKey": []}]
OPTIONAL_CREDENTIAL: Security = [{}, {"seatToken": []}, {"platformKey": []}]
"""The document's own security, which an operation that declares none has: no credential, a seat token or a
platform key (a spectator's read, an anonymous create; a credential an operation has no use for changes
nothing). Declared once there, not on each operation: openapi-python-client reads an operation's own
``security`` as a credential required, and would not let its plain ``Client`` call it."""
NO_CREDENTIAL: Security = []  # an operation nobody's credential changes, apart from the document's
PLATFORM_OR_CREATOR: Security = [
    {"platformKey": []},
    {"creatorToken": []},
]  # the match's platform, or its creator

log = logging.getLogger("matchlog")

v1 = Blueprint("v1", __name__, url_prefix="/v1", description="Games, matches, their logs and jobs.")


def matches() -> Matches:
    return current_app.extensions["matchlog"]


ERROR_ANSWERS = {
    400: "The request does not fit its schema (invalid_request, with fields).",
    401: "No seat token, or a malformed Authorization header.",
    403: "The token is not a seat of this match.",
    404: "No such match, version or job.",
    409: "version_conflict: the match moved on (current_version says where it is); out_of_time: the seat's "
    "clock ran out first (the timeout was applied); seat_taken for a join; hidden_until_revealed for the "
    "checkpoint of a hidden-information match whose log predates sealed hash chains, until its end; "
    "idempotency_key_in_progress: the first request with this Idempotency-Key is still running.",
    406: "The game cannot answer in the asked content type.",
    413: "The body is larger than the server accepts (64 KiB by default).",
    415: "The body's Content-Type is neither JSON nor a game record type.",
    422: "illegal_action (with reason; with move for a game record), idempotency_key_reused (the "
    "Idempotency-Key came with another request before), or "
    "seed_known_to_creator_refused (reason open_seat or public: a creator who knows the seed knows every "
    "hand).",
    429: "too_many_requests: over the server's write limit per token or address, or its read limit per "
    "address; Retry-After says when.",
    503: "storage_unavailable (the match store is unreachable or failing over) or not_replicated (no replica "
    "confirmed the write in time): the write may or may not have landed; send it again with the same "
    "Idempotency-Key to learn which. Retry-After says when.",
}
"""The error answers every operation shares (each an ``Error``), by status: written once in the contract, as
``components/responses`` named after the status (``BadRequest``...; flask-smorest's own upper-case names
are its generic answers), and referred to by every operation."""

STREAM_REFUSALS = {
    "TooManyStreams": (
        429,
        "too_many_streams: this client address holds as many live feeds as the server allows one address; "
        "Retry-After says when to try again.",
    ),
    "StreamsFull": (
        503,
        "streams_full: this server process holds as many live feeds as it may (another may have room), or "
        "storage_unavailable; Retry-After says when.",
    ),
}
"""The refusals of every held stream (a match's live feed, a tournament's), by the name of their shared answer
in the contract's ``components/responses``: the status and its description."""

IDEMPOTENCY_KEY = "IdempotencyKey"
"""The ``Idempotency-Key`` header's name among the contract's ``components/parameters``."""


def _errors(*codes: int) -> Callable[[View], View]:
    """Document the error answers of an operation, by reference to ``ERROR_ANSWERS``; a status the view
    documents itself (decorated below this) keeps its own answer."""

    def decorate(view: View) -> View:
        # flask-smorest's record of what the decorators below documented (see Blueprint.contract)
        own = getattr(view, "_apidoc", {}).get("response", {}).get("responses", {})
        # every request but the probes' counts in a rate limit: 429 always
        for code in sorted({*codes, 429} - {int(c) for c in own}):
            view = v1.alt_response(code, error_answer(code))(view)
        return view

    return decorate


def error_answer(code: int) -> str:
    """The name of the contract's shared answer of an error ``code`` (``ERROR_ANSWERS``)."""
    return "".join(word.capitalize() for word in HTTPStatus(code).name.split("_"))


def document_shared(spec: APISpec) -> None:
    """Write the answers and the header that many operations share once, in the contract's components
    (``ERROR_ANSWERS``, ``IDEMPOTENCY_KEY``), for the operations to refer to."""
    spec.components.header(
        "RetryAfter",
        {
            "description": "The seconds to wait before trying again.",
            "schema": {"type": "integer", "minimum": 1},
        },
    )
    for code, description in ERROR_ANSWERS.items():
        answer: dict[str, Any] = {
            "description": description,
            "content": {JSON: {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
        if retry_after(code, None) is not None:  # the answers that always say when to try again
            answer["headers"] = {"Retry-After": "RetryAfter"}
        spec.components.response(error_answer(code), answer)
    for name, (_, description) in STREAM_REFUSALS.items():
        spec.components.response(
            name,
            {
                "description": description,
                "content": {JSON: {"schema": {"$ref": "#/components/schemas/Error"}}},
                "headers": {"Retry-After": "RetryAfter"},
            },
        )
    # the parameter as the marshmallow plugin writes it out from the schema, once
    marshmallow = next(plugin for plugin in spec.plugins if isinstance(plugin, MarshmallowPlugin))
    converter = marshmallow.converter
    if converter is None:  # the plugin gets one when the spec is made, before any blueprint is documented
        raise RuntimeError("document_shared needs the spec's marshmallow plugin initialised")
    (key,) = converter.schema2parameters(schemas.IdempotencyHeaderSchema(), location="headers")
    spec.components.parameter(IDEMPOTENCY_KEY, key.pop("in"), key)


def catalogue_entry(game: Game) -> dict[str, Any]:
    """A game as ``GET /v1/games`` lists it: its description and its options' descriptions in the reader's
    language (the game's catalogue), everything a machine reads as it is."""
    info = game.info
    say = game_words(type(game).__module__)
    return {
        "id": info.id,
        "name": info.name,
        "min_players": info.min_players,
        "max_players": info.max_players,
        "player_counts": info.counts(),
        "hidden_information": info.hidden_information,
        "chance": info.chance,
        "dynamics": info.dynamics,
        "utility": info.utility,
        "utility_by_option": {option: dict(values) for option, values in info.utility_by_option.items()},
        "description": say(info.description),
        "options_schema": schema_said(game.options_schema, say),
        "packs": packs.installed(game, matches().settings.packs_dir),
        "pictures": [SVG] if game.svg is not None else [],
        "record_type": game.record.mime if game.record is not None else None,
        "timeouts": ["bot", *sorted(game.timeout_actions)],
        "bots": sorted(bots_of(game)),
        "entry_types": sorted({*SHELL_EVENTS, *game.event_types}),
        "refusals": [
            {
                "reason": code,
                "rule": refusal.rule,
                "description": refusal_text(game, code, refusal.description),
                "by": "game" if code in game.refusals else "server",
            }
            for code, refusal in refusals_of(game).items()
        ],
    }


def refusal_text(game: Game, code: str, description: str) -> str:
    """A refusal's description in the reader's language: a game's from its catalogue, the server's (and the
    turn checks every game declares) from the shell's."""
    said = game_words(type(game).__module__)(description) if code in game.refusals else description
    return said if said != description else _(description)


OTHER_EVENTS = frozenset({"rating_changed", "seek_paired", "seek_expired", *TOURNAMENT_EVENTS.values()})
"""What a webhook may ask for besides log entries: ``rating_changed``, a match's players rated
(``workers.jobs.rate_match``); ``seek_paired`` and ``seek_expired``, what became of the platform's seeks
(``service.application.seeks``); ``tournament_round_started``, ``tournament_game_finished`` and
``tournament_finished``, its tournaments' changes with their standings (``service.application.tournaments``)."""


def entry_types() -> frozenset[str]:
    """What a webhook may ask for: the entry types of any game hosted here (registered games included)."""
    return frozenset(SHELL_EVENTS).union(*(game.event_types for game in GAMES.values()))


def _opening_example() -> tuple[dict[str, Any], dict[str, Any]]:
    """The create body and the action body the contract shows (Swagger UI's "Try it out" sends them as they
    are): a two-player match of the first game hosted without chance whose opening no seed changes, and the
    first move its first seat to act is listed, legal as it is in any such match. Taken from the engines, so
    that this module names no game."""
    for game in GAMES.values():
        if 2 not in game.info.counts() or game.info.chance:
            continue
        try:
            options = game.resolve_options({}, 2)
            openings = [game.setup(options, 2, seed) for seed in ("example-1", "example-2")]
        except Exception:  # a game that needs its content pack to set up: not an example
            continue
        listed = [game.legal_actions(state, game.to_act(state)[0]) for state in openings]
        if listed[0] and listed[0] == listed[1]:
            action = listed[0][0]
            names = game.action_names
            return (
                {"game": game.info.id, "players": [{"name": "alice"}, {"name": "bob"}]},
                {"expected_version": 1, "action": names.for_clients(action) if names is not None else action},
            )
    return {}, {}


CREATE_EXAMPLE, ACTION_EXAMPLE = _opening_example()


def _record_bodies(games: list[Game]) -> dict[str, Any]:
    return {
        game.record.mime: {
            "schema": {"type": "string", "description": game.record.description},
            "example": game.record.example,
        }
        for game in games
        if game.record is not None
    }


@v1.route("/games", methods=["GET"])
@v1.doc(operationId="listGames")
@v1.doc(security=NO_CREDENTIAL)
@v1.response(200, schemas.GameSchema(many=True))
@_errors()
def list_games() -> list[dict[str, Any]]:
    """The games this server hosts, with the JSON Schema of each game's options."""
    return [catalogue_entry(game) for game in GAMES.values()]


def _match_links() -> dict[str, Any]:
    """OpenAPI links from a created match to what can be done with it (clients and stateful test
    tools follow them)."""
    operations = {
        "GetMatch": ("/v1/matches/{match_id}", "get"),
        "GetState": ("/v1/matches/{match_id}/state", "get"),
        "GetLegalActions": ("/v1/matches/{match_id}/legal-actions", "get"),
        "SubmitAction": ("/v1/matches/{match_id}/actions", "post"),
        "GetEvents": ("/v1/matches/{match_id}/events", "get"),
        "GetLog": ("/v1/matches/{match_id}/log", "get"),
        "GetCheckpoint": ("/v1/matches/{match_id}/checkpoint", "get"),
        "ScoreMatch": ("/v1/matches/{match_id}/score", "post"),
    }
    return {
        name: {
            "operationRef": "#/paths/" + path.replace("/", "~1") + "/" + method,
            "parameters": {"match_id": "$response.body#/id"},
        }
        for name, (path, method) in operations.items()
    }


@v1.route("/signing-key", methods=["GET"])
@v1.doc(operationId="getSigningKey")
@v1.doc(security=NO_CREDENTIAL)
@v1.response(200, schemas.SigningKeySchema)
@_errors()
def get_signing_key() -> dict[str, Any]:
    """The public key this server signs checkpoints with: fetch it once and keep it, then check
    every checkpoint against it (`matchlog replay --public-key`)."""
    return {"algorithm": "Ed25519", "public_key": matches().stores.server_key.public_key}


@v1.route("/matches", methods=["POST"])
@v1.doc(operationId="createMatch")
@v1.response(201, schemas.CreatedMatchSchema)
@v1.doc(responses={201: {"links": _match_links()}})  # OPTIONAL_CREDENTIAL
@v1.games_doc(
    lambda games: {
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {"$ref": "#/components/schemas/CreateMatch"},
                    "example": CREATE_EXAMPLE,
                },
            },
        }
    }
)
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@_errors(400, 409, 413, 415, 422, 429, 503)
def create_match(headers: dict[str, Any]) -> dict[str, Any]:
    """Create a match. The answer holds one secret token per seat: it is shown only this once.

    From a game record: `POST /v1/imports`. (A body in a game's record format, its
    `record_type` in the catalogue, is still taken here, deprecated: docs/reference/naming.md.)"""
    owner = _creator()
    if request.mimetype in records.record_games():
        try:  # as_text would turn bytes that are not UTF-8 into U+FFFD, and so into a player's name; a BOM goes
            text = request.get_data().decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise InvalidRecord(f"it is not UTF-8 (byte {error.start})") from None
        asked: Any = [request.mimetype, text]
        new = lambda: records.from_record(request.mimetype, text, owner)  # noqa: E731
    elif request.mimetype == "application/json":
        try:
            body = schemas.CreateMatchSchema().load(request.get_json())
        except ValidationError as error:
            raise invalid(flatten(error.messages)) from None
        names = [None if p.get("open") else p.get("name") or f"{p['bot']} bot" for p in body["players"]]
        asked = [JSON, request.get_json()]
        new = lambda: NewMatch(  # noqa: E731
            body["game"],
            names,
            body["options"],
            body.get("seed"),
            seed_known_to_creator=body["seed_known_to_creator"],
            platform=owner,
            public=body.get("public"),
            bots=[_bot(p) for p in body["players"]],
            undo=body["undo"],
            clock=_clock(body),
            player_ids=[p.get("player") for p in body["players"]],
            client=request.remote_addr,  # behind proxies, their client (as the rate limits count it)
        )
    else:
        raise ApiError(
            415,
            "unsupported_media_type",
            _(
                "send application/json or one of the game record types {types}",
                types=sorted(records.record_games()),
            ),
        )

    return _opened(new, asked, "create", owner, headers.get("idempotency_key"))


def _creator() -> str | None:
    """The platform a new match is for (None: anonymous), or 401 where only platforms create matches."""
    platform = request_platform(matches())
    if platform is None and not matches().settings.anonymous_matches:
        raise ApiError(
            401,
            "platform_key_required",
            _("this server creates matches for platforms only: Authorization: Bearer <platform key>"),
        )
    return platform["id"] if platform else None


def _opened(new: Callable[[], NewMatch], asked: Any, scope: str, owner: str | None, key: str | None) -> dict:
    """The answer of a create: the match ``new`` makes, opened once per idempotency key (``asked``: what the
    request asked, which a retry must ask again)."""

    def create(remember: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
        created = matches().open_match(new())
        state, tokens = created.state, created.tokens
        creator = {"creator_token": created.creator_token} if created.creator_token else {}
        return {
            "id": created.match_id,
            "game": state.game_id,
            "version": state.version,
            "seats": [
                _created_seat(state, created.match_id, i, tokens[i]) for i in range(len(state.players))
            ],
            "spectate_url": pages.spectate_url(created.match_id),
            **creator,
        }

    # a platform's key is scoped by the platform; an anonymous one by the key itself and the body
    return matches().idempotency.once(
        None, scope, f"platform:{owner}" if owner else ANYONE, key, asked, create
    )


@v1.route("/imports", methods=["POST"])
@v1.doc(operationId="importMatch")
@v1.arguments(schemas.ImportMatchSchema())
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(201, schemas.CreatedMatchSchema)
@v1.games_doc(lambda games: {"requestBody": {"content": {JSON: {"example": _record_example(games)}}}})
@_errors(400, 409, 413, 422, 429, 503)
def import_match(body: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """Create a match from a game record (its `record_type` in the catalogue, an SGF dialect for instance),
    by replaying it through the rules: an ordinary match with an ordinary log. A record with an illegal move
    is refused (422, with `move`, its number, and `reason`, the rule) and nothing is stored."""
    owner = _creator()
    kind, text = body["record_type"], body["record"]
    new = lambda: records.from_record(kind, text, owner)  # noqa: E731
    return _opened(new, [kind, text], "import", owner, headers.get("idempotency_key"))


def _record_example(games: list[Game]) -> dict[str, str] | None:
    formats = [game.record for game in games if game.record is not None]
    return {"record_type": formats[0].mime, "record": formats[0].example} if formats else None


@v1.route("/matches", methods=["GET"])
@v1.doc(operationId="listMatches")
@v1.arguments(schemas.LobbyQuerySchema(), location="query")
@v1.response(200, schemas.LobbySchema)
@_errors(400, 401)
def list_matches(query: dict[str, Any]) -> Response:
    """Matches by creation time (`order`: oldest first, or newest), optionally of one `game` and
    `status`; `cursor` pages on. With a platform key: the platform's own matches. Without: the
    lobby with `status=open` (matches with a seat still open), else the public matches."""
    if query.get("game") is not None and query["game"] not in GAMES:
        raise unknown_game(query["game"])
    platform = request_platform(matches())
    found, _more, next_cursor = listings.listed_rows(
        matches().stores.listings,
        platform["id"] if platform else None,
        query.get("game"),
        query.get("status"),
        query.get("cursor"),
        query["limit"],
        newest_first=query["order"] == "newest",
    )
    provider = cast(GuardedJSON, current_app.json)
    if provider.indented:  # answers for people: the rows decoded, to be indented
        return provider.response({"matches": json.loads(b"[" + found + b"]"), "next_cursor": next_cursor})
    # the rows as each append encoded them (``rows``), joined: a page encodes only its cursor and clocks
    body = b'{"matches":[' + found + b'],"next_cursor":' + provider.part(next_cursor) + b"}\n"
    return current_app.response_class(body, mimetype=provider.mimetype)


def _bot(player: dict[str, Any]) -> str | None:
    """A seat's bot as the log keeps it: its name, and its level when one is given."""
    if not player.get("bot"):
        return None
    return f"{player['bot']}:{player['level']}" if "level" in player else player["bot"]


def _clock(body: dict[str, Any]) -> dict[str, Any] | None:
    """The clock settings as the log keeps them (milliseconds), with the timeout policy."""
    if "clock" not in body:
        return None
    return {f"{name[:-2]}_ms": round(seconds * 1000) for name, seconds in body["clock"].items()} | {
        "on_timeout": body["on_timeout"]
    }


def _created_seat(state: MatchState, match_id: str, seat: int, token: str | None) -> dict[str, Any]:
    """A seat as its creator sees it: a person's with its token (shown only now), an open one, a bot."""
    if state.players[seat] is None:
        return {"seat": seat, "open": True}
    if state.bot_of(seat):
        return {"seat": seat, "name": state.players[seat], **shown_bot(state.bot_of(seat))}
    play = {"play_url": pages.play_url(match_id, token)} if token else {}
    return {"seat": seat, "name": state.players[seat], "token": token, **play}


@v1.route("/matches/<match_id>/abort", methods=["POST"])
@v1.doc(operationId="abortMatch")
@v1.arguments(schemas.AbortSchema(), example={"reason": "the players agreed to stop"})
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(200, schemas.MatchSchema)
@v1.doc(security=PLATFORM_OR_CREATOR)
@_errors(400, 401, 403, 404, 409, 422, 429, 503)
def abort_match(body: dict[str, Any], headers: dict[str, Any], match_id: str) -> dict[str, Any]:
    """End the match where it stands (its platform asks, with its key, or the creator of a match made
    without a platform key, with the `creator_token`): `match_aborted`, with the seed revealed so the
    log stays auditable; nobody acts after. 409 `match_over` when it has ended."""
    token = bearer()
    if token is not None and not is_platform_key(token) and matches().is_creator(match_id, token):
        caller, reason = "creator", body.get("reason", "aborted by its creator")
    else:
        does = (
            _("aborts it")
            if matches().repository.meta(match_id).platform
            else _("or its creator (creator_token) aborts it")
        )
        caller = "platform:" + request_owner(matches(), match_id, does)["id"]
        reason = body.get("reason", "aborted by its platform")
    return matches().abort(match_id, reason, headers.get("idempotency_key"), caller)


@v1.route("/matches/<match_id>/concede", methods=["POST"])
@v1.doc(operationId="concede")
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(201, schemas.AcceptedSchema)
@v1.doc(security=SEAT)
@_errors(400, 401, 403, 404, 409, 422, 429, 503)
def concede(headers: dict[str, Any], match_id: str) -> dict[str, Any]:
    """The token's seat concedes (in any game): `seat_conceded`. With fewer than two seats left in play
    the match ends there; otherwise the others play on and the server takes the seat's turns (the game's
    pass or forfeit, else a random legal move). A seat that conceded ranks after every seat still in play.
    422 with reason `seat_conceded` (again), `game_over`, `match_not_started`..."""
    return of_game(
        match_id,
        matches().concede(
            match_id, acting_seat(matches(), match_id), headers.get("idempotency_key"), holder()
        ),
    )


@v1.route("/matches/<match_id>/seats/<int(signed=True):seat>/join", methods=["POST"])
@v1.doc(operationId="joinSeat")
@v1.doc(security=NO_CREDENTIAL)
@v1.arguments(schemas.JoinSchema(), example={"name": "carol"})
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(201, schemas.JoinedSchema)
@_errors(400, 404, 409, 422, 429, 503)
def join_seat(body: dict[str, Any], headers: dict[str, Any], match_id: str, seat: int) -> dict[str, Any]:
    """Take an open seat: its token is in the answer, shown only this once. Of two joins for one seat,
    one gets it and the other 409 `seat_taken` (`match_over` once the match was aborted). The join that
    fills the last seat starts the match
    (`match_started`): nobody can act before. A `player` id takes the match's platform key."""
    if (
        body.get("player") and matches().repository.meta(match_id).platform is not None
    ):  # anonymous: a 400 from join
        request_owner(matches(), match_id, _("names its players"))
    return Seats(matches()).join(
        match_id, seat, body["name"], headers.get("idempotency_key"), body.get("player")
    )


@v1.route("/matches/<match_id>/undo", methods=["POST"])
@v1.doc(operationId="undoMove")
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(201, schemas.AcceptedSchema)
@v1.doc(security=SEAT)
@_errors(400, 401, 403, 404, 422, 429, 503)
def undo_move(headers: dict[str, Any], match_id: str) -> dict[str, Any]:
    """Take back the seat's last move: `undone` at once (undo `until_next_action`), or an
    `undo_requested` the other seats answer (`with_consent`). The log keeps both the move and the
    undo. 422 with a reason: `undo_off`, `nothing_to_undo`, `hidden_information_revealed`..."""
    return of_game(
        match_id,
        matches().undo(match_id, acting_seat(matches(), match_id), headers.get("idempotency_key"), holder()),
    )


@v1.route("/matches/<match_id>/undo/accept", methods=["POST"])
@v1.doc(operationId="acceptUndo")
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(201, schemas.AcceptedSchema)
@v1.doc(security=SEAT)
@_errors(400, 401, 403, 404, 422, 429, 503)
def accept_undo(headers: dict[str, Any], match_id: str) -> dict[str, Any]:
    """Accept the undo another seat asked for; the last acceptance undoes the move."""
    return of_game(
        match_id,
        matches().answer_undo(
            match_id, acting_seat(matches(), match_id), True, headers.get("idempotency_key"), holder()
        ),
    )


@v1.route("/matches/<match_id>/undo/refuse", methods=["POST"])
@v1.doc(operationId="refuseUndo")
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(201, schemas.AcceptedSchema)
@v1.doc(security=SEAT)
@_errors(400, 401, 403, 404, 422, 429, 503)
def refuse_undo(headers: dict[str, Any], match_id: str) -> dict[str, Any]:
    """Refuse the undo another seat asked for: the move stands."""
    return of_game(
        match_id,
        matches().answer_undo(
            match_id, acting_seat(matches(), match_id), False, headers.get("idempotency_key"), holder()
        ),
    )


@v1.route("/matches/<match_id>/seats/<int(signed=True):seat>/replace", methods=["POST"])
@v1.doc(operationId="replaceSeat")
@v1.arguments(schemas.ReplaceSeatSchema(), example={"bot": "greedy"})
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(200, schemas.ReplacedSchema)
@v1.doc(security=PLATFORM)
@_errors(400, 401, 403, 404, 409, 422, 429, 503)
def replace_seat(body: dict[str, Any], headers: dict[str, Any], match_id: str, seat: int) -> dict[str, Any]:
    """Hand a seat to a bot (a player who left) or back to a person, by the match's platform:
    `seat_replaced` in the log. The seat's old token can no longer act, in any process, and its reads end
    within 2 s; a person's new one is in the answer, shown only this once. 409 `seat_taken` for an open
    seat, `match_over` after the end."""
    owner = request_owner(matches(), match_id, _("hands its seats over"))
    return Seats(matches()).replace_seat(
        match_id,
        seat,
        body.get("name"),
        _bot(body),
        headers.get("idempotency_key"),
        "platform:" + owner["id"],
        body.get("player"),
    )


@v1.route("/matches/<match_id>", methods=["GET"])
@v1.doc(operationId="getMatch")
@v1.response(200, schemas.MatchSchema)
@_errors(401, 404)
def get_match(match_id: str) -> dict[str, Any]:
    """Status, version, players, options, who may act now, and the result once scored.

    Anyone may read it; a platform key nobody issued is a 401 here as everywhere (a client with a revoked
    key learns so). The match's platform (its key) and its seats (their tokens) also see each seat's
    `player`, the platform's player id of whoever holds it."""
    platform = request_platform(matches())
    state = matches().load(match_id)
    body = projections.summary(match_id, state, entry_time.now())
    if _holds_the_match(match_id, platform):
        _at, entries = matches().repository.read(match_id)
        ids = projections.player_ids(entries)
        body["players"] = [
            {**p, "player": ids[p["seat"]]} if p["seat"] in ids else p for p in body["players"]
        ]
    analysed = matches().stores.analyses.status(match_id) if state.finished else None
    if analysed is not None:
        body["analysis"] = analysed
    return body


def _holds_the_match(match_id: str, platform: dict[str, Any] | None) -> bool:
    """Whether the request's credential is the match's platform key or a seat token of the match: who sees
    the seats' player ids in this summary (any other reader sees names only here; the log's entries carry
    them whole, for whoever may read the log). Anything else reads on, as anyone."""
    if platform is not None:
        return platform["id"] == matches().repository.meta(match_id).platform
    token = bearer()
    return token is not None and seat_for(token, matches().repository.meta(match_id).seat_hashes) is not None


@v1.route("/matches/<match_id>/state", methods=["GET"])
@v1.doc(operationId="getState")
@v1.arguments(schemas.StateQuerySchema(), location="query")
@v1.response(200, schemas.StateSchema)
@v1.doc(
    responses={
        "200": {"description": "OK", "content": {JSON: {"schema": {"$ref": "#/components/schemas/State"}}}}
    }
)
@_errors(400, 401, 403, 404, 406)
def get_state(query: dict[str, Any], match_id: str) -> dict[str, Any] | Response:
    """The state as the caller may see it (a seat with its token, else a spectator), now or at `version`.

    Its picture is `GET .../picture`. (`Accept: image/svg+xml` here still answers it, deprecated: a JSON
    answer's type is JSON alone, docs/reference/naming.md.)"""
    seat = request_seat(matches(), match_id, required=False, platform="view")
    state = matches().load(match_id, query.get("version"))
    view = state.engine.view(state.game, seat)
    if _wants(SVG, ["application/json", SVG]):
        return _picture(state, view)
    # the latest version's clocks run on until now; an earlier version's stood still at its own entry
    as_of = entry_time.now() if query.get("version") is None else None
    clock = {"clock": clocks.shown(state.clock, as_of)} if state.clock is not None else {}
    return {"game": state.engine.info.id, "version": state.version, "state": view, **clock}


@v1.route("/matches/<match_id>/picture", methods=["GET"])
@v1.doc(operationId="getPicture")
@v1.arguments(schemas.StateQuerySchema(), location="query")
@v1.doc(
    responses={
        "200": {
            "description": "An SVG picture of the state as the caller may see it (X-Match-Version: its version).",
            "content": {SVG: {"schema": {"type": "string"}}},
        }
    }
)
@_errors(400, 401, 403, 404, 406)
def get_picture(query: dict[str, Any], match_id: str) -> Response:
    """A picture of the state as the caller may see it, now or at `version`, for games that draw
    themselves (the catalogue's `pictures`); another game's is 406 `not_acceptable`."""
    seat = request_seat(matches(), match_id, required=False, platform="view")
    state = matches().load(match_id, query.get("version"))
    return _picture(state, state.engine.view(state.game, seat))


def _picture(state: MatchState, view: dict[str, Any]) -> Response:
    if state.engine.svg is None:
        raise ApiError(
            406,
            "not_acceptable",
            _("{name} has no picture; ask for application/json", name=state.engine.info.name),
        )
    carries_texts()  # its words are the reader's language's: the answer says which and varies with it
    return Response(
        state.engine.svg(view),
        mimetype=SVG,
        headers={"Vary": "Accept", "X-Match-Version": str(state.version)},
    )


def body_types(endpoint: str | None) -> frozenset[str] | set[str]:
    """The body types an endpoint reads (for the request guards)."""
    if endpoint == "v1.create_match":
        return {JSON, *records.record_games()}
    return _JSON_ONLY


_JSON_ONLY = frozenset({JSON})


def answers(endpoint: str | None) -> list[str] | None:
    """The types an endpoint answers in (for the request guards); None: the view negotiates."""
    if endpoint is not None and endpoint.startswith("viewer."):
        return None  # pages and their scripts, for browsers
    if endpoint == "v1.get_state":
        return [JSON, SVG]
    if endpoint == "v1.get_picture":
        return [SVG, JSON]  # (its refusals are JSON)
    if endpoint == "v1.get_record":
        return None
    if endpoint == "v1.get_log":
        return [JSONL, JSON]
    if endpoint in ("v1.stream_events", "v1.stream_tournament"):  # a match's feed, a tournament's
        return [EVENT_STREAM]
    if endpoint == "probes.get_metrics":
        return ["text/plain", JSON]
    return [JSON]


def _wants(mimetype: str, offered: list[str]) -> bool:
    """Whether the request's Accept header prefers ``mimetype`` over the other ``offered`` types
    (a request without Accept takes the first offered)."""
    if not request.accept_mimetypes:
        return mimetype == offered[0]
    return request.accept_mimetypes.best_match(offered) == mimetype


def _legal_actions_doc(games: list[Game]) -> dict[str, Any]:
    """The listing typed per game, told apart by its ``game`` (a discriminator), so that a generated
    client parses each game's action as that game's, not as the first action shape that happens to fit."""
    refs = {game.info.id: f"#/components/schemas/{legal_actions_component(game)}" for game in games}
    return {
        "responses": {
            "200": {
                "description": "OK",
                "content": {
                    JSON: {
                        "schema": {
                            "oneOf": [{"$ref": ref} for ref in refs.values()],
                            "discriminator": {"propertyName": "game", "mapping": refs},
                        }
                    }
                },
                "links": {
                    "SubmitListedAction": {  # any listed action can be posted back unchanged
                        "operationRef": "#/paths/~1v1~1matches~1{match_id}~1actions/post",
                        "parameters": {"match_id": "$request.path.match_id"},
                        "requestBody": {
                            "expected_version": "$response.body#/version",
                            "action": "$response.body#/actions/0",
                        },
                    }
                },
            }
        }
    }


_legal_query = schemas.LegalActionsQuerySchema()


@v1.route("/matches/<match_id>/legal-actions", methods=["GET"])
@v1.doc(operationId="listLegalActions")
@v1.contract(
    v1.arguments(schemas.LegalActionsQuerySchema(), location="query"),
    v1.games_doc(_legal_actions_doc),
    v1.doc(security=SEAT_OR_PLATFORM),
    _errors(400, 401, 403, 404),
)
def get_legal_actions(match_id: str) -> Response:
    """Every action the seat may take now (empty when it is not its turn); with `text=true`, each one's
    words too (`texts`)."""
    return answer_in_flask(legal_actions)


def legal_actions(x: Exchange) -> Answer:
    """``GET /v1/matches/{id}/legal-actions``, its one handler (the request pipeline calls it, or its Flask view):
    the query read as the documented schema reads it, the seat's legal actions answered."""
    environ = x.environ
    texts, asked = False, None
    if environ.get("QUERY_STRING"):  # without one there is nothing for the schema to read or refuse
        texts = v1.ARGUMENTS_PARSER.parse(_legal_query, x.request, location="query")["text"]
        asked = x.request.args.get("seat")
    matches: Matches = x.app.extensions["matchlog"]
    match_id = x.view_args["match_id"]
    seat = seat_of_request(matches, match_id, environ.get("HTTP_AUTHORIZATION"), asked, True, "view")
    assert seat is not None, "a required seat is a seat, or a 401"
    state = matches.load(match_id)
    return Answer(200, legal_actions_body(x.app, match_id, state, seat, texts), [])


LISTED_CACHE_FROM = 64
"""Lists of at least this many legal actions are kept, encoded, for the version they were made at."""
_listed = Lru(256)
KEYED_PARTS = 1 << 17
"""Encoded actions kept per family of keyed actions (``protocol.legal_action_keys``): every placement of the
largest board a game keys (121,732 placements; random games meet 57,000 of them in 60 games), so that a warm worker
encodes no action at all, for some 20 MB at most; a family that outgrows it starts again."""
_parts: dict[tuple[str, Hashable], dict[Hashable, bytes]] = {}


def legal_actions_body(app: Flask, match_id: str, state: MatchState, seat: int, texts: bool = False) -> bytes:
    """The legal-actions answer's body of ``seat`` at ``state`` (the match's latest), with each action's text when
    ``texts``: long lists are encoded once per version and seat, for every client that asks again before the
    match moves on (the key holds the head hash, so a log rebuilt after a restore cannot get another log's
    list); with texts, once per language too."""
    key = (match_id, state.version, state.head_hash, seat, texts and language())
    body = _listed.get(key)
    if body is not None:
        if texts:
            carries_texts()
        return body
    keyed = _keyed_listing(cast(GuardedJSON, app.json), state, seat, texts)
    if keyed is not None:
        body, listed = keyed
        if listed >= LISTED_CACHE_FROM:
            _listed.put(key, body)
        return body
    actions = state.legal_actions(seat)
    said = (
        {"texts": [replay.action_text(state.engine, state.game, seat, a) for a in actions]} if texts else {}
    )
    names = state.engine.action_names
    if names is not None:  # the API's names, where the engine's differ
        actions = [names.for_clients(action) for action in actions]
    body = app.extensions["matchlog-pipeline"].json(
        {"game": state.engine.info.id, "version": state.version, "seat": seat, "actions": actions, **said}
    )
    if len(actions) >= LISTED_CACHE_FROM:
        _listed.put(key, body)
    return body


def _keyed_listing(
    provider: GuardedJSON, state: MatchState, seat: int, texts: bool = False
) -> tuple[bytes, int] | None:
    """The body ``legal_actions_body`` writes and its number of actions, put together from each action's
    JSON, made once per key (``protocol.legal_action_keys``) instead of once per listing: None where
    the game does not key its actions, answers are indented, or orjson leaves an action to the standard
    encoder (as ``GuardedJSON.response`` would the whole answer)."""
    keyed = state.legal_action_keys(seat)
    if keyed is None or provider.indented:
        return None
    family, keys = keyed
    game = state.engine
    parts = _parts.setdefault((game.info.id, family), {})
    try:
        try:
            listed = [parts[key] for key in keys]
        except KeyError:
            if len(parts) > KEYED_PARTS:
                parts.clear()
            names = game.action_names
            listed = []
            for key in keys:
                part = parts.get(key)
                if part is None:
                    action = game.keyed_action(family, key)
                    part = provider.part(names.for_clients(action) if names is not None else action)
                    # a copy: orjson's own bytes keep the room they were written in (some 4 KB a part)
                    parts[key] = part = bytes(memoryview(part))
                listed.append(part)
        head = provider.part({"game": game.info.id, "version": state.version, "seat": seat, "actions": []})
    except TypeError:
        return None
    # the head up to its list's "[", then the list: the bytes of the whole answer encoded at once
    body = [head[:-2], b",".join(listed), b"]"]
    if texts:
        # not kept per key: the words may say more than the key (which colour passes)
        said = [replay.action_text(game, state.game, seat, game.keyed_action(family, key)) for key in keys]
        body += [b',"texts":', provider.part(said)]
    return b"".join((*body, b"}\n")), len(listed)


_submit = schemas.SubmitActionSchema()
_submit_body = fastload.compiled(_submit)
_idempotency_header = schemas.IdempotencyHeaderSchema()
_accepted = schemas.AcceptedSchema()
_accepted_dump = fastload.compiled_dump(_accepted)


def accepted_body(answer: dict[str, Any]) -> dict[str, Any]:
    """An accepted action's answer as ``AcceptedSchema`` dumps it."""
    dumped = _accepted_dump(answer) if _accepted_dump is not None else None
    return _accepted.dump(answer) if dumped is None else dumped


@v1.route("/matches/<match_id>/actions", methods=["POST"])
@v1.doc(operationId="submitAction")
@v1.contract(
    v1.arguments(schemas.SubmitActionSchema(), example=ACTION_EXAMPLE),
    v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers"),
    v1.response(201, schemas.AcceptedSchema),
    v1.doc(security=SEAT),
    _errors(400, 401, 403, 404, 409, 422, 429, 503),
)
def submit_action(match_id: str) -> Response:
    """Play an action for the token's seat, if the match is still at `expected_version`."""
    return answer_in_flask(submit)


def submit(x: Exchange) -> Answer:
    """``POST /v1/matches/{id}/actions``, its one handler (the request pipeline calls it, or its Flask view):
    the body and ``Idempotency-Key`` read as the documented schemas read them, the seat's action played."""
    environ = x.environ
    key = environ.get("HTTP_IDEMPOTENCY_KEY")
    body = _json_body(x)
    loaded = _submit_body(body) if _submit_body is not None else None
    if loaded is None or (key is not None and not _fits(schemas.IDEMPOTENCY_KEY_LENGTH, key)):
        loaded = _submission(body, key)
    matches: Matches = x.app.extensions["matchlog"]
    match_id = x.view_args["match_id"]
    seat, token = seat_acting(matches, match_id, environ.get("HTTP_AUTHORIZATION"))
    game_id = matches.repository.meta(match_id).game_id
    if loaded.get("game", game_id) != game_id:  # the client said which game's action it sends
        raise invalid(
            {"game": [_("this match's game is {game}", game=game_id)]}, _("the action is for another game")
        )
    action = load_action(game_id, loaded["action"])
    answer, headers = played(
        matches, match_id, seat, game_id, action, loaded["expected_version"], key, token_hash(token)
    )
    return Answer(
        201, x.app.extensions["matchlog-pipeline"].json(accepted_body(answer)), list(headers.items())
    )


def _json_body(x: Exchange) -> Any:
    """The body as the documented view read it: JSON through the guarded provider (its refusals as the
    request's), or nothing (an empty object) when it is not JSON."""
    if x.environ.get("CONTENT_TYPE") != JSON and not x.request.is_json:
        return {}
    try:
        return x.app.json.loads(x.body())
    except ValueError as error:
        x.request.on_json_loading_failed(error)  # raises the 400 every JSON body gets
        raise


def _submission(body: Any, key: str | None) -> dict[str, Any]:
    """The body and key loaded by their schemas, or 400 naming the wrong fields, as webargs said it."""
    try:
        loaded = _submit.load(body)
    except ValidationError as error:
        raise invalid(flatten(error.messages)) from None
    try:
        _idempotency_header.load({} if key is None else {"Idempotency-Key": key})
    except ValidationError as error:
        raise invalid(flatten(error.messages)) from None
    return loaded


def _fits(validator: Callable[[str], object], value: str) -> bool:
    try:
        validator(value)
    except ValidationError:
        return False
    return True


def played(
    app: Matches,
    match_id: str,
    seat: int,
    game_id: str,
    action: dict[str, Any],
    expected_version: int,
    idempotency_key: str | None,
    holder: str,
) -> tuple[dict[str, Any], dict[str, str]]:
    """A seat's action, loaded, submitted: the answer (with its game) and its ``Location``; raises what
    ``Matches.submit`` refuses it with. ``holder``: the digest of the seat's token that asks."""
    answer = app.submit(match_id, seat, expected_version, action, idempotency_key, holder=holder)
    metrics.appended(game_id, len(answer["events"]))
    events = answer["events"]  # where the new entries are (said here: manners need not parse the answer back)
    return {"game": game_id, **answer}, {
        "Location": f"/v1/matches/{match_id}/events?after={events[0]['version'] - 1}"
        if events
        else f"/v1/matches/{match_id}"
    }


def load_action(game_id: str, raw: dict[str, Any]) -> dict[str, Any]:
    """An action in the shape of the game's action schema, or 400 ``invalid_request`` naming its fields
    (the POST and the moves socket alike)."""
    names = GAMES[game_id].action_names
    if names is not None:  # either names, the engine's from here on (and in the idempotency fingerprint)
        raw = names.for_engine(raw)
    fast = _action_loader(game_id)
    loaded = fast(raw) if fast is not None else None
    if loaded is not None:
        return loaded
    try:
        return _action_schema(game_id).load(raw)
    except ValidationError as error:
        messages = names.for_clients(error.messages) if names is not None else error.messages
        raise invalid(
            flatten(messages, "action"), _("the action does not fit the game's action schema")
        ) from None


@functools.cache
def _action_schema(game_id: str) -> Schema:
    return GAMES[game_id].action_schema()  # marshmallow schemas are reusable and costly to build


@functools.cache
def _action_loader(game_id: str) -> Callable[[Any], dict[str, Any] | None] | None:
    """The game's action schema compiled (``service.http.fastload``): the same action for what it accepts; the
    schema itself for the rest and its errors."""
    return fastload.compiled(_action_schema(game_id))


@v1.route("/matches/<match_id>/record", methods=["GET"])
@v1.doc(operationId="getRecord")
@v1.doc(security=NO_CREDENTIAL)
@v1.games_doc(
    lambda games: {
        "responses": {
            "200": {
                "description": "The match as a game record, in its game's format (or the same text as text/plain, the "
                "type code generators know).",
                "content": {  # text/plain first: a generator that takes one type takes the one it knows
                    TEXT: {"schema": {"type": "string"}},
                    **{mime: {"schema": body["schema"]} for mime, body in _record_bodies(games).items()},
                },
            }
        }
    }
)
@_errors(404, 406)
def get_record(match_id: str) -> Response:
    """The match, finished or not, in its game's record format (ask with that type, or text/plain, in
    `Accept`)."""
    mime, text = records.export_record(
        matches().repository,
        match_id,
        accepts=lambda mime: _wants(mime, [mime, TEXT]) or _wants(TEXT, [mime, TEXT]),
    )
    return Response(text, mimetype=mime if _wants(mime, [mime, TEXT]) else TEXT)


@v1.route("/matches/<match_id>/score", methods=["POST"])
@v1.doc(operationId="scoreMatch")
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(202, schemas.JobAcceptedSchema)
@v1.doc(security=SEAT_OR_PLATFORM)
@_errors(400, 401, 403, 404, 409, 422, 429, 503)
def score_match(headers: dict[str, Any], match_id: str) -> dict[str, Any]:
    """Score the match in the background (a seat of the match, or its platform, asks); the result is
    recorded in the log once the game is over. Asking again at the same version gets the same job. Before
    the end, a game with hidden information gives `{"final": false, "withheld": "hidden_information"}`:
    its scores so far would count what some seats cannot see."""
    seat = request_seat(matches(), match_id, required=True, platform="own")
    caller = (
        f"seat:{seat}" if seat is not None else f"platform:{matches().repository.meta(match_id).platform}"
    )
    return matches().idempotency.once(
        match_id,
        "score",
        caller,
        headers.get("idempotency_key"),
        [],
        lambda remember: {"job_id": Scoring(matches().stores).request_scoring(match_id)},
    )


@v1.route("/jobs/<job_id>", methods=["GET"])
@v1.doc(operationId="getJob")
@v1.response(200, schemas.JobSchema)
@v1.doc(security=SEAT_OR_PLATFORM)
@_errors(401, 404)
def get_job(job_id: str) -> dict[str, Any]:
    """A scoring job's status, and its result or error once done: for a seat of its match (its token) or
    the match's platform (its key). Any other credential gets `404 job_not_found`, as for a job that
    does not exist: ids are predictable, so an answer must not tell whether the job is there."""
    if bearer() is None:
        raise ApiError(
            401,
            "missing_token",
            _(
                "a job is read with a seat token of its match, or the match's platform "
                "key: Authorization: Bearer <token>"
            ),
        )
    found = matches().stores.jobs.scoring(job_id)
    if found is None or not _may_read_match(found[0]):
        raise ApiError(404, "job_not_found", _("no job {job_id!r} for this credential", job_id=job_id))
    return of_game(found[0], found[1])


def of_game(match_id: str, answer: dict[str, Any]) -> dict[str, Any]:
    """An answer with the match's ``game`` beside what it says (the contract's discriminator: a client
    narrows on it to the game's shapes). Added here, not kept: answers remembered for a retry get it too."""
    return {"game": matches().repository.meta(match_id).game_id, **answer}


def _may_read_match(match_id: str) -> bool:
    """Whether the request's credential is a seat of the match or its platform's key (401 stays 401: a
    malformed header, a key nobody issued)."""
    try:
        request_seat(matches(), match_id, required=True, platform="own")
    except ApiError as error:
        if error.status == 403:
            return False
        raise
    except MatchNotFound:
        return False
    return True
