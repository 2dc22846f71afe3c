"""The colours of Blokus in the reader's language: what the picture and the entries' texts call them (the log
and the actions keep the English ids)."""

from __future__ import annotations

from service.games.texts import N_, catalogue

_ = catalogue(__file__).gettext

COLOUR_NAMES = {
    "blue": N_("blue"),
    "yellow": N_("yellow"),
    "red": N_("red"),
    "green": N_("green"),
    "purple": N_("purple"),
    "orange": N_("orange"),
}
"""The colours as the rulebook names them (빨강, 파랑...; 赤, 青...)."""


def colour_name(colour: str) -> str:
    return _(COLOUR_NAMES[colour]) if colour in COLOUR_NAMES else colour
