"""The contract alone is enough: random matches of every game and mode, played through the HTTP API as
every seat and as a spectator, and every answer (created match, match, state, legal actions, accepted
entries, event pages, the log, the live feed's entries, webhook bodies, scoring jobs, the lobby) is valid
against the contract the app serves (openapi.yaml), by a JSON Schema validator, with its $refs resolved in
the document. One field that the document does not describe, or describes otherwise, fails the test."""

from __future__ import annotations

import dataclasses
import functools
import json
import random
import zlib
from typing import Any

import fakeredis
import jsonschema
import pytest

from service.config import Settings
from service.games import GAMES, action_component
from service.http.app import create_app
from service.http.openapi_components import prefix
from tests.contract_play import MODES, capture_webhooks, play

OPERATIONS = {  # an answer's kind -> where openapi.yaml describes it, and which of its shapes the game's is
    "create": ("/v1/matches", "post", "201", "CreatedMatch"),
    "match": ("/v1/matches/{match_id}", "get", "200", "{game}Match"),
    "state": ("/v1/matches/{match_id}/state", "get", "200", "{game}State"),
    "legal_actions": ("/v1/matches/{match_id}/legal-actions", "get", "200", "{game}LegalActions"),
    "accepted": ("/v1/matches/{match_id}/actions", "post", "201", "{game}Events"),
    "events": ("/v1/matches/{match_id}/events", "get", "200", "{game}Events"),
    "job": ("/v1/jobs/{job_id}", "get", "200", "{game}Job"),
    "lobby": ("/v1/matches", "get", "200", "Lobby"),
    # JSON Lines and Server-Sent Events are text to OpenAPI 3.0: their entries are the document's Event
    # (a line of the log) and FeedEntry (an entry of the live feed, with its game)
    "log": (None, None, "Event", "{game}Entry"),
    "feed": (None, None, "FeedEntry", "{game}FeedEntry"),
    "webhook": ("/v1/webhooks", "post", "callbacks", "{game}WebhookDelivery"),
    # a state's view and a game's scores, as tests/http/test_openapi_components_strict.py checks them alone
    "view": ("/v1/matches/{match_id}/state", "get", "200", "{game}View"),
    "result": ("/v1/jobs/{job_id}", "get", "200", "{game}Result"),
}


def json_schema(node: Any) -> Any:
    """OpenAPI 3.0's schema dialect as JSON Schema: ``nullable`` becomes a null branch; ``discriminator``
    (an annotation: the oneOf/anyOf it stands beside is what validates) goes."""
    if isinstance(node, list):
        return [json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: json_schema(value) for key, value in node.items() if key not in ("discriminator", "nullable")}
    if node.get("nullable"):
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        return {"anyOf": [{"type": "null"}, out]}
    return out


@functools.cache
def raw() -> dict[str, Any]:
    """The contract as a test app serves it (``/openapi.json``; tests/test_openapi.py checks that
    openapi.yaml is the same document)."""
    app = create_app(Settings(namespace="served-contract"), fakeredis.FakeRedis())
    return app.test_client().get("/openapi.json").json


@functools.cache
def document() -> dict[str, Any]:
    return json_schema(raw())


@functools.cache
def validator(component: str) -> jsonschema.Validator:
    # OpenAPI 3.0 schemas are draft 4's (a $ref's siblings are ignored, exclusiveMinimum is a boolean)
    return jsonschema.Draft4Validator(
        {"$ref": f"#/components/schemas/{component}", "components": document()["components"]}
    )


def fits(component: str, answer: Any) -> Any:
    """``answer``, asserted to be what the contract's ``component`` says (every error listed)."""
    errors = [error.message for error in validator(component).iter_errors(answer)]
    assert errors == [], (component, answer, errors)
    return answer


def refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        return {node["$ref"].rsplit("/", 1)[-1]} if "$ref" in node else set().union(*map(refs, node.values()))
    return set().union(*map(refs, node)) if isinstance(node, list) else set()


def reachable(name: str) -> set[str]:
    """The components a component is made of, transitively."""
    seen, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current not in seen:
            seen.add(current)
            todo += refs(raw()["components"]["schemas"][current])
    return seen


@functools.cache
def shape(kind: str, game: str) -> str:
    """The component an answer of ``kind`` has for ``game``: the branch of the operation's schema a client
    picks (by ``game``, or, for the answers without it, the match's game), checked to be one of its
    branches."""
    path, method, status, name = OPERATIONS[kind]
    name = name.format(game=game)
    if path is None:
        described = {"$ref": f"#/components/schemas/{status}"}
    elif status == "callbacks":
        described = raw()["paths"][path][method]["callbacks"]
    else:
        described = raw()["paths"][path][method]["responses"][status]["content"]
    assert name in set().union(*(reachable(r) for r in refs(described))), (
        f"{kind}: {name} is not in {path} {method}"
    )
    return name


