"""The append's own connections (``service.store.redis_client.Lines``) against redis-py's path, on a real
Redis: random games of all four games appended through both give the same log, byte for byte (entries,
hashes, times), the same feed notices and the same idempotency records, and read back the same; the
script's NOSCRIPT fallback, the retry after a broken connection, error replies and a full set of lines
behave as redis-py's path does. And the append's packed times (``_packed_time``) are the checked ones
(``_packed_time_checked``)."""

from __future__ import annotations

import random
import socket
from datetime import UTC, datetime, timedelta

import pytest
import redis

from service.domain import lifecycle
from service.games import GAMES
from service.store.events import EventStore, Remember, VersionConflict, _packed_time, _packed_time_checked
from service.store.keys import Keys
from service.store.redis_client import Lines, _Line
from tests.engines import begun


def _steps(game, seed: int, limit: int = 120):
    """The steps of a random game: (base version, base head hash, entries) of each."""
    rng = random.Random(seed)
    step, secret = begun(game, f"lines-{seed}")
    steps = [(0, None, [e.without_content() for e in step.entries])]
    state = step.state
    for _ in range(limit):
        if state.finished:
            break
        seat = game.to_act(state.game)[0]
        at = (datetime(2026, 1, 1, tzinfo=UTC) + timedelta(milliseconds=rng.randrange(10**9))).isoformat(
            timespec="milliseconds"
        )
        step = lifecycle.act(
            state, seat, rng.choice(game.legal_actions(state.game, seat)), secret, at.replace("+00:00", "Z")
        )
        steps.append((state.version, state.head_hash, list(step.entries)))
        state = step.state
    return steps


def _stored(client, keys: Keys, match_id: str):
    """What Redis holds of a match: its log's raw entries and its feed notices (their ids aside)."""
    log = client.xrange(keys.log(match_id))
    feed = client.xrange(keys.feed(keys.partition(match_id)))
    return log, [fields for _, fields in feed if fields[b"match"] == match_id.encode()]


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_random_games_are_stored_the_same_through_the_lines_and_through_redis_py(
    game_id, real_redis, settings
):
    fast = EventStore(real_redis, Keys(settings.namespace + ":lines"))
    reference = EventStore(real_redis, Keys(settings.namespace + ":pool"))
    assert fast._lines is not None
    reference._lines = None  # redis-py's path, as with fakeredis or a cluster
    for store in (fast, reference):
        for i, (version, head, entries) in enumerate(_steps(GAMES[game_id], 5)):
            remember = Remember(f"{store.keys.namespace}:idem:{i}", f"answer {i}", 60) if i % 3 else None
            assert store.append("m", version, head, entries, remember) == (version + len(entries), None)
            if remember is not None:  # a retry gets the remembered answer, nothing appended
                assert store.append("m", version, head, entries, remember) == (-1, f"answer {i}")
        with pytest.raises(VersionConflict):
            store.append("m", 1, None, entries)
    assert _stored(real_redis, fast.keys, "m") == _stored(real_redis, reference.keys, "m")
    busy = EventStore(real_redis, fast.keys)
    busy._lines.size = 0  # every line in use: through the pool
    for after, until, limit in [(0, None, None), (3, 10, None), (3, None, 4), (2, 9, 50), (9, 9, None)]:
        expected = [e.as_dict() for e in reference.read("m", after, until, limit)]
        assert [e.as_dict() for e in fast.read("m", after, until, limit)] == expected
        assert [e.as_dict() for e in busy.read("m", after, until, limit)] == expected
    log = reference.read("m")
    for store in (fast, reference, busy):  # a head's catch-up: its entry compared, the ones after it decoded
        for head in log[::3]:
            for until in (None, head.version, head.version + 2):
                expected = [e.as_dict() for e in reference.read("m", head.version, until)]
                since = store.read_since("m", head.version, head.hash, until)
                assert since is not None and [e.as_dict() for e in since] == expected
            assert store.read_since("m", head.version, "ab" * 32) is None  # not the log it was folded from
        assert store.read_since("m", len(log) + 1, None) is None  # a head the log does not reach
    for i in range(1, 40):
        if i % 3:
            assert real_redis.get(f"{fast.keys.namespace}:idem:{i}") == real_redis.get(
                f"{reference.keys.namespace}:idem:{i}"
            )


def _first(store: EventStore) -> None:
    steps = _steps(GAMES["blokus"], 1, limit=3)
    for version, head, entries in steps:
        store.append("m", version, head, entries)


