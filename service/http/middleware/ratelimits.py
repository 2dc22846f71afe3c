"""Rate limits, kept in the match store's Redis by flask-limiter (so every API process counts against the
same windows): on writes (every ``POST`` and ``DELETE``) per seat token and per client address, and on reads (every
other request but the probes) per client address.

Each limit is one window for all writes (or all reads) together, whatever the endpoint (flask-limiter's
application limits; a route's own limit would count each endpoint apart), and each message on the moves
socket counts in the same per-token and per-address write windows as a POST. A breach is a 429 in the
API's error shape (``too_many_requests``) with ``Retry-After``. The limits are
``MATCHLOG_RATE_LIMIT_PER_TOKEN``, ``MATCHLOG_RATE_LIMIT_PER_ADDRESS`` and
``MATCHLOG_RATE_LIMIT_READS_PER_ADDRESS`` (flask-limiter's notation, such as ``50/second;1000/minute``;
``off`` for none). A token is counted by a digest, never by itself.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any

import redis
from flask import Flask, request
from flask_limiter import ApplicationLimit, Limiter
from flask_limiter.util import get_remote_address
from limits import parse_many
from redis.cluster import RedisCluster

WRITES = "writes"
"""The one scope every write is counted in."""

READS = "reads"
"""The one scope every other request is counted in (apart from the writes: a reader does not use up
the writes of the players behind the same address)."""

PROBES = ("/healthz", "/readyz", "/metrics")
"""Asked by the orchestrator and the monitoring, often and from few addresses: never limited."""


WRITING_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def _writing() -> bool:
    return request.method in WRITING_METHODS


def _reading() -> bool:
    return not _writing() and request.path not in PROBES


def _address_key() -> str:
    return "address:" + (get_remote_address() or "?")


def _token_key() -> str:
    header = request.headers.get("Authorization", "")
    token = header[7:].strip() if header[:7].lower() == "bearer " else ""
    return _token_digest(token) if token else ""


def _token_digest(token: str) -> str:
    """A token is counted by a digest, never by itself."""
    return "token:" + hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()[:24]


def install(
    app: Flask,
    redis_client: redis.Redis,
    namespace: str,
    per_token: str | None,
    per_address: str | None,
    reads_per_address: str | None = None,
) -> Limiter | None:
    limits: list[str | Callable[[], str] | ApplicationLimit] = []
    if per_address:
        limits.append(
            ApplicationLimit(
                per_address, key_function=_address_key, exempt_when=lambda: not _writing(), scope=WRITES
            )
        )
    if reads_per_address:
        limits.append(
            ApplicationLimit(
                reads_per_address, key_function=_address_key, exempt_when=lambda: not _reading(), scope=READS
            )
        )
    if per_token:
        limits.append(
            ApplicationLimit(
                per_token,
                key_function=_token_key,
                exempt_when=lambda: not _writing() or not _token_key(),
                scope=WRITES,
            )
        )
    if not limits:
        return None
    key_prefix = f"{namespace}:ratelimit"
    # writes over the moves socket count against the same per-token and per-address windows
    app.extensions["matchlog-write-limits"] = (
        parse_many(per_token) if per_token else [],
        parse_many(per_address) if per_address else [],
        key_prefix,
    )
    if isinstance(redis_client, RedisCluster):  # limits makes its own cluster client, from the same nodes
        nodes = ",".join(f"{n.host}:{n.port}" for n in redis_client.get_primaries())
        storage: dict[str, Any] = {
            "storage_uri": f"redis+cluster://{nodes}",
            "storage_options": {"protocol": 2},
        }
    else:
        storage = {
            "storage_uri": "redis://",
            "storage_options": {"connection_pool": redis_client.connection_pool},
        }
    limiter = Limiter(
        key_func=get_remote_address,
        app=app,
        application_limits=limits,
        headers_enabled=True,
        strategy="fixed-window",
        key_prefix=key_prefix,
        **storage,
    )
    app.extensions["matchlog-limiter"] = limiter
    return limiter


def write_allowed(app: Flask, token: str) -> int:
    """Count a write made outside an HTTP POST (a move on the socket, in the request context of its
    opening) against the address's and the token's limits: 0 if allowed, else the seconds until it would be."""
    limits = app.extensions.get("matchlog-write-limits")
    if not limits:
        return 0
    per_token, per_address, key_prefix = limits
    strategy = app.extensions["matchlog-limiter"].limiter
    # the identifiers flask-limiter counts a POST under
    windows = [(item, (key_prefix, _address_key(), WRITES)) for item in per_address]
    windows += [(item, (key_prefix, _token_digest(token), WRITES)) for item in per_token]
    for item, window in windows:
        if not strategy.hit(item, *window):
            return max(1, int(strategy.get_window_stats(item, *window).reset_time - time.time()))
    return 0
