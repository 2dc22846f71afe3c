"""The projector: a rule worker that follows its share of the feed's partitions in a consumer group
(``workers.partitions`` decides the share; a partition it gains comes with the notices its last reader
left pending).

For every append it delivers the webhooks that want it; for an append that ended the game (it reveals
the seed) it enqueues the scoring job, and in a match with bots or a clock, the moves of bot seats to
act and the next deadline. Only those need the match's state: an ordinary move of a match without
bots or clock costs no fold here (the API folded it, and left the snapshots behind).

A notice is acknowledged only once its work is done, and the notice of a game's end only once the
result is in the log. Until then it stays pending in the consumer group, and pending notices idle for
``claim_idle_ms`` are claimed again, by this worker or another: that is how the work of a worker
killed mid-way, or a scoring job lost with its worker, gets done. Doing a notice twice changes
nothing: snapshots are pure functions of the log and scoring appends its result only once.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable

import redis

from service import metrics
from service.application.bots import Bots
from service.application.deliveries import Deliveries
from service.application.matches import Matches
from service.domain.errors import LeaseLost, NotReplicated
from service.domain.replay import MatchState
from service.domain.serverkey import ServerKey, WrongServerKey
from service.store.errors import in_an_outage
from service.store.events import EventStore, FeedNotice
from service.store.fences import Fences
from service.store.keys import Keys
from service.store.repository import MatchNotFound
from workers.partitions import PartitionLeases

GROUP = "projector"
STATEFUL = {"match_created", "seed_revealed", "match_scored", "seat_replaced", "seat_joined", "match_started"}
"""Entry types whose notice always needs the match's state."""
BATCH = 100
"""Notices a step reads (spread over the partitions it reads, at least 16 from each): a step stays well
inside a lease."""
REBALANCE_S = 1.0
ATTEMPTS = 3
"""Times a notice's work may fail (each failure logged and counted; it is tried again once pending for
``claim_idle_ms``) before it is set aside, into its partition's ``:aside`` stream."""
"""How often a worker renews its partition leases and takes or gives up its share."""
log = logging.getLogger("matchlog.projector")


