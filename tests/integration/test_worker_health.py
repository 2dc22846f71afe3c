"""A rule worker that meets trouble says so: started with another secret than the deployment's it stops
at once, naming the misconfiguration (also when it finds out only at a sealed seed); a notice it cannot
read or whose work keeps failing is logged, counted, set aside after a few attempts, and the worker goes
on, its heartbeat (/readyz) with it."""

from __future__ import annotations

import dataclasses
import glob

import pytest
from prometheus_client import CollectorRegistry, multiprocess

from service.cli import check_server_key
from service.domain.serverkey import new_secret
from service.http.app import create_app
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.helpers import bearer, start_worker, wait_for


def _stopped(worker, timeout=30):
    code = worker.wait(timeout=timeout)
    return code, worker.stderr.read().decode()


def test_a_worker_with_another_secret_stops_naming_the_misconfiguration(real_redis, redis_url, settings):
    check_server_key(settings, redis_url)  # the API started first: its key's fingerprint is the deployment's
    code, errors = _stopped(start_worker(redis_url, settings, MATCHLOG_SECRET_KEY=new_secret()))
    assert code != 0
    assert "MATCHLOG_SECRET_KEY is not this deployment's" in errors and "server key fingerprint" in errors, (
        errors
    )


def test_an_api_with_another_secret_than_the_workers_does_not_start(real_redis, redis_url, settings):
    worker = start_worker(redis_url, settings)  # a worker started first records the deployment's key
    try:
        wait_for(lambda: real_redis.exists(Keys(settings.namespace).server_key), timeout=30)
        check_server_key(settings, redis_url)  # the same secret: nothing to say
        with pytest.raises(SystemExit) as exit_:
            check_server_key(dataclasses.replace(settings, secret_key=new_secret()), redis_url)
        assert str(exit_.value.code).startswith("matchlog api: MATCHLOG_SECRET_KEY is not this deployment's")
    finally:
        worker.terminate()
        worker.wait(timeout=30)


def test_a_sealed_seed_that_does_not_open_stops_the_worker(real_redis, redis_url, settings):
    """No fingerprint to compare with (a deployment from before it was recorded): the first sealed seed
    the worker cannot open stops it, with the same kind of message."""
    client = create_app(settings, real_redis).test_client()
    created = client.post(
        "/v1/matches", json={"game": "chock-a-block", "players": [{"name": "a"}, {"name": "b"}]}
    )
    assert created.status_code == 201
    real_redis.delete(Keys(settings.namespace).server_key)
    code, errors = _stopped(start_worker(redis_url, settings, MATCHLOG_SECRET_KEY=new_secret()))
    assert code != 0
    assert "does not open with this process's server secret (MATCHLOG_SECRET_KEY" in errors, errors


def test_bad_notices_are_set_aside_and_the_worker_goes_on(real_redis, redis_url, settings, tmp_path):
    client = create_app(settings, real_redis).test_client()
    _, key = Platforms(real_redis, Keys(settings.namespace)).create("arena")
    keys = Keys(settings.namespace, settings.feed_partitions)
    broken = client.post(
        "/v1/matches", json={"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}
    ).json["id"]
    ((_, first),) = real_redis.xrange(keys.log(broken))
    real_redis.xadd(keys.log(broken), {**first, b"type": b"seed_revealed", b"data": b"{not json"}, id="2-0")
    real_redis.xadd(
        keys.feed(keys.partition(broken)), {"match": broken, "version": 2, "types": "seed_revealed"}
    )
    real_redis.xadd(keys.feed(0), {"nonsense": "x"})  # no notice at all
    worker = start_worker(redis_url, settings, PROMETHEUS_MULTIPROC_DIR=str(tmp_path))
    try:
        match = client.post(
            "/v1/matches",
            json={"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]},
            headers=bearer(key),
        ).json
        client.post(f"/v1/matches/{match['id']}/abort", json={"reason": "test"}, headers=bearer(key))

        def scored():
            """the worker scored a match after the bad notices"""
            return client.get(f"/v1/matches/{match['id']}").json.get("result") is not None

        wait_for(scored, timeout=60)

        def both_aside():
            """both bad notices set aside"""
            return (
                len(
                    [
                        f
                        for p in range(settings.feed_partitions)
                        for _, f in real_redis.xrange(f"{keys.feed(p)}:aside")
                    ]
                )
                == 2
            )

        try:
            wait_for(both_aside, timeout=30)
        except AssertionError:
            worker.terminate()
            raise AssertionError(worker.stderr.read().decode()[-3000:]) from None
        ready = client.get("/readyz")
        assert ready.status_code == 200 and ready.json["workers"] >= 1, ready.json
        assert worker.poll() is None  # still running
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=str(tmp_path))
        counted = {
            s.labels["outcome"]: s.value
            for m in registry.collect()
            for s in m.samples
            if s.name == "matchlog_feed_failures_total"
        }
        assert counted.get("set_aside") == 2 and counted.get("retried") == 2, counted
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    errors = worker.stderr.read().decode()
    assert "unreadable notice" in errors and "failed, attempt 3" in errors and "set aside" in errors, errors
    assert glob.glob(str(tmp_path / "*.db"))
