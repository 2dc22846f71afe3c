"""The games' own search bots, ``blokus-strong`` and ``block-block-strong``: registered on their
engines, legal in every variant, deterministic given the seat view and the generator, and able to
finish games. No timing thresholds: the bench (``python -m tests.bench.bots``) measures strength."""

from __future__ import annotations

import random

import pytest

from service.domain import lifecycle
from service.domain.replay import MatchState
from service.games import GAMES
from service.games.block_block.bot import BlockBlockStrongBot
from service.games.blokus.bot import BlokusStrongBot
from service.games.blokus.engine import VARIANTS
from service.games.bots import bots_of
from tests.bench.bots import play_game, seat_view

BLOKUS, BLOCK_BLOCK = GAMES["blokus"], GAMES["block-block"]
QUICK_BLOCK_BLOCK = BlockBlockStrongBot({1: 3000})
"""A small node budget, for the whole games; the registered bot is tried on single positions."""


def _positions(engine, options: dict, players: int, every: int, seed: int, limit: int):
    """Positions of a random game (every ``every``-th, at most ``limit``), with the seat to act."""
    state = engine.setup(engine.resolve_options(options, players), players, f"strong-{seed}")
    rng = random.Random(seed)
    found, ply = [], 0
    while not engine.is_over(state) and len(found) < limit:
        seat = engine.to_act(state)[0]
        if ply % every == 0:
            found.append((state, seat))
        state = engine.play(state, seat, rng.choice(engine.legal_actions(state, seat))).states[-1]
        ply += 1
    return found


def _check_positions(engine, bot, positions, level: int = 1):
    for state, seat in positions:
        view = seat_view(engine, state, seat, level)
        action = bot.choose(view, random.Random(11))
        assert action in view.legal_actions
        assert bot.choose(seat_view(engine, state, seat, level), random.Random(11)) == action  # determinism
        engine.play(state, seat, action)  # the engine accepts it


def test_the_strong_bots_are_registered():
    assert isinstance(bots_of(BLOKUS)["blokus-strong"], BlokusStrongBot)
    assert isinstance(bots_of(BLOCK_BLOCK)["block-block-strong"], BlockBlockStrongBot)
    assert "blokus-strong" not in bots_of(BLOCK_BLOCK) and "block-block-strong" not in bots_of(BLOKUS)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_blokus_strong_plays_a_legal_placement_in_every_variant(variant):
    players = VARIANTS[variant].players
    positions = _positions(BLOKUS, {"variant": variant}, players, every=9, seed=len(variant), limit=4)
    _check_positions(BLOKUS, bots_of(BLOKUS)["blokus-strong"], positions)


@pytest.mark.parametrize(
    "options",
    [
        {"variant": "four_player", "scoring": "advanced", "start_corners": "any_free"},
        {"variant": "duo", "allow_voluntary_pass": True},
        {"variant": "solo_rectangle", "puzzle_corner_contact": "optional"},
    ],
)
def test_blokus_strong_with_other_options(options):
    players = VARIANTS[options["variant"]].players
    positions = _positions(BLOKUS, options, players, every=5, seed=3, limit=3)
    _check_positions(BLOKUS, bots_of(BLOKUS)["blokus-strong"], positions, level=2)


@pytest.mark.no_cover  # what it runs is covered by faster tests; traced, it took 3 times as long
def test_block_block_strong_plays_a_legal_placement():
    positions = _positions(BLOCK_BLOCK, {}, 2, every=6, seed=5, limit=4)
    _check_positions(
        BLOCK_BLOCK, bots_of(BLOCK_BLOCK)["block-block-strong"], positions[1:]
    )  # not the empty board
    late = _positions(BLOCK_BLOCK, {"first_player": 1}, 2, every=1, seed=8, limit=30)[14:]
    _check_positions(BLOCK_BLOCK, bots_of(BLOCK_BLOCK)["block-block-strong"], late[::4], level=2)


@pytest.mark.parametrize(
    "options",
    [
        {"half_piece_scoring": "SPLIT", "same_shape_stack_rule": "ANY_CONTACT"},
        {"loss_check_timing": "ON_REQUEST", "tie_break": "SECOND_PLAYER", "require_adjacency": True},
        {"use_half_piece": False, "allow_reflection": True, "max_height": 3},
    ],
)
def test_block_block_strong_with_other_options(options):
    _check_positions(
        BLOCK_BLOCK, QUICK_BLOCK_BLOCK, _positions(BLOCK_BLOCK, options, 2, every=4, seed=2, limit=5)
    )


def test_the_server_calls_the_strong_bot_as_it_calls_any_bot():
    """``lifecycle.bot_action`` finds the bot by name and gives it the state: a legal, repeatable move."""
    for engine, name, options, players in (
        (BLOKUS, "blokus-strong:2", {"variant": "duo"}, 2),
        (BLOKUS, "blokus-strong", {}, 3),
    ):
        ((state, seat),) = _positions(engine, options, players, every=1, seed=4, limit=7)[6:]
        match = MatchState(
            version=9,
            game_id=engine.info.id,
            options=options,
            players=tuple(f"p{i}" for i in range(players)),
            commitment="",
            game=state,
            bots=tuple(name for _ in range(players)),
        )
        secret = lifecycle.SeedSecret("strong-bot-seed", "salt")
        action = lifecycle.bot_action(match, seat, secret)
        assert action in engine.legal_actions(state, seat)
        assert lifecycle.bot_action(match, seat, secret) == action


def test_quick_games_against_random_finish():
    for seed, bots in enumerate((("blokus-strong", "random"), ("random", "blokus-strong"))):
        result = play_game("blokus", {"variant": "duo"}, bots, f"quick-{seed}")
        assert sorted(result["ranks"]) in ([1, 1], [1, 2])
    original = BLOCK_BLOCK.bots["block-block-strong"]
    BLOCK_BLOCK.bots["block-block-strong"] = QUICK_BLOCK_BLOCK  # type: ignore[index]  # a small budget: the game is the point here
    try:
        for seed, bots in enumerate((("block-block-strong", "random"), ("random", "block-block-strong"))):
            result = play_game("block-block", {"first_player": 0}, bots, f"quick-{seed}")
            assert sorted(result["ranks"]) in ([1, 1], [1, 2])
    finally:
        BLOCK_BLOCK.bots["block-block-strong"] = original  # type: ignore[index]
