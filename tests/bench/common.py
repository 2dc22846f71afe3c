"""What every benchmark shares: a figure, a timing loop, the machine description and the table."""

from __future__ import annotations

import os
import platform
import random
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    key: str  # the key in the JSON line, e.g. "blokus.movegen_per_s"
    label: str  # the name in the table
    value: float | int | str
    unit: str = ""


def timed_passes(one_pass: Callable[[], int], seconds: float) -> tuple[int, float]:
    """Run ``one_pass`` (which returns how many units it did) until ``seconds`` have gone by,
    at least once. Returns (units, elapsed seconds)."""
    units = 0
    start = time.perf_counter()
    while True:
        units += one_pass()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return units, elapsed


def legal_actions_per_s(game, positions: list, seconds: float) -> float:
    """``game.legal_actions`` calls per second, for the seat to act in each of ``positions``."""
    seats = [game.to_act(state)[0] for state in positions]

    def one_pass() -> int:
        legal_actions = game.legal_actions
        for state, seat in zip(positions, seats):
            legal_actions(state, seat)
        return len(positions)

    calls, elapsed = timed_passes(one_pass, seconds)
    return calls / elapsed


def machine() -> list[Figure]:
    model = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 0
    return [
        Figure("machine.cpu", "CPU", model),
        Figure("machine.cores", "cores (usable)", usable),
        Figure("machine.python", "Python", f"{platform.python_implementation()} {platform.python_version()}"),
        Figure("machine.platform", "platform", platform.platform()),
    ]


def _fmt(value) -> str:
    if isinstance(value, (bool, str)):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:,.1f}"
    return f"{value:,.2f}"


def table(figures: list[Figure]) -> str:
    rows = [(f.label, _fmt(f.value), f.unit) for f in figures]
    widths = [max(len(r[i]) for r in rows + [("name", "figure", "unit")]) for i in range(3)]
    lines = [
        f"{'name':<{widths[0]}}  {'figure':>{widths[1]}}  {'unit'}",
        f"{'-' * widths[0]}  {'-' * widths[1]}  {'-' * widths[2]}",
    ]
    lines += [f"{label:<{widths[0]}}  {value:>{widths[1]}}  {unit}" for label, value, unit in rows]
    return "\n".join(lines)


def json_figures(figures: list[Figure]) -> dict:
    out = {}
    for f in figures:
        value = f.value
        if isinstance(value, float):
            value = round(value, 3)
        out[f.key] = value
    return out


def scripted_match(
    game, rng, players: int, options: dict | None = None
) -> tuple[dict, list[tuple[int, dict, int]]]:
    """A POST /v1/matches body (with its seed, so the server deals the same cards) and a random
    legal game for it, played by the match lifecycle with no server: (seat, action, version after)."""
    from service.domain import lifecycle
    from service.store import packs

    options = options or {}
    seed = f"bench-{rng.getrandbits(48):012x}"
    names = [f"p{i}" for i in range(players)]
    resolved = lifecycle.check_options(game.info.id, options, players)
    content = packs.content_for(game, resolved)
    secret = lifecycle.SeedSecret(seed, "bench")  # the server deals from this seed: seed_known_to_creator
    state = lifecycle.begin(game.info.id, resolved, names, secret, "", content).state
    script = []
    while not state.finished:
        seat = game.to_act(state.game)[0]
        action = rng.choice(game.legal_actions(state.game, seat))
        state = lifecycle.act(state, seat, action, secret, "").state
        script.append((seat, action, state.version))
    body = {
        "game": game.info.id,
        "players": [{"name": n} for n in names],
        "options": options,
        "seed": seed,
        "seed_known_to_creator": True,
    }  # the server must deal what the script was played with
    return body, script


def random_games_per_s(game, players: int, seconds: float, seed: int = 20240601) -> float:
    """Random complete games per second, with the engine alone (setup, legal actions, play)."""
    from service.domain import lifecycle
    from service.store import packs

    resolved = lifecycle.check_options(game.info.id, {}, players)
    content = packs.content_for(game, resolved)
    rng = random.Random(seed)

    def one_game() -> int:
        state = game.setup(resolved, players, str(rng.random()), content)
        while not game.is_over(state):
            seat = game.to_act(state)[0]
            state = game.play(state, seat, rng.choice(game.legal_actions(state, seat))).states[-1]
        return 1

    played, elapsed = timed_passes(one_game, seconds)
    return played / elapsed
