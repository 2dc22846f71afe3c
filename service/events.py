"""The event store: each match is one Redis stream, appended to atomically, never trimmed.

Entry ``n`` of a match's stream has the stream ID ``n-0`` and is the match's version ``n``; the
first entry (version 1) is ``match_created``. A match's version is therefore the length of its log,
and ``XRANGE`` seeks any version directly.

Appends go through one Lua script, so that checking the expected version, writing the events,
announcing them on the feed and remembering an idempotent answer is one indivisible step: two
clients racing on a version can never both win, and a crash cannot leave half an action behind.

The feed is a single stream of ``{match, version, types}`` notices, one per append, which the rule
workers follow in a consumer group (the eventsourcing "notification log"). The match streams stay the
only source of truth; the feed only says where to look.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

import redis

from service.keys import Keys

APPEND = """
-- KEYS: log, feed, idempotency key
-- ARGV: expected version, match id, hash of the entry at the expected version ('' for none),
--       remember (0/1), answer to remember, ttl, n, n x (type, seat, data, at, hash)
if ARGV[4] == '1' then
  local prior = redis.call('GET', KEYS[3])
  if prior then return {'replayed', prior} end
end
local version = redis.call('XLEN', KEYS[1])
if version ~= tonumber(ARGV[1]) then return {'conflict', tostring(version)} end
if version > 0 then
  -- the writer's state must be the log's: same version is not enough after a restore
  local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1][2]
  local head = ''
  for i = 1, #last, 2 do if last[i] == 'hash' then head = last[i + 1] end end
  if head ~= ARGV[3] then return {'conflict', tostring(version)} end
