"""Refusal reasons are declared: every engine lists the codes its ``play`` refuses with (``refusals``,
``service.games.protocol.Refusals``) and the rule each enforces; the server's own are
``service.domain.lifecycle.SHELL_REFUSALS``. The catalogue lists them per game and ``openapi.yaml`` carries them
as enums (``<Game>RefusalReason``, and ``RefusalReason`` for ``Error.reason``).

Two promises, checked here without touching the code under test:

- every refusal the code can make carries a code declared by whoever makes it: each ``IllegalAction`` the
  source constructs (or a helper of a game builds for it) is read from the source, in each game's package
  and in the server's modules, and its code must be the game's or the server's; random games with wrong
  actions thrown in refuse only with declared codes;
- every declared code is produced: each game's recorded refusals (its package's ``refusal_examples.json``,
  else ``tests/fixtures/refusals/<game>.json``:
  for each code, a state, a seat and an action, taken from the rules tests) are played through the
  engine and refused with exactly that code, and one scripted walk through the API meets every refusal
  of the server. A new code needs its entry there (a position from the test that exercises it).
"""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from service.domain import lifecycle
from service.domain.errors import KNOWN_SEED_REASONS, TOURNAMENT_REASONS
from service.domain.lifecycle import SHELL_REFUSALS, refusals_of
from service.games import GAMES, refusals_component
from service.games.protocol import IllegalAction, Refusal
from service.http.app import spec
from tests.engines import new_state, random_playout

CODE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")


def refused(game, state, seat, action) -> str:
    with pytest.raises(IllegalAction) as refusal:
        game.play(state, seat, action)
    return refusal.value.reason


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_game_declares_its_refusals_each_with_a_rule(game_id):
    refusals = GAMES[game_id].refusals
    assert {"game_over", "not_your_turn"} <= set(refusals)  # check_turn's, which every engine runs
    for code, refusal in {**refusals, **SHELL_REFUSALS}.items():
        assert CODE.fullmatch(code), code
        assert isinstance(refusal, Refusal) and refusal.rule.strip() and refusal.description.strip(), code


def test_the_catalogue_lists_each_games_refusals_with_their_rules(client):
    for entry in client.get("/v1/games").json:
        game = GAMES[entry["id"]]
        assert [r["reason"] for r in entry["refusals"]] == list(refusals_of(game))
        for listed in entry["refusals"]:
            declared = refusals_of(game)[listed["reason"]]
            assert (listed["rule"], listed["description"]) == (declared.rule, declared.description)
            assert listed["by"] == ("game" if listed["reason"] in game.refusals else "server")
    blokus = {
        r["reason"]: r
        for r in next(g for g in client.get("/v1/games").json if g["id"] == "blokus")["refusals"]
    }
    assert blokus["must_cover_start"]["rule"] == "spec 2.2" and blokus["undo_off"]["by"] == "server"


def test_the_contract_carries_each_games_reasons_as_an_enum(app):
    schemas = spec(app)["components"]["schemas"]
    everything = set(KNOWN_SEED_REASONS) | set(TOURNAMENT_REASONS)
    for game in GAMES.values():
        assert schemas[refusals_component(game)]["enum"] == sorted(refusals_of(game))
        everything |= set(refusals_of(game))
    assert schemas["RefusalReason"]["enum"] == sorted(everything)
    assert schemas["BlokusRefusalReason"]["type"] == "string"


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_random_games_with_wrong_actions_refuse_only_with_declared_codes(game_id):
    """At each move of random games, the move is also tried by every other seat, and tried again once
    made: whatever the rules answer, a refusal carries a code the game declares."""
    game = GAMES[game_id]
    seen: set[str] = set()

    def wrong(state, seat, action, played):
        after = played.states[-1] if played else state
        for other, on in [(s, state) for s in range(players) if s != seat] + [(seat, after)]:
            try:
                game.play(on, other, action)
            except IllegalAction as refusal:
                seen.add(refusal.reason)

    for players in game.info.counts():
        for seed in range(2):
            rng = random.Random(f"{game_id}:{players}:{seed}")
            random_playout(
                game, new_state(game, players, f"refusals-{seed}"), rng, on_move=wrong, max_moves=80
            )
    assert seen and seen <= set(game.refusals), seen - set(game.refusals)


# -- probes: a position and an action for each code no rules test produces otherwise ----------------------


