"""Phase 6, cleanup (§3.6, reconstructed: A-02): the steps ``CLEANUP_STEPS`` names, in order:
market decay (R-6.1), refill (R-6.2), food and water spoiling (R-6.3), ongoing effects (R-6.4), then
each seat's secret choice of objective cards to discard (R-6.5), collected before any is shown.

A collection (``state["collect"]``, Phases 6 and 7) waits for each concerned seat's choice, at once
or in turn order (A-47); once every choice is in, one event shows them all."""

from __future__ import annotations

import itertools

from service.games.blackout_hong_kong.common import refuse
from service.games.blackout_hong_kong.effects import ongoing
from service.games.blackout_hong_kong.market import refill_rows
from service.games.kit import Turn
from service.games.protocol import Action, State
from service.games.texts import catalogue

_ = catalogue(__file__).gettext


def cleanup(turn: Turn) -> None:
    steps = turn.state["options"]["CLEANUP_STEPS"]
    if "MARKET_DECAY" in steps:
        _decay(turn)
    if "REFILL" in steps:
        refill_rows(turn)
    if "SPOILAGE" in steps and turn.state["options"]["FOOD_WATER_CLEANUP"] != "NONE":
        _spoil(turn)
    if "ONGOING_EFFECTS" in steps:
        ongoing(turn, "CLEANUP")
    if "DISCARD_OBJECTIVES" in steps:
        waiting = [seat for seat in turn.state["order"] if discardable(turn.state, seat)]
        if waiting:
            turn.emit("collection_started", None, purpose="discard", waiting=waiting)


def _decay(turn: Turn) -> None:
    market = turn.state["market"]
    if turn.state["options"]["MARKET_DECAY_MODE"] == "RIGHTMOST_OF_EACH_ROW":
        gone = [
            [r, max(c for c in range(3) if market[r][c] is not None), None]
            for r in range(3)
            if any(card is not None for card in market[r])
        ]
    else:
        gone = [[r, 2, None] for r in range(3) if market[r][2] is not None]
    for item in gone:
        item[2] = market[item[0]][item[1]]
    if gone:
        turn.emit("market_decayed", None, cards=gone)


def _spoil(turn: Turn) -> None:
    sell = turn.state["options"]["FOOD_WATER_CLEANUP"] == "SELL_1HKD_EACH"
    for seat in turn.state["order"]:
        rondel = turn.state["players"][seat]["rondel"]
        if rondel["FOOD"] or rondel["WATER"]:
            turn.emit(
                "spoiled",
                seat,
                FOOD=rondel["FOOD"],
                WATER=rondel["WATER"],
                sold_for=rondel["FOOD"] + rondel["WATER"] if sell else 0,
            )


def discardable(state: State, seat: int) -> list[str]:
    player = state["players"][seat]
    cards = [plan["card"] for plan in player["objectives"] if plan]
    if state["options"]["EMERGENCY_PLAN_DISCARDABLE"] and isinstance(player["emergency"], dict):
        cards.append(player["emergency"]["card"])
    return cards


def discard_objectives(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    collect = state["collect"]
    if not collect or collect["kind"] != "discard" or seat not in collect["waiting"]:
        raise refuse("wrong_phase", _("R-6.5: no discard of yours is due"))
    allowed = discardable(state, seat)
    cards = list(action["cardIds"])
    if len(set(cards)) != len(cards) or any(c not in allowed for c in cards):
        raise refuse("not_discardable", _("R-6.5, A-06: discard only cards of your objective area"))
    turn.emit("discard_submitted", seat, cards=sorted(cards), hidden=state["options"]["P6_P7_SIMULTANEOUS"])


def finish_collection(turn: Turn) -> None:
    """Every choice of the collection is in: show them all (discards of Phase 6, houses of Phase 7)."""
    collect = turn.state["collect"]
    if collect["kind"] == "discard":
        turn.emit("objectives_discarded", None, discards=dict(sorted(collect["submitted"].items())))
    else:
        turn.emit("houses_placed", None, houses=dict(sorted(collect["submitted"].items())))


def discard_entries(state: State, seat: int) -> list[Action]:
    cards = discardable(state, seat)
    return [
        {"type": "CLEANUP_DISCARD_OBJECTIVES", "cardIds": list(chosen)}
        for size in range(len(cards) + 1)
        for chosen in itertools.combinations(cards, size)
    ]
