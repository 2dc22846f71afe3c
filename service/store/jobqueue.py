"""Background jobs as the API sees them: enqueue one, and report on one.

The jobs themselves run in the workers (``workers/jobs.py``); the API names them by their import
path, so the HTTP process never imports worker code.
"""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime
from typing import Any

import redis
from rq import Queue, Retry, SimpleWorker
from rq.exceptions import NoSuchJobError
from rq.intermediate_queue import IntermediateQueue
from rq.job import Job
from rq.registry import FailedJobRegistry, ScheduledJobRegistry, StartedJobRegistry

from service.store.keys import Keys

RESULT_TTL_S = 3600
"""How long a finished or failed job's status stays readable; the result itself is in the log."""
SCORE_MATCH = "workers.jobs.score_match"
DELIVER_WEBHOOK = "workers.jobs.deliver_webhook"
BOT_MOVE = "workers.jobs.bot_move"
CHECK_CLOCK = "workers.jobs.check_clock"
RATE_MATCH = "workers.jobs.rate_match"
REBUILD_RATINGS = "workers.jobs.rebuild_ratings"
ANALYSE_MATCH = "workers.jobs.analyse_match"
START_DUE_ROUND = "workers.jobs.start_due_round"
CLOSE_WINDOW = "workers.jobs.close_window"
ROUND_START_TIMEOUT_S = 120
"""A round's start creates a match per pod: 500 for a Swiss of 1,000 players, seconds of work."""
ANALYSIS_TIMEOUT_S = 600
"""An analysis takes seconds, up to about a minute for the longest of the games (``tests.bench.analysis``); one
started longer ago than this lost its worker, and is taken back and run again (its result is written once,
whole)."""
DELIVERY_BACKOFF_S = (1, 2, 4, 8, 16, 32)
"""A failed delivery's (and rating's) retries come no sooner than these many seconds after the failure, and
at most about 2 s later: about a minute in all."""
DELIVERY_RETRIES = Retry(max=len(DELIVERY_BACKOFF_S), interval=[s + 1 for s in DELIVERY_BACKOFF_S])
"""RQ registers a retry at a whole second, the fraction cut off (up to 1 s early); the rule loop moves a
due one within a second. One second more makes the backoff a lower bound: a retry registered at
``floor(failed + s + 1) >= failed + s``, taken within about a second of that."""
DELIVERY_TIMEOUT_S = 10
"""A delivery's job timeout: its POST gives up after 5 s, so a delivery still started after this has no worker."""
DELIVERY_DEFERRED_S = 2
"""A delivery whose platform has all its delivery slots taken is tried again this much later."""
RQ_HEARTBEAT_GRACE_S = 60
"""What RQ adds to a job's timeout before its started-registry entry expires."""
BOT_MOVE_TIMEOUT_S = 30
"""A bot's move takes a few seconds at most (the strongest search, level 3, about 1.5 s on a slow core);
a job started longer ago than this lost its worker, and is taken back (``clean_registries``) then, not
after RQ's default of three minutes, during which the match would wait for a move."""
CLOCK_CHECK_AFTER_MS = 500
"""A clock's check runs this long after its deadline (and the rule loop's step, up to 0.2 s, later): within a
second of it, and late enough that a move sent in the deadline's last moments meets the API's own check
(which appends the timeout itself, or takes the move) rather than a race with the worker's."""
CHECK_CLOCK_TIMEOUT_S = 10
"""A clock check reads the match and appends at most a timeout: a lost one is taken back as soon."""
SCORE_TIMEOUT_S = 60
STRANDED_S = 10
"""A job in RQ's intermediate list this long without starting lost the worker that took it (a live one
starts it within milliseconds)."""
CLOCKS, SCORING, BOTS, BOT_MATCHES, WEBHOOKS, ANALYSES = (
    "clocks",
    "scoring",
    "bots",
    "bot-matches",
    "webhooks",
    "analyses",
)
KINDS = (CLOCKS, SCORING, BOTS, BOT_MATCHES, WEBHOOKS, ANALYSES)
"""The kinds of background work, each on a queue of its own, in the order a worker listening to several takes
them: a clock deadline first (it must fire within a second), then scoring and rating (short, and a result
someone waits for), a bot's reply to a person, a move of a match with only bots in it (nobody waits for one
move of those: they yield to every reply), webhook deliveries (the receiver's time, not ours), analyses and
rating rebuilds (seconds to minutes each). ``matchlog serve`` gives the slow kinds processes of their own."""


