"""The event store: each match is one Redis stream, appended to atomically, never trimmed.

Entry ``n`` of a match's stream has the stream ID ``n-0`` and is the match's version ``n``; the
first entry (version 1) is ``match_created``. A match's version is therefore the length of its log,
and ``XRANGE`` seeks any version directly.

Appends go through one Lua script, so that checking the expected version, writing the events,
announcing them on the feed and remembering an idempotent answer is one indivisible step: two
clients racing on a version can never both win, and a crash cannot leave half an action behind.
Every key the script touches carries the match's hash tag (``service.store.keys``), so the script runs on
one node of a Redis Cluster too.

The feed is split into partitions: streams of ``{match, version, types}`` notices, one per append,
each match's in its own partition. The rule workers follow them in a consumer group (the
eventsourcing "notification log"), each partition read by one worker at a time
(``workers.partitions``). The match streams stay the only source of truth; the feed only says where
to look.

With ``replicated`` durability an append is acknowledged only once a replica has it: the script and a
``WAIT`` go down one connection to the node that owns the match, and ``NotReplicated`` says the
replica did not confirm in time (the entries may or may not survive a failover: the client finds out
by retrying with its ``Idempotency-Key``).
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import redis
from redis.cluster import RedisCluster
from redis.commands.core import Script

from service.config import Settings
from service.domain.chain import Recorded, compact_encoder
from service.domain.errors import LeaseLost, NotReplicated, NotTheHolder, VersionConflict
from service.store.errors import demoted
from service.store.fences import CHECK, Fence
from service.store.keys import Keys
from service.store.redis_client import Lines

T = TypeVar("T")

APPEND = """
-- KEYS: log, feed, idempotency key, snapshots, meta, listing summary
-- ARGV: expected version, match id, hash of the entry at the expected version ('' for none),
--       remember (0/1), answer to remember, ttl, n, n x (type, seat, data, at, hash, public data, commitment);
--       the last two are '' for an entry with nothing hidden, and then not stored; then m, m x (version,
--       snapshot): the states the entries lead to that fall due as snapshots, kept only with the entries;
--       then the holder's meta field and token digest, raw and in hex (a match's meta from before raw
--       digests holds hex) ('', '', '' when no seat's token asks); then the meta field of a seat the entries
--       hand over and the raw digest of its new holder's token ('', '' when they hand none over); then the
--       listing summary of the state the entries lead to ('' for none: left as it is)
if ARGV[4] == '1' then
  local prior = redis.call('GET', KEYS[3])
  -- a pending marker (``PENDING``) is this request's own claim of the key: the answer replaces it below
  if prior and string.sub(prior, 1, 8) ~= 'pending:' then
    -- a write, so that a WAIT after a retry waits until replicas have the first attempt's entries too
    redis.call('PEXPIRE', KEYS[3], math.max(redis.call('PTTL', KEYS[3]), 1))
    return {'replayed', prior}
  end
end
local kept = 8 + tonumber(ARGV[7]) * 7
local holder = kept + 2 * tonumber(ARGV[kept]) + 1
-- the token a process let in may be one it trusted from its copy of the seats: the seat's token now decides
if ARGV[holder] ~= '' then
  local held = redis.call('HGET', KEYS[5], ARGV[holder])
  if held ~= ARGV[holder + 1] and held ~= ARGV[holder + 2] then return {'not_the_holder', ARGV[holder]} end
end
local handover = holder + 3
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
  local at = 8 + i * 7
  version = version + 1
  if ARGV[at + 6] == '' then
    redis.call('XADD', KEYS[1], version .. '-0', 'type', ARGV[at], 'seat', ARGV[at + 1], 'data', ARGV[at + 2],
               'at', ARGV[at + 3], 'hash', ARGV[at + 4])
  else
    redis.call('XADD', KEYS[1], version .. '-0', 'type', ARGV[at], 'seat', ARGV[at + 1], 'data', ARGV[at + 2],
               'at', ARGV[at + 3], 'hash', ARGV[at + 4], 'public', ARGV[at + 5], 'commitment', ARGV[at + 6])
  end
  types[#types + 1] = ARGV[at]
end
for i = kept + 1, kept + 2 * tonumber(ARGV[kept]), 2 do redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 1]) end
-- the seat's token changes with the entry that hands it over: the log and the token never disagree
if ARGV[handover] ~= '' then redis.call('HSET', KEYS[5], ARGV[handover], ARGV[handover + 1]) end
redis.call('XADD', KEYS[2], '*', 'match', ARGV[2], 'version', version, 'types', table.concat(types, ','))
if ARGV[4] == '1' then redis.call('SET', KEYS[3], ARGV[5], 'EX', ARGV[6]) end
if ARGV[handover + 2] and ARGV[handover + 2] ~= '' then redis.call('SET', KEYS[6], ARGV[handover + 2]) end
return {'appended', tostring(version)}
"""


PENDING = "pending:"
"""What an idempotency key holds while its first request runs (then the fingerprint): a claim, not an answer."""

CLAIM = """
-- KEYS: idempotency key. ARGV: pending marker, its ttl (s). Claims the key for a request (SET NX), or
-- returns what it holds: another request's pending marker, or the first answer.
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2]) then return false end
return redis.call('GET', KEYS[1])
"""

RELEASE = """
-- KEYS: idempotency key. ARGV: the pending marker this request set. Drops it if it is still there (the
-- request failed: a retry may try again); an answer written meanwhile stays.
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
"""

FENCED_ACK = (
    CHECK
    + """
