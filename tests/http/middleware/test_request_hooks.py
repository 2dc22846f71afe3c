"""The manners of a public HTTP API (``service.http.middleware.request_hooks``): request ids, CORS for browsers,
``Location`` on every 201, structured access logs that never hold a token, and the health probes."""

from __future__ import annotations

import io
import json
import logging
import time
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.http.middleware import pipeline, request_hooks
from service.http.middleware.request_hooks import JsonLines, RequestIdFilter
from service.store.keys import Keys
from tests.helpers import act, bearer, beating_worker, create


def test_a_request_id_is_echoed_or_made(client):
    given = client.get("/v1/games", headers={"X-Request-Id": "trace-42.a"})
    assert given.headers["X-Request-Id"] == "trace-42.a"
    made = client.get("/v1/games")
    assert len(made.headers["X-Request-Id"]) == 32
    unsafe = client.get("/v1/games", headers={"X-Request-Id": "a b\u00e9" * 3})
    assert unsafe.headers["X-Request-Id"] != "a b\u00e9" * 3 and len(unsafe.headers["X-Request-Id"]) == 32
    made_ids = {client.get("/v1/games").headers["X-Request-Id"] for _ in range(50)}
    assert len(made_ids) == 50 and all(len(i) == 32 and int(i, 16) >= 0 for i in made_ids)


@given(st.floats(min_value=-1e10, max_value=4.2e9, allow_nan=False))
def test_a_log_line_s_time_is_the_text_datetime_makes_of_it(created):
    assert request_hooks.log_time(created) == datetime.fromtimestamp(created, UTC).isoformat(
        timespec="milliseconds"
    )


@given(st.integers(min_value=0, max_value=4_102_444_800), st.integers(min_value=0, max_value=999_999))
def test_a_log_line_s_time_rounds_as_datetime_does_near_each_millisecond(seconds, microseconds):
    for created in (seconds + microseconds / 1e6, seconds + (microseconds + 0.5) / 1e6):
        assert request_hooks.log_time(created) == datetime.fromtimestamp(created, UTC).isoformat(
            timespec="milliseconds"
        )