class Projector:
    def __init__(
        self, matches: Matches, redis_client: redis.Redis, consumer: str | None = None, block_ms: int = 1000
    ):
        """``redis_client``: the match store's, whose feed it follows."""
        self.matches = matches
        self.scoring = matches.scoring
        self.deliveries = Deliveries(matches.stores)
        self.store = EventStore.of(redis_client, matches.settings)
        self.consumer = consumer or f"{socket.gethostname()}-{os.getpid()}"
        self.block_ms = block_ms
        self.claim_idle_ms = matches.settings.claim_idle_ms
        self._last_claim = 0.0
        self._extras: dict[str, bool] = {}  # match id -> has bots or a clock
        self._last_rebalance = -REBALANCE_S
        settings = matches.settings
        self.keys = Keys(settings.namespace, settings.feed_partitions)
        self.leases = PartitionLeases(redis_client, self.keys, self.consumer, settings.partition_lease_ms)
        self.fences = Fences(redis_client, self.keys)
        self.redis = redis_client
        self._key_checked = False
        self._failures: dict[tuple[int, str], int] = {}  # (partition, notice id) -> failed attempts
        self._interrupted = False
        """An outage cut a step short: notices it had read may be pending, unhandled (``_resumed``)."""
        self.fatal: WrongServerKey | None = None
        """The misconfiguration that stopped the loop, if one did."""

    def handle(self, notice: FeedNotice) -> bool:
        """Do a notice's work; False while it must stay pending (a finished game not yet scored). LeaseLost
        when another worker has taken the notice's partition meanwhile (its work is that worker's now)."""
        fence = self.leases.fence(notice.partition)  # the order of its deliveries is written under it
        if not self._needs_state(notice):
            self.deliveries.deliver(notice.match_id, notice.version, notice.types, fence)
            return True
        try:
            state = self.matches.load(notice.match_id, notice.version)
        except MatchNotFound:
            log.warning("feed names unknown match %s", notice.match_id)
            return True
        self.deliveries.deliver(
            notice.match_id, notice.version, notice.types, fence
        )  # before the ack: none is lost
        if state.finished and state.result is None and self.matches.load(notice.match_id).result is None:
            self._hold_rating(notice, state)
            self.scoring.request_scoring(notice.match_id, notice.version, reuse=False)
            return False
        if "match_scored" in notice.types:  # the match will not change again: one snapshot is enough
            self.scoring.request_rating(notice.match_id)  # the scoring job asked too; a match is rated once
            self.matches.repository.compact(notice.match_id)
        elif (
            self._remember_extras(notice.match_id, state)
            and self.store.version(notice.match_id) == notice.version
        ):  # they answer the latest version only
            Bots(self.matches).to_move(notice.match_id, state)
            self.matches.clocks.schedule(notice.match_id, state)
        return True

    def _hold_rating(self, notice: FeedNotice, state: MatchState) -> None:
        """A game's end: its place in its rating pool, held again (the request that ended it held it, unless
        it failed in between: ``Scoring.hold_place``)."""
        if (
            "seed_revealed" not in notice.types
            or self.matches.repository.meta(notice.match_id).platform is None
        ):
            return  # an anonymous match's is rated nowhere: its entries are not read for it
        _, entries = self.matches.repository.read(
            notice.match_id, after=notice.version - len(notice.types), until=notice.version
        )
        self.scoring.hold_place(notice.match_id, state, entries)

    def _needs_state(self, notice: FeedNotice) -> bool:
        """Whether the notice's work needs the match's state: a game's end (``seed_revealed``), a seat
        handed over, anything of a match with bots or a clock, or of a match not seen yet."""
        if STATEFUL & set(notice.types) or not notice.types:
            return True
        return self._extras.get(notice.match_id, True)

    def _remember_extras(self, match_id: str, state: MatchState) -> bool:
        """Whether the match has bots or a clock (fixed but for ``seat_replaced``, which is looked at again)."""
        if len(self._extras) > 100_000:
            self._extras.clear()
        self._extras[match_id] = extras = state.clock is not None or any(state.bots)
        return extras

    def step(self) -> int:
        """Handle one batch: the pending notices of partitions just gained, of a batch an outage cut short,
        and stale ones first, then new ones. Returns how many."""
        if not self._key_checked:  # once Redis answers: the deployment's secret, or stop
            ServerKey(self.matches.settings.secret_key).claim(self.redis, self.keys.server_key)
            self._key_checked = True
        notices = self._rebalance() + self._resumed() + self._chores()
        self.matches.stores.jobs.enqueue_overdue()  # deadlines and delayed retries: every worker moves them when due
        if not notices:
            owned = self.leases.owned()  # COUNT is per stream: a few hundred notices a step at most
            notices = self.store.read_feed(
                GROUP,
                self.consumer,
                owned,
                count=max(16, BATCH // max(1, len(owned))),
                # no longer than the leases are trusted: a notice read after that stays pending with this
                # worker while the partition's next holder reads the ones after it
                block_ms=min(self.block_ms, self.leases.trusted_ms()) if owned else self.block_ms,
            )
        for notice in notices:
            if notice.partition not in self.leases.owned():
                # the lease ran out mid-batch: the heir claims the rest, which may be this worker again at
                # its next round; then the rest comes before any newer notice, as after an outage
                self._interrupted = True
                break
            if notice.bad:
                self._set_aside(notice, notice.bad)
                continue
            fence = self.leases.fence(notice.partition)
            try:
                done = self.handle(notice)
                if done:
                    self.store.ack(GROUP, notice, fence)
            except (redis.exceptions.RedisError, WrongServerKey, NotReplicated):
                raise  # Redis away or failing over: the loop waits; another secret than the deployment's: it stops
            except LeaseLost as lost:
                # stalled past its lease (in its WAITs) while another worker took the partition and this
                # notice with it: the batch's rest is dropped, left pending for the partitions' holders
                log.warning(
                    "feed notice %s (match %s v%d): %s; batch dropped",
                    notice.entry_id,
                    notice.match_id,
                    notice.version,
                    lost,
                )
                metrics.FEED_FAILURES.labels("fenced").inc()
                self.leases.lost(notice.partition)
                self._interrupted = True
                break
            except Exception as error:
                if in_an_outage(error):  # the cluster client's own: no failure of this notice's
                    raise
                self._failed(notice, error)
                continue
            self._failures.pop((notice.partition, notice.entry_id), None)
        return len(notices)

    def _failed(self, notice: FeedNotice, error: Exception) -> None:
        """A notice whose work raised: left pending (claimed again after ``claim_idle_ms``), set aside after
        ``ATTEMPTS`` failures."""
        where = (notice.partition, notice.entry_id)
        if len(self._failures) > 10_000:
            self._failures.clear()
        self._failures[where] = attempts = self._failures.get(where, 0) + 1
        what = f"feed notice {notice.entry_id} (match {notice.match_id} v{notice.version}) failed, attempt {attempts}"
        if attempts < ATTEMPTS:
            log.warning("%s; tried again later", what, exc_info=error)
            metrics.FEED_FAILURES.labels("retried").inc()
            return
        self._failures.pop(where, None)
        self._set_aside(notice, f"{type(error).__name__}: {error}", what)

    def _set_aside(self, notice: FeedNotice, why: str, what: str | None = None) -> None:
        what = what or f"feed notice {notice.entry_id} of partition {notice.partition}"
        log.error("%s: %s; set aside in %s:aside", what, why, self.keys.feed(notice.partition))
        self.store.set_aside(GROUP, notice, why)
        metrics.FEED_FAILURES.labels("set_aside").inc()

    def _rebalance(self) -> list[FeedNotice]:
        if time.monotonic() - self._last_rebalance < REBALANCE_S:
            return []
        self._last_rebalance = time.monotonic()
        gained = sorted(self.leases.rebalance().gained)
        if not gained:
            return []
        self._extras.clear()  # another worker may have seen a seat handed to a bot meanwhile
        for partition in gained:  # its token shown at once: a worker that held it before writes no more there
            fence = self.leases.fence(partition)
            if fence is not None and not self.fences.show(fence):
                self.leases.lost(partition)  # taken again by another meanwhile
        gained = [p for p in gained if self.leases.fence(p)]
        self.store.ensure_group(GROUP, gained)
        return [n for p in gained for n in self.store.claim_stale(GROUP, self.consumer, p, idle_ms=0)]

    def _resumed(self) -> list[FeedNotice]:
        """After an outage cut a step short, the notices of the partitions this worker holds that were left
        pending, before any newer one: a match's work is done in its order. (Read again only after
        ``claim_idle_ms``, they came after newer notices of the same match: a webhook's deliveries were
        enqueued out of order, and the later ones named no ``previous_version``, which the fault harness
        found after a master was killed.)"""
        if not self._interrupted:
            return []
        notices = [
            n
            for p in sorted(self.leases.owned())
            for n in self.store.claim_stale(GROUP, self.consumer, p, idle_ms=0)
        ]
        self._interrupted = False
        return notices

    def _chores(self) -> list[FeedNotice]:
        """Every half ``claim_idle_ms``: take back notices left unfinished (a game's end not scored yet),
        trim what every group is done with, forget gone consumers and jobs, report the lag."""
        if time.monotonic() - self._last_claim <= self.claim_idle_ms / 2000:
            return []
        self._last_claim = time.monotonic()
        owned = sorted(self.leases.owned())
        notices = []
        for partition in owned:
            notices += self.store.claim_stale(GROUP, self.consumer, partition, self.claim_idle_ms)
            self.store.trim_feed(partition)
            self.store.drop_idle_consumers(GROUP, partition, 10 * self.claim_idle_ms)
        self.matches.stores.jobs.clean_registries()
        metrics.FEED_LAG.set(self.store.feed_lag(GROUP, owned))
        return notices

    def run(
        self, stop: threading.Event, on_fatal: Callable[[WrongServerKey], object] = lambda error: None
    ) -> None:
        """Step until ``stop``. Redis away: wait and go on. Anything else unexpected: logged, counted, tried
        again a second later. A misconfiguration (another secret than the deployment's): logged, kept in
        ``fatal``, ``on_fatal(error)`` told, and the loop ends; the worker process stops with it."""
        while not stop.is_set():
            try:
                self.step()
            except redis.exceptions.RedisError as error:  # away, or a cluster failing over
                self._interrupted = True
                log.warning("redis unavailable (%s); retrying", error)
                stop.wait(1.0)
                if "NOGROUP" in str(error):  # a feed partition deleted under us: make it again
                    self._last_rebalance = -REBALANCE_S
                    self.leases.start_over()
            except NotReplicated as error:  # a master with no replica to confirm (replicated durability)
                self._interrupted = True
                log.warning("redis not replicated (%s); retrying", error)
                stop.wait(1.0)
            except WrongServerKey as error:
                log.critical("misconfigured, the rule worker stops: %s", error)
                self.fatal = error
                stop.set()
                on_fatal(error)
                break
            except Exception as error:
                if in_an_outage(error):  # the cluster client's own exception while no node answers
                    self._interrupted = True
                    log.warning("redis unavailable (%s); retrying", error)
                else:
                    log.exception("the rule loop failed; trying again in a second")
                    metrics.FEED_FAILURES.labels("loop").inc()
                stop.wait(1.0)
        with contextlib.suppress(redis.exceptions.RedisError):
            self.leases.resign()  # the others take over at once rather than after a lease