def test_blokus_refuses_a_colour_missing_or_not_in_the_variant():
    blokus = GAMES["blokus"]
    free_order = new_state(blokus, 1, variant="solo_rectangle")
    assert (
        refused(blokus, free_order, 0, {"type": "place", "cells": [[0, 0], [1, 0], [2, 0], [3, 0]]})
        == "colour_required"
    )
    duo = new_state(blokus, 2, variant="duo")
    assert refused(blokus, duo, 0, {"type": "place", "colour": "blue", "cells": [[4, 4]]}) == "wrong_colour"
    assert refused(blokus, duo, 0, {"type": "place", "colour": "orange", "cells": [[9, 9]]}) == "wrong_colour"


def test_the_server_refuses_play_in_an_aborted_match_an_unstarted_one_and_a_bots_seat(
    app, fake_redis, settings
):
    from service.domain import lifecycle
    from service.domain.serverkey import ServerKey
    from service.store.keys import Keys
    from service.store.repository import MatchRepository

    client, matches = app.test_client(), app.extensions["matchlog"]
    repository = MatchRepository(
        fake_redis,
        Keys(settings.namespace, settings.feed_partitions),
        settings.snapshot_every,
        ServerKey(settings.secret_key),
    )  # the sealed seed, unsealed

    def create(game, players):
        created = client.post("/v1/matches", json={"game": game, "players": players})
        assert created.status_code == 201, created.json
        return created.json["id"], None

    action = {"type": "place", "cells": [[0, 0]]}

    def refusal(match_id, seat, by=None):
        state, secret = matches.load(match_id), repository.meta(match_id).secret
        with pytest.raises(IllegalAction) as refused_:
            lifecycle.act(state, seat, action, secret, "2026-01-01T00:00:00.000Z", by=by)
        return refused_.value.reason

    match_id, _ = create("blokus", [{"name": "ann"}, {"open": True}])
    assert refusal(match_id, 0) == "match_not_started"
    match_id, _ = create("blokus", [{"name": "ann"}, {"bot": "random"}])
    assert refusal(match_id, 1) == "seat_played_by_a_bot"
    match_id, _ = create("blokus", [{"name": "ann"}, {"name": "bob"}])
    matches.abort(match_id, "no-show")
    assert refusal(match_id, 0) == "match_aborted"


def test_the_server_refuses_a_second_undo_request_and_a_record_move_after_the_end(app, settings):
    import fakeredis

    from service import games
    from service.http.app import create_app
    from tests import toy_nim
    from tests.helpers import act, bearer

    client = app.test_client()
    created = client.post(
        "/v1/matches",
        json={"game": "blokus", "players": [{"name": "ann"}, {"name": "bob"}], "undo": "with_consent"},
    ).json
    match_id, token = created["id"], created["seats"][0]["token"]
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(token)).json
    assert act(client, match_id, token, legal["version"], legal["actions"][0]).status_code == 201
    assert (
        client.post(f"/v1/matches/{match_id}/undo", headers=bearer(token)).status_code == 201
    )  # waits for bob
    again = client.post(f"/v1/matches/{match_id}/undo", headers=bearer(token))
    assert again.status_code == 422 and again.json["reason"] == "undo_pending"

    games.register(toy_nim.GAME)
    try:
        nim = create_app(settings, fakeredis.FakeRedis()).test_client()
        late = nim.post("/v1/matches", data="nim 5 ann,bob 0:3 1:4 2:5 0:1", content_type="text/x-nim")
        assert late.status_code == 422 and (late.json["reason"], late.json["move"]) == ("game_over", 4)
    finally:
        games.unregister(toy_nim.GAME.info.id)


