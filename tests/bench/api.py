"""The API benchmark: random legal games, computed beforehand with the engine, replayed over HTTP.

A real Redis (``REDIS_URL``, else an embedded one in a fresh temporary folder) and a real API
(``python -m service.cli api``, gunicorn) in its own namespace ``bench-<hex>``; a few client
processes, each with one keep-alive ``http.client`` connection (opened again for each match), each
playing its own matches one action at a time. Only accepted actions (201) are timed; every other answer is an error. The
request bodies are built before the clock starts so that the client spends as little CPU as it can.
"""

from __future__ import annotations

import http.client
import json
import math
import multiprocessing
import os
import random
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

import websocket

from service import processes, serving
from tests.bench.common import Figure

HOST = "127.0.0.1"  # the only address the benchmark ever connects to (besides REDIS_URL if given)
REPO = Path(__file__).resolve().parents[2]
EXPECTED_RATE = 3500
"""Actions/s, only to decide how many matches each client creates up front: above the fastest stack's rate
here (the bare socket's ~3,000), so that no stack creates matches in its measured window (a matchlog match
costs milliseconds to create, a bare one microseconds)."""


# -- the servers -----------------------------------------------------------------------------------

LIMITS_OFF = {
    "MATCHLOG_RATE_LIMIT_PER_TOKEN": "off",
    "MATCHLOG_RATE_LIMIT_PER_ADDRESS": "off",
    "MATCHLOG_RATE_LIMIT_READS_PER_ADDRESS": "off",
}
"""The server's rate limits turned off, for the benches that measure something else than a deployment's
default (``tests.bench.throughput`` keeps them on)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Servers:
    """Redis (given or embedded) and the API subprocess; ``close`` removes every trace."""

    def __init__(
        self,
        api_workers: int,
        redis_url: str | None = None,
        module: str = "service.cli api",
        env: dict[str, str] | None = None,
        rate_limits: bool = False,
    ):
        """``module``: what ``python -m`` serves (``tests.bench.bare``: the bare stack); ``redis_url``: a
        Redis to use (else ``REDIS_URL``, else an embedded one); ``env``: settings for the API, over these;
        ``rate_limits``: the server's default limits on (else ``LIMITS_OFF``)."""
        self.namespace = f"bench-{secrets.token_hex(4)}"
        self.folder = tempfile.mkdtemp(prefix="mlb-", dir="/tmp")
        self.embedded = None
        self.api = None
        self._log = None
        self.url = redis_url or os.environ.get("REDIS_URL") or None
        try:
            if self.url is None:
                from service.store.embedded_redis import EmbeddedRedis

                self.embedded = EmbeddedRedis(Path(self.folder) / "redis").start()
                self.url = self.embedded.url
            self.port = free_port()
            self.log_path = Path(self.folder) / "api.log"
            self._log = open(self.log_path, "wb")  # noqa: SIM115 (the server writes to it until stop() closes it)
            env = {
                **os.environ,
                "REDIS_URL": self.url,
                "MATCHLOG_NAMESPACE": self.namespace,
                "MATCHLOG_DATA": self.folder,
                "BARE_NAMESPACE": self.namespace,
                **({} if rate_limits else LIMITS_OFF),
                **(env or {}),
            }
            self.api = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    *module.split(),
                    "--host",
                    HOST,
                    "--port",
                    str(self.port),
                    "--workers",
                    str(api_workers),
                ],
                env=env,
                cwd=REPO,
                stdout=self._log,
                stderr=subprocess.STDOUT,
            )
            self._wait_ready()
        except BaseException:
            self.close()
            raise

    def _wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self.api.poll() is not None:
                raise RuntimeError(f"the API exited ({self.api.returncode}):\n{self.log_tail()}")
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=2)
                conn.request("GET", "/v1/games")
                if conn.getresponse().status == 200:
                    conn.close()
                    return
                conn.close()
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the API did not answer within {timeout:.0f} s:\n{self.log_tail()}")
            time.sleep(0.1)

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def api_worker_pids(self) -> list[int]:
        """The gunicorn workers: the children of the API process."""
        pids = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                stat = _stat(int(entry))
                if stat and int(stat[1]) == self.api.pid:
                    pids.append(int(entry))
        return pids

    def redis_pid(self) -> int | None:
        return self.embedded.process.pid if self.embedded and self.embedded.process else None

    def close(self) -> None:
        processes.stop(self.api, timeout=15)
        if self._log is not None:
            self._log.close()
        if self.embedded is not None:
            self.embedded.stop()  # its folder, and so every key, goes with the temporary folder
        elif self.url is not None:
            self._delete_namespace()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _delete_namespace(self) -> None:
        from service.store.redis_client import connect

        client = connect(self.url)
        batch = []
        for key in client.scan_iter(match=f"{self.namespace}:*", count=1000):
            batch.append(key)
            if len(batch) >= 500:
                client.delete(*batch)
                batch = []
        if batch:
            client.delete(*batch)
        # RQ's keys for the queue named by the namespace (the benchmark enqueues no job, but be sure)
        client.delete(f"rq:queue:{self.namespace}")
        client.srem("rq:queues", f"rq:queue:{self.namespace}")
        client.close()


