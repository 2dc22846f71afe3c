"""The match repository: matches as they are kept in Redis, and loaded back at any version.

A match is its log (in the event store), a meta hash beside it (the sealed seed and the seat token
hashes, which must never be in the log) and snapshots (a cache of the fold). Loading never replays a
match from the start once it has a snapshot: ``load`` starts from the newest state this process
already holds or from the nearest snapshot, reads only the entries after it, and leaves behind the
snapshots that fall due (none of a compacted match, which keeps its final state only). Storing a ``Step``
keeps the states it already holds: nothing is folded twice; the snapshots that fall due among them go in
the append's own step (``EventStore.append``), so a process that catches up on another's appends has none
to write.

The cache is trusted only as far as the log agrees with it. A cached head or a snapshot is used only
when the log's entry at its version has the hash it was folded from, checked in the same read as the
tail; otherwise it is dropped and the state rebuilt from the log (the log is the truth: after a
restore or a failover that lost writes, every process converges on it). An append names the hash of
the entry it follows, so a stale state can never be appended to, and only states folded from the log
as it is reach the cache.
"""

from __future__ import annotations

import json
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import orjson
import redis

from service.domain import projections, replay
from service.domain.chain import Recorded, canonical_json, verify_chain
from service.domain.errors import MatchNotFound, VersionNotFound
from service.domain.immutable import FrozenDict, FrozenList, replaced
from service.domain.lifecycle import SeedSecret, Step
from service.domain.replay import MatchState
from service.domain.serverkey import ServerKey
from service.store import packs, rows
from service.store.events import EventStore, NotTheHolder, Remember, VersionConflict, decode
from service.store.keys import Keys
from service.store.snapshots import Snapshots


@dataclass(frozen=True)
class Meta:
    """What is fixed at creation and kept out of the log: the seed secret and the token hashes."""

    game_id: str
    secret: SeedSecret | None  # None once the log has revealed it (see ``compact``)
    seat_hashes: tuple[str, ...]
    platform: str | None = None  # the platform whose key created the match
    creator: str = ""  # the digest of the creator token (a match created without a platform key), else ""
    # the address of the client that created it without a platform key, as its budget of bot-only matches
    # is kept (``addresses.counted_address``: an IPv6 one's /64); "" for a platform's match, and once scored
    client: str = ""

    def fields(self, key: ServerKey, match_id: str) -> dict[str, bytes | str]:
        # raw bytes, not text: a finished match's whole footprint is counted in kilobytes
        assert self.secret is not None, "a match is stored with its secret; only a finished one drops it"
        sealed = key.seal(json.dumps([self.secret.seed, self.secret.salt]).encode(), match_id.encode())
        opened = (
            {"seats": str(len(self.seat_hashes))} if "" in self.seat_hashes else {}
        )  # a lobby's open seats
        owner = {"platform": self.platform} if self.platform else {}
        creator = {"creator": bytes.fromhex(self.creator)} if self.creator else {}
        client = {"client": self.client} if self.client else {}
        return {
            "game": self.game_id,
            "sealed": sealed,
            **opened,
            **owner,
            **creator,
            **client,
            **{f"seat:{i}": bytes.fromhex(digest) for i, digest in enumerate(self.seat_hashes) if digest},
        }

    @classmethod
    def from_fields(cls, raw: dict[bytes, bytes], key: ServerKey, match_id: str) -> Meta:
        fields = {k.decode(): v for k, v in raw.items()}
        seats = sorted((int(k.split(":")[1]), v) for k, v in fields.items() if k.startswith("seat:"))
        hashes = ["" for _ in range(int(fields.get("seats", len(seats))))]  # "": a seat still open
        for seat, v in seats:
            hashes[seat] = _stored_digest(v)
        seat_hashes = tuple(hashes)
        if "sealed" in fields:
            secret = SeedSecret(*json.loads(key.open(fields["sealed"], match_id.encode())))
        elif "seed" in fields:  # a match created before seeds were sealed: the seed in clear, no salt
            secret = SeedSecret(fields["seed"].decode(), None)
        else:  # a finished match: its log reveals the seed
            secret = None
        platform = fields["platform"].decode() if "platform" in fields else None
        return cls(
            fields["game"].decode(),
            secret,
            seat_hashes,
            platform,
            fields["creator"].hex() if "creator" in fields else "",
            fields["client"].decode() if "client" in fields else "",
        )