def test_chock_a_block_refuses_tokens_draws_tiles_and_features_it_cannot_give():
    from tests.games.test_chock_a_block_support import at_step, icons_of, inject, new_game, place

    chock = GAMES["chock-a-block"]
    first = at_step(new_game(2), 0, "place")
    assert refused(chock, first, 0, place(first["seats"][0]["hand"][0], 1)) == "first_card_column"
    choosing = at_step(new_game(2), 0, "choose_feature")
    assert (
        refused(chock, choosing, 0, {"type": "choose_excluded_feature", "feature": "DRAGON"})
        == "unknown_feature"
    )

    tokens = at_step(new_game(2), 0, "tokens", cards=[{"card": "X"}], fresh=[])
    assert (
        refused(chock, tokens, 0, {"type": "claim_token", "token": "DRAGON-1", "x": 0, "y": 0})
        == "token_not_in_supply"
    )
    short = inject(tokens, 0, icons_of("CAT", [(0, 0), (1, 0)]))
    assert (
        refused(chock, short, 0, {"type": "claim_token", "token": "CAT-6", "x": 0, "y": 0})
        == "chain_too_short"
    )
    stale = inject(tokens, 0, icons_of("CAT", [(x, 0) for x in range(6)]))
    stale = {**stale, "options": {**stale["options"], "token_claim_requires_growth": True}}
    assert (
        refused(chock, stale, 0, {"type": "claim_token", "token": "CAT-6", "x": 0, "y": 0})
        == "chain_not_grown"
    )
    nothing = {**tokens, "deck": [], "block_market": [None] * len(tokens["block_market"])}
    assert refused(chock, nothing, 0, {"type": "draw_card", "source": "DECK"}) == "no_draw"
    market_only_left = {**tokens, "deck": []}
    assert refused(chock, market_only_left, 0, {"type": "draw_card", "source": "DECK"}) == "deck_empty"

    neighbours = at_step(new_game(2), 0, "neighbours", cards=[{"card": "X"}])
    lonely = inject(neighbours, 0, {(0, 0): ("RED", True, [])})
    tile = {"type": "place_neighbour", "tile": lonely["neighbour_market"][0], "x": 0, "y": 0}
    assert refused(chock, lonely, 0, tile) == "group_not_qualifying"
    no_pile = {
        **lonely,
        "tile_pile": [],
        "options": {**lonely["options"], "neighbour_tile_source": "MARKET_OR_PILE_TOP"},
    }
    assert (
        refused(chock, no_pile, 0, {"type": "place_neighbour", "source": "PILE", "x": 0, "y": 0})
        == "pile_empty"
    )


def test_blackout_refuses_what_its_rules_tests_do_not_try():
    from service.games.blackout_hong_kong.board import board_of
    from tests.games.blackout_support import in_phase, new_game, patched, started

    blackout = GAMES["blackout-hong-kong"]
    state = started()
    hand = state["players"][0]["hand"]
    cards = board_of(state["content"]).cards
    assert refused(blackout, state, 0, {"type": "TELEPORT"}) == "unknown_action"
    assert refused(blackout, patched(state, step="over"), 0, {"type": "PASS"}) == "game_over"

    limited = started(TRANSPORT_POOL_LIMITED=True)
    drained = patched(limited, 0, transport=24 - sum(p["transport"] for p in limited["players"][1:]))
    assert refused(blackout, drained, 0, {"type": "BUY_TRANSPORT", "count": 1}) == "pool_empty"
    no_cubes = patched(started(CUBES_LIMITED=True), 0, hkd=10, supply=0)
    assert refused(blackout, no_cubes, 0, {"type": "BUY_BATTERY", "count": 1}) == "no_cube"

    # Phase 2: the card being resolved
    volunteer = next(c for c in hand if cards[c]["kind"] == "VOLUNTEER")
    specialist = next(
        c
        for c, card in sorted(cards.items())
        if card["kind"] == "SPECIALIST"
        and any(alternative["cost"] for row in card["actions"] for alternative in row["alternatives"])
    )
    gather = {"type": "GATHER", "cardId": volunteer, "targetResource": "FOOD", "buyTransport": 0}
    assert refused(blackout, in_phase(state, "p2"), 0, gather) == "not_revealed"
    as_volunteer = in_phase(state, "p2", current=specialist, revealed=[specialist])
    assert refused(blackout, as_volunteer, 0, {**gather, "cardId": specialist}) == "not_a_volunteer"
    as_specialist = in_phase(state, "p2", current=volunteer, revealed=[volunteer])
    row = {"type": "USE_SPECIALIST_ROW", "cardId": volunteer, "rowIndex": 0}
    assert refused(blackout, as_specialist, 0, row) == "not_a_specialist"
    row_index = next(i for i, r in enumerate(cards[specialist]["actions"]) if r["alternatives"][0]["cost"])
    with_specialist = in_phase(state, "p2", current=specialist, revealed=[specialist])
    odd_payment = {
        "type": "USE_SPECIALIST_ROW",
        "cardId": specialist,
        "rowIndex": row_index,
        "payment": {"resources": {"GOLD": 1}, "hkd": 0},
    }
    assert refused(blackout, with_specialist, 0, odd_payment) == "unknown_resource"

    # Phase 4: patrols
    district = sorted(state["districts"])[0]
    take = {"type": "PATROL_TAKE", "tileId": "NO-SUCH-TILE", "challenge": "EASY", "partyCardIds": [volunteer]}
    assert refused(blackout, in_phase(state, "p4"), 0, {"type": "PATROL_DECLINE"}) == "no_patrol"
    assert refused(blackout, in_phase(state, "p4"), 0, take) == "no_patrol"
    looking = in_phase(state, "p4", patrol=district)
    assert refused(blackout, looking, 0, {"type": "PATROL_SKIP"}) == "already_patrolling"
    assert refused(blackout, looking, 0, take) == "unknown_tile"
    tile = state["districts"][district]["tiles"][0]
    assert refused(blackout, looking, 0, {**take, "tileId": tile, "partyCardIds": []}) == "bad_party"
    choose = {"type": "PATROL_CHOOSE_DISTRICT", "districtId": "NO-SUCH-DISTRICT"}
    assert refused(blackout, in_phase(state, "p4"), 0, choose) == "unknown_district"
    setup = new_game()
    cube = {"type": "PLACE_START_CUBE", "locationId": "NO-SUCH-LOCATION"}
    assert refused(blackout, setup, blackout.to_act(setup)[0], cube) == "unknown_location"

    # Phase 5, Phase 7, decisions
    market = [list(r) for r in state["market"]]
    market[0][0] = None
    empty_cell = patched(in_phase(state, "p5"), market=market)
    buy = {"type": "BUY_MARKET_CARD", "row": 0, "col": 0, "objectiveSpaceIndex": 0}
    assert refused(blackout, empty_cell, 0, buy) == "cell_empty"
    house = {"type": "CHOOSE_HOUSE", "districtId": district, "checkSpaceId": "X"}
    assert refused(blackout, in_phase(state, "p7"), 0, house) == "no_house_due"
    hospital = patched(state, queue=[{"seat": 0, "effect": {"type": "RETRIEVE_FROM_HOSPITAL"}, "source": {}}])
    assert refused(blackout, hospital, 0, {"type": "RETRIEVE_CARD", "cardId": volunteer}) == "not_a_target"
    offer = patched(
        state, queue=[{"seat": 0, "effect": {"type": "CLOSE_OUT_OFFER"}, "source": {"card": "C1"}}]
    )
    assert (
        refused(blackout, offer, 0, {"type": "RESOLVE_CLOSE_OUT", "cardId": "C2", "closeOut": True})
        == "no_close_out"
    )


