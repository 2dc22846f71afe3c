"""The Flask application factory: ``create_app()`` for gunicorn, tests and ``matchlog api``."""

from __future__ import annotations

from flask import Flask
from flask_smorest import Api
from werkzeug.middleware.proxy_fix import ProxyFix

from service import metrics
from service.application import records
from service.application.challenges import Challenges
from service.application.livefeed import LiveFeed
from service.application.matches import Matches
from service.application.seeks import Seeks
from service.application.tournaments import Tournaments
from service.config import Settings
from service.domain.errors import KNOWN_SEED_REASONS, TOURNAMENT_REASONS
from service.domain.lifecycle import refusals_of
from service.games import (
    GAMES,
    action_component,
    deprecated_action_component,
    legal_actions_component,
    refusals_component,
    texts,
)
from service.games.bots import bots_of
from service.http import (
    analysis_routes,  # noqa: F401  (its routes join v1 before v1 is registered)
    challenge_routes,  # noqa: F401  (its routes join v1 before v1 is registered)
    errors,
    export_routes,  # noqa: F401  (its routes join v1 before v1 is registered)
    feed_routes,  # noqa: F401  (its routes join v1 before v1 is registered)
    moves_socket,
    openapi_components,
    player_routes,  # noqa: F401  (its routes join v1 before v1 is registered)
    schemas,
    seek_routes,  # noqa: F401  (its routes join v1 before v1 is registered)
    tournament_routes,  # noqa: F401  (its routes join v1 before v1 is registered)
    webhook_routes,  # noqa: F401  (its routes join v1 before v1 is registered)
)
from service.http.apidocs import apidocs
from service.http.middleware import guards, ratelimits, request_hooks
from service.http.middleware.pipeline import Pipeline, Step
from service.http.probe_routes import probes
from service.http.routes import (
    OPTIONAL_CREDENTIAL,
    OTHER_EVENTS,
    answers,
    body_types,
    document_shared,
    entry_types,
    legal_actions,
    submit,
    v1,
)
from service.http.viewer import viewer
from service.store import errors as store_errors
from service.store.challenges import ChallengeStore
from service.store.rate_windows import RateWindows
from service.store.redis_client import Client, connect
from service.store.repository import Lru
from service.store.seeks import SeekStore

DESCRIPTION = """\
Matchlog hosts tabletop games over HTTP. A client creates a match, gets one secret token per seat,
reads the state and the legal actions, and posts actions; each accepted action is appended to the
match's log, which can be read back, replayed and audited. Errors share one shape:
`{"error": code, "message": text, ...}`.

Limits: request bodies over 64 KiB get 413, URLs over 8 KiB 414, headers over 16 KiB 431, JSON nested
deeper than 32 levels 400. Match ids are 32 lower-case hex digits.
"""


class _Api(Api):
    ERROR_SCHEMA = schemas.ErrorSchema


