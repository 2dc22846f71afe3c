"""The round (R-0.1; state machine §3.9): who acts, and every automatic step between decisions.

``state["step"]`` says where the game stands (``common.STEPS``): ``start_cubes`` (S-12), ``plan``
(Phase 1, every seat at once), ``p2``...``p8`` and ``over``. Sequential phases have an ``active``
seat; Phase 5 loops until as many passes in a row as there are players; Phases 6 and 7 collect each
concerned seat's choice (``collect``), at once or in turn order (A-47). While the effect queue is not
empty, only its head's seat acts.

``proceed`` runs after every action: it resolves what needs no choice, one small function per step
(``AUTOMATIC_STEP``), until some seat must decide or the game is over. ``BEGINS`` says what a phase
does as it begins.
"""

from __future__ import annotations

from collections.abc import Callable

from service.games.blackout_hong_kong.cleanup import cleanup, finish_collection
from service.games.blackout_hong_kong.common import NEXT_STEP, SEQUENTIAL, refuse
from service.games.blackout_hong_kong.effects import ongoing, resolve_head
from service.games.blackout_hong_kong.market import can_buy, solo_decay
from service.games.blackout_hong_kong.objectives import closable, completable
from service.games.blackout_hong_kong.patrol import eligible_districts
from service.games.blackout_hong_kong.planning import dice_rolls
from service.games.blackout_hong_kong.refill import refill_slots
from service.games.blackout_hong_kong.scoring import final_scoring
from service.games.blackout_hong_kong.stabilisation import stabilise
from service.games.blackout_hong_kong.volunteers import planned
from service.games.kit import Turn
from service.games.protocol import Action, State
from service.games.texts import catalogue

_ = catalogue(__file__).gettext


def to_act(state: State) -> list[int]:
    if state["step"] == "over":
        return []
    if state["queue"]:
        return [state["queue"][0]["seat"]]
    if state["collect"]:
        waiting = [seat for seat in state["order"] if seat in state["collect"]["waiting"]]
        return waiting if state["options"]["P6_P7_SIMULTANEOUS"] else waiting[:1]
    if state["step"] == "plan":
        return [seat for seat in state["order"] if str(seat) not in state["plans"]]
    return [] if state["active"] is None else [state["active"]]


def proceed(turn: Turn) -> None:
    """Run every automatic step until some seat must decide, or the game is over."""
    while _automatic_step(turn):
        pass


def _automatic_step(turn: Turn) -> bool:
    """One automatic step; False when a seat must decide or the game is over."""
    state = turn.state
    if state["step"] == "over":
        return False
    if state["queue"]:
        return resolve_head(turn)
    if state["collect"]:
        if state["collect"]["waiting"]:
            return False
        finish_collection(turn)
        return True
    step = "sequential" if state["step"] in SEQUENTIAL else state["step"]
    return AUTOMATIC_STEP.get(step, _phase_done)(turn)


def _start_cubes(turn: Turn) -> bool:
    if turn.state["active"] is not None:
        return False
    begin_round(turn, 1, turn.state["start_seat"])
    return True


def _plans(turn: Turn) -> bool:
    state = turn.state
    if len(state["plans"]) < state["n"]:
        return False
    turn.emit("plans_placed", None, slots={k: sorted(v) for k, v in state["plans"].items()})
    next_phase(turn)
    return True


def _sequential(turn: Turn) -> bool:
    state = turn.state
    if state["active"] is None:
        next_phase(turn)
    elif nothing_to_do(state, state["active"]):
        turn.emit("turn_ended", state["active"], auto=True)
    else:
        return False
    return True


def _market(turn: Turn) -> bool:
    state = turn.state
    if state["pass_streak"] >= state["n"]:  # R-5.2 (C-14: one pass with one player)
        next_phase(turn)
    elif state["options"]["AUTO_PASS"] and not can_buy(state, state["active"]):
        turn.emit("passed", state["active"], auto=True)
    else:
        return False
    return True


def _phase_done(turn: Turn) -> bool:
    """p6, p7: their automatic parts ran when they began, and their collection is done."""
    next_phase(turn)
    return True


AUTOMATIC_STEP: dict[str, Callable[[Turn], bool]] = {
    "start_cubes": _start_cubes,
    "plan": _plans,
    "sequential": _sequential,
    "p5": _market,
}


def begin_round(turn: Turn, number: int, start: int) -> None:
    turn.emit("round_started", None, round=number, start_seat=start)
    turn.emit("phase_started", None, round=number, step="plan")
    for roll in dice_rolls(turn.state, number):  # T-1
        turn.emit("dice_rolled", None, **roll)


def next_phase(turn: Turn) -> None:
    state = turn.state
    step, number = state["step"], state["round"]
    if step == "p5" and state["n"] == 1 and state["options"]["SOLO_MARKET_DECAY"] and not state["bought"]:
        solo_decay(turn)
    if step == "p8":
        _end_round(turn, number)
        return
    following = NEXT_STEP[step]
    turn.emit("phase_started", None, round=number, step=following)
    begins = BEGINS.get(following)
    if begins:
        begins(turn)


def _end_round(turn: Turn, number: int) -> None:
    """The final round ends in final scoring (E-3); any other starts the next round (R-0.2, C-14)."""
    state = turn.state
    if state["final_round"] == number:
        turn.emit("final_scoring", None, **final_scoring(turn.state))
        return
    start = state["start_seat"] if state["n"] == 1 else (state["start_seat"] + 1) % state["n"]
    begin_round(turn, number + 1, start)


BEGINS: dict[str, Callable[[Turn], None]] = {
    "p4": lambda turn: ongoing(turn, "PATROL"),
    "p6": cleanup,
    "p7": stabilise,
}
"""What a phase does as it begins, before any seat acts."""


def nothing_to_do(state: State, seat: int) -> bool:
    """A seat whose sequential turn offers no decision at all passes it automatically."""
    step = state["step"]
    if step == "p2":
        return not planned(state, state["players"][seat]) and not state["turn"].get("revealed")
    if step == "p3":  # A-20 ANY_TIME_IN_TURN: closing out a kept plan is a move of the turn too
        return not completable(state, seat) and not closable(state, seat)
    if step == "p4":
        return not state["turn"].get("chosen") and not eligible_districts(state, seat)
    if step == "p8":
        return not state["turn"].get("refilled") and not refill_slots(state, seat)
    return False


def end_turn(turn: Turn, seat: int, action: Action) -> None:
    """END_TURN: the seat's turn of Phase 2, 3 or 8 ends."""
    state = turn.state
    if state["step"] == "p2" and planned(state, state["players"][seat]):
        raise refuse("cards_unrevealed", _("R-2.2: reveal every card you planned this round first"))
    if state["step"] == "p8" and not state["turn"].get("refilled"):
        raise refuse("not_refilled", _("R-8.3: refill or decline (DECLINE_REFILL)"))
    if state["step"] not in ("p2", "p3", "p8"):
        raise refuse("wrong_phase", _("§8.2 #6: END_TURN ends a turn of Phase 2, 3 or 8"))
    turn.emit("turn_ended", seat)