def _stored_digest(raw: bytes) -> str:
    """A seat token's digest as its hex digits, from a meta field: 32 raw bytes, or 64 hex digits in
    matches created before."""
    return raw.hex() if len(raw) == 32 else raw.decode()


META_FRESH_S = 2.0
"""How long a process trusts its copy of a match's seat tokens for reads: a seat handed to someone else (a
bot, a person) refuses its old token's reads everywhere within this time. Writes do not wait on it: an append
asked with a seat's token is made only while that token is still the seat's (``EventStore.append``), and a
token this copy does not know is looked up in Redis before it is refused (a seat's new holder)."""


class Lru:
    """A small LRU map, safe to share between threads without a lock: each step is one call of
    ``OrderedDict``'s, atomic under the GIL (the keys are strings and tuples, hashed and compared in C), and
    a key another thread dropped between two steps is simply gone. Values are immutable, so sharing them
    is safe. (A lock cost more than the lookup: gevent's is Python, taken on every move several times.)

    With ``max_bytes`` it holds at most that many bytes as ``weigh(value, its previous weight or None)``
    counts them (and at most ``size`` values): the least recently used go first. Threads racing on one key
    may leave the count off by a value's weight; under gevent, which switches only at I/O, they cannot."""

    def __init__(
        self,
        size: int,
        max_bytes: int | None = None,
        weigh: Callable[[Any, int | None], int] | None = None,
    ):
        self.size = size
        self.max_bytes = max_bytes
        self._weigh = weigh
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._weights: dict[Hashable, int] = {}
        self.bytes = 0
        """What the values held weigh (``max_bytes``), as counted when each was put."""

    def get(self, key: Hashable) -> Any:
        value = self._items.get(key)
        if value is not None:
            try:  # noqa: SIM105 (suppress() costs a context manager on every lookup)
                self._items.move_to_end(key)
            except KeyError:  # dropped meanwhile
                pass
        return value

    def put(self, key: Hashable, value: Any) -> None:
        items = self._items
        if self.max_bytes is not None and self._weigh is not None:
            previous = self._weights.get(key)
            weight = self._weigh(value, previous)
            self._weights[key] = weight
            self.bytes += weight - (previous or 0)
        items[key] = value
        try:
            items.move_to_end(key)
            while len(items) > self.size or (
                self.max_bytes is not None and self.bytes > self.max_bytes and len(items) > 1
            ):
                self._forget(items.popitem(last=False)[0])
        except KeyError:  # dropped meanwhile, or emptied by another put
            pass

    def drop(self, key: str) -> None:
        if self._items.pop(key, None) is not None:
            self._forget(key)

    def _forget(self, key: Hashable) -> None:
        weight = self._weights.pop(key, None)
        if weight is not None:
            self.bytes -= weight


STATE_WEIGHED_EVERY = 32
"""A cached state's size is worked out again every this many versions of its match (the walk costs some
100 µs for the largest game's state): in between, a match's newest state counts what its last one weighed."""


def state_weight(state: MatchState, previous: int | None) -> int:
    """Approximately the bytes ``state`` holds of its own: its game's objects, not the shared content pack
    (``packs.shared``: held once per process) nor anything another field shares with the match's states."""
    if previous is not None and state.version % STATE_WEIGHED_EVERY:
        return previous
    return approximate_bytes(state.game) + approximate_bytes(state.options) + 1024


def approximate_bytes(value: Any) -> int:
    """``sys.getsizeof`` summed over a JSON-like tree (dicts, lists, tuples, strings, numbers), each object
    once; frozen (shared) parts count nothing."""
    seen: set[int] = set()
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, FrozenDict | FrozenList):
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
    return total


