"""Phase 8, refill hand (§3.8): in turn, a seat whose hand is within its refill threshold takes every
card of its fullest slot into hand (R-8.2, R-8.3), or declines; a seat that refilled then activates
check-mark actions it has unlocked, each once a phase (R-8.4, A-34)."""

from __future__ import annotations

from service.games.blackout_hong_kong.common import refuse, require_phase, usable_slots
from service.games.blackout_hong_kong.effects import unlocked_checks
from service.games.kit import Turn
from service.games.protocol import Action, State
from service.games.texts import catalogue

_ = catalogue(__file__).gettext


def refill_slots(state: State, seat: int) -> list[int]:
    """R-8.2, R-8.3: the slots the seat may take into hand now."""
    player = state["players"][seat]
    if len(player["hand"]) > player["threshold"]:
        return []
    sizes = {n: len(player["slots"][n - 1]) for n in usable_slots(player)}
    top = max(sizes.values())
    if top == 0 and not state["options"]["REFILL_ALLOW_EMPTY"]:
        return []
    return [n for n, size in sizes.items() if size == top]


def refill_hand(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    require_phase(state, "p8", "R-8.1")
    if state["turn"].get("refilled"):
        raise refuse("refill_not_allowed", _("R-8.3: one refill a turn"))
    player = state["players"][seat]
    if len(player["hand"]) > player["threshold"]:
        raise refuse(
            "refill_not_allowed",
            _(
                "R-8.2: a hand of {held} is over the limit {limit}",
                held=len(player["hand"]),
                limit=player["threshold"],
            ),
        )
    if action["slot"] not in refill_slots(state, seat):
        raise refuse("not_largest_slot", _("R-8.3, A-32: take a slot with the most cards (not an empty one)"))
    turn.emit(
        "hand_refilled",
        seat,
        slot=action["slot"],
        cards=[entry["card"] for entry in player["slots"][action["slot"] - 1]],
    )


def decline_refill(turn: Turn, seat: int, action: Action) -> None:
    require_phase(turn.state, "p8", "R-8.3")
    if turn.state["turn"].get("refilled"):
        raise refuse("refill_not_allowed", _("R-8.3: you have refilled; END_TURN ends the turn"))
    turn.emit("turn_ended", seat, refill="declined")


def phase8_checks(state: State, seat: int) -> list[str]:
    """The unlocked check-mark actions not yet used this Phase 8 (A-34: the leader's count too, if shared)."""
    used = set(state["turn"].get("checks_used", []))
    if state["options"]["LEADER_SHARES_PHASE8_LIMIT"]:
        used |= set(state["leader_checks"].get(str(seat), []))
    return [check for check in unlocked_checks(state, seat) if check not in used]


def activate_check_action(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    require_phase(state, "p8", "R-8.4, 4.3.3")
    if not state["turn"].get("refilled"):
        raise refuse(
            "not_refilled", _("R-8.4: only a player who refilled this turn activates check-mark actions")
        )
    if action["sourceId"] not in unlocked_checks(state, seat):
        raise refuse(
            "action_locked", _("R-8.4: that action is still under a house or not in your check-mark area")
        )
    if action["sourceId"] not in phase8_checks(state, seat):
        raise refuse("already_used", _("R-8.4, A-34: each action once per Phase 8"))
    turn.emit("check_action_activated", seat, source=action["sourceId"])


def refill_entries(state: State, seat: int) -> list[Action]:
    if not state["turn"].get("refilled"):
        return [{"type": "REFILL_HAND", "slot": n} for n in refill_slots(state, seat)] + [
            {"type": "DECLINE_REFILL"}
        ]
    return [{"type": "ACTIVATE_CHECK_ACTION", "sourceId": c} for c in phase8_checks(state, seat)] + [
        {"type": "END_TURN"}
    ]
