"""``python -m tests.bench.bots [GAMES...] [--games N] [--level L] [--jobs J]``

Win rates of the strong search bots against the common ones, with the engines alone (no HTTP):
``blokus-strong`` against ``random`` and ``greedy`` in Blokus Duo, ``block-block-strong`` against
them in BLOCK.BLOCK. Each pairing plays ``--games`` games (default 50), the strong bot moving first
in every other one. Every move is chosen as ``service.domain.lifecycle.bot_action`` chooses it: the bot of
the game's ``bots_of`` table, given a ``SeatView`` (view, legal actions, standing after each, the
state, the level) and a generator seeded from the game's seed, the seat and the move number.

Prints the machine, a table (name, figure, unit) and, as the very last line, one JSON object with
every figure. Targets (from the issue): >= 95 % of games won against random, >= 75 % against greedy.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from service.games.bots import SeatView, bots_of
from tests.bench.common import Figure, json_figures, machine, table

GAMES = {
    "blokus": ("blokus", "blokus-strong", {"variant": "duo"}, "Blokus Duo"),
    "block-block": ("block-block", "block-block-strong", {"first_player": 0}, "BLOCK.BLOCK"),
}
OPPONENTS = ("random", "greedy")
TARGETS = {"random": 0.95, "greedy": 0.75}


def _engine(game_id: str):
    from service.games import GAMES as REGISTRY

    return REGISTRY[game_id]


def seat_view(engine, state: dict[str, Any], seat: int, level: int) -> SeatView:
    """The ``SeatView`` ``lifecycle.bot_action`` builds, from the engine alone."""
    legal = engine.legal_actions(state, seat)

    def standing_after(index: int) -> dict[str, Any]:
        scores = engine.scores(engine.play(state, seat, legal[index]).states[-1])
        return {"scores": scores["scores"], "ranks": scores["ranks"]}

    open_game = not (engine.info.hidden_information or engine.info.chance)
    return SeatView(
        seat,
        engine.view(state, seat),
        legal,
        standing_after,
        state if open_game else None,
        engine if open_game else None,
        level,
    )


def play_game(
    game_id: str, options: dict[str, Any], bots: tuple[str, str], seed: str, level: int = 1
) -> dict[str, Any]:
    """One game between ``bots`` (seat 0, seat 1). Returns the ranks, and per seat the seconds spent
    choosing and the moves chosen."""
    engine = _engine(game_id)
    resolved = engine.resolve_options(options, 2)
    state = engine.setup(resolved, 2, seed)
    table_of_bots = bots_of(engine)
    spent, moves = [0.0, 0.0], [0, 0]
    while not engine.is_over(state):
        seat = engine.to_act(state)[0]
        start = time.perf_counter()
        view = seat_view(engine, state, seat, level)
        mixed = hashlib.sha256(f"{seed}:bot:{seat}:{moves[0] + moves[1]}".encode()).digest()
        action = table_of_bots[bots[seat]].choose(view, random.Random(mixed))
        spent[seat] += time.perf_counter() - start
        moves[seat] += 1
        state = engine.play(state, seat, action).states[-1]
    return {"ranks": engine.scores(state)["ranks"], "spent": spent, "moves": moves}


def _one(job: tuple) -> dict[str, Any]:
    game_id, options, strong, opponent, index, level = job
    strong_seat = index % 2  # the strong bot moves first in every other game
    bots = (strong, opponent) if strong_seat == 0 else (opponent, strong)
    result = play_game(game_id, options, bots, f"bots-bench-{game_id}-{opponent}-{index}", level)
    ranks = result["ranks"]
    outcome = (
        "draw" if ranks[0] == ranks[1] else ("win" if ranks[strong_seat] < ranks[1 - strong_seat] else "loss")
    )
    return {
        "outcome": outcome,
        "strong_spent": result["spent"][strong_seat],
        "strong_moves": result["moves"][strong_seat],
        "other_spent": result["spent"][1 - strong_seat],
        "other_moves": result["moves"][1 - strong_seat],
    }


def pairing(game: str, opponent: str, games: int, level: int, pool) -> list[Figure]:
    game_id, strong, options, label = GAMES[game]
    jobs = [(game_id, options, strong, opponent, i, level) for i in range(games)]
    start = time.perf_counter()
    results = list(pool.map(_one, jobs)) if pool else [_one(j) for j in jobs]
    elapsed = time.perf_counter() - start
    wins = sum(r["outcome"] == "win" for r in results)
    draws = sum(r["outcome"] == "draw" for r in results)
    per_move = sum(r["strong_spent"] for r in results) / max(1, sum(r["strong_moves"] for r in results))
    other = sum(r["other_spent"] for r in results) / max(1, sum(r["other_moves"] for r in results))
    key = f"bots.{game.replace('-', '_')}.{opponent}"
    target = TARGETS[opponent]
    return [
        Figure(
            f"{key}.win_rate",
            f"{label}: {strong} vs {opponent}, win rate",
            wins / games,
            f"of {games} games (target >= {target:.2f}; {'met' if wins / games >= target else 'NOT met'})",
        ),
        Figure(f"{key}.wins", f"{label}: {strong} vs {opponent}, wins", wins, "games"),
        Figure(f"{key}.draws", f"{label}: {strong} vs {opponent}, draws", draws, "games"),
        Figure(f"{key}.losses", f"{label}: {strong} vs {opponent}, losses", games - wins - draws, "games"),
        Figure(
            f"{key}.games",
            f"{label}: {strong} vs {opponent}, games",
            games,
            "games (half with the strong bot first)",
        ),
        Figure(
            f"{key}.strong_s_per_move",
            f"{label}: {strong}, time per move",
            per_move,
            f"s (level {level}, incl. building the SeatView)",
        ),
        Figure(
            f"{key}.{opponent}_s_per_move",
            f"{label}: {opponent}, time per move",
            other,
            "s (incl. building the SeatView)",
        ),
        Figure(f"{key}.seconds", f"{label}: {strong} vs {opponent}, wall time", elapsed, "s"),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench.bots",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "games",
        nargs="*",
        metavar="GAME",
        help=f"games to benchmark, of {', '.join(sorted(GAMES))} (default: all)",
    )
    parser.add_argument("--games", dest="count", type=int, default=50, help="games per pairing (default 50)")
    parser.add_argument(
        "--level", type=int, default=1, choices=(1, 2, 3), help="the strong bot's level (default 1)"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="worker processes (default: usable cores; 1 plays in this process)",
    )
    args = parser.parse_args(argv)
    chosen = args.games or sorted(GAMES)
    unknown = [g for g in chosen if g not in GAMES]
    if unknown:
        parser.error(f"unknown game {unknown[0]!r}; choose from {', '.join(sorted(GAMES))}")
    about = machine()
    for f in about:
        print(f"{f.label}: {f.value}")
    print(flush=True)
    jobs = args.jobs or next(int(f.value) for f in about if f.key == "machine.cores")
    figures = list(about) + [
        Figure("bots.level", "strong bots' level", args.level, ""),
        Figure("bots.jobs", "worker processes", jobs, ""),
    ]
    pool = ProcessPoolExecutor(jobs) if jobs > 1 else None
    try:
        for game in chosen:
            for opponent in OPPONENTS:
                print(
                    f"{GAMES[game][3]}: {GAMES[game][1]} vs {opponent}, {args.count} games ...",
                    file=sys.stderr,
                    flush=True,
                )
                figures += pairing(game, opponent, args.count, args.level, pool)
    finally:
        if pool:
            pool.shutdown()
    print(table([f for f in figures if not f.key.startswith("machine.")]))
    print(json.dumps(json_figures(figures), separators=(", ", ": ")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
