"""The one place where each game registers its benchmarks.

``engine(seconds)`` returns the game's engine figures (no server); ``scripted_match(rng)`` returns
a match creation body and a random legal game as (seat, action, version after the action), which
the API benchmark replays. Adding a game: write ``tests/bench/<game>.py`` and add it here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from tests.bench import block_block, blokus, chock_a_block
from tests.bench.common import Figure


@dataclass(frozen=True)
class GameBenchmarks:
    engine: Callable[[float], list[Figure]]
    scripted_match: Callable[[random.Random], tuple[dict, list[tuple[int, dict, int]]]] | None = None


BENCHMARKS: dict[str, GameBenchmarks] = {
    "blokus": GameBenchmarks(engine=blokus.engine, scripted_match=blokus.scripted_match),
    "block-block": GameBenchmarks(engine=block_block.engine, scripted_match=block_block.scripted_match),
    "chock-a-block": GameBenchmarks(engine=chock_a_block.engine, scripted_match=chock_a_block.scripted_match),
}
