"""Platform keys: an integrator's server holds one (``matchlog keys create NAME``, shown once, stored as
its SHA-256 only). Matches created with a key belong to its platform, which can list them, abort them,
ask for their scoring and read any seat's view of them, and nothing of another platform's."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable

import redis

from service.domain.shown import name_refusal
from service.domain.tokens import new_platform_key, token_hash
from service.store.keys import Keys


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
            raise ValueError(
                f"there is a platform named {taken['name']!r} already ({taken['id']}): a new key would "
                "be another platform that cannot see its matches; choose another name"
            )
        platform_id, key = uuid.uuid4().hex[:16], new_platform_key()
        # created_ns: the order of two platforms made within one second (created is shown in seconds)
        record = {"id": platform_id, "name": name, "created": int(time.time()), "created_ns": time.time_ns()}
        self.redis.hset(self.keys.platforms, token_hash(key), json.dumps(record))
        return platform_id, key

    def listed(self) -> list[dict]:
        """Every platform, oldest first: ``{id, name, created, previous_keys}`` (the keys are nowhere to list;
        ``previous_keys``: when each rotated key still in its grace period stops working, epoch seconds)."""
        records = [json.loads(raw) for raw in self.redis.hvals(self.keys.platforms)]
        retired: dict[str, list[float]] = {}
        for record in records:
            if "expires" in record and not self.ended(record):
                retired.setdefault(record["id"], []).append(record["expires"])
        return sorted(
            (
                {**record, "previous_keys": sorted(retired.get(record["id"], []))}
                for record in records
                if "expires" not in record
            ),
            key=lambda p: (p["created"], p.get("created_ns", 0), p["id"]),
        )

    def rotate(self, platform_id: str, grace_s: float = 0) -> str:
        """A new key for the platform, its matches and webhooks still its own. The old key stops working at
        once (a leaked key), or, with ``grace_s``, once that many seconds have gone by, so that a platform
        running several servers rolls the new key out without an outage. ValueError for no such platform."""
        key = new_platform_key()

        def swap(pipe: redis.client.Pipeline, digest: bytes, record: dict) -> None:
            pipe.hset(self.keys.platforms, token_hash(key), json.dumps(record))
            if grace_s > 0:
                pipe.hset(
                    self.keys.platforms, digest, json.dumps({**record, "expires": time.time() + grace_s})
                )
            else:
                pipe.hdel(self.keys.platforms, digest)

        self._changed(platform_id, swap)
        return key

    def revoke(self, platform_id: str) -> dict:
        """The platform's key stops working, for good, and so do rotated keys still in their grace period:
        its matches play on, and nobody can abort them, hand their seats over or list them as its (its
        webhooks go too: ``matchlog keys revoke``). ValueError for no such platform."""

        def forget(pipe: redis.client.Pipeline, digest: bytes, record: dict) -> None:
            pipe.hdel(self.keys.platforms, digest, *self._retired_digests(platform_id))

        return self._changed(platform_id, forget)

    def _retired_digests(self, platform_id: str) -> list[bytes]:
        return [
            digest
            for digest, raw in self.redis.hgetall(self.keys.platforms).items()
            if json.loads(raw)["id"] == platform_id and "expires" in json.loads(raw)
        ]

    def _changed(
        self, platform_id: str, change: Callable[[redis.client.Pipeline, bytes, dict], None]
    ) -> dict:
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
        """The platform's current key (a rotated one has ``expires``)."""
        for digest, raw in stored.items():
            record = json.loads(raw)
            if record["id"] == platform_id and "expires" not in record:
                return digest, record
        raise ValueError(f"no platform {platform_id!r} (matchlog keys list shows them)")

    @staticmethod
    def ended(record: dict) -> bool:
        """Whether a key's record is a rotated key past its grace period."""
        return "expires" in record and time.time() >= record["expires"]

    def of_key(self, key: str) -> dict | None:
        """The platform a key was issued to (a rotated key's record has ``expires``: see ``ended``); None
        for a key nobody issued, or one revoked."""
        raw = self.redis.hget(self.keys.platforms, token_hash(key))
        return json.loads(raw) if raw else None
