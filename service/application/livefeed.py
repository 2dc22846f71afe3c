"""Live log entries for Server-Sent Events subscribers, with one reader per process.

A subscriber costs no Redis connection of its own. One thread per API process (a greenlet under
gunicorn's gevent workers) follows the feed partitions of the matches with subscribers, with a blocking
``XREAD`` (polled on a Redis Cluster, where one read cannot span partitions). When a match with
subscribers moves on, the thread reads its new log entries once and hands them to each subscriber's
queue. A subscriber that connects reads its backlog once, then waits on its queue, so a quiet
connection holds neither a worker nor a socket to Redis. Entries are handed over as stored; each
subscriber shows them through the game's ``event_view`` for its own seat.

A held connection is cheap for its client and not free for the process (a greenlet, a socket, a slot
of gunicorn's ``worker_connections``): a process holds at most ``sse_per_process`` of them, and a client
address (an IPv6 one: its /64) at most ``sse_per_address``, whichever feeds they follow (``Slots``, shared).

The same reader follows a tournament's log for ``GET /v1/tournaments/{id}/events/stream``: a ``LiveFeed``
over the tournaments' event store (``feed``, ``read``), whose entries the route shows with the standings.
"""

from __future__ import annotations

import json
import logging
import queue
import select
import socket
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from service import metrics
from service.application.matches import Matches
from service.domain import projections, replay
from service.domain.addresses import counted_address
from service.domain.chain import Recorded
from service.domain.replay import MatchState
from service.games import GAMES, texts
from service.store.errors import StoreFailure
from service.store.events import EventStore
from service.store.redis_client import Client

log = logging.getLogger("matchlog.livefeed")

CHECK_S = 2.0
"""How often a held stream wakes when nothing arrives: to ask again whether its credential holds and its
client is still there. Waiting for the heartbeat (15 s) would let a revoked reader, or the slot of a client
long gone, stay that long."""


class Full(Exception):
    """No room for another subscriber: ``cap`` is ``"address"`` (the client's own) or ``"process"``."""

    def __init__(self, cap: str):
        super().__init__(cap)
        self.cap = cap


class Subscription:
    def __init__(self, match_id: str, address: str = ""):
        self.match_id = match_id
        self.address = address
        self.entries: queue.Queue[list[Recorded]] = queue.Queue()

    def next(self, timeout: float) -> list[Recorded]:
        """The entries that arrived since the last call, waiting up to ``timeout`` seconds for some."""
        try:
            batch = self.entries.get(timeout=timeout)
        except queue.Empty:
            return []
        while True:  # everything already waiting, at once
            try:
                batch += self.entries.get_nowait()
            except queue.Empty:
                return batch


class Slots:
    """The streams a process holds, in all and per client address (as ``counted_address`` counts it: an IPv6
    one by its /64): one count for every feed it serves."""

    def __init__(self, per_address: int, per_process: int):
        self.per_address = per_address
        self.per_process = per_process
        self._lock = threading.Lock()
        self._count = 0
        self._per_address: dict[str, int] = {}  # subscribers per client address

    def take(self, address: str) -> None:
        """Count one more subscriber from ``address``; Full when there is no room, the address's own cap first
        (that one is the client's doing)."""
        address = counted_address(address)
        with self._lock:
            if self.per_address and self._per_address.get(address, 0) >= self.per_address:
                raise Full("address")
            if self.per_process and self._count >= self.per_process:
                raise Full("process")
            self._count += 1
            self._per_address[address] = self._per_address.get(address, 0) + 1
        metrics.SUBSCRIBERS.inc()

    def give_back(self, address: str) -> None:
        address = counted_address(address)
        with self._lock:
            self._count -= 1
            left = self._per_address.pop(address) - 1
            if left:
                self._per_address[address] = left
        metrics.SUBSCRIBERS.dec()

    def count(self) -> int:
        with self._lock:
            return self._count


