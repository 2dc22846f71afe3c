"""The names the box gives Blackout's cards, locations and districts, in the reader's language: what the
picture and the entries' texts call them (the board's page says the same in ``board.js``). An id such as
``OC46`` or ``L07`` is the pack's, a detail for a tooltip, not a name.

A name is made from what the seat may see anyway: the card's public summary (``visibility._card_summary``,
or the pack's card itself where the caller holds the pack) for an id the seat was shown."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from service.games.texts import N_, catalogue

_ = catalogue(__file__).gettext

ROLES = {
    "LEADER": N_("Leader"),
    "PATROL_OFFICER": N_("Patrol officer"),
    "MECHANIC": N_("Mechanic"),
    "DOCTOR": N_("Doctor"),
}
"""The specialists by their role, as the Korean rulebook names them (지도자, 순찰대원, 정비공, 의사)."""

COLOURS = {
    "YELLOW": N_("yellow"),
    "BLUE": N_("blue"),
    "PURPLE": N_("purple"),
    "RED": N_("red"),
    "GREEN": N_("green"),
}

CHECK_ACTIONS = {
    "petrol-reward": N_("Petrol reward"),
    "tools-reward": N_("Tools reward"),
    "cash-reward": N_("Cash reward"),
    "transport-reward": N_("Transport reward"),
    "battery-reward": N_("Battery reward"),
}
"""The personal board's check-mark actions by the pack's id, as the shipped pack labels them: a label of
another pack (or another label under the same id) is said as the pack wrote it."""

CHAPTERS = {1: N_("48 hours without power")}
"""The campaign chapters' titles by number, as the shipped pack titles them (the same rule as the labels)."""


def colour_name(colour: str | None) -> str:
    return _(COLOURS[colour]) if colour in COLOURS else (colour or "").lower()


def card_name(card_id: str, card: Mapping[str, Any] | None) -> str:
    """A card by what the box calls it: a specialist's role, a volunteer's colour, a plan's letter."""
    kind = card.get("kind") if card else None
    if card is None or kind is None:
        return _("card {id}", id=card_id)
    if kind == "SPECIALIST":
        role = card.get("role")
        return _(ROLES[role]) if role in ROLES else str(card.get("name") or _("specialist"))
    if kind == "VOLUNTEER":
        return _("{colour} volunteer", colour=colour_name(card.get("colour")))
    if kind == "EMERGENCY_PLAN":
        return _("emergency plan {letter}", letter=card.get("letter") or card_id)
    if kind == "CRISIS_PLAN":
        return _("crisis plan {number}", number=number_of(card_id))
    return _("card {id}", id=card_id)


def check_action_name(action_id: str, action: Mapping[str, Any] | None) -> str:
    """A personal board's check-mark action by its label (``action``: the pack's entry, where known)."""
    known = CHECK_ACTIONS.get(action_id)
    label = action.get("label") if action else known
    return _(known) if known is not None and label == known else str(label or action_id)


def chapter_title(chapter: Mapping[str, Any]) -> str:
    """A campaign chapter's title (the pack's ``campaign.chapters`` entry)."""
    known = CHAPTERS.get(chapter["number"])
    title = chapter.get("title")
    return _(known) if known is not None and title == known else str(title or chapter["number"])


def location_name(location_id: str, location: Mapping[str, Any] | None) -> str:
    """A location by its colour and the number the map shows, or by its crisis letter."""
    if location is None:
        return _("location {number}", number=number_of(location_id))
    colour = colour_name(location.get("colour"))
    if location.get("crisisLetter"):
        return _("crisis centre {letter} ({colour})", letter=location["crisisLetter"], colour=colour)
    return _("{colour} location {number}", colour=colour, number=number_of(location_id))


def district_name(district_id: str) -> str:
    return _("district {number}", number=number_of(district_id))


def number_of(place_id: str) -> str:
    """The number a map shows for a place's id (L07 -> 7, D12 -> 12); an id of another form as it is."""
    found = re.fullmatch(r"[A-Z]+0*(\d+)", place_id)
    return found.group(1) if found else place_id