def create_app(settings: Settings | None = None, redis_client: Client | None = None) -> Flask:
    settings = settings or Settings.from_env()
    if redis_client is None:
        if not settings.redis_url:
            raise RuntimeError("set REDIS_URL (or start everything with `matchlog serve`)")
        redis_client = connect(settings.redis_url)
    app = Flask("matchlog")
    # /v1/matches//state (an empty id) is a 404 in the error shape, not a redirect
    app.url_map.merge_slashes = False
    app.config.update(
        API_TITLE="matchlog",
        API_VERSION="1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
        MOVES_PING_S=settings.moves_ping_s,
        MOVES_PER_ADDRESS=settings.moves_per_address,
        API_SPEC_OPTIONS={
            "info": {"description": DESCRIPTION, "license": {"name": "MIT"}},
            "components": {
                "securitySchemes": {
                    "seatToken": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "The seat token from POST /v1/matches (or from a join).",
                    },
                    "platformKey": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "A platform's key (matchlog keys create): its own matches, their "
                        "seats' views, webhooks. In the same Authorization header.",
                    },
                    "creatorToken": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "The creator_token from POST /v1/matches made without a platform "
                        "key: it aborts that match. In the same Authorization header.",
                    },
                }
            },
            "security": OPTIONAL_CREDENTIAL,  # what an operation that declares none takes
            # the moves socket is a WebSocket, which OpenAPI 3.0 has no operation for: what it takes and
            # sends, as components a generator makes types of
            "x-websockets": {
                openapi_components.MOVES_SOCKET: {
                    "description": "The moves socket (service/http/moves_socket.py): each text message "
                    "sent is a MovesSocketMove (typed as the match's game's: `<Game>MovesSocketMove`), "
                    "each one received a MovesSocketAnswer.",
                    "send": {"$ref": "#/components/schemas/MovesSocketMove"},
                    "receive": {"$ref": "#/components/schemas/MovesSocketAnswer"},
                }
            },
        },
        JSON_SORT_KEYS=False,
    )
    app.extensions["matchlog"] = Matches(redis_client, settings)
    app.extensions["matchlog-players"] = app.extensions["matchlog"].stores.players
    app.extensions["matchlog-livefeed"] = LiveFeed(app.extensions["matchlog"], redis_client)
    app.extensions["matchlog-seeks"] = Seeks(
        app.extensions["matchlog"],
        app.extensions["matchlog-players"],
        SeekStore(redis_client, app.extensions["matchlog"].stores.keys),
    )
    app.extensions["matchlog-challenges"] = Challenges(
        app.extensions["matchlog"], ChallengeStore(redis_client, app.extensions["matchlog"].stores.keys)
    )
    app.extensions["matchlog-tournaments"] = Tournaments.of(
        app.extensions["matchlog"], app.extensions["matchlog-players"]
    )
    tournament_store = app.extensions["matchlog-tournaments"].store
    app.extensions["matchlog-tournament-feed"] = LiveFeed(  # the same reader, over the tournaments' logs
        app.extensions["matchlog"],
        redis_client,
        feed=tournament_store.events,
        read=lambda tournament_id, after, until: tournament_store.events.read(tournament_id, after, until),
        slots=app.extensions["matchlog-livefeed"].slots,  # one cap on the streams a process holds
        kept=256,  # an event with a thousand players' standings is ~115 KB: 30 MB at most
    )
    # anyone's view of a tournament, encoded once per version (``tournament_routes``): a thousand players' is
    # some 250 KB
    app.extensions["matchlog-tournaments-shown"] = Lru(
        64, max_bytes=16 << 20, weigh=lambda value, _: len(value)
    )
    api = _Api(app)
    api.spec.components.schema("CreateMatch", schema=schemas.CreateMatchSchema)  # a body parsed by hand
    api.spec.components.schema("MovesSocketMove", schema=moves_socket.MoveSchema)  # the socket's messages
    api.spec.components.schemas["CreateMatch"]["properties"]["game"]["enum"] = list(GAMES)
    accepted: dict[str, list[str]] = {}  # every action shape the API takes: each game's, and the deprecated
    for game in GAMES.values():  # each game's action shape, so that clients can generate code for it
        api.spec.components.schema(action_component(game), schema=game.action_schema)
        accepted[game.info.id] = [action_component(game)]
        names = game.action_names
        served = api.spec.components.schemas
        if names is not None:  # the API's names; the engine's stay accepted, deprecated
            engine_names = served[action_component(game)]
            api.spec.components.schema(
                deprecated_action_component(game), openapi_components.deprecated_action(engine_names, game)
            )
            served[action_component(game)] = openapi_components.renamed_action(engine_names, names, served)
            accepted[game.info.id].append(deprecated_action_component(game))
        served.update(openapi_components.action_types(served[action_component(game)], game))
        api.spec.components.schema(
            legal_actions_component(game),
            {
                "type": "object",
                "additionalProperties": False,
                "required": ["game", "version", "seat", "actions"],
                "properties": {
                    "game": {"type": "string", "enum": [game.info.id]},
                    "version": {"type": "integer"},
                    "seat": {"type": "integer"},
                    "actions": {
                        "type": "array",
                        "description": "Every legal action; each can be posted back unchanged.",
                        "items": {"$ref": f"#/components/schemas/{action_component(game)}"},
                    },
                    "texts": {
                        "type": "array",
                        "description": "With ?text=true: each action of `actions`, in the same order, in "
                        "the words its log entry will use once it is taken.",
                        "items": {"type": "string"},
                    },
                },
            },
        )
    api.spec.components.schema(
        "Action",
        {
            "description": "An action of one of the games; which one is the match's game.",
            "anyOf": [
                {"$ref": f"#/components/schemas/{name}"} for names in accepted.values() for name in names
            ],
        },
    )
    _document_errors(api)
    document_shared(api.spec)  # the error answers and the Idempotency-Key, referred to by the operations
    api.register_blueprint(v1)
    api.register_blueprint(probes)
    served = api.spec.components.schemas  # the games' data typed, and the answers that carry it made unions
    served.update(openapi_components.components(list(GAMES.values()), served))
    served.update(openapi_components.submit_actions(list(GAMES.values()), accepted))
    served.update(openapi_components.socket_moves(list(GAMES.values()), served))
    served["ImportMatch"]["properties"]["record_type"]["enum"] = sorted(records.record_games())
    served.pop("PaginationMetadata", None)  # flask-smorest's, for a pagination header no operation sends
    for request_body in (
        "CreateMatch",
        "CreateSeek",
        "CreateChallenge",
        "CreateTournament",
        "TournamentPlayer",
    ):
        openapi_components.optional_defaults(served[request_body])
    served.update(openapi_components.create_matches(list(GAMES.values()), served["CreateMatch"]))
    openapi_components.meeting_settings(list(GAMES.values()), served)
    served.update(openapi_components.tournament_components(list(GAMES.values()), served))
    openapi_components.python_titles(served)
    openapi_components.name_enums(
        served,
        {bot for game in GAMES.values() for bot in bots_of(game)},
        entry_types(),
        OTHER_EVENTS,
    )
    # flask-smorest writes /openapi.json indented, twice the bytes: served compact, as every JSON answer is
    served_at = next(rule.endpoint for rule in app.url_map.iter_rules() if rule.rule == "/openapi.json")
    app.view_functions[served_at] = lambda: app.json.response(spec(app))
    app.register_blueprint(viewer)  # pages for people, outside the API's contract
    app.register_blueprint(apidocs)  # /docs: the contract as an interactive reference (Swagger UI)
    moves_socket.install(app)  # the moves socket: a WebSocket, outside the OpenAPI contract too
    errors.register(app, store_errors.translated)  # after Api(), whose own HTTP error handler it replaces
    guards.install(app)
    limits = ratelimits.RateLimits.of(
        RateWindows(redis_client),
        settings.namespace,
        settings.rate_limit_per_token,
        settings.rate_limit_per_address,
        settings.rate_limit_reads_per_address,
    )
    if limits is not None:
        app.extensions["matchlog-limits"] = limits  # the moves socket counts its messages in them
    # Every request, whatever answers it, passes through these steps: their befores in this order, their
    # afters in the reverse order (an answer's headers in the order they are added: the limits', the request
    # id, CORS, Location, Retry-After). A check or a header for every route is a step here, not a Flask hook.
    steps = [
        Step("access line and metrics", None, request_hooks.access(metrics.observe_request)),
        Step("Retry-After", None, errors.retry_after_only_on_refusals),  # on every refusal, after the limits'
        Step("request id", request_hooks.identify, None),
        Step("Location", None, request_hooks.location),
        Step("CORS headers", None, request_hooks.cors(settings.cors_origins)),
        Step("X-Request-Id", None, request_hooks.echo_id),
        Step("CORS preflight", request_hooks.preflight, None),  # answered before any check
        Step("language", request_hooks.speak, request_hooks.said_language),  # before any refusal's message
        Step(
            "guards",
            guards.check(app, body_types, answers),
            None,
        ),
        Step("rate limits", limits.before, limits.after) if limits else None,
        Step("moves socket's connection", moves_socket.prepare, None),
    ]
    pipeline = Pipeline(
        app, [step for step in steps if step is not None], app.wsgi_app, store_errors.translated
    )
    pipeline.route("v1.submit_action", "POST", submit)  # the hot paths: their handlers called straight
    pipeline.route("v1.get_legal_actions", "GET", legal_actions)
    app.extensions["matchlog-pipeline"] = pipeline
    # Flask's documented way to wrap its WSGI app in a middleware
    app.wsgi_app = pipeline  # type: ignore[method-assign]
    if settings.trusted_proxies:  # the client's address, not the proxy's, for the limits and the access log
        # Flask's documented way to wrap its WSGI app in a middleware
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.trusted_proxies)  # type: ignore[method-assign]
    return app


