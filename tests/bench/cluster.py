"""``python -m tests.bench.cluster [--seconds S] [--clients N] [--appendfsync always|everysec]``

Appends per second through the event store (the version-checked append script, no HTTP) on one Redis
node, and the floor under its client's CPU on that node (the same processes each sending a plain ``SET``
down a plain socket, synced as an append is: what one round trip costs a client on this machine), against
a 3-master Redis Cluster (3 replicas beside them), both started here from the same
``redis-server`` with the same settings, on loopback. Each of N client processes appends one entry at
a time to its own matches, in turn. Also the cluster with ``replicated`` durability (each append waits
for its replica: ``WAIT 1``), and how the matches fell on the masters. Prints the machine, a table and,
last, one JSON line. The CPU each append costs the Redis servers (all nodes, replicas included) and the
clients is read from ``/proc``: the numbers of the scaling model in the README.
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import socket
import time
import uuid

from service.domain.chain import Recorded
from service.store.events import EventStore, VersionConflict
from service.store.keys import Keys
from service.store.redis_client import connect
from tests.bench.api import cpu_seconds
from tests.bench.common import Figure, json_figures, machine, table
from tests.bench.throughput import RedisServer
from tests.redis_cluster import LocalCluster, find_redis_server

MATCHES_PER_CLIENT = 16


def timed(seconds: float, start_at: float, out, match_ids: list[str], one_round) -> None:
    """From ``start_at``, ``one_round(latencies)`` again and again until ``seconds`` have gone by (each round
    adds the latency of each request it timed); then ``out`` gets (requests, latencies sampled, match ids,
    the CPU seconds this process spent meanwhile)."""
    while time.time() < start_at:
        time.sleep(0.001)
    latencies: list[float] = []
    cpu_started = time.process_time()
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        one_round(latencies)
    out.put(
        (
            len(latencies),
            latencies[:: max(1, len(latencies) // 5000)],
            match_ids,
            time.process_time() - cpu_started,
        )
    )


def client(url: str, namespace: str, durability: str, seconds: float, start_at: float, out) -> None:
    """Append to this client's own matches in turn until ``seconds`` have gone by (``timed``)."""
    store = EventStore(connect(url), Keys(namespace), durability)
    heads = {}
    for _ in range(MATCHES_PER_CLIENT):
        match_id = uuid.uuid4().hex
        created = Recorded(1, "match_created", None, {"game": "bench"}, "2026-01-01T00:00:00.000Z").chained(
            None
        )
        store.append(match_id, 0, None, [created])
        heads[match_id] = created

    def each_match_once(latencies: list[float]) -> None:
        for match_id, head in heads.items():
            entry = Recorded(
                head.version + 1,
                "placed",
                head.version % 4,
                {"piece": "V3", "cells": [[0, 0], [0, 1], [1, 1]]},
                "2026-01-01T00:00:01.000Z",
            ).chained(head.hash)
            began = time.perf_counter()
            try:
                store.append(match_id, head.version, head.hash, [entry])
            except VersionConflict:
                raise RuntimeError("a version conflict: every client appends to its own matches") from None
            latencies.append(time.perf_counter() - began)
            heads[match_id] = entry

    timed(seconds, start_at, out, list(heads), each_match_once)


def round_trips(url: str, namespace: str, durability: str, seconds: float, start_at: float, out) -> None:
    """The floor under a client's CPU per append: a ``SET`` (which ``appendfsync always`` syncs before it
    answers, as it does an append) written to a plain socket, its reply read, one at a time; no Python
    around it but the loop (``timed``, as ``client``)."""
    host, _, port = url.removeprefix("redis://").partition("/")[0].partition(":")
    command = f"*3\r\n$3\r\nSET\r\n$32\r\n{uuid.uuid4().hex}\r\n$1\r\n1\r\n".encode()
    with socket.create_connection((host, int(port))) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def one_set(latencies: list[float]) -> None:
            began = time.perf_counter()
            sock.sendall(command)
            if sock.recv(64) != b"+OK\r\n":
                raise RuntimeError("SET did not answer +OK")
            latencies.append(time.perf_counter() - began)

        timed(seconds, start_at, out, [], one_set)


