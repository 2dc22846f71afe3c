"""BLOCK.BLOCK benchmarks: the engine alone (full legal-move generations and random complete games
per second); the API script is the generic one of ``tests.bench.common``."""

from __future__ import annotations

import random

from service.games.block_block import GAME, placement
from tests.bench.common import Figure, legal_actions_per_s, timed_passes

PLAYERS = 2
OPTIONS = GAME.resolve_options({"first_player": 0}, PLAYERS)  # every default; seat 0 plays brown


def _action(move) -> dict:
    """The short API action (shape, rotation, x, y) of a placement from ``placement.placements``."""
    shape, _, orientation, anchor, _ = move
    return {"type": "place", "shape": shape, "rotation": orientation.rotation, "x": anchor.x, "y": anchor.y}


def random_game(rng: random.Random, positions: list | None = None) -> list[tuple[int, dict, int]]:
    """One random complete game: placements -> random choice -> play until over.

    Returns its moves as (seat, action, events appended); ``positions`` collects every state in
    which a player is to move."""
    state = GAME.setup(OPTIONS, PLAYERS, "bench")
    moves = []
    while not GAME.is_over(state):
        if positions is not None:
            positions.append(state)
        seat = GAME.to_act(state)[0]
        action = _action(rng.choice(placement.placements(state, state["to_move"])))
        played = GAME.play(state, seat, action)
        state = played.states[-1]  # play has folded its events already
        moves.append((seat, action, len(played)))
    return moves


def engine(seconds: float, games: int = 40, seed: int = 20240601) -> list[Figure]:
    rng = random.Random(seed)
    positions: list = []
    for _ in range(games):
        random_game(rng, positions)

    def movegen_pass() -> int:
        placements = placement.placements
        for state in positions:
            placements(state, state["to_move"])
        return len(positions)

    moves_per_pass = sum(len(placement.placements(s, s["to_move"])) for s in positions)
    generations, elapsed = timed_passes(movegen_pass, 2.5 * seconds)
    movegen = generations / elapsed

    legal = legal_actions_per_s(GAME, positions, 2.5 * seconds)

    game_rng = random.Random(seed + 1)

    def game_pass() -> int:
        random_game(game_rng)
        return 1

    played, elapsed = timed_passes(game_pass, 2.5 * seconds)

    return [
        Figure(
            "block_block.positions",
            "block-block positions (from random games)",
            len(positions),
            f"positions of {games} games",
        ),
        Figure(
            "block_block.moves_per_position",
            "block-block legal moves per position",
            moves_per_pass / len(positions),
            "moves (mean)",
        ),
        Figure(
            "block_block.movegen_per_s", "block-block full legal-move generation", movegen, "generations/s"
        ),
        Figure(
            "block_block.moves_per_s",
            "block-block legal moves generated",
            movegen * moves_per_pass / len(positions),
            "moves/s",
        ),
        Figure("block_block.legal_actions_per_s", "block-block legal_actions (API list)", legal, "calls/s"),
        Figure("block_block.games_per_s", "block-block random complete games", played / elapsed, "games/s"),
    ]
