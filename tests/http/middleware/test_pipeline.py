"""The request pipeline (``service.http.middleware.pipeline``): one ordered list of steps that every request
passes through, whatever answers it, so that a step added to it cannot be skipped by a faster path."""

from __future__ import annotations

import logging

import pytest
import redis
from werkzeug.routing import MapAdapter

from service.application.matches import Matches
from service.http.app import create_app
from service.http.errors import ApiError
from service.http.middleware.pipeline import ROUTE_KEPT_LENGTH, Step
from service.http.middleware.request_hooks import RequestIdFilter
from tests.helpers import act, bearer, create


def read_only(x):
    """A switch an operator might add: every POST refused while the store is being moved."""
    if x.method == "POST":
        raise ApiError(503, "storage_unavailable", "read-only for maintenance")


@pytest.fixture
def switched(app, client):
    """The app with the read-only switch in its pipeline, right after CORS (a preflight still passes)."""
    match_id, tokens = create(client)
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json
    steps = app.extensions["matchlog-pipeline"].steps
    at = [step.name for step in steps].index("CORS preflight") + 1
    steps.insert(at, Step("read-only", read_only, None))
    yield match_id, tokens, legal["actions"][0]
    steps.pop(at)


def test_a_step_in_the_list_refuses_the_action_post(client, switched):
    match_id, tokens, action = switched
    answer = act(client, match_id, tokens[0], 1, action)  # a plain POST: the hot path's
    assert answer.status_code == 503 and answer.json["error"] == "storage_unavailable"
    assert answer.headers["Retry-After"] == "1" and answer.headers["X-Request-Id"]
    assert client.get(f"/v1/matches/{match_id}").json["version"] == 1  # nothing appended
    assert client.post("/v1/matches", json={"game": "blokus", "players": [{}, {}]}).status_code == 503
    assert client.get(f"/v1/matches/{match_id}").status_code == 200  # reads go on


def test_a_step_in_the_list_sees_the_moves_sockets_opening(app, client):
    match_id, tokens = create(client)
    seen = []
    pipeline = app.extensions["matchlog-pipeline"]
    pipeline.steps.append(Step("watch", lambda x: seen.append(x.endpoint), None))
    try:
        client.get(
            f"/v1/matches/{match_id}/moves",
            headers={"Upgrade": "websocket", "Connection": "Upgrade", **bearer(tokens[0])},
        )
    finally:
        pipeline.steps.pop()
    assert seen == ["__flask_sock.moves"]


def test_a_hook_added_the_flask_way_is_not_skipped_either(app, client):
    """The action route's handler is its Flask view too: with a Flask hook on the app, Flask answers it."""
    refusing = []

    @app.before_request
    def refuse_posts():
        from flask import request

        if refusing and request.method == "POST":
            raise ApiError(503, "storage_unavailable", "read-only for maintenance")

    match_id, tokens = create(client)
    action = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json["actions"][0]
    refusing.append(True)
    assert act(client, match_id, tokens[0], 1, action).status_code == 503
    refusing.clear()
    answer = act(client, match_id, tokens[0], 1, action)
    assert answer.status_code == 201 and answer.headers["Location"].startswith(
        f"/v1/matches/{match_id}/events"
    )


def test_the_action_post_answers_the_same_through_flask_and_straight(app, client):
    """The one handler, called by the pipeline or as the Flask view: the same status, headers and body."""
    answers = []
    for through_flask in (False, True):
        match_id, tokens = create(client)
        if through_flask:
            app.before_request_funcs[None].append(lambda: None)
        try:
            legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json
            got = act(client, match_id, tokens[0], 1, legal["actions"][0])
            refused = act(client, match_id, tokens[0], 1, legal["actions"][0])
            bad = client.post(
                f"/v1/matches/{match_id}/actions", json={"action": {}}, headers=bearer(tokens[0])
            )
        finally:
            if through_flask:
                app.before_request_funcs[None].pop()
        answers.append(
            [
                (a.status_code, sorted(k for k, _ in a.headers.items() if k != "X-Request-Id"), a.json)
                for a in (got, refused, bad)
            ]
        )
    straight, flask = answers
    for mine, theirs in zip(straight, flask, strict=True):
        assert mine[0] == theirs[0] and mine[1] == theirs[1]
    assert straight[1][2] == flask[1][2] and straight[2][2] == flask[2][2]


