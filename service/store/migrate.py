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

from service.store.events import EventStore
from service.store.keys import Keys


class LayoutMismatch(Exception):
    """This process counts another number of feed partitions than the one the keys are tagged for."""


def check_layout(client: redis.Redis, keys: Keys) -> None:
    """Note the number of feed partitions the first time; LayoutMismatch when it is not this process's:
    every match key's tag depends on it, so with another number every match would seem gone."""
    client.set(keys.layout, keys.partitions, nx=True)
    stored = int(client.get(keys.layout))
    if stored != keys.partitions:
        raise LayoutMismatch(
            f"the matches in this Redis are laid out for {stored} feed partitions, not "
            f"{keys.partitions}: set MATCHLOG_FEED_PARTITIONS={stored}, or run `matchlog migrate` "
            f"with MATCHLOG_FEED_PARTITIONS={keys.partitions} (API and workers stopped) to move them"
        )


def migrate(source: redis.Redis, target: redis.Redis, keys: Keys, same_server: bool) -> dict[str, Any]:
    """Move what is misplaced (and, from another server, copy the rest). Returns what was done."""
    moved = copied = 0
    touched: set[str] = set()  # the matches this run moved or copied
    for raw in source.scan_iter(match=f"{keys.namespace}:*", count=1000):
        name = raw.decode()
        if _transient(keys, name):
            continue
        found = keys.match_id_of(name)
        wanted = keys.match_key(*found) if found else name
        if wanted == name and same_server:
            continue
        outcome = _copy(source, target, name, wanted)
        if outcome == "gone" or (outcome == "there" and same_server and wanted == name):
            continue
        if found and outcome != "there":
            touched.add(found[0])
        if wanted != name:
            moved += 1
            if same_server:
                source.delete(name)
        elif outcome != "there":
            copied += 1
    old_feeds = _old_feeds(target, keys) if same_server else []
    # announce before the old feeds go: a run cut off in between announces every match again next time
    announced = _announce(target, keys, None if old_feeds else touched) if touched or old_feeds else 0
    for feed in old_feeds:
        target.delete(feed)
    target.set(keys.layout, keys.partitions)
    return {
        "moved_keys": moved,
        "copied_keys": copied,
        "dropped_feeds": len(old_feeds),
        "announced_matches": announced,
    }


def _transient(keys: Keys, name: str) -> bool:
    """Not data: feed streams (pointers, made again) and their fences, the workers' leases, rate-limit windows."""
    rest = name[len(keys.namespace) + 1 :]
    return (
        rest == "feed"
        or (rest.startswith("{") and rest.endswith(("}:feed", "}:feed:fence")))
        or rest.startswith(("{feed}:", "ratelimit"))
    )


def _copy(source: redis.Redis, target: redis.Redis, name: str, wanted: str) -> str:
    """Put ``name``'s value and expiry at ``wanted`` ("copied"), unless a key is there already: an earlier
    run put it there, or the target has moved on since, and nothing is rolled back ("there"). A listing
    (a sorted set, set or hash: the public list, the lobby, platforms) gets the source's members it lacks
    ("merged"). "gone": the key expired meanwhile."""
    ttl = source.pttl(name)
    dump = source.dump(name)
    if ttl == -2 or dump is None:
        return "gone"
    try:
        target.restore(wanted, max(ttl, 0), dump)
        return "copied"
    except redis.exceptions.ResponseError as error:
        if "BUSYKEY" not in str(error):
            raise
    return "merged" if name == wanted and _merge(source, target, name) else "there"


def _merge(source: redis.Redis, target: redis.Redis, name: str) -> bool:
    kind = source.type(name).decode()
    if kind == "zset":
        members = dict(source.zrange(name, 0, -1, withscores=True))
        return bool(members) and target.zadd(name, members, nx=True) > 0
    if kind == "set":
        members = source.smembers(name)
        return bool(members) and target.sadd(name, *members) > 0
    if kind == "hash":
        added = [target.hsetnx(name, field, value) for field, value in source.hgetall(name).items()]
        return any(added)
    return False


def _old_feeds(client: redis.Redis, keys: Keys) -> list[bytes]:
    current = {keys.feed(p) for p in range(keys.partitions)}
    return [
        raw
        for raw in client.scan_iter(match=f"{keys.namespace}:*feed", count=1000)
        if raw.decode() not in current and _transient(keys, raw.decode())
    ]


def _announce(target: redis.Redis, keys: Keys, match_ids: set[str] | None) -> int:
    """Announce ``match_ids`` (every match of the target when None) on their feed partitions."""
    store = EventStore(target, keys)
    if match_ids is None:
        match_ids = {
            found[0]
            for raw in target.scan_iter(match=f"{keys.namespace}:{{*}}:match:*:log", count=1000)
            if (found := keys.match_id_of(raw.decode()))
        }
    announced = 0
    for match_id in sorted(match_ids):
        version = store.version(match_id)
        if version:  # a meta without a log (a creation cut off) is nobody's match
            store.announce(match_id, version)
            announced += 1
    return announced
