"""``python -m tests.bench.isolation [SAMPLES]``: a stranger's bot reply and a clock while others load the workers.

A default ``matchlog serve`` (``REDIS_URL``, else an embedded Redis; default limits, but webhooks to
loopback allowed, for the stalled receiver). A stranger plays Blokus Duo against a random bot: each sample
is one move, timed from the POST to the bot's answering entry (``version`` two on). The stranger's replies
and a clock's lateness (a match on a 2 s per-action clock: from the deadline its summary gives to the
timeout entry) are measured unloaded, then under two attacks:

(a) an anonymous client's 100 creates of Blackout matches with four greedy bots, as fast as it can;
(b) a platform's 10 webhooks (each for every Blokus entry type) to a loopback socket that accepts and never
    answers, and one append to a match of the platform.

Between the attacks the bot-only matches are aborted. Also prints the creates refused and the workers' CPU.
Last line, JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from datetime import datetime

from tests.bench.api import HOST, REPO, Servers
from tests.bench.bot_load import _pct
from tests.bench.common import Figure, json_figures, machine, table
from tests.bench.sse import _call

DEFAULTS = {  # Servers switches the limits off to measure the server: this bench measures them on
    "MATCHLOG_RATE_LIMIT_PER_TOKEN": "50/second;1500/minute",
    "MATCHLOG_RATE_LIMIT_PER_ADDRESS": "500/second",
    "MATCHLOG_RATE_LIMIT_READS_PER_ADDRESS": "200/second",
    "MATCHLOG_WEBHOOKS_PRIVATE": "true",  # the stalled receiver is on loopback
}
BLACKOUT_BOTS = {"game": "blackout-hong-kong", "players": [{"bot": "greedy"}] * 4}


def _wait_version(port: int, match_id: str, version: int, timeout: float = 120.0) -> float | None:
    """When the match reached ``version`` (perf_counter), polling every 10 ms; None after ``timeout``."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        status, summary = _call(port, "GET", f"/v1/matches/{match_id}")
        if status == 200 and summary["version"] >= version:
            return time.perf_counter()
        time.sleep(0.01)
    return None


def bot_replies(port: int, samples: int) -> list[float]:
    """``samples`` seconds from a stranger's move to its bot's answer (a new match when one ends)."""
    took: list[float] = []
    match = None
    while len(took) < samples:
        if match is None:
            _, created = _call(
                port,
                "POST",
                "/v1/matches",
                {
                    "game": "blokus",
                    "options": {"variant": "duo"},
                    "players": [{"name": "s"}, {"bot": "random"}],
                },
            )
            match = (created["id"], created["seats"][0]["token"])
        _, legal = _call(port, "GET", f"/v1/matches/{match[0]}/legal-actions", None, match[1])
        if not legal.get("actions"):
            match = None
            continue
        begin = time.perf_counter()
        status, _ = _call(
            port,
            "POST",
            f"/v1/matches/{match[0]}/actions",
            {"expected_version": legal["version"], "action": legal["actions"][-1]},
            match[1],
        )
        if status != 201:
            match = None
            continue
        answered = _wait_version(port, match[0], legal["version"] + 2)
        if answered is None:
            took.append(float("inf"))
            match = None
            continue
        took.append(answered - begin)
        _, summary = _call(port, "GET", f"/v1/matches/{match[0]}")
        if summary["status"] != "active" or 0 not in summary.get("to_act", []):
            match = None
    return took


