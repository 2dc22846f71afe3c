"""What every phase of Blackout: Hong Kong looks up: the steps of a round and their phase numbers
(written once, here), the pack's cards and tiles, a player's plan cards and holdings, the limited
pools (A-37), the refusal of an action, the event that resolves the head of the effect queue and the
one point every draw of play goes through (``picked``)."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from service.games.blackout_hong_kong.board import board_of
from service.games.kit import event
from service.games.protocol import Draw, Event, IllegalAction, State, Undrawn
from service.games.texts import catalogue

_ = catalogue(__file__).gettext

STEPS = ("start_cubes", "plan", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "over")
"""Where the game stands (§3.9): start cubes (S-12), Phase 1 ("plan") to Phase 8, then over."""
PHASE_OF_STEP = {step: number for number, step in enumerate(STEPS)}  # start cubes 0, Phase 1-8, over 9
NEXT_STEP = dict(itertools.pairwise(STEPS[1:9]))  # plan -> p2 ... p7 -> p8; p8 ends the round
SEQUENTIAL = ("p2", "p3", "p4", "p8")  # one seat after another, each turn ended by turn_ended
ACTIVE_FROM_FIRST = ("p2", "p3", "p4", "p5", "p8")  # the phases whose first seat acts as they begin


def picked(state: State, name: str, items: Sequence[Any]) -> Any:
    """One draw of play, each of ``items`` equally likely (a die's faces, a party's cards): in a game dealt
    from a seed, what ``rng`` picks for the draw's name; in one dealt from drawn items (the AI faces'), the
    item given for it (``given``), or ``Undrawn``, naming its outcomes with their chances, if none was."""
    rng = state["rng"]
    if isinstance(rng, str):
        return random.Random(f"{rng}:{name}").choice(items)
    if name in rng:
        return rng[name]
    counts = Counter(items)  # a value that several items show is one outcome, as likely as they together
    raise Undrawn(Draw(name, tuple(counts), False, tuple(counts.values())))


def given(state: State, name: str, item: Any) -> State:
    """The state with the draw of play ``name`` given (``picked`` picks ``item`` for it)."""
    return {**state, "rng": {**state["rng"], name: item}}


def refuse(reason: str, message: str) -> IllegalAction:
    return IllegalAction(reason, message)


def require_phase(state: State, step: str, rule: str) -> None:
    if state["step"] != step:
        raise refuse(
            "wrong_phase",
            _("{rule}: not in Phase {phase}", rule=rule, phase=PHASE_OF_STEP[step]),
        )


def resolving(kind: str, seat: int, **data: Any) -> Event:
    """The event that resolves the head of the effect queue."""
    return event(kind, seat, queued=True, **data)


def card(state: State, card_id: str) -> dict:
    return board_of(state["content"]).cards[card_id]


def tile(state: State, tile_id: str) -> dict:
    return board_of(state["content"]).tiles[tile_id]


def held(player: dict) -> dict[str, int]:
    """What the player can pay with: the rondel's resources and batteries, and HK$."""
    return {**player["rondel"], "hkd": player["hkd"]}


def plan_at(player: dict, source: dict) -> dict | None:
    """The plan card (with its completed objectives and markers) on an objective space or the
    emergency-plan space; None elsewhere."""
    if source["area"] == "OBJECTIVE_SPACE":
        return player["objectives"][source["index"]]
    if source["area"] == "EMERGENCY_PLAN":
        return player["emergency"] if isinstance(player["emergency"], dict) else None
    return None


def held_plan(player: dict, source: dict) -> dict:
    """The plan card on ``source`` where the rules have put one: the source of an objective being
    completed, or of a plan being marked, finished or closed out."""
    plan = plan_at(player, source)
    assert plan is not None, f"no plan card at {source}"
    return plan


def usable_slots(player: dict) -> list[int]:
    return [1, 2, 3, 4] if player["slot4"] else [1, 2, 3]


def gainable(state: State, player: dict, n: int) -> int:
    """R-0.6, A-37: a gain of cubes onto the rondel is cut to the supply when cubes are limited."""
    return min(n, player["supply"]) if state["options"]["CUBES_LIMITED"] else n


def transport_pool(state: State) -> int:
    if not state["options"]["TRANSPORT_POOL_LIMITED"]:
        return 10**6
    return 24 - sum(player["transport"] for player in state["players"])


def scoring_table(state: State) -> list[int]:
    return state["options"]["SCORING_TABLE"] or state["content"]["scoringTable"]
