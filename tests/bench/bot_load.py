"""``python -m tests.bench.bot_load [BOT_MATCHES] [SECONDS]``: people's requests while bots play.

One API (gunicorn, 2 workers) and two ``matchlog worker`` processes on one Redis (``REDIS_URL``, else
an embedded one). A person plays Blokus through the API, one cycle at a time (read the match, list the
legal actions, post one), first alone for SECONDS, then for SECONDS while BOT_MATCHES bot-only matches
(greedy against random, Blokus Duo and BLOCK.BLOCK, a new one started as each ends) play on the
workers. Prints the person's cycle latency both ways and the bots' moves per second; last line, JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from service import processes
from tests.bench.api import REPO, Servers
from tests.bench.common import Figure, json_figures, machine, table
from tests.bench.sse import _call

BOT_GAMES = [("blokus", {"variant": "duo"}), ("block-block", {})]


def _person_cycles(port: int, seconds: float) -> list[float]:
    """Cycles of one person playing Blokus for ``seconds``: each read, list, post, timed."""
    took, deadline, match = [], time.monotonic() + seconds, None
    while time.monotonic() < deadline:
        if match is None:
            _, created = _call(
                port, "POST", "/v1/matches", {"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}
            )
            match = (created["id"], [s["token"] for s in created["seats"]])
        begin = time.perf_counter()
        _, summary = _call(port, "GET", f"/v1/matches/{match[0]}")
        if summary["status"] == "finished":
            match = None
            continue
        seat = summary["to_act"][0]
        _, legal = _call(port, "GET", f"/v1/matches/{match[0]}/legal-actions", None, match[1][seat])
        _status, _ = _call(
            port,
            "POST",
            f"/v1/matches/{match[0]}/actions",
            {"expected_version": legal["version"], "action": legal["actions"][-1]},
            match[1][seat],
        )
        took.append(time.perf_counter() - begin)
    return took


def _bot_match(port: int, number: int) -> str:
    game, options = BOT_GAMES[number % len(BOT_GAMES)]
    _, created = _call(
        port,
        "POST",
        "/v1/matches",
        {"game": game, "options": options, "players": [{"bot": "greedy"}, {"bot": "random"}]},
    )
    return created["id"]


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000 if ordered else float("nan")


def measure(bot_matches: int = 20, seconds: float = 20.0) -> list[Figure]:
    # all the bot-only matches come from one address: more than an address's budget of them
    servers = Servers(api_workers=2, env={"MATCHLOG_BOT_MATCHES_PER_ADDRESS": "0"})
    env = dict(
        os.environ, REDIS_URL=servers.url, MATCHLOG_NAMESPACE=servers.namespace, MATCHLOG_DATA=servers.folder
    )
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "service.cli", "worker"],
            env=env,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(2)
    ]
    try:
        alone = _person_cycles(servers.port, seconds)
        running = [_bot_match(servers.port, n) for n in range(bot_matches)]
        started, moves, number = time.monotonic(), 0, bot_matches
        with_bots: list[float] = []
        while time.monotonic() - started < seconds:
            with_bots += _person_cycles(servers.port, 1.0)
            for i, match_id in enumerate(running):
                _, summary = _call(servers.port, "GET", f"/v1/matches/{match_id}")
                if summary["status"] == "finished":
                    moves += summary["version"]
                    running[i], number = _bot_match(servers.port, number), number + 1
        elapsed = time.monotonic() - started
        moves += sum(_call(servers.port, "GET", f"/v1/matches/{m}")[1]["version"] for m in running)
    finally:
        processes.stop(*workers)
        servers.close()
    return [
        Figure("bots.matches", "bot-only matches playing at once", bot_matches, "matches"),
        Figure("bots.entries_per_s", "bot matches: log entries appended", moves / elapsed, "entries/s"),
        Figure(
            "bots.person_alone_p50_ms", "person's read-list-post cycle, alone: p50", _pct(alone, 0.5), "ms"
        ),
        Figure(
            "bots.person_alone_p99_ms", "person's read-list-post cycle, alone: p99", _pct(alone, 0.99), "ms"
        ),
        Figure(
            "bots.person_with_bots_p50_ms", "the same with the bots playing: p50", _pct(with_bots, 0.5), "ms"
        ),
        Figure(
            "bots.person_with_bots_p99_ms", "the same with the bots playing: p99", _pct(with_bots, 0.99), "ms"
        ),
        Figure(
            "bots.person_cycles",
            "person's cycles measured (alone / with bots)",
            f"{len(alone)} / {len(with_bots)}",
            "",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    about = machine()
    for f in about:
        print(f"{f.label}: {f.value}")
    figures = measure(int(argv[0]) if argv else 20, float(argv[1]) if len(argv) > 1 else 20.0)
    print(table(figures))
    print(json.dumps(json_figures(about + figures), separators=(", ", ": ")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
