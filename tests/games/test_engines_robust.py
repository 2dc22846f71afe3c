"""No action a client can send makes an engine fail: every game, mid-game, given actions that pass
its action schema but are bent out of shape (fields swapped for other values, dropped, borrowed
from other actions), answers with events or with IllegalAction, never with another exception
(which the API would turn into a 500)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from service.games import GAMES
from service.games.protocol import IllegalAction
from tests import engines
from tests.conftest import examples


def position(game_id: str, plies: int):
    """A state after ``plies`` first-listed legal actions, with the seat to act."""
    game = GAMES[game_id]
    players = 2 if 2 in game.info.counts() else game.info.counts()[0]
    state = engines.new_state(game, players, "robust")
    for i in range(plies):
        if game.is_over(state):
            break
        seat = game.to_act(state)[0]
        legal = game.legal_actions(state, seat)
        state = engines.play(game, state, seat, legal[i % len(legal)])
    return game, state


def values_seen(actions):
    seen: dict[str, list] = {}
    for action in actions:
        for key, value in action.items():
            seen.setdefault(key, []).append(value)
    return seen


ODD = st.one_of(
    st.integers(-3, 40),
    st.text(max_size=6),
    st.booleans(),
    st.none(),
    st.lists(st.integers(-2, 30), max_size=4),
    st.lists(st.lists(st.integers(-2, 30), max_size=3), max_size=5),
)


@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.parametrize("plies", [0, 7, 23])
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_bent_actions_are_played_or_refused_never_crash(game_id, plies, data):
    game, state = position(game_id, plies)
    if game.is_over(state):
        return
    seat = game.to_act(state)[0]
    legal = game.legal_actions(state, seat)
    seen = values_seen(legal)
    action = dict(data.draw(st.sampled_from(legal)))
    for key in data.draw(st.lists(st.sampled_from(sorted(seen) + ["type"]), max_size=3, unique=True)):
        choice = data.draw(st.integers(0, 2))
        if choice == 0:
            action.pop(key, None)
        elif choice == 1 and key in seen:
            action[key] = data.draw(st.sampled_from(seen[key]))
        else:
            action[key] = data.draw(ODD)
    try:
        action = game.action_schema().load(action)
    except ValidationError:
        return  # the API answers 400 before the engine sees it
    try:
        events = game.play(state, seat, action)
    except IllegalAction as refusal:
        assert refusal.reason and refusal.message
        return
    assert len(events.states) == len(events) >= 1  # an accepted action's events were folded, each once


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@pytest.mark.parametrize("game_id", sorted(GAMES))
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_json_action_that_passes_the_schema_is_played_or_refused(game_id, data):
    """Arbitrary JSON-like actions (any keys, any values, any nesting) through the action schema and
    into ``play``: the schema refuses it, or the rules do, or it is played; nothing else happens."""
    game, state = position(game_id, data.draw(st.sampled_from([0, 5, 17])))
    if game.is_over(state):
        return
    keys = sorted({k for a in game.legal_actions(state, game.to_act(state)[0]) for k in a}) + ["type"]
    action = data.draw(st.dictionaries(st.sampled_from(keys) | st.text(max_size=6), JSON_VALUES, max_size=6))
    if data.draw(st.booleans()):
        action["type"] = data.draw(
            st.sampled_from(sorted({a["type"] for a in game.legal_actions(state, game.to_act(state)[0])}))
        )
    try:
        action = game.action_schema().load(action)
    except ValidationError:
        return
    for seat in range(2 if 2 in game.info.counts() else game.info.counts()[0]):  # as position() seats them
        try:
            game.play(state, seat, action)
        except IllegalAction as refusal:
            assert refusal.reason and refusal.message
