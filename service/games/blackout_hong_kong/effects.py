"""The effect queue (§1.4.8, §3.9): how each effect on a card is resolved.

Effects wait in ``state["queue"]``, each with the seat it is for. The head is resolved by one event
(``resolving``: ``queued: true``). An effect that needs no choice is resolved automatically through
``AUTOMATIC``, a table of small functions by effect type (as ``@applies`` is for folds); each returns
the resolving event, or None when the seat must decide. A decision is answered by the action of
``DECISIONS`` (``PLACE_CUBE``, ``CHOOSE_RESOURCE``, ``RETRIEVE_CARD``, ``CHOOSE_CHECK_ACTION``,
``RESOLVE_CLOSE_OUT``); the first four are here, the close out with the objectives of Phase 3.

Also here: where a cube may be placed (R-3.12), the check-mark actions a seat has unlocked (R-8.4)
and their effects, and ongoing effects of cards in the check-mark area (R-6.4).
"""

from __future__ import annotations

from collections.abc import Callable

from service.games.blackout_hong_kong.board import RESOURCES, board_of
from service.games.blackout_hong_kong.common import (
    card,
    gainable,
    held_plan,
    refuse,
    resolving,
    transport_pool,
)
from service.games.kit import Turn
from service.games.protocol import Action, Event, State
from service.games.texts import catalogue

_ = catalogue(__file__).gettext

DECISIONS = {
    "PLACE_CUBE": "PLACE_CUBE",
    "GAIN_RESOURCE": "CHOOSE_RESOURCE",
    "RETRIEVE_FROM_HOSPITAL": "RETRIEVE_CARD",
    "ACTIVATE_CHECK_ACTION": "CHOOSE_CHECK_ACTION",
    "CLOSE_OUT_OFFER": "RESOLVE_CLOSE_OUT",
}
"""Effect type -> the action that answers it when the seat must decide."""

Resolution = Callable[[State, int, dict, dict], "Event | None"]
AUTOMATIC: dict[str, Resolution] = {}


def automatic(*kinds: str) -> Callable[[Resolution], Resolution]:
    """Mark a function ``(state, seat, effect, head)`` as the automatic resolution of these effect types."""

    def mark(resolution: Resolution) -> Resolution:
        for kind in kinds:
            AUTOMATIC[kind] = resolution
        return resolution

    return mark


def resolve_head(turn: Turn) -> bool:
    """Resolve the queue head if it needs no choice; False when its seat must decide."""
    state = turn.state
    head = state["queue"][0]
    resolution = AUTOMATIC.get(head["effect"]["type"])
    resolved = resolution(state, head["seat"], head["effect"], head) if resolution else None
    if resolved is None:
        return False
    turn.add(resolved)
    return True


# -- effects resolved without a choice ---------------------------------------------------------------


@automatic("POINTS")
def _points(state: State, seat: int, effect: dict, head: dict) -> Event:
    return resolving("vp_gained", seat, n=effect["n"])


@automatic("HKD")
def _hkd(state: State, seat: int, effect: dict, head: dict) -> Event:
    return resolving("hkd_gained", seat, n=effect["n"])


@automatic("GAIN_TRANSPORT")
def _transport(state: State, seat: int, effect: dict, head: dict) -> Event:
    return resolving(
        "transport_gained", seat, n=min(effect["n"], transport_pool(state))
    )  # what the pool has


@automatic("GAIN_RESOURCE")
def _resource(state: State, seat: int, effect: dict, head: dict) -> Event | None:
    n = gainable(state, state["players"][seat], effect["n"])
    if effect["resource"] != "CHOICE":
        return resolving("resource_gained", seat, resource=effect["resource"], n=n)
    if not n:
        return resolving("resource_gained", seat, resource="FOOD", n=0)  # nothing to gain
    return None  # the seat chooses (CHOOSE_RESOURCE)


@automatic("GAIN_BATTERY")
def _battery(state: State, seat: int, effect: dict, head: dict) -> Event:
    return resolving(
        "resource_gained", seat, resource="BATTERY", n=gainable(state, state["players"][seat], effect["n"])
    )


