"""No action a client can send makes an engine fail: every game, mid-game, given actions that pass
its action schema but are bent out of shape (fields swapped for other values, dropped, borrowed
from other actions), answers with events or with IllegalAction, never with another exception
(which the API would turn into a 500)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from marshmallow import ValidationError

from service.games import GAMES
from service.games.protocol import IllegalAction
from tests import engines


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


ODD = st.one_of(st.integers(-3, 40), st.text(max_size=6), st.booleans(), st.none(),
                st.lists(st.integers(-2, 30), max_size=4), st.lists(st.lists(st.integers(-2, 30), max_size=3), max_size=5))


@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.parametrize("plies", [0, 7, 23])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