# -- every refusal the code can make carries a declared code: read from the source ----------------------

RECORDED = Path(__file__).parents[1] / "fixtures" / "refusals"


def _constructions(tree: ast.AST, makers: set[str]) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)) in makers
    ]


def codes_made(paths: list[Path]) -> tuple[dict[str, str], list[str]]:
    """The codes the source at ``paths`` refuses with (code -> where), and the constructions whose code is
    neither a literal nor handed on unchanged. A function that builds ``IllegalAction`` from a parameter
    (Blackout's ``refuse(reason, message)``) is followed to its own calls."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in paths}
    makers, helpers = {"IllegalAction"}, set()
    for tree in trees.values():
        for function in ast.walk(tree):
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                parameters = {a.arg for a in function.args.args}
                for call in _constructions(function, {"IllegalAction"}):
                    if call.args and isinstance(call.args[0], ast.Name) and call.args[0].id in parameters:
                        helpers.add(function.name)
    makers |= helpers
    made: dict[str, str] = {}
    unknown: list[str] = []
    for path, tree in trees.items():
        for call in _constructions(tree, makers):
            code = call.args[0] if call.args else None
            where = f"{path.name}:{call.lineno}"
            if (literals := _literals(code)) is not None:
                for literal in literals:
                    made.setdefault(literal, where)
            elif isinstance(code, ast.Name) and code.id in {a.arg for a in _enclosing_args(tree, call)}:
                continue  # a helper's own construction: its calls are read instead
            elif isinstance(code, ast.Attribute) and code.attr == "reason":
                continue  # a refusal made earlier, raised again (already judged where it was made)
            else:
                unknown.append(f"{where}: {ast.unparse(call)}")
    return made, unknown


def _literals(code: ast.expr | None) -> list[str] | None:
    """The codes an expression can be: a string literal, or either branch of ``a if ... else b``."""
    if isinstance(code, ast.Constant) and isinstance(code.value, str):
        return [code.value]
    if isinstance(code, ast.IfExp):
        body, orelse = _literals(code.body), _literals(code.orelse)
        return None if body is None or orelse is None else body + orelse
    return None


def _enclosing_args(tree: ast.AST, call: ast.Call) -> list[ast.arg]:
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) and call in ast.walk(function):
            return function.args.args
    return []


def _package_of(game) -> Path:
    module = importlib.import_module(type(game).__module__)
    path = Path(inspect.getfile(module))
    return path.parent


def _toy():
    from tests import toy_nim

    return toy_nim.GAME


@pytest.mark.parametrize("game_id", [*sorted(GAMES), "nim"])
def test_every_refusal_a_game_can_make_names_a_code_it_declares(game_id):
    game = GAMES[game_id] if game_id in GAMES else _toy()
    package = _package_of(game)
    made, unknown = codes_made(sorted(package.rglob("*.py")))
    assert not unknown, f"refusals whose code cannot be read from the source: {unknown}"
    turn = {"game_over", "not_your_turn"}  # check_turn's (service/games/protocol.py), declared by every game
    undeclared = {code: where for code, where in made.items() if code not in game.refusals}
    assert not undeclared, f"{game_id} refuses with codes it does not declare in refusals: {undeclared}"
    assert turn <= set(game.refusals)


def test_every_refusal_the_server_can_make_names_a_code_of_the_shell():
    """Outside the games' packages only the server refuses, with ``SHELL_REFUSALS`` (``lifecycle``);
    ``protocol``'s ``check_turn`` makes the two codes every game declares."""
    service = Path(inspect.getfile(lifecycle)).parent
    games_folder = Path(inspect.getfile(importlib.import_module("service.games"))).parent
    server = [path for path in sorted(service.rglob("*.py")) if games_folder not in path.parents]
    made, unknown = codes_made(server)
    assert not unknown, f"refusals whose code cannot be read from the source: {unknown}"
    assert made and set(made) <= set(SHELL_REFUSALS), {
        c: w for c, w in made.items() if c not in SHELL_REFUSALS
    }
    protocol, _ = codes_made([games_folder / "protocol.py"])
    assert set(protocol) == {"game_over", "not_your_turn"}