def problems(kind: str, game: str, answer: Any) -> list[str]:
    """Why ``answer`` is not what openapi.yaml says a ``kind`` of ``game`` is (none: it is). Entries are
    checked each by its type's shape, as the discriminator picks it (quicker than trying every type)."""
    name = shape(kind, game)
    checks = [(name, answer, "")]
    entries = (
        answer.get("events", answer.get("entries")) if kind in ("accepted", "events", "webhook") else None
    )
    if name.endswith("FeedEntry"):  # the game's feed entry of its type: game, status and to_act said
        checks = [(entry_shape(name, answer), answer, "")]
        if answer.get("game") != GAME_OF[game]:
            return [f"{kind}: game is {answer.get('game')!r}, not {GAME_OF[game]!r}"]
    elif name.endswith("Entry"):
        checks = [(entry_shape(name, answer), answer, "")]
    elif isinstance(entries, list):
        key = "events" if "events" in answer else "entries"
        checks = [(name, {**answer, key: []}, "")] + [
            (
                entry_shape(name.replace("Events", "Entry").replace("WebhookDelivery", "Entry"), entry),
                entry,
                f"{key}/{i}/",
            )
            for i, entry in enumerate(entries)
        ]
    found = []
    for component, instance, where in checks:
        seen = (component, json.dumps(instance, sort_keys=True))
        if (
            seen in VALID
        ):  # an entry every viewer sees alike, again in the log and the live feed: checked once
            continue
        errors = list(validator(component).iter_errors(instance))
        if not errors:
            VALID.add(seen)
        for error in errors:
            leaf = (
                max([error, *error.context], key=lambda e: len(e.absolute_path)) if error.context else error
            )
            found.append(
                f"{kind} ({component}) at /{where}{'/'.join(map(str, leaf.absolute_path))}: "
                f"{leaf.message[:300]}"
            )
    return found


VALID: set[tuple[str, str]] = set()
GAME_OF = {prefix(g): g.info.id for g in GAMES.values()}

DISCRIMINATED = ("State", "Events", "Accepted", "Match", "Job", "FeedEntry", "WebhookDelivery")


