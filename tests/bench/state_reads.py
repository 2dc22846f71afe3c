"""``python -m tests.bench.state_reads [--seconds S] [--long V]``: what reading a match's state costs as
the match grows, at version 100 and at version V (default 10,000).

A Blokus Duo match created with ``undo: with_consent``: purple places a piece, then asks again and
again to take it back and white refuses every time (``undo_requested``, ``undo_refused``): legal
entries that go on for ever, appended through the application (``Matches.undo`` /
``Matches.answer_undo``) like any others, so the match keeps a snapshot every 16 versions as a long
game would. Two matches are made, one stopped at version 100, one at V. Then, for each:

- ``Matches.load`` with a cold cache (a fresh repository, as in a new process): the snapshot and the
  entries after it are read and folded;
- ``GET /v1/matches/{id}/state`` from a running API (``python -m service.cli api``) over one
  keep-alive connection: the process's head cache is warm after the first request.

Medians of many timed calls, and the ratio V/100. Runs on a ``redis-server`` of its own (as
``tests.bench.throughput``). Prints a table and, as its very last line, one JSON object.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import time

from service.application.matches import Matches, NewMatch
from service.config import Settings
from service.domain.serverkey import new_secret
from service.store.keys import Keys
from service.store.redis_client import connect
from tests.bench.api import HOST, Servers
from tests.bench.common import Figure, json_figures, machine, table
from tests.bench.throughput import RedisServer


def grown(matches: Matches, version: int) -> tuple[str, str]:
    """A Blokus Duo match at exactly ``version`` (at least 4), and the token of seat 0."""
    match_id, state, tokens = matches.create(
        NewMatch("blokus", ["purple", "white"], {"variant": "duo"}, undo="with_consent")
    )
    seat = state.to_act()[0]
    action = state.legal_actions(seat)[0]
    matches.submit(match_id, seat, state.version, action)
    state = matches.load(match_id)
    while state.version < version:  # one entry each
        if state.undo_request is None:
            matches.undo(match_id, seat)
        else:
            matches.answer_undo(match_id, 1 - seat, False)
        state = matches.load(match_id)
    return match_id, tokens[0]


def timed(call, seconds: float, at_least: int = 20) -> float:
    """Median seconds of one ``call()``, over ``seconds`` of calls (at least ``at_least``)."""
    times = []
    end = time.perf_counter() + seconds
    while len(times) < at_least or time.perf_counter() < end:
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def run(seconds: float, long: int) -> list[Figure]:
    store = RedisServer()
    secret = new_secret()
    os.environ["MATCHLOG_SECRET_KEY"] = secret  # the API the bench starts shares it
    servers = None
    try:
        servers = Servers(1, store.url)
        settings = Settings(namespace=servers.namespace, secret_key=secret)
        client = connect(store.url)
        matches = Matches(client, settings)
        print(f"growing a match to version {long} ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        made = {100: grown(matches, 100), long: grown(matches, long)}
        grow_s = time.perf_counter() - t0

        def cold_load(match_id: str) -> None:
            Matches(client, settings).load(match_id)  # fresh caches, as a new process has

        connection = http.client.HTTPConnection(HOST, servers.port, timeout=30)

        def get_state(match_id: str, token: str) -> None:
            connection.request(
                "GET", f"/v1/matches/{match_id}/state", headers={"Authorization": f"Bearer {token}"}
            )
            answer = connection.getresponse()
            body = answer.read()
            if answer.status != 200:
                raise RuntimeError(f"GET state answered {answer.status}: {body[:200]!r}")

        results = {}
        for _ in range(2):  # alternate, so that noise hits both alike; the second pass counts
            for version, (match_id, token) in made.items():
                results[version] = (
                    timed(lambda m=match_id: cold_load(m), seconds),
                    timed(lambda m=match_id, t=token: get_state(m, t), seconds),
                )
        connection.close()
        snapshots = client.hlen(Keys(matches.settings.namespace).snapshots(made[long][0]))
    finally:
        if servers is not None:
            servers.close()
        store.stop()
    ms = 1000.0
    (load_short, http_short), (load_long, http_long) = results[100], results[long]
    return [
        Figure(
            "state_reads.grow_s",
            f"growing the matches (100 and {long:,} versions)",
            grow_s,
            f"s ({long + 100:,} entries appended through Matches)",
        ),
        Figure(
            "state_reads.snapshots", f"snapshots kept by the match at v{long:,}", snapshots, "hash fields"
        ),
        Figure(
            "state_reads.load_cold_v100_ms",
            "Matches.load, cold cache, at v100",
            load_short * ms,
            "ms (median)",
        ),
        Figure(
            "state_reads.load_cold_long_ms",
            f"Matches.load, cold cache, at v{long:,}",
            load_long * ms,
            "ms (median)",
        ),
        Figure(
            "state_reads.load_cold_ratio",
            f"Matches.load cold: v{long:,} / v100",
            load_long / load_short,
            "x (goal <= 1.5)",
        ),
        Figure(
            "state_reads.get_state_v100_ms",
            "GET .../state at v100 (API, warm)",
            http_short * ms,
            "ms (median)",
        ),
        Figure(
            "state_reads.get_state_long_ms",
            f"GET .../state at v{long:,} (API, warm)",
            http_long * ms,
            "ms (median)",
        ),
        Figure(
            "state_reads.get_state_ratio",
            f"GET .../state: v{long:,} / v100",
            http_long / http_short,
            "x (goal <= 1.5)",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench.state_reads",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--seconds", type=float, default=1.0, help="timing per figure and pass (default 1 s)")
    parser.add_argument("--long", type=int, default=10_000, help="the long match's version (default 10,000)")
    args = parser.parse_args(argv)
    if args.long < 104:
        parser.error("--long must be at least 104")
    about = machine()
    for f in about:
        print(f"{f.label}: {f.value}")
    print(flush=True)
    figures = run(args.seconds, args.long)
    print(table(figures))
    print(json.dumps(json_figures(about + figures), separators=(", ", ": ")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
