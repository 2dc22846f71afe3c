"""Storage that does not grow without need (issue: Hardening): packs stored once, snapshots of a
finished match compacted to the final one, RQ registries cleaned."""

from __future__ import annotations

import dataclasses
import random

import pytest

from service.application.matches import Matches
from service.domain import replay
from service.domain.chain import Recorded
from service.store.keys import Keys
from tests.helpers import create, play_random_game, run_jobs
from workers.projector import Projector

pytestmark = pytest.mark.redis

PAIR = [{"name": "ann"}, {"name": "bob"}]


def drain(projector, rounds: int = 50) -> None:
    """Let the projector handle what the feed holds (bounded: a game end stays pending until scored)."""
    for _ in range(rounds):
        if not projector.step():
            return


def test_a_content_pack_is_stored_once_and_referenced_by_its_hash(real_client, real_redis, settings):
    ids = [create(real_client, "chock-a-block", PAIR)[0] for _ in range(3)]
    packs = list(real_redis.scan_iter(match=f"{settings.namespace}:pack:*"))
    assert len(packs) == 1, "three matches with one pack store it once"
    stored = real_redis.xrange(Keys(settings.namespace).log(ids[0]), "1-0", "1-0")[0][1]
    assert b'"content"' not in stored[b"data"] and b"content_sha256" in stored[b"data"]
    exported = real_client.get(f"/v1/matches/{ids[0]}/events").json["events"][0]["data"]
    assert exported["content"]["pack_id"] and exported["content_sha256"] in packs[0].decode()


def test_a_changed_pack_in_an_exported_log_does_not_replay(real_client, real_redis, settings):
    match_id, tokens = create(real_client, "chock-a-block", PAIR)
    play_random_game(real_client, match_id, tokens, random.Random(1))
    log = real_client.get(f"/v1/matches/{match_id}/events?limit=1000").json["events"]
    assert replay.replay([Recorded.from_dict(e) for e in log]).finished
    log[0]["data"]["content"]["cards"][log[0]["data"]["content"]["card_ids"][0]]["FRONT"]["TL"]["colour"] = (
        "X"
    )
    with pytest.raises(ValueError, match="content_sha256"):
        replay.replay([Recorded.from_dict(e) for e in log])


def test_a_finished_scored_match_keeps_only_its_final_snapshot(real_client, real_redis, settings):
    settings = dataclasses.replace(settings, snapshot_every=4)
    matches = Matches(real_redis, settings)
    match_id, tokens = create(real_client, "blokus")
    meta = Keys(settings.namespace).meta(match_id)
    assert real_redis.hget(meta, "client") == b"127.0.0.1"  # whose bot-only budget it would count in
    play_random_game(real_client, match_id, tokens, random.Random(2))
    projector = Projector(matches, real_redis, consumer="compactor", block_ms=10)
    drain(projector)
    run_jobs(real_redis, settings)
    drain(projector)
    final = matches.load(match_id)
    assert final.result is not None
    versions = [int(v) for v in real_redis.hkeys(Keys(settings.namespace).snapshots(match_id))]
    assert versions == [final.version]
    # the sealed seed went with them (the log reveals it), and the creator's address (no budget counts the
    # match now); any version still rebuilds from the log
    assert not {b"sealed", b"client"} & set(real_redis.hkeys(meta))
    fresh = Matches(real_redis, settings)
    assert fresh.load(match_id, 3).version == 3
    assert fresh.load(match_id) == final
