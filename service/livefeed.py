"""Live log entries for Server-Sent Events subscribers, with one reader per process.

A subscriber costs no Redis connection of its own. One thread per API process (a greenlet under
gunicorn's gevent workers) follows the feed partitions of the matches with subscribers, with a blocking
``XREAD`` (polled on a Redis Cluster, where one read cannot span partitions). When a match with
subscribers moves on, the thread reads its new log entries once and hands them to each subscriber's
queue. A subscriber that connects reads its backlog once, then waits on its queue, so a quiet
connection holds neither a worker nor a socket to Redis. Entries are handed over as stored; each
subscriber shows them through the game's ``event_view`` for its own seat.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from collections import OrderedDict

import redis

from service import metrics
from service.chain import Recorded
from service.matches import Matches

log = logging.getLogger("matchlog.livefeed")


class Subscription:
    def __init__(self, match_id: str):
        self.match_id = match_id
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


class LiveFeed:
    def __init__(self, matches: Matches, block_ms: int = 250):
        self.matches = matches
        self.block_ms = block_ms
        self._lock = threading.Lock()
        self._subscribers: dict[str, set[Subscription]] = {}
        self._dispatched: dict[str, int] = {}  # per followed match: the last version handed out
        self._cursors: dict[int, str] = {}  # per followed partition: the last notice read
        # (a new partition waits for the reader's current read to end: at most ``block_ms``)
        self._reader: threading.Thread | None = None
        self._rendered: OrderedDict[tuple, str] = OrderedDict()

    def render(self, match_id: str, entry: Recorded, seat: int | None, revealed: bool, sealed: bool) -> str:
        """An entry as an SSE event for ``seat``: made once per seat and entry, however many subscribers
        share that view (a thousand spectators cost one JSON encoding)."""
        key = (match_id, entry.version, entry.hash, seat, revealed)
        with self._lock:
            text = self._rendered.get(key)
        if text is None:
            engine = self.matches.engine_of(match_id)
            body = json.dumps(self.matches.entry_view(engine, entry, seat, revealed, sealed), separators=(",", ":"))
            text = f"id: {entry.version}\ndata: {body}\n\n"
            with self._lock:
                self._rendered[key] = text
                while len(self._rendered) > 4096:
                    self._rendered.popitem(last=False)
        return text

    def subscribe(self, match_id: str) -> Subscription:
        """Follow a match from now on (read the backlog after subscribing, so nothing falls between)."""
        subscription = Subscription(match_id)
        partition = self.matches.keys.partition(match_id)
        while True:
            with self._lock:
                followed = partition in self._cursors
            # the partition's cursor is pinned before the version is read, so nothing falls between
            pinned = None if followed else self.matches.store.newest_feed_ids([partition])[partition]
            version = self.matches.store.version(match_id)
            with self._lock:
                if pinned is None and partition not in self._cursors:
                    continue  # its last follower left meanwhile: pin it again
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
        metrics.SUBSCRIBERS.inc()
        if self._reader is None or not self._reader.is_alive():  # started lazily: after gunicorn forks
            self._reader = threading.Thread(target=self._follow, name="livefeed", daemon=True)
            self._reader.start()

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            followers = self._subscribers.get(subscription.match_id, set())
            if subscription in followers:
                metrics.SUBSCRIBERS.dec()
            followers.discard(subscription)
            if not followers:
                self._subscribers.pop(subscription.match_id, None)
                self._dispatched.pop(subscription.match_id, None)
                partition = self.matches.keys.partition(subscription.match_id)
                if not any(self.matches.keys.partition(m) == partition for m in self._subscribers):
                    self._cursors.pop(partition, None)

    def count(self) -> int:
        with self._lock:
            return sum(len(s) for s in self._subscribers.values())

    def _follow(self) -> None:
        while True:
            try:
                with self._lock:
                    cursors = dict(self._cursors)
                cursors, moved = self.matches.store.tail_feed(cursors, self.block_ms)
                with self._lock:
                    self._cursors.update({p: c for p, c in cursors.items() if p in self._cursors})
                for match_id, version in moved.items():
                    self._hand_out(match_id, version)
            except redis.exceptions.RedisError as error:  # away, or a cluster failing over
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
        _, entries = self.matches.repository.read(match_id, after=after, until=version)
        with self._lock:
            if match_id in self._dispatched:
                self._dispatched[match_id] = max(self._dispatched[match_id], version)
            followers = list(self._subscribers.get(match_id, ()))
        for subscription in followers:
            subscription.entries.put(list(entries))
