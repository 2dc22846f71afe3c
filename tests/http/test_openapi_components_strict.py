"""What is sent is what is declared (issue 41): every schema that the server's answers, log entries, live-feed
events, webhook bodies and moves-socket messages are made of is closed (no property it does not declare
passes), and what the server sends fits the contract a test app serves (``/openapi.json``), strictly:
the entries and views of random matches of every game, every mode and every value of every option
(each pack installed), and the recorded logs of ``tests/fixtures/logs``. The HTTP answers of random matches
are checked by tests/http/test_openapi_components_typed.py against the same served contract, webhook bodies posted to a
real receiver by tests/integration/test_webhooks.py, the socket's messages by tests/test_moves_socket.py."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from service.domain import lifecycle, projections, replay
from service.domain.chain import Recorded
from service.games import GAMES
from service.http.openapi_components import prefix
from service.store import packs
from tests.contract_play import MODES
from tests.http.test_openapi_components_typed import problems, raw, validator

AT = "2026-01-01T00:00:00.000Z"
LOGS = sorted((Path(__file__).parents[1] / "fixtures" / "logs").glob("*.json"))


def roots() -> list[Any]:
    """Every schema of what the server sends: each operation's answers, the bodies of its callbacks (the
    webhook deliveries), and the moves socket's messages."""
    document = raw()
    found: list[Any] = []

    def answers(operation: dict[str, Any]) -> list[Any]:
        return [
            media.get("schema")
            for answer in operation.get("responses", {}).values()
            for media in answer.get("content", {}).values()
        ]

    for path in document["paths"].values():
        for method, operation in path.items():
            if method == "parameters":
                continue
            found += answers(operation)
            for callback in operation.get("callbacks", {}).values():
                for item in callback.values():
                    for sent in item.values():
                        found += [
                            m.get("schema") for m in sent.get("requestBody", {}).get("content", {}).values()
                        ]
    for socket in document.get("x-websockets", {}).values():
        found.append(socket["receive"])
    return [schema for schema in found if schema]


FREE_FORM = {"Game/options_schema": "a JSON Schema document: any of JSON Schema's keywords"}
"""The objects whose properties are anyone's: not the server's data, so nothing the contract could list."""


def open_schemas() -> list[str]:
    """Where an object schema reachable from ``roots`` lets an undeclared property pass: no
    ``additionalProperties: false``, nor a typed map (``additionalProperties`` a schema of its values). A part
    of an ``allOf`` is exempt: the whole is what an instance meets, and another part closes it."""
    components = raw()["components"]["schemas"]
    found, seen = [], set()

    def walk(node: Any, where: str, in_all_of: bool = False) -> None:
        if isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, f"{where}/{i}", in_all_of)
            return
        if not isinstance(node, dict):
            return
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if name not in seen:
                seen.add(name)
                walk(components[name], name)
            return
        extra = node.get("additionalProperties")
        objectish = node.get("type") == "object" or "properties" in node
        closed_by_parts = "allOf" in node  # an action beside its Action: the parts say what may be there
        loose = extra is None or extra is True or extra == {}
        if objectish and loose and not (in_all_of or closed_by_parts) and where not in FREE_FORM:
            found.append(where)
        for name, field in node.get("properties", {}).items():
            walk(field, f"{where}/{name}")
        for key in ("items", "additionalProperties", "not", "contentSchema", "anyOf", "oneOf"):
            walk(node.get(key), f"{where}/{key}")
        walk(node.get("allOf"), f"{where}/allOf", in_all_of=True)

    for i, root in enumerate(roots()):
        walk(root, f"answer {i}")
    return sorted(set(found))


def test_every_schema_of_what_the_server_sends_is_closed():
    assert not open_schemas(), "\n".join(open_schemas())


def test_the_moves_socket_s_messages_are_in_the_contract():
    sockets = raw()["x-websockets"]
    assert set(sockets) == {"/v1/matches/{match_id}/moves"}
    schemas = raw()["components"]["schemas"]
    for socket in sockets.values():
        for way in ("send", "receive"):
            assert socket[way]["$ref"].rsplit("/", 1)[-1] in schemas


def option_values(schema: dict[str, Any]) -> list[Any]:
    """The values of an option other than its default: each of an enum, both booleans, each constant."""
    branches = schema.get("anyOf", [schema])
    values: list[Any] = []
    for branch in branches:
        if "enum" in branch:
            values += branch["enum"]
        elif "const" in branch:
            values.append(branch["const"])
        elif branch.get("type") == "boolean":
            values += [True, False]
    return [v for v in values if v != schema.get("default", object())]


