"""The projector: a rule worker that follows the feed in a consumer group.

For every append it folds the match up to the announced version (which leaves snapshots behind, so
that reading a long match never replays it from the start), enqueues the moves of bot seats to act
at the match's latest version and, when the game has just ended, the scoring job.

A notice is acknowledged only once its work is done, and the notice of a game's end only once the
result is in the log. Until then it stays pending in the consumer group, and pending notices idle for
``claim_idle_ms`` are claimed again, by this worker or another: that is how the work of a worker
killed mid-way, or a scoring job lost with its worker, gets done. Doing a notice twice changes
nothing: snapshots are pure functions of the log and scoring appends its result only once.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time

import redis

from service import metrics
from service.events import FeedNotice
from service.matches import Matches
from service.repository import MatchNotFound

GROUP = "projector"
log = logging.getLogger("matchlog.projector")


class Projector:
    def __init__(self, matches: Matches, consumer: str | None = None, block_ms: int = 1000):
        self.matches = matches
        self.store = matches.store
        self.consumer = consumer or f"{socket.gethostname()}-{os.getpid()}"
        self.block_ms = block_ms
        self.claim_idle_ms = matches.settings.claim_idle_ms
        self._last_claim = 0.0

    def handle(self, notice: FeedNotice) -> bool:
        """Do a notice's work; False while it must stay pending (a finished game not yet scored)."""
        try:
            state = self.matches.load(notice.match_id, notice.version)
        except MatchNotFound:
            log.warning("feed names unknown match %s", notice.match_id)
            return True
        self.matches.deliver(notice.match_id, notice.version, notice.types)  # before the ack: none is lost
        if state.finished and state.result is None and self.matches.load(notice.match_id).result is None:
            self.matches.jobs.enqueue_scoring(notice.match_id, notice.version, reuse=False)
            return False
        if "match_scored" in notice.types:  # the match will not change again: one snapshot is enough
            self.matches.repository.compact(notice.match_id)
        elif (state.clock is not None or any(state.bots)) and self.matches.store.version(notice.match_id) == \
                notice.version:  # bots and clocks answer the latest version only; other matches cost no read
            self.matches.bots_to_move(notice.match_id, state)
            self.matches.schedule_deadline(notice.match_id, state)
        return True

    def step(self) -> int:
        """Handle one batch: stale notices of dead consumers first, then new ones. Returns how many."""
        self.store.ensure_group(GROUP)
        notices: list[FeedNotice] = []
        if time.monotonic() - self._last_claim > self.claim_idle_ms / 2000:
            self._last_claim = time.monotonic()
            notices = self.store.claim_stale(GROUP, self.consumer, self.claim_idle_ms)
            self.store.trim_feed()
            self.store.drop_idle_consumers(GROUP, 10 * self.claim_idle_ms)
            self.matches.jobs.clean_registries()
            metrics.FEED_LAG.set(self.store.feed_lag(GROUP))
        self.matches.jobs.enqueue_overdue()  # deadlines and delayed retries: every worker moves them when due
        if not notices:
            notices = self.store.read_feed(GROUP, self.consumer, count=100, block_ms=self.block_ms)
        for notice in notices:
            if self.handle(notice):
                self.store.ack(GROUP, notice.entry_id)
        return len(notices)

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                self.step()
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as error:
                log.warning("redis unavailable (%s); retrying", error)
                stop.wait(1.0)
