"""The cache can never serve or write a wrong state: after Redis loses acknowledged writes (a
restore, a failover to a lagging replica), every process converges on the log (issue: Hardening)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from service.domain.replay import MatchState
from service.http.app import create_app
from service.store import snapshots as snapshots_format
from service.store.events import EventStore
from service.store.keys import Keys
from service.store.snapshots import rules_of
from tests.helpers import act, create, play_random_game

pytestmark = pytest.mark.redis


def log_of(redis_client, settings, match_id):
    return EventStore(redis_client, Keys(settings.namespace)).read(match_id)


def test_every_process_converges_on_a_log_restored_to_an_earlier_point(real_redis, settings):
    settings = dataclasses.replace(settings, snapshot_every=4)
    first = create_app(settings, real_redis).test_client()
    match_id, tokens = create(first, "blokus", seed="restore", seed_known_to_creator=True)
    play_random_game(first, match_id, tokens, random.Random(1), max_actions=6)
    restore_point = len(log_of(real_redis, settings, match_id))
    backup = real_redis.dump(Keys(settings.namespace).log(match_id))  # a backup of the log, taken now
    play_random_game(first, match_id, tokens, random.Random(2), max_actions=12)
    stale = first.get(f"/v1/matches/{match_id}/state").json  # the first process caches this head
    assert stale["version"] > restore_point + 4

    # the log is restored from the backup: every acknowledged write after it is lost (the snapshots
    # made after it survive, stale)
    real_redis.restore(Keys(settings.namespace).log(match_id), 0, backup, replace=True)

    # a second process, fresh, plays on from the restore point, differently
    second = create_app(settings, real_redis).test_client()
    play_random_game(second, match_id, tokens, random.Random(3), max_actions=14)
    log = log_of(real_redis, settings, match_id)
    assert len(log) > stale["version"]

    # the first process's cached head disagrees with the log: it is dropped, and both serve the log
    for version in (None, restore_point, stale["version"], len(log)):
        query = "" if version is None else f"?version={version}"
        served = [c.get(f"/v1/matches/{match_id}/state{query}").json for c in (first, second)]
        assert served[0] == served[1]
    assert first.get(f"/v1/matches/{match_id}").json["version"] == len(log)

    # an action chosen on the stale state cannot be appended
    refused = act(first, match_id, tokens[0], stale["version"], {"type": "pass"})
    assert refused.status_code in (409, 422)

    # every snapshot in Redis is the fold of the log as it is now, by the rules of today
    play_random_game(first, match_id, tokens, random.Random(4), max_actions=6)
    log = log_of(real_redis, settings, match_id)
    revealed_by_first = first.get(f"/v1/matches/{match_id}/state").json
    assert revealed_by_first["version"] == len(log)
    snapshots = real_redis.hgetall(Keys(settings.namespace).snapshots(match_id))
    assert snapshots
    fresh = create_app(settings, real_redis).test_client()
    for version, raw in snapshots.items():
        stored = snapshots_format.decode(raw)
        state = MatchState.from_json(stored["state"])
        assert stored["rules"] == rules_of(state)
        entry = log[int(version) - 1]
        assert state.head_hash == entry.hash, f"snapshot {int(version)} was not folded from the log as it is"
        served = fresh.get(f"/v1/matches/{match_id}/state?version={int(version)}").json["state"]
        assert served == state.engine.view(state.game, None)
