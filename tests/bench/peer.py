"""``python -m tests.bench.peer [--seconds S] [--clients N] [--rounds R] [--workers W] [--memory]``

matchlog's moves socket against boardgame.io's server, per durable move, on this machine, in one run.
Opt-in: nothing in the test suite runs it. It needs Node (20 or later) and npm; the first run installs
the Node side's pinned packages (``npm ci`` in ``tests/bench/peer``, from its ``package-lock.json``).

One ``redis-server`` of the bench's own (a free port in 6395-6399, else any; ``appendonly yes``,
``appendfsync always``, ``save ""``, in a temporary folder that goes afterwards) serves both sides:

- ``boardgame.io``: its own server (``boardgame.io/server``, koa and socket.io, one Node process:
  ``tests/bench/peer/server.js``), serving a four-player five-in-a-row on an 8 x 8 grid
  (``peer/game.js``), its matches stored in that Redis by ``peer/storage.js`` (boardgame.io's ``Async``
  storage: state and log entries written in one ``MULTI`` per move). N Node client processes
  (``peer/client.js``), each playing its own matches one at a time with one socket.io connection
  (websocket transport) per seat, a random free cell per move; a move counts when the state that
  follows it reaches the mover's socket. Matches are created and joined (the lobby API) before the
  clock starts.
- ``matchlog``: ``matchlog api`` under gunicorn with W workers, as ``tests.bench.throughput`` starts
  it, on the same Redis; N client processes (``tests.bench.api``) playing random legal four-player
  Blokus games computed beforehand, each seat's actions over its own moves socket; a move counts when
  its answer (201) arrives.

The two sides take turns, boardgame.io first, R rounds (default 2), each a warm-up and a measured
window (default 0.5 s and 5 s). A rate is moves per second over all rounds; p50 and p99 are over
every timed move. boardgame.io broadcasts a move's state before its storage write resolves (its
per-match queue holds the next move until it has), so after each of its rounds the bench reads the
stored states back and sets the moves they count against the moves its clients saw answered.

Prints the machine, a line per side per round, a table and, as its very last line, one JSON object.
``--memory`` serves boardgame.io from its default in-memory storage instead (no
Redis, nothing durable): the ceiling of its server, not the comparison.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import random
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import cast

import redis

from service import processes, serving
from tests.bench.api import (
    HOST,
    Servers,
    cpu_seconds,
    drive,
    free_port,
    load_plan,
    machine_ticks,
    percentile,
    prebuild,
)
from tests.bench.common import Figure, json_figures, machine, table
from tests.bench.games import BENCHMARKS
from tests.bench.throughput import RedisServer

PEER = Path(__file__).resolve().parent / "peer"
REDIS_PORTS = range(6395, 6400)  # this bench's own Redis ports on a shared machine
PEER_PORTS = range(8150, 8160)  # and boardgame.io's server's
EXPECTED_RATE = 1500  # moves/s, only to decide how many matches each client creates up front
PEER_MOVES_PER_MATCH = 62  # what a random five-in-a-row on 8 x 8 lasts, for the same purpose
SIDES = (("bgio", "boardgame.io"), ("matchlog", "matchlog moves socket"))


def port_in(ports: range) -> int:
    """The first port of ``ports`` nothing listens on (a bind tells), else any free one."""
    for port in ports:
        with socket.socket() as s:
            try:
                s.bind((HOST, port))
            except OSError:
                continue
            return port
    return free_port()


def node_side() -> None:
    """Node and the Node side's pinned packages, installed with ``npm ci`` the first time."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            raise SystemExit(f"the peer bench needs {tool} (Node 20 or later) on the PATH")
    if not (PEER / "node_modules" / "boardgame.io").is_dir():
        print("installing the Node side (npm ci in tests/bench/peer) ...", file=sys.stderr, flush=True)
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=PEER, check=True)