@automatic("GAIN_GPS")
def _gps(state: State, seat: int, effect: dict, head: dict) -> Event:
    n = effect["n"]
    if state["options"]["GPS_POOL_LIMITED"]:
        n = min(n, 12 - sum(player["gps"] for player in state["players"]))
    return resolving("gps_gained", seat, n=n)


@automatic("PLACE_CUBE")
def _no_placement(state: State, seat: int, effect: dict, head: dict) -> Event | None:
    if placements(state, seat, effect["colour"]):
        return None  # the seat chooses where (PLACE_CUBE)
    return resolving("cube_not_placed", seat, why="no target or no cube in supply (A-15)")


@automatic("RETRIEVE_FROM_HOSPITAL")
def _empty_hospital(state: State, seat: int, effect: dict, head: dict) -> Event | None:
    return None if state["players"][seat]["hospital"] else resolving("nothing_retrieved", seat)


@automatic("ACTIVATE_CHECK_ACTION")
def _no_check_action(state: State, seat: int, effect: dict, head: dict) -> Event | None:
    return None if unlocked_checks(state, seat) else resolving("nothing_to_activate", seat)


@automatic("REVEAL_HAND_GAIN_HKD_PER_ICON")
def _hand_revealed(state: State, seat: int, effect: dict, head: dict) -> Event:
    cards = sorted(state["players"][seat]["hand"])
    icons = sum(card(state, c)["searchIcons"] for c in cards)
    return resolving("hand_revealed", seat, cards=cards, hkd=icons * effect["perIcon"])


@automatic("UPGRADE_REFILL_THRESHOLD")
def _threshold(state: State, seat: int, effect: dict, head: dict) -> Event:
    return resolving("threshold_upgraded", seat)


@automatic("UNLOCK_SLOT4")
def _slot4(state: State, seat: int, effect: dict, head: dict) -> Event:
    return resolving("slot4_unlocked", seat)


@automatic("MARKER")
def _marker(state: State, seat: int, effect: dict, head: dict) -> Event:
    return resolving(
        "marker_placed", seat, source=head["source"], virtual=state["players"][seat]["supply"] == 0
    )


@automatic("FINISH_PLAN")
def _finish_plan(state: State, seat: int, effect: dict, head: dict) -> Event:
    plan = held_plan(state["players"][seat], head["source"])
    return resolving("plan_finished", seat, source=head["source"], card=plan["card"], markers=plan["markers"])


# -- what the rules of the effects look up --------------------------------------------------------------


def placements(state: State, seat: int, colour: str) -> dict[str, int]:
    """R-3.12: every location the seat may put a cube on, with its transport cost."""
    player = state["players"][seat]
    if player["supply"] <= 0 and state["options"]["CUBES_LIMITED"]:
        return {}
    board = board_of(state["content"])
    own = set(player["cubes"])
    free = [location for location in board.locations if location not in own]
    if colour != "ANY":  # the colour is ignored once the seat holds every location of it
        free = [location for location in free if board.locations[location]["colour"] == colour] or free
    blocked = colour if state["options"]["SKIP_RULE"] == "OTHER_COLOUR_ONLY" and colour != "ANY" else None
    table = board.distances(blocked)
    affordable = player["transport"] + transport_pool(
        state
    )  # R-3.12(4): the shortfall is bought, pool allowing
    out = {}
    for target in free:
        reach = [table[origin][target] for origin in own if target in table[origin]]
        if own and not reach:
            continue
        cost = max(0, min(reach) - 1) if reach else 0
        if cost <= affordable:
            out[target] = cost
    return out


def unlocked_checks(state: State, seat: int) -> list[str]:
    """R-8.4: personal actions whose house has gone, and actions of cards in the check-mark area."""
    player = state["players"][seat]
    personal = [space["action"] for space in player["spaces"] if not space["covered"]]
    cards = [c for c in player["check_area"] if card(state, c).get("checkAction")]
    return personal + cards


