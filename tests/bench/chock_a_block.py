"""Chock-a-Block benchmarks: random complete games with the engine alone, the cost of one legal-actions
call in the middle of a five-player game, and random legal games for the API benchmark."""

from __future__ import annotations

import random

from service.games.chock_a_block import GAME
from tests.bench.common import Figure, legal_actions_per_s, timed_passes

API_PLAYERS = 4  # the API benchmark's matches: four players, as figures before quote

MODES = {
    # label: (players, options)
    "2p": (2, {}),
    "5p": (5, {}),
    "solo": (1, {"excluded_feature": "CAT"}),
}


def random_game(
    rng: random.Random, players: int, options: dict, seed: str = "bench", positions: list | None = None
) -> list[tuple[int, dict, int]]:
    """One random complete game; returns (seat, action, events appended) per action. ``positions``
    collects the states of rounds 5 to 8 in which a seat is to act (the middle of the game)."""
    state = GAME.setup(GAME.resolve_options(options, players), players, seed)
    moves = []
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        if positions is not None and 5 <= state["round"] <= 8:
            positions.append(state)
        action = rng.choice(GAME.legal_actions(state, seat))
        events = GAME.play(state, seat, action)
        state = events.states[-1]
        moves.append((seat, action, len(events)))
    return moves


def engine(seconds: float, seed: int = 20240601) -> list[Figure]:
    figures = []
    for label, (players, options) in MODES.items():
        rng = random.Random(seed)

        def game_pass(rng=rng, players=players, options=options) -> int:
            random_game(rng, players, options, seed=str(rng.random()))
            return 1

        played, elapsed = timed_passes(game_pass, 2.5 * seconds / len(MODES))
        figures.append(
            Figure(
                f"chock_a_block.games_per_s.{label}",
                f"chock-a-block random complete games ({label})",
                played / elapsed,
                "games/s",
            )
        )

    positions: list = []
    rng = random.Random(seed + 1)
    for i in range(10):
        random_game(rng, 5, {}, seed=f"mid{i}", positions=positions)
    seats = [GAME.to_act(s)[0] for s in positions]
    per_call = 1 / legal_actions_per_s(GAME, positions, 2.5 * seconds)
    actions = sum(len(GAME.legal_actions(s, seat)) for s, seat in zip(positions, seats)) / len(positions)
    figures += [
        Figure(
            "chock_a_block.mid5p_positions",
            "chock-a-block mid-game 5p positions (rounds 5-8)",
            len(positions),
            "positions of 10 games",
        ),
        Figure(
            "chock_a_block.mid5p_actions",
            "chock-a-block legal actions per mid-game 5p position",
            actions,
            "actions (mean)",
        ),
        Figure(
            "chock_a_block.legal_actions_us",
            "chock-a-block one legal_actions call, mid-game 5p",
            per_call * 1e6,
            "µs/call",
        ),
        Figure(
            "chock_a_block.legal_actions_per_s",
            "chock-a-block legal_actions, mid-game 5p",
            1 / per_call,
            "calls/s",
        ),
    ]
    return figures
