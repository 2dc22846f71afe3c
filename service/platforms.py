"""Platform keys: an integrator's server holds one (``matchlog keys create NAME``, shown once, stored as
its SHA-256 only). Matches created with a key belong to its platform, which can list them, abort them,
ask for their scoring and read any seat's view of them, and nothing of another platform's."""

from __future__ import annotations

import json
import time
import uuid

import redis

from service.keys import Keys
from service.tokens import new_platform_key, token_hash


class Platforms:
    def __init__(self, redis_client: redis.Redis, keys: Keys):
        self.redis = redis_client
        self.keys = keys

    def create(self, name: str) -> tuple[str, str]:
        """A new platform: its id and its key (the key is not kept, only its digest). ValueError for a
        blank name or one a platform has: a second key of that name would be another platform, blind to
        the first one's matches."""
        name = name.strip()
        if not name:
            raise ValueError("a platform needs a name (its site or bot, say)")
        taken = next((json.loads(raw)["id"] for raw in self.redis.hvals(self.keys.platforms)
                      if json.loads(raw)["name"] == name), None)
        if taken:
            raise ValueError(f"there is a platform named {name!r} already ({taken}): a new key would be another "
                             "platform that cannot see its matches; choose another name")
        platform_id, key = uuid.uuid4().hex[:16], new_platform_key()
        record = {"id": platform_id, "name": name, "created": int(time.time())}
        self.redis.hset(self.keys.platforms, token_hash(key), json.dumps(record))
        return platform_id, key

    def of_key(self, key: str) -> dict | None:
        raw = self.redis.hget(self.keys.platforms, token_hash(key))
        return json.loads(raw) if raw else None

    def add_match(self, platform_id: str, match_id: str) -> None:
        self.redis.zadd(self.keys.platform_matches(platform_id), {match_id: time.time() * 1000})
