"""``python -m tests.bench.sse_cap [REQUESTS]``: ``/healthz`` while the live feed is at its cap.

One API process (gunicorn, one gevent worker, the default caps: 20 feeds per address, 500 per process) on
a real Redis (``REDIS_URL``, else an embedded one). Feeds are opened from 25 loopback addresses until the
process holds its 500, then 100 more are tried (each should be refused: 503 ``streams_full``); then
REQUESTS (default 200) ``GET /healthz``, one at a time, are timed, as before any feed was opened.
Prints a table and, last, one JSON line.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import sys
import time
from collections import Counter

from tests.bench.api import HOST, Servers
from tests.bench.common import Figure, json_figures, machine, table

PER_ADDRESS, PER_PROCESS = 20, 500


def _created(port: int) -> str:
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    connection.request(
        "POST",
        "/v1/matches",
        body=json.dumps({"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}),
        headers={"Content-Type": "application/json"},
    )
    match_id = json.loads(connection.getresponse().read())["id"]
    connection.close()
    return match_id


def _healthz_ms(port: int, requests: int) -> list[float]:
    times = []
    for _ in range(requests):
        connection = http.client.HTTPConnection(HOST, port, timeout=30)
        begin = time.perf_counter()
        connection.request("GET", "/healthz")
        answer = connection.getresponse()
        answer.read()
        times.append((time.perf_counter() - begin) * 1000)
        assert answer.status == 200, answer.status
        connection.close()
    return sorted(times)


async def _open(port: int, match_id: str, source: str, held: list) -> int:
    """One feed from ``source``; its status (a held one stays open in ``held``)."""
    reader, writer = await asyncio.open_connection(HOST, port, local_addr=(source, 0))
    writer.write(f"GET /v1/matches/{match_id}/events/stream HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    if status == 200:
        held.append(writer)
    else:
        writer.close()
    return status


async def _fill(port: int, match_id: str, extra: int) -> tuple[Counter, Counter, list]:
    held: list = []
    sources = [f"127.0.1.{i + 1}" for i in range(PER_PROCESS // PER_ADDRESS)]
    opened = Counter(
        await asyncio.gather(*(_open(port, match_id, s, held) for s in sources for _ in range(PER_ADDRESS)))
    )
    over = Counter(
        await asyncio.gather(*(_open(port, match_id, f"127.0.2.{i % 250 + 1}", held) for i in range(extra)))
    )
    return opened, over, held


def measure(requests: int = 200, extra: int = 100) -> list[Figure]:
    servers = Servers(api_workers=1)
    try:
        match_id = _created(servers.port)
        idle = _healthz_ms(servers.port, requests)
        loop = asyncio.new_event_loop()
        opened, over, held = loop.run_until_complete(_fill(servers.port, match_id, extra))
        capped = _healthz_ms(servers.port, requests)
        for writer in held:
            writer.close()
        loop.close()
    finally:
        servers.close()

    def pct(times: list[float], p: float) -> float:
        return round(times[min(len(times) - 1, int(p * len(times)))], 2)

    return [
        Figure("sse_cap.held", "live feeds held by the process", opened[200], "connections"),
        Figure(
            "sse_cap.refused_503", f"feeds tried over the cap ({extra}) refused 503", over[503], "connections"
        ),
        Figure("sse_cap.healthz_p50_ms_idle", "/healthz p50, no feed", pct(idle, 0.5), "ms"),
        Figure("sse_cap.healthz_p99_ms_idle", "/healthz p99, no feed", pct(idle, 0.99), "ms"),
        Figure(
            "sse_cap.healthz_p50_ms_capped", "/healthz p50, the process at its cap", pct(capped, 0.5), "ms"
        ),
        Figure(
            "sse_cap.healthz_p99_ms_capped", "/healthz p99, the process at its cap", pct(capped, 0.99), "ms"
        ),
        Figure(
            "sse_cap.healthz_max_ms_capped", "/healthz max, the process at its cap", pct(capped, 1.0), "ms"
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    requests = int(argv[0]) if argv else 200
    about = machine()
    for f in about:
        print(f"{f.label}: {f.value}")
    figures = measure(requests)
    print(table(figures))
    print(json.dumps(json_figures(about + figures), separators=(", ", ": ")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