def test_with_the_default_rate_limits_the_action_post_is_answered_straight(settings, fake_redis):
    """The hot path runs as a server runs: the default limits on, the POST answered without Flask."""
    import dataclasses

    from service.config import Settings

    defaults = Settings.from_env({"MATCHLOG_SECRET_KEY": settings.secret_key})
    app = create_app(
        dataclasses.replace(
            settings,
            rate_limit_per_token=defaults.rate_limit_per_token,
            rate_limit_per_address=defaults.rate_limit_per_address,
            rate_limit_reads_per_address=defaults.rate_limit_reads_per_address,
        ),
        fake_redis,
    )
    client = app.test_client()
    match_id, tokens = create(client)
    action = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json["actions"][0]
    pipeline = app.extensions["matchlog-pipeline"]
    flask_wsgi = pipeline.flask_wsgi
    pipeline.flask_wsgi = lambda environ, start_response: pytest.fail("answered through Flask")
    try:
        answer = act(client, match_id, tokens[0], 1, action)
    finally:
        pipeline.flask_wsgi = flask_wsgi
    assert answer.status_code == 201 and answer.headers["X-RateLimit-Limit"] == "500"
    assert "Retry-After" not in answer.headers


def _first_move(client, match_id: str, token: str) -> dict:
    listing = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(token)).json
    return {"expected_version": listing["version"], "action": listing["actions"][0]}


@pytest.mark.parametrize(
    ("failure", "status", "error"),
    [
        (redis.exceptions.ConnectionError("gone"), 503, "storage_unavailable"),
        (redis.exceptions.OutOfMemoryError("full"), 503, "storage_full"),
        (RuntimeError("a bug"), 500, "internal_error"),
    ],
)
def test_a_failed_submission_is_answered_in_the_error_shape(
    client, monkeypatch, caplog, failure, status, error
):
    """Answered straight, a failure is what Flask's error handlers would say, and logged under the request's id
    (even with another request's context left pushed, as a test's may be)."""
    match_id, tokens = create(client)
    move = _first_move(client, match_id, tokens[0])

    def failing(*args, **kwargs):
        raise failure

    monkeypatch.setattr(Matches, "submit", failing)
    caplog.handler.addFilter(RequestIdFilter())
    with caplog.at_level(logging.WARNING), client.application.test_request_context():
        answer = client.post(
            f"/v1/matches/{match_id}/actions",
            json=move,
            headers={**bearer(tokens[0]), "X-Request-Id": "trace-7"},
        )
    assert (answer.status_code, answer.json["error"]) == (status, error)
    assert ("Retry-After" in answer.headers) == (status == 503)
    assert caplog.records and all(r.request_id == "trace-7" for r in caplog.records if r.name == "matchlog")


def test_the_action_post_s_one_handler_answers_every_kind_of_request(client):
    """What the express lane left to Flask, the one handler answers itself, as Flask did."""
    match_id, tokens = create(client)
    move = _first_move(client, match_id, tokens[0])
    path = f"/v1/matches/{match_id}/actions"
    seat = bearer(tokens[0])
    answers = [
        client.post(path, json=move, headers={**seat, "Accept": "text/html"}),
        client.post(path, data=b'{"expected_version": 1}', headers=seat, content_type="application/json"),
        client.post(path, data=b'{"expected_version": 1', headers=seat, content_type="application/json"),
        client.post(path, json=move, headers={**seat, "Idempotency-Key": "x" * 129}),
        client.post(path, json=move),
        client.post(path, json=move, headers=bearer("not-a-seat")),
        client.post(path, json=move, headers=bearer("mlk_" + "0" * 40)),
        client.post(f"/v1/matches/{'0' * 32}/actions", json=move, headers=seat),
        client.post(path, data=b"x", headers=seat, content_type="text/plain"),
    ]
    said = [(a.status_code, a.json["error"]) for a in answers]
    assert said == [
        (406, "not_acceptable"),
        (400, "invalid_request"),
        (400, "invalid_request"),
        (400, "invalid_request"),
        (401, "missing_token"),
        (403, "wrong_token"),
        (401, "unknown_platform_key"),
        (404, "match_not_found"),
        (415, "unsupported_media_type"),
    ]
    assert answers[1].json["fields"] == {"action": ["Missing data for required field."]}
    assert answers[3].json["fields"] == {"Idempotency-Key": ["Length must be between 1 and 128."]}
    played = client.post(
        path + "?x=1",
        json=move,
        headers={**seat, "Origin": "https://example.org", "Content-Type": "application/json; charset=utf-8"},
    )
    assert played.status_code == 201 and played.headers["Access-Control-Allow-Origin"] == "*"


