"""Phase 3, objectives (§3.3): in turn, each seat completes objectives open to it (on its objective
spaces, its emergency plan, its power restorations and the campaign's shared plans), paying their
costs once the checked requirements hold (R-3.3, R-3.4); a partly completed plan may be closed out
(R-3.7: when offered, or any time in the turn with A-20 ANY_TIME_IN_TURN)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from service.games.blackout_hong_kong import payments
from service.games.blackout_hong_kong.board import board_of
from service.games.blackout_hong_kong.common import (
    card,
    held,
    held_plan,
    plan_at,
    refuse,
    require_phase,
    resolving,
    tile,
)
from service.games.blackout_hong_kong.free_actions import paying
from service.games.kit import Turn
from service.games.protocol import Action, IllegalAction, State
from service.games.texts import catalogue

_ = catalogue(__file__).gettext

Open = tuple[dict, int, dict]
"""An open objective: (its source, its index on the card, the objective)."""


def open_objectives(state: State, seat: int) -> list[Open]:
    """R-3.2: (source, objective index, objective) of every objective open to the seat."""
    player = state["players"][seat]
    out = []
    for i, plan in enumerate(player["objectives"]):
        if plan:
            out += _undone({"area": "OBJECTIVE_SPACE", "index": i}, card(state, plan["card"]), plan["done"])
    if isinstance(player["emergency"], dict):
        out += _undone(
            {"area": "EMERGENCY_PLAN"}, card(state, player["emergency"]["card"]), player["emergency"]["done"]
        )
    for which in ("A", "B"):
        if not player["power"][which]:
            out.append(
                (
                    {"area": "POWER_RESTORATION", "which": which},
                    0,
                    state["content"]["personalBoard"]["powerRestoration"][which],
                )
            )
    for plan in state["shared_plans"]:
        done = [
            k
            for k in range(len(card(state, plan["card"])["objectives"]))
            if seat in plan["done"].get(str(k), [])
        ]
        out += _undone({"area": "SHARED_PLAN", "cardId": plan["card"]}, card(state, plan["card"]), done)
    return out


def _undone(source: dict, plan_card: dict, done: list[int]) -> list[Open]:
    return [(source, k, objective) for k, objective in enumerate(plan_card["objectives"]) if k not in done]


def completable(state: State, seat: int) -> list[Open]:
    """The open objectives whose checked requirements hold and whose cost the seat could pay, counting
    the batteries its HK$ could still buy (R-0.4b): with none, Phase 3 offers the seat nothing."""
    player = state["players"][seat]
    out = []
    for source, index, objective in open_objectives(state, seat):
        if _blocker(state, seat, source, objective):
            continue
        costs = payments.costs_of(objective["requirements"])
        spare = max(0, (player["hkd"] - payments.hkd_due(costs)) // 5)
        holdings = held(player)
        holdings["BATTERY"] += (
            spare if not state["options"]["CUBES_LIMITED"] else min(spare, player["supply"])
        )
        if payments.affordable(costs, holdings):
            out.append((source, index, objective))
    return out


def requirement_check(state: State, seat: int, requirement: dict) -> tuple[bool, list[str]]:
    """R-3.4 for the requirements that are checked, not paid: (holds, tiles it uses)."""
    check = CHECKED.get(requirement["type"])
    return check(state, state["players"][seat], requirement) if check else (True, [])


def _slot_colours(state: State, player: dict, requirement: dict) -> tuple[bool, list[str]]:
    want = _count(requirement["colours"])
    mode = state["options"]["SLOT_REQ_MODE"]
    for stack in player["slots"]:
        have = _count(card(state, entry["card"])["colour"] for entry in stack)
        if mode == "EXACT" and have == want:
            return True, []
        if mode == "CONTAINS" and all(have.get(colour, 0) >= n for colour, n in want.items()):
            return True, []
    return False, []


def _patrol_tiles(state: State, player: dict, requirement: dict) -> tuple[bool, list[str]]:
    owned = [t for t in player["tiles"] if t["faceUp"] or state["options"]["PATROL_REQ_TILES"] == "ANY_OWNED"]
    used: list[str] = []
    for reward in requirement["rewardTypes"]:  # each tile matches one listed type
        match = next(
            (
                t["tile"]
                for t in owned
                if t["tile"] not in used and tile(state, t["tile"])["rewardType"] == reward
            ),
            None,
        )
        if match is None:
            return False, []
        used.append(match)
    return True, used


def _crisis_centre_link(state: State, player: dict, requirement: dict) -> tuple[bool, list[str]]:
    board = board_of(state["content"])
    cubes = set(player["cubes"])
    any_letter = requirement["letter"] == "ANY" or state["options"]["CRISIS_LINK_LETTER_MODE"] == "ANY"
    letters = list(board.letters) if any_letter else [requirement["letter"]]
    return any(
        len(board.letters.get(letter, [])) == 2 and board.linked(cubes, *board.letters[letter])
        for letter in letters
    ), []


CHECKED = {
    "SLOT_COLOURS": _slot_colours,
    "PATROL_TILES": _patrol_tiles,
    "CRISIS_CENTRE_LINK": _crisis_centre_link,
}
"""The requirement types that are checked, not paid (R-3.4), by type."""


def _blocker(state: State, seat: int, source: dict, objective: dict) -> IllegalAction | None:
    """Why the seat may not complete this open objective now, or None."""
    for requirement in objective["requirements"]:
        if not requirement_check(state, seat, requirement)[0]:
            return refuse(
                "requirement_unmet",
                _(
                    "R-3.3, R-3.4: the {requirement} requirement does not hold",
                    requirement=requirement["type"],
                ),
            )
    player = state["players"][seat]
    returned = payments.units_due(payments.costs_of(objective["requirements"]))  # paid cubes come back first
    if (
        not state["options"]["VIRTUAL_MARKERS"]
        and player["supply"] + returned == 0
        and _marked(state, player, source)
    ):
        return refuse(
            "no_marker_cube",
            _("R-3.7, C-6, A-38: no cube in supply to mark the objective (VIRTUAL_MARKERS is off)"),
        )
    return None


def _marked(state: State, player: dict, source: dict) -> bool:
    """Whether completing an objective of ``source`` puts a marker cube on it (R-3.7, C-6)."""
    if source["area"] == "SHARED_PLAN":
        return True
    plan = plan_at(player, source)
    if plan is None:
        return False
    plan_card = card(state, plan["card"])
    return plan_card["kind"] not in ("VOLUNTEER", "SPECIALIST") and len(plan["done"]) + 1 < len(
        plan_card["objectives"]
    )


def complete_objective(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    require_phase(state, "p3", "R-3.1, A-50")
    source, index = action["source"], action["objectiveIndex"]
    found = next(
        (
            objective
            for open_source, k, objective in open_objectives(state, seat)
            if _source_key(open_source) == _source_key(source) and k == index
        ),
        None,
    )
    if found is None:
        raise refuse("unknown_objective", _("R-3.2, R-3.9: no such objective is open to you"))
    blocker = _blocker(state, seat, source, found)
    if blocker:
        raise blocker
    player = state["players"][seat]
    paid = payments.settle(
        payments.costs_of(found["requirements"]), action.get("payment", "AUTO"), held(player), "R-3.3"
    )
    data: dict[str, Any] = {"source": dict(source), "objective": index, "payment": paid}
    if state["options"]["PATROL_REQ_CONSUMES"]:
        data["consumed_tiles"] = [
            t
            for r in found["requirements"]
            if r["type"] == "PATROL_TILES"
            for t in requirement_check(state, seat, r)[1]
        ]
    if source["area"] == "SHARED_PLAN":  # C-6: the seat's own cube marks it (A-38 when none is left)
        data["cube"] = player["supply"] + sum(paid["resources"].values()) > 0  # paying returns cubes first
        data["bonus"] = _shared_plan_bonus(state, seat, source["cardId"], index)
    elif source["area"] in ("OBJECTIVE_SPACE", "EMERGENCY_PLAN"):
        data["card"] = held_plan(player, source)["card"]
    turn.emit("objective_completed", seat, **data)


def _source_key(source: dict) -> tuple:
    return source["area"], source.get("index"), source.get("which"), source.get("cardId")


def _shared_plan_bonus(state: State, seat: int, card_id: str, index: int) -> bool:
    """A-41, C-8: whether completing ``index`` completes every objective of the shared plan for the seat."""
    plan = next(shared for shared in state["shared_plans"] if shared["card"] == card_id)
    done = {int(k) for k, seats in plan["done"].items() if seat in seats} | {index}
    return state["options"]["SHARED_PLAN_BONUS"] and len(done) == len(card(state, card_id)["objectives"])


def closable(state: State, seat: int) -> list[dict]:
    """A-20 ANY_TIME_IN_TURN: the seat's partly completed plans, with their source, in its Phase 3 turn."""
    if state["options"]["CLOSE_OUT_TIMING"] != "ANY_TIME_IN_TURN" or state["step"] != "p3" or state["queue"]:
        return []
    player = state["players"][seat]
    sources = [{"area": "OBJECTIVE_SPACE", "index": i} for i in range(3)] + [{"area": "EMERGENCY_PLAN"}]
    out = []
    for source in sources:
        plan = plan_at(player, source)
        if plan and plan["done"] and card(state, plan["card"])["kind"] in ("CRISIS_PLAN", "EMERGENCY_PLAN"):
            out.append({**source, "card": plan["card"]})
    return out


