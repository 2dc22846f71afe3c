"""Turn clocks, computed from the log's own times: pure functions, so a replay needs no clock.

A match's ``clock`` holds its settings (Fischer: ``initial_ms`` and ``increment_ms``; or
``per_action_ms``), ``on_timeout``, and where the clocks stood at the last entry: ``remaining_ms`` per
seat, ``used_ms`` (all the time each seat's clock has run: what an undo cannot give back), ``since``
(that entry's time, ms since the epoch) and ``running`` (the seats to act then, each with its own clock:
simultaneous phases run several). Each new entry charges the running seats for the
time since the one before.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any


def at_ms(at: str) -> int:
    """An entry's ``at`` (ISO 8601, UTC) in milliseconds since the epoch."""
    return int(datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() * 1000)


def started(settings: dict[str, Any], players: int, at: str) -> dict[str, Any]:
    """The clocks at creation: nobody's runs until someone is to act."""
    full = settings.get("initial_ms", settings.get("per_action_ms"))
    return {
        **settings,
        "remaining_ms": [full] * players,
        "used_ms": [0] * players,
        "since": at_ms(at),
        "running": [],
    }


def advanced(clock: dict[str, Any], running: list[int], at: str) -> dict[str, Any]:
    """The clocks after an entry at ``at`` that leaves ``running`` to act."""
    now = at_ms(at)
    elapsed = max(0, now - clock["since"])
    remaining, used = list(clock["remaining_ms"]), _used(clock)
    for seat in clock["running"]:
        remaining[seat] -= elapsed
        used[seat] += elapsed
        if seat not in running:  # it has moved: Fischer's increment
            remaining[seat] += clock.get("increment_ms", 0)
    if "per_action_ms" in clock:
        for seat in running:
            if seat not in clock["running"]:  # its turn begins: a fresh allowance
                remaining[seat] = clock["per_action_ms"]
    return {**clock, "remaining_ms": remaining, "used_ms": used, "since": now, "running": list(running)}


def taken_back(back: dict[str, Any], clock: dict[str, Any], at: str) -> dict[str, Any]:
    """The clocks after an undo at ``at`` back to a version whose clocks were ``back``: time spent stays
    spent (each seat is charged for all the time its clock ran since), and what the undone moves earned,
    Fischer increments and fresh per-action allowances, is taken back."""
    now = advanced(clock, clock["running"], at)  # charged up to the undo, nobody's turn ending
    spent = [u - before for u, before in zip(now["used_ms"], _used(back))]
    return {
        **now,
        "remaining_ms": [left - s for left, s in zip(back["remaining_ms"], spent)],
        "running": list(back["running"]),
    }


def _used(clock: dict[str, Any]) -> list[int]:
    return list(clock.get("used_ms") or [0] * len(clock["remaining_ms"]))  # a state folded before it was kept


def remaining_now(clock: dict[str, Any], now: str) -> list[int]:
    """Each seat's time left at ``now`` (the running ones charged up to it)."""
    elapsed = max(0, at_ms(now) - clock["since"])
    return [
        left - elapsed if seat in clock["running"] else left
        for seat, left in enumerate(clock["remaining_ms"])
    ]


def expired(clock: dict[str, Any], now: str) -> list[int]:
    """The running seats whose time is up at ``now``."""
    left = remaining_now(clock, now)
    return [seat for seat in clock["running"] if left[seat] <= 0]


def deadline_ms(clock: dict[str, Any]) -> int | None:
    """When the first running clock runs out (ms since the epoch); None when none runs."""
    if not clock["running"]:
        return None
    return clock["since"] + min(clock["remaining_ms"][seat] for seat in clock["running"])


def shown(clock: dict[str, Any], now: str | None = None) -> dict[str, Any]:
    """The clocks as every seat sees them at ``now`` (at their last entry when None): time left, whose
    clocks run, and the settings."""
    now = now or datetime.fromtimestamp(clock["since"] / 1000, tz=UTC).isoformat(
        timespec="milliseconds"
    ).replace("+00:00", "Z")
    settings = {k: v for k, v in clock.items() if k not in ("remaining_ms", "used_ms", "since", "running")}
    return {**settings, "remaining_ms": remaining_now(clock, now), "running": clock["running"], "as_of": now}
