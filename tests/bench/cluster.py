"""``python -m tests.bench.cluster [--seconds S] [--clients N] [--appendfsync always|everysec]``

Appends per second through the event store (the version-checked append script, no HTTP) on one Redis
node against a 3-master Redis Cluster (3 replicas beside them), both started here from the same
``redis-server`` with the same settings, on loopback. Each of N client processes appends one entry at
a time to its own matches, in turn. Also the cluster with ``replicated`` durability (each append waits
for its replica: ``WAIT 1``), and how the matches fell on the masters. Prints the machine, a table and,
last, one JSON line.
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from service.events import EventStore, Recorded, VersionConflict
from service.keys import Keys
from service.redis_client import connect
from tests.bench.api import free_port
from tests.bench.common import Figure, json_figures, machine, table
from tests.redis_cluster import LocalCluster, find_redis_server

MATCHES_PER_CLIENT = 16


def single_node(binary: str, folder: Path, appendfsync: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    process = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
                                "--appendonly", "yes", "--appendfsync", appendfsync, "--save", ""],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}"
    deadline = time.monotonic() + 10
    while True:
        try:
            connect(url).ping()
            return process, url
        except Exception:
            if time.monotonic() > deadline:
                process.kill()
                raise
            time.sleep(0.05)


def client(url: str, namespace: str, durability: str, seconds: float, start_at: float, out) -> None:
    """Append to this client's own matches in turn until ``seconds`` have gone by: (appends, latencies)."""
    store = EventStore(connect(url), Keys(namespace), durability)
    heads = {}
    for _ in range(MATCHES_PER_CLIENT):
        match_id = uuid.uuid4().hex
        created = Recorded(1, "match_created", None, {"game": "bench"}, "2026-01-01T00:00:00.000Z").chained(None)
        store.append(match_id, 0, None, [created])
        heads[match_id] = created
    while time.time() < start_at:
        time.sleep(0.001)
    latencies = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        for match_id, head in heads.items():
            entry = Recorded(head.version + 1, "placed", head.version % 4, {"piece": "V3", "cells": [[0, 0], [0, 1], [1, 1]]},
                             "2026-01-01T00:00:01.000Z").chained(head.hash)
            began = time.perf_counter()
            try:
                store.append(match_id, head.version, head.hash, [entry])
            except VersionConflict:
                raise RuntimeError("a version conflict: every client appends to its own matches") from None
            latencies.append(time.perf_counter() - began)
            heads[match_id] = entry
    out.put((len(latencies), latencies[:: max(1, len(latencies) // 5000)], list(heads)))


def load(url: str, durability: str, clients: int, seconds: float) -> tuple[float, float, float, list[str]]:
    namespace = f"bench-{uuid.uuid4().hex[:8]}"
    out = multiprocessing.Queue()
    start_at = time.time() + 1.5  # every client connected and its matches made before the clock starts
    processes = [multiprocessing.Process(target=client, args=(url, namespace, durability, seconds, start_at, out))
                 for _ in range(clients)]
    for process in processes:
        process.start()
    results = [out.get(timeout=seconds + 60) for _ in processes]
    for process in processes:
        process.join()
    appends = sum(r[0] for r in results)
    latencies = sorted(x for r in results for x in r[1])
    match_ids = [m for r in results for m in r[2]]
    return appends / seconds, latencies[len(latencies) // 2] * 1000, latencies[int(len(latencies) * 0.99)] * 1000, match_ids


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.cluster", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0, help="of load per configuration")
    parser.add_argument("--clients", type=int, default=8, help="client processes")
    parser.add_argument("--appendfsync", choices=["always", "everysec"], default="always")
    args = parser.parse_args(argv)
    binary = find_redis_server()
    about = machine() + [Figure("redis.binary", "redis-server", binary),
                         Figure("redis.appendfsync", "appendfsync", args.appendfsync)]
    for f in about:
        print(f"{f.label}: {f.value}")
    print(flush=True)
    folder = Path(tempfile.mkdtemp(prefix="mlc-", dir="/tmp"))
    figures = list(about)
    node, url = single_node(binary, folder, args.appendfsync)
    try:
        with LocalCluster(binary, appendfsync=args.appendfsync) as cluster:
            runs = [("one_node", "1 node", url, "local"),
                    ("cluster", "3 masters", cluster.startup_url, "local"),
                    ("cluster_replicated", "3 masters, WAIT 1", cluster.startup_url, "replicated")]
            for key, label, where, durability in runs:
                print(f"{label}: {args.clients} clients, {args.seconds:g} s ...", flush=True)
                rate, p50, p99, match_ids = load(where, durability, args.clients, args.seconds)
                figures += [Figure(f"{key}.appends_per_s", f"{label}: appends", rate, "/s"),
                            Figure(f"{key}.p50_ms", f"{label}: p50", p50, "ms"),
                            Figure(f"{key}.p99_ms", f"{label}: p99", p99, "ms")]
                if key == "cluster":
                    keys = Keys("any")
                    spread = collections.Counter(cluster.master_of(keys.feed(keys.partition(m))) for m in match_ids)
                    figures.append(Figure("cluster.matches_per_master", "matches per master",
                                          " / ".join(str(n) for _, n in sorted(spread.items()))))
    finally:
        node.kill()
        node.wait()
        shutil.rmtree(folder, ignore_errors=True)
    print(table(figures))
    print(json.dumps(json_figures(figures)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