def resolve_close_out(turn: Turn, seat: int, action: Action) -> None:
    """R-3.7: the close-out offer at the head of the queue answered, or (A-20) a close out on the
    player's own initiative."""
    state = turn.state
    if not state["queue"]:
        _close_out_at_will(turn, seat, action)
        return
    source = state["queue"][0]["source"]
    if action["cardId"] != source.get("card"):
        raise refuse("no_close_out", _("R-3.7: the pending close-out decision is about another card"))
    if action["closeOut"]:
        plan = held_plan(state["players"][seat], source)
        turn.add(
            resolving("plan_closed_out", seat, source=source, card=plan["card"], markers=plan["markers"])
        )
    else:
        turn.add(resolving("plan_kept", seat, card=action["cardId"]))


def _close_out_at_will(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    require_phase(state, "p3", "R-3.7, A-20")
    source = next((c for c in closable(state, seat) if c["card"] == action["cardId"]), None)
    if source is None or not action["closeOut"]:
        raise refuse("no_close_out", _("R-3.7, A-20: no partly completed plan of yours to close out"))
    plan = held_plan(state["players"][seat], source)
    turn.emit("plan_closed_out", seat, source=source, card=plan["card"], markers=plan["markers"])


def objective_entries(state: State, seat: int) -> list[Action]:
    player = state["players"][seat]
    out = []
    for source, index, objective in open_objectives(state, seat):
        if _blocker(state, seat, source, objective):
            continue
        entry = paying(
            {"type": "COMPLETE_OBJECTIVE", "source": source, "objectiveIndex": index},
            payments.costs_of(objective["requirements"]),
            player,
        )
        if entry:
            out.append(entry)
    out += [
        {"type": "RESOLVE_CLOSE_OUT", "cardId": c["card"], "closeOut": True} for c in closable(state, seat)
    ]
    return out + [{"type": "END_TURN"}]


def _count(items: Iterable[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        out[item] = out.get(item, 0) + 1
    return out