-- KEYS: a feed partition, its fence. ARGV: group, notice id, token. Nil: a newer token was shown there.
if fenced(KEYS[2], tonumber(ARGV[3])) then return false end
return redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
"""
)


@dataclass(frozen=True)
class Remember:
    """An answer to keep under an idempotency key, written in the same step as the events."""

    key: str
    answer: str
    ttl_s: int


REMEMBERED = """
-- KEYS: idempotency key. A read that writes (the same expiry again) when it finds an answer, so that
-- a WAIT after it covers the entries that answer was appended with.
local prior = redis.call('GET', KEYS[1])
if prior then redis.call('PEXPIRE', KEYS[1], math.max(redis.call('PTTL', KEYS[1]), 1)) end
return prior
"""


@dataclass(frozen=True)
class FeedNotice:
    entry_id: str
    match_id: str
    version: int
    types: tuple[str, ...]
    partition: int = 0
    bad: str | None = None
    """Why the notice cannot be read (its fields are not a notice's): it is set aside."""


CLUSTER_POLL_S = (0.02, 0.25)
"""On a Redis Cluster a read cannot block on partitions in different slots: the feed is polled, every
20 ms while notices come, backing off to every 250 ms while none do (an idle worker's cost)."""


class EventStore:
    def __init__(
        self, redis_client: redis.Redis, keys: Keys, durability: str = "local", replica_wait_ms: int = 1000
    ):
        self.redis = redis_client
        self.keys = keys
        self.cluster = isinstance(redis_client, RedisCluster)
        self.replicated = durability == "replicated"
        self.replica_wait_ms = replica_wait_ms
        self._append = redis_client.register_script(APPEND)
        self._remembered = redis_client.register_script(REMEMBERED)
        self._claim = redis_client.register_script(CLAIM)
        self._release = redis_client.register_script(RELEASE)
        self._fenced_ack = redis_client.register_script(FENCED_ACK)
        self._poll_s: dict[str, float] = {}  # per polling reader: its current interval
        # the append's own connections, driven directly (``Lines``), and the reads of a match's log; with
        # replicated durability the append goes with its WAIT down one pooled connection, on a cluster to the
        # node that owns the match
        self._lines = Lines(redis_client) if not self.replicated and Lines.possible(redis_client) else None

    @classmethod
    def of(cls, redis_client: redis.Redis, settings: Settings) -> EventStore:
        """The event store of ``settings``' namespace (a ``service.config.Settings``): what a reader of its
        feed (the projector, the live feed) holds beside the application."""
        return cls(
            redis_client,
            Keys(settings.namespace, settings.feed_partitions),
            settings.durability,
            settings.replica_wait_ms,
        )

    def partition(self, match_id: str) -> int:
        """The feed partition the match's notices go to."""
        return self.keys.partition(match_id)

    def append(
        self,
        match_id: str,
        expected_version: int,
        expected_hash: str | None,
        entries: list[Recorded],
        remember: Remember | None = None,
        snapshots: dict[str, bytes] | None = None,
        holder: tuple[int, str] | None = None,
        handover: tuple[int, str] | None = None,
        summary: bytes | None = None,
    ) -> tuple[int, str | None]:
        """Append ``entries`` (chained) if the log is at ``expected_version`` and its last entry has
        ``expected_hash``; ``snapshots`` (``Snapshots.encoded``) are kept in the same step, only if the entries
        are, and without a round trip of their own.

        Returns ``(new_version, None)``, or ``(-1, earlier_answer)`` when ``remember.key`` already held
        an answer (a retried request); raises VersionConflict otherwise, and NotReplicated when
        durability is ``replicated`` and no replica confirmed in time. ``holder`` (a seat and the digest of
        the token it acts with): appended only while that is still the seat's token (else NotTheHolder), in the
        same step. ``handover`` (a seat and the digest of its new holder's token, when the entries hand the seat
        over): the seat takes that token in the same step, only if the entries are appended. ``summary``
        (``views.listing_summary`` of the state the entries lead to, encoded) replaces the match's listing
        summary in the same step: a listing never shows a version the log does not have."""
        args: list[Any] = [
            expected_version,
            match_id,
            _packed_hash(expected_hash),
            1 if remember else 0,
            remember.answer if remember else "",
            remember.ttl_s if remember else 0,
            len(entries),
        ]
        for entry in entries:
            args += [
                entry.type,
                "" if entry.seat is None else entry.seat,
                _compact(entry.data),
                _packed_time(entry.at),
                _packed_hash(entry.hash),
                "" if entry.commitment is None else _compact(entry.public_data),
                _packed_hash(entry.commitment),
            ]
        args.append(len(snapshots) if snapshots else 0)
        if snapshots:
            for field, snapshot in snapshots.items():
                args += [field, snapshot]
        args += [f"seat:{holder[0]}", bytes.fromhex(holder[1]), holder[1]] if holder else ["", "", ""]
        args += [f"seat:{handover[0]}", bytes.fromhex(handover[1])] if handover else ["", ""]
        args.append(summary or "")
        log = self.keys.log(match_id)
        unused = self.keys.unused(match_id) if not (remember and snapshots) else ""
        keys = (
            log,
            self.keys.feed(self.keys.partition(match_id)),
            remember.key if remember else unused,
            self.keys.snapshots(match_id) if snapshots else unused,
            self.keys.meta(match_id),
            self.keys.summary(match_id),
        )
        if self._lines is not None:
            outcome, value = self._direct(self._append, keys, args)
        else:
            outcome, value = self.durably(log, lambda client: self._evalsha(client, self._append, keys, args))
        if outcome == b"replayed":
            return -1, value.decode()
        if outcome == b"conflict":
            raise VersionConflict(int(value))
        if outcome == b"not_the_holder":
            raise NotTheHolder(value.decode())
        return int(value), None

    @staticmethod
    def _evalsha(client: redis.Redis, script: Script, keys: tuple, args: list) -> Any:
        """``script(keys=keys, args=args, client=client)`` without redis-py's Script wrapper (its tuple
        copies and pipeline check, per append): EVALSHA, and on NOSCRIPT (a server that lost its scripts:
        restarted, failed over) load it and run it again, as the wrapper does. A pipeline (replicated
        durability) goes through the wrapper, which registers the script with the pipeline."""
        if isinstance(client, redis.client.Pipeline):
            return script(keys=keys, args=args, client=client)
        try:
            return client.evalsha(script.sha, len(keys), *keys, *args)
        except redis.exceptions.NoScriptError:
            script.sha = client.script_load(script.script)
            return client.evalsha(script.sha, len(keys), *keys, *args)

    def _direct(self, script: Script, keys: tuple, args: list) -> Any:
        """``_evalsha`` on one of the append's own lines: EVALSHA, and on NOSCRIPT load it, run it again."""
        lines = self._lines
        assert lines is not None, "called only where the store has lines of its own"
        try:
            return lines.call("EVALSHA", script.sha, len(keys), *keys, *args)
        except redis.exceptions.NoScriptError:
            script.sha = self.redis.script_load(script.script)  # rare: through redis-py
            return lines.call("EVALSHA", script.sha, len(keys), *keys, *args)

    def remembered(self, key: str) -> str | None:
        """The answer kept under an idempotency key (once replicated, with replicated durability)."""
        prior = (
            self.durably(key, lambda client: self._remembered(keys=[key], client=client))
            if self.replicated
            else self.redis.get(key)
        )
        return prior.decode() if prior is not None else None

    def claim(self, key: str, marker: str, ttl_s: int) -> str | None:
        """Set ``marker`` under an idempotency key if it holds nothing (None then), else what it holds."""
        prior = self.durably(key, lambda client: self._claim(keys=[key], args=[marker, ttl_s], client=client))
        return prior.decode() if prior is not None else None

    def release(self, key: str, marker: str) -> None:
        """Drop this request's pending marker (it failed), unless something else stands there now."""
        self._release(keys=[key], args=[marker])

    def keep(self, key: str, answer: str, ttl_s: int) -> None:
        """Keep an answer under an idempotency key (a write that is not an append)."""
        self.durably(key, lambda client: client.set(key, answer, ex=ttl_s))

    def durably(self, key: str, write: Callable[[redis.Redis], Any]) -> Any:
        """``write(client)``, a write to ``key``'s slot; with replicated durability, followed by ``WAIT`` on
        the same connection of the node that owns the key (``WAIT`` counts the replicas that have this
        connection's writes) and NotReplicated unless one confirms."""
        if not self.replicated:
            return write(self.redis)
        node = (
            self.redis.get_redis_connection(self.redis.get_node_from_key(key)) if self.cluster else self.redis
        )
        try:
            with node.pipeline(transaction=False) as pipe:
                write(pipe)
                pipe.execute_command("WAIT", 1, self.replica_wait_ms)
                reply, replicas = pipe.execute()
        except (
            redis.exceptions.ConnectionError,
            redis.exceptions.TimeoutError,
            redis.exceptions.AskError,
            redis.exceptions.ReadOnlyError,
        ):  # AskError: and MovedError
            if self.cluster:  # a failover: learn the new master for the next request
                self._refresh_slots()
            raise
        except redis.exceptions.ResponseError as error:
            if not demoted(error):
                raise
            # the master turned replica while WAIT waited: what the write left there may be gone with it,
            # as with any write no replica confirmed (the fault harness met it as a 500)
            if self.cluster:
                self._refresh_slots()
            raise NotReplicated("the master became a replica before a replica confirmed the write") from error
        if replicas < 1:
            raise NotReplicated(f"no replica confirmed within {self.replica_wait_ms} ms")
        return reply

    def fewest_replicas(self) -> int:
        """The fewest replicas connected to any master of the store (replicated durability needs one)."""
        if self.cluster:
            infos = list(self.redis.info("replication", target_nodes=RedisCluster.PRIMARIES).values())
        else:
            infos = [self.redis.info("replication")]
        return min(int(info.get("connected_slaves", 0)) for info in infos)

    def _refresh_slots(self) -> None:
        # still electing (the nodes disagree, or none answers): the next request tries again, and the error that
        # sent the append here is its answer
        with contextlib.suppress(redis.exceptions.RedisError, redis.exceptions.RedisClusterException):
            self.redis.nodes_manager.initialize()

    def version(self, match_id: str) -> int:
        """The match's current version; 0 when there is no such match."""
        return self.redis.xlen(self.keys.log(match_id))

    def read(
        self, match_id: str, after: int = 0, until: int | None = None, limit: int | None = None
    ) -> list[Recorded]:
        """Entries with ``after < version <= until`` (to the end when ``until`` is None), oldest first."""
        return [decode(entry_id, fields) for entry_id, fields in self._raw(match_id, after, until, limit)]

    def read_since(
        self, match_id: str, version: int, head_hash: str | None, until: int | None = None
    ) -> list[Recorded] | None:
        """The entries after ``version`` (to ``until``) if the log's entry at ``version`` has ``head_hash``, else
        None: the log is not the one a state at ``version`` was folded from. That entry comes in the same read,
        compared and not decoded (a process catching up on another's appends reads it on every move)."""
        raw = self._raw(match_id, version - 1, until, None)
        if not raw or raw[0][0] != b"%d-0" % version or _hex(raw[0][1].get(b"hash")) != head_hash:
            return None
        return [decode(entry_id, fields) for entry_id, fields in raw[1:]]

    def _raw(
        self, match_id: str, after: int, until: int | None, limit: int | None
    ) -> list[tuple[bytes, dict]]:
        """``XRANGE``'s entries as redis-py's ``xrange`` gives them: (id, fields as a dict), undecoded."""
        end = "+" if until is None else f"{until}-0"
        if until is not None and until <= after:
            return []
        if self._lines is None:
            return self.redis.xrange(self.keys.log(match_id), f"{after + 1}-0", end, count=limit)
        # the read of a worker whose copy of the match is behind (another process made the last move): on
        # the append's own lines, the reply's field lists made dicts as redis-py's xrange makes them
        command = ("XRANGE", self.keys.log(match_id), f"{after + 1}-0", end)
        reply = self._lines.call(*command, "COUNT", limit) if limit else self._lines.call(*command)
        return [(entry_id, dict(zip(fields[::2], fields[1::2]))) for entry_id, fields in reply]

    # -- the feed the workers follow --------------------------------------------------

    @property
    def partitions(self) -> range:
        return range(self.keys.partitions)

    def _each(
        self, partitions: Iterable[int], command: Callable[[redis.client.Pipeline, int], object]
    ) -> list[Any]:
        """``command(pipe, partition)`` for each partition, in one pipeline (split by node on a cluster);
        the replies in order, an error as its exception."""
        with self.redis.pipeline(transaction=False) as pipe:
            for partition in partitions:
                command(pipe, partition)
            return pipe.execute(raise_on_error=False)

    def ensure_group(self, group: str, partitions: Iterable[int]) -> None:
        replies = self._each(
            partitions, lambda pipe, p: pipe.xgroup_create(self.keys.feed(p), group, id="0", mkstream=True)
        )
        for reply in replies:
            if isinstance(reply, Exception) and "BUSYGROUP" not in str(reply):
                raise reply

    def read_feed(
        self, group: str, consumer: str, partitions: Iterable[int], count: int, block_ms: int
    ) -> list[FeedNotice]:
        """New notices of ``partitions`` for ``consumer`` of ``group``, waiting up to ``block_ms`` for some."""
        partitions = list(partitions)
        if not partitions:
            time.sleep(block_ms / 1000)
            return []
        if not self.cluster:  # one blocking read over every partition
            reply = self.redis.xreadgroup(
                group, consumer, {self.keys.feed(p): ">" for p in partitions}, count=count, block=block_ms
            )
            return self._notices(reply)
        return self._polled(
            "read_feed",
            block_ms,
            lambda: [
                n
                for reply in _raised(
                    self._each(
                        partitions,
                        lambda pipe, p: pipe.xreadgroup(
                            group, consumer, {self.keys.feed(p): ">"}, count=count
                        ),
                    )
                )
                for n in self._notices(reply)
            ],
        )

    def _polled(self, reader: str, block_ms: int, poll: Callable[[], list[T]]) -> list[T]:
        """``poll()`` until it returns something or ``block_ms`` have gone by, backing off while idle."""
        fast, slow = CLUSTER_POLL_S
        deadline = time.monotonic() + block_ms / 1000
        while True:
            found = poll()
            if found:
                self._poll_s[reader] = fast
                return found
            if time.monotonic() >= deadline:
                return found
            interval = self._poll_s.get(reader, fast)
            self._poll_s[reader] = min(slow, interval * 1.5)
            time.sleep(interval)

    def newest_feed_ids(self, partitions: Iterable[int]) -> dict[int, str]:
        """Each partition's newest notice id ("0-0" when it has none): where to start following it now."""
        partitions = list(partitions)
        replies = _raised(self._each(partitions, lambda pipe, p: pipe.xrevrange(self.keys.feed(p), count=1)))
        return {p: reply[0][0].decode() if reply else "0-0" for p, reply in zip(partitions, replies)}

    def tail_feed(
        self, cursors: dict[int, str], block_ms: int, count: int = 1000
    ) -> tuple[dict[int, str], dict[str, int]]:
        """Follow partitions without a consumer group (every reader sees every notice): the notices after
        each partition's cursor, waiting up to ``block_ms``; returns the cursors moved past them and,
        per match that moved, its highest version."""
        if not cursors:
            time.sleep(block_ms / 1000)
            return cursors, {}
        if self.cluster:
            reply = self._polled(
                "tail_feed",
                block_ms,
                lambda: [
                    r
                    for entries in _raised(
                        self._each(
                            cursors, lambda pipe, p: pipe.xread({self.keys.feed(p): cursors[p]}, count=count)
                        )
                    )
                    if entries
                    for r in entries
                ],
            )
        else:
            reply = self.redis.xread(
                {self.keys.feed(p): i for p, i in cursors.items()}, count=count, block=block_ms
            )
        cursors = dict(cursors)
        moved: dict[str, int] = {}
        for notice in self._notices(reply):
            cursors[notice.partition] = notice.entry_id
            moved[notice.match_id] = max(moved.get(notice.match_id, 0), notice.version)
        return cursors, moved

    def claim_stale(
        self, group: str, consumer: str, partition: int, idle_ms: int, count: int = 100
    ) -> list[FeedNotice]:
        """Take over notices of a partition read but not acknowledged within ``idle_ms`` (0: every pending
        notice, as a worker does that has just been given the partition)."""
        feed = self.keys.feed(partition)
        notices: list[FeedNotice] = []
        start = "0-0"
        while True:
            reply = self.redis.xautoclaim(feed, group, consumer, idle_ms, start_id=start, count=count)
            start, entries = reply[0], reply[1]
            notices += [_notice(i, f, partition) for i, f in entries if f]
            if start in (b"0-0", "0-0"):  # an empty page with a cursor: none idle among those it looked at
                return notices

    def drop_idle_consumers(self, group: str, partition: int, idle_ms: int) -> None:
        """Forget consumers (workers that are gone) of a partition with nothing pending, idle ``idle_ms``."""
        feed = self.keys.feed(partition)
        for consumer in self.redis.xinfo_consumers(feed, group):
            if consumer["pending"] == 0 and consumer["idle"] >= idle_ms:
                self.redis.xgroup_delconsumer(feed, group, consumer["name"])

    def live_workers(self, within_ms: int) -> int:
        """Rule workers whose last partition round (``workers.partitions``) ran within ``within_ms``, by
        Redis's own clock as the rounds are: a killed one drops out once its lease would have run out."""
        seconds, micros = self.redis.time()
        return self.redis.zcount(self.keys.feed_members, seconds * 1000 + micros // 1000 - within_ms, "+inf")

    def feed_lag(self, group: str, partitions: Iterable[int] | None = None) -> int:
        """Notices of the feed (of ``partitions``; all when None) that ``group`` has not finished: never
        delivered, or delivered and not acknowledged."""
        lag = 0
        for reply in self._each(
            self.partitions if partitions is None else partitions,
            lambda pipe, p: pipe.xinfo_groups(self.keys.feed(p)),
        ):
            for info in [] if isinstance(reply, Exception) else reply:
                name = info["name"].decode() if isinstance(info["name"], bytes) else info["name"]
                if name == group:
                    lag += int(info.get("lag") or 0) + int(info.get("pending") or 0)
        return lag

    def feed_pending(self, group: str) -> int:
        """Notices of every partition delivered to ``group`` and not yet acknowledged."""
        replies = self._each(self.partitions, lambda pipe, p: pipe.xpending(self.keys.feed(p), group))
        return sum(r["pending"] for r in replies if not isinstance(r, Exception))

    def ack(self, group: str, notice: FeedNotice, fence: Fence | None = None) -> None:
        """The notice's work is done. ``fence``: the lease of the notice's partition it was done under;
        LeaseLost, and the notice left pending, when another worker has taken the partition since (the
        notice is its now: acknowledged by the worker that lost it, it would be lost if the new one failed)."""
        feed = self.keys.feed(notice.partition)
        if fence is None:
            self.redis.xack(feed, group, notice.entry_id)
            return
        acked = self._fenced_ack(
            keys=[feed, self.keys.feed_fence(notice.partition)], args=[group, notice.entry_id, fence.token]
        )
        if acked is None:
            raise LeaseLost(f"partition {notice.partition} has a newer lease than token {fence.token}")

    def set_aside(self, group: str, notice: FeedNotice, why: str) -> None:
        """Move a notice whose work keeps failing aside, into its partition's ``:aside`` stream (capped at
        10,000), with why, and acknowledge it: the notices after it go on. An operator reads them there."""
        feed = self.keys.feed(notice.partition)
        self.redis.xadd(
            f"{feed}:aside",
            {
                "notice": notice.entry_id,
                "match": notice.match_id,
                "version": notice.version,
                "types": ",".join(notice.types),
                "why": why[:2000],
            },
            maxlen=10_000,
            approximate=True,
        )
        self.redis.xack(feed, group, notice.entry_id)

    def announce(self, match_id: str, version: int) -> None:
        """A notice without an append: the workers look at the match again (after ``matchlog migrate``)."""
        self.redis.xadd(
            self.keys.feed(self.keys.partition(match_id)),
            {"match": match_id, "version": version, "types": ""},
        )

    def trim_feed(self, partition: int) -> None:
        """Drop the notices of a partition every consumer group is done with: delivered and acknowledged.

        Only the feed is trimmed; it merely points into the match logs, which are never trimmed."""
        feed = self.keys.feed(partition)
        floors = []
        for group in self.redis.xinfo_groups(feed):
            pending = self.redis.xpending(feed, group["name"])
            if pending["pending"]:
                floors.append(_stream_id(pending["min"]))
            else:
                ms, seq = _stream_id(group["last-delivered-id"])
                floors.append((ms, seq + 1))
        if floors:
            ms, seq = min(floors)
            self.redis.xtrim(feed, minid=f"{ms}-{seq}", approximate=False)

    def _notices(self, reply: Any) -> list[FeedNotice]:
        """The notices of an ``XREAD``/``XREADGROUP`` reply, each with its partition."""
        return [
            _notice(i, f, self.keys.partition_of_feed(_text(stream)))
            for stream, entries in (reply or [])
            for i, f in entries
            if f
        ]


def decode(entry_id: bytes, fields: dict[bytes, bytes]) -> Recorded:
    seat = fields[b"seat"]
    commitment = fields.get(b"commitment")
    return Recorded(
        version=int(entry_id.split(b"-")[0]),
        type=fields[b"type"].decode(),
        seat=int(seat) if seat else None,
        data=json.loads(fields[b"data"]),
        at=_unpacked_time(fields[b"at"]),
        hash=_hex(fields.get(b"hash")),
        public_data=json.loads(fields[b"public"]) if commitment else None,
        commitment=_hex(commitment),
    )


def _hex(digest: bytes | None) -> str | None:
    """A stored hash (32 raw bytes) as its hex digits; None for none."""
    return digest.hex() if digest else None


# Stored compactly, shown readably: a hash as its 32 raw bytes (not 64 hex digits), a time as
# milliseconds since the epoch in base 36 (8 characters, not 24). Entries written before this keep
# their ISO text, which always holds a "-".

_compact = compact_encoder(sort_keys=False)
"""``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``, the same text (``chain.compact_encoder``)."""


def _packed_hash(digest: str | None) -> bytes:
    return bytes.fromhex(digest) if digest else b""


_NOW_SHAPE = re.compile(r"(19[7-9]\d|20\d\d)-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
"""``matches.now()``'s shape (milliseconds, UTC, 1970-2099): such a time comes back from its packed form
the same (``tests/store/test_redis_client_lines.py`` checks it against ``_packed_time_checked``), so the
append does not unpack it again to see."""


def _packed_time(at: str) -> str:
    if _NOW_SHAPE.fullmatch(at) is None:
        return _packed_time_checked(at)
    try:
        moment = datetime.fromisoformat(at[:-1] + "+00:00")
    except ValueError:  # the shape of a time, not a time (a 31st of February)
        return at
    return _base36(round(moment.timestamp() * 1000))


def _packed_time_checked(at: str) -> str:
    """The packed form of any time, only where it comes back the same: the reference of ``_packed_time``."""
    if not at.endswith("Z"):
        return at
    try:
        moment = datetime.fromisoformat(at[:-1] + "+00:00")  # C-fast, unlike strptime
    except ValueError:
        return at
    ms = round(moment.timestamp() * 1000)
    if ms < 0:  # before 1970: kept as text (base 36 of a negative number never ends)
        return at
    packed = _base36(ms)
    return packed if _unpacked_time(packed.encode()) == at else at  # only what comes back the same


def _unpacked_time(raw: bytes) -> str:
    if b"-" in raw or not raw:
        return raw.decode()
    moment = datetime.fromtimestamp(int(raw, 36) / 1000, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _base36(n: int) -> str:
    digits = ""
    while True:
        n, digit = divmod(n, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[digit] + digits
        if not n:
            return digits


def _raised(replies: list) -> list:
    """Pipeline replies, raising the first error among them (a missing group must not pass for "nothing new")."""
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
    return replies


def _text(raw: str | bytes) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


def _stream_id(raw: str | bytes) -> tuple[int, int]:
    ms, seq = (raw.decode() if isinstance(raw, bytes) else raw).split("-")
    return int(ms), int(seq)


def _notice(entry_id: bytes, fields: dict[bytes, bytes], partition: int) -> FeedNotice:
    """The notice, or one that says what is wrong with it (``bad``): a notice nobody can read must not stop
    the reading of those after it."""
    try:
        types = fields[b"types"].decode()
        version = int(fields[b"version"])
        if version < 1:
            raise ValueError(f"version {version}")
        return FeedNotice(
            entry_id.decode(),
            fields[b"match"].decode(),
            version,
            tuple(types.split(",")) if types else (),
            partition,
        )
    except (KeyError, ValueError, UnicodeDecodeError) as error:
        return FeedNotice(entry_id.decode(), "", 0, (), partition, bad=f"unreadable notice ({error!r})")