# -- every declared code is produced: each game's recorded refusals, and the server's through the API ----


def _content(game_id: str, recorded: dict) -> dict:
    """A recorded state's pack: a base (the game's default, or the fixture pack of the Chock-a-Block tests)
    and the changes a test made to it (``set`` a value, ``extend`` a list: fixture cards added)."""
    if game_id == "blackout-hong-kong":
        from service.games.blackout_hong_kong.content import default_content

        bases = {"default": default_content}
    else:
        from service.games.chock_a_block.content import default_content
        from tests.games.test_chock_a_block_support import fixture_pack

        bases = {"default": default_content, "fixture": fixture_pack}
    content = copy.deepcopy(bases[recorded["base"]]())
    for op, path, value in recorded["patch"]:
        *parents, last = path or [None]
        target: Any = content
        for step in parents:
            target = target[step]
        if op == "set":
            if last is None:
                content = value
            else:
                target[last] = value
        else:
            (target if last is None else target[last]).extend(value)
    return content


def recorded_refusals(game_id: str) -> dict[str, dict]:
    """A game's recorded refusals: its package's ``refusal_examples.json``, where it brings one (a new game
    does), else this folder's (the four games', whose states lean on the tests' fixture packs)."""
    own = Path(inspect.getfile(type(GAMES[game_id]))).parent / "refusal_examples.json"
    recorded = json.loads(
        (own if own.is_file() else RECORDED / f"{game_id}.json").read_text(encoding="utf-8")
    )
    for entry in recorded.values():
        if isinstance(entry["state"].get("content"), dict) and "base" in entry["state"]["content"]:
            entry["state"]["content"] = _content(game_id, entry["state"]["content"])
    return recorded


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_code_a_game_declares_is_produced_by_its_recorded_refusal(game_id):
    game = GAMES[game_id]
    recorded = recorded_refusals(game_id)
    assert set(recorded) == set(game.refusals), (
        f"declared without a recorded refusal: {sorted(set(game.refusals) - set(recorded))}; "
        f"recorded but no longer declared: {sorted(set(recorded) - set(game.refusals))}"
    )
    wrong = {}
    for code, entry in recorded.items():
        try:
            game.play(entry["state"], entry["seat"], entry["action"])
            wrong[code] = "accepted"
        except IllegalAction as refusal:
            if refusal.reason != code:
                wrong[code] = refusal.reason
    assert not wrong, f"recorded refusals answered otherwise: {wrong}"


