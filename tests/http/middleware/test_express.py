"""The express lane (``service.http.middleware.express``): what it answers (the plain POST of an action, whatever the
submission then meets) and what it hands to Flask untouched. Its answers are compared with Flask's byte for
byte on twin matches of every game in ``tests/http/test_routes_lean.py``; here, the answers no game gives: a store
that is down, an unexpected failure, and the requests that are not plain."""

from __future__ import annotations

import io
import logging

import pytest
import redis
from flask import g
from werkzeug.test import EnvironBuilder

from service.application.matches import Matches
from service.http.app import create_app
from service.http.middleware.request_hooks import RequestIdFilter
from tests.helpers import bearer, create


@pytest.fixture
def lane(app):
    """The lane's own answers, by status: 0 for each request it handed to Flask."""
    served, said = app.express, []

    def watched(environ, start_response):
        def started(status, headers):
            said.append(int(status.split()[0]))
            return start_response(status, headers)

        answer = served(environ, started)
        if answer is None:
            said.append(0)
        return answer

    app.express = watched
    yield said
    app.express = served


def _first_move(client, match_id, token):
    listing = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(token)).json
    return {"expected_version": listing["version"], "action": listing["actions"][0]}


def _both(app, client, path, **request):
    """The request through the lane, then through Flask alone: both answers, as a client sees them."""
    answers = []
    for express in (app.express, None):
        served, app.express = app.express, express
        try:
            response = client.post(path, **request)
        finally:
            app.express = served
        answers.append((response.status_code, list(response.headers.items()), response.get_data()))
    return answers


@pytest.mark.parametrize(
    ("failure", "status", "error"),
    [
        (redis.exceptions.ConnectionError("gone"), 503, "storage_unavailable"),
        (redis.exceptions.OutOfMemoryError("full"), 503, "storage_full"),
        (RuntimeError("a bug"), 500, "internal_error"),
    ],
)
def test_a_failed_submission_is_answered_as_flask_answers_it(
    app, client, lane, monkeypatch, failure, status, error
):
    match_id, tokens = create(client)
    move = _first_move(client, match_id, tokens[0])

    def failing(*args, **kwargs):
        raise failure

    monkeypatch.setattr(Matches, "submit", failing)
    headers = {**bearer(tokens[0]), "X-Request-Id": "same-id"}
    lane.clear()
    through_lane, through_flask = _both(
        app, client, f"/v1/matches/{match_id}/actions", json=move, headers=headers
    )
    assert lane == [status]  # the lane answered the first, and only the first
    assert through_lane == through_flask
    assert through_lane[0] == status and f'"error":"{error}"'.encode() in through_lane[2]
    assert (("Retry-After", "1") in through_lane[1]) == (status == 503)


def test_the_lane_s_log_lines_carry_the_request_id(app, client, lane, monkeypatch, caplog):
    """A failure logged while the lane answers names the request, as one logged inside Flask does."""
    match_id, tokens = create(client)
    move = _first_move(client, match_id, tokens[0])

    def failing(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(Matches, "submit", failing)
    caplog.handler.addFilter(RequestIdFilter())
    lane.clear()
    with caplog.at_level(logging.ERROR), app.test_request_context(headers={"X-Request-Id": "another"}):
        g.request_id = "another"  # a request context left pushed (a test's, say) is not the lane's request
        answer = client.post(
            f"/v1/matches/{match_id}/actions",
            json=move,
            headers={**bearer(tokens[0]), "X-Request-Id": "trace-7"},
        )
    assert answer.status_code == 500 and lane == [500]
    logged = [r for r in caplog.records if r.getMessage() == "unhandled error"]
    assert logged and all(r.request_id == "trace-7" for r in logged)


def test_what_is_not_plain_goes_to_flask_untouched(app, client, lane):
    match_id, tokens = create(client)
    move = _first_move(client, match_id, tokens[0])
    path = f"/v1/matches/{match_id}/actions"
    seat = bearer(tokens[0])
    not_plain = [
        {"json": move, "headers": {**seat, "Origin": "https://example.org"}},  # CORS: Flask's headers
        {"json": move, "headers": {**seat, "Accept": "text/html"}},  # 406
        {"json": move, "headers": seat, "query_string": "x=1"},
        {"data": b'{"expected_version": 1}', "headers": seat, "content_type": "application/json"},  # 400
        {"json": move, "headers": {**seat, "Idempotency-Key": "x" * 129}},  # 400
        {"json": move, "headers": {**seat, "Content-Type": "application/json; charset=utf-8"}},
        {"json": move},  # 401
        {"json": move, "headers": bearer("not-a-seat")},  # 403
        {"json": move, "headers": bearer("mlk_" + "0" * 40)},  # a platform key: 401
    ]
    for request in not_plain:
        lane.clear()
        client.post(path, **request)
        assert lane == [0], request
    to_act = client.get(f"/v1/matches/{match_id}").json["to_act"][0]  # some of those were played
    seat = bearer(tokens[to_act])
    move = _first_move(client, match_id, tokens[to_act])
    lane.clear()
    answered = client.post(path, json=move, headers={**seat, "Origin": "https://example.org"})
    assert lane == [0] and answered.status_code == 201
    assert answered.headers["Access-Control-Allow-Origin"] == "*"  # Flask answered it, CORS and all
    missing = client.post(f"/v1/matches/{'0' * 32}/actions", json=move, headers=seat)
    assert lane == [0, 0] and missing.status_code == 404


def test_the_lane_stands_aside_where_answers_carry_more_than_it_makes(settings, fake_redis):
    """Checked at each request: a limiter's headers, indented answers, host checks are Flask's to make."""
    limited = create_app(
        settings.__class__(**{**settings.__dict__, "rate_limit_per_token": "50/second"}), fake_redis
    )
    app = create_app(settings, fake_redis)
    client = app.test_client()
    match_id, tokens = create(client)
    move = _first_move(client, match_id, tokens[0])
    environ = EnvironBuilder(
        path=f"/v1/matches/{match_id}/actions", method="POST", json=move, headers=bearer(tokens[0])
    ).get_environ()
    for changed in (
        lambda a: a.config.update(TRUSTED_HOSTS=["example.org"]),
        lambda a: a.config.update(SERVER_NAME="example.org"),
        lambda a: setattr(a.json, "compact", False),
        lambda a: a.config.update(MAX_CONTENT_LENGTH=10),
    ):
        fresh = create_app(settings, fake_redis)
        changed(fresh)
        assert fresh.express(dict(environ), lambda *_: None) is None
    assert limited.express(dict(environ), lambda *_: None) is None
    chunked = dict(environ, HTTP_TRANSFER_ENCODING="chunked")
    assert app.express(chunked, lambda *_: None) is None  # werkzeug would read past the stated length
    said = []
    assert app.express(dict(environ), lambda status, headers: said.append(status)) is not None
    assert said == ["201 CREATED"]


def test_a_body_that_fails_to_be_read_fails_as_flask_reads_it(app, client):
    match_id, tokens = create(client)
    environ = EnvironBuilder(
        path=f"/v1/matches/{match_id}/actions",
        method="POST",
        data=b"{}",
        content_type="application/json",
        headers=bearer(tokens[0]),
    ).get_environ()

    class Gone(io.RawIOBase):
        def readable(self):
            return True

        def readinto(self, buffer):
            raise ConnectionResetError("the client is gone")

    environ["wsgi.input"] = io.BufferedReader(Gone())
    assert app.express(environ, lambda *_: None) is None
    with pytest.raises(ConnectionResetError):
        environ["wsgi.input"].read(2)
