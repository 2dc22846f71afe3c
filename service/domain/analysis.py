"""The analysis of a finished match: pure, its whole log in, the analysis out.

For each action a seat chose (not the moves the server made for it: a clock's timeout, a conceded
seat's turns), the game's ``analyst`` values every legal action the seat had, from a state made only of
what the seat could see at that moment (``Engine.seen_by``: never the hidden cards of another seat, the
order of a deck or a die not yet rolled), and the played action is compared with the best it finds. The
difference, the loss, in the game's points, classifies the action (``CLASSES``), and a seat's accuracy
is the mean of ``100 * exp(-loss / ACCURACY_SCALE)`` over its actions that had a choice.

The played action is read back from the log: the legal action whose events, played on the state before
them, are exactly the events the log has. Undone moves are left out. Nothing here reads a clock or a
global random generator, so the same log always gives the same analysis
(docs/howto/analysis.md has the thresholds and the methods per game).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Sequence
from typing import Any

from service.domain import replay
from service.domain.chain import Recorded
from service.domain.errors import NoAnalysis
from service.games import GAMES
from service.games.protocol import Action, Game, IllegalAction

CLASSES: tuple[tuple[str, float], ...] = (
    ("best", 0.0),
    ("good", 1.0),
    ("inaccuracy", 3.0),
    ("mistake", 6.0),
)
"""An action's class: the first whose bound its loss (points below the best found) does not exceed;
above the last, ``blunder``. The bounds are in the game's points, the same for every game."""
BLUNDER = "blunder"
ACCURACY_SCALE = 5.0
"""The loss, in points, that takes an action's accuracy from 100 down to 100/e (about 37)."""
EPSILON = 1e-9
"""Losses this small are float noise: the action is the best."""
NOT_CHOSEN = (replay.BY_TIMEOUT, replay.BY_CONCESSION)
"""``acted_by`` marks of moves the server made for a seat: not the seat's choice, not analysed."""


def available(engine: Game) -> bool:
    return engine.analyst is not None


def classify(loss: float) -> str:
    return next((name for name, bound in CLASSES if loss <= bound + EPSILON), BLUNDER)


def accuracy_of(loss: float) -> float:
    return 100.0 * math.exp(-max(loss, 0.0) / ACCURACY_SCALE)


def _plain(value: Any) -> Any:
    """As JSON has it (tuples as lists): how an event's data is compared with the log's."""
    return json.loads(json.dumps(value, sort_keys=True))


def _could_be(action: Action, entry: Recorded) -> bool:
    """A cheap filter before playing: an action whose fields the first event repeats must agree with it."""
    return all(entry.data.get(k, v) == v for k, v in _plain(action).items() if k != "type")


def choices(entries: Sequence[Recorded]) -> list[tuple[replay.MatchState, int, int, Action]]:
    """Every action a seat chose, in log order: ``(state before, seat, version of its first event,
    action)``; the moves an ``undone`` took back are left out."""
    revealed = next((e for e in entries if e.type == "seed_revealed"), None)
    if revealed is None:
        raise ValueError("the log reveals no seed: the match is not over")
    state = replay.start(entries[0], revealed.data["seed"], revealed.data.get("salt"))
    seen = {state.version: state}
    found: list[tuple[replay.MatchState, int, int, Action]] = []
    by: str | None = None
    skip_until = 0
    for i, entry in enumerate(entries[1:], start=1):
        if entry.type == "undone":
            found = [c for c in found if c[2] <= entry.data["to_version"]]
        elif entry.type == "acted_by":
            by = entry.data.get("by")
        elif entry.version > skip_until and entry.type not in replay.SHELL_EVENTS:
            action, length = _played(state, entry, entries[i:])
            if action is not None:
                skip_until = entry.version + length - 1
                if by not in NOT_CHOSEN and entry.seat is not None:
                    found.append((state, entry.seat, entry.version, action))
            by = None
        state = replay.advance(state, entry, lambda version: seen[version])
        seen[state.version] = state
    return found


