"""Snapshots of derived match state: a cache of the fold, kept every ``every`` versions.

A snapshot is only ever the state at its version, so any writer writes the same bytes and any
snapshot can be thrown away: the log rebuilds it. They live in one hash per match, field = version.
Each records the rules that folded it (``<game>@<rules_version>``); one made by other rules, or in
a format this code cannot read, is ignored.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable

import redis

from service.domain.replay import SHELL_FOLD, MatchState
from service.store.keys import Keys


class Snapshots:
    def __init__(self, redis_client: redis.Redis, keys: Keys, every: int):
        self.redis = redis_client
        self.keys = keys
        self.every = every

    def due(self, states: list[MatchState]) -> list[MatchState]:
        """The states among ``states`` that are kept as snapshots: every ``every`` versions; of a scored match,
        its final state only (``MatchRepository.compact``), folded again or not."""
        if states and states[-1].result is not None:
            return [states[-1]]
        return [s for s in states if s.version % self.every == 0]

    def encoded_due(self, states: Iterable[MatchState]) -> dict[str, bytes]:
        """The snapshots that fall due among ``states``, encoded (``due``, ``encoded``): what an append keeps."""
        return self.encoded(self.due(list(states)))

    @staticmethod
    def encoded(states: Iterable[MatchState]) -> dict[str, bytes]:
        """Snapshots of ``states`` as stored: field (the version) -> bytes."""
        return {str(s.version): encode({"rules": rules_of(s), "state": s.to_json()}) for s in states}

    @staticmethod
    def best(versions: Iterable[int | str | bytes], target: int) -> int | None:
        """The highest snapshot version at or below ``target``."""
        below = [v for v in (int(v) for v in versions) if v <= target]
        return max(below) if below else None

    def expected(self, target: int) -> int:
        """The version of the snapshot that should be nearest at or below ``target`` (0: none is due):
        read it directly (``read``) rather than listing every version the match has kept."""
        return target - target % self.every

    def read(self, pipe: redis.client.Pipeline, match_id: str, version: int) -> None:
        """Queue the read of the snapshot at ``version`` on ``pipe`` (it answers with bytes or None;
        ``parse`` them)."""
        pipe.hget(self.keys.snapshots(match_id), str(version))

    def get(self, match_id: str, version: int) -> MatchState | None:
        return self.parse(self.redis.hget(self.keys.snapshots(match_id), str(version)))

    @staticmethod
    def parse(raw: bytes | None) -> MatchState | None:
        """A stored snapshot, or None when absent or not readable by these rules."""
        if not raw:
            return None
        try:
            stored = decode(raw)
        except zlib.error:  # written before snapshots were compressed
            return None
        try:
            state = MatchState.from_json(stored["state"])
        except (KeyError, TypeError):  # a snapshot in an older format
            return None
        return state if stored["rules"] == rules_of(state) else None

    def save(self, match_id: str, states: list[MatchState]) -> None:
        if states:
            self.redis.hset(self.keys.snapshots(match_id), mapping=self.encoded(states))

    def drop(self, match_id: str, version: int) -> None:
        self.redis.hdel(self.keys.snapshots(match_id), str(version))


def encode(snapshot: dict) -> bytes:
    """Compressed JSON: a state repeats itself (a pack's cards, a board's rows), and is read rarely."""
    return zlib.compress(json.dumps(snapshot, separators=(",", ":")).encode(), 6)


def decode(raw: bytes) -> dict:
    return json.loads(zlib.decompress(raw))


def rules_of(state: MatchState) -> str:
    """Which rules folded a state: the game and its rules version, and the shell's fold (clocks, undo)."""
    return f"{state.game_id}@{state.engine.info.rules_version}+shell{SHELL_FOLD}"
