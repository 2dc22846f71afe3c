"""The compiled loads of the hot path (``service.http.fastload``) agree with the marshmallow schemas they are
compiled from: on every legal action of random games of every game, and on those actions bent out of shape,
the compiled load answers exactly what the schema loads (the same dict, its keys in the same order), or
None (the schema then loads it, or refuses it with its own errors)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from marshmallow import ValidationError

from service.domain import lifecycle
from service.games import GAMES
from service.http import fastload, moves_socket, routes
from service.http.errors import api_error_of, flatten, invalid
from service.store import packs
from tests.helpers import create, play_random_game

GAMES_PER_GAME = 2
ODD_VALUES = (
    None,
    True,
    False,
    0,
    1,
    -1,
    2,
    10**6,
    1.0,
    1.5,
    "",
    "x",
    "1",
    "place",
    "pass",
    "A",
    "true",
    [],
    [0],
    [0, 0],
    [[0, 0]],
    {},
    {"1": "x"},
    b"x",
)


def _random_actions(game, rng: random.Random, limit: int = 400):
    """Every legal action of the seat to act, at each step of a random game (at most ``limit`` steps)."""
    players = max(game.info.counts())
    resolved = lifecycle.check_options(game.info.id, {}, players)
    secret = lifecycle.SeedSecret(f"fast-{rng.getrandbits(32)}", "salt")
    state = lifecycle.begin(
        game.info.id,
        resolved,
        [f"p{i}" for i in range(players)],
        secret,
        "",
        packs.content_for(game, resolved),
    ).state
    for _ in range(limit):
        if state.finished:
            return
        seat = game.to_act(state.game)[0]
        legal = game.legal_actions(state.game, seat)
        yield from legal
        state = lifecycle.act(state, seat, rng.choice(legal), secret, "").state


def _bent(action: dict, rng: random.Random):
    """``action`` with one thing changed: a key dropped, an unknown key, a value of another kind (deep too)."""
    yield {}
    yield [action]
    for key in action:
        yield {k: v for k, v in action.items() if k != key}
        for odd in rng.sample(ODD_VALUES, 6):
            yield {**action, key: odd}
        value = action[key]
        if isinstance(value, list) and value:
            yield {**action, key: value[:-1]}
            yield {**action, key: value + value[:1]}
            if isinstance(value[0], list) and value[0]:
                deep = copy.deepcopy(value)
                deep[0][0] = rng.choice(ODD_VALUES)
                yield {**action, key: deep}
        if isinstance(value, dict) and value:
            inner = next(iter(value))
            yield {**action, key: {**value, inner: rng.choice(ODD_VALUES)}}
            yield {**action, key: {**value, "unknown": 1}}
    yield {**action, "unknown": 1}


def _agrees(fast, schema, data) -> None:
    got = fast(data)
    if got is None:
        return  # the schema's business
    expected = schema.load(copy.deepcopy(data))  # must not refuse what the fast path took
    assert json.dumps(got, default=repr) == json.dumps(
        expected, default=repr
    )  # the same, keys in the same order


@pytest.mark.no_cover  # what it runs is covered by faster tests; traced, it took 3 times as long
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_compiled_action_load_agrees_with_the_schema(game_id):
    game = GAMES[game_id]
    schema, fast = routes._action_schema(game_id), routes._action_loader(game_id)
    assert fast is not None, "every game's action schema compiles"
    rng = random.Random(f"fastload-{game_id}")
    taken = 0
    for _ in range(GAMES_PER_GAME):
        for action in _random_actions(game, rng):
            if fast(copy.deepcopy(action)) is not None:  # (an action with a custom field, Blackout's payment,
                taken += 1  # goes to the schema)
            _agrees(fast, schema, action)
            if rng.random() < 0.05:
                for bent in _bent(action, rng):
                    _agrees(fast, schema, bent)
    assert taken > 0, "the fast path takes the game's plain actions"


def _reference_load_action(game_id: str, raw):
    """``load_action`` as it was before the compiled path: the schema alone (between the game's renames,
    where the API's names differ from its engine's)."""
    names = GAMES[game_id].action_names
    raw = names.for_engine(raw) if names is not None else raw
    try:
        return routes._action_schema(game_id).load(raw)
    except ValidationError as error:
        messages = names.for_clients(error.messages) if names is not None else error.messages
        raise invalid(
            flatten(messages, "action"), "the action does not fit the game's action schema"
        ) from None


def _answer(load, game_id: str, raw):
    try:
        return {"loaded": load(game_id, copy.deepcopy(raw))}
    except Exception as error:
        refusal = api_error_of(error)
        return {"status": refusal.status, **refusal.body}


def test_load_action_answers_as_before_for_bent_actions():
    """``load_action`` (the POST's and the socket's) answers what the schema alone answered, errors included."""
    rng = random.Random("load_action")
    for game_id, game in sorted(GAMES.items()):
        for action in list(_random_actions(game, rng, limit=3))[:5]:
            for bent in [action, *_bent(action, rng)]:
                assert json.dumps(_answer(routes.load_action, game_id, bent), default=repr) == json.dumps(
                    _answer(_reference_load_action, game_id, bent), default=repr
                )


def test_compiled_move_envelope_agrees_with_the_schema():
    rng = random.Random("moves")
    fast = moves_socket._fast_move
    assert fast is not None
    action = {"type": "place", "cells": [[0, 0]]}
    cases: list[Any] = [
        {"expected_version": v, "action": a}
        for v in (1, 2, 0, -1, True, 1.0, "1", None, 10**12)
        for a in (action, {}, [], None, "x")
    ]
    cases += [
        {"expected_version": 3, "action": action, "idempotency_key": k}
        for k in ("k", "", "x" * 128, "x" * 129, 1, None)
    ]
    cases += [
        {"action": action},
        {"expected_version": 3},
        {"expected_version": 3, "action": action, "x": 1},
        [],
        "x",
    ]
    rng.shuffle(cases)
    for case in cases:
        _agrees(fast, moves_socket._move, case)
    assert fast({"expected_version": 3, "action": action, "idempotency_key": "k"}) is not None


def test_a_schema_the_fast_path_does_not_know_is_not_compiled():
    from marshmallow import Schema, fields, pre_load

    class Hooked(Schema):
        a = fields.String()

        @pre_load
        def change(self, data, **kwargs):
            return data

    class Defaulted(Schema):
        a = fields.String(load_default="x")

    assert fastload.compiled(Hooked()) is None
    assert fastload.compiled(Defaulted()) is None


def _dump_agrees(fast, schema, data) -> bool:
    got = fast(data)
    if got is None:
        return False  # the schema's business
    expected = schema.dump(copy.deepcopy(data))  # must not fail where the fast path did not
    assert json.dumps(got, default=repr) == json.dumps(expected, default=repr)  # keys in the same order too
    return True


def _bent_answer(answer: dict, rng: random.Random):
    """``answer`` (or one of its entries) with its keys shuffled, an unknown key, one dropped, odd values."""
    for target in ("answer", "entry"):
        for _ in range(4):
            bent = copy.deepcopy(answer)
            where = bent if target == "answer" or not bent["events"] else rng.choice(bent["events"])
            keys = list(where)
            change = rng.choice(["shuffle", "unknown", "drop", "odd", "odd"])
            if change == "shuffle":
                rng.shuffle(keys)
                items = [(k, where.pop(k)) for k in keys]
                where.update(items)
            elif change == "unknown":
                where["unknown"] = rng.choice(ODD_VALUES)
            elif change == "drop":
                where.pop(rng.choice(keys))
            else:
                where[rng.choice(keys)] = rng.choice([*ODD_VALUES, [None], [{}], ["x"]])
            yield bent


def test_compiled_answer_dump_agrees_with_the_schema(client, monkeypatch):
    """The POST's answers (``AcceptedSchema``) as the API made them in random games of every game, and bent
    copies of them: the compiled dump gives what ``schema.dump`` gives, or leaves it to the schema."""
    schema, fast = routes._accepted, routes._accepted_dump
    assert fast is not None, "AcceptedSchema compiles"
    answers = []
    made = routes.played

    def recorded(*args):
        answer, headers = made(*args)
        answers.append(copy.deepcopy(answer))
        return answer, headers

    monkeypatch.setattr(routes, "played", recorded)
    rng = random.Random("dump")
    for game_id, game in sorted(GAMES.items()):
        players = [{"name": f"p{i}"} for i in range(max(game.info.counts()))]
        match_id, tokens = create(client, game=game_id, players=players)
        play_random_game(client, match_id, tokens, rng, max_actions=30)
    assert {a["game"] for a in answers} == set(GAMES)
    taken = sum(_dump_agrees(fast, schema, answer) for answer in answers)
    assert taken == len(answers), "every answer the API made is the fast path's"
    for answer in rng.sample(answers, 40):
        for bent in _bent_answer(answer, rng):
            _dump_agrees(fast, schema, bent)