class LiveFeed:
    def __init__(
        self,
        matches: Matches,
        redis_client: Client,
        block_ms: int = 250,
        feed: EventStore | None = None,
        read: Callable[[str, int, int], list[Recorded]] | None = None,
        slots: Slots | None = None,
        kept: int = 4096,
    ):
        """``redis_client``: the match store's, whose feed it follows; or ``feed``, another log's event store
        (a tournament's), whose entries ``read(id, after, until)`` reads. ``slots``: the process's count of
        held streams, shared with its other feeds. ``kept``: how many rendered events it keeps."""
        self.matches = matches
        self.feed = feed or EventStore.of(redis_client, matches.settings)
        self._read = read or (lambda log_id, after, until: matches.repository.read(log_id, after, until)[1])
        self.block_ms = block_ms
        self.slots = slots or Slots(matches.settings.sse_per_address, matches.settings.sse_per_process)
        self.per_address = self.slots.per_address
        self.per_process = self.slots.per_process
        self._lock = threading.Lock()
        self._subscribers: dict[str, set[Subscription]] = {}
        self._dispatched: dict[str, int] = {}  # per followed match: the last version handed out
        self._cursors: dict[int, str] = {}  # per followed partition: the last notice read
        # (a new partition waits for the reader's current read to end: at most ``block_ms``)
        self._reader: threading.Thread | None = None
        self._rendered: OrderedDict[tuple, str] = OrderedDict()
        self._kept = kept
        self._after: OrderedDict[str, MatchState] = OrderedDict()  # per match: the state after the last shown

    def render(
        self,
        match_id: str,
        entry: Recorded,
        seat: int | None,
        revealed: bool,
        sealed: bool,
        lang: str = texts.SOURCE,
    ) -> str:
        """An entry as an SSE event for ``seat``, its text in ``lang``: made once per seat, language and entry,
        however many subscribers share that view (a thousand spectators cost one JSON encoding)."""

        def made() -> str:
            engine = GAMES[self.matches.repository.meta(match_id).game_id]
            # an entry travels alone here: it says its match's game (the contract's FeedEntry), and what
            # a client does next: the seats to act after it and the match's status
            after = self._state_after(match_id, entry)
            with texts.speaking(lang):
                seen = projections.entry_view(engine, entry, seat, revealed, sealed, after.game)
            shown = {
                "game": engine.info.id,
                **seen,
                "to_act": after.to_act(),
                "status": projections.status_of(after),
            }
            return event(entry.version, shown)

        return self.rendered((match_id, entry.version, entry.hash, seat, revealed, lang), made)

    def rendered(self, key: tuple, make: Callable[[], str]) -> str:
        """The event ``make()`` gives, made once for ``key`` (an entry's identity and view) while it is among
        the last ``kept`` made, however many subscribers send it."""
        with self._lock:
            text = self._rendered.get(key)
        if text is None:
            text = make()
            with self._lock:
                self._rendered[key] = text
                while len(self._rendered) > self._kept:
                    self._rendered.popitem(last=False)
        return text

    def _state_after(self, match_id: str, entry: Recorded) -> MatchState:
        """The match after ``entry``: the one after the entry before it, folded one entry on (the feed shows
        entries in order), else loaded at the entry's version."""
        with self._lock:
            before = self._after.get(match_id)
        if before is not None and before.version == entry.version:
            return before
        if before is not None and before.version == entry.version - 1:
            state = replay.advance(before, entry, lambda version: self.matches.load(match_id, version))
        else:
            state = self.matches.load(match_id, entry.version)
        with self._lock:
            self._after[match_id] = state
            self._after.move_to_end(match_id)
            while len(self._after) > 1024:
                self._after.popitem(last=False)
        return state

    def subscribe(self, match_id: str, address: str = "") -> Subscription:
        """Follow a match from now on (read the backlog after subscribing, so nothing falls between), for a
        client at ``address``; Full when the process, or that address, holds as many as it may."""
        subscription = Subscription(match_id, address)
        partition = self.feed.partition(match_id)
        while True:
            with self._lock:
                followed = partition in self._cursors
            # the partition's cursor is pinned before the version is read, so nothing falls between
            pinned = None if followed else self.feed.newest_feed_ids([partition])[partition]
            version = self.feed.version(match_id)
            with self._lock:
                if pinned is None and partition not in self._cursors:
                    continue  # its last follower left meanwhile: pin it again
                self.slots.take(address)  # before anything is pinned for it
                if pinned is not None:
                    self._cursors.setdefault(partition, pinned)
                self._add(subscription, version)
                break
        return subscription

    def _add(self, subscription: Subscription, version: int) -> None:
        """Count a subscriber in (under the lock), with the match's version when it was pinned."""
        match_id = subscription.match_id
        if match_id not in self._subscribers:
            self._subscribers[match_id] = set()
            self._dispatched[match_id] = version
        self._subscribers[match_id].add(subscription)
        if self._reader is None or not self._reader.is_alive():  # started lazily: after gunicorn forks
            self._reader = threading.Thread(target=self._follow, name="livefeed", daemon=True)
            self._reader.start()

    def unsubscribe(self, subscription: Subscription) -> None:
        """Stop following (again: a no-op, so that every way a connection ends may call it)."""
        with self._lock:
            followers = self._subscribers.get(subscription.match_id, set())
            if subscription in followers:
                self.slots.give_back(subscription.address)
            followers.discard(subscription)
            if not followers:
                self._subscribers.pop(subscription.match_id, None)
                self._dispatched.pop(subscription.match_id, None)
                partition = self.feed.partition(subscription.match_id)
                if not any(self.feed.partition(m) == partition for m in self._subscribers):
                    self._cursors.pop(partition, None)

    def count(self) -> int:
        """The streams the process holds, on every feed."""
        return self.slots.count()

    def _follow(self) -> None:
        while True:
            try:
                with self._lock:
                    cursors = dict(self._cursors)
                cursors, moved = self.feed.tail_feed(cursors, self.block_ms)
                with self._lock:
                    self._cursors.update({p: c for p, c in cursors.items() if p in self._cursors})
                for match_id, version in moved.items():
                    self._hand_out(match_id, version)
            except StoreFailure as error:  # away, or a cluster failing over
                log.warning("redis unavailable (%s); the live feed retries", error)
                threading.Event().wait(1.0)
            except Exception:  # a reader that dies silently would leave every subscriber waiting
                log.exception("live feed reader failed; it carries on")
                threading.Event().wait(1.0)

    def _hand_out(self, match_id: str, version: int) -> None:
        with self._lock:
            after = self._dispatched.get(match_id)
            followers = list(self._subscribers.get(match_id, ()))
        if after is None or version <= after or not followers:
            return
        entries = self._read(match_id, after, version)
        with self._lock:
            if match_id in self._dispatched:
                self._dispatched[match_id] = max(self._dispatched[match_id], version)
            followers = list(self._subscribers.get(match_id, ()))
        for subscription in followers:
            subscription.entries.put(list(entries))


def event(version: int, data: Any) -> str:
    """An SSE message: its id the entry's version, its data the JSON of ``data``."""
    return f"id: {version}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def client_gone(environ: dict[str, Any]) -> bool:
    """Whether the client of a held response closed its end: its socket reads as at its end (an EOF waits
    there). Asked without writing a byte and without waiting (``poll`` with no timeout is the kernel's even
    under gevent), so a closed tab frees its slot within ``CHECK_S``, not at the next heartbeat's write.
    False where the server does not show its socket."""
    sock = environ.get("gunicorn.socket") or environ.get("werkzeug.socket")
    if sock is None:
        return False
    try:
        poller = select.poll()
        poller.register(sock.fileno(), select.POLLIN | select.POLLHUP | select.POLLERR)
        if not poller.poll(0):
            return False
        return sock.recv(1, socket.MSG_PEEK) == b""  # readable: at its end, or the client sent more bytes
    except (OSError, ValueError):  # closed under us
        return True
