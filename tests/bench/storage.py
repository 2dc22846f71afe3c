"""``python -m tests.bench.storage``: Redis memory per finished match, key by key.

Plays random complete matches through the application on a real Redis (``REDIS_URL``, else an
embedded one in a temporary folder), lets the rule worker fold them (snapshots) and the scoring job
record the result, then sums ``MEMORY USAGE`` of every key the match left: its log, meta, snapshots,
the content packs it references and its scoring job. Prints a table and, last, one JSON line.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import shutil
import sys
import tempfile
import uuid
from pathlib import Path

from rq import SimpleWorker

from service.application.matches import Matches, NewMatch
from service.config import Settings
from service.store.jobqueue import JobQueue
from service.store.keys import Keys
from service.store.redis_client import connect
from tests.bench.common import Figure, json_figures, machine, table
from workers.projector import Projector

CASES = {
    # label: (game, players, options)
    "blokus_4p": ("blokus", 4, {}),
    "chock_a_block_5p": ("chock-a-block", 5, {}),
    "block_block_2p": ("block-block", 2, {}),
    "blackout_hong_kong_4p": ("blackout-hong-kong", 4, {}),
}


def play_to_the_end(matches: Matches, game_id: str, players: int, options: dict, rng: random.Random) -> str:
    match_id, state, _ = matches.create(NewMatch(game_id, [f"p{i}" for i in range(players)], options))
    while not state.finished:
        seat = state.engine.to_act(state.game)[0]
        action = rng.choice(state.engine.legal_actions(state.game, seat))
        matches.submit(match_id, seat, state.version, action)
        state = matches.load(match_id)
    return match_id


def keys_of(redis_client, settings: Settings, match_id: str) -> list[bytes]:
    return list(redis_client.scan_iter(match=f"{settings.namespace}:*match:{match_id}:*")) + list(
        redis_client.scan_iter(match=f"rq:*{match_id}*")
    )


def measure(url: str, matches_per_case: int) -> list[Figure]:
    redis_client = connect(url)
    settings = dataclasses.replace(Settings(), namespace=f"storage-{uuid.uuid4().hex[:8]}")
    matches = Matches(redis_client, settings)
    figures = []
    try:
        for label, (game_id, players, options) in CASES.items():
            rng = random.Random(label)
            ids = [play_to_the_end(matches, game_id, players, options, rng) for _ in range(matches_per_case)]
            projector = Projector(matches, redis_client, consumer="storage-bench", block_ms=10)
            while projector.step():
                pass
            SimpleWorker(
                JobQueue(redis_client, Keys(settings.namespace)).queues(), connection=redis_client
            ).work(burst=True)
            while projector.step():  # the notices of the game ends, now scored, are done
                pass
            per_kind: dict[str, list[int]] = {}
            for match_id in ids:
                assert matches.load(match_id).result is not None, "the match was scored"
                for key in keys_of(redis_client, settings, match_id):
                    kind = key.decode().rsplit(":", 1)[-1] if b":match:" in key else "rq job"
                    per_kind.setdefault(kind, []).append(redis_client.memory_usage(key, samples=0) or 0)
            packs = list(redis_client.scan_iter(match=f"{settings.namespace}:pack:*"))
            shared = sum(redis_client.memory_usage(k, samples=0) or 0 for k in packs)
            total = sum(sum(v) for v in per_kind.values()) / len(ids)
            for kind, sizes in sorted(per_kind.items()):
                figures.append(
                    Figure(
                        f"storage.{label}.{kind.replace(' ', '_')}_kb",
                        f"{label}: {kind}",
                        sum(sizes) / len(ids) / 1024,
                        "KB per match (mean)",
                    )
                )
            figures.append(
                Figure(
                    f"storage.{label}.total_kb",
                    f"{label}: total per finished match",
                    total / 1024,
                    f"KB (mean of {len(ids)})",
                )
            )
            figures.append(
                Figure(
                    f"storage.{label}.shared_packs_kb",
                    f"{label}: content packs, shared by all",
                    shared / 1024,
                    "KB once, not per match",
                )
            )
    finally:
        for key in redis_client.scan_iter(match=f"{settings.namespace}:*"):
            redis_client.delete(key)
        for key in redis_client.scan_iter(match=f"rq:*{settings.namespace}*"):
            redis_client.delete(key)
    return figures


def main() -> int:
    matches_per_case = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    about = machine()
    for f in about:
        print(f"{f.label}: {f.value}")
    print()
    url, embedded, folder = os.environ.get("REDIS_URL"), None, None
    if not url:
        from service.store.embedded_redis import EmbeddedRedis

        folder = tempfile.mkdtemp(prefix="mls-", dir="/tmp")
        embedded = EmbeddedRedis(Path(folder)).start()
        url = embedded.url
    try:
        figures = measure(url, matches_per_case)
    finally:
        if embedded:
            embedded.stop()
            shutil.rmtree(folder, ignore_errors=True)
    print(table(figures))
    print(json.dumps(json_figures(about + figures), separators=(", ", ": ")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
