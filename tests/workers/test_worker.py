"""A worker whose Redis Cluster's named node is away at its start waits for it, as a worker waits for a single
Redis (``tests/integration/test_faults.py``); an error that is no outage still stops it."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import redis

from workers import worker


def _cluster_away() -> Exception:
    try:
        try:
            raise redis.exceptions.ConnectionError(
                "Error 111 connecting to 127.0.0.1:7000. Connection refused."
            )
        except redis.exceptions.ConnectionError as cause:
            raise redis.exceptions.RedisClusterException("Redis Cluster cannot be connected.") from cause
    except redis.exceptions.RedisClusterException as raised:
        return raised


def test_a_worker_waits_for_its_clusters_node(monkeypatch, caplog):
    made = object()
    tries: list[str] = []

    def connect(url: str) -> Any:
        tries.append(url)
        if len(tries) < 3:
            raise _cluster_away()
        return made

    monkeypatch.setattr(worker, "connect", connect)
    stop = threading.Event()
    monkeypatch.setattr(stop, "wait", lambda timeout=None: False)  # no second's pause
    with caplog.at_level("WARNING", logger="matchlog.worker"):
        assert worker.connected("redis+cluster://127.0.0.1:7000", stop) is made
    assert len(tries) == 3
    assert [r.getMessage() for r in caplog.records].count(
        "redis unavailable (Redis Cluster cannot be connected.); waiting"
    ) == 2


def test_a_worker_stops_on_an_error_that_is_no_outage_or_when_told(monkeypatch):
    def wrong(url: str) -> Any:
        raise redis.exceptions.RedisClusterException("Invalid args in command")

    monkeypatch.setattr(worker, "connect", wrong)
    with pytest.raises(redis.exceptions.RedisClusterException):
        worker.connected("redis+cluster://127.0.0.1:7000", threading.Event())

    def away(url: str) -> Any:
        raise _cluster_away()

    monkeypatch.setattr(worker, "connect", away)
    stopped = threading.Event()
    stopped.set()
    with pytest.raises(redis.exceptions.RedisClusterException):
        worker.connected("redis+cluster://127.0.0.1:7000", stopped)
