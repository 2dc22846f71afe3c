"""While a Redis Cluster fails over, every request the store cannot take is ``503 storage_unavailable`` with
``Retry-After``, never ``500``: each error redis-py raises while the cluster is away or changing hands, raised
from the store under the real routes (an action answered straight by the pipeline and through Flask, a
create, a read). An error that says nothing of the store being away stays a logged ``500``."""

from __future__ import annotations

import pytest
import redis
from redis.exceptions import AskError, ClusterError, RedisClusterException, ResponseError

from service.domain.errors import NotReplicated
from service.store.events import EventStore
from service.store.keys import Keys
from service.store.repository import MatchRepository
from tests.helpers import bearer, create


def _while_handling(error: Exception, cause: Exception) -> Exception:
    """``error`` as raised inside an ``except`` of ``cause`` (its ``__context__`` set, as Python sets it)."""
    try:
        try:
            raise cause
        except type(cause):
            raise error  # noqa: B904 (its context is the point)
    except type(error) as raised:
        return raised


def _learning_the_layout(message: str) -> RedisClusterException:
    """What redis-py's cluster client raises when, after a connection to a master failed, it asks the cluster
    for its layout again and gets none it can use (``NodesManager.initialize`` inside its error handler)."""
    return _while_handling(
        RedisClusterException(message), redis.exceptions.ConnectionError("Connection closed by server.")
    )


OUTAGES = {
    "nodes_disagree": lambda: _learning_the_layout(
        "startup_nodes could not agree on a valid slots cache: 127.0.0.1:7001 vs 127.0.0.1:7004 on slot: 1"
    ),
    "no_node_reachable": lambda: _learning_the_layout(
        "Redis Cluster cannot be connected. Please provide at least one reachable node: Connection refused"
    ),
    "slots_not_covered": lambda: _learning_the_layout(
        "All slots are not covered after query all startup_nodes. 10923 of 16384 covered..."
    ),
    "redirected_too_often": lambda: ClusterError("TTL exhausted."),
    "slot_migrating": lambda: AskError("3999 127.0.0.1:7002"),
    "too_few_replicas": lambda: ResponseError("NOREPLICAS Not enough good replicas to write."),
    "in_a_pipeline": lambda: ResponseError(
        "Command # 1 (EVALSHA 4c1f 5 m:{p3}:log) of pipeline caused error: NOREPLICAS Not enough good replicas"
    ),
    "wait_cut_short": lambda: ResponseError(
        "Command # 2 (WAIT 1 1000) of pipeline caused error: UNBLOCKED force unblock from blocking operation, "
        "instance state changed (master -> replica?)"
    ),
    "in_a_script": lambda: ResponseError(
        "Error running script (call to f_4c1f): @user_script:40: @user_script: 40: "
        "-READONLY You can't write against a read only replica."
    ),
}

BUGS = {
    "bad_cluster_call": lambda: RedisClusterException("Invalid args in command: ('XLEN',)"),
    "bad_command": lambda: ResponseError("unknown command 'XLENN', with args beginning with: "),
}


def _failing(monkeypatch, target, name, make):
    def fail(*args, **kwargs):
        raise make()

    monkeypatch.setattr(target, name, fail)


def _answers_of_a_move(app, client, monkeypatch, make):
    """The answers to a move, straight from the pipeline and through Flask, the store's append raising."""
    match_id, tokens = create(client)
    listing = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json
    move = {"expected_version": listing["version"], "action": listing["actions"][0]}
    _failing(monkeypatch, EventStore, "append", make)
    answers = []
    for through_flask in (False, True):
        if through_flask:  # a hook registered the Flask way: the route's handler is called as its view
            app.before_request_funcs[None].append(lambda: None)
        try:
            answers.append(
                client.post(f"/v1/matches/{match_id}/actions", json=move, headers=bearer(tokens[0]))
            )
        finally:
            if through_flask:
                app.before_request_funcs[None].pop()
    return answers


@pytest.mark.parametrize("outage", sorted(OUTAGES))
def test_an_action_refused_by_a_store_failing_over_is_503_with_retry_after(app, client, monkeypatch, outage):
    for answer in _answers_of_a_move(app, client, monkeypatch, OUTAGES[outage]):
        assert (answer.status_code, answer.json["error"]) == (503, "storage_unavailable"), answer.json
        assert answer.headers["Retry-After"] == "1"


@pytest.mark.parametrize("outage", sorted(OUTAGES))
def test_a_create_and_a_read_during_a_failover_are_503_with_retry_after(app, client, monkeypatch, outage):
    match_id, _ = create(client)
    _failing(monkeypatch, EventStore, "append", OUTAGES[outage])
    _failing(monkeypatch, MatchRepository, "load", OUTAGES[outage])
    created = client.post("/v1/matches", json={"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]})
    read = client.get(f"/v1/matches/{match_id}")
    for answer in (created, read):
        assert (answer.status_code, answer.json["error"]) == (503, "storage_unavailable"), answer.json
        assert answer.headers["Retry-After"] == "1"


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_an_error_that_is_no_outage_stays_a_logged_500(app, client, monkeypatch, caplog, bug):
    for answer in _answers_of_a_move(app, client, monkeypatch, BUGS[bug]):
        assert (answer.status_code, answer.json["error"]) == (500, "internal_error")
        assert "Retry-After" not in answer.headers
    assert "unhandled error" in caplog.text


def test_a_failed_refresh_of_the_cluster_layout_leaves_the_connection_error_to_answer(fake_redis, settings):
    """With replicated durability an append that lost its master asks the cluster for its layout at once;
    that may fail too while the cluster elects a new master, and the append's own error is what answers."""

    class Node:
        def pipeline(self, transaction):
            raise redis.exceptions.ConnectionError("Connection closed by server.")

    class Layout:
        def initialize(self):
            raise RedisClusterException("startup_nodes could not agree on a valid slots cache")

    class Cluster:
        nodes_manager = Layout()

        def get_node_from_key(self, key):
            return "node"

        def get_redis_connection(self, node):
            return Node()

    store = EventStore(fake_redis, Keys(settings.namespace), durability="replicated")
    store.redis, store.cluster = Cluster(), True
    with pytest.raises(redis.exceptions.ConnectionError):
        store.durably("m:{p3}:log", lambda client: None)


def test_a_wait_cut_short_by_a_failover_is_not_replicated(fake_redis, settings, monkeypatch):
    """A master paused past the node timeout and resumed learns it is a replica now, and Redis 7 ends the
    ``WAIT`` it was blocked in with an ``UNBLOCKED`` error: the append is not acknowledged (it may be gone
    with the demoted node), and the client is told so, as when no replica confirms (found as a 500 by the
    fault harness, ``python -m tests.faults``)."""
    refreshed = []

    class Pipeline:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def execute_command(self, *args):
            pass

        def execute(self):
            raise ResponseError(OUTAGES["wait_cut_short"]().args[0])

    class Node:
        def pipeline(self, transaction):
            return Pipeline()

    class Cluster:
        def get_node_from_key(self, key):
            return "node"

        def get_redis_connection(self, node):
            return Node()

    store = EventStore(fake_redis, Keys(settings.namespace), durability="replicated")
    store.redis, store.cluster = Cluster(), True
    monkeypatch.setattr(store, "_refresh_slots", lambda: refreshed.append(True))
    with pytest.raises(NotReplicated):
        store.durably("m:{p3}:log", lambda client: None)
    assert refreshed, "the new master is looked up for the next request"
