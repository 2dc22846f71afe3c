"""The one way the service opens a Redis connection: to one Redis (``redis://``, ``rediss://``,
``unix://``) or to a Redis Cluster (``redis+cluster://host:port``, any node of it: the client learns the
others)."""

from __future__ import annotations

import redis
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

POOL_SIZE = 32
"""Connections one process keeps to Redis at most: requests wait their turn for one (a few ms) rather
than open more, so connections do not grow with live-feed subscribers or bursts of requests."""


CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")


def is_cluster(url: str) -> bool:
    return url.partition("://")[0] in CLUSTER_SCHEMES


def connect(url: str, pool_size: int = POOL_SIZE) -> redis.Redis:
    if is_cluster(url):
        return _cluster(url, pool_size)
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


def _cluster(url: str, pool_size: int) -> RedisCluster:
    scheme, _, rest = url.partition("://")
    # protocol=2 and bytes replies as above; the client follows MOVED/ASK and, after a failover, asks
    # the cluster for its new masters by itself
    return RedisCluster.from_url(
        f"{scheme.partition('+')[0]}://{rest}",
        protocol=2,
        max_connections=pool_size,
        socket_connect_timeout=2,
        socket_timeout=5,
        retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 3),
    )


def for_jobs(rq_url: str | None, store: redis.Redis) -> redis.Redis:
    """The job queue's Redis: ``RQ_REDIS_URL``, else the match store's own, which must then be one Redis:
    RQ's keys and transactions span hash slots, so it cannot run on a Redis Cluster."""
    if rq_url:
        return connect(rq_url)
    if isinstance(store, RedisCluster):
        raise RuntimeError(
            "RQ cannot run on a Redis Cluster: set RQ_REDIS_URL to a single Redis for the job queue"
        )
    return store
