"""The rule for text other people are shown (a player's name, a reason): one implementation, whichever way
the text comes (a request's JSON, a game record, ``matchlog keys create``)."""

from __future__ import annotations

import unicodedata

from service.games.texts import catalogue

_ = catalogue(__file__).gettext

DIRECTION_CHARACTERS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
BLANK_LOOKING = frozenset("\u115f\u1160\u2800\u3164\uffa0")  # fillers that are letters or symbols to Unicode

LONGEST_NAME = 64
"""The most characters of a name people are shown."""


def odd_text(value: str) -> str | None:
    """Why ``value`` cannot be shown to other people, or None: it must show something visible, with no
    control characters, line or paragraph separators or direction marks, which would hide or reorder what
    is around it."""
    odd = next(
        (c for c in value if unicodedata.category(c) in ("Cc", "Zl", "Zp") or c in DIRECTION_CHARACTERS), None
    )
    if odd is not None:
        return _("no control, line-break or direction characters (U+{code})", code=format(ord(odd), "04X"))
    if not any(unicodedata.category(c)[0] in "LNPS" and c not in BLANK_LOOKING for c in value):
        return _("more than blanks, please")
    return None


def name_refusal(name: object) -> str | None:
    """Why ``name`` cannot be a name people are shown, or None: the rule a player's name sent as JSON meets
    (with the same words), for names that come another way (a game record, ``matchlog keys create``)."""
    if not isinstance(name, str):
        return "Not a valid string."
    if not 1 <= len(name) <= LONGEST_NAME:
        return f"Length must be between 1 and {LONGEST_NAME}."
    return odd_text(name)