def _stat(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat after the command name: [state, ppid, ...]."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def machine_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine, from /proc/stat (steal counts as busy)."""
    with open("/proc/stat", encoding="ascii") as f:
        values = [int(v) for v in f.readline().split()[1:9]]
    idle = values[3] + values[4]  # idle, iowait
    return sum(values) - idle, sum(values)


def connection_holders(pids: list[int], port: int) -> dict[int, int]:
    """Which of ``pids`` holds the server's side of each established TCP connection to ``port``, by the
    client's port."""
    clients: dict[str, int] = {}  # socket inode: the client's port
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(path, encoding="ascii") as f:
                next(f)
                for line in f:
                    fields = line.split()
                    local_port = int(fields[1].rsplit(":", 1)[1], 16)
                    if local_port == port and fields[3] == "01":  # ESTABLISHED, server side
                        clients[fields[9]] = int(fields[2].rsplit(":", 1)[1], 16)
        except OSError:
            pass
    held = {}
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                if link.startswith("socket:[") and link[8:-1] in clients:
                    held[clients[link[8:-1]]] = pid
        except OSError:
            pass
    return held


def connections_per_process(pids: list[int], port: int) -> list[int]:
    """How many established TCP connections to ``port`` each process holds: keep-alive connections
    stay with the gunicorn worker that accepted them, so this shows how the load was spread."""
    held = list(connection_holders(pids, port).values())
    return [held.count(pid) for pid in pids]


def cpu_seconds(pids) -> float:
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        stat = _stat(pid)
        if stat:
            total += int(stat[11]) + int(stat[12])  # utime, stime
    return total / ticks


# -- the client --------------------------------------------------------------------------------------


def prebuild(create_body: dict, script) -> tuple[bytes, list[tuple[int, bytes, int]]]:
    """Request bodies as bytes: each action with the version it expects."""
    actions = []
    version = 1
    for seat, action, after in script:
        body = json.dumps({"expected_version": version, "action": action}, separators=(",", ":")).encode()
        actions.append((seat, body, after))
        version = after
    return json.dumps(create_body).encode(), actions


def source_address(index: int) -> str:
    """Client ``index``'s own loopback address (127.0.0.2, 127.0.0.3, ...): the server's limits per address
    count each client apart, as they count real clients, which come from many addresses."""
    return f"127.0.{index // 250}.{2 + index % 250}"


def _client(
    index,
    port,
    scripts,
    precreate,
    ready,
    go,
    start_at,
    warmup,
    duration,
    results,
    read=False,
    over_socket=False,
) -> None:
    """One client process, from its own address (``source_address``): create its matches, wait for the start,
    then play until the window closes, ``AT_ONCE`` matches in turn, one action each. With ``read``, each action
    is a cycle: ``GET .../legal-actions`` (the seat's list), then the POST; the cycle is what is timed. With
    ``over_socket``, each seat sends its actions over its own connection to the moves socket
    (``/v1/matches/{id}/moves``) instead of POSTing them."""
    try:
        source = (source_address(index), 0)
        conn = http.client.HTTPConnection(HOST, port, timeout=30, source_address=source)
        json_headers = {"Content-Type": "application/json"}
        cursor = index  # which script the next match replays (clients start at different ones)
        created = 0

        def create():
            nonlocal cursor, created
            create_body, actions = scripts[cursor % len(scripts)]
            cursor += 1
            conn.request("POST", "/v1/matches", create_body, json_headers)
            response = conn.getresponse()
            data = response.read()
            if response.status != 201:
                raise RuntimeError(f"POST /v1/matches answered {response.status}: {data[:300]!r}")
            match = json.loads(data)
            created += 1
            headers = [
                {"Content-Type": "application/json", "Authorization": f"Bearer {s['token']}"}
                for s in match["seats"]
            ]
            reads = [{"Authorization": f"Bearer {s['token']}"} for s in match["seats"]]
            return (
                f"/v1/matches/{match['id']}/actions",
                headers,
                actions,
                f"/v1/matches/{match['id']}/legal-actions",
                reads,
                f"ws://{HOST}:{port}/v1/matches/{match['id']}/moves",
            )

        pending = [create() for _ in range(precreate)]
        pending.reverse()
        conn.close()  # reconnect after the wait: the server may drop an idle keep-alive connection
        ready.put(index)
        go.wait()
        start = start_at.value
        window_start = start + warmup
        window_end = window_start + duration
        created_before = created
        while time.perf_counter() < start:
            time.sleep(0.001)

        latencies = []
        errors: Counter = Counter()
        samples: list[str] = []
        last_finish = 0.0
        cpu_at_start = None
        perf = time.perf_counter
        loads = json.loads
        playing: list[_Playing | None] = [None] * AT_ONCE
        turn = 0
        while True:
            now = perf()
            if now >= window_end:
                break
            if cpu_at_start is None and now >= window_start:
                t = os.times()
                cpu_at_start = t.user + t.system
            turn = (turn + 1) % AT_ONCE
            game = playing[turn]
            if game is None:
                # A new match, a new connection: gunicorn keeps a keep-alive connection on the worker
                # that accepted it, so a few everlasting connections could all end up on one worker
                # (and one GIL); reconnecting per match spreads them as many real clients would.
                conn.close()
                game = playing[turn] = _Playing(pending.pop() if pending else create())
                if conn.sock is None:
                    conn.connect()
                if over_socket:
                    game.open_sockets(source)
            path, headers, actions, read_path, read_headers, _ = game.match
            seat, body, after = actions[game.step]
            begun = perf()
            try:
                if over_socket:
                    game.seats[seat].send(body)
                    data = game.seats[seat].recv()
                    response: _Answered | http.client.HTTPResponse = _Answered(loads(data))
                elif read:
                    conn.request("GET", read_path, headers=read_headers[seat])
                    response = conn.getresponse()
                    data = response.read()
                    if response.status != 200:
                        errors[f"GET HTTP {response.status}"] += 1
                        if len(samples) < 5:
                            samples.append(
                                f"GET HTTP {response.status}: {data[:300].decode(errors='replace')}"
                            )
                        game.close()
                        playing[turn] = None
                        continue
                if not over_socket:
                    conn.request("POST", path, body, headers[seat])
                    response = conn.getresponse()
                    data = response.read()
            except (OSError, http.client.HTTPException, websocket.WebSocketException) as error:
                errors[f"connection: {type(error).__name__}"] += 1
                if len(samples) < 5:
                    samples.append(f"{type(error).__name__}: {error}")
                conn.close()
                game.close()
                playing[turn] = None
                continue
            finished = perf()
            if response.status == 201:
                if begun >= window_start:
                    latencies.append(finished - begun)
                    last_finish = finished
                answer = response.answer if isinstance(response, _Answered) else loads(data)
                if answer["version"] != after:
                    errors["unexpected version"] += 1
                    game.close()
                    playing[turn] = None
                    continue
                game.step += 1
                if game.step == len(actions):
                    game.close()
                    playing[turn] = None
            else:  # counted during the warm-up too: every refused action is a failure of the run
                errors[f"HTTP {response.status}"] += 1
                if len(samples) < 5:
                    # a socket's answer is text already
                    text = data if isinstance(data, str) else data.decode(errors="replace")
                    samples.append(f"HTTP {response.status}: {text[:300]}")
                game.close()  # the match cannot go on from a refused action
                playing[turn] = None
        t = os.times()
        conn.close()
        for game in playing:
            if game is not None:
                game.close()
        results.put(
            {
                "index": index,
                "latencies": latencies,
                "errors": dict(errors),
                "samples": samples,
                "last": last_finish,
                "window_start": window_start,
                "cpu": (t.user + t.system) - (cpu_at_start or (t.user + t.system)),
                "created_in_run": created - created_before,
                "created": created,
            }
        )
    except BaseException:
        results.put({"index": index, "fatal": traceback.format_exc()})
        ready.put(index)


AT_ONCE = 3
"""Matches each client plays at once, an action of each in turn: a seat of a four-player match then moves at
most at a twelfth of its client's pace, under the server's default limit per seat token (50 a second) at
any rate these machines reach, as the moves of people and bots do."""


class _Playing:
    """A match a client is playing: what ``create`` made of it, the next action, and the seats' moves sockets."""

    def __init__(self, match: tuple):
        self.match = match
        self.step = 0
        self.seats: list = []

    def open_sockets(self, source: tuple[str, int]) -> None:
        # websocket-client checks a text frame's UTF-8 in pure Python before it decodes it, which checks it
        # again in C: 52 us of this machine's CPU per answer of ~350 bytes, taken from the servers measured,
        # where a client elsewhere would not be
        port = int(self.match[5].rsplit(":", 1)[1].split("/", 1)[0])
        self.seats = [
            websocket.create_connection(
                self.match[5],
                socket=socket.create_connection((HOST, port), timeout=30, source_address=source),
                header=[f"Authorization: {h['Authorization']}"],
                skip_utf8_validation=True,
            )
            for h in self.match[4]
        ]

    def close(self) -> None:
        for open_socket in self.seats:
            open_socket.close()
        self.seats = []


def percentile(sorted_values: list[float], p: float) -> float:
    if not sorted_values:
        return float("nan")
    return sorted_values[max(0, math.ceil(p * len(sorted_values)) - 1)]


def load_plan(scripts, clients: int, seconds: float) -> tuple[float, float, int]:
    """(warm-up s, measured s, matches each client creates up front) for a run at scale ``seconds``."""
    warmup = max(0.5, 1.0 * seconds)
    duration = 10.0 * seconds
    mean_actions = sum(len(a) for _, a in scripts) / len(scripts)
    precreate = math.ceil(EXPECTED_RATE * (warmup + duration) / clients / mean_actions) + 1
    return warmup, duration, precreate


class _Answered:
    """An answer on the moves socket, shaped like an HTTP response where the client looks, read once."""

    def __init__(self, answer: dict):
        self.answer = answer
        self.status = answer["status"]


def drive(
    servers: Servers,
    scripts,
    clients: int,
    warmup: float,
    duration: float,
    precreate: int,
    read: bool = False,
    redis_pid: int | None = None,
    over_socket: bool = False,
) -> dict:
    """Load the running server with ``clients`` client processes for ``warmup`` + ``duration`` seconds;
    what was measured in the window (latencies sorted, errors, CPU shares...)."""
    ctx = multiprocessing.get_context("fork")
    ready, results, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    start_at = ctx.Value("d", 0.0)
    procs = [
        ctx.Process(
            target=_client,
            daemon=True,
            args=(
                i,
                servers.port,
                scripts,
                precreate,
                ready,
                go,
                start_at,
                warmup,
                duration,
                results,
                read,
                over_socket,
            ),
        )
        for i in range(clients)
    ]
    for p in procs:
        p.start()
    for _ in procs:
        ready.get(timeout=300)
    if not results.empty():  # a client failed while creating its matches
        report = results.get()
        raise RuntimeError(
            f"client {report['index']} failed:\n{report.get('fatal')}\nAPI log:\n" + servers.log_tail()
        )
    start_at.value = time.perf_counter() + 0.05
    go.set()

    window_start = start_at.value + warmup
    time.sleep(max(0.0, window_start - time.perf_counter()))
    server_pids = servers.api_worker_pids()
    redis_pid = redis_pid or servers.redis_pid()
    server_cpu0 = cpu_seconds(server_pids)
    redis_cpu0 = cpu_seconds([redis_pid]) if redis_pid else 0.0
    busy0, total0 = machine_ticks()
    cpu_t0 = time.perf_counter()
    spread = connections_per_process(server_pids, servers.port)
    time.sleep(max(0.0, window_start + duration - time.perf_counter()))
    server_cpu = cpu_seconds(server_pids) - server_cpu0
    redis_cpu = (cpu_seconds([redis_pid]) - redis_cpu0) if redis_pid else None
    busy1, total1 = machine_ticks()
    cpu_wall = time.perf_counter() - cpu_t0

    reports = [results.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=10)
    fatal = [r["fatal"] for r in reports if "fatal" in r]
    if fatal:
        raise RuntimeError("a client failed:\n" + fatal[0] + "\nAPI log:\n" + servers.log_tail())

    latencies = sorted(x for r in reports for x in r["latencies"])
    errors: Counter = Counter()
    notes: list[str] = []
    for r in reports:
        errors.update(r["errors"])
        notes += [f"error sample (client {r['index']}): {s}" for s in r["samples"]]
    if errors:
        notes.append("errors: " + ", ".join(f"{k} x{v}" for k, v in sorted(errors.items())))
    last = max(r["last"] for r in reports) if latencies else 0.0
    elapsed = (last - min(r["window_start"] for r in reports)) if latencies else duration
    cores = len(os.sched_getaffinity(0))
    return {
        "latencies": latencies,
        "errors": errors,
        "notes": notes,
        "elapsed": elapsed,
        "rate": len(latencies) / elapsed if elapsed > 0 else 0.0,
        "spread": spread,
        "created": sum(r["created"] for r in reports),
        "created_in_run": sum(r["created_in_run"] for r in reports),
        "server_cpu_pct": 100 * server_cpu / cpu_wall,
        "client_cpu_pct": 100 * sum(r["cpu"] for r in reports) / duration,
        "redis_cpu_pct": 100 * redis_cpu / cpu_wall if redis_cpu is not None else None,
        "machine_busy_pct": 100 * cores * (busy1 - busy0) / max(1, total1 - total0),
        "cores": cores,
    }


def run(
    game_id: str, scripted_match, seconds: float, clients: int, api_workers: int, seed: int = 7
) -> tuple[list[Figure], list[str]]:
    """The API figures, and notes (error samples) to print before the table."""
    rng = random.Random(seed)
    scripts = [prebuild(*scripted_match(rng)) for _ in range(max(2 * clients, 24))]
    warmup, duration, precreate = load_plan(scripts, clients, seconds)

    servers = Servers(api_workers)
    try:
        got = drive(servers, scripts, clients, warmup, duration, precreate)
    finally:
        servers.close()

    latencies = got["latencies"]
    accepted = len(latencies)
    ms = 1000.0
    figures = [
        Figure("api.game", "api game", game_id),
        Figure(
            "api.client_workers",
            "api client workers",
            clients,
            "processes, 1 keep-alive connection each, new per match",
        ),
        Figure("api.server_workers", "api gunicorn workers", api_workers, f"{serving.WORKER_CLASS} workers"),
        Figure(
            "api.connections_per_worker",
            "api client connections per worker",
            "/".join(str(n) for n in sorted(got["spread"], reverse=True)),
            "at the start of the window",
        ),
        Figure(
            "api.redis", "api redis", "embedded (appendfsync always)" if servers.embedded else "REDIS_URL"
        ),
        Figure("api.seconds", "api measured window", got["elapsed"], f"s (after {warmup:.1f} s warm-up)"),
        Figure("api.actions", "api accepted actions, total", accepted, "actions (201)"),
        Figure("api.actions_per_s", "api accepted action rate", got["rate"], "actions/s"),
        Figure("api.p50_ms", "api action latency p50", percentile(latencies, 0.50) * ms, "ms"),
        Figure("api.p90_ms", "api action latency p90", percentile(latencies, 0.90) * ms, "ms"),
        Figure("api.p99_ms", "api action latency p99", percentile(latencies, 0.99) * ms, "ms"),
        Figure(
            "api.max_ms", "api action latency max", (latencies[-1] if latencies else float("nan")) * ms, "ms"
        ),
        Figure(
            "api.errors",
            "api errors (non-201, failed requests)",
            sum(got["errors"].values()),
            "requests (warm-up included)",
        ),
        Figure(
            "api.matches_created",
            "api matches created",
            got["created"],
            f"({got['created_in_run']} during the run)",
        ),
        Figure("api.server_cpu_pct", "api CPU, gunicorn workers", got["server_cpu_pct"], "% of one core"),
        Figure("api.client_cpu_pct", "api CPU, bench clients", got["client_cpu_pct"], "% of one core"),
    ]
    if got["redis_cpu_pct"] is not None:
        figures.append(Figure("api.redis_cpu_pct", "api CPU, redis", got["redis_cpu_pct"], "% of one core"))
    figures.append(
        Figure(
            "api.machine_busy_pct",
            "api CPU, whole machine",
            got["machine_busy_pct"],
            f"% of one core ({got['cores']} cores)",
        )
    )
    return figures, got["notes"]