def says_game(schema: dict[str, Any], game_id: str) -> bool:
    """Whether every instance of ``schema`` has ``game`` and it is ``game_id``."""
    if "$ref" in schema:
        return says_game(raw()["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]], game_id)
    if "game" in schema.get("required", []) and schema["properties"]["game"]["enum"] == [game_id]:
        return True
    if "oneOf" in schema:
        return all(says_game(branch, game_id) for branch in schema["oneOf"])
    return any(says_game(part, game_id) for part in schema.get("allOf", []))


@pytest.mark.parametrize("union", DISCRIMINATED)
def test_answers_with_a_game_s_data_are_told_apart_by_game(union):
    """Each answer that carries a game's data is one of the games' shapes, picked by ``game`` (required in
    each, one value each), and a game's entries by their ``type``."""
    schemas = raw()["components"]["schemas"]
    described = schemas[union]
    if union == "FeedEntry":  # a union of unions (each game's, by type), which no discriminator may map to
        assert "discriminator" not in described
        mapping = {g.info.id: f"#/components/schemas/{prefix(g)}FeedEntry" for g in GAMES.values()}
    else:
        mapping = described["discriminator"]["mapping"]
        assert described["discriminator"]["propertyName"] == "game"
    assert set(mapping) == set(GAMES)
    assert {branch["$ref"] for branch in described["oneOf"]} == set(mapping.values())
    for game_id, target in mapping.items():
        assert says_game(schemas[target.rsplit("/", 1)[-1]], game_id), f"{target} does not say {game_id!r}"
    for game in GAMES.values():
        for union_of_entries in (f"{prefix(game)}Entry", f"{prefix(game)}FeedEntry"):
            entry = schemas[union_of_entries]
            assert entry["discriminator"]["propertyName"] == "type" and "oneOf" in entry


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_game_s_actions_are_told_apart_by_type(game_id):
    """Each game's action is one of its types' shapes, picked by ``type`` (one value each, required), each
    closed: a generated client narrows an action by its type."""
    game = GAMES[game_id]
    schemas = raw()["components"]["schemas"]
    union = schemas[action_component(game)]
    mapping = union["discriminator"]["mapping"]
    assert union["discriminator"]["propertyName"] == "type" and len(mapping) == len(game.action_parameters)
    assert [branch["$ref"] for branch in union["oneOf"]] == list(mapping.values())
    for type_, target in mapping.items():
        shape = schemas[target.rsplit("/", 1)[-1]]
        assert shape["properties"]["type"] == {"type": "string", "enum": [type_]}
        assert "type" in shape["required"] and shape["additionalProperties"] is False


def test_a_submitted_action_is_typed_by_the_game_the_client_names():
    """``SubmitAction`` is any game's ``<Game>SubmitAction``, whose ``game`` (one value, optional: old clients
    send none) and ``action`` are that game's alone."""
    schemas = raw()["components"]["schemas"]
    assert {branch["$ref"].rsplit("/", 1)[-1] for branch in schemas["SubmitAction"]["anyOf"]} == {
        f"{prefix(game)}SubmitAction" for game in GAMES.values()
    }
    for game in GAMES.values():
        body = schemas[f"{prefix(game)}SubmitAction"]
        assert body["properties"]["game"]["enum"] == [game.info.id] and "game" not in body["required"]
        assert action_component(game) in refs(body["properties"]["action"])
        assert not {action_component(other) for other in GAMES.values() if other is not game} & reachable(
            f"{prefix(game)}SubmitAction"
        )


def test_a_moves_socket_message_is_typed_by_the_game_the_client_names():
    """``<Game>MovesSocketMove`` is that game's ``<Game>SubmitAction`` with the socket's ``idempotency_key``:
    only its game's actions; ``MovesSocketMove``, any game's, stays for the clients that use it."""
    schemas = raw()["components"]["schemas"]
    generic = schemas["MovesSocketMove"]["properties"]
    assert set(generic) == {"game", "expected_version", "action", "idempotency_key"}
    for game in GAMES.values():
        move, body = schemas[f"{prefix(game)}MovesSocketMove"], schemas[f"{prefix(game)}SubmitAction"]
        assert move["properties"] == {**body["properties"], "idempotency_key": generic["idempotency_key"]}
        assert move["required"] == body["required"] and move["additionalProperties"] is False
        assert not {action_component(other) for other in GAMES.values() if other is not game} & reachable(
            f"{prefix(game)}MovesSocketMove"
        )


def entry_shape(union: str, entry: dict[str, Any]) -> str:
    mapping = raw()["components"]["schemas"][union]["discriminator"]["mapping"]
    assert entry.get("type") in mapping, f"{union} has no entry type {entry.get('type')!r}"
    return mapping[entry["type"]].rsplit("/", 1)[-1]


class Checker:
    def __init__(self, game: str):
        self.game = prefix(GAMES[game])
        self.counts: dict[str, int] = {}
        self.failures: list[str] = []

    def __call__(self, kind: str, answer: Any) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if len(self.failures) < 20:
            self.failures += problems(kind, self.game, answer)


@pytest.mark.no_cover  # what it runs is covered by faster tests; traced, it took 3 times as long
@pytest.mark.parametrize(
    "game, players, options",
    MODES,
    ids=[f"{g}-{n}-{'-'.join(map(str, o.values())) or 'default'}" for g, n, o in MODES],
)
def test_every_answer_of_a_random_match_fits_the_contract(
    settings, fake_redis, game, players, options, monkeypatch
):
    settings = dataclasses.replace(settings, webhooks_private=True)  # loopback hooks (never posted)
    # the same matches in every run: the server's seed entropy drawn from the mode's own generator, so a
    # shape the contract misses fails every run, not one run in many
    drawn = random.Random(repr((game, players, options)))
    monkeypatch.setattr("service.domain.lifecycle.secrets.token_hex", lambda n: drawn.randbytes(n).hex())
    app = create_app(settings, fake_redis)
    check = Checker(game)
    capture_webhooks(app, check)
    # a long game is checked for its first 250 actions, every seat's views every 8th: the shapes repeat, and
    # the whole suite's time is the CI's
    play(
        app,
        fake_redis,
        settings,
        game,
        players,
        options,
        seed=zlib.crc32(repr((game, players, options)).encode()) % 1000,
        seen=check,
        max_actions=250,
        views_every=8,
    )
    assert not check.failures, "\n".join(check.failures)
    for kind in (
        "create",
        "match",
        "state",
        "legal_actions",
        "accepted",
        "events",
        "log",
        "feed",
        "webhook",
        "job",
    ):
        assert check.counts.get(kind), f"no {kind} answer was checked"
