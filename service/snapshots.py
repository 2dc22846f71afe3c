"""Snapshots of derived match state: a cache of the fold, kept every ``every`` versions.

A snapshot is only ever the state at its version, so any writer writes the same bytes and any
snapshot can be thrown away: the log rebuilds it. They live in one hash per match, field = version.
"""

from __future__ import annotations

import json

import redis

from service.replay import MatchState


class Snapshots:
    def __init__(self, redis_client: redis.Redis, key, every: int):
        self.redis = redis_client
        self.key = key  # match id -> Redis key of its snapshot hash
        self.every = every

    def due(self, version: int) -> bool:
        return version % self.every == 0

    @staticmethod
    def best(versions, target: int) -> int | None:
        """The highest snapshot version at or below ``target``."""
        below = [v for v in (int(v) for v in versions) if v <= target]
        return max(below) if below else None

    def get(self, match_id: str, version: int) -> MatchState | None:
        raw = self.redis.hget(self.key(match_id), str(version))
        return MatchState.from_json(json.loads(raw)) if raw else None

    def save(self, match_id: str, states: list[MatchState]) -> None:
        if states:
            self.redis.hset(self.key(match_id), mapping={
                str(s.version): json.dumps(s.to_json(), separators=(",", ":")) for s in states
            })
