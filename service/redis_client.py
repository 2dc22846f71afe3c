"""The one way the service opens a Redis connection."""

from __future__ import annotations

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry


POOL_SIZE = 32
"""Connections one process keeps to Redis at most: requests wait their turn for one (a few ms) rather
than open more, so connections do not grow with live-feed subscribers or bursts of requests."""


def connect(url: str, pool_size: int = POOL_SIZE) -> redis.Redis:
    # protocol=2 on purpose: redis-py 8 defaults to RESP3, whose reply shapes differ, and RQ and
    # fakeredis are written against RESP2. Bytes replies (no decode_responses) because RQ needs them.
    # Short timeouts and a single quick retry: when Redis is away the API must answer 503 at once
    # rather than hang; the pool reconnects by itself on the next request once Redis is back.
    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=pool_size,
        timeout=5,
        protocol=2,
        socket_connect_timeout=2,
        socket_timeout=5,
        retry=Retry(NoBackoff(), 1),
        health_check_interval=30,
    )
    return redis.Redis(connection_pool=pool)