def every_option() -> list[tuple[str, int, dict[str, Any]]]:
    """(game, players, options): the modes of tests/contract_play.py, then a match for each value of each
    option of each game that is not its default, and one with each installed pack, at the first player
    count (two first) the options allow."""
    cases = list(MODES)
    for game_id, game in sorted(GAMES.items()):
        properties = game.options_schema.get("properties", {})
        asked = [{name: value} for name, schema in properties.items() for value in option_values(schema)]
        if game.packs is not None:
            asked += [{game.packs.option: p.stem} for p in sorted(game.packs.folder.glob("*.json"))]
        counts = sorted(game.info.counts(), key=lambda n: (n != 2, n))
        for options in asked:
            for players in counts:
                try:  # the options, and the default pack with them (a pack check may refuse it)
                    packs.content_for(game, lifecycle.check_options(game_id, options, players))
                except Exception:  # another count may take it; none: it needs another option
                    continue
                cases.append((game_id, players, options))
                break
    return cases


CASES = every_option()


def shown(game_id: str, entries: list[Recorded], players: int, sealed: bool) -> list[dict[str, Any]]:
    """Each entry as every seat and a spectator see it while the match runs, and as anyone does once the
    seed is revealed."""
    engine = GAMES[game_id]
    return [
        projections.entry_view(engine, entry, seat, revealed, sealed)
        for entry in entries
        for seat, revealed in [*((s, False) for s in [None, *range(players)]), (None, True)]
    ]


@pytest.mark.no_cover  # what it runs is covered by faster tests; traced, it took 3 times as long
@pytest.mark.parametrize(
    "game_id, players, options",
    CASES,
    ids=[f"{g}-{n}-{json.dumps(o, separators=(',', ':')) if o else 'default'}" for g, n, o in CASES],
)
def test_every_entry_and_view_of_a_random_match_of_each_option_fits_the_served_contract(
    game_id, players, options
):
    """Played through the server's own pure steps (``lifecycle``), to the end or 400 actions: every entry as
    each viewer sees it, the state every 10th action as each viewer sees it, and the scores."""
    game, p = GAMES[game_id], prefix(GAMES[game_id])
    rng = random.Random(repr((game_id, players, options)))
    resolved = lifecycle.check_options(game_id, options, players)
    secret = lifecycle.SeedSecret(f"{rng.random()}", "salt")
    step = lifecycle.begin(
        game_id,
        resolved,
        [f"p{i}" for i in range(players)],
        secret,
        AT,
        packs.content_for(game, resolved),
        match_id="m1",
    )
    entries, state, failures = list(step.entries), step.state, []
    for acted in range(400):
        to_act = game.to_act(state.game)
        if not to_act or state.finished:
            break
        if acted % 10 == 0:
            for seat in [None, *range(players)]:
                failures += problems("view", p, game.view(state.game, seat))
        seat = rng.choice(to_act)
        step = lifecycle.act(state, seat, rng.choice(game.legal_actions(state.game, seat)), secret, AT)
        entries += step.entries
        state = step.state
    failures += problems("result", p, replay.result(state))
    for body in shown(game_id, entries, players, state.sealed_chain):
        failures += problems("log", p, body)
    assert not failures, "\n".join(failures[:20])


@pytest.mark.parametrize("path", LOGS, ids=[p.stem for p in LOGS])
def test_a_recorded_log_as_the_server_shows_it_fits_the_served_contract(path):
    entries = [Recorded.from_dict(e) for e in json.loads(path.read_text())["events"]]
    game_id = entries[0].data["game"]
    players = len(entries[0].data["players"])
    failures = [
        f
        for body in shown(game_id, entries, players, sealed=False)
        for f in problems("log", prefix(GAMES[game_id]), body)
    ]
    assert not failures, "\n".join(failures[:20])


def test_the_leader_s_check_action_is_declared():
    """Blackout's leader path resolves the queue with ``queued`` and says ``via``: both declared."""
    entry = {
        "version": 9,
        "type": "check_action_activated",
        "seat": 0,
        "data": {"queued": True, "source": "OC46", "via": "LEADER"},
        "at": AT,
        "hash": None,
    }
    assert not list(validator("BlackoutHongKongCheckActionActivatedEntry").iter_errors(entry))