def test_the_server_produces_each_of_its_refusals(app, fake_redis, settings):
    """One walk through the API (on fakeredis, so the real append script runs) meets every code of
    ``SHELL_REFUSALS``; the three that a client cannot reach in one request are asked of ``lifecycle``."""
    from service.domain.serverkey import ServerKey
    from service.store.keys import Keys
    from service.store.repository import MatchRepository
    from tests.helpers import act, bearer

    client, matches = app.test_client(), app.extensions["matchlog"]
    produced: set[str] = set()

    def refused(answer) -> None:
        assert answer.status_code == 422 and answer.json["error"] == "illegal_action", answer.json
        produced.add(answer.json["reason"])

    def match(game="blokus", undo="until_next_action", players=("ann", "bob")):
        created = client.post(
            "/v1/matches", json={"game": game, "players": [{"name": n} for n in players], "undo": undo}
        )
        assert created.status_code == 201, created.json
        return created.json["id"], [s.get("token") for s in created.json["seats"]]

    def move(match_id, tokens, draw=False):
        seat = client.get(f"/v1/matches/{match_id}").json["to_act"][0]
        legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json
        draws = [a for a in legal["actions"] if a["type"] == "draw_card" and a.get("source") == "DECK"]
        action = draws[0] if draw and draws else legal["actions"][0]
        assert act(client, match_id, tokens[seat], legal["version"], action).status_code == 201
        return seat, bool(draw and draws)

    def undo(match_id, token, verb=""):
        return client.post(f"/v1/matches/{match_id}/undo{verb}", headers=bearer(token))

    match_id, tokens = match(undo="none")
    seat, _ = move(match_id, tokens)
    refused(undo(match_id, tokens[seat]))  # undo_off
    match_id, tokens = match()
    first, _ = move(match_id, tokens)
    move(match_id, tokens)
    refused(undo(match_id, tokens[first]))  # nothing_to_undo
    match_id, tokens = match(undo="with_consent", players=("ann", "bob", "cat"))
    refused(undo(match_id, tokens[1], "/accept"))  # no_undo_request
    seat, _ = move(match_id, tokens)
    assert undo(match_id, tokens[seat]).status_code == 201
    refused(undo(match_id, tokens[seat]))  # undo_pending
    assert undo(match_id, tokens[(seat + 1) % 3], "/accept").status_code == 201
    refused(undo(match_id, tokens[(seat + 1) % 3], "/accept"))  # undo_already_answered
    match_id, tokens = match(game="chock-a-block")
    for _ in range(12):
        seat, drew = move(match_id, tokens, draw=True)
        if drew:
            refused(undo(match_id, tokens[seat]))  # hidden_information_revealed
            break
    match_id, tokens = match(players=("ann", "bob", "cat"))
    quitter = client.get(f"/v1/matches/{match_id}").json["to_act"][0]
    assert client.post(f"/v1/matches/{match_id}/concede", headers=bearer(tokens[quitter])).status_code == 201
    refused(client.post(f"/v1/matches/{match_id}/concede", headers=bearer(tokens[quitter])))  # seat_conceded
    match_id, tokens = match()
    assert client.post(f"/v1/matches/{match_id}/concede", headers=bearer(tokens[0])).status_code == 201
    refused(client.post(f"/v1/matches/{match_id}/concede", headers=bearer(tokens[1])))  # game_over

    # not started, a bot's seat, aborted: the API answers these before the rules are asked (403, 409)
    repository = MatchRepository(
        fake_redis,
        Keys(settings.namespace, settings.feed_partitions),
        settings.snapshot_every,
        ServerKey(settings.secret_key),
    )
    action = {"type": "place", "cells": [[0, 0]]}
    for players, seat, abort in (
        ([{"name": "ann"}, {"open": True}], 0, False),
        ([{"name": "ann"}, {"bot": "random"}], 1, False),
        ([{"name": "ann"}, {"name": "bob"}], 0, True),
    ):
        match_id = client.post("/v1/matches", json={"game": "blokus", "players": players}).json["id"]
        if abort:
            matches.abort(match_id, "no-show")
        with pytest.raises(IllegalAction) as refusal:
            lifecycle.act(
                matches.load(match_id),
                seat,
                action,
                repository.meta(match_id).secret,
                "2026-01-01T00:00:00.000Z",
            )
        produced.add(refusal.value.reason)
    assert produced == set(SHELL_REFUSALS), (set(SHELL_REFUSALS) - produced, produced - set(SHELL_REFUSALS))
