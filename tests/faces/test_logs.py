"""A finished match's log loaded into the OpenSpiel face (``service.faces.logs``, ``MatchlogState.play``): every
recorded log of ``tests/fixtures/logs`` replays, move by move, to the server's final scores; a log whose seed
is not revealed is refused, as is one whose move no legal action makes."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from service.domain import replay
from service.domain.chain import Recorded
from service.faces import logs, openspiel

LOGS = sorted((Path(__file__).parents[1] / "fixtures" / "logs").glob("*.json"))


def read(path: Path) -> list[dict]:
    return json.loads(path.read_text())["events"]


def final_scores(log: list[dict]) -> list:
    entries = [Recorded.from_dict(e) for e in log]
    revealed = next(e for e in entries if e.type == "seed_revealed").data
    state = replay.start(entries[0], revealed["seed"], revealed.get("salt"))
    for entry in entries[1:]:
        state = replay.advance(state, entry)
    return replay.result(state)["scores"]


@pytest.mark.parametrize("path", LOGS, ids=[p.stem for p in LOGS])
def test_a_recorded_log_replays_on_the_openspiel_face_to_the_servers_scores(path):
    log = read(path)
    match = logs.replayed(log)
    state = openspiel.game_of(match.table).new_initial_state()
    state.deal(match.seed)
    for seat, action in match.actions:
        state.play(seat, action)
    assert state.is_terminal()
    assert state.scores()["scores"] == final_scores(log)
    assert len(state.history()) >= len(match.actions) > 0
    assert state.seating.actions == match.actions


def test_a_log_whose_seed_is_not_revealed_is_refused():
    log = [e for e in read(LOGS[0]) if e["type"] not in ("seed_revealed", "match_scored")]
    with pytest.raises(ValueError, match="not revealed"):
        logs.replayed(log)


def test_a_move_no_legal_action_makes_is_refused():
    log = copy.deepcopy(read(next(p for p in LOGS if p.stem.startswith("blokus"))))
    placed = next(e for e in log if e["type"] == "placed")
    placed["data"]["cells"] = [[-1, -1]]
    with pytest.raises(ValueError, match="no legal action makes the event"):
        logs.replayed(log)


def test_a_seat_that_does_not_decide_is_not_played_for():
    match = logs.replayed(read(LOGS[0]))
    state = openspiel.game_of(match.table).new_initial_state()
    state.deal(match.seed)
    seat, action = match.actions[0]
    with pytest.raises(ValueError, match="does not decide now"):
        state.play(1 - seat, action)
