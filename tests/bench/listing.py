"""What a listing costs beside many matches of another status: ``python -m tests.bench.listing [others]``
makes ``others`` (default 1,000) active public Blokus matches and 5 aborted ones in the Redis at
``REDIS_URL`` (default ``redis://127.0.0.1:6379/0``, under a namespace of its own, deleted after), then
times ``GET /v1/matches?status=aborted``'s work (``Matches.listed``) with nothing cached (a new worker)
and again."""

from __future__ import annotations

import os
import sys
import time
import uuid

import redis

from service.config import Settings
from service.matches import Matches, NewMatch


def main(others: int) -> None:
    client = redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    settings = Settings(namespace=f"bench-listing-{uuid.uuid4().hex[:8]}", secret_key="x" * 64)
    matches = Matches(client, settings)
    try:
        for _ in range(others):
            matches.create(NewMatch("blokus", ["ann", "bob"]))
        aborted = [matches.create(NewMatch("blokus", ["ann", "bob"]))[0] for _ in range(5)]
        for match_id in aborted:
            matches.abort(match_id, "bench")
        fresh = Matches(client, settings)  # a new worker: no match state cached
        started = time.perf_counter()
        found, _ = fresh.listed(None, None, "aborted", None, 50)
        cold = time.perf_counter() - started
        started = time.perf_counter()
        fresh.listed(None, None, "aborted", None, 50)
        warm = time.perf_counter() - started
        assert sorted(m["id"] for m in found) == sorted(aborted), found
        print(
            f"{others} other matches: ?status=aborted (5 found) cold {cold * 1000:.1f} ms, warm {warm * 1000:.1f} ms"
        )
    finally:
        for key in client.scan_iter(match=f"{settings.namespace}:*", count=1000):
            client.delete(key)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
