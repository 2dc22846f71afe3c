"""Blackout: Hong Kong's entries as short sentences in the rulebook's words (``Engine.describe``), made when
read, in the reader's language: "seat 1 placed a cube on yellow location 7".

Each sentence says what a seat saw (the event after ``event_view``: another seat's plan, look at a patrol
or secret choice names nothing). Cards, locations and districts are named by ``names`` from the match's
content pack where the caller lends the state, by their numbers otherwise. An event without a sentence
here is said by the kit's default (its type and values)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from service.games.blackout_hong_kong.board import board_of
from service.games.blackout_hong_kong.common import PHASE_OF_STEP
from service.games.blackout_hong_kong.names import (
    CHECK_ACTIONS,
    card_name,
    check_action_name,
    colour_name,
    district_name,
    location_name,
)
from service.games.protocol import Event, State
from service.games.texts import N_, catalogue

_ = catalogue(__file__).gettext

RESOURCES = {
    "FOOD": N_("food"),
    "TOOLS": N_("tools"),
    "PETROL": N_("petrol"),
    "WATER": N_("water"),
    "BOOKS": N_("books"),
    "MEDICINE": N_("medicine"),
    "BATTERY": N_("battery"),
}


class Namer:
    """The names of one match's cards and locations (its pack's, where the state is lent)."""

    def __init__(self, state: State | None):
        content = state.get("content") if isinstance(state, Mapping) else None
        self.board = board_of(content) if isinstance(content, dict) else None

    def card(self, card_id: Any) -> str:
        cards = self.board.cards if self.board else {}
        return card_name(str(card_id), cards.get(card_id))

    def check_source(self, source_id: Any) -> str:
        """What a check-mark action came from: a personal board's action (by its label) or a card."""
        actions = self.board.check_actions if self.board else {}
        if source_id in actions or (self.board is None and source_id in CHECK_ACTIONS):
            return check_action_name(str(source_id), actions.get(source_id))
        return self.card(source_id)

    def location(self, location_id: Any) -> str:
        places = self.board.locations if self.board else {}
        return location_name(str(location_id), places.get(location_id))


def resource(name: Any) -> str:
    return _(RESOURCES[name]) if name in RESOURCES else str(name).lower().replace("_", " ")


def _who(event: Event) -> str:
    return _("seat {seat}", seat=event["seat"])


Say = Callable[[Event, dict[str, Any], Namer], str]


def _phase_started(e: Event, d: dict[str, Any], n: Namer) -> str:
    phase = PHASE_OF_STEP.get(d.get("step", ""))
    if phase is None or d.get("step") == "over":
        return _("round {round}: the game is over", round=d.get("round"))
    return _("round {round}: phase {phase} begins", round=d.get("round"), phase=phase)


def _dice(e: Event, d: dict[str, Any], n: Namer) -> str:
    faces = d.get("faces") or {}
    shown = _(", ").join(
        _("{die} die on {resource}", die=colour_name(die), resource=resource(face))
        for die, face in faces.items()
    )
    return _("the dice are rolled: {faces}", faces=shown) if shown else _("the dice are rolled")


def _plan_submitted(e: Event, d: dict[str, Any], n: Namer) -> str:
    slots = d.get("slots")
    if not slots:
        return _("{who} made a plan", who=_who(e))
    planned = _(", ").join(
        _("slot {slot}: {card}", slot=slot, card=n.card(card)) for slot, card in slots.items()
    )
    return _("{who} made a plan: {plan}", who=_who(e), plan=planned)


def _cube_placed(e: Event, d: dict[str, Any], n: Namer) -> str:
    if d.get("cost"):
        return _(
            "{who} placed a cube on {location} for {cost} HK$",
            who=_who(e),
            location=n.location(d["location"]),
            cost=d["cost"],
        )
    return _("{who} placed a cube on {location}", who=_who(e), location=n.location(d["location"]))


def _turn_ended(e: Event, d: dict[str, Any], n: Namer) -> str:
    if d.get("patrol") == "skipped":
        return _("{who} ended the turn without a patrol", who=_who(e))
    if d.get("refill") == "declined":
        return _("{who} ended the turn without taking cards back", who=_who(e))
    return _("{who} ended the turn", who=_who(e))


