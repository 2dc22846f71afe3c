"""Blokus benchmarks: the engine alone (the API script is the generic one of ``tests.bench.common``)."""

from __future__ import annotations

import random
import time

from service.games.blokus import GAME
from service.games.blokus.engine import VARIANTS
from service.games.blokus.geometry import ORIENTATIONS, PIECES
from tests.bench.common import Figure, legal_actions_per_s, timed_passes


def _action(state, move: tuple[int, int, int]) -> dict:
    """The API action of a (colour, orientation, anchor) triple from ``GAME.all_placements``."""
    colour, orientation, anchor = move
    variant = VARIANTS[state["variant"]]
    return {
        "type": "place",
        "colour": variant.colours[colour],
        "piece": PIECES[ORIENTATIONS[orientation].piece].name,
        "cells": variant.board.placement_cells(orientation, anchor),
    }


def random_game(
    rng: random.Random, positions: list | None = None, variant: str = "four_player"
) -> list[tuple[int, dict, int]]:
    """One random complete game: setup, then placements -> random choice -> play -> apply until over.

    Returns its moves as (seat, action, events appended); ``positions`` collects every state in
    which a move is to be chosen."""
    players = VARIANTS[variant].players
    state = GAME.setup(GAME.resolve_options({"variant": variant}, players), players, "bench")
    moves = []
    while not GAME.is_over(state):
        if positions is not None:
            positions.append(state)
        seat = GAME.to_act(state)[0]
        action = _action(state, rng.choice(GAME.all_placements(state)))
        played = GAME.play(state, seat, action)
        state = played.states[-1]  # play has folded its events already
        moves.append((seat, action, len(played)))
    return moves


def movegen_rates(positions: list, seconds: float) -> tuple[float, float]:
    """Full move generations per second over ``positions``: (``all_placements``,
    ``all_placements_reference``). Passes of the two alternate until each has had ``seconds``, so
    both see the same machine load and the ratio stays meaningful on a busy machine."""
    for state in positions:  # a speed-up of a generator that lists other moves would mean nothing
        if GAME.all_placements(state) != GAME.all_placements_reference(state):
            raise AssertionError("all_placements differs from all_placements_reference")
    generators = (GAME.all_placements, GAME.all_placements_reference)
    spent, passes = [0.0, 0.0], 0
    while min(spent) < seconds:
        passes += 1
        for i, generate in enumerate(generators):
            start = time.perf_counter()
            for state in positions:
                generate(state)
            spent[i] += time.perf_counter() - start
    new, reference = (passes * len(positions) / elapsed for elapsed in spent)
    return new, reference


def _variant_figures(variant: str, seconds: float, games: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    positions: list = []
    for _ in range(games):
        random_game(rng, positions, variant)
    moves_per_pass = sum(len(GAME.all_placements(s)) for s in positions)
    movegen, reference = movegen_rates(positions, seconds)
    game_rng = random.Random(seed + 1)

    def game_pass() -> int:
        random_game(game_rng, variant=variant)
        return 1

    played, played_in = timed_passes(game_pass, seconds)
    return {
        "positions": len(positions),
        "moves_per_position": moves_per_pass / len(positions),
        "movegen_per_s": movegen,
        "movegen_reference_per_s": reference,
        "movegen_speedup": movegen / reference,
        "moves_per_s": movegen * moves_per_pass / len(positions),
        "games_per_s": played / played_in,
    }


def engine(seconds: float, games: int = 20, seed: int = 20240601) -> list[Figure]:
    """Per variant, on the positions of ``games`` random games: full legal-move generations per
    second (every placement of every colour the player may place) by the engine's generator and
    by the reference one it replaced, and the ratio of the two, legal moves per second, random
    complete games per second, and how much slower one generation is than in the four-player game."""
    rng = random.Random(seed)
    positions: list = []
    for _ in range(games):
        random_game(rng, positions)
    legal = legal_actions_per_s(GAME, positions, 2.5 * seconds)
    per_variant = {
        name: _variant_figures(name, 2.5 * seconds if name == "four_player" else seconds, games, seed)
        for name in VARIANTS
    }
    four = per_variant["four_player"]
    figures = [
        Figure(
            "blokus.positions",
            "blokus positions (from random 4-player games)",
            four["positions"],
            f"positions of {games} games",
        ),
        Figure(
            "blokus.moves_per_position",
            "blokus legal moves per position",
            four["moves_per_position"],
            "moves (mean)",
        ),
        Figure("blokus.movegen_per_s", "blokus full move generation", four["movegen_per_s"], "generations/s"),
        Figure(
            "blokus.movegen_reference_per_s",
            "blokus full move generation, reference generator",
            four["movegen_reference_per_s"],
            "generations/s (Board.placements_reference)",
        ),
        Figure(
            "blokus.movegen_speedup",
            "blokus move generation speed-up over the reference",
            four["movegen_speedup"],
            "x",
        ),
        Figure("blokus.moves_per_s", "blokus legal moves generated", four["moves_per_s"], "moves/s"),
        Figure("blokus.legal_actions_per_s", "blokus legal_actions (API list)", legal, "calls/s"),
        Figure("blokus.games_per_s", "blokus random complete games", four["games_per_s"], "games/s"),
    ]
    for name, got in per_variant.items():
        if name == "four_player":
            continue
        figures += [
            Figure(
                f"blokus.{name}.movegen_per_s",
                f"blokus {name}: full move generation",
                got["movegen_per_s"],
                f"generations/s ({got['moves_per_position']:.0f} moves per position)",
            ),
            Figure(
                f"blokus.{name}.movegen_reference_per_s",
                f"blokus {name}: full move generation, reference",
                got["movegen_reference_per_s"],
                "generations/s (Board.placements_reference)",
            ),
            Figure(
                f"blokus.{name}.movegen_speedup",
                f"blokus {name}: move generation speed-up over the reference",
                got["movegen_speedup"],
                "x",
            ),
            Figure(
                f"blokus.{name}.moves_per_s",
                f"blokus {name}: legal moves generated",
                got["moves_per_s"],
                "moves/s",
            ),
            Figure(
                f"blokus.{name}.games_per_s",
                f"blokus {name}: random complete games",
                got["games_per_s"],
                "games/s",
            ),
            Figure(
                f"blokus.{name}.slowdown",
                f"blokus {name}: time per generation vs four_player",
                four["movegen_per_s"] / got["movegen_per_s"],
                "x (target: at most 2)",
            ),
        ]
    return figures
