"""``matchlog migrate``: move a deployment's keys to where this version keeps them.

Matches written before keys were hash-tagged (``<ns>:match:<id>:...``, one ``<ns>:feed``), or under
another number of feed partitions, are moved under their partition's tag; with a source Redis other
than the target (say, one Redis into a new Redis Cluster) every key of the namespace is copied,
the match keys to their new names. Each key moves with ``DUMP``/``RESTORE`` (its expiry kept), never
over a key the target already has, and is deleted from the source only once the target has it, so a
migration cut off half-way can be run again.
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
    moved = copied = 0
    for raw in source.scan_iter(match=f"{keys.namespace}:*", count=1000):
        name = raw.decode()
        if _transient(keys, name):
            continue
        found = keys.match_id_of(name)
        wanted = keys.match_key(*found) if found else name
        if wanted == name and same_server:
            continue
        if not _copy(source, target, name, wanted):
            continue
        if wanted != name:
            moved += 1
            if same_server:
                source.delete(name)
        else:
            copied += 1
    old_feeds = _old_feeds(target, keys) if same_server else []
    # announce before the old feeds go: a run cut off in between announces again next time
    announced = _announce_all(target, keys) if moved or copied or old_feeds else 0
    for feed in old_feeds:
        target.delete(feed)
    return {"moved_keys": moved, "copied_keys": copied, "dropped_feeds": len(old_feeds),
            "announced_matches": announced}


def _transient(keys: Keys, name: str) -> bool:
    """Not data: feed streams (pointers, made again), the workers' leases, rate-limit windows."""
    rest = name[len(keys.namespace) + 1:]
    return (rest == "feed" or rest.startswith("{") and rest.endswith("}:feed") or rest.startswith("{feed}:")
            or rest.startswith("ratelimit"))


def _copy(source: redis.Redis, target: redis.Redis, name: str, wanted: str) -> bool:
    """Put ``name``'s value and expiry at ``wanted`` unless a key is there already (an earlier run put it
    there, or the target has moved on since: never rolled back). False if the key expired meanwhile."""
    ttl = source.pttl(name)
    dump = source.dump(name)
    if ttl == -2 or dump is None:
        return False
    try:
        target.restore(wanted, max(ttl, 0), dump)
    except redis.exceptions.ResponseError as error:
        if "BUSYKEY" not in str(error):
            raise
    return True


def _old_feeds(client: redis.Redis, keys: Keys) -> list[bytes]:
    current = {keys.feed(p) for p in range(keys.partitions)}
    return [raw for raw in client.scan_iter(match=f"{keys.namespace}:*feed", count=1000)
            if raw.decode() not in current and _transient(keys, raw.decode())]


def _announce_all(target: redis.Redis, keys: Keys) -> int:
    store = EventStore(target, keys)
    announced = 0
    for raw in target.scan_iter(match=f"{keys.namespace}:{{*}}:match:*:log", count=1000):
        match_id, _ = keys.match_id_of(raw.decode())
        store.announce(match_id, store.version(match_id))
        announced += 1
    return announced