def check_effects(state: State, source: str) -> list:
    """The effects of a check-mark action: a personal board space's, or a card's."""
    board = board_of(state["content"])
    if source in board.check_actions:
        return list(board.check_actions[source]["effects"])
    return list(board.cards[source].get("checkAction", []))


def ongoing(turn: Turn, phase: str) -> None:
    """R-6.4 and the patrol counterpart: ongoing effects of cards in each check-mark area."""
    for seat in turn.state["order"]:
        for card_id in turn.state["players"][seat]["check_area"]:
            effect = card(turn.state, card_id).get("ongoingEffect")
            if effect and effect["phase"] == phase:
                turn.emit("ongoing_effect", seat, card=card_id, effect=effect["effect"])


# -- decisions: the actions that answer a pending effect ------------------------------------------------


def place_cube(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    targets = placements(state, seat, state["queue"][0]["effect"]["colour"])
    location = action.get("locationId")
    if location is None:
        if not state["options"]["PLACE_CUBE_DECLINABLE_WHEN_COSTLY"] or min(targets.values()) == 0:
            raise refuse("cannot_decline", _("R-3.12(7), A-15: the placement is mandatory"))
        turn.add(resolving("cube_not_placed", seat, why="declined (A-15)"))
        return
    if location not in targets:
        raise refuse(
            "not_a_target",
            _(
                "R-3.12: not a location you may place on (your own cube is there, or "
                "the colour does not match)"
            ),
        )
    cost = targets[location]
    bought = max(0, cost - state["players"][seat]["transport"])  # R-3.12(4): the shortfall costs VP
    turn.add(resolving("cube_placed", seat, location=location, cost=cost, bought=bought))


def choose_resource(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    n = gainable(state, state["players"][seat], state["queue"][0]["effect"]["n"])
    turn.add(resolving("resource_gained", seat, resource=action["resource"], n=n))


def retrieve_card(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    if action["cardId"] not in state["players"][seat]["hospital"]:
        raise refuse("not_a_target", _("§4.1 doctor: that card is not in your hospital"))
    turn.add(
        resolving(
            "card_retrieved", seat, card=action["cardId"], points=card(state, action["cardId"])["points"]
        )
    )


def choose_check_action(turn: Turn, seat: int, action: Action) -> None:
    if action["sourceId"] not in unlocked_checks(turn.state, seat):
        raise refuse("action_locked", _("§4.1 leader: that check-mark action is not unlocked"))
    turn.add(resolving("check_action_activated", seat, source=action["sourceId"], via="LEADER"))


def decision_entries(state: State, seat: int) -> list[Action]:
    """The answers to the pending decision at the head of the queue."""
    head = state["queue"][0]
    effect = head["effect"]
    kind = effect["type"]
    if kind == "PLACE_CUBE":
        return _placement_entries(state, seat, effect["colour"])
    if kind == "GAIN_RESOURCE":
        return [{"type": "CHOOSE_RESOURCE", "resource": resource} for resource in RESOURCES]
    if kind == "RETRIEVE_FROM_HOSPITAL":
        return [{"type": "RETRIEVE_CARD", "cardId": c} for c in state["players"][seat]["hospital"]]
    if kind == "ACTIVATE_CHECK_ACTION":
        return [{"type": "CHOOSE_CHECK_ACTION", "sourceId": c} for c in unlocked_checks(state, seat)]
    return [
        {"type": "RESOLVE_CLOSE_OUT", "cardId": head["source"]["card"], "closeOut": choice}
        for choice in (False, True)
    ]


def _placement_entries(state: State, seat: int, colour: str) -> list[Action]:
    targets = placements(state, seat, colour)
    out: list[Action] = [
        {"type": "PLACE_CUBE", "locationId": location, "choices": {"transport": cost}}
        for location, cost in sorted(targets.items())
    ]
    if state["options"]["PLACE_CUBE_DECLINABLE_WHEN_COSTLY"] and min(targets.values()) > 0:
        out.append({"type": "PLACE_CUBE", "locationId": None})
    return out
