"""What a listing costs: ``python -m tests.bench.listing [--matches N] [--others K]``.

In the Redis at ``REDIS_URL`` (default ``redis://127.0.0.1:6379/0``), under a namespace of its own (deleted
after), it makes ``N`` (default 400) public matches of every game in turn, Blackout among them, of every
status: a seat left open, started, a few moves in, aborted. Then, as an API worker that has not seen them
(a new ``Matches``, nothing cached):

- the CPU time (``time.process_time``, this process: the API worker's share of a request, not Redis's) and
  the wall time of ``GET /v1/matches?limit=20`` and ``limit=200``'s work (``Matches.listed_rows``: the rows
  as the answer carries them), cold (a new worker each time) and warm (the same one again: median of 5);
- the CPU time of the same pages through the whole Flask app (``GET /v1/matches``, the rows' dump included),
  warm;
- a cached Blackout state's bytes, two ways: ``tracemalloc``'s growth while one worker holds the latest
  state of each of the Blackout matches, divided by their number (what the cache costs a process), and
  ``pickle`` of one state alone (what it holds, shared or not);
- the resident memory (VmRSS) of a fresh process that pages through all ``N`` matches, 200 a page, as an
  API worker does under paging clients, and, beside it, of one that only starts.

With ``--others K`` it also times ``?status=aborted`` (5 found) beside ``K`` active Blokus matches, cold and
warm, as before. Prints a table and, as its very last line, one JSON object."""

from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import statistics
import subprocess
import sys
import time
import tracemalloc
import uuid

import redis

from service.application import listings
from service.application.matches import Matches, NewMatch
from service.config import Settings
from tests.bench.common import Figure, json_figures, machine, table

GAMES = ("blokus", "block-block", "chock-a-block", "blackout-hong-kong")
SECRET = "x" * 64


def _settings(namespace: str) -> Settings:
    return Settings(namespace=namespace, secret_key=SECRET)


def _client() -> redis.Redis:
    return redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))


def populate(matches: Matches, count: int) -> list[str]:
    """``count`` public matches of every game in turn and of every status; their ids, Blackout's first."""
    blackout = []
    for i in range(count):
        game = GAMES[i % len(GAMES)]
        kind = i // len(GAMES) % 4
        players: list[str | None] = ["ann", None] if kind == 0 else ["ann", "bob"]
        match_id, state, _ = matches.create(NewMatch(game, players))
        if kind == 2:  # a few moves in
            for _ in range(3):
                if not state.to_act():
                    break
                seat = state.to_act()[0]
                matches.submit(match_id, seat, state.version, state.legal_actions(seat)[0])
                state = matches.load(match_id)
        elif kind == 3:
            matches.abort(match_id, "bench")
        if game == "blackout-hong-kong":
            blackout.append(match_id)
    return blackout


def page_cpu(
    settings: Settings, limit: int, fresh: bool, worker: Matches | None = None
) -> tuple[float, float]:
    """CPU and wall seconds of one page of ``limit`` matches, newest first, by ``worker`` (a new one when
    ``fresh``)."""
    matches = Matches(_client(), settings) if fresh or worker is None else worker
    cpu, wall = time.process_time(), time.perf_counter()
    _, count, _ = listings.listed_rows(
        matches.stores.listings, None, None, None, None, limit, newest_first=True
    )
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert count == limit, count
    return cpu, wall


