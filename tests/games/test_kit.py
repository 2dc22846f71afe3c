"""The engine kit's promises, for every registered game and for a game built on it."""

from __future__ import annotations

import random

import pytest

from service.games import GAMES
from service.games.kit import Engine, Turn, applies, option_defaults, pack_path
from service.games.protocol import GameInfo, IllegalAction, fold, turn_refusals
from tests import engines


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_played_states_are_the_fold_of_the_played_events(game_id):
    """Each event is applied once, by the Turn; the states it kept equal a fold done afresh."""
    game = GAMES[game_id]
    players = max(game.info.counts())
    checked = []

    def check(state, seat, action, played):
        assert len(played.states) == len(played) >= 1
        again = state
        for event, kept in zip(played, played.states):
            again = game.apply(again, event)
            assert again == kept
        checked.append(action)

    engines.random_playout(
        game, engines.new_state(game, players, "kit"), random.Random(1), check, max_moves=60
    )
    assert checked


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_legal_actions_are_empty_for_a_seat_that_may_not_act(game_id):
    game = GAMES[game_id]
    players = max(game.info.counts())
    state = engines.new_state(game, players, "kit")
    waiting = [seat for seat in range(players) if seat not in game.to_act(state)]
    for seat in waiting:
        assert game.legal_actions(state, seat) == []
        with pytest.raises(IllegalAction) as refusal:
            game.play(state, seat, game.legal_actions(state, game.to_act(state)[0])[0])
        assert refusal.value.reason == "not_your_turn"
    assert waiting or players == 1


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_declared_dynamics_is_what_to_act_does(game_id):
    """A sequential game never names two seats at once; a simultaneous one does, early in a game."""
    game = GAMES[game_id]
    widest = []
    engines.random_playout(
        game,
        engines.new_state(game, max(game.info.counts()), "kit"),
        random.Random(1),
        lambda state, *_: widest.append(len(game.to_act(state))),
        max_moves=80,
    )
    assert (max(widest) > 1) == (game.info.dynamics == "simultaneous")


def test_game_info_refuses_a_dynamics_or_utility_it_does_not_know():
    with pytest.raises(ValueError):
        GameInfo(
            id="x",
            name="X",
            min_players=1,
            max_players=2,
            hidden_information=False,
            chance=False,
            utility_by_option={"mode": {"TEAMS": "co-operative"}},
        )
    with pytest.raises(ValueError):
        GameInfo(
            id="x",
            name="X",
            min_players=1,
            max_players=2,
            hidden_information=False,
            chance=False,
            dynamics="real-time",
        )


class Counter(Engine):
    info = GameInfo(
        id="counter", name="Counter", min_players=1, max_players=1, hidden_information=False, chance=False
    )
    options_schema = {
        "type": "object",
        "properties": {"goal": {"type": "integer", "default": 2}, "step": {"type": "integer"}},
    }
    refusals = turn_refusals("its goal", "its goal")  # the kit's own refusals are all it has

    def setup(self, options, players, seed, content=None):
        return {"count": 0, "goal": options["goal"]}

    def to_act(self, state):
        return [] if self.is_over(state) else [0]

    def is_over(self, state):
        return state["count"] >= state["goal"]

    def _legal_actions(self, state, seat):
        return [{"type": "count"}]

    def _play(self, turn: Turn, seat, action):
        turn.emit("counted", seat)
        if self.is_over(turn.state):
            turn.emit("finished")

    @applies("counted")
    def _counted(self, state, data, seat):
        state["count"] += 1

    @applies("finished")
    def _finished(self, state, data, seat):
        pass


def test_options_get_their_schema_defaults():
    assert Counter().resolve_options({}, 1) == {"goal": 2}
    assert option_defaults(Counter.options_schema) == {"goal": 2}


def test_play_refuses_a_game_that_is_over_and_dispatches_apply_by_event_type():
    game = Counter()
    state = game.setup(game.resolve_options({}, 1), 1, "s")
    played = game.play(state, 0, {"type": "count"})
    state = engines.play(game, played.states[-1], 0, {"type": "count"})
    assert [e["type"] for e in game.play(played.states[-1], 0, {"type": "count"})] == ["counted", "finished"]
    assert fold(game, game.setup({"goal": 2}, 1, "s"), []) == {"count": 0, "goal": 2}
    assert game.legal_actions(state, 0) == []
    with pytest.raises(IllegalAction) as refusal:
        game.play(state, 0, {"type": "count"})
    assert refusal.value.reason == "game_over"
    with pytest.raises(ValueError, match="unknown event type"):
        game.apply(state, {"type": "shuffled", "seat": None, "data": {}})


def test_two_methods_folding_one_event_type_are_refused():
    with pytest.raises(TypeError, match="two methods fold 'counted'"):

        class Twice(Counter):
            @applies("counted")
            def _one(self, state, data, seat):
                pass

            @applies("counted")
            def _other(self, state, data, seat):
                pass


def test_pack_paths_name_list_items_by_their_id():
    document = {"cards": [{"id": "C1"}, {"id": "C2", "front": {"TL": {}}}], "shapes": [{"shapeId": "I3"}]}
    assert pack_path(document, ["cards", 1, "front", "TL"]) == "cards[1] (C2).front.TL"
    assert pack_path(document, ["shapes", 0, "cubes"]) == "shapes[0] (I3).cubes"
    assert pack_path(document, []) == "pack"
