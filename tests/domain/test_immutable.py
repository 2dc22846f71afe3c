"""``service.domain.immutable.replaced`` (the fast ``dataclasses.replace`` of the move path) makes what
``dataclasses.replace`` makes: random games of every game played through the lifecycle with it and
with ``dataclasses.replace`` give the same log (entries, hashes) and the same states, field for field."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from service.domain import chain, lifecycle, replay
from service.domain.immutable import replaced
from service.games import GAMES
from tests.engines import begun


def _play(game, seed: int, limit: int = 300):
    rng = random.Random(seed)
    step, secret = begun(game, f"frozen-{seed}")
    entries, states = list(step.entries), list(step.states)
    state = step.state
    for _ in range(limit):
        if state.finished:
            break
        seat = game.to_act(state.game)[0]
        step = lifecycle.act(
            state, seat, rng.choice(game.legal_actions(state.game, seat)), secret, "2026-01-01T00:00:01.000Z"
        )
        entries += step.entries
        states += step.states
        state = step.state
    folded = replay.start(entries[0], secret.seed, secret.salt)  # and folded back from the log
    for entry in entries[1:]:
        folded = replay.advance(folded, entry, lambda version: None)
    return ([e.as_dict() for e in entries], [s.to_json() for s in states], folded.to_json())


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_games_play_the_same_with_the_fast_replace(game_id, monkeypatch):
    game = GAMES[game_id]
    fast = _play(game, 11)
    for module in (chain, lifecycle, replay):
        monkeypatch.setattr(module, "replaced", dataclasses.replace)
    reference = _play(game, 11)
    assert json.dumps(fast, default=repr) == json.dumps(reference, default=repr)


def test_replaced_is_replace_for_the_shell_dataclasses_and_replace_otherwise():
    entry = chain.Recorded(3, "placed", 1, {"a": 1}, "2026-01-01T00:00:00.000Z")
    assert replaced(entry, hash="ab") == dataclasses.replace(entry, hash="ab")
    assert replaced(entry, hash="ab").__dict__ == dataclasses.replace(entry, hash="ab").__dict__
    with pytest.raises(TypeError):
        replaced(entry, nope=1)

    @dataclasses.dataclass(frozen=True)
    class Checked:
        n: int

        def __post_init__(self):
            if self.n < 0:
                raise ValueError("negative")

    with pytest.raises(ValueError):  # its __post_init__ runs: dataclasses.replace
        replaced(Checked(1), n=-1)