class JobQueue:
    def __init__(self, connection: redis.Redis, keys: Keys):
        self.connection = connection
        self.keys = keys

    def queue(self, kind: str) -> Queue:
        """The RQ queue of one kind of work (``KINDS``)."""
        return Queue(self.keys.job_queue(kind), connection=self.connection)

    def queues(self, kinds: tuple[str, ...] = KINDS) -> list[Queue]:
        """The queues of ``kinds`` in their order of priority, then the single queue of older releases: a job
        it still holds (enqueued before an upgrade, or its retry) runs too, last."""
        return [self.queue(kind) for kind in KINDS if kind in kinds] + [
            Queue(self.keys.queue, connection=self.connection)
        ]

    def work_through(self, kinds: tuple[str, ...]) -> None:
        """Run the queued jobs of ``kinds`` in this process until none is left (``matchlog ratings rebuild
        --here``): RQ's SimpleWorker in burst mode, with no fork per job."""
        SimpleWorker(self.queues(kinds), connection=self.connection).work(burst=True)

    def enqueue_scoring(self, match_id: str, version: int, reuse: bool = True) -> str:
        """Enqueue ``score_match`` for the match at ``version``; returns the job id. A job for that
        version that is queued, running or kept is reused, so asking again costs no storage. The
        projector asks again only when a game's end stayed unscored for a while, so it trusts no
        earlier job (its worker, or its place in the queue, may be lost): scoring twice is harmless."""
        job_id = f"score-{match_id}-v{version}"
        try:
            status = Job.fetch(job_id, connection=self.connection).get_status(refresh=False)
            if reuse and str(getattr(status, "value", status)) in (
                "queued",
                "deferred",
                "scheduled",
                "started",
                "finished",
            ):
                return job_id
            job_id = f"{job_id}-{uuid.uuid4().hex[:8]}"
        except NoSuchJobError:
            pass
        # a job nobody asked for (the projector's) leaves nothing behind once it has succeeded: its
        # result is in the log
        job = self.queue(SCORING).enqueue(
            SCORE_MATCH,
            match_id,
            self.keys.namespace,
            job_id=job_id,
            result_ttl=RESULT_TTL_S if reuse else 0,
            failure_ttl=RESULT_TTL_S,
            ttl=RESULT_TTL_S,
            retry=Retry(max=3),
            job_timeout=SCORE_TIMEOUT_S,
        )
        return job.id

    def enqueue_delivery(self, delivery_id: str, hook_id: str, body: str, shared: str | None = None) -> None:
        """A webhook delivery, once: a notice handled twice (a worker died before acknowledging it) finds
        the job there and adds nothing. A job whose worker died is retried by RQ (``clean_registries``).
        ``shared``: the digest of the body's part kept once for every webhook (``Webhooks.keep_body``),
        ``body`` then the delivery's own fields."""
        self._once(
            WEBHOOKS,
            f"hook-{delivery_id}",
            None,
            DELIVER_WEBHOOK,
            hook_id,
            delivery_id,
            body,
            self.keys.namespace,
            shared,
            retry=DELIVERY_RETRIES,
            result_ttl=RESULT_TTL_S,
            failure_ttl=24 * 3600,
            ttl=24 * 3600,
            job_timeout=DELIVERY_TIMEOUT_S,
        )

    def defer_delivery(self, job_id: str, args: tuple, retries_left: int) -> None:
        """The delivery job ``job_id`` (with ``args``) again ``DELIVERY_DEFERRED_S`` from now as a job of its
        own, with the retries it has left: waiting for a slot is no failed attempt. Its id counts the waits
        (``hook-<delivery>_wait<n>``), so a deferral made twice (a worker died after it) is one job."""
        base, _, waits = job_id.partition("_wait")
        retries = Retry(max=retries_left, interval=DELIVERY_RETRIES.intervals) if retries_left else None
        self._once(
            WEBHOOKS,
            f"{base}_wait{int(waits or 0) + 1}",
            datetime.fromtimestamp(time.time() + DELIVERY_DEFERRED_S, tz=UTC),
            DELIVER_WEBHOOK,
            *args,
            retry=retries,
            result_ttl=0,
            failure_ttl=24 * 3600,
            ttl=24 * 3600,
            job_timeout=DELIVERY_TIMEOUT_S,
        )

    def enqueue_bot_move(self, match_id: str, seat: int, version: int, bots_only: bool = False) -> None:
        """A bot's move at ``version``, once (a notice handled twice adds nothing); the job does nothing
        if the match has moved on. Nothing is kept once it has run: the move is in the log. A match with
        only bots in it (``bots_only``) waits behind every bot's reply to a person."""
        self._once(
            BOT_MATCHES if bots_only else BOTS,
            f"bot-{match_id}-{seat}-v{version}",
            None,
            BOT_MOVE,
            match_id,
            seat,
            version,
            self.keys.namespace,
            retry=Retry(max=3),
            result_ttl=0,
            failure_ttl=RESULT_TTL_S,
            ttl=RESULT_TTL_S,
            job_timeout=BOT_MOVE_TIMEOUT_S,
        )

    def enqueue_rating(self, match_id: str) -> None:
        """Rate a scored match (``workers.jobs.rate_match``), once while the job is queued or running;
        asking again later runs it again, which changes nothing (the ratings count a match once)."""
        self._once(
            SCORING,
            f"rate-{match_id}",
            None,
            RATE_MATCH,
            match_id,
            self.keys.namespace,
            # spread over a minute, as a delivery's: retried at once, a job's tries all fell within one
            # failover, and a game held in its pool's queue and never queued there stopped the pool for good
            retry=DELIVERY_RETRIES,
            result_ttl=0,
            failure_ttl=RESULT_TTL_S,
            ttl=RESULT_TTL_S,
            job_timeout=SCORE_TIMEOUT_S,
        )

    def enqueue_analysis(self, match_id: str, job_id: str) -> None:
        """Analyse a finished match (``workers.jobs.analyse_match``) as ``job_id``; its result is kept beside
        the match (``service.store.analyses``), not in RQ."""
        self._once(
            ANALYSES,
            job_id,
            None,
            ANALYSE_MATCH,
            match_id,
            self.keys.namespace,
            retry=Retry(max=2),
            result_ttl=0,
            failure_ttl=RESULT_TTL_S,
            ttl=RESULT_TTL_S,
            job_timeout=ANALYSIS_TIMEOUT_S,
        )

    def enqueue_rebuild(self, platform: str, pool: str, match_ids: list[str]) -> str:
        """One pool's part of ``matchlog ratings rebuild``: workers share a rebuild pool by pool."""
        job = self.queue(ANALYSES).enqueue(  # an hour at most: never in the way of scoring
            REBUILD_RATINGS,
            platform,
            pool,
            match_ids,
            self.keys.namespace,
            result_ttl=RESULT_TTL_S,
            failure_ttl=RESULT_TTL_S,
            job_timeout=3600,
        )
        return job.id

    def enqueue_deadline(self, match_id: str, version: int, deadline_ms: int, again: int = 0) -> None:
        """A clock check ``CLOCK_CHECK_AFTER_MS`` after ``deadline_ms`` (RQ's scheduled registry keeps it in
        Redis: a dead worker loses none). RQ schedules to the whole second, so the job is set for the whole
        second after, then its time in the registry is put back to the millisecond: the rule loop, which
        moves due jobs several times a second, enqueues it then, not up to a second later."""
        due_ms = deadline_ms + CLOCK_CHECK_AFTER_MS
        at = datetime.fromtimestamp(-(-due_ms // 1000), tz=UTC)
        job_id = f"clock-{match_id}-v{version}-{deadline_ms}-{again}"
        self._once(
            CLOCKS,
            job_id,
            at,
            CHECK_CLOCK,
            match_id,
            version,
            self.keys.namespace,
            retry=Retry(max=3),
            result_ttl=0,
            failure_ttl=RESULT_TTL_S,
            job_timeout=CHECK_CLOCK_TIMEOUT_S,
        )
        # only while it is still scheduled (xx): a job moved meanwhile is not scheduled again
        registry = ScheduledJobRegistry(queue=self.queue(CLOCKS))
        self.connection.zadd(registry.key, {job_id: due_ms / 1000}, xx=True)

    def enqueue_round_start(self, tournament_id: str, number: int, due_s: int, again: int = 0) -> None:
        """The tournament's round ``number`` started at ``due_s`` (epoch seconds) by its schedule, once per
        round and time (a round due again, its time moved, is another job; ``again``: a job that came early
        sets another). It waits in RQ's scheduled registry, in Redis, and the rule loop moves it when due, as
        it does a clock's deadline; it runs with the tournaments' other work, the results it takes in."""
        job_id = f"round-{tournament_id}-r{number}-{due_s}-{again}"
        self._tournament_at(job_id, due_s, START_DUE_ROUND, tournament_id, number)

    def enqueue_window_close(self, tournament_id: str, closes_s: int, again: int = 0) -> None:
        """The arena's window closed at ``closes_s`` (epoch seconds), once per arena (``again``: a job that
        came early sets another); it waits and is moved as a round's start is."""
        job_id = f"close-{tournament_id}-{closes_s}-{again}"
        self._tournament_at(job_id, closes_s, CLOSE_WINDOW, tournament_id)

    def _tournament_at(self, job_id: str, due_s: int, function: str, *args: Any) -> None:
        self._once(
            SCORING,
            job_id,
            datetime.fromtimestamp(due_s, tz=UTC),
            function,
            *args,
            self.keys.namespace,
            retry=Retry(max=3),
            result_ttl=0,
            failure_ttl=RESULT_TTL_S,
            job_timeout=ROUND_START_TIMEOUT_S,
        )

    def _once(
        self, kind: str, job_id: str, at: datetime | None, function: str, *args: Any, **options: Any
    ) -> None:
        """Enqueue ``function(*args)`` as ``job_id`` on ``kind``'s queue (at ``at``, when given) unless that
        job exists: the work it stands for is asked for again whenever a notice is handled twice."""
        if Job.exists(job_id, connection=self.connection):
            return
        if at is None:
            self.queue(kind).enqueue(function, *args, job_id=job_id, **options)
        else:
            self.queue(kind).enqueue_at(at, function, *args, job_id=job_id, **options)

    def enqueue_overdue(self) -> int:
        """Move scheduled jobs that are due (clock deadlines, delayed retries) from each queue's scheduled
        registry to that queue. Every rule loop does it, about once a second, instead of RQ's own
        scheduler: that one runs in a single worker at a time, in a process forked beside the rule thread,
        and after its worker dies another takes over only when its lock expires. Each job goes once: the
        ZREM that takes it out of the registry decides who enqueues it."""
        moved = 0
        for queue in self.queues():
            registry = ScheduledJobRegistry(queue=queue)
            # rq annotates an int but compares the score as given: a float keeps deadlines to the millisecond
            for job_id in registry.get_jobs_to_schedule(time.time()):  # type: ignore[arg-type]
                if self.connection.zrem(registry.key, job_id):
                    try:
                        queue.enqueue_job(Job.fetch(job_id, connection=self.connection))
                        moved += 1
                    except NoSuchJobError:
                        continue
        return moved

    def clean_registries(self) -> None:
        """Jobs whose worker died mid-job leave each queue's started registry: retried while they have
        retries left, else failed (which expires). Our workers run each job in their own main thread under
        RQ's timeout (SimpleWorker), so a job started more than its timeout ago (plus a few seconds) has
        no live worker: it is taken back then, not after RQ's extra minute of grace."""
        queues = self.queues()
        for queue in queues:
            StartedJobRegistry(queue=queue).cleanup(timestamp=time.time() + RQ_HEARTBEAT_GRACE_S - 5)
            FailedJobRegistry(queue=queue).cleanup()
        self._requeue_stranded(queues)

    def _requeue_stranded(self, queues: list[Queue]) -> None:
        """A worker takes a job off a queue into RQ's intermediate list, then starts it; one that dies in
        between leaves the job there, neither queued nor started, while its id keeps ``_once`` from asking
        again (a bot that never moves). Seen there, unstarted, on cleanups ``STRANDED_S`` apart, it goes back
        on its queue: it never ran, and every job here is safe to run late. Sightings are forgotten as soon
        as a cleanup finds the job gone from the list (a live worker starts one within milliseconds): a job
        id that comes back later starts afresh."""
        waiting: dict[str, tuple[Queue, IntermediateQueue]] = {}
        for queue in queues:
            stranded = IntermediateQueue(queue.key, connection=self.connection)
            started = set(StartedJobRegistry(queue=queue).get_job_ids())
            for job_id in stranded.get_job_ids():
                if job_id not in started:
                    waiting[job_id] = (queue, stranded)
        seen = {k.decode(): float(v) for k, v in self.connection.hgetall(self.keys.stranded_jobs).items()}
        forgotten = [job_id for job_id in seen if job_id not in waiting]
        if forgotten:
            self.connection.hdel(self.keys.stranded_jobs, *forgotten)
        now = time.time()
        for job_id, (queue, stranded) in waiting.items():
            if job_id not in seen:
                self.connection.hset(self.keys.stranded_jobs, job_id, now)
                continue
            if now - seen[job_id] < STRANDED_S:
                continue
            self.connection.hdel(self.keys.stranded_jobs, job_id)
            stranded.remove(job_id)
            try:
                queue.enqueue_job(Job.fetch(job_id, connection=self.connection))
            except NoSuchJobError:  # expired meanwhile: whoever needs it asks again
                continue

    def scoring(self, job_id: str) -> tuple[str, dict[str, Any]] | None:
        """The match a scoring job of this deployment is for, and what a client may know about the job;
        None when there is no such job, or for a job of another kind (a bot's move, a clock check, a
        webhook delivery): those are the workers' business, shown to nobody."""
        try:
            job = Job.fetch(job_id, connection=self.connection)
        except (NoSuchJobError, ValueError):
            return None
        if job.origin not in (self.keys.job_queue(SCORING), self.keys.queue) or job.func_name != SCORE_MATCH:
            return None
        return job.args[0], self._status(job)

    @staticmethod
    def _status(job: Job) -> dict[str, Any]:
        raw = job.get_status()
        status = str(getattr(raw, "value", raw))  # RQ's JobStatus is an enum of strings
        body: dict[str, Any] = {"id": job.id, "status": status}
        if status == "finished":
            body["result"] = job.return_value()
        elif status == "failed":
            latest = job.latest_result()
            text = (latest.exc_string or "").strip().splitlines() if latest else []
            body["error"] = text[-1] if text else "the job failed"
        return body
