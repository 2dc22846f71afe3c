"""Every recorded log and many seeded random games replay to the very events they did before the engines'
chance was made explicit (issue 44: Blackout's draws as chance nodes in the AI faces).

``tests/fixtures/replay_hashes.json`` holds, for each log of ``tests/fixtures/logs``, the digest of the events
its actions make when played again from its revealed seed, and for ``GAMES_PER_MODE`` random Blackout games
of each mode (seeded ``<mode>-<i>``, 1 to 4 seats), the digest of every event and the scores. The server
must draw exactly what it drew from a seed, whatever the engines ask the faces, so these may never change.
To record again (only for an intended, reviewed change of the rules): ``python -m tests.games.test_replay_hashes``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from service.faces.logs import replayed
from service.faces.table import canonical
from tests.games.blackout_support import random_game

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
HASHES = FIXTURES / "replay_hashes.json"
LOGS = sorted((FIXTURES / "logs").glob("*.json"))
GAMES_PER_MODE = 100
MODES = {"SINGLE": (2, 3, 4), "CAMPAIGN": (1, 2, 3, 4)}


def digest(values: list[Any]) -> str:
    return hashlib.sha256("\n".join(canonical(v) for v in values).encode()).hexdigest()


def log_digest(path: Path) -> str:
    """The digest of the events a log's actions make, played again from its seed."""
    match = replayed(json.loads(path.read_text())["events"])
    state = match.table.setup(match.seed)
    events = []
    for seat, action in match.actions:
        played = match.table.game.play(state, seat, action)
        events.extend(played)
        state = played.states[-1]
    return digest([*events, match.table.game.scores(state)])


def game_digest(mode: str, i: int) -> str:
    """The digest of random Blackout game ``i`` of a mode: every event, then the scores."""
    from service.games.blackout_hong_kong import GAME

    counts = MODES[mode]
    events: list[Any] = []
    state = random_game(
        counts[i % len(counts)], f"{mode}-{i}", on_step=lambda *step: events.extend(step[3]), mode=mode
    )
    return digest([*events, GAME.scores(state)])


def recorded() -> dict[str, str]:
    return {
        **{f"log:{path.name}": log_digest(path) for path in LOGS},
        **{f"{mode}-{i}": game_digest(mode, i) for mode in MODES for i in range(GAMES_PER_MODE)},
    }


EXPECTED: dict[str, str] = json.loads(HASHES.read_text()) if HASHES.exists() else {}


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_a_recorded_log_replays_to_its_events(path: Path) -> None:
    assert log_digest(path) == EXPECTED[f"log:{path.name}"]


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_seeded_blackout_games_play_as_they_did(mode: str) -> None:
    changed = [i for i in range(GAMES_PER_MODE) if game_digest(mode, i) != EXPECTED[f"{mode}-{i}"]]
    assert not changed, f"{mode} games {changed} play differently from the same seed"


if __name__ == "__main__":
    HASHES.write_text(json.dumps(recorded(), indent=1, sort_keys=True) + "\n")