class PeerServer:
    """boardgame.io's server in a Node process of its own; ``close`` stops it and deletes its keys."""

    def __init__(self, redis_url: str, memory: bool = False):
        self.prefix = f"bgio-{secrets.token_hex(4)}"
        self.redis_url = redis_url
        self.memory = memory
        self.port = port_in(PEER_PORTS)
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (it lives as long as the server)
        command = ["node", "server.js", str(self.port), redis_url, self.prefix]
        self.process = subprocess.Popen(
            command + (["--memory"] if memory else []),
            cwd=PEER,
            env=dict(os.environ, NODE_ENV="production"),  # boardgame.io logs nothing per move then
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        try:
            self._wait_ready()
        except BaseException:
            self.close()
            raise

    def _wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"boardgame.io's server exited:\n{self.log_tail()}")
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=2)
                conn.request("GET", "/games")
                if conn.getresponse().status == 200:
                    conn.close()
                    return
                conn.close()
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"boardgame.io's server did not answer:\n{self.log_tail()}")
            time.sleep(0.1)

    def stored_moves(self) -> int | None:
        """Moves the stored states of every match count (a state's ``_stateID`` goes up by one a move):
        what Redis holds, to set against the moves the clients saw answered. None in memory."""
        if self.memory:
            return None
        client = redis.Redis.from_url(self.redis_url)
        stored = 0
        for batch in _batches(client.scan_iter(match=f"{self.prefix}:m:*:state", count=1000), 500):
            stored += sum(json.loads(state)["_stateID"] for state in client.mget(batch) if state)
        client.close()
        return stored

    def log_tail(self, chars: int = 3000) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-chars:]

    def close(self) -> None:
        processes.stop(self.process)
        self.log.close()
        client = redis.Redis.from_url(self.redis_url)
        for batch in _batches(client.scan_iter(match=f"{self.prefix}:*", count=1000), 500):
            client.delete(*batch)
        client.close()


