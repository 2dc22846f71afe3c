"""A server match's log as the faces replay it: the table it was played at, its seed, and the actions its seats
took, for a face to play again (``openspiel.MatchlogState.play``).

A log records what actions did (events), not the actions: the action of each step is the legal action whose
play through the engine gives the log's next events. The log is read as a spectator reads it once the match
is over (``GET /v1/matches/{id}/log``, or an open-data export): the seed is revealed, and every entry is
whole. Only the moves the match kept are replayed: an ``undone`` takes back moves, as the server's fold does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from service.domain import replay
from service.domain.chain import Recorded
from service.faces.table import Table, canonical
from service.games.protocol import Action, Event, Played, State


@dataclass(frozen=True)
class Replayed:
    """A finished match's log, made ready for a face."""

    table: Table
    seed: str
    actions: list[tuple[int, Action]]
    """(seat, action) of each move the match kept, in order, as the server took it."""


def replayed(log: Sequence[dict[str, Any]]) -> Replayed:
    """The table, seed and actions of a log (its entries as JSON objects); ValueError when the seed is not
    revealed (the match is not over) or an entry is not what any legal action makes."""
    entries = [Recorded.from_dict(entry) for entry in log]
    if not entries or entries[0].type != "match_created":
        raise ValueError("a log starts with its match_created entry")
    created = entries[0].data
    table = Table.of_match(created["game"], created["options"], len(created["players"]))
    seed = next((e.data["seed"] for e in entries if e.type == "seed_revealed"), None)
    if seed is None:
        raise ValueError("the log's seed is not revealed: the match is not over, or the log is a seat's")
    kept = replay.kept_moves(entries)
    actions, _ = actions_of(table, table.setup(seed), [e.event() for e in kept])
    return Replayed(table, seed, actions)


def actions_of(table: Table, state: State, events: Sequence[Event]) -> tuple[list[tuple[int, Action]], State]:
    """The (seat, action) of each move that made ``events`` from ``state``, and the state after them.
    ``events``: the game's events or entries (whose ``version``, ``at``, ``hash`` and ``text`` are left aside).

    An action is the one whose events are the log's; failing that, the first whose events a spectator sees as
    the log's: a log whose private draws lack their card (as some recorded logs of ``tests/fixtures/logs``
    do) names the draw all the same, for a draw from the deck is one action whatever the card."""
    game = table.game
    events = [{"type": e["type"], "seat": e["seat"], "data": e["data"]} for e in events]
    found: list[tuple[int, Action]] = []
    at = 0
    while at < len(events):
        step = None
        for shown in (canonical, lambda event: canonical(game.event_view(event, None))):
            step = _step(table, state, events, at, shown)
            if step is not None:
                break
        if step is None:
            raise ValueError(f"no legal action makes the event {canonical(events[at])[:200]}")
        seat, action, played = step
        found.append((seat, action))
        state = played.states[-1]
        at += len(played)
    return found, state


def _step(
    table: Table, state: State, events: Sequence[Event], at: int, shown: Callable[[Event], str]
) -> tuple[int, Action, Played] | None:
    """The seat, legal action and its events that make ``events[at:]``'s next ones, compared as ``shown``."""
    game = table.game
    first = events[at]["seat"]
    for seat in sorted(game.to_act(state), key=lambda s: s != first):  # the log's seat first: the one, mostly
        for action in game.legal_actions(state, seat):
            played = game.play(state, seat, action)
            n = len(played)
            if n and [shown(e) for e in played] == [shown(e) for e in events[at : at + n]]:
                return seat, action, played
    return None
