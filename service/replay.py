"""A match as a fold over its log. Pure: no Redis, no clock; the API, the workers and an auditor
holding an exported log all rebuild state with these same functions.

The log holds the game's own events plus three that belong to matchlog itself:

``match_created`` (version 1)
    game, resolved options, players and the SHA-256 of the seed: a commitment, so that the seed can
    stay secret while the match runs and still be checked once revealed; and, for games with content
    packs, the pack itself.
``seed_revealed``
    appended with the events that end the game. Anyone can then check it against the commitment and
    replay the whole match from the log alone.
``match_scored``
    the result, appended by the asynchronous scoring job once the game is over.

Game engines must not use these three type names.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, replace
from typing import Any

from service.events import Recorded
from service.games import GAMES
from service.games.protocol import Game

SHELL_EVENTS = ("match_created", "seed_revealed", "match_scored")


@dataclass(frozen=True)
class MatchState:
    version: int
    game_id: str
    options: dict[str, Any]
    players: tuple[str, ...]
    seed_sha256: str
    game: dict[str, Any]
    seed: str | None = None  # known to everyone once revealed
    result: dict[str, Any] | None = None

    @property
    def engine(self) -> Game:
        return GAMES[self.game_id]

    @property
    def finished(self) -> bool:
        return self.engine.is_over(self.game)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "MatchState":
        return cls(**{**data, "players": tuple(data["players"])})


def seed_commitment(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def match_created(game_id: str, options: dict[str, Any], players: list[str], seed: str,
                  content: Any = None) -> dict[str, Any]:
    data = {
        "game": game_id,
        "options": options,
        "players": [{"seat": i, "name": name} for i, name in enumerate(players)],
        "seed_sha256": seed_commitment(seed),
    }
    if content is not None:
        data["content"] = content  # the whole content pack: the log must replay without the server
    return {"type": "match_created", "seat": None, "data": data}


def seed_revealed(seed: str) -> dict[str, Any]:
    return {"type": "seed_revealed", "seat": None, "data": {"seed": seed}}


def match_scored(result: dict[str, Any]) -> dict[str, Any]:
    return {"type": "match_scored", "seat": None, "data": result}


def result(state: "MatchState") -> dict[str, Any]:
    """The result as the log records it: whether it is final, and the game's scores and ranks."""
    return {"final": state.finished, **state.engine.scores(state.game)}


def start(created: Recorded, seed: str) -> MatchState:
    """The state at version 1, from the ``match_created`` entry and the seed it commits to."""
    data = created.data
    if seed_commitment(seed) != data["seed_sha256"]:
        raise ValueError("the seed does not match the commitment in match_created")
    game = GAMES[data["game"]]
    players = tuple(p["name"] for p in data["players"])
    return MatchState(
        version=created.version,
        game_id=data["game"],
        options=data["options"],
        players=players,
        seed_sha256=data["seed_sha256"],
        game=game.setup(data["options"], len(players), seed, data.get("content")),
    )


_SHELL_FOLDS = {
    "seed_revealed": lambda state, entry: replace(state, version=entry.version, seed=entry.data["seed"]),
    "match_scored": lambda state, entry: replace(state, version=entry.version, result=entry.data),
}


def advance(state: MatchState, entry: Recorded) -> MatchState:
    """Fold one more log entry into the match."""
    if entry.version != state.version + 1:
        raise ValueError(f"log entry {entry.version} does not follow version {state.version}")
    shell_fold = _SHELL_FOLDS.get(entry.type)
    if shell_fold is not None:
        return shell_fold(state, entry)
    return replace(state, version=entry.version, game=state.engine.apply(state.game, entry.event()))


def fold(state: MatchState, entries: list[Recorded]) -> MatchState:
    for entry in entries:
        state = advance(state, entry)
    return state


def replay(entries: list[Recorded], seed: str | None = None) -> MatchState:
    """Rebuild a match from its whole log; the seed comes from ``seed_revealed`` when not given."""
    if seed is None:
        revealed = [e for e in entries if e.type == "seed_revealed"]
        if not revealed:
            raise ValueError("the log reveals no seed (the match is still running); pass the seed")
        seed = revealed[0].data["seed"]
    return fold(start(entries[0], seed), entries[1:])
