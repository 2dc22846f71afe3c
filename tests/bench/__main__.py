"""``python -m tests.bench [GAME] [--no-api] [--seconds S] [--clients N]``

Prints the machine, a table (name, figure, unit) and, as the very last line, one JSON object with
every figure."""

from __future__ import annotations

import argparse
import json
import sys

from tests.bench import api
from tests.bench.common import json_figures, machine, table
from tests.bench.games import BENCHMARKS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "game", nargs="?", choices=sorted(BENCHMARKS), help="benchmark only this game (default: every game)"
    )
    parser.add_argument("--no-api", action="store_true", help="skip the API benchmark")
    parser.add_argument(
        "--seconds",
        type=float,
        default=1.0,
        help="scale every duration (1.0: ~2.5 s per engine figure, 10 s of API load)",
    )
    parser.add_argument("--clients", type=int, default=4, help="API client processes (default 4)")
    parser.add_argument("--api-workers", type=int, default=2, help="gunicorn workers of the API (default 2)")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")

    games = [args.game] if args.game else sorted(BENCHMARKS)
    about = machine()
    for f in about:
        print(f"{f.label}: {f.value}")
    print(flush=True)

    figures = list(about)
    for game_id in games:
        print(f"engine benchmarks: {game_id} ...", file=sys.stderr, flush=True)
        figures += BENCHMARKS[game_id].engine(args.seconds)

    if not args.no_api:
        # the API figures are Blokus's unless one game is chosen: they are the ones compared run to run
        preferred = [args.game] if args.game else ["blokus"] + games
        api_game = next((g for g in preferred if BENCHMARKS[g].scripted_match), None)
        if api_game is None:
            print("no selected game has an API script; skipping the API benchmark", file=sys.stderr)
        else:
            print(f"API benchmark: {api_game}, {args.clients} clients ...", file=sys.stderr, flush=True)
            api_figures, notes = api.run(
                api_game, BENCHMARKS[api_game].scripted_match, args.seconds, args.clients, args.api_workers
            )
            for note in notes:
                print(note)
            figures += api_figures

    print(table([f for f in figures if not f.key.startswith("machine.")]))
    print(json.dumps(json_figures(figures), separators=(", ", ": ")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
