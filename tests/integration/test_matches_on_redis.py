"""Against a real Redis server (REDIS_URL, or the embedded one the fixtures start): whole games
through the HTTP API, replay at every version, racing writers, and the rule worker's bookkeeping."""

from __future__ import annotations

import random
import threading
from typing import Any

from redis.cluster import RedisCluster

from service.domain import replay
from service.domain.chain import Recorded
from service.games.blokus import GAME
from service.http.app import create_app
from service.store.events import EventStore
from service.store.keys import Keys
from service.store.redis_client import connect
from tests.helpers import act, bearer, create, play_random_game, run_jobs
from workers.projector import GROUP, Projector


def drain(app, settings, redis_client):
    """Run a rule worker in-process until it has nothing left to do."""
    import dataclasses

    from service.application.matches import Matches

    matches = Matches(redis_client, dataclasses.replace(settings, claim_idle_ms=0))
    projector = Projector(matches, redis_client, consumer="test-worker", block_ms=10)
    for _ in range(20):
        busy = projector.step()
        run_jobs(redis_client, settings)
        if not busy and not projector.store.feed_pending(GROUP):
            return
    raise AssertionError("the worker did not settle")


def test_random_games_play_to_the_end_and_get_scored(real_client, real_app, real_redis, settings):
    for seed in (1, 2):
        match_id, tokens = create(real_client)
        final = play_random_game(real_client, match_id, tokens, random.Random(seed))
        assert final["status"] == "finished" and final["to_act"] == []
        log = real_client.get(f"/v1/matches/{match_id}/events?limit=1000").json["events"]
        assert log[-2]["type"] == "game_over" and log[-1]["type"] == "seed_revealed"
        revealed = log[-1]["data"]
        assert replay.seed_commitment(revealed["seed"], revealed["salt"]) == log[0]["data"]["seed_commitment"]
        assert "result" not in final  # scoring is asynchronous

        drain(real_app, settings, real_redis)

        scored = real_client.get(f"/v1/matches/{match_id}").json
        log = real_client.get(f"/v1/matches/{match_id}/events?limit=1000").json["events"]
        assert [e["type"] for e in log].count("match_scored") == 1
        assert scored["result"] == log[-1]["data"]
        final_state = replay.replay([Recorded.from_dict(e) for e in log])
        assert scored["result"]["scores"] == GAME.scores(final_state.game)["scores"]
        assert scored["result"]["final"] is True

    # the worker trims the feed it follows once every notice is done; the logs are never trimmed
    store = EventStore(real_redis, Keys(settings.namespace))
    assert sum(real_redis.xlen(store.keys.feed(p)) for p in store.partitions) == 0
    assert store.version(match_id) == len(log)


def test_replay_at_every_version_equals_the_state_reached_live(real_client, real_redis, settings):
    match_id, tokens = create(real_client)
    live = {1: real_client.get(f"/v1/matches/{match_id}/state").json["state"]}

    def remember(answer):
        live[answer["version"]] = real_client.get(f"/v1/matches/{match_id}/state").json["state"]

    play_random_game(real_client, match_id, tokens, random.Random(7), on_action=remember)
    log = [
        Recorded.from_dict(e)
        for e in real_client.get(f"/v1/matches/{match_id}/events?limit=1000").json["events"]
    ]

    # a fresh app has nothing cached: every read goes through the snapshots and the log
    fresh = create_app(settings, connect_like(real_redis)).test_client()
    seed, salt = log[-1].data["seed"], log[-1].data["salt"]
    for version in range(1, len(log) + 1):
        served = fresh.get(f"/v1/matches/{match_id}/state?version={version}").json
        assert served["version"] == version
        folded = replay.replay(log[:version], seed, salt)
        assert served["state"] == GAME.view(folded.game, None)
        if version in live:
            assert served["state"] == live[version]
    snapshots = real_redis.hkeys(Keys(settings.namespace).snapshots(match_id))
    assert sorted(int(v) for v in snapshots) == list(range(16, len(log) + 1, 16))


def connect_like(redis_client):
    """Another client of the same Redis: another API process, as far as caches go."""
    if isinstance(redis_client, RedisCluster):
        node = redis_client.get_default_node()
        return connect(f"redis+cluster://{node.host}:{node.port}")
    kwargs = redis_client.connection_pool.connection_kwargs
    if "path" in kwargs:
        return connect(f"unix://{kwargs['path']}?db={kwargs.get('db', 0)}")
    return connect(f"redis://{kwargs['host']}:{kwargs['port']}/{kwargs.get('db', 0)}")


def test_racing_clients_on_one_version_exactly_one_wins(real_client, real_redis, settings):
    match_id, tokens = create(real_client)
    legal = real_client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json[
        "actions"
    ]
    # each racer is its own app instance (its own cache), as separate API processes would be
    racers = [create_app(settings, connect_like(real_redis)).test_client() for _ in range(12)]
    start = threading.Barrier(len(racers))
    answers: list[Any] = [None] * len(racers)

    def race(i):
        start.wait()
        answers[i] = act(racers[i], match_id, tokens[0], 1, legal[i])

    threads = [threading.Thread(target=race, args=(i,)) for i in range(len(racers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [201] + [409] * (len(racers) - 1)
    assert all(a.json["current_version"] == 2 for a in answers if a.status_code == 409)
    log = real_client.get(f"/v1/matches/{match_id}/events").json["events"]
    assert [e["version"] for e in log] == [1, 2]
    winner = next(a for a in answers if a.status_code == 201)
    assert log[1]["data"] == winner.json["events"][0]["data"]


def test_idempotent_retries_race_to_one_append(real_client, real_redis, settings):
    match_id, tokens = create(real_client)
    racers = [create_app(settings, connect_like(real_redis)).test_client() for _ in range(6)]
    start = threading.Barrier(len(racers))
    answers = []

    def retry(client):
        start.wait()
        answers.append(
            act(
                client,
                match_id,
                tokens[0],
                1,
                {"type": "place", "cells": [[0, 0]]},
                **{"Idempotency-Key": "same"},
            )
        )

    threads = [threading.Thread(target=retry, args=(c,)) for c in racers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [a.status_code for a in answers] == [201] * len(racers)
    assert all(a.json == answers[0].json for a in answers)
    assert real_client.get(f"/v1/matches/{match_id}").json["version"] == 2
