"""``matchlog migrate``: move a deployment's keys to where this version keeps them.

Matches written before keys were hash-tagged (``<ns>:match:<id>:...``, one ``<ns>:feed``), or under
another number of feed partitions, are moved under their partition's tag; with a source Redis other
than the target (say, one Redis into a new Redis Cluster) every key of the namespace is copied,
the match keys to their new names. Each key moves with ``DUMP``/``RESTORE`` (its expiry kept), and is
deleted from the source only once the target has it, so a migration cut off half-way can be run again.
Feed streams are only pointers: the old ones are dropped, and every match is announced again on its
partition so that the rule workers look at each once more (scoring a finished game, a bot's turn...).
Stop the API and the workers while it runs. The job queue is not moved: its jobs are made again from
the announcements.
"""

from __future__ import annotations

from typing import Any

import redis

from service.events import EventStore
from service.keys import Keys



def migrate(source: redis.Redis, target: redis.Redis, keys: Keys, same_server: bool) -> dict[str, Any]:
    """Move what is misplaced (and, from another server, copy the rest). Returns what was done."""
    moved = copied = dropped = 0
    for raw in source.scan_iter(match=f"{keys.namespace}:*", count=1000):
        name = raw.decode()
        if _transient(keys, name):
            continue
        found = keys.match_id_of(name)
        wanted = keys.match_key(*found) if found else name
        if wanted == name and same_server:
            continue
        _move(source, target, name, wanted)
        if wanted != name:
            moved += 1
            if same_server:
                source.delete(name)
        else:
            copied += 1
    if moved and same_server:
        dropped = _drop_old_feeds(target, keys)
    announced = _announce_all(target, keys) if moved or copied else 0
    return {"moved_keys": moved, "copied_keys": copied, "dropped_feeds": dropped, "announced_matches": announced}


def _transient(keys: Keys, name: str) -> bool:
    """Not data: feed streams (pointers, made again), the workers' leases, rate-limit windows."""
    rest = name[len(keys.namespace) + 1:]
    return (rest == "feed" or rest.startswith("{") and rest.endswith("}:feed") or rest.startswith("{feed}:")
            or rest.startswith("ratelimit"))


def _move(source: redis.Redis, target: redis.Redis, name: str, wanted: str) -> None:
    dump = source.dump(name)
    if dump is None:  # expired meanwhile
        return
    ttl = source.pttl(name)
    target.restore(wanted, ttl if ttl > 0 else 0, dump, replace=True)


def _drop_old_feeds(client: redis.Redis, keys: Keys) -> int:
    current = {keys.feed(p) for p in range(keys.partitions)}
    old = [raw for raw in client.scan_iter(match=f"{keys.namespace}:*feed", count=1000)
           if raw.decode() not in current and _transient(keys, raw.decode())]
    for raw in old:
        client.delete(raw)
    return len(old)


def _announce_all(target: redis.Redis, keys: Keys) -> int:
    store = EventStore(target, keys)
    announced = 0
    for raw in target.scan_iter(match=f"{keys.namespace}:{{*}}:match:*:log", count=1000):
        match_id, _ = keys.match_id_of(raw.decode())
        store.announce(match_id, store.version(match_id))
        announced += 1
    return announced
