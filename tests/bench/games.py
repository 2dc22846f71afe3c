"""The benchmark of every registered game, built from the registry: nothing here names a game.

Each game gets the engine figure every game has (random complete games per second) and the API
script (a random legal match for the API benchmark). A game whose package is ``service.games.<pkg>``
may add its own figures in ``tests/bench/<pkg>.py``: ``engine(seconds) -> [Figure]`` replaces the
generic figure, and ``API_PLAYERS`` sets the player count of its API script (default: the most).
"""

from __future__ import annotations

import functools
import importlib
import random
from collections.abc import Callable
from dataclasses import dataclass

from service.games import GAMES
from tests.bench.common import Figure, random_games_per_s, scripted_match


@dataclass(frozen=True)
class GameBenchmarks:
    engine: Callable[[float], list[Figure]]
    scripted_match: Callable[[random.Random], tuple[dict, list[tuple[int, dict, int]]]]


def _own_module(game):
    package = (
        type(game).__module__.split(".")[2] if type(game).__module__.startswith("service.games.") else None
    )
    try:
        return importlib.import_module(f"tests.bench.{package}") if package else None
    except ModuleNotFoundError as error:
        if error.name != f"tests.bench.{package}":
            raise
        return None


def _generic_engine(game, players: int, seconds: float) -> list[Figure]:
    key = game.info.id.replace("-", "_")
    return [
        Figure(
            f"{key}.games_per_s",
            f"{game.info.id} random complete games ({players} players)",
            random_games_per_s(game, players, 2.5 * seconds),
            "games/s",
        )
    ]


def _benchmarks(game) -> GameBenchmarks:
    own = _own_module(game)
    players = getattr(own, "API_PLAYERS", max(game.info.counts()))
    engine = getattr(own, "engine", None) or functools.partial(_generic_engine, game, max(game.info.counts()))
    return GameBenchmarks(
        engine=engine, scripted_match=functools.partial(scripted_match, game, players=players)
    )


BENCHMARKS: dict[str, GameBenchmarks] = {game_id: _benchmarks(game) for game_id, game in GAMES.items()}