def test_browsers_may_call_the_api_from_any_origin_by_default(client):
    preflight = client.options(
        "/v1/matches",
        headers={
            "Origin": "https://play.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )
    assert preflight.status_code == 204
    assert preflight.headers["Access-Control-Allow-Origin"] == "*"
    assert "Authorization" in preflight.headers["Access-Control-Allow-Headers"]
    assert {"GET", "POST", "DELETE"} <= set(preflight.headers["Access-Control-Allow-Methods"].split(", "))
    read = client.get("/v1/games", headers={"Origin": "https://play.example"})
    assert read.headers["Access-Control-Allow-Origin"] == "*"
    assert "X-Request-Id" in read.headers["Access-Control-Expose-Headers"]
    assert "Access-Control-Allow-Origin" not in client.get("/v1/games").headers  # not a browser: no CORS


def test_only_configured_origins_when_the_config_names_them(settings, fake_redis):
    import dataclasses

    from service.http.app import create_app

    app = create_app(dataclasses.replace(settings, cors_origins=("https://play.example",)), fake_redis)
    client = app.test_client()
    allowed = client.get("/v1/games", headers={"Origin": "https://play.example"})
    assert allowed.headers["Access-Control-Allow-Origin"] == "https://play.example"
    assert "Origin" in allowed.headers["Vary"]
    assert (
        "Access-Control-Allow-Origin"
        not in client.get("/v1/games", headers={"Origin": "https://evil.example"}).headers
    )


def test_every_201_says_where_its_resource_is(client):
    created = client.post("/v1/matches", json={"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]})
    match_id = created.json["id"]
    assert created.status_code == 201 and created.headers["Location"] == f"/v1/matches/{match_id}"
    token = created.json["seats"][0]["token"]
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(token)).json
    answer = act(client, match_id, token, 1, legal["actions"][0])
    assert (
        answer.status_code == 201 and answer.headers["Location"] == f"/v1/matches/{match_id}/events?after=1"
    )
    assert client.get(answer.headers["Location"]).json["events"][0]["version"] == 2


def test_access_log_lines_are_json_with_the_route_and_never_a_token(client, caplog):
    match_id, tokens = create(client)
    with caplog.at_level(logging.INFO, logger="matchlog.access"):
        client.get(f"/v1/matches/{match_id}/state", headers={**bearer(tokens[0]), "X-Request-Id": "r-1"})
    record = next(
        r
        for r in caplog.records
        if r.name == "matchlog.access" and (r.access["route"] or "").endswith("/state")
    )
    RequestIdFilter().filter(record)
    line = json.loads(JsonLines().format(record))
    assert line["route"] == "/v1/matches/<match_id>/state" and line["status"] == 200
    assert line["match_id"] == match_id and line["method"] == "GET" and line["latency_ms"] >= 0
    assert tokens[0] not in json.dumps(line)


def test_healthz_answers_while_the_process_lives(client):
    assert client.get("/healthz").json == {"status": "ok"}


def test_readyz_wants_redis_and_a_fresh_worker(client, fake_redis, settings):
    not_ready = client.get("/readyz")
    assert (
        not_ready.status_code == 503
        and not_ready.json["error"] == "not_ready"
        and not_ready.json["workers"] == 0
    )
    worker = beating_worker(fake_redis, settings)
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json == {"status": "ok", "redis": True, "workers": 1}
    # a worker killed outright beats no more: it drops out once its partition lease would have run out
    seconds, micros = fake_redis.time()
    lapsed = seconds * 1000 + micros // 1000 - settings.partition_lease_ms - 1
    fake_redis.zadd(Keys(settings.namespace).feed_members, {worker.name: lapsed})
    assert client.get("/readyz").json["workers"] == 0


@pytest.fixture
def configured():
    """``configure_logging`` as ``matchlog serve`` calls it, onto a text buffer, and a test that puts it back
    alone (pytest's own handlers join the root's for the test's call); the test's logging after."""
    root = logging.getLogger()
    before = (root.handlers[:], root.level, request_hooks._configured)
    request_hooks.configure_logging()
    handler = request_hooks._configured
    assert handler is not None
    handler.setStream(io.StringIO())

    def alone() -> logging.StreamHandler:
        root.handlers[:] = [handler]
        return handler

    try:
        yield alone
    finally:
        root.handlers[:], root.level, request_hooks._configured = before[0], before[1], before[2]


ACCESSES = [
    {
        "method": "GET",
        "route": "/v1/matches/<match_id>/state",
        "status": 200,
        "latency_ms": 1.25,
        "match_id": "m1",
    },
    {"method": "POST", "route": None, "status": 404, "latency_ms": 0.0, "match_id": None},
    {
        "method": "GET",
        "route": "/v1/matches/<match_id>",
        "status": 404,
        "latency_ms": 12345.67,
        "match_id": '"é\u2028\\',
    },
]


def test_an_access_line_written_straight_is_the_line_its_record_makes(app, configured, monkeypatch):
    """The straight path (no record) and the record path write the same line, at the same clock."""
    configured = configured()
    monkeypatch.setattr(time, "time", lambda: 1767225600.123456)
    for request_id in ("r-1", None):
        for fields in ACCESSES:
            lines = []
            for straight in (True, False):
                with app.test_request_context() as context:
                    if request_id:
                        context.request.environ[pipeline.EXCHANGE] = SimpleNamespace(request_id=request_id)
                    if not straight:
                        configured.addFilter(lambda record: True)  # any filter takes the record path
                    assert (request_hooks._straight_out() is configured) == straight
                    request_hooks._log_access(fields)
                    configured.filters = configured.filters[:1]
                out = configured.stream.getvalue()
                configured.stream.seek(0)
                configured.stream.truncate()
                lines.append(out)
            assert lines[0] == lines[1] and lines[0].count("\n") == 1, lines
            assert json.loads(lines[0])["request_id"] == request_id


def test_each_request_writes_its_access_line_at_once(client, configured):
    configured = configured()
    client.get("/v1/games", headers={"X-Request-Id": "straight-1"})
    line = json.loads(configured.stream.getvalue())  # one line, already out
    assert line["request_id"] == "straight-1" and line["route"] == "/v1/games" and line["status"] == 200


def test_anything_else_on_the_way_takes_the_record_path(configured):
    configured = configured()
    assert request_hooks._straight_out() is configured
    other = logging.NullHandler()
    for logger in (request_hooks.ACCESS, logging.getLogger()):  # a handler a test or an operator adds
        logger.addHandler(other)
        assert request_hooks._straight_out() is None
        logger.removeHandler(other)
    assert request_hooks._straight_out() is configured
    request_hooks.ACCESS.setLevel(logging.WARNING)
    try:
        assert request_hooks._straight_out() is None
    finally:
        request_hooks.ACCESS.setLevel(logging.NOTSET)
    request_hooks.ACCESS.propagate = False
    try:
        assert request_hooks._straight_out() is None
    finally:
        request_hooks.ACCESS.propagate = True
