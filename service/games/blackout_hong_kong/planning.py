"""Phase 1, dice and planning (§3.1): the three dice rolled until their faces differ, then every seat
plans at once, in secret, which hand cards go face down on which slots (R-1.5, A-51)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.games.blackout_hong_kong.board import DICE
from service.games.blackout_hong_kong.common import picked, refuse, usable_slots
from service.games.kit import Turn
from service.games.protocol import Action, State
from service.games.texts import catalogue

_ = catalogue(__file__).gettext


def dice_rolls(state: State, number: int) -> list[dict[str, Any]]:
    """Round ``number``'s rolls (R-1.1 to R-1.4, T-1), each die drawn through ``picked``."""
    dice = {die["colour"]: die["faces"] for die in state["content"]["dice"]}

    def face(colour: str, attempt: int) -> str:
        return picked(state, f"dice:{number}:{attempt}:{colour}", dice[colour])

    return roll_until_valid(face, state["options"]["DICE_REROLL_POLICY"])


def roll_until_valid(face: Callable[[str, int], str], policy: str) -> list[dict[str, Any]]:
    """R-1.2, R-1.3, A-11: roll the three dice, then reroll duplicates until all three faces differ.
    ``face(colour, attempt)`` is one die's roll; every roll is returned, for the log (T-1)."""
    attempt = 0
    faces = {colour: face(colour, attempt) for colour in DICE}
    rolls = [{"faces": dict(faces), "rerolled": list(DICE)}]
    while len(set(faces.values())) < len(DICE) and attempt < 1000:
        attempt += 1
        again = rerolled(faces, policy)
        faces = {colour: face(colour, attempt) if colour in again else faces[colour] for colour in DICE}
        rolls.append({"faces": dict(faces), "rerolled": again})
    return rolls


def rerolled(faces: dict[str, str], policy: str) -> list[str]:
    """Which dice a roll with duplicates rerolls: every matching die, or all but one of each group."""
    groups: dict[str, list[str]] = {}
    for colour in DICE:
        groups.setdefault(faces[colour], []).append(colour)
    out = []
    for members in groups.values():
        if len(members) > 1:
            out += members if policy == "REROLL_ALL_MATCHING" else members[1:]
    return [colour for colour in DICE if colour in out]


def submit_plan(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    if state["step"] != "plan" or state["queue"]:
        raise refuse("wrong_phase", _("R-1.5: plans are submitted in Phase 1"))
    if str(seat) in state["plans"] and not state["options"]["PLAN_REVISABLE"]:
        raise refuse("plan_closed", _("R-1.7, A-51: this plan is already in (PLAN_REVISABLE is off)"))
    player = state["players"][seat]
    slots = action["slots"]
    cards = list(slots.values())
    if len(set(cards)) != len(cards):
        raise refuse("duplicate_card", _("R-1.5: the planned cards must be distinct"))
    for slot, card in slots.items():
        if card not in player["hand"]:
            raise refuse("not_in_hand", _("R-1.5: {card} is not in your hand", card=card))
        if int(slot) not in usable_slots(player):
            raise refuse("slot_locked", _("R-1.5: slot 4 is locked until power restoration B"))
    turn.emit("plan_submitted", seat, slots=dict(sorted(slots.items())))


def plan_entries(state: State, seat: int) -> list[Action]:
    """A handful of whole plans (the empty one, and the hand in turn filling every slot); ``choices``
    spells out the rest: each slot takes any hand card or none, all distinct."""
    player = state["players"][seat]
    slots = [str(n) for n in usable_slots(player)]
    hand = sorted(player["hand"])
    plans: list[dict[str, str]] = [{}]  # slot -> card
    for shift in range(len(hand)):
        turned = hand[shift:] + hand[:shift]
        plans.append(dict(zip(slots, turned)))
    choices = {"slots": dict.fromkeys(slots, hand), "distinct": True}
    unique = {tuple(sorted(plan.items())): plan for plan in plans}
    return [{"type": "SUBMIT_PLAN", "slots": plan, "choices": choices} for plan in unique.values()]
