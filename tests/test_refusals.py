"""Refusal reasons are declared: every engine lists the codes its ``play`` refuses with (``refusals``,
``service.games.protocol.Refusals``) and the rule each enforces; the server's own are
``service.lifecycle.SHELL_REFUSALS``. The catalogue lists them per game and ``openapi.yaml`` carries them
as enums (``<Game>RefusalReason``, and ``RefusalReason`` for ``Error.reason``).

``tests/conftest.py`` wraps ``IllegalAction`` for the whole session: a test during which a game refuses
with a code it does not declare fails, and a run of the whole suite fails when a declared code was never
produced. Here: random games with wrong actions thrown in, and a probe for each code that the rules tests
do not produce otherwise."""

from __future__ import annotations

import random
import re

import pytest

from service.app import spec
from service.games import GAMES, refusals_component
from service.games.protocol import IllegalAction, Refusal
from service.lifecycle import SHELL_REFUSALS, refusals_of
from service.matches import KNOWN_SEED_REASONS
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
    blokus = {r["reason"]: r for r in next(g for g in client.get("/v1/games").json if g["id"] == "blokus")["refusals"]}
    assert blokus["must_cover_start"]["rule"] == "spec 2.2" and blokus["undo_off"]["by"] == "server"


def test_the_contract_carries_each_games_reasons_as_an_enum(app):
    schemas = spec(app)["components"]["schemas"]
    everything = set(KNOWN_SEED_REASONS)
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
            random_playout(game, new_state(game, players, f"refusals-{seed}"), rng, on_move=wrong, max_moves=80)
    assert seen and seen <= set(game.refusals), seen - set(game.refusals)
