"""Snapshots kept by the append itself (``EventStore.append``'s ``snapshots``) and ``MatchState.to_json``
without ``asdict``: random games of every game stored through a repository keep exactly the snapshots
the earlier path kept (each due state, ``asdict``'s JSON, compressed), only with entries that were appended;
a process that catches up on another's appends writes none, and loads the same states."""

from __future__ import annotations

import dataclasses
import json
import random

import fakeredis
import pytest

from service.domain import lifecycle
from service.domain.serverkey import ServerKey
from service.games import GAMES
from service.store import snapshots
from service.store.events import Remember, VersionConflict
from service.store.keys import Keys
from service.store.repository import MatchRepository, Meta
from tests.conftest import TEST_SECRET
from tests.engines import begun

EVERY = 4


def _steps(game, seed: int, limit: int = 200):
    """The steps of a random game, scored at its end: (the first step, the steps after it, the secret)."""
    rng = random.Random(seed)
    first, secret = begun(game, f"snap-{seed}")
    steps, state = [], first.state
    for _ in range(limit):
        if state.finished:
            break
        seat = game.to_act(state.game)[0]
        action = rng.choice(game.legal_actions(state.game, seat))
        steps.append(lifecycle.act(state, seat, action, secret, "2026-01-01T00:00:01.000Z"))
        state = steps[-1].state
    if state.finished:
        steps.append(lifecycle.score(state, "2026-01-01T00:00:02.000Z"))
    return first, steps, secret


def _reference(steps) -> dict[bytes, bytes]:
    """What the earlier path kept after each step: its due states (of the step that scores the match, the
    final state only), ``asdict``'s JSON."""
    due = []
    for step in steps:
        states = list(step.states)
        due += (
            [states[-1]] if states[-1].result is not None else [s for s in states if s.version % EVERY == 0]
        )
    return {
        str(s.version).encode(): snapshots.encode(
            {"rules": snapshots.rules_of(s), "state": dataclasses.asdict(s)}
        )
        for s in due
    }


@pytest.mark.no_cover  # what it runs is covered by faster tests; traced, it took 3 times as long
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_to_json_is_what_asdict_gives(game_id):
    first, steps, _ = _steps(GAMES[game_id], 3)
    for state in [*first.states, *(s for step in steps for s in step.states)]:
        assert json.dumps(state.to_json()) == json.dumps(dataclasses.asdict(state))
        assert type(state).from_json(json.loads(json.dumps(state.to_json()))) == state


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_append_keeps_the_snapshots_that_fall_due_and_a_process_catching_up_writes_none(game_id):
    client = fakeredis.FakeRedis()
    keys = Keys("snap")
    writer, reader = (MatchRepository(client, keys, EVERY, ServerKey(TEST_SECRET)) for _ in range(2))
    written: list = []
    reader.snapshots.save = lambda match_id, states: written.extend(states)  # type: ignore[method-assign]
    first, steps, secret = _steps(GAMES[game_id], 5)
    players = len(first.state.players)
    writer.add("m", Meta(game_id, secret, tuple("ab" * 32 for _ in range(players))), first)
    states = list(first.states)
    for i, step in enumerate(steps):
        # states at versions no snapshot of the game has: an append refused (a stale base) or answered from
        # an earlier request (a retry) keeps none of them
        stray = dataclasses.replace(
            step, states=tuple(dataclasses.replace(s, version=400) for s in step.states)
        )
        if i == 2:
            with pytest.raises(VersionConflict):
                writer.save("m", dataclasses.replace(stray, base=first.state))
        writer.save("m", step, Remember(f"snap:idem:{i}", "{}", 60) if i % 2 else None)
        if i % 2:
            assert writer.save("m", stray, Remember(f"snap:idem:{i}", "{}", 60)) == "{}"
        states += step.states
        assert reader.load("m") == step.state  # the other process catches up on what the writer appended
    assert client.hgetall(keys.snapshots("m")) == _reference([first, *steps])
    assert written == []
    assert len(states) > 2 * EVERY
