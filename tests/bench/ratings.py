"""What rating costs: ``python -m tests.bench.ratings [matches] [workers]``.

Makes ``matches`` (default 10,000) synthetic scored logs (the shell entries the ratings read:
``match_created`` with player ids, ``seed_revealed``, ``match_scored``; 2 to 5 seats, random ranks with
ties, 400 players, 4 pools), then times

* the model alone: ``service.domain.ratings.rate`` per match (updates per second: one per rated seat);
* the live projection: every match queued and rated through ``PlayerStore`` (the Lua apply, one match at a
  time, in end order) on the Redis at ``REDIS_URL`` or an embedded one;
* the rebuild: the same matches read from their logs (``rated_match``) and written again pool by pool by
  ``workers`` processes sharing the pools (as ``matchlog ratings rebuild``'s jobs share them), then checked
  equal to the live ratings.

Prints a table and a final JSON line. The logs are synthetic (not XRANGEd from real matches): reading a
real log costs what ``GET /v1/matches/{id}/log`` costs on top.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

import redis

from service.domain.chain import Recorded
from service.domain.ratings import RatedMatch, rate, rated_match
from service.store.players import PlayerStore

POOLS = [
    ("blokus", {"variant": "duo"}, 2),
    ("blokus", {"variant": "four_player"}, 4),
    ("chock-a-block", {}, 3),
    ("chock-a-block", {}, 5),
]


def synthetic_logs(count: int, rng: random.Random) -> dict[str, list[Recorded]]:
    logs = {}
    players = [f"u-{i}" for i in range(400)]
    for n in range(count):
        game, options, seats = POOLS[n % len(POOLS)]
        match_id = f"{n:08d}{uuid.UUID(int=rng.getrandbits(128)).hex[:24]}"
        who = rng.sample(players, seats)
        ranks = sorted(rng.randint(1, seats) for _ in range(seats))
        rng.shuffle(ranks)
        at = f"2026-11-{1 + n // 2000:02d}T{(n // 60) % 24:02d}:{n % 60:02d}:{rng.randint(0, 59):02d}.{n % 1000:03d}Z"
        logs[match_id] = [
            Recorded(
                1,
                "match_created",
                None,
                {
                    "game": game,
                    "options": options,
                    "players": [{"seat": s, "name": p, "player": p} for s, p in enumerate(who)],
                },
                at,
            ),
            Recorded(40, "seed_revealed", None, {"seed": "s", "salt": "t"}, at),
            Recorded(41, "match_scored", None, {"final": True, "ranks": ranks, "scores": ranks}, at),
        ]
    return logs


def _rebuild_pools(url: str, namespace: str, platform: str, pools: list[str], logs_path: str) -> int:
    with open(logs_path) as f:
        raw = json.load(f)
    store = PlayerStore(redis.Redis.from_url(url), namespace)
    done = 0
    for pool in pools:
        rated = []
        for match_id, entries in raw.items():
            match, _ = rated_match(match_id, [Recorded(**e) for e in entries])
            if match is not None and match.pool == pool:
                rated.append(match)
        done += store.write_pool(platform, pool, rated)
    return done


def measure(url: str, count: int, workers: int) -> list[tuple[str, str]]:
    rng = random.Random(7)
    logs = synthetic_logs(count, rng)
    rated: list[RatedMatch] = [rated_match(match_id, entries)[0] for match_id, entries in logs.items()]
    seats = sum(len(m.seats) for m in rated)
    figures = [("matches", f"{count}"), ("rated seats", f"{seats}")]

    started = time.perf_counter()
    by_pool: dict[str, dict] = {}
    for match in sorted(rated, key=lambda m: m.order):
        by_pool.setdefault(match.pool, {}).update(rate(by_pool.get(match.pool, {}), match))
    model_s = time.perf_counter() - started
    figures.append(("model: updates/s", f"{seats / model_s:,.0f}"))

    client = redis.Redis.from_url(url)
    namespace, platform = f"bench-ratings-{uuid.uuid4().hex[:8]}", "p1"
    store = PlayerStore(client, namespace)
    try:
        started = time.perf_counter()
        for match in rated:
            store.enqueue(platform, match)
        for pool in {m.pool for m in rated}:
            store.process(platform, pool, limit=count + 1)
        live_s = time.perf_counter() - started
        figures.append(("live: updates/s", f"{seats / live_s:,.0f}"))
        figures.append(("live: matches/s", f"{count / live_s:,.0f}"))
        live = {pool: store.all_ratings(platform, pool) for pool in store.pools(platform)}

        folder = tempfile.mkdtemp(prefix="mlr-", dir="/tmp")
        logs_path = str(Path(folder) / "logs.json")
        with open(logs_path, "w") as f:
            json.dump({k: [e.__dict__ for e in v] for k, v in logs.items()}, f)
        pools = sorted(live)
        shares = [pools[i::workers] for i in range(workers)]
        started = time.perf_counter()
        with multiprocessing.get_context("spawn").Pool(workers) as processes:
            processes.starmap(
                _rebuild_pools, [(url, namespace, platform, share, logs_path) for share in shares if share]
            )
        rebuild_s = time.perf_counter() - started
        shutil.rmtree(folder, ignore_errors=True)
        rebuilt = {pool: store.all_ratings(platform, pool) for pool in store.pools(platform)}
        figures.append((f"rebuild ({workers} workers): seconds", f"{rebuild_s:.1f}"))
        figures.append(("rebuild: matches/s", f"{count / rebuild_s:,.0f}"))
        figures.append(("rebuild equals live", str(rebuilt == live)))
    finally:
        for key in client.scan_iter(f"{namespace}:*", count=1000):
            client.delete(key)
    return figures


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 10_000
    workers = int(argv[1]) if len(argv) > 1 else 2
    url, embedded, folder = os.environ.get("REDIS_URL"), None, None
    if not url:
        from service.store.embedded_redis import EmbeddedRedis

        folder = tempfile.mkdtemp(prefix="mlr-redis-", dir="/tmp")
        embedded = EmbeddedRedis(Path(folder)).start()
        url = embedded.url
    try:
        figures = measure(url, count, workers)
    finally:
        if embedded:
            embedded.stop()
            shutil.rmtree(folder, ignore_errors=True)
    width = max(len(label) for label, _ in figures)
    for label, value in figures:
        print(f"{label:<{width}}  {value}")
    print(json.dumps({"benchmark": "ratings", **dict(figures)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
