"""The hot routes' lean views (``service.http.routes.lean``) and the express lane before Flask
(``service.http.middleware.express``) answer exactly as the documented views under them: twin matches (the
same seed, the same clock) of every game are played side by side, each request sent to one twin through the
faster way and to the other through the documented one (webargs, flask-smorest), and the answers compared byte
for byte, status, headers in their order and body, the twins' ids and hashes aside. Legal actions are posted
as listed, and bent: bodies that are not JSON or not the schema's, versions of the wrong kind,
Idempotency-Keys of every length (and again, replayed or reused), query strings, missing and wrong
credentials."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from contextlib import contextmanager
from types import SimpleNamespace

import pytest

from service.application import entry_time
from service.domain import lifecycle
from service.games import GAMES
from tests.helpers import create

HOT = ("v1.submit_action", "v1.get_legal_actions")
STEPS = 50  # actions per game; each comes with a handful of bent requests


@contextmanager
def documented(app):
    """The hot routes answered by their documented views, as before the lean ones and the express lane."""
    lean = {endpoint: app.view_functions[endpoint] for endpoint in HOT}
    express, app.express = app.express, None
    for endpoint, view in lean.items():
        app.view_functions[endpoint] = view.__wrapped__
    try:
        yield
    finally:
        app.view_functions.update(lean)
        app.express = express


@contextmanager
def without_express(app):
    """Every request answered by Flask: the lean views, not the express lane."""
    express, app.express = app.express, None
    try:
        yield
    finally:
        app.express = express


HASH = re.compile(rb"[0-9a-f]{64}")
"""An entry's hash: a log's chain covers its match's id (chain 3), so twins' hashes differ, and are put as
``HASH`` (both are made by the one append, whichever view answers)."""


def _answer(response, match_id: str) -> tuple:
    """What a client sees, with the match's id put as ``ID`` and its entries' hashes as ``HASH``."""
    headers = [
        (k, HASH.sub(b"HASH", v.replace(match_id, "ID").encode()).decode())
        for k, v in response.headers.items()
    ]
    return (
        response.status_code,
        headers,
        HASH.sub(b"HASH", response.get_data().replace(match_id.encode(), b"ID")),
    )


def _same(app, client, twins, method: str, path: str, seat: int | None, **request) -> tuple:
    """The request sent to the first twin as served (the express lane, the lean views) and to the second
    through the documented view alone: both answers, which must be the same."""
    sent = {"X-Request-Id": "lean-or-not", **request.pop("headers", {})}
    answers = []
    for i, (match_id, tokens) in enumerate(twins):
        headers = dict(sent)
        if seat is not None:
            headers.setdefault("Authorization", f"Bearer {tokens[seat]}")
        url = path.format(id=match_id)
        if i == 0:
            answers.append(_answer(client.open(url, method=method, headers=headers, **request), match_id))
        else:
            with documented(app):
                answers.append(_answer(client.open(url, method=method, headers=headers, **request), match_id))
    assert answers[0] == answers[1], (method, path, request)
    return answers[0]


def _bodies(version: int, action: dict, rng: random.Random):
    """Bodies for POST .../actions: the action as listed first, then bent ones (as raw bytes or JSON)."""
    good = {"expected_version": version, "action": action}
    yield "ok", {"json": good}
    bent = [
        {"data": b"not json", "content_type": "application/json"},
        {"data": b"", "content_type": "application/json"},
        {"data": json.dumps(good).encode(), "content_type": "text/plain"},
        {"json": [good]},
        {"json": {"action": action}},
        {"json": {"expected_version": version}},
        {"json": {**good, "extra": 1}},
        {"json": {**good, "expected_version": True}},
        {"json": {**good, "expected_version": float(version)}},
        {"json": {**good, "expected_version": str(version)}},
        {"json": {**good, "expected_version": 0}},
        {"json": {**good, "expected_version": version + 1}},
        {"json": {**good, "action": [action]}},
        {"json": {**good, "action": {**action, "type": "no such type"}}},
        {"json": {**good, "action": {}}},
        {"data": b'{"expected_version": 1, "action": {"\\ud800": 1}}', "content_type": "application/json"},
    ]
    for request in rng.sample(bent, 3):
        yield "bent", request


def _key(step: int, rng: random.Random) -> str | None:
    """An Idempotency-Key, new at each step where it is one: none, too short, too long, or of 1 to 128 characters."""
    return rng.choice([None, "", f"k{step}", f"{step:x}".rjust(128, "x"), "x" * 129, f" {step} ", f"é{step}"])


def _play(app, client, game_id: str, rng: random.Random) -> set[str]:
    game = GAMES[game_id]
    players = [{"name": f"p{i}"} for i in range(max(game.info.counts()))]
    twins = [
        create(client, game=game_id, players=players, seed=f"lean-{game_id}", seed_known_to_creator=True)
        for _ in range(2)
    ]
    seen = set()
    for step in range(STEPS):
        match = client.get(f"/v1/matches/{twins[0][0]}").json
        if match["status"] != "active" or not match["to_act"]:
            break
        seat = match["to_act"][0]
        other = (seat + 1) % len(players)
        legal_path = "/v1/matches/{id}/legal-actions"
        status, _, body = _same(app, client, twins, "GET", legal_path, seat)
        assert status == 200
        for query in rng.sample([f"?seat={seat}", f"?seat={other}", "?seat=x", "?other=1"], 1):
            _same(app, client, twins, "GET", legal_path + query, seat)
        _same(app, client, twins, "GET", legal_path, other)  # another seat's list: its own, empty or not
        _same(app, client, twins, "GET", legal_path, None)
        _same(app, client, twins, "GET", legal_path, None, headers={"Authorization": "Bearer nope"})
        listing = json.loads(body)
        action = rng.choice(listing["actions"])
        key = _key(step, rng)
        headers = {} if key is None else {"Idempotency-Key": key}
        post_path = "/v1/matches/{id}/actions"
        for kind, request in _bodies(listing["version"], action, rng):
            if kind == "bent":  # refused, whoever sends it
                who = rng.choice([seat, other])
                _same(app, client, twins, "POST", post_path, who, headers=dict(headers), **request)
                continue
            _same(app, client, twins, "POST", post_path, other, headers=dict(headers), **request)
            _same(app, client, twins, "POST", post_path, None, **request)
            status, _, said = _same(
                app, client, twins, "POST", post_path, seat, headers=dict(headers), **request
            )
            seen.add(f"{status}")
            assert status in (201, 400), said  # a key of 0 or 129 characters is a 400
            if status != 201:  # played without the key, then
                status, _, _ = _same(app, client, twins, "POST", post_path, seat, **request)
                assert status == 201
            elif key is not None:  # the same request again: its first answer; another body: reused
                _same(app, client, twins, "POST", post_path, seat, headers=dict(headers), **request)
                again = {"json": {**request["json"], "expected_version": listing["version"] + 1}}
                _same(app, client, twins, "POST", post_path, seat, headers=dict(headers), **again)
                seen.add("replayed")
            _same(app, client, twins, "POST", post_path, seat, **request)  # stale now: 409
    return seen


@pytest.fixture
def twinned(monkeypatch):
    """Twins that log their entries at the same time, with the same salt to their seed: the same hashes,
    the same answers."""
    monkeypatch.setattr(entry_time, "now", lambda: "2026-11-27T22:00:00.000Z")
    monkeypatch.setattr(lifecycle, "secrets", SimpleNamespace(token_hex=lambda n: "5a" * n))


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_lean_views_answer_as_the_documented_ones(app, client, twinned, game_id):
    seen = _play(app, client, game_id, random.Random(f"lean-{game_id}"))
    assert "201" in seen


@pytest.fixture
def counted(app):
    """The express lane's answers, counted by status."""
    lane, said = app.express, Counter()

    def counting(environ, start_response):
        def started(status, headers):
            said[int(status.split()[0])] += 1
            return start_response(status, headers)

        return lane(environ, started)

    app.express = counting
    yield said
    app.express = lane


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_express_lane_answers_as_flask_does(app, client, twinned, counted, game_id):
    """Above, each request to the first twin met the express lane first: it answered the plain POSTs, accepted
    or refused once submitted, and handed the rest to Flask."""
    test_lean_views_answer_as_the_documented_ones(app, client, twinned, game_id)
    assert counted[201] > 0 and counted[409] > 0 and set(counted) <= {201, 409, 422}, counted


def test_the_lean_views_are_the_ones_served(app):
    """Each hot route is served by its lean view, which stands on the documented one."""
    for endpoint in HOT:
        view = app.view_functions[endpoint]
        assert view.__wrapped__ is not view and view._apidoc == view.__wrapped__._apidoc


def test_each_view_and_hook_is_checked_for_a_coroutine_once(app):
    """``MatchlogFlask.ensure_sync`` keeps what Flask decided for each function: the same function for a sync
    one, at every request."""
    hook = app.before_request_funcs[None][0]
    assert app.ensure_sync(hook) is hook and app.ensure_sync(hook) is hook
    assert hook in app._ensured and len(app._ensured) < 100
