"""``python -m tests.faults --rounds N --seed S [--durability replicated|local]``: one run of the fault
harness (``tests.faults.harness``); prints each round, then the summary as JSON (also in the run's folder,
kept when an anomaly was found or ``--keep``). Exit 1 when the checker found an anomaly."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tests.faults.harness import FAULTS, Options, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.faults", description=__doc__)
    parser.add_argument("--rounds", type=int, default=6, help="fault rounds, one fault each (default 6)")
    parser.add_argument("--seed", type=int, default=1, help="draws the faults and their targets")
    parser.add_argument("--durability", choices=("replicated", "local"), default="replicated")
    parser.add_argument("--clients", type=int, default=6, help="client threads (default 6)")
    parser.add_argument(
        "--time-limit", type=float, default=1800.0, help="seconds; no round starts after them"
    )
    parser.add_argument(
        "--only",
        type=lambda text: tuple(k.strip() for k in text.split(",") if k.strip()),
        default=FAULTS,
        help=f"comma-separated kinds to draw from (default all: {','.join(FAULTS)})",
    )
    parser.add_argument("--folder", type=Path, help="where the history and logs go (kept)")
    parser.add_argument("--keep", action="store_true", help="keep the run's folder and the cluster's files")
    args = parser.parse_args(argv)
    if not 0 < args.rounds <= 1000 or not 0 < args.clients <= 64 or not 0 < args.time_limit <= 6 * 3600:
        parser.error("--rounds 1..1000, --clients 1..64, --time-limit up to 6 hours")
    if not args.only or set(args.only) - set(FAULTS):
        parser.error(f"--only takes kinds of {', '.join(FAULTS)}")
    summary = run(
        Options(
            rounds=args.rounds,
            seed=args.seed,
            durability=args.durability,
            clients=args.clients,
            folder=args.folder,
            time_limit_s=args.time_limit,
            keep=args.keep,
            only=args.only,
        )
    )
    print(json.dumps(summary, indent=2))
    return 1 if any(summary["anomalies"].values()) else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
