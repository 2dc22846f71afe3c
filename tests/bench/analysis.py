"""What an analysis costs: ``python -m tests.bench.analysis [matches]``.

For each game and player count below, plays ``matches`` (default 2) bot matches to their end with the
server's own pure steps (``tests.engines.bot_match_log``: greedy against random, as a mixed field plays),
then times ``service.domain.analysis.analyse`` over each whole log, as the worker's job runs it (less reading the
log from Redis and writing the result: a few milliseconds). Prints the machine, a table (seconds per
match, per judged action, and the actions judged) and, as the very last line, one JSON object with every
figure.
"""

from __future__ import annotations

import json
import sys
import time

from service.domain import analysis
from tests.bench.common import Figure, json_figures, machine, table
from tests.engines import bot_match_log

CASES = [
    ("blokus", "duo", {"variant": "duo"}, 2),
    ("blokus", "four_player", {"variant": "four_player"}, 4),
    ("block-block", "2p", {}, 2),
    ("chock-a-block", "3p", {}, 3),
    ("blackout-hong-kong", "3p", {}, 3),
]


def bench(matches: int) -> list[Figure]:
    figures = []
    for game, label, options, seats in CASES:
        seconds, actions = 0.0, 0
        for n in range(matches):
            bots = ["greedy" if seat % 2 == 0 else "random" for seat in range(seats)]
            log = bot_match_log(game, bots, seed=f"bench-{game}-{label}-{n}", **options)
            started = time.perf_counter()
            result = analysis.analyse(log)
            seconds += time.perf_counter() - started
            actions += len(result["moves"])
        key = f"analysis.{game}.{label}"
        figures += [
            Figure(f"{key}.s_per_match", f"{game} {label}: analysis per match", seconds / matches, "s"),
            Figure(
                f"{key}.ms_per_action", f"{game} {label}: per judged action", 1000 * seconds / actions, "ms"
            ),
            Figure(f"{key}.actions_per_match", f"{game} {label}: actions judged", actions / matches, ""),
        ]
    return figures


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    matches = int(args[0]) if args else 2
    figures = machine() + [Figure("analysis.matches", "matches per game", matches)] + bench(matches)
    print(table(figures))
    print(json.dumps(json_figures(figures), separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
