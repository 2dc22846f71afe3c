"""``python -m tests.bench.sse [SUBSCRIBERS] [ACTIONS]``: the live feed under load.

One API process (gunicorn, one gevent worker) on a real Redis (``REDIS_URL``, else an embedded one);
SUBSCRIBERS (default 1000) Server-Sent-Events connections to one match, all from one asyncio client;
then ACTIONS (default 40) moves posted one at a time, 50 ms apart. For every subscriber and every
move: the time from the start of the POST that appended it to the arrival of its ``id:`` line at that
subscriber (so the POST's own time and the client's are counted in). Also the Redis connections of
the server before and with the subscribers. Prints a table and, last, one JSON line.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import sys
import time

import redis

from tests.bench.api import HOST, Servers
from tests.bench.common import Figure, json_figures, machine, table


def _call(port: int, method: str, path: str, body=None, token=None):
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    answer = connection.getresponse()
    data = json.loads(answer.read())
    connection.close()
    return answer.status, data


async def _subscriber(
    port: int, match_id: str, arrivals: dict, connected: asyncio.Event, ready: list
) -> None:
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(
        f"GET /v1/matches/{match_id}/events/stream HTTP/1.1\r\nHost: {HOST}\r\n"
        "Accept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    ready.append(1)
    if len(ready) == arrivals["expected"]:
        connected.set()
    seen = arrivals.setdefault(id(writer), {})
    while True:
        line = await reader.readline()
        if not line:
            return
        if line.startswith(b"id: "):
            seen[int(line[4:])] = time.perf_counter()


async def _run(port: int, match_id: str, tokens: list[str], subscribers: int, actions: int, redis_url: str):
    arrivals: dict = {"expected": subscribers}
    connected = asyncio.Event()
    ready: list = []
    store = redis.Redis.from_url(redis_url, protocol=2)
    before = store.info("clients")["connected_clients"]
    tasks = [
        asyncio.create_task(_subscriber(port, match_id, arrivals, connected, ready))
        for _ in range(subscribers)
    ]
    await asyncio.wait_for(connected.wait(), 120)
    await asyncio.sleep(2.0)  # every backlog delivered
    during = store.info("clients")["connected_clients"]
    started: dict[int, float] = {}
    for _ in range(actions):
        status, match = await asyncio.to_thread(_call, port, "GET", f"/v1/matches/{match_id}")
        seat = match["to_act"][0]
        _, legal = await asyncio.to_thread(
            _call, port, "GET", f"/v1/matches/{match_id}/legal-actions", None, tokens[seat]
        )
        begin = time.perf_counter()
        status, answer = await asyncio.to_thread(
            _call,
            port,
            "POST",
            f"/v1/matches/{match_id}/actions",
            {"expected_version": legal["version"], "action": legal["actions"][0]},
            tokens[seat],
        )
        assert status == 201, answer
        for entry in answer["events"]:
            started[entry["version"]] = begin
        await asyncio.sleep(0.05)
    await asyncio.sleep(2.0)
    for task in tasks:
        task.cancel()
    latencies, missing = [], 0
    for key, seen in arrivals.items():
        if key == "expected":
            continue
        for version, begin in started.items():
            if version in seen:
                latencies.append(seen[version] - begin)
            else:
                missing += 1
    return latencies, missing, before, during


def measure(subscribers: int = 1000, actions: int = 40) -> list[Figure]:
    servers = Servers(
        api_workers=1,
        env={
            "MATCHLOG_SSE_PER_ADDRESS": "0",  # every subscriber comes from here
            "MATCHLOG_SSE_PER_PROCESS": "0",
        },
    )  # the process's own limits, not its cap
    try:
        _status, created = _call(
            servers.port, "POST", "/v1/matches", {"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}
        )
        match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
        latencies, missing, before, during = asyncio.run(
            _run(servers.port, match_id, tokens, subscribers, actions, servers.url)
        )
    finally:
        servers.close()
    latencies.sort()

    def pct(p: float) -> float:
        return (
            latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000 if latencies else float("nan")
        )

    return [
        Figure(
            "sse.subscribers",
            "live feed: concurrent subscribers on one API process",
            subscribers,
            "connections",
        ),
        Figure(
            "sse.deliveries",
            "live feed: entries delivered (subscribers x appended entries)",
            len(latencies),
            "deliveries",
        ),
        Figure("sse.missing", "live feed: entries a subscriber never got", missing, "deliveries"),
        Figure("sse.latency_p50_ms", "live feed: append to arrival, p50", pct(0.50), "ms"),
        Figure("sse.latency_p99_ms", "live feed: append to arrival, p99", pct(0.99), "ms"),
        Figure(
            "sse.latency_max_ms",
            "live feed: append to arrival, max",
            latencies[-1] * 1000 if latencies else 0,
            "ms",
        ),
        Figure("sse.redis_clients_before", "Redis connections before the subscribers", before, "connections"),
        Figure(
            "sse.redis_clients_during",
            "Redis connections with every subscriber connected",
            during,
            "connections",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    subscribers = int(argv[0]) if argv else 1000
    actions = int(argv[1]) if len(argv) > 1 else 40
    about = machine()
    for f in about:
        print(f"{f.label}: {f.value}")
    figures = measure(subscribers, actions)
    print(table(figures))
    print(json.dumps(json_figures(about + figures), separators=(", ", ": ")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