class MatchRepository:
    def __init__(
        self,
        redis_client: redis.Redis,
        keys: Keys,
        snapshot_every: int,
        server_key: ServerKey,
        cache_size: int = 2048,
        durability: str = "local",
        replica_wait_ms: int = 1000,
        cache_bytes: int | None = None,
    ):
        """``cache_size``: how many matches' newest states (and seat tokens) this process keeps at most;
        ``cache_bytes``: how many bytes of states at most (``state_weight``), whichever comes first."""
        self.redis = redis_client
        self.keys = keys
        self.server_key = server_key
        self.store = EventStore(redis_client, keys, durability, replica_wait_ms)
        self.snapshots = Snapshots(redis_client, keys, snapshot_every)
        # match id -> newest MatchState this process has seen
        self._heads = Lru(cache_size, cache_bytes, state_weight)
        self._metas = Lru(cache_size)
        self.on_saved: Callable[[str, Step], None] | None = None
        """Told of every step appended (the listings follow a match's status so)."""

    # -- writing -----------------------------------------------------------------------------------

    def add(self, match_id: str, meta: Meta, step: Step) -> None:
        """Store a new match: its meta, then the first entries of its log."""
        # The meta hash goes first: a log without its meta would be a match nobody can play, while
        # meta without a log (a crash in between) is invisible and harmless.
        created = step.entries[0]
        if "content_sha256" in created.data:
            pack = self.keys.pack(created.data["content_sha256"])
            self.store.durably(
                pack, lambda client: client.set(pack, canonical_json(created.data["content"]), nx=True)
            )
        self.redis.hset(self.keys.meta(match_id), mapping=meta.fields(self.server_key, match_id))
        snapshots = self.snapshots.encoded_due(step.states)
        entries = [e.without_content() for e in step.entries]
        self.store.append(
            match_id, 0, None, entries, None, snapshots, summary=encoded_summary(match_id, step.state)
        )
        self._keep(match_id, step.states, snapshots=False)

    def save(
        self,
        match_id: str,
        step: Step,
        remember: Remember | None = None,
        holder: tuple[int, str] | None = None,
        handover: tuple[int, str] | None = None,
    ) -> str | None:
        """Append a step's entries if the log is still at the version the step starts from (and, with
        ``holder``, a seat and its token's digest, only while that token is still the seat's; with ``handover``,
        a seat the entries hand over and its new token's digest, which the seat takes in the same step: its old
        token stops working here at once, and in other processes it can no longer act, the append checks the
        token, and its reads end within ``META_FRESH_S``).

        Returns None, or the answer remembered under ``remember.key`` by an earlier request (nothing
        is appended then); raises VersionConflict when the log has moved on or is not the one the
        step's state was folded from (the cached head is then dropped), NotTheHolder when the seat has
        another token now (this process's copy of the seats' tokens is dropped)."""
        base = step.base
        assert base is not None, "a step appended to a log starts from the log's state"
        # the snapshots that fall due go with the entries, in the append's step: kept only if they are
        snapshots = self.snapshots.encoded_due(step.states)
        try:
            _, prior = self.store.append(
                match_id,
                base.version,
                base.head_hash,
                list(step.entries),
                remember,
                snapshots,
                holder,
                handover,
                encoded_summary(match_id, step.state),
            )
        except VersionConflict:
            self._heads.drop(match_id)
            raise
        except NotTheHolder:
            self._metas.drop(match_id)
            raise
        if prior is None:  # only now that the entries are in the log may their states reach the cache
            self._keep(match_id, step.states, snapshots=False)
            if handover is not None:
                self._metas.drop(match_id)
            if self.on_saved is not None:
                self.on_saved(match_id, step)
        return prior

    def remembered(self, key: str) -> str | None:
        return self.store.remembered(key)

    def claim(self, key: str, marker: str, ttl_s: int) -> str | None:
        return self.store.claim(key, marker, ttl_s)

    def release(self, key: str, marker: str) -> None:
        self.store.release(key, marker)

    def keep(self, key: str, answer: str, ttl_s: int) -> None:
        self.store.keep(key, answer, ttl_s)

    def durably(self, key: str, write: Callable[[redis.Redis], Any]) -> Any:
        """Make ``write(client)`` to ``key`` as the event store makes an append (``EventStore.durably``)."""
        return self.store.durably(key, write)

    def readiness(self, lease_ms: int, replicated: bool) -> dict:
        """Whether this process can serve: Redis answers (``redis: False`` if not), how many rule workers
        renewed a partition lease within ``lease_ms`` and, ``replicated``, the fewest replicas any master has."""
        try:
            self.redis.ping()
            replicas = {"replicas": self.store.fewest_replicas()} if replicated else {}
            return {"redis": True, "workers": self.store.live_workers(lease_ms), **replicas}
        except redis.exceptions.RedisError:
            return {"redis": False, "workers": 0}

    # -- reading -----------------------------------------------------------------------------------

    def meta(self, match_id: str, fresh: bool = False) -> Meta:
        """The match's keys and seats' tokens: this process's copy, up to ``META_FRESH_S`` old, unless
        ``fresh``."""
        cached = None if fresh else self._metas.get(match_id)
        if cached is not None and time.monotonic() - cached[1] < META_FRESH_S:
            return cached[0]
        raw = self.redis.hgetall(self.keys.meta(match_id))
        if not raw:
            raise MatchNotFound(match_id)
        meta = Meta.from_fields(raw, self.server_key, match_id)
        if "" not in meta.seat_hashes:  # a seat may still be joined, from any process: read it again
            self._metas.put(match_id, (meta, time.monotonic()))
        return meta

    def claim_seat(self, match_id: str, seat: int, digest: str) -> bool:
        """Give an open seat its token, once: of two racing joins exactly one gets it."""
        return bool(self.redis.hsetnx(self.keys.meta(match_id), f"seat:{seat}", bytes.fromhex(digest)))

    def seat_digest(self, match_id: str, seat: int) -> str | None:
        """The digest of the seat's token as Redis holds it now (no cache)."""
        raw = self.redis.hget(self.keys.meta(match_id), f"seat:{seat}")
        return _stored_digest(raw) if raw else None

    def version(self, match_id: str) -> int:
        """The log's current version (0: no such match), read from Redis."""
        return self.store.version(match_id)

    def head(self, match_id: str) -> MatchState | None:
        """The newest state of the match this process holds, without asking Redis (may be stale)."""
        return self._heads.get(match_id)

    def load(self, match_id: str, version: int | None = None) -> MatchState:
        """The match at ``version`` (the latest when None)."""
        head = self._heads.get(match_id)
        if head is not None and (version is None or version >= head.version):
            # the head's own entry comes with the tail: the head is used only if the log agrees
            entries = self.store.read_since(match_id, head.version, head.head_hash, until=version)
            if entries is not None:
                if version is not None and head.version + len(entries) < version:
                    raise VersionNotFound(head.version + len(entries))
                # the entries since a head are another process's appends, whose snapshots went with them
                return self._fold(match_id, head, entries, remember=True, snapshots=False)
            self._heads.drop(match_id)

        current = self.store.version(match_id)
        if current == 0:
            raise MatchNotFound(match_id)
        target = current if version is None else version
        if not 1 <= target <= current:
            raise VersionNotFound(current)
        remember = version is None or version == current
        # The snapshot due at or below the target, and the entries from it on, in one round trip: the
        # cost does not grow with the match (no list of every snapshot version it has kept).
        base, entries = None, None
        expected = self.snapshots.expected(target)
        if expected:
            with self.redis.pipeline(transaction=False) as pipe:
                self.snapshots.read(pipe, match_id, expected)
                pipe.xrange(self.keys.log(match_id), f"{expected}-0", f"{target}-0")
                raw, tail = pipe.execute()
            base = self.snapshots.parse(raw)
            entries = [decode(entry_id, fields) for entry_id, fields in tail] if base is not None else None
        if base is None and expected:  # not kept (a compacted match, another interval): any older one
            base_version = self.snapshots.best(self.redis.hkeys(self.keys.snapshots(match_id)), target)
            base = self.snapshots.get(match_id, base_version) if base_version else None
            entries = None
        if base is not None:
            base = _sharing_pack(base)
            if entries is None:
                entries = self._read(match_id, after=base.version - 1, until=target)
            if entries and _agrees(base, entries[0]):
                if base.created_at is None:
                    base = self._dated(match_id, base, entries[0])
                return self._fold(match_id, base, entries[1:], remember)
            self.snapshots.drop(match_id, base.version)  # folded from another log: rebuild below
        entries = self._read(match_id, after=0, until=target)
        verify_chain(entries[:1])
        meta = self.meta(match_id, fresh=target < current)
        secret = meta.secret or self._revealed(match_id)
        # a match whose sealed seed is gone is over and compacted (``compact``): it keeps its final state only,
        # so an earlier version folded from the start puts back none of the snapshots compaction took
        kept = meta.secret is not None or target == current
        start = replay.start(entries[0], secret.seed, secret.salt)
        return self._fold(match_id, start, entries[1:], remember, snapshots=kept)

    def _dated(self, match_id: str, state: MatchState, own: Recorded) -> MatchState:
        """``state``, from a snapshot taken before states kept their times, given them from its log (``own`` is its
        entry at its version), and kept so again: the log is read for them once, not at every load."""
        created = own if own.version == 1 else self.store.read(match_id, after=0, until=1)[0]
        ended = None
        if state.seed is not None:  # revealed with the end, at its time: only match_scored follows it
            near = (
                [own]
                if own.type == "seed_revealed"
                else self.store.read(match_id, own.version - 2, own.version)
            )
            ended = next(e.at for e in near if e.type == "seed_revealed")
        dated = replaced(state, created_at=created.at, updated_at=own.at, ended_at=ended)
        self.snapshots.save(match_id, [dated])
        return dated

    def earlier_than(self, match_id: str, latest: MatchState) -> Callable[[int], MatchState]:
        """The match at a version before ``latest``'s: the first asked for is loaded, and the log from it up to
        ``latest`` folded once, so that asking for each version of that span (an undo's judgement does) costs
        one fold of it, not a load from a snapshot per version."""
        held: dict[int, MatchState] = {latest.version: latest}

        def earlier(version: int) -> MatchState:
            if version in held:
                return held[version]
            if version > latest.version:
                return self.load(match_id, version)
            state = self.load(match_id, version)
            held[version] = state
            entries = self._read(match_id, after=version, until=latest.version - 1)
            verify_chain(entries, state.head_hash)
            for entry in entries:
                if entry.version in held:  # folded from an earlier ask on
                    break
                state = replay.advance(
                    state, entry, lambda v: held[v] if v in held else self.load(match_id, v)
                )
                held[state.version] = state
            return held[version]

        return earlier

    def read(
        self, match_id: str, after: int = 0, until: int | None = None, limit: int | None = None
    ) -> tuple[int, list[Recorded]]:
        """The match's current version and its entries with ``after < version <= until`` (and none past
        that version: a move appended between the two reads is left to the next page, so that a client
        who asks again ``after`` the version it was given neither misses an entry nor sees one twice)."""
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.xlen(self.keys.log(match_id))
            pipe.exists(self.keys.meta(match_id))
            current, exists = pipe.execute()
        if current == 0 or not exists:
            raise MatchNotFound(match_id)
        until = current if until is None else min(until, current)
        return current, self._read(match_id, after=after, until=until, limit=limit)

    def _read(
        self, match_id: str, after: int = 0, until: int | None = None, limit: int | None = None
    ) -> list[Recorded]:
        """Log entries, ``match_created`` with its content pack put back in place."""
        entries = self.store.read(match_id, after=after, until=until, limit=limit)
        if entries and entries[0].version == 1 and "content_sha256" in entries[0].data:
            created = entries[0]
            digest = created.data["content_sha256"]

            def stored() -> Any:
                pack = self.redis.get(self.keys.pack(digest))
                if pack is None:
                    raise RuntimeError(f"content pack {digest} of {match_id} is missing")
                return json.loads(pack)

            # the process's one copy of the pack (read from Redis only if none is in use): every state shares it
            entries[0] = replace(created, data={**created.data, "content": packs.known(digest, stored)})
        return entries

    def compact(self, match_id: str) -> None:
        """A finished, scored match keeps one snapshot, its final state: it will not change again. Its
        sealed seed goes too: the log has revealed it; and its creator's address, whose budget a finished
        match no longer counts in."""
        final = self.load(match_id)
        self.snapshots.save(match_id, [final])
        stale = [v for v in self.redis.hkeys(self.keys.snapshots(match_id)) if int(v) != final.version]
        if stale:
            self.redis.hdel(self.keys.snapshots(match_id), *stale)
        if final.seed is not None:  # (and a seed kept in clear by a match from before seeds were sealed)
            self.redis.hdel(self.keys.meta(match_id), "sealed", "seed", "client")

    def _revealed(self, match_id: str) -> SeedSecret:
        """The seed and salt of a finished match, from its ``seed_revealed`` entry near the end."""
        for entry in reversed(self.store.read(match_id, after=max(0, self.store.version(match_id) - 4))):
            if entry.type == "seed_revealed":
                return SeedSecret(entry.data["seed"], entry.data.get("salt"))
        raise RuntimeError(f"match {match_id} has neither a sealed seed nor a revealed one")

    # -- the cache ------------------------------------------------------------------------------------

    def _fold(
        self,
        match_id: str,
        state: MatchState,
        entries: list[Recorded],
        remember: bool,
        snapshots: bool = True,
    ) -> MatchState:
        """Fold ``entries`` (already in the log, following ``state``) into it, keeping what falls due (the
        snapshots too, unless ``snapshots`` is False)."""
        verify_chain(entries, state.head_hash)
        states: list[MatchState] = []
        for entry in entries:
            state = replay.advance(state, entry, lambda version: self._earlier(match_id, version, states))
            states.append(state)
        self._keep(match_id, states, remember, head=state, snapshots=snapshots)
        return state

    def _earlier(self, match_id: str, version: int, folded: list[MatchState]) -> MatchState:
        """The match at ``version``: one this fold made, or one loaded (an ``undone`` goes back to it)."""
        return next((s for s in folded if s.version == version), None) or self.load(match_id, version)

    def _keep(
        self,
        match_id: str,
        states: Sequence[MatchState],
        remember: bool = True,
        head: MatchState | None = None,
        snapshots: bool = True,
    ) -> None:
        """Store the snapshots that fall due among ``states`` (unless ``snapshots`` is False: they are kept
        already) and, with ``remember``, cache the last of them (or ``head`` when there are none: a load that
        landed on a snapshot) as the match's head."""
        if snapshots:
            self.snapshots.save(match_id, self.snapshots.due(list(states)))
        newest = states[-1] if states else head
        if remember and newest is not None:
            cached = self._heads.get(match_id)
            if cached is None or cached.version < newest.version:
                self._heads.put(match_id, newest)


def _sharing_pack(state: MatchState) -> MatchState:
    """``state`` (from a snapshot) holding the process's shared copy of its content pack, not one of its own."""
    content = state.game.get("content") if isinstance(state.game, dict) else None
    if not isinstance(content, dict):
        return state
    return replaced(state, game={**state.game, "content": packs.shared(content)})


def encoded_summary(match_id: str, state: MatchState) -> bytes:
    """The state's listing summary (``views.listing_summary``) as the append stores it: its row, encoded as the
    listing sends it (``rows.record``)."""
    # through JSON: the row is encoded from plain values, as a listing decoded them before (orjson's round trip
    # gives the standard one's values, in a tenth of its time: each append pays for it)
    return rows.record(match_id, orjson.loads(rows.encoded(projections.listing_summary(state))))


def _agrees(state: MatchState, entry: Recorded) -> bool:
    """Whether ``entry`` is the log's entry that ``state`` was folded up to."""
    return entry.version == state.version and entry.hash == state.head_hash