def test_flask_s_own_checks_and_settings_apply_to_the_straight_handler_too(settings, fake_redis):
    """Host checks send the route through Flask; indented answers and the body limit hold either way."""
    for changed, status in (
        (lambda a: a.config.update(TRUSTED_HOSTS=["example.org"]), 400),
        (lambda a: setattr(a.json, "compact", False), 201),
        (lambda a: a.config.update(MAX_CONTENT_LENGTH=10), 413),
    ):
        app = create_app(settings, fake_redis)
        client = app.test_client()
        match_id, tokens = create(client)
        move = _first_move(client, match_id, tokens[0])
        changed(app)
        answer = client.post(f"/v1/matches/{match_id}/actions", json=move, headers=bearer(tokens[0]))
        assert answer.status_code == status, answer.data
        if status == 201:
            assert answer.data.startswith(b"{\n")  # indented, as Flask indents


def test_a_url_s_route_is_found_once_and_a_url_without_one_every_time(app, client, monkeypatch):
    """werkzeug's matcher is asked once for a URL the pipeline has routed (a match's next action goes where the
    first went); a URL no route knows is asked about again, and still answered 404."""
    match_id, tokens = create(client)
    asked = []
    match = MapAdapter.match
    monkeypatch.setattr(
        MapAdapter,
        "match",
        lambda adapter, *args, **kwargs: asked.append(args[:1]) or match(adapter, *args, **kwargs),
    )
    for seat in (0, 1):
        action = _first_move(client, match_id, tokens[seat])
        answer = client.post(f"/v1/matches/{match_id}/actions", json=action, headers=bearer(tokens[seat]))
        assert answer.status_code == 201
    assert asked.count((f"/v1/matches/{match_id}/actions",)) == 1
    assert [client.get("/v1/nowhere").status_code for _ in range(2)] == [404, 404]
    assert asked.count(("/v1/nowhere",)) == 2  # the pipeline's (Flask matches from the environ)
    long = f"/v1/matches/{'x' * ROUTE_KEPT_LENGTH}"  # a made-up id: routed, and not kept (its length)
    assert [client.get(long).status_code for _ in range(2)] == [404, 404]
    assert asked.count((long,)) == 2  # the pipeline asked each time


def test_the_legal_actions_get_is_answered_straight_and_the_same_as_through_flask(app, client):
    """The legal-actions route's one handler, called by the pipeline (Flask never asked) or as the Flask view:
    the same status, headers and bytes, for a list, its texts, a seat asked, and each refusal."""
    match_id, tokens = create(client)
    path = f"/v1/matches/{match_id}/legal-actions"
    asks = [
        (path, bearer(tokens[0])),
        (path + "?text=true", {**bearer(tokens[0]), "Accept-Language": "ko"}),
        (path + "?seat=0", bearer(tokens[0])),
        (path + "?seat=1", bearer(tokens[0])),
        (path + "?text=maybe", bearer(tokens[0])),
        (path, bearer(tokens[1])),  # not its turn: an empty list
        (path, {}),
        (path, bearer("not-a-seat")),
        (path, {"Authorization": "Basic x"}),
        (path, {**bearer(tokens[0]), "Accept": "text/html"}),
        (f"/v1/matches/{'0' * 32}/legal-actions", bearer(tokens[0])),
    ]
    pipeline = app.extensions["matchlog-pipeline"]
    flask_wsgi = pipeline.flask_wsgi
    pipeline.flask_wsgi = lambda environ, start_response: pytest.fail("answered through Flask")
    try:
        straight = [client.get(url, headers=headers) for url, headers in asks]
    finally:
        pipeline.flask_wsgi = flask_wsgi
    app.before_request_funcs[None].append(
        lambda: None
    )  # a Flask hook: Flask answers, through the same handler
    try:
        flask = [client.get(url, headers=headers) for url, headers in asks]
    finally:
        app.before_request_funcs[None].pop()
    assert [a.status_code for a in straight] == [200, 200, 200, 403, 400, 200, 401, 403, 401, 406, 404]
    for mine, theirs in zip(straight, flask, strict=True):
        assert mine.status_code == theirs.status_code and mine.get_data() == theirs.get_data()
        assert [h for h in mine.headers if h[0] != "X-Request-Id"] == [
            h for h in theirs.headers if h[0] != "X-Request-Id"
        ]
    assert straight[1].json["texts"] and straight[1].headers["Content-Language"] == "ko"