end
local types = {}
for i = 0, tonumber(ARGV[7]) - 1 do
  local at = 8 + i * 5
  version = version + 1
  redis.call('XADD', KEYS[1], version .. '-0', 'type', ARGV[at], 'seat', ARGV[at + 1], 'data', ARGV[at + 2],
             'at', ARGV[at + 3], 'hash', ARGV[at + 4])
  types[#types + 1] = ARGV[at]
end
redis.call('XADD', KEYS[2], '*', 'match', ARGV[2], 'version', version, 'types', table.concat(types, ','))
if ARGV[4] == '1' then redis.call('SET', KEYS[3], ARGV[5], 'EX', ARGV[6]) end
return {'appended', tostring(version)}
"""


@dataclass(frozen=True)
class Recorded:
    """One log entry: an event as stored, with its version, the time it was appended and its place
    in the hash chain (``hash``; None in logs written before the chain)."""

    version: int
    type: str
    seat: int | None
    data: dict[str, Any]
    at: str
    hash: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"version": self.version, "type": self.type, "seat": self.seat, "data": self.data, "at": self.at,
                "hash": self.hash}

    def canonical(self) -> bytes:
        """The bytes the chain hashes: the entry without its hash, as sorted, compact UTF-8 JSON. A
        content pack referenced by ``content_sha256`` is covered by that digest, not by its bytes:
        the pack is stored once for every match that plays with it."""
        return canonical_json([self.version, self.type, self.seat, self.without_content().data, self.at])

    def without_content(self) -> "Recorded":
        """The entry as stored: a pack it references by digest is kept apart, once."""
        if "content_sha256" not in self.data or "content" not in self.data:
            return self
        return replace(self, data={k: v for k, v in self.data.items() if k != "content"})

    def chained(self, prev_hash: str | None) -> "Recorded":
        """This entry with its hash: SHA-256 of the previous entry's hash and this entry's bytes."""
        digest = hashlib.sha256((prev_hash or "").encode("ascii") + b"\n" + self.canonical()).hexdigest()
        return replace(self, hash=digest)

    def event(self) -> dict[str, Any]:
        """The event as an engine (and the append) sees it: without version and time."""
        return {"type": self.type, "seat": self.seat, "data": self.data}

    @classmethod
    def from_dict(cls, entry: dict[str, Any]) -> "Recorded":
        return cls(entry["version"], entry["type"], entry["seat"], entry["data"], entry["at"], entry.get("hash"))


def canonical_json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class BrokenChain(ValueError):
    """A log entry whose hash does not follow from the entries before it: the log was changed."""

    def __init__(self, version: int):
        super().__init__(f"entry {version} breaks the hash chain: the log was changed at or before it")
        self.version = version


def verify_chain(entries, prev_hash: str | None = None) -> None:
    """Check each chained entry against the one before (``prev_hash``: the hash of the entry before
    the first). Entries of logs written before the chain have no hash and are not checked; the chain
    starts at the first entry that has one. Raises BrokenChain naming the first entry that breaks it."""
    for entry in entries:
        if entry.hash is not None and entry.chained(prev_hash).hash != entry.hash:
            raise BrokenChain(entry.version)
        prev_hash = entry.hash


class VersionConflict(Exception):
    def __init__(self, current_version: int):
        super().__init__(f"the match is at version {current_version}")
        self.current_version = current_version


@dataclass(frozen=True)
class Remember:
    """An answer to keep under an idempotency key, written in the same step as the events."""

    key: str
    answer: str
    ttl_s: int


@dataclass(frozen=True)
class FeedNotice:
    entry_id: str
    match_id: str
    version: int
    types: tuple[str, ...]


class EventStore:
    def __init__(self, redis_client: redis.Redis, keys: Keys):
        self.redis = redis_client
        self.keys = keys
        self.feed_key = keys.feed
        self._append = redis_client.register_script(APPEND)

    def append(self, match_id: str, expected_version: int, expected_hash: str | None, entries: list[Recorded],
               remember: Remember | None = None) -> tuple[int, str | None]:
        """Append ``entries`` (chained) if the log is at ``expected_version`` and its last entry has
        ``expected_hash``.

        Returns ``(new_version, None)``, or ``(-1, earlier_answer)`` when ``remember.key`` already held
        an answer (a retried request); raises VersionConflict otherwise."""
        args: list[Any] = [expected_version, match_id, _packed_hash(expected_hash), 1 if remember else 0,
                           remember.answer if remember else "", remember.ttl_s if remember else 0, len(entries)]
        for entry in entries:
            args += [entry.type, "" if entry.seat is None else entry.seat,
                     json.dumps(entry.data, separators=(",", ":"), ensure_ascii=False), _packed_time(entry.at),
                     _packed_hash(entry.hash)]
        keys = [self.keys.log(match_id), self.feed_key, remember.key if remember else self.keys.unused(match_id)]
        outcome, value = self._append(keys=keys, args=args)
        if outcome == b"replayed":
            return -1, value.decode()
        if outcome == b"conflict":
            raise VersionConflict(int(value))
        return int(value), None

    def version(self, match_id: str) -> int:
        """The match's current version; 0 when there is no such match."""
        return self.redis.xlen(self.keys.log(match_id))

    def read(self, match_id: str, after: int = 0, until: int | None = None,
             limit: int | None = None) -> list[Recorded]:
        """Entries with ``after < version <= until`` (to the end when ``until`` is None), oldest first."""
        end = "+" if until is None else f"{until}-0"
        if until is not None and until <= after:
            return []
        entries = self.redis.xrange(self.keys.log(match_id), f"{after + 1}-0", end, count=limit)
        return [decode(entry_id, fields) for entry_id, fields in entries]

    # -- the feed the workers follow --------------------------------------------------

    def ensure_group(self, group: str) -> None:
        try:
            self.redis.xgroup_create(self.feed_key, group, id="0", mkstream=True)
        except redis.exceptions.ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise

    def read_feed(self, group: str, consumer: str, count: int, block_ms: int) -> list[FeedNotice]:
        reply = self.redis.xreadgroup(group, consumer, {self.feed_key: ">"}, count=count, block=block_ms)
        return [_notice(i, f) for _, entries in (reply or []) for i, f in entries]

    def tail_feed(self, after_id: str, block_ms: int, count: int = 1000) -> tuple[str, dict[str, int]]:
        """Follow the feed without a consumer group (every reader sees every notice): the notices after
        ``after_id`` (``"$"``: from now), waiting up to ``block_ms``; returns the last id seen and, per
        match that moved, its highest version."""
        if after_id == "$":  # pin "now" to an id: a later "$" would skip what came in between two reads
            newest = self.redis.xrevrange(self.feed_key, count=1)
            after_id = newest[0][0].decode() if newest else "0-0"
        reply = self.redis.xread({self.feed_key: after_id}, count=count, block=block_ms)
        moved: dict[str, int] = {}
        last = after_id
        for _, entries in reply or []:
            for entry_id, fields in entries:
                notice = _notice(entry_id, fields)
                last = notice.entry_id
                moved[notice.match_id] = max(moved.get(notice.match_id, 0), notice.version)
        return last, moved

    def claim_stale(self, group: str, consumer: str, idle_ms: int, count: int = 100) -> list[FeedNotice]:
        """Take over notices other consumers read but did not acknowledge within ``idle_ms``."""
        notices: list[FeedNotice] = []
        start = "0-0"
        while True:
            reply = self.redis.xautoclaim(self.feed_key, group, consumer, idle_ms, start_id=start, count=count)
            start, entries = reply[0], reply[1]
            notices += [_notice(i, f) for i, f in entries if f]
            if start in (b"0-0", "0-0") or not entries:
                return notices

    def drop_idle_consumers(self, group: str, idle_ms: int) -> None:
        """Forget consumers (workers that are gone) with nothing pending that have been idle ``idle_ms``."""
        for consumer in self.redis.xinfo_consumers(self.feed_key, group):
            if consumer["pending"] == 0 and consumer["idle"] >= idle_ms:
                self.redis.xgroup_delconsumer(self.feed_key, group, consumer["name"])

    def feed_lag(self, group: str) -> int:
        """Notices of the feed ``group`` has not finished: never delivered, or delivered and not acknowledged."""
        for info in self.redis.xinfo_groups(self.feed_key):
            name = info["name"].decode() if isinstance(info["name"], bytes) else info["name"]
            if name == group:
                return int(info.get("lag") or 0) + int(info.get("pending") or 0)
        return 0

    def ack(self, group: str, entry_id: str) -> None:
        self.redis.xack(self.feed_key, group, entry_id)

    def trim_feed(self) -> None:
        """Drop the notices every consumer group is done with: delivered and acknowledged.

        Only the feed is trimmed; it merely points into the match logs, which are never trimmed."""
        floors = []
        for group in self.redis.xinfo_groups(self.feed_key):
            pending = self.redis.xpending(self.feed_key, group["name"])
            if pending["pending"]:
                floors.append(_stream_id(pending["min"]))
            else:
                ms, seq = _stream_id(group["last-delivered-id"])
                floors.append((ms, seq + 1))
        if floors:
            ms, seq = min(floors)
            self.redis.xtrim(self.feed_key, minid=f"{ms}-{seq}", approximate=False)


def decode(entry_id: bytes, fields: dict[bytes, bytes]) -> Recorded:
    seat = fields[b"seat"]
    digest = fields.get(b"hash")
    return Recorded(
        version=int(entry_id.split(b"-")[0]),
        type=fields[b"type"].decode(),
        seat=int(seat) if seat else None,
        data=json.loads(fields[b"data"]),
        at=_unpacked_time(fields[b"at"]),
        hash=digest.hex() if digest else None,
    )


# Stored compactly, shown readably: a hash as its 32 raw bytes (not 64 hex digits), a time as
# milliseconds since the epoch in base 36 (8 characters, not 24). Entries written before this keep
# their ISO text, which always holds a "-".

def _packed_hash(digest: str | None) -> bytes:
    return bytes.fromhex(digest) if digest else b""


def _packed_time(at: str) -> str:
    if not at.endswith("Z"):
        return at
    try:
        moment = datetime.fromisoformat(at[:-1] + "+00:00")  # C-fast, unlike strptime
    except ValueError:
        return at
    packed = _base36(round(moment.timestamp() * 1000))
    return packed if _unpacked_time(packed.encode()) == at else at  # only what comes back the same


def _unpacked_time(raw: bytes) -> str:
    if b"-" in raw or not raw:
        return raw.decode()
    moment = datetime.fromtimestamp(int(raw, 36) / 1000, tz=timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _base36(n: int) -> str:
    digits = ""
    while True:
        n, digit = divmod(n, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[digit] + digits
        if not n:
            return digits
def _stream_id(raw) -> tuple[int, int]:
    ms, seq = (raw.decode() if isinstance(raw, bytes) else raw).split("-")
    return int(ms), int(seq)


def _notice(entry_id: bytes, fields: dict[bytes, bytes]) -> FeedNotice:
    types = fields[b"types"].decode()
    return FeedNotice(entry_id.decode(), fields[b"match"].decode(), int(fields[b"version"]),
                      tuple(types.split(",")) if types else ())