def load(url: str, durability: str, clients: int, seconds: float, servers, target=client) -> dict:
    namespace = f"bench-{uuid.uuid4().hex[:8]}"
    out = multiprocessing.Queue()
    start_at = time.time() + 1.5  # every client connected and its matches made before the clock starts
    processes = [
        multiprocessing.Process(target=target, args=(url, namespace, durability, seconds, start_at, out))
        for _ in range(clients)
    ]
    for process in processes:
        process.start()
    time.sleep(max(0.0, start_at - time.time()))
    redis_cpu = cpu_seconds(servers)
    results = [out.get(timeout=seconds + 60) for _ in processes]
    redis_cpu = cpu_seconds(servers) - redis_cpu
    for process in processes:
        process.join()
    appends = sum(r[0] for r in results)
    latencies = sorted(x for r in results for x in r[1])
    return {
        "rate": appends / seconds,
        "p50": latencies[len(latencies) // 2] * 1000,
        "p99": latencies[int(len(latencies) * 0.99)] * 1000,
        "match_ids": [m for r in results for m in r[2]],
        "redis_us": redis_cpu / appends * 1e6,
        "client_us": sum(r[3] for r in results) / appends * 1e6,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench.cluster",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="of load per configuration")
    parser.add_argument("--clients", type=int, default=8, help="client processes")
    parser.add_argument("--appendfsync", choices=["always", "everysec"], default="always")
    args = parser.parse_args(argv)
    binary = find_redis_server()
    about = machine() + [
        Figure("redis.binary", "redis-server", binary),
        Figure("redis.appendfsync", "appendfsync", args.appendfsync),
    ]
    for f in about:
        print(f"{f.label}: {f.value}")
    print(flush=True)
    figures = list(about)
    node = RedisServer(binary, args.appendfsync)
    url = node.url
    try:
        with LocalCluster(binary, appendfsync=args.appendfsync) as cluster:
            nodes = [n.process.pid for n in cluster.nodes.values()]
            print(
                f"1 node, plain SET round trips: {args.clients} clients, {args.seconds:g} s ...", flush=True
            )
            floor = load(url, "local", args.clients, args.seconds, [node.process.pid], target=round_trips)
            figures.append(
                Figure(
                    "one_node.round_trip_client_cpu_us",
                    "1 node: client CPU per plain SET round trip (the floor)",
                    floor["client_us"],
                    "µs",
                )
            )
            runs = [
                ("one_node", "1 node", url, "local", [node.process.pid]),
                ("cluster", "3 masters", cluster.startup_url, "local", nodes),
                ("cluster_replicated", "3 masters, WAIT 1", cluster.startup_url, "replicated", nodes),
            ]
            for key, label, where, durability, servers in runs:
                print(f"{label}: {args.clients} clients, {args.seconds:g} s ...", flush=True)
                run = load(where, durability, args.clients, args.seconds, servers)
                figures += [
                    Figure(f"{key}.appends_per_s", f"{label}: appends", run["rate"], "/s"),
                    Figure(f"{key}.p50_ms", f"{label}: p50", run["p50"], "ms"),
                    Figure(f"{key}.p99_ms", f"{label}: p99", run["p99"], "ms"),
                    Figure(
                        f"{key}.redis_cpu_us",
                        f"{label}: Redis CPU per append (all nodes)",
                        run["redis_us"],
                        "µs",
                    ),
                    Figure(f"{key}.client_cpu_us", f"{label}: client CPU per append", run["client_us"], "µs"),
                ]
                if key == "cluster":
                    keys = Keys("any")
                    spread = collections.Counter(
                        cluster.master_of(keys.feed(keys.partition(m))) for m in run["match_ids"]
                    )
                    figures.append(
                        Figure(
                            "cluster.matches_per_master",
                            "matches per master",
                            " / ".join(str(n) for _, n in sorted(spread.items())),
                        )
                    )
    finally:
        node.stop()
    print(table(figures))
    print(json.dumps(json_figures(figures)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