def _collection(e: Event, d: dict[str, Any], n: Namer) -> str:
    if d.get("purpose") == "house":
        return _("the players who stabilised a district choose where their houses go")
    return _("every player chooses the objective cards to discard")


def _final(e: Event, d: dict[str, Any], n: Namer) -> str:
    players = d.get("players") or []
    totals = _(", ").join(_("seat {seat}: {vp} VP", seat=p["seat"], vp=p["total"]) for p in players)
    return _("final scoring: {totals}", totals=totals) if totals else _("final scoring")


def _spoiled(e: Event, d: dict[str, Any], n: Namer) -> str:
    lost = _(", ").join(
        _("{n} {resource}", n=count, resource=resource(name))
        for name, count in d.items()
        if name in RESOURCES and count
    )
    return (
        _("{who} lost spoiled goods: {lost}", who=_who(e), lost=lost)
        if lost
        else _("{who} lost nothing to spoiling", who=_who(e))
    )


SENTENCES: dict[str, Say] = {
    "start_cube_placed": lambda e, d, n: _(
        "{who} placed a start cube on {location}", who=_who(e), location=n.location(d["location"])
    ),
    "cube_placed": _cube_placed,
    "substitute_cube_placed": lambda e, d, n: _(
        "{who} placed a substitute cube in {district}", who=_who(e), district=district_name(d["district"])
    ),
    "cube_not_placed": lambda e, d, n: _("{who} placed no cube", who=_who(e)),
    "round_started": lambda e, d, n: _(
        "round {round} begins; seat {seat} starts", round=d["round"], seat=d["start_seat"]
    ),
    "phase_started": _phase_started,
    "dice_rolled": _dice,
    "transport_bought": lambda e, d, n: (
        _("{who} bought a transport token", who=_who(e))
        if d["n"] == 1
        else _("{who} bought {n} transport tokens", who=_who(e), n=d["n"])
    ),
    "battery_bought": lambda e, d, n: (
        _("{who} bought a battery", who=_who(e))
        if d["n"] == 1
        else _("{who} bought {n} batteries", who=_who(e), n=d["n"])
    ),
    "plan_submitted": _plan_submitted,
    "plans_placed": lambda e, d, n: _("every plan is placed face down"),
    "card_revealed": lambda e, d, n: _(
        "{who} revealed {card} in slot {slot}", who=_who(e), card=n.card(d["card"]), slot=d["slot"]
    ),
    "gathered": lambda e, d, n: _(
        "{who} gathered {n} {resource} with {card}",
        who=_who(e),
        n=d["n"],
        resource=resource(d["resource"]),
        card=n.card(d["card"]),
    ),
    "turn_ended": _turn_ended,
    "objective_completed": lambda e, d, n: (
        _(
            "{who} completed objective {objective} of {card}",
            who=_who(e),
            objective=d["objective"] + 1,
            card=n.card(d["card"]),
        )
        if "card" in d
        else _(
            "{who} completed objective {objective} of a shared plan",
            who=_who(e),
            objective=d["objective"] + 1,
        )
    ),
    "vp_gained": lambda e, d, n: _("{who} gained {n} VP", who=_who(e), n=d["n"]),
    "hkd_gained": lambda e, d, n: _("{who} gained {n} HK$", who=_who(e), n=d["n"]),
    "gps_gained": lambda e, d, n: _("{who} gained {n} GPS", who=_who(e), n=d["n"]),
    "transport_gained": lambda e, d, n: (
        _("{who} gained a transport token", who=_who(e))
        if d["n"] == 1
        else _("{who} gained {n} transport tokens", who=_who(e), n=d["n"])
    ),
    "resource_gained": lambda e, d, n: _(
        "{who} gained {n} {resource}", who=_who(e), n=d["n"], resource=resource(d["resource"])
    ),
    "marker_placed": lambda e, d, n: _("{who} placed a marker", who=_who(e)),
    "plan_kept": lambda e, d, n: _("{who} kept {card}", who=_who(e), card=n.card(d["card"])),
    "plan_closed_out": lambda e, d, n: _(
        "{who} closed out {card} with {markers} markers",
        who=_who(e),
        card=n.card(d["card"]),
        markers=d["markers"],
    ),
    "plan_finished": lambda e, d, n: _(
        "{who} finished {card} with {markers} markers",
        who=_who(e),
        card=n.card(d["card"]),
        markers=d["markers"],
    ),
    "patrol_viewed": lambda e, d, n: _(
        "{who} looked at the patrol tiles of {district}", who=_who(e), district=district_name(d["district"])
    ),
    "patrol_declined": lambda e, d, n: _(
        "{who} declined the patrol in {district}", who=_who(e), district=district_name(d["district"])
    ),
    "patrol_taken": lambda e, d, n: _(
        "{who} patrolled {district} and took a patrol tile",
        who=_who(e),
        district=district_name(d["district"]),
    ),
    "injured": lambda e, d, n: _(
        "{who}: {card} is injured and goes to the hospital", who=_who(e), card=n.card(d["card"])
    ),
    "passed": lambda e, d, n: _("{who} passed", who=_who(e)),
    "card_bought": lambda e, d, n: _(
        "{who} bought {card} (market row {row}, column {col}) for {price} HK$ into objective space {space}",
        who=_who(e),
        card=n.card(d["card"]),
        row=d["row"] + 1,
        col=d["col"] + 1,
        price=d["price"],
        space=d["space"] + 1,
    ),
    "market_decayed": lambda e, d, n: _("the oldest cards leave the market"),
    "row_refilled": lambda e, d, n: _("row {row} of the market is refilled", row=d["row"] + 1),
    "spoiled": _spoiled,
    "collection_started": _collection,
    "discard_submitted": lambda e, d, n: _("{who} chose the objective cards to discard", who=_who(e)),
    "objectives_discarded": lambda e, d, n: _("the chosen objective cards are discarded"),
    "house_chosen": lambda e, d, n: _("{who} chose where a house goes", who=_who(e)),
    "houses_placed": lambda e, d, n: _("the houses are placed"),
    "district_stabilised": lambda e, d, n: _(
        "{district} is stabilised", district=district_name(d["district"])
    ),
    "hand_refilled": lambda e, d, n: _(
        "{who} took the cards of slot {slot} back into the hand", who=_who(e), slot=d["slot"]
    ),
    "row_used": lambda e, d, n: _(
        "{who} used row {row} of {card}", who=_who(e), row=d["row"] + 1, card=n.card(d["card"])
    ),
    "check_action_activated": lambda e, d, n: _(
        "{who} activated the check action of {card}", who=_who(e), card=n.check_source(d["source"])
    ),
    "card_retrieved": lambda e, d, n: _(
        "{who} took {card} back from the hospital", who=_who(e), card=n.card(d["card"])
    ),
    "nothing_retrieved": lambda e, d, n: _("{who} has no card in the hospital to take back", who=_who(e)),
    "nothing_to_activate": lambda e, d, n: _("{who} has no check action to activate", who=_who(e)),
    "end_triggered": lambda e, d, n: _("round {round} is the last", round=d["round"]),
    "threshold_upgraded": lambda e, d, n: _("{who} upgraded the refill threshold", who=_who(e)),
    "slot4_unlocked": lambda e, d, n: _("{who} unlocked the fourth slot", who=_who(e)),
    "final_scoring": _final,
    # listed actions whose first event would show what is hidden (``replay.action_text``), said before it
    "REVEAL_CARD": lambda e, d, n: _("{who} reveals the card in slot {slot}", who=_who(e), slot=d["slot"]),
    "PATROL_CHOOSE_DISTRICT": lambda e, d, n: _(
        "{who} patrols {district}", who=_who(e), district=district_name(d["districtId"])
    ),
    "PATROL_TAKE": lambda e, d, n: _(
        "{who} takes a patrol tile ({challenge})", who=_who(e), challenge=_(str(d["challenge"]).lower())
    ),
    "REFILL_HAND": lambda e, d, n: _(
        "{who} takes the cards of slot {slot} back into the hand", who=_who(e), slot=d["slot"]
    ),
}


def sentence(event: Event, state: State | None = None) -> str | None:
    """The event as a sentence, or None for one without (the kit's default says it)."""
    said = SENTENCES.get(event["type"])
    if said is None:
        return None
    try:
        return said(event, event["data"], Namer(state))
    except (KeyError, TypeError):  # an event of an older log, without a value the sentence names
        return None