def _document_errors(api: Api) -> None:
    """The error codes as enums: ``Error.error`` from ``service.http.errors.ERROR_CODES``; each game's refusal
    reasons (its own and the server's) as ``<Game>RefusalReason``, and ``Error.reason`` as any of them
    (or, with seed_known_to_creator_refused, one of ``KNOWN_SEED_REASONS``)."""
    reasons: set[str] = set(KNOWN_SEED_REASONS) | set(TOURNAMENT_REASONS)
    for game in GAMES.values():
        refusals = refusals_of(game)
        reasons |= set(refusals)
        api.spec.components.schema(
            refusals_component(game),
            {
                "type": "string",
                "enum": sorted(refusals),
                "description": f"Why an action in a match of {game.info.name} is refused (the reason of a 422 "
                "illegal_action): the game's codes and the server's. GET /v1/games lists each with the "
                "rule it enforces.",
            },
        )
    api.spec.components.schema(
        "RefusalReason",
        {
            "type": "string",
            "enum": sorted(reasons),
            "description": "The reason of a 422: with illegal_action, a code of the match's game "
            "(" + ", ".join(refusals_component(game) for game in GAMES.values()) + "); with "
            "seed_known_to_creator_refused, " + " or ".join(sorted(KNOWN_SEED_REASONS)) + "; with "
            "tournament_refused (a 409), " + ", ".join(sorted(TOURNAMENT_REASONS)) + ".",
        },
    )
    error = api.spec.components.schemas["Error"]["properties"]
    error["error"]["enum"] = sorted(errors.ERROR_CODES)
    error["reason"] = {"$ref": "#/components/schemas/RefusalReason"}


def spec(app: Flask) -> dict:
    contract = app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()
    return openapi_components.document_languages(contract, texts.LANGUAGES)