def _played(
    state: replay.MatchState, first: Recorded, following: Sequence[Recorded]
) -> tuple[Action | None, int]:
    """The action whose events open ``following``, and how many events it made; (None, 0) for events
    no seat's choice made (the game's own steps)."""
    seat = first.seat
    if seat is None or seat not in state.to_act():
        return None, 0
    engine = state.engine
    legal = engine.legal_actions(state.game, seat)
    # the actions the first event agrees with first, then the rest (an event may name a field otherwise)
    for action in itertools.chain(
        (a for a in legal if _could_be(a, first)), (a for a in legal if not _could_be(a, first))
    ):
        try:
            events = engine.play(state.game, seat, action)
        except IllegalAction:
            continue
        logged = following[: len(events)]
        if len(logged) == len(events) and all(
            (e["type"], e.get("seat"), _plain(e["data"])) == (r.type, r.seat, _plain(r.data))
            for e, r in zip(events, logged)
        ):
            return action, len(events)
    return None, 0


def judge(engine: Game, state: dict[str, Any], seat: int, action: Action) -> dict[str, Any] | None:
    """One choice: the played action against the best the analyst finds, from ``seen_by``'s state."""
    seen = engine.seen_by(state, seat)
    if seen is None:
        raise NoAnalysis(f"{engine.info.name} cannot judge a seat's choices from what it sees")
    actions = engine.legal_actions(seen, seat)
    wanted = _plain(action)
    played = next((i for i, a in enumerate(actions) if _plain(a) == wanted), None)
    if played is None:  # not legal in the seat's picture of the game: nothing fair to say about it
        return None
    if len(actions) == 1:
        return {"alternatives": 1, "forced": True, "loss": 0.0, "classification": "best"}
    values = engine.analyst.values(engine, seen, seat, actions, played)
    looked = [(v, i) for i, v in enumerate(values) if v is not None]
    best_value, best = max(looked, key=lambda vi: (vi[0], -vi[1]))
    value = values[played]
    loss = max(0.0, best_value - value)
    return {
        "alternatives": len(actions),
        "forced": False,
        "value": round(value, 3),
        "best_value": round(best_value, 3),
        "best_action": actions[best],
        "loss": round(loss, 3),
        "classification": classify(loss),
    }


def analyse(
    entries: Sequence[Recorded], progress: Callable[[int, int], None] | None = None
) -> dict[str, Any]:
    """The analysis of a finished match from its whole log (``progress(done, total)`` after each choice)."""
    engine = GAMES[entries[0].data["game"]]
    if not available(engine):
        raise NoAnalysis(f"{engine.info.name} has no analysis")
    chosen = choices(entries)
    moves = []
    for done, (state, seat, version, action) in enumerate(chosen, start=1):
        judged = judge(engine, state.game, seat, action)
        if judged is not None:
            moves.append({"version": version, "seat": seat, "action": action, **judged})
        if progress is not None:
            progress(done, len(chosen))
    seats = len(entries[0].data["players"])
    return {
        "game": engine.info.id,
        "version": entries[-1].version,
        "method": engine.analyst.method,
        "thresholds": dict(CLASSES),
        "seats": [_seat_summary(seat, [m for m in moves if m["seat"] == seat]) for seat in range(seats)],
        "moves": moves,
    }


def _seat_summary(seat: int, moves: list[dict[str, Any]]) -> dict[str, Any]:
    chosen = [m for m in moves if not m["forced"]]
    counts = {name: 0 for name, _ in CLASSES} | {BLUNDER: 0}
    for move in chosen:
        counts[move["classification"]] += 1
    accuracy = round(sum(accuracy_of(m["loss"]) for m in chosen) / len(chosen), 1) if chosen else None
    return {
        "seat": seat,
        "actions": len(moves),
        "forced": len(moves) - len(chosen),
        "accuracy": accuracy,
        "classifications": counts,
        "average_loss": round(sum(m["loss"] for m in chosen) / len(chosen), 3) if chosen else None,
    }