def warm_page(settings: Settings, limit: int) -> tuple[float, float]:
    worker = Matches(_client(), settings)
    page_cpu(settings, limit, False, worker)
    runs = [page_cpu(settings, limit, False, worker) for _ in range(5)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def http_page_cpu(settings: Settings, limit: int) -> float:
    """CPU seconds of ``GET /v1/matches?limit=...&order=newest`` through the whole Flask app (the answer's
    encoding included), warm: the median of 5 after one."""
    from service.http.app import create_app

    client = create_app(settings, _client()).test_client()
    runs = []
    for _ in range(6):
        cpu = time.process_time()
        answer = client.get(f"/v1/matches?limit={limit}&order=newest")
        runs.append(time.process_time() - cpu)
        assert answer.status_code == 200 and len(answer.json["matches"]) == limit, answer.status_code
    return statistics.median(runs[1:])


def state_bytes(settings: Settings, blackout: list[str]) -> tuple[float, int]:
    """tracemalloc's bytes per held Blackout state (its latest, as the cache holds it), and one's pickle."""
    worker = Matches(_client(), settings)
    worker.load(blackout[0])  # what loading needs once per process (code, the first pack) is not a state's
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    held = [worker.load(match_id) for match_id in blackout[1:]]
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return grown / len(held), len(pickle.dumps(held[0], protocol=pickle.HIGHEST_PROTOCOL))


def worker_rss(namespace: str, page: bool) -> int:
    """VmRSS (bytes) of a new process that made a ``Matches`` and, with ``page``, listed every match."""
    code = "import sys; from tests.bench.listing import _pager; _pager(sys.argv[1], sys.argv[2] == '1')"
    out = subprocess.run(
        [sys.executable, "-c", code, namespace, "1" if page else "0"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ},
    )
    return int(out.stdout.strip().splitlines()[-1])


def _pager(namespace: str, page: bool) -> None:
    matches = Matches(_client(), _settings(namespace))
    if page:
        cursor, seen = None, 0
        while True:
            found, cursor = listings.listed(matches.stores.listings, None, None, None, cursor, 200)
            seen += len(found)
            if cursor is None:
                break
        for _ in range(3):  # paging clients come back: the pages again
            cursor = None
            while True:
                _, cursor = listings.listed(matches.stores.listings, None, None, None, cursor, 200)
                if cursor is None:
                    break
    with open("/proc/self/status", encoding="ascii") as status:
        rss = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmRSS:"))
    print(rss)


def aborted_among(others: int) -> list[Figure]:
    """``?status=aborted`` (5 found) beside ``others`` active Blokus matches, cold and warm (ms, wall)."""
    client = _client()
    settings = _settings(f"bench-listing-{uuid.uuid4().hex[:8]}")
    matches = Matches(client, settings)
    try:
        for _ in range(others):
            matches.create(NewMatch("blokus", ["ann", "bob"]))
        aborted = [matches.create(NewMatch("blokus", ["ann", "bob"]))[0] for _ in range(5)]
        for match_id in aborted:
            matches.abort(match_id, "bench")
        fresh = Matches(client, settings)  # a new worker: no match state cached
        started = time.perf_counter()
        found, _ = listings.listed(fresh.stores.listings, None, None, "aborted", None, 50)
        cold = time.perf_counter() - started
        started = time.perf_counter()
        listings.listed(fresh.stores.listings, None, None, "aborted", None, 50)
        warm = time.perf_counter() - started
        assert sorted(m["id"] for m in found) == sorted(aborted), found
    finally:
        _clean(client, settings.namespace)
    return [
        Figure("aborted_among.cold_ms", f"?status=aborted beside {others:,} others, cold", cold * 1000, "ms"),
        Figure("aborted_among.warm_ms", f"?status=aborted beside {others:,} others, warm", warm * 1000, "ms"),
    ]


def _clean(client: redis.Redis, namespace: str) -> None:
    for key in client.scan_iter(match=f"{namespace}:*", count=1000):
        client.delete(key)


def run(count: int, others: int) -> list[Figure]:
    client = _client()
    settings = _settings(f"bench-listing-{uuid.uuid4().hex[:8]}")
    figures: list[Figure] = []
    try:
        print(f"creating {count} matches ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        blackout = populate(Matches(client, settings), count)
        print(f"  {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
        for limit in (20, 200):
            cold = [page_cpu(settings, limit, True) for _ in range(3)]
            cpu, wall = statistics.median(c[0] for c in cold), statistics.median(c[1] for c in cold)
            figures += [
                Figure(f"page{limit}.cold_cpu_ms", f"page of {limit}, cold: CPU", cpu * 1000, "ms"),
                Figure(f"page{limit}.cold_wall_ms", f"page of {limit}, cold: wall", wall * 1000, "ms"),
            ]
            cpu, wall = warm_page(settings, limit)
            figures += [
                Figure(f"page{limit}.warm_cpu_ms", f"page of {limit}, warm: CPU", cpu * 1000, "ms"),
                Figure(f"page{limit}.warm_wall_ms", f"page of {limit}, warm: wall", wall * 1000, "ms"),
            ]
        for limit in (20, 200):
            cpu = http_page_cpu(settings, limit)
            figures.append(
                Figure(
                    f"http{limit}.warm_cpu_ms", f"GET /v1/matches?limit={limit}, warm: CPU", cpu * 1000, "ms"
                )
            )
        traced, pickled = state_bytes(settings, blackout)
        figures += [
            Figure("blackout_state.traced_kib", "cached Blackout state (tracemalloc)", traced / 1024, "KiB"),
            Figure("blackout_state.pickle_kib", "Blackout state (pickle)", pickled / 1024, "KiB"),
        ]
        idle, paged = worker_rss(settings.namespace, False), worker_rss(settings.namespace, True)
        figures += [
            Figure("worker.rss_idle_mib", "worker RSS, started", idle / 2**20, "MiB"),
            Figure("worker.rss_paged_mib", f"worker RSS, after paging {count} x4", paged / 2**20, "MiB"),
        ]
    finally:
        _clean(client, settings.namespace)
    if others:
        figures += aborted_among(others)
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.listing", description=__doc__)
    parser.add_argument(
        "--matches", type=int, default=400, help="matches to list (default 400, at least 200)"
    )
    parser.add_argument("--others", type=int, default=0, help="also ?status=aborted beside this many")
    args = parser.parse_args(argv)
    if args.matches < 200:
        parser.error("--matches must be at least 200 (a page of 200)")
    about = machine()
    figures = run(args.matches, args.others)
    print(table(about + figures))
    print(json.dumps(json_figures(about + figures)))


if __name__ == "__main__":
    main()
