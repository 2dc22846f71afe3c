"""What a seat may do now (``legal-actions``), put together from each phase's entries.

Every listed entry is postable as it is. Where an action has too many parameter combinations to list,
one entry stands for the decision and ``choices`` spells out the rest as sets:

- ``payment``: the entry pays ``"AUTO"`` (fewest batteries); ``choices.payment`` lists every exact
  payment the seat can make, any of which may be sent instead;
- ``partyCardIds`` and ``gps`` of ``PATROL_TAKE``: the entry carries the smallest party that meets
  the challenge; ``choices.party`` is the set of hand cards that may join (any non-empty subset),
  ``choices.gps`` the GPS counts, and ``choices.needs`` the icons the search total S must reach;
- ``slots`` of ``SUBMIT_PLAN``: a few whole plans are listed; ``choices.slots`` gives, per slot, the
  hand cards it may take (or none), all distinct;
- ``count`` of the free actions: ``choices.count`` is the range that may be bought.
"""

from __future__ import annotations

from collections.abc import Callable

from service.games.blackout_hong_kong.cleanup import discard_entries
from service.games.blackout_hong_kong.effects import decision_entries
from service.games.blackout_hong_kong.free_actions import free_entries
from service.games.blackout_hong_kong.market import market_entries
from service.games.blackout_hong_kong.objectives import objective_entries
from service.games.blackout_hong_kong.patrol import patrol_entries
from service.games.blackout_hong_kong.planning import plan_entries
from service.games.blackout_hong_kong.refill import refill_entries
from service.games.blackout_hong_kong.setup import start_cube_entries
from service.games.blackout_hong_kong.stabilisation import house_entries
from service.games.blackout_hong_kong.volunteers import volunteer_entries
from service.games.protocol import Action, State

ENTRIES: dict[str, Callable[[State, int], list[Action]]] = {
    "plan": plan_entries,
    "p2": volunteer_entries,
    "p3": objective_entries,
    "p4": patrol_entries,
    "p5": market_entries,
    "p8": refill_entries,
}
"""The entries of each step in which seats act (Phases 6 and 7 act only in a collection)."""


def legal_actions(state: State, seat: int) -> list[Action]:
    if state["step"] == "start_cubes" and not state["queue"] and not state["collect"]:
        return start_cube_entries(state, seat)
    return _entries(state, seat) + free_entries(state, seat)


def _entries(state: State, seat: int) -> list[Action]:
    if state["queue"]:
        return decision_entries(state, seat)
    if state["collect"]:
        return _collection_entries(state, seat)
    return ENTRIES[state["step"]](state, seat)


def _collection_entries(state: State, seat: int) -> list[Action]:
    if seat not in state["collect"]["waiting"]:
        return []
    return (
        discard_entries(state, seat) if state["collect"]["kind"] == "discard" else house_entries(state, seat)
    )
