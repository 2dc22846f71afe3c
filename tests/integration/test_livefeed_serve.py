"""The live feed on a real ``matchlog serve`` (gunicorn's gevent workers, the embedded Redis): hundreds of
SSE connections at once each receive every new entry, the server's Redis connections do not grow with
them, and a client that reconnects with ``Last-Event-ID`` gets exactly what it missed."""

from __future__ import annotations

import http.client
import random
import shutil
import tempfile
import threading
import time

import redis

from service.store.embedded_redis import EmbeddedRedis
from service.store.redis_client import POOL_SIZE
from tests.integration.test_serve import free_port, start_serve, stop_serve
from tests.sse import parse

SUBSCRIBERS = 300


def subscribe(port, match_id, got: list, ready: threading.Barrier, stop: threading.Event, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", f"/v1/matches/{match_id}/events/stream", headers=headers or {})
    response = connection.getresponse()
    assert response.status == 200
    ready.wait()

    def chunks():
        while not stop.is_set():
            line = response.readline()
            if not line:
                return
            yield line

    for event in parse(chunks()):
        got.append(event)
        if stop.is_set():
            break
    connection.close()


def test_many_subscribers_one_redis_reader_and_resume():
    folder = tempfile.mkdtemp(prefix="mlsse-", dir="/tmp")
    port = free_port()
    # 300 subscribers opened within a second from one address: over the default read limit and feed cap
    process, http_call = start_serve(
        folder, port, MATCHLOG_RATE_LIMIT_READS_PER_ADDRESS="off", MATCHLOG_SSE_PER_ADDRESS=str(SUBSCRIBERS)
    )
    stop = threading.Event()
    try:
        status, created = http_call(
            "POST", "/v1/matches", {"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}
        )
        match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
        store = redis.Redis.from_url(EmbeddedRedis(folder).url, protocol=2)
        before = store.info("clients")["connected_clients"]

        received = []
        counts = []
        for batch in (SUBSCRIBERS // 3, SUBSCRIBERS - SUBSCRIBERS // 3):
            ready = threading.Barrier(batch + 1)
            for _ in range(batch):
                received.append([])
                threading.Thread(
                    target=subscribe, args=(port, match_id, received[-1], ready, stop), daemon=True
                ).start()
            ready.wait(timeout=60)
            counts.append(store.info("clients")["connected_clients"])
        # bounded by the API processes' pools (serve runs 2 gunicorn workers), not by the subscribers
        assert counts[-1] - before <= 2 * (POOL_SIZE + 1) < SUBSCRIBERS, (before, counts)

        rng = random.Random(1)
        for _ in range(3):  # three moves, each pushed to every subscriber
            _, match = http_call("GET", f"/v1/matches/{match_id}")
            seat = match["to_act"][0]
            _, legal = http_call("GET", f"/v1/matches/{match_id}/legal-actions", token=tokens[seat])
            status, _ = http_call(
                "POST",
                f"/v1/matches/{match_id}/actions",
                {"expected_version": legal["version"], "action": rng.choice(legal["actions"])},
                token=tokens[seat],
            )
            assert status == 201
        deadline = time.monotonic() + 30
        while not all(any(e.get("id") == "4" for e in got) for got in received):
            assert time.monotonic() < deadline, sum(any(e.get("id") == "4" for e in g) for g in received)
            time.sleep(0.1)
        assert all([e["id"] for e in got if "id" in e][:4] == ["1", "2", "3", "4"] for got in received)

        missed: list = []  # a client that saw version 2 reconnects and gets 3 and 4, and nothing twice
        again = threading.Barrier(2)
        threading.Thread(
            target=subscribe, args=(port, match_id, missed, again, stop, {"Last-Event-ID": "2"}), daemon=True
        ).start()
        again.wait(timeout=30)
        deadline = time.monotonic() + 10
        while not any(e.get("id") == "4" for e in missed):
            assert time.monotonic() < deadline, missed
            time.sleep(0.05)
        assert [e["id"] for e in missed if "id" in e] == ["3", "4"]
    finally:
        stop.set()
        stop_serve(process)
        shutil.rmtree(folder, ignore_errors=True)
