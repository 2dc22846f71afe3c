"""Bots: players the server provides, for any game, from the protocol alone.

A bot sees exactly what its seat may see: a ``SeatView`` holds the seat's ``view`` (the game's one
gate for hidden information), its legal actions, and, for those that ask, the standing each legal
action would give the seat at once (scores and ranks as the game counts them). It never holds the
state. Bots are pure: the same ``SeatView`` and random generator give the same action, so a bot's play
replays exactly when its generator is seeded from the match.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class SeatView:
    seat: int
    view: dict[str, Any]
    legal_actions: list[dict[str, Any]]
    standing_after: Callable[[int], dict[str, Any]] = field(repr=False)
    """``standing_after(i)``: ``{"scores", "ranks"}`` right after legal action ``i``, played on the game's
    ``seen_by`` state (what the seat could know: another hand, a draw or a roll to come decided by its view
    alone, never the match's own)."""
    state: dict[str, Any] | None = field(default=None, repr=False)
    """The game state itself, given only in games with neither hidden information nor chance, where
    the seat sees all of it anyway: what a search bot plays ahead from."""
    rules: Any = field(default=None, repr=False)
    """The game's engine, given with ``state``: what a search bot plays ahead with."""
    level: int = 1
    """1 to 3: how long a searching bot may think per move (the game's bot says what each means)."""


class Bot(Protocol):
    def choose(self, seat: SeatView, rng: random.Random) -> dict[str, Any]: ...


class RandomBot:
    """Any legal action, uniformly."""

    def choose(self, seat: SeatView, rng: random.Random) -> dict[str, Any]:
        return rng.choice(seat.legal_actions)


class GreedyBot:
    """The action with the best immediate standing: its rank first, then its score (counted the way
    the game's ranks count it), ties broken at random."""

    def choose(self, seat: SeatView, rng: random.Random) -> dict[str, Any]:
        standings = [seat.standing_after(i) for i in range(len(seat.legal_actions))]
        direction = next((d for d in map(_direction, standings) if d), 1)
        keys = [(-s["ranks"][seat.seat], direction * s["scores"][seat.seat]) for s in standings]
        best = max(keys)
        return seat.legal_actions[rng.choice([i for i, key in enumerate(keys) if key == best])]


def _direction(standing: dict[str, Any]) -> int:
    """+1 when a higher score ranks better, -1 when a lower one does, 0 when the ranks do not say."""
    pairs = list(zip(standing["scores"], standing["ranks"]))
    for score, rank in pairs:
        for other_score, other_rank in pairs:
            if rank < other_rank and score != other_score:
                return 1 if score > other_score else -1
    return 0


BOTS: dict[str, Bot] = {"random": RandomBot(), "greedy": GreedyBot()}
"""The bots every game has, by the name a match's ``players`` give them; a game adds its own
(``Game.bots``, such as ``blokus-strong``)."""


def bots_of(game: Any) -> dict[str, Bot]:
    """Every bot that can play ``game``: the common ones and the game's own."""
    return {**BOTS, **game.bots}


def bot_name(spec: str) -> tuple[str, int]:
    """A seat's bot as the log keeps it, ``name`` or ``name:level``, as (name, level)."""
    name, _, level = spec.partition(":")
    return name, int(level or 1)


def shown_bot(spec: str | None) -> dict[str, Any]:
    """A seat's bot as the API shows it: ``{"bot": name}``, the name as the catalogue lists it, with
    ``"level"`` where its creator chose one; nothing for a person's seat."""
    if not spec:
        return {}
    name, level = bot_name(spec)
    return {"bot": name, "level": level} if ":" in spec else {"bot": name}