def clock_lateness(port: int) -> float:
    """Seconds from a 2 s clock's deadline to the timeout the workers append for it."""
    _, created = _call(
        port,
        "POST",
        "/v1/matches",
        {
            "game": "blokus",
            "options": {"variant": "duo"},
            "players": [{"name": "c"}, {"name": "d"}],
            "clock": {"per_action_s": 2},
        },
    )
    _, summary = _call(port, "GET", f"/v1/matches/{created['id']}")
    clock = summary["clock"]
    seat = clock["running"][0]
    as_of = datetime.fromisoformat(clock["as_of"].replace("Z", "+00:00")).timestamp()
    deadline = as_of + clock["remaining_ms"][seat] / 1000
    seen = _wait_version(port, created["id"], summary["version"] + 1, timeout=180)
    if seen is None:
        return float("inf")
    return time.time() - (time.perf_counter() - seen) - deadline


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def worker_cpu_s(serve_pid: int) -> float:
    """CPU seconds (user + system) of the ``matchlog worker`` processes under ``serve_pid``."""
    total = 0.0
    for pid in _descendants(serve_pid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if b"worker" not in cmdline.read().split(b"\0"):
                    continue
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


class StalledReceiver:
    """A loopback socket that accepts connections and never answers."""

    def __init__(self):
        self.socket = socket.create_server((HOST, 0), backlog=1024)
        self.port = self.socket.getsockname()[1]
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.held.append(connection)

    def close(self) -> None:
        self.socket.close()
        for connection in self.held:
            connection.close()


def _under(port: int, samples: int, attack) -> tuple[list[float], float]:
    """The stranger's replies and a clock's lateness while ``attack`` runs in a thread (started first)."""
    thread = threading.Thread(target=attack, daemon=True)
    thread.start()
    lateness: list[float] = []
    clock = threading.Thread(target=lambda: lateness.append(clock_lateness(port)), daemon=True)
    time.sleep(0.5)
    clock.start()
    replies = bot_replies(port, samples)
    clock.join()
    thread.join()
    return replies, lateness[0]


def measure(samples: int = 10) -> list[Figure]:
    servers = Servers(api_workers=2, module="service.cli serve", env=DEFAULTS)
    env = dict(
        os.environ, REDIS_URL=servers.url, MATCHLOG_NAMESPACE=servers.namespace, MATCHLOG_DATA=servers.folder
    )
    port = servers.port
    receiver = StalledReceiver()
    try:
        unloaded = bot_replies(port, samples)
        unloaded_clock = clock_lateness(port)

        created: list[tuple[str, str]] = []
        refused: dict[str, int] = {}

        def creates() -> None:
            for _ in range(100):
                status, body = _call(port, "POST", "/v1/matches", BLACKOUT_BOTS)
                if status == 201:
                    created.append((body["id"], body["creator_token"]))
                else:
                    reason = body.get("reason") or body.get("error") or str(status)
                    refused[reason] = refused.get(reason, 0) + 1

        cpu_before = worker_cpu_s(servers.api.pid)
        began = time.perf_counter()
        bots, bots_clock = _under(port, samples, creates)
        bots_wall = time.perf_counter() - began
        bots_cpu = worker_cpu_s(servers.api.pid) - cpu_before
        for match_id, token in created:
            _call(port, "POST", f"/v1/matches/{match_id}/abort", {"reason": "bench"}, token)

        key = json.loads(
            subprocess.run(
                [sys.executable, "-m", "service.cli", "keys", "create", "bench-platform"],
                env=env,
                cwd=REPO,
                capture_output=True,
                check=True,
                text=True,
            ).stdout
        )["key"]
        _, games = _call(port, "GET", "/v1/games")
        blokus = next(g for g in games if g["id"] == "blokus")
        hooks = []
        for n in range(10):
            status, _ = _call(
                port,
                "POST",
                "/v1/webhooks",
                {"url": f"http://{HOST}:{receiver.port}/hook{n}", "events": blokus["entry_types"]},
                key,
            )
            hooks.append(status)

        def append_once() -> None:
            _, match = _call(
                port,
                "POST",
                "/v1/matches",
                {"game": "blokus", "players": [{"name": "p"}, {"name": "q"}]},
                key,
            )
            token = match["seats"][0]["token"]
            _, legal = _call(port, "GET", f"/v1/matches/{match['id']}/legal-actions", None, token)
            _call(
                port,
                "POST",
                f"/v1/matches/{match['id']}/actions",
                {"expected_version": legal["version"], "action": legal["actions"][0]},
                token,
            )

        hooks_replies, hooks_clock = _under(port, samples, append_once)
    finally:
        receiver.close()
        servers.close()
    median = statistics.median
    return [
        Figure("isolation.samples", "bot replies per phase", samples, ""),
        Figure(
            "isolation.unloaded_p50_ms", "stranger's bot reply, unloaded: p50", median(unloaded) * 1000, "ms"
        ),
        Figure(
            "isolation.unloaded_max_ms", "stranger's bot reply, unloaded: max", max(unloaded) * 1000, "ms"
        ),
        Figure(
            "isolation.unloaded_clock_late_ms",
            "clock timeout after its deadline, unloaded",
            unloaded_clock * 1000,
            "ms",
        ),
        Figure("isolation.bots_created", "(a) bot-only Blackout creates accepted / 100", len(created), ""),
        Figure("isolation.bots_refused", "(a) creates refused, by reason", json.dumps(refused), ""),
        Figure("isolation.bots_p50_ms", "(a) stranger's bot reply: p50", median(bots) * 1000, "ms"),
        Figure("isolation.bots_p90_ms", "(a) stranger's bot reply: p90", _pct(bots, 0.9), "ms"),
        Figure("isolation.bots_max_ms", "(a) stranger's bot reply: max", max(bots) * 1000, "ms"),
        Figure(
            "isolation.bots_clock_late_ms", "(a) clock timeout after its deadline", bots_clock * 1000, "ms"
        ),
        Figure("isolation.bots_worker_cpu_s", "(a) workers' CPU during the phase", bots_cpu, "s"),
        Figure("isolation.bots_wall_s", "(a) the phase's wall time", bots_wall, "s"),
        Figure("isolation.hooks_registered", "(b) webhooks registered / 10", hooks.count(201), ""),
        Figure("isolation.hooks_p50_ms", "(b) stranger's bot reply: p50", median(hooks_replies) * 1000, "ms"),
        Figure("isolation.hooks_p90_ms", "(b) stranger's bot reply: p90", _pct(hooks_replies, 0.9), "ms"),
        Figure("isolation.hooks_max_ms", "(b) stranger's bot reply: max", max(hooks_replies) * 1000, "ms"),
        Figure(
            "isolation.hooks_clock_late_ms", "(b) clock timeout after its deadline", hooks_clock * 1000, "ms"
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench.isolation",
        description=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("samples", nargs="?", type=int, default=10, help="moves timed per phase (default 10)")
    samples = parser.parse_args(argv).samples
    about = machine()
    for f in about:
        print(f"{f.label}: {f.value}")
    figures = measure(samples)
    print(table(figures))
    print(json.dumps(json_figures(about + figures), separators=(", ", ": ")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
