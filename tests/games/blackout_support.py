"""Shared helpers of the Blackout: Hong Kong tests: games with no server, fixture packs and positions.

Fixtures follow the spec's Appendix A note: the pack values a test needs are fixtures built from the
examples (``fixture_card``, ``fixture_tile`` add them to a copy of the default pack), and a position
is the state after setup with the fields the example names set directly (``patched``, ``in_phase``).
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from service.games.blackout_hong_kong import GAME, content
from service.games.blackout_hong_kong.board import board_of
from service.games.protocol import IllegalAction


def pack() -> dict[str, Any]:
    """A private copy of the default pack, to add fixture cards and tiles to."""
    return copy.deepcopy(content.default_content())


def fixture_card(the_pack: dict, card: dict) -> str:
    """Add a card to the pack's objective cards (setup does not recount them) and return its id."""
    base = {"origin": "OBJECTIVE_DECK", "points": 0, "searchIcons": 0}
    the_pack["objectiveCards"].append({**base, **card})
    return card["id"]


def fixture_tile(the_pack: dict, tile: dict) -> str:
    the_pack["patrolTiles"].append({"backSearchIcons": 0, **tile})
    return tile["id"]


def new_game(players: int = 2, seed: str = "test", the_pack: dict | None = None, **options) -> dict:
    resolved = GAME.resolve_options(options, players)
    return GAME.setup(
        resolved, players, seed, the_pack if the_pack is not None else content.default_content()
    )


def started(players: int = 2, seed: str = "test", the_pack: dict | None = None, **options) -> dict:
    """Round 1, Phase 1: every start cube placed on the first location offered."""
    state = new_game(players, seed, the_pack, **options)
    while state["step"] == "start_cubes":
        seat = GAME.to_act(state)[0]
        state = play(state, seat, GAME.legal_actions(state, seat)[0])
    return state


def play(state: dict, seat: int, action: dict) -> dict:
    return GAME.play(state, seat, action).states[-1]


def events(state: dict, seat: int, action: dict) -> list[dict]:
    return list(GAME.play(state, seat, action))


def refused(state: dict, seat: int, action: dict) -> IllegalAction:
    with pytest.raises(IllegalAction) as refusal:
        GAME.play(state, seat, action)
    return refusal.value


def patched(state: dict, seat: int | None = None, **fields) -> dict:
    """A deep copy of ``state`` with top-level ``fields`` (or seat ``seat``'s fields) replaced."""
    out = copy.deepcopy(state)
    target = out if seat is None else out["players"][seat]
    target.update(copy.deepcopy(fields))
    return out


def in_phase(state: dict, step: str, active: int | None = 0, **turn) -> dict:
    """The state moved to ``step`` with ``active`` to act, an empty queue and this turn's bookkeeping."""
    return patched(state, step=step, active=active, turn=turn, queue=[], collect=None, plans={})


def card_of(state: dict, card_id: str) -> dict:
    return board_of(state["content"]).cards[card_id]


def set_card(state: dict, seat: int, role: str) -> str:
    """The id of ``role`` (LEADER, DOCTOR...) in the seat's player set."""
    animal = state["players"][seat]["animal"]
    return next(c["id"] for c in state["content"]["playerSets"][animal] if c.get("role") == role)


def set_volunteers(state: dict, seat: int, colour: str) -> list[str]:
    animal = state["players"][seat]["animal"]
    return [
        c["id"]
        for c in state["content"]["playerSets"][animal]
        if c["kind"] == "VOLUNTEER" and c["colour"] == colour
    ]


def random_game(players: int, seed: str, on_step=None, **options) -> dict:
    """A random legal game to the end; ``on_step(state, seat, action, played)`` sees every move."""
    rng = random.Random(seed)
    state = new_game(players, seed, **options)
    while not GAME.is_over(state):
        seat = rng.choice(GAME.to_act(state))
        action = rng.choice(GAME.legal_actions(state, seat))
        played = GAME.play(state, seat, action)
        if on_step:
            on_step(state, seat, action, played)
        state = played.states[-1]
    return state
