"""BLOCK.BLOCK's words in the reader's language: the players' colours and why a game ended, as the picture
and the entries' texts say them (the log keeps BROWN, WHITE and the reasons' ids)."""

from __future__ import annotations

from service.games.texts import N_, catalogue

_ = catalogue(__file__).gettext

COLOUR_WORDS = {"BROWN": N_("brown"), "WHITE": N_("white")}
"""The players' colours in the reader's words (the log keeps BROWN and WHITE)."""


def colour_word(colour: str) -> str:
    return _(COLOUR_WORDS[colour]) if colour in COLOUR_WORDS else colour.lower()


END_REASONS = {
    "RESIGNED": N_("resigned"),
    "SCORE": N_("score"),
    "NO_LEGAL_PLACEMENT": N_("no legal placement"),
}
"""Why a game ended (E-4..E-8), in the reader's words."""


def end_reason(reason: str) -> str:
    known = END_REASONS.get(reason)
    return _(known) if known else reason.replace("_", " ").lower()
