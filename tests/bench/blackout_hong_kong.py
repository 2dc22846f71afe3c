"""Blackout: Hong Kong benchmarks: random complete games per second for 2 and 4 players (engine alone), and
one ``legal_actions`` call in the middle of a four-player game (rounds 4 to 6)."""

from __future__ import annotations

import random

from service.games.blackout_hong_kong import GAME, content
from tests.bench.common import Figure, legal_actions_per_s, timed_passes

API_PLAYERS = 4  # the API benchmark's matches


def random_game(rng: random.Random, players: int, seed: str, positions: list | None = None) -> int:
    """One random complete game; returns its number of actions. ``positions`` collects the states of
    rounds 4 to 6 with the seat to act first (the middle of a game)."""
    state = GAME.setup(GAME.resolve_options({}, players), players, seed, content.default_content())
    actions = 0
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        if positions is not None and 4 <= state["round"] <= 6:
            positions.append(state)
        state = GAME.play(state, seat, rng.choice(GAME.legal_actions(state, seat))).states[-1]
        actions += 1
    return actions


def engine(seconds: float, seed: int = 20240601) -> list[Figure]:
    figures = []
    for players in (2, 4):
        rng = random.Random(seed)
        lengths = []

        def game_pass(rng=rng, players=players, lengths=lengths) -> int:
            lengths.append(random_game(rng, players, str(rng.random())))
            return 1

        played, elapsed = timed_passes(game_pass, 1.2 * seconds)
        figures += [
            Figure(
                f"blackout_hong_kong.games_per_s.{players}p",
                f"blackout-hong-kong random complete games ({players}p)",
                played / elapsed,
                "games/s",
            ),
            Figure(
                f"blackout_hong_kong.actions_per_game.{players}p",
                f"blackout-hong-kong actions per random game ({players}p)",
                sum(lengths) / len(lengths),
                "actions (mean)",
            ),
        ]
    positions: list = []
    rng = random.Random(seed + 1)
    for i in range(5):
        random_game(rng, 4, f"mid{i}", positions)
    per_call = 1 / legal_actions_per_s(GAME, positions, 1.5 * seconds)
    seats = [GAME.to_act(s)[0] for s in positions]
    listed = sum(len(GAME.legal_actions(s, seat)) for s, seat in zip(positions, seats)) / len(positions)
    figures += [
        Figure(
            "blackout_hong_kong.mid4p_positions",
            "blackout-hong-kong mid-game 4p positions (rounds 4-6)",
            len(positions),
            "positions of 5 games",
        ),
        Figure(
            "blackout_hong_kong.mid4p_actions",
            "blackout-hong-kong legal actions per mid-game 4p position",
            listed,
            "entries (mean)",
        ),
        Figure(
            "blackout_hong_kong.legal_actions_us",
            "blackout-hong-kong one legal_actions call, mid-game 4p",
            per_call * 1e6,
            "µs/call",
        ),
    ]
    return figures