def test_a_script_the_server_lost_is_loaded_again(real_redis, settings):
    store = EventStore(real_redis, Keys(settings.namespace))
    store._append.sha = "0" * 40  # what a restarted server answers for every script: NOSCRIPT
    _first(store)
    assert store.version("m") == 4 and store._append.sha != "0" * 40


def test_a_broken_connection_is_replaced_and_the_command_sent_once_more(real_redis, settings):
    store = EventStore(real_redis, Keys(settings.namespace))
    steps = _steps(GAMES["blokus"], 1, limit=3)
    store.append("m", *steps[0])
    (line,) = store._lines._idle
    line.sock.shutdown(socket.SHUT_RDWR)  # as a Redis restart leaves it
    for version, head, entries in steps[1:]:
        store.append("m", version, head, entries)
    assert store.version("m") == 4
    assert len(store._lines._idle) == 1 and store._lines._idle[0] is not line
    assert store._lines._open == 1


def test_error_replies_raise_redis_pys_exceptions_and_keep_the_line(real_redis):
    lines = Lines(real_redis)
    with pytest.raises(redis.exceptions.ResponseError, match="unknown command"):
        lines.call("NO-SUCH-COMMAND")
    with pytest.raises(redis.exceptions.NoScriptError):
        lines.call("EVALSHA", "0" * 40, 0)
    assert lines.call("ECHO", "hi") == b"hi" and lines._open == 1


def test_more_callers_than_lines_go_through_the_pool_with_the_same_raw_replies(real_redis, settings):
    key = f"{settings.namespace}:stream"
    real_redis.xadd(key, {"a": "1", "b": "2"}, id="1-0")
    full, lines = Lines(real_redis, size=0), Lines(real_redis)
    for command in [("PING",), ("ECHO", "hi"), ("XRANGE", key, "-", "+"), ("XRANGE", key, "2-0", "+")]:
        assert full.call(*command) == lines.call(*command), command
    assert full.call("XRANGE", key, "-", "+") == [[b"1-0", [b"a", b"1", b"b", b"2"]]]
    with pytest.raises(redis.exceptions.ResponseError, match="unknown command"):
        full.call("NO-SUCH-COMMAND")
    assert full._open == 0 and full._idle == []


def test_a_line_keeps_its_connections_timeout_in_the_kernel_and_a_silent_server_times_out():
    """A plain socket's timeout is the kernel's (no poll before each send and recv): a server that never
    answers still ends the wait after the connection's ``socket_timeout``, as redis-py's TimeoutError."""
    with socket.create_server(("127.0.0.1", 0)) as silent:  # accepts (the kernel's backlog), never answers
        port = silent.getsockname()[1]
        client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=0.3, protocol=2)
        connection = client.connection_pool.connection_class(**client.connection_pool.connection_kwargs)
        connection.on_connect_check_health = lambda check_health=True: None  # no HELLO, no SETINFO
        connection.connect()
        line = _Line(connection)
        assert line.sock.gettimeout() is None  # blocking: straight to send and recv
        assert line.sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, 16) != bytes(16)
        with pytest.raises(redis.exceptions.TimeoutError):
            line.ask(b"*1\r\n$4\r\nPING\r\n")
        connection.disconnect()


def test_a_child_process_never_uses_its_parents_lines(real_redis):
    lines = Lines(real_redis)
    lines.call("PING")
    lines._forked()  # what os.register_at_fork runs in the child
    assert lines._idle == [] and lines._open == 0
    assert lines.call("ECHO", "hi") == b"hi"


def test_only_real_connections_of_one_redis_are_driven_directly(real_redis):
    import fakeredis

    assert Lines.possible(real_redis)
    assert not Lines.possible(fakeredis.FakeRedis())


def test_packed_times_are_the_checked_ones():
    rng = random.Random(7)
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    times = [
        (epoch + timedelta(milliseconds=rng.randrange(4102444800000)))
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
        for _ in range(20000)
    ]
    odd = [
        "2026-01-01T00:00:01Z",
        "2026-01-01T00:00:01.123456Z",
        "2026-01-01T00:00:01,123Z",
        "2026-02-31T00:00:01.123Z",
        "2026-01-01 00:00:01.123Z",
        "1969-12-31T23:59:59.999Z",
        "2100-01-01T00:00:00.000Z",
        "2026-01-01T00:00:01.123+00:00",
        "not a time",
        "",
    ]
    for at in times + odd:
        assert _packed_time(at) == _packed_time_checked(at), at
