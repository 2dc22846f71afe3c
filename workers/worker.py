"""``matchlog worker``: one process that runs the projector (in a thread) and an RQ worker.

Run as many as you like; they share the work through the consumer group and the RQ queues (each kind of
work has its own: ``--queues`` picks the kinds a worker takes, ``--no-rules`` leaves the rule loop to others). RQ's
SimpleWorker runs jobs in this process instead of forking one per job: our jobs are short, and
forking beside a running thread is unsafe. When Redis goes away both halves wait and carry on.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import uuid
from types import FrameType
from typing import Any

import redis
from rq import SimpleWorker
from rq.job import Job

from service.application.abandonment import Abandonment
from service.application.matches import Matches
from service.application.seeks import Seeks
from service.config import Settings
from service.domain.serverkey import ServerKey, WrongServerKey
from service.store.errors import in_an_outage
from service.store.jobqueue import KINDS, JobQueue
from service.store.keys import Keys
from service.store.players import PlayerStore
from service.store.redis_client import connect, for_jobs
from service.store.seeks import SeekStore
from workers.jobs import DeliveryFailed, run_here
from workers.projector import Projector

log = logging.getLogger("matchlog.worker")


class _JobWorker(SimpleWorker):
    """RQ's worker, telling us when SIGINT/SIGTERM asked it to stop (RQ installs the handlers), and saying a
    failed webhook delivery in one line."""

    stop: threading.Event

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        self.stop.set()
        super().request_stop(signum, frame)

    def handle_exception(self, job: Job, *exc_info: Any) -> None:
        if isinstance(exc_info[1], DeliveryFailed):  # the receiver's trouble: a line, not a traceback
            if job.retries_left:  # (RQ counts this failure after this call)
                log.warning("webhook %s; tried again later", exc_info[1])
            else:
                log.error("webhook %s; the last attempt: given up", exc_info[1])
            return  # (no exception handlers are registered: RQ's own would only have logged it)
        super().handle_exception(job, *exc_info)


RULE_STEP_MS = 200
"""The longest a rule loop's step waits for feed notices: each step moves the jobs that are due (a clock
deadline, to the millisecond), so a deadline fires within about this long of its time."""


def abandonment_period_s(after_s: float) -> float:
    """How often the worker looks for abandoned matches: a quarter of ``MATCHLOG_ABANDON_AFTER_S``, between
    half a second and a minute."""
    return min(60.0, max(0.5, after_s / 4))


def end_abandoned(matches: Matches, stop: threading.Event) -> None:
    """The abandonment chore: until ``stop``, end the matches idle for ``MATCHLOG_ABANDON_AFTER_S``
    (``Abandonment.end_abandoned``). Several workers may run it at once: an abort is a versioned append, so a
    match is ended once."""
    if matches.settings.abandon_after_s <= 0:
        return
    while not stop.wait(abandonment_period_s(matches.settings.abandon_after_s)):
        try:
            while len(Abandonment(matches).end_abandoned()) == 100:  # a full batch: there may be more
                pass
        except redis.exceptions.RedisError as error:
            log.warning("abandonment: redis unavailable (%s); trying again later", error)
        except Exception:  # a chore must not die of one match
            log.exception("abandonment chore failed; trying again later")


SEEK_TICK_S = 1.0
"""How often the worker gives open seeks their widened windows and expires the old ones: the window widens
20 points a second, so a second apart is as fine as it needs."""


def pair_seeks(seeks: Seeks, stop: threading.Event) -> None:
    """The seek chore: until ``stop``, a pairing tick a second (``Seeks.tick``). Several workers may run it:
    one at a time pairs (the store's pairing lock), the others' ticks do nothing meanwhile."""
    while not stop.wait(SEEK_TICK_S):
        try:
            seeks.tick()
        except redis.exceptions.RedisError as error:
            log.warning("seeks: redis unavailable (%s); trying again later", error)
        except Exception:  # a chore must not die of one seek
            log.exception("seek pairing failed; trying again later")


def connected(redis_url: str, stop: threading.Event) -> redis.Redis:
    """The store's client, once it can be made: a Redis Cluster's client asks the node the URL names for the
    cluster's layout as it is made, and with that node away (killed, restarting) the worker used to exit at
    its start (found by the fault harness), where a worker waits for its Redis."""
    while True:
        try:
            return connect(redis_url)
        except Exception as error:
            if not in_an_outage(error) or stop.is_set():
                raise
            log.warning("redis unavailable (%s); waiting", error)
            stop.wait(1.0)


def run(
    settings: Settings,
    redis_url: str,
    stop: threading.Event | None = None,
    burst: bool = False,
    kinds: tuple[str, ...] = KINDS,
    rules: bool = True,
) -> None:
    """Run the jobs of ``kinds`` (their queues in priority order, then the older releases' single queue)
    and, with ``rules``, the rule loop (the projector, which also moves due scheduled jobs and cleans every
    queue's registries) and the abandonment chore."""
    stop = stop or threading.Event()
    store = connected(redis_url, stop)
    jobs_connection = for_jobs(settings.rq_redis_url, store)
    if jobs_connection is store:
        jobs_connection = connect(redis_url)  # RQ changes its socket timeout: keep it to itself
    matches = Matches(store, settings)
    keys = Keys(settings.namespace, settings.feed_partitions)
    run_here(
        matches, jobs_connection
    )  # jobs share the rule thread's cache: what one folded, the other reuses
    try:
        legacy = store.exists(keys.legacy_feed)
    except redis.exceptions.RedisError as error:  # Redis away at the start: the loops below wait for it
        log.warning("redis unavailable (%s); waiting", error)
        legacy = False
    try:  # the deployment's secret, or stop now, saying so (Redis away: the rule loop checks when it is back)
        ServerKey(settings.secret_key).claim(store, keys.server_key)
    except redis.exceptions.RedisError:
        pass
    except WrongServerKey as error:
        log.critical("misconfigured, the worker does not start: %s", error)
        raise SystemExit(f"matchlog worker: {error}") from None
    if legacy:
        log.warning(
            "this Redis holds data in the layout before feed partitions: stop the API and workers and "
            "run `matchlog migrate` (until then those matches are not found)"
        )
    projector = Projector(matches, store, block_ms=RULE_STEP_MS)
    # a misconfiguration met later stops the whole process: RQ's handler ends the job worker's loop
    thread = threading.Thread(
        target=projector.run,
        args=(stop, lambda error: os.kill(os.getpid(), signal.SIGTERM)),
        name="projector",
        daemon=True,
    )
    chores = threading.Thread(target=end_abandoned, args=(matches, stop), name="abandonment", daemon=True)
    seeks = Seeks(matches, PlayerStore(store, settings.namespace), SeekStore(store, keys))
    pairing = threading.Thread(target=pair_seeks, args=(seeks, stop), name="seeks", daemon=True)
    if rules:
        thread.start()
        chores.start()
        pairing.start()
    try:
        while not stop.is_set():
            try:  # RQ's worker asks Redis about itself as it is made: Redis may be away then too
                worker = _JobWorker(
                    JobQueue(jobs_connection, keys).queues(kinds),
                    connection=jobs_connection,
                    name=f"matchlog-{uuid.uuid4().hex[:8]}",
                    worker_ttl=30,
                )
                worker.stop = stop
                # scheduled jobs (deadlines, delayed retries) are moved by the rule loop: JobQueue.enqueue_overdue
                worker.work(burst=burst, logging_level="WARNING", with_scheduler=False)
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as error:
                log.warning("redis unavailable (%s); retrying", error)
            if burst:
                break
            stop.wait(1.0)  # RQ gives up on a Redis error: try again with a fresh worker
    finally:
        stop.set()
        if rules:
            thread.join(timeout=5)
            chores.join(timeout=5)
            pairing.join(timeout=5)
    if projector.fatal is not None:
        raise SystemExit(f"matchlog worker: {projector.fatal}")
