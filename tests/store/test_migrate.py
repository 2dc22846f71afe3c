"""``matchlog migrate`` on a real Redis: data of the layout before hash tags, and of another number of
feed partitions, moved to where this version reads it, then played on and scored."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import subprocess
import sys

import pytest

from service.http.app import create_app
from service.store.keys import Keys
from service.store.migrate import migrate
from tests.helpers import create, play_random_game
from tests.integration.test_matches_on_redis import drain
from tests.old_layout import to_legacy_layout

pytestmark = pytest.mark.redis


def test_matchlog_migrate_moves_the_layout_before_hash_tags(real_client, real_redis, redis_url, settings):
    finished, tokens = create(real_client)
    play_random_game(real_client, finished, tokens, random.Random(3))  # over, not yet scored
    running, running_tokens = create(real_client)
    before = {
        m: real_client.get(f"/v1/matches/{m}/events?limit=1000").json["events"] for m in (finished, running)
    }
    keys = Keys(settings.namespace)
    assert to_legacy_layout(real_redis, keys) >= 5  # logs, metas, snapshots

    printed = subprocess.run(
        [sys.executable, "-m", "service.cli", "migrate"],
        capture_output=True,
        text=True,
        env={**os.environ, "REDIS_URL": redis_url, "MATCHLOG_NAMESPACE": settings.namespace},
        timeout=60,
        check=True,
    ).stdout
    done = json.loads(printed.strip().splitlines()[-1])
    assert done["moved_keys"] >= 5 and done["announced_matches"] == 2 and done["dropped_feeds"] == 1
    assert done["listed"] == 2  # in the listings narrowed by game and status too
    assert not list(real_redis.scan_iter(match=f"{settings.namespace}:match:*"))

    fresh = create_app(settings, real_redis).test_client()  # a new process: nothing cached
    for match_id, log in before.items():
        assert fresh.get(f"/v1/matches/{match_id}/events?limit=1000").json["events"] == log
    legal = fresh.get(
        f"/v1/matches/{running}/legal-actions", headers={"Authorization": f"Bearer {running_tokens[0]}"}
    )
    assert legal.status_code == 200
    drain(None, settings, real_redis)  # the announcements reach a worker: the finished game gets scored
    assert fresh.get(f"/v1/matches/{finished}").json["result"]["final"] is True
    again = migrate(real_redis, real_redis, keys, same_server=True)
    assert again == {"moved_keys": 0, "copied_keys": 0, "dropped_feeds": 0, "announced_matches": 0}


def test_matchlog_migrate_follows_a_new_number_of_partitions(real_redis, settings):
    few = dataclasses.replace(settings, feed_partitions=4)
    client = create_app(few, real_redis).test_client()
    match_ids = [create(client)[0] for _ in range(5)]
    many = dataclasses.replace(settings, feed_partitions=64)
    done = migrate(real_redis, real_redis, Keys(settings.namespace, 64), same_server=True)
    # a match whose partition tag is the same under both counts stays where it is (ids are random)
    moved = [
        m for m in match_ids if Keys(settings.namespace, 4).log(m) != Keys(settings.namespace, 64).log(m)
    ]
    assert len(moved) <= done["announced_matches"] <= 5 and done["moved_keys"] >= len(moved)
    after = create_app(many, real_redis).test_client()
    for match_id in match_ids:
        assert after.get(f"/v1/matches/{match_id}").json["version"] >= 1


def test_a_process_counting_other_feed_partitions_than_the_keys_refuses_to_start(
    real_redis, redis_url, settings
):
    """With another MATCHLOG_FEED_PARTITIONS every match key would be looked for under another tag: the
    matches would seem gone while the server looked healthy. The first start notes the number; a process
    counting another refuses to start and says how to fix it; a migration notes the new number."""
    from service import cli

    own = dataclasses.replace(settings, redis_url=redis_url, feed_partitions=8)
    cli.check_layout(own, redis_url)  # nothing noted yet: the first start notes 8
    assert real_redis.get(Keys(settings.namespace).layout) == b"8"
    with pytest.raises(SystemExit) as refused:
        cli.run_worker(dataclasses.replace(own, feed_partitions=64))
    message = str(refused.value.code)
    assert "laid out for 8 feed partitions, not 64" in message and "MATCHLOG_FEED_PARTITIONS=8" in message
    migrate(real_redis, real_redis, Keys(settings.namespace, 64), same_server=True)
    assert real_redis.get(Keys(settings.namespace).layout) == b"64"
    cli.check_layout(dataclasses.replace(own, feed_partitions=64), redis_url)  # now it starts
