"""The integration suite on a real Redis Cluster: 6 ``redis-server`` nodes, 3 masters and 3 replicas,
on loopback ports (``tests.redis_cluster``), with ``REDIS_URL=redis+cluster://...`` and the job queue on
its own single Redis (``RQ_REDIS_URL``: RQ cannot run on a cluster).

The tests below are the single-Redis suite's own, collected here again with the fixtures of this
module: random games of every game and mode played to the end by bots on two real worker processes,
scored, each log replayed; replay at every version; racing writers; idempotent retries (creates and joins
racing with one key too); the live feed
(SSE) to the end of a match; then what only a cluster shows: matches spread over every master, and
a worker's partitions on all of them.
"""

from __future__ import annotations

import collections
import dataclasses
import random

import pytest

from service.store.events import EventStore
from service.store.keys import Keys
from service.store.redis_client import connect
from tests.application.test_livefeed import (
    test_the_backlog_then_each_new_entry_with_its_version_as_id,
    test_the_stream_ends_once_the_match_is_scored,
)
from tests.application.test_matches_retries_and_ending import (
    test_racing_creates_with_one_key_make_one_match,
    test_racing_joins_with_one_key_get_one_seat_and_one_token,
)
from tests.helpers import create, play_random_game
from tests.integration.test_bots_on_redis import (
    test_bot_only_matches_of_every_game_and_mode_finish_by_themselves,
)
from tests.integration.test_matches_on_redis import (
    drain,
    test_idempotent_retries_race_to_one_append,
    test_racing_clients_on_one_version_exactly_one_wins,
    test_random_games_play_to_the_end_and_get_scored,
    test_replay_at_every_version_equals_the_state_reached_live,
)

__all__ = [  # the single-Redis suite's tests, collected again here, on the cluster
    "test_bot_only_matches_of_every_game_and_mode_finish_by_themselves",
    "test_idempotent_retries_race_to_one_append",
    "test_racing_clients_on_one_version_exactly_one_wins",
    "test_racing_creates_with_one_key_make_one_match",
    "test_racing_joins_with_one_key_get_one_seat_and_one_token",
    "test_random_games_play_to_the_end_and_get_scored",
    "test_replay_at_every_version_equals_the_state_reached_live",
    "test_the_backlog_then_each_new_entry_with_its_version_as_id",
    "test_the_stream_ends_once_the_match_is_scored",
]

pytestmark = [pytest.mark.redis, pytest.mark.slow]


@pytest.fixture
def redis_url(redis_cluster):
    """What a worker started by a test gets as REDIS_URL: the cluster."""
    return redis_cluster.startup_url


@pytest.fixture
def settings(settings, single_redis_url):
    return dataclasses.replace(settings, rq_redis_url=single_redis_url)


@pytest.fixture
def real_redis(redis_cluster, settings):
    client = connect(redis_cluster.startup_url)
    yield client
    for key in client.scan_iter(match=f"{settings.namespace}:*", count=1000):
        client.delete(key)
    jobs = connect(settings.rq_redis_url)
    for key in jobs.scan_iter(match=f"rq:*{settings.namespace}*", count=1000):
        jobs.delete(key)


@pytest.fixture
def fake_redis(real_redis):
    """The live-feed tests' store, here the cluster: their reader polls partitions across slots."""
    return real_redis


def test_matches_spread_over_every_master(real_client, real_redis, redis_cluster, settings):
    match_ids = [create(real_client)[0] for _ in range(60)]
    keys = Keys(settings.namespace, settings.feed_partitions)
    by_master = collections.Counter(redis_cluster.master_of(keys.log(m)) for m in match_ids)
    print(f"\n60 matches over the masters (port: matches): {dict(sorted(by_master.items()))}")
    assert sorted(by_master) == sorted(redis_cluster.master_ports())
    assert min(by_master.values()) >= 8  # 64 partitions in equal slices of the slot space: about 20 each
    for match_id in match_ids:
        log, meta, feed = keys.log(match_id), keys.meta(match_id), keys.feed(keys.partition(match_id))
        assert redis_cluster.master_of(log) == redis_cluster.master_of(meta) == redis_cluster.master_of(feed)


def test_a_worker_follows_partitions_on_every_master(real_client, real_app, real_redis, settings):
    match_ids = []
    for seed in range(6):
        match_id, tokens = create(real_client)
        play_random_game(real_client, match_id, tokens, random.Random(seed))
        match_ids.append(match_id)
    drain(real_app, settings, real_redis)  # one worker owns all 64 partitions, spread over 3 masters
    for match_id in match_ids:
        assert real_client.get(f"/v1/matches/{match_id}").json["result"]["final"] is True
    assert EventStore.of(real_redis, settings).feed_pending("projector") == 0


def test_matchlog_migrate_from_one_redis_into_the_cluster(
    real_client, real_redis, single_redis_url, settings
):
    from service.http.app import create_app
    from service.store.keys import Keys
    from service.store.migrate import migrate

    already, _ = create(real_client)  # the cluster has a public list of its own
    single = connect(single_redis_url)
    before = create_app(dataclasses.replace(settings, rq_redis_url=None), single).test_client()
    moved = [create(before)[0] for _ in range(2)]
    try:
        done = migrate(single, real_redis, Keys(settings.namespace), same_server=False)
        assert done["announced_matches"] == 2 and done["copied_keys"] >= 1  # the public list, merged
        listed = {m["id"] for m in real_client.get("/v1/matches?limit=10").json["matches"]}
        assert listed == {already, *moved}
        for match_id in moved:
            assert real_client.get(f"/v1/matches/{match_id}").json["version"] == 1
        again = migrate(single, real_redis, Keys(settings.namespace), same_server=False)
        assert again == {"moved_keys": 0, "copied_keys": 0, "dropped_feeds": 0, "announced_matches": 0}
    finally:
        for key in single.scan_iter(match=f"{settings.namespace}:*"):
            single.delete(key)


def test_a_listing_reads_summaries_on_every_master_and_makes_the_missing_ones(
    real_client, real_redis, redis_cluster, settings
):
    match_ids = [create(real_client)[0] for _ in range(30)]
    keys = Keys(settings.namespace, settings.feed_partitions)
    for match_id in match_ids:  # the append wrote it in its own script: on the match's node
        assert redis_cluster.master_of(keys.summary(match_id)) == redis_cluster.master_of(keys.log(match_id))
    for match_id in match_ids[::3]:  # as matches from before summaries have none
        real_redis.delete(keys.summary(match_id))
    listed = real_client.get("/v1/matches?limit=200").json["matches"]
    assert [m["id"] for m in listed] == match_ids
    for row in listed:
        assert row == real_client.get(f"/v1/matches/{row['id']}").json
    assert all(real_redis.get(keys.summary(match_id)) for match_id in match_ids)
