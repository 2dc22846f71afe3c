"""The order of equals: a seeded, reproducible tie-break between players.

A tournament commits to a seed and reveals it at the end; every choice between players who are otherwise
equal (same score, same rating) follows SHA-256 of ``<seed>:<player>``, so the choice cannot be steered by
the organiser and anyone holding the revealed seed gets the same order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from service.domain.errors import PairingRefused


def tiebreak_key(seed: str, player: str) -> str:
    """The player's place among equals under ``seed``: a hex digest, compared as text."""
    return hashlib.sha256(f"{seed}:{player}".encode()).hexdigest()


def distinct(players: Iterable[str]) -> list[str]:
    """The players as a list, refused if one appears twice (``duplicate_player``)."""
    listed = list(players)
    if len(set(listed)) != len(listed):
        twice = sorted({p for p in listed if listed.count(p) > 1})
        raise PairingRefused("duplicate_player", f"named more than once: {', '.join(twice)}")
    return listed
