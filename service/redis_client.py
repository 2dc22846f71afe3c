"""The one way the service opens a Redis connection."""

from __future__ import annotations

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry


def connect(url: str) -> redis.Redis:
    # protocol=2 on purpose: redis-py 8 defaults to RESP3, whose reply shapes differ, and RQ and
    # fakeredis are written against RESP2. Bytes replies (no decode_responses) because RQ needs them.
    # Short timeouts and a single quick retry: when Redis is away the API must answer 503 at once
    # rather than hang; the pool reconnects by itself on the next request once Redis is back.
    return redis.Redis.from_url(
        url,
        protocol=2,
        socket_connect_timeout=2,
        socket_timeout=5,
        retry=Retry(NoBackoff(), 1),
        health_check_interval=30,
    )
