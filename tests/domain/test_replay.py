"""Logs recorded before the engine kit and the shell split (commit ba69a22) replay unchanged: the
same result, recomputed from the log alone, as the one the log records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.domain import replay
from service.domain.chain import Recorded

LOGS = sorted((Path(__file__).parents[1] / "fixtures" / "logs").glob("*.json"))


@pytest.mark.parametrize("path", LOGS, ids=[p.stem for p in LOGS])
def test_an_old_log_replays_to_its_recorded_result(path):
    entries = [Recorded.from_dict(e) for e in json.loads(path.read_text())["events"]]
    state = replay.replay(entries)
    assert state.version == len(entries) and state.finished
    assert state.result == replay.result(state)


def test_there_are_old_logs_of_every_game_that_existed_then():
    assert {p.stem.rsplit("-", 1)[0] for p in LOGS} == {"blokus", "block-block", "chock-a-block"}


def test_an_action_that_would_reveal_a_card_is_said_without_it():
    """A draw's text must not tell the seat which card it would draw (``action_text``): it is said by the
    action's own values, while every other action is said as its entry will be."""
    import random

    from service.games import GAMES
    from tests.engines import new_state, play

    game = GAMES["chock-a-block"]
    state = new_state(game, 3)
    rng = random.Random(4)
    said = set()
    for _ in range(200):
        if game.is_over(state):
            break
        seat = game.to_act(state)[0]
        for action in game.legal_actions(state, seat):
            text = replay.action_text(game, state, seat, action)
            first = game.play(state, seat, action)[0]
            if game.reveals(first):
                values = {k: v for k, v in action.items() if k != "type"}
                assert text == game.describe({"type": action["type"], "seat": seat, "data": values})
                said.add("hidden")
            else:
                assert text == replay.describe(game, game.event_view(first, seat))
                said.add("seen")
        state = play(game, state, seat, rng.choice(game.legal_actions(state, seat)))
    assert said == {"hidden", "seen"}
