"""Platform keys: an integrator's server holds one (``matchlog keys create NAME``, shown once, stored as
its SHA-256 only). Matches created with a key belong to its platform, which can list them, abort them,
ask for their scoring and read any seat's view of them, and nothing of another platform's."""

from __future__ import annotations

import json
import time
import uuid

import redis

from service.keys import Keys
from service.schemas import name_refusal
from service.tokens import new_platform_key, token_hash


class Platforms:
    def __init__(self, redis_client: redis.Redis, keys: Keys):
        self.redis = redis_client
        self.keys = keys

    def create(self, name: str) -> tuple[str, str]:
        """A new platform: its id and its key (the key is not kept, only its digest). ValueError for a
        blank name or one a platform has, in any case: a second key of that name would be another
        platform, blind to the first one's matches."""
        name = name.strip()
        if not name:
            raise ValueError("a platform needs a name (its site or bot, say)")
        refusal = name_refusal(name)  # players may be shown it
        if refusal:
            raise ValueError(f"a platform's name: {refusal}")
        taken = next((p for p in self.listed() if p["name"].casefold() == name.casefold()), None)
        if taken:
            raise ValueError(f"there is a platform named {taken['name']!r} already ({taken['id']}): a new key would "
                             "be another platform that cannot see its matches; choose another name")
        platform_id, key = uuid.uuid4().hex[:16], new_platform_key()
        record = {"id": platform_id, "name": name, "created": int(time.time())}
        self.redis.hset(self.keys.platforms, token_hash(key), json.dumps(record))
        return platform_id, key

    def listed(self) -> list[dict]:
        """Every platform, oldest first: ``{id, name, created}`` (the keys are nowhere to list)."""
        return sorted((json.loads(raw) for raw in self.redis.hvals(self.keys.platforms)),
                      key=lambda p: (p["created"], p["id"]))

    def rotate(self, platform_id: str) -> str:
        """A new key for the platform, its matches and webhooks still its own; the old key stops working
        at once (a leaked key). ValueError for no such platform."""
        key = new_platform_key()

        def swap(pipe, digest: bytes, record: dict) -> None:
            pipe.hset(self.keys.platforms, token_hash(key), json.dumps(record))
            pipe.hdel(self.keys.platforms, digest)

        self._changed(platform_id, swap)
        return key

    def revoke(self, platform_id: str) -> dict:
        """The platform's key stops working, for good: its matches play on, and nobody can abort them, hand
        their seats over or list them as its (its webhooks go too: ``matchlog keys revoke``). ValueError
        for no such platform."""
        return self._changed(platform_id, lambda pipe, digest, record: pipe.hdel(self.keys.platforms, digest))

    def _changed(self, platform_id: str, change) -> dict:
        """Apply ``change(pipe, digest, record)`` to the platform's key as one transaction with the read
        that found it: of two rotations (or a rotation and a revocation) at once, one sees the other's."""
        with self.redis.pipeline(transaction=True) as pipe:  # (a cluster's pipeline watches only in one)
            while True:
                try:
                    pipe.watch(self.keys.platforms)
                    digest, record = self._find(pipe.hgetall(self.keys.platforms), platform_id)
                    pipe.multi()
                    change(pipe, digest, record)
                    pipe.execute()
                    return record
                except redis.WatchError:
                    continue

    @staticmethod
    def _find(stored: dict, platform_id: str) -> tuple[bytes, dict]:
        for digest, raw in stored.items():
            record = json.loads(raw)
            if record["id"] == platform_id:
                return digest, record
        raise ValueError(f"no platform {platform_id!r} (matchlog keys list shows them)")

    def of_key(self, key: str) -> dict | None:
        raw = self.redis.hget(self.keys.platforms, token_hash(key))
        return json.loads(raw) if raw else None
