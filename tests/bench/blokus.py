"""Blokus benchmarks: the engine alone, and random legal games for the API benchmark."""

from __future__ import annotations

import random

from service.games.blokus import GAME
from service.games.blokus.engine import VARIANTS
from service.games.blokus.geometry import ORIENTATIONS, PIECES
from service.games.protocol import fold

from tests.bench.common import Figure, timed_passes

PLAYERS = 4
OPTIONS = GAME.resolve_options({}, PLAYERS)  # the four-player game with every default


def _action(state, move: tuple[int, int]) -> dict:
    """The API action of an (orientation, anchor) pair from ``GAME.placements``."""
    orientation, anchor = move
    board = VARIANTS[state["variant"]].board
    return {
        "type": "place",
        "piece": PIECES[ORIENTATIONS[orientation].piece].name,
        "cells": [list(c) for c in board.placement_cells(orientation, anchor)],
    }


def random_game(rng: random.Random, positions: list | None = None) -> list[tuple[int, dict, int]]:
    """One random complete game: setup, then placements -> random choice -> play -> apply until over.

    Returns its moves as (seat, action, events appended); ``positions`` collects every state in
    which a colour is to move."""
    state = GAME.setup(OPTIONS, PLAYERS, "bench")
    moves = []
    while not GAME.is_over(state):
        if positions is not None:
            positions.append(state)
        seat = GAME.to_act(state)[0]
        action = _action(state, rng.choice(GAME.placements(state, state["to_move"])))
        events = GAME.play(state, seat, action)
        state = fold(GAME, state, events)
        moves.append((seat, action, len(events)))
    return moves


def engine(seconds: float, games: int = 20, seed: int = 20240601) -> list[Figure]:
    rng = random.Random(seed)
    positions: list = []
    for _ in range(games):
        random_game(rng, positions)

    def movegen_pass() -> int:
        placements = GAME.placements
        for state in positions:
            placements(state, state["to_move"])
        return len(positions)

    moves_per_pass = sum(len(GAME.placements(s, s["to_move"])) for s in positions)
    generations, elapsed = timed_passes(movegen_pass, 2.5 * seconds)
    movegen = generations / elapsed
    moves = movegen * moves_per_pass / len(positions)

    seats = [GAME.to_act(s)[0] for s in positions]

    def legal_actions_pass() -> int:
        legal_actions = GAME.legal_actions
        for state, seat in zip(positions, seats):
            legal_actions(state, seat)
        return len(positions)

    calls, elapsed = timed_passes(legal_actions_pass, 2.5 * seconds)
    legal = calls / elapsed

    game_rng = random.Random(seed + 1)

    def game_pass() -> int:
        random_game(game_rng)
        return 1

    played, elapsed = timed_passes(game_pass, 2.5 * seconds)

    return [
        Figure("blokus.positions", "blokus positions (from random games)", len(positions),
               f"positions of {games} games"),
        Figure("blokus.moves_per_position", "blokus legal moves per position", moves_per_pass / len(positions),
               "moves (mean)"),
        Figure("blokus.movegen_per_s", "blokus full move generation", movegen, "generations/s"),
        Figure("blokus.moves_per_s", "blokus legal moves generated", moves, "moves/s"),
        Figure("blokus.legal_actions_per_s", "blokus legal_actions (API list)", legal, "calls/s"),
        Figure("blokus.games_per_s", "blokus random complete games", played / elapsed, "games/s"),
    ]


def scripted_match(rng: random.Random) -> tuple[dict, list[tuple[int, dict, int]]]:
    """A POST /v1/matches body and a random legal game for it: (seat, action, version after)."""
    body = {"game": "blokus", "players": [{"name": f"p{i}"} for i in range(PLAYERS)]}
    version = 1  # match_created
    script = []
    moves = random_game(rng)
    for i, (seat, action, appended) in enumerate(moves):
        version += appended + (1 if i == len(moves) - 1 else 0)  # the last action also reveals the seed
        script.append((seat, action, version))
    return body, script