def _batches(items, size: int):
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def drive_peer(
    server: PeerServer, clients: int, warmup: float, duration: float, redis_pid: int | None
) -> dict:
    """Load boardgame.io's server with ``clients`` Node client processes; what was measured in the
    window, in the shape ``tests.bench.api.drive`` gives for matchlog."""
    precreate = math.ceil(EXPECTED_RATE * (warmup + duration) / clients / PEER_MOVES_PER_MATCH) + 1
    procs = []
    try:
        for index in range(clients):
            config: dict[str, float] = {"port": server.port, "index": index, "precreate": precreate}
            config.update(warmup=warmup, duration=duration)
            procs.append(
                subprocess.Popen(
                    ["node", "client.js", json.dumps(config)],
                    cwd=PEER,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
        for p in procs:
            line = p.stdout.readline()
            if line.strip() != "ready":
                raise RuntimeError(f"a client failed while creating its matches:\n{line}{p.stdout.read()}")
        stored_before = server.stored_moves()
        start = time.time() + 0.2
        for p in procs:
            p.stdin.write(f"go {start!r}\n")
            p.stdin.flush()

        shares = _cpu_shares(server.process.pid, redis_pid, [p.pid for p in procs], start + warmup, duration)
        reports = [_report(p, timeout=60) for p in procs]
    finally:
        processes.stop(*procs)
    stored_after = server.stored_moves()
    fatal = [r["fatal"] for r in reports if "fatal" in r]
    if fatal:
        raise RuntimeError("a client failed:\n" + fatal[0] + "\nserver log:\n" + server.log_tail())

    latencies = sorted(x for r in reports for x in r["latencies"])
    errors: Counter = Counter()
    notes: list[str] = []
    for r in reports:
        errors.update(r["errors"])
        notes += [f"error sample (client {r['index']}): {s}" for s in r["samples"]]
    if errors:
        notes.append("errors: " + ", ".join(f"{k} x{v}" for k, v in sorted(errors.items())))
    made = sum(r["moves"] for r in reports)
    stored = stored_after - stored_before if stored_after is not None else None
    if stored is not None and stored != made:
        notes.append(
            f"boardgame.io's Redis holds {stored} moves of this round, its clients saw {made} answered"
        )
    last = max(r["last"] for r in reports) if latencies else 0.0
    elapsed = (last - min(r["window_start"] for r in reports)) if latencies else duration
    matches = sum(r["matches"] for r in reports)
    run_time = clients * (warmup + duration)  # every client's time from the start, warm-up included
    return {
        "latencies": latencies,
        "errors": errors,
        "notes": notes,
        "elapsed": elapsed,
        "rate": len(latencies) / elapsed if elapsed > 0 else 0.0,
        "moves_per_match": sum(r["finished_moves"] for r in reports) / matches if matches else float("nan"),
        "setup_pct": 100 * sum(r["setup"] for r in reports) / run_time,
        "moves": made,
        "stored": stored,
        **shares,
    }


def _cpu_shares(
    server_pid: int, redis_pid: int | None, client_pids: list[int], begin: float, duration: float
):
    """CPU of the server, its clients, Redis and the whole machine from ``begin`` (``time.time()``) for
    ``duration`` seconds, in % of one core, measured as ``tests.bench.api.drive`` measures matchlog's."""
    time.sleep(max(0.0, begin - time.time()))
    server0, clients0 = cpu_seconds([server_pid]), cpu_seconds(client_pids)
    redis0 = cpu_seconds([redis_pid]) if redis_pid else 0.0
    busy0, total0 = machine_ticks()
    t0 = time.perf_counter()
    time.sleep(max(0.0, begin + duration - time.time()))
    server, clients = cpu_seconds([server_pid]) - server0, cpu_seconds(client_pids) - clients0
    redis_cpu = cpu_seconds([redis_pid]) - redis0 if redis_pid else None
    busy1, total1 = machine_ticks()
    wall = time.perf_counter() - t0
    cores = len(os.sched_getaffinity(0))
    return {
        "server_cpu_pct": 100 * server / wall,
        "client_cpu_pct": 100 * clients / wall,
        "redis_cpu_pct": 100 * redis_cpu / wall if redis_cpu is not None else None,
        "machine_busy_pct": 100 * cores * (busy1 - busy0) / max(1, total1 - total0),
        "cores": cores,
    }


def _report(process: subprocess.Popen, timeout: float) -> dict:
    """The client's last line: its JSON report (or what it said instead)."""
    try:
        said, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"index": "?", "fatal": f"no report within {timeout:.0f} s"}
    for line in reversed(said.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {"index": "?", "fatal": f"no report (exit {process.returncode}): {said[-2000:]}"}


def run(
    seconds: float, clients: int, rounds: int, workers: int, memory: bool = False, seed: int = 7
) -> tuple[list[Figure], list[str]]:
    rng = random.Random(seed)
    matches = [BENCHMARKS["blokus"].scripted_match(rng) for _ in range(max(2 * clients, 24))]
    scripts = [prebuild(body, script) for body, script in matches]
    warmup, duration, precreate = load_plan(scripts, clients, seconds)
    blokus_moves = sum(len(actions) for _, actions in scripts) / len(scripts)

    store = RedisServer(port=port_in(REDIS_PORTS))
    servers: dict[str, Servers | PeerServer] = {}
    runs: dict[str, list[dict]] = {key: [] for key, _ in SIDES}
    notes: list[str] = []
    try:
        servers["bgio"] = PeerServer(store.url, memory=memory)
        servers["matchlog"] = Servers(workers, store.url)
        for round_ in range(rounds):
            for key, label in SIDES:
                print(f"round {round_ + 1}/{rounds}: {label} ...", file=sys.stderr, flush=True)
                if key == "bgio":
                    got = drive_peer(
                        cast(PeerServer, servers[key]), clients, warmup, duration, store.process.pid
                    )
                else:
                    got = drive(
                        cast(Servers, servers[key]),
                        scripts,
                        clients,
                        warmup,
                        duration,
                        precreate,
                        redis_pid=store.process.pid,
                        over_socket=True,
                    )
                runs[key].append(got)
                latencies = got["latencies"]
                print(
                    f"round {round_ + 1}, {label}: {got['rate']:,.0f} moves/s,"
                    f" p50 {percentile(latencies, 0.5) * 1000:.1f} ms,"
                    f" p99 {percentile(latencies, 0.99) * 1000:.1f} ms,"
                    f" server CPU {got['server_cpu_pct']:.0f} %,"
                    f" machine {got['machine_busy_pct']:.0f} %",
                    flush=True,
                )
                notes += [f"{label}, round {round_ + 1}: {n}" for n in got["notes"]]
    finally:
        for s in servers.values():
            s.close()
        store.stop()
    return _figures(runs, store, clients, workers, rounds, duration, memory, blokus_moves), notes


def _figures(runs, store, clients, workers, rounds, duration, memory, blokus_moves) -> list[Figure]:
    ms = 1000.0
    figures = [
        Figure(
            "peer.clients", "client processes (each side)", clients, "one socket per seat, one move in flight"
        ),
        Figure(
            "peer.servers",
            "servers",
            f"boardgame.io 0.50.2: 1 Node {_node_version()} process; matchlog: {workers} gunicorn workers",
            f"{serving.WORKER_CLASS} workers",
        ),
        Figure(
            "peer.redis",
            "redis (both sides)",
            f"{store.version} on loopback TCP",
            "appendonly yes, appendfsync always"
            + ("; boardgame.io on its in-memory storage (--memory)" if memory else ""),
        ),
        Figure("peer.rounds", "rounds", rounds, f"{duration:.0f} s measured per side per round"),
    ]
    summary = {}
    for key, label in SIDES:
        got = runs[key]
        latencies = sorted(x for g in got for x in g["latencies"])
        rate = len(latencies) / sum(g["elapsed"] for g in got)
        server_cpu = sum(g["server_cpu_pct"] for g in got) / len(got)
        summary[key] = (rate, percentile(latencies, 0.99), server_cpu)
        figures += [
            Figure(
                f"peer.{key}.per_s",
                f"{label}: moves",
                rate,
                "/s (rounds: " + " / ".join(f"{g['rate']:.0f}" for g in got) + ")",
            ),
            Figure(f"peer.{key}.p50_ms", f"{label}: p50", percentile(latencies, 0.50) * ms, "ms"),
            Figure(f"peer.{key}.p99_ms", f"{label}: p99", percentile(latencies, 0.99) * ms, "ms"),
            Figure(
                f"peer.{key}.errors",
                f"{label}: errors",
                sum(sum(g["errors"].values()) for g in got),
                "moves",
            ),
            Figure(f"peer.{key}.server_cpu_pct", f"{label}: CPU of the server", server_cpu, "% of one core"),
            Figure(
                f"peer.{key}.server_ms_per_move",
                f"{label}: server CPU per move",
                10 * server_cpu / rate if rate else float("nan"),
                "ms",
            ),
            Figure(
                f"peer.{key}.client_cpu_pct",
                f"{label}: CPU of the clients",
                sum(g["client_cpu_pct"] for g in got) / len(got),
                "% of one core",
            ),
            Figure(
                f"peer.{key}.redis_cpu_pct",
                f"{label}: CPU of redis",
                sum(g["redis_cpu_pct"] for g in got) / len(got),
                "% of one core",
            ),
            Figure(
                f"peer.{key}.machine_busy_pct",
                f"{label}: CPU of the whole machine",
                sum(g["machine_busy_pct"] for g in got) / len(got),
                f"% of one core ({got[0]['cores']} cores)",
            ),
        ]
    figures.append(
        Figure(
            "peer.bgio.setup_pct",
            "boardgame.io: clients' time opening and syncing seats",
            sum(g["setup_pct"] for g in runs["bgio"]) / len(runs["bgio"]),
            "% (4 socket.io connections and a sync per match; in the window, as matchlog's 4 WebSockets)",
        )
    )
    if not memory:
        figures.append(
            Figure(
                "peer.bgio.stored",
                "boardgame.io: moves in Redis after the rounds / moves answered",
                f"{sum(g['stored'] for g in runs['bgio'])} / {sum(g['moves'] for g in runs['bgio'])}",
                "warm-up included; the states' _stateID, read back when the clients are done",
            )
        )
    played = [g["moves_per_match"] for g in runs["bgio"] if not math.isnan(g["moves_per_match"])]
    figures.append(
        Figure(
            "peer.moves_per_match",
            "moves per finished match: boardgame.io / matchlog",
            f"{sum(played) / len(played) if played else float('nan'):.0f} / {blokus_moves:.0f}",
            "five-in-a-row 8 x 8 / four-player Blokus",
        )
    )
    (ml_rate, ml_p99, ml_cpu), (bg_rate, bg_p99, bg_cpu) = summary["matchlog"], summary["bgio"]
    figures += [
        Figure(
            "peer.ratio",
            "matchlog / boardgame.io: moves/s",
            ml_rate / bg_rate if bg_rate else float("nan"),
            "x (goal >= 1.0)",
        ),
        Figure(
            "peer.p99_ratio",
            "matchlog / boardgame.io: p99",
            ml_p99 / bg_p99 if bg_p99 else float("nan"),
            "x",
        ),
        Figure(
            "peer.cpu_per_move_ratio",
            "matchlog / boardgame.io: server CPU per move",
            (ml_cpu / ml_rate) / (bg_cpu / bg_rate) if ml_rate and bg_rate and bg_cpu else float("nan"),
            "x",
        ),
    ]
    return figures


def _node_version() -> str:
    if shutil.which("node") is None:
        return "(no node)"
    return subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench.peer",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=0.5,
        help="scale every duration (0.5: 0.5 s warm-up and 5 s measured per side and round)",
    )
    parser.add_argument("--clients", type=int, default=8, help="client processes of each side (default 8)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of each side (default 2)")
    parser.add_argument("--workers", type=int, default=2, help="matchlog's gunicorn workers (default 2)")
    parser.add_argument(
        "--memory", action="store_true", help="boardgame.io on its in-memory storage (no Redis)"
    )
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1 or args.clients < 1:
        parser.error("--seconds must be positive, --rounds and --clients at least 1")
    node_side()
    about = machine()
    for f in about:
        print(f"{f.label}: {f.value}")
    print(flush=True)
    figures, notes = run(args.seconds, args.clients, args.rounds, args.workers, args.memory)
    for note in notes:
        print(note)
    print(table(figures))
    print(json.dumps(json_figures(about + figures), separators=(", ", ": ")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
