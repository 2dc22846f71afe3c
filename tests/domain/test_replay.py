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
