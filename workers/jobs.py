"""RQ jobs: heavy or slow work that must not hold up an HTTP request. They are enqueued through
``service.store.jobqueue`` by their import path.

Jobs are idempotent, because RQ may run one twice (a retry after its worker died) and the projector
may enqueue one twice (a feed entry processed again after a crash): ``score_match`` appends
``match_scored`` only if the match has no result yet, through the same versioned append as everything
else.
"""

from __future__ import annotations

import dataclasses
import time
import urllib.parse
from typing import Any

import redis
from rq import get_current_job

from service import metrics
from service.application import entry_time
from service.application.analysis import Analysis
from service.application.bots import Bots
from service.application.deliveries import Deliveries
from service.application.matches import Matches
from service.application.scoring import Scoring
from service.application.tournaments import Tournaments
from service.config import Settings
from service.domain import ratings
from service.store.events import EventStore
from service.store.jobqueue import DELIVERY_RETRIES
from service.store.players import PlayerStore
from service.store.redis_client import connect
from service.store.webhooks import (
    DELIVERY_HEADER,
    SIGNATURE_HEADER,
    BadWebhookUrl,
    Undelivered,
    joined,
    post,
    signature,
)

_apps: dict[tuple[int, str], Matches] = {}
_stores: dict[tuple[int, str], PlayerStore] = {}


class DeliveryFailed(RuntimeError):
    """A receiver that answered other than 2xx, or not in time: RQ tries again later."""


def _job_connection() -> redis.Redis:
    job = get_current_job()
    assert job is not None, "called by an RQ job"
    return job.connection


def _matches(namespace: str) -> Matches:
    """The matches of ``namespace``: in the job queue's Redis, or (``RQ_REDIS_URL`` set) in ``REDIS_URL``'s."""
    jobs = _job_connection()
    key = (id(jobs), namespace)
    if key not in _apps:
        settings = dataclasses.replace(Settings.from_env(), namespace=namespace)
        store = connect(settings.redis_url) if settings.rq_redis_url and settings.redis_url else jobs
        _apps[key] = Matches(store, settings, jobs_redis=jobs)
    return _apps[key]


def _players(namespace: str) -> PlayerStore:
    """The ratings store of ``namespace``: in the match store's Redis."""
    jobs = _job_connection()
    key = (id(jobs), namespace)
    if key not in _stores:
        settings = dataclasses.replace(Settings.from_env(), namespace=namespace)
        store = _store_of.get(key) or (
            connect(settings.redis_url) if settings.rq_redis_url and settings.redis_url else jobs
        )
        _stores[key] = PlayerStore(store, namespace, EventStore.of(store, settings).durably)
    return _stores[key]


_store_of: dict[tuple[int, str], redis.Redis] = {}


def run_here(matches: Matches, jobs: redis.Redis, store: redis.Redis | None = None) -> None:
    """Run this process's jobs of ``matches``'s namespace, taken from ``jobs``, on ``matches`` itself
    (``store``: its Redis, for the ratings)."""
    _apps[(id(jobs), matches.settings.namespace)] = matches
    if store is not None:
        _store_of[(id(jobs), matches.settings.namespace)] = store


def score_match(match_id: str, namespace: str) -> dict[str, Any]:
    """The match's scores; once it is over, also recorded in its log as ``match_scored``."""
    try:
        matches = _matches(namespace)
        result = Scoring(matches.stores).record_result(match_id)
        if result.get("final"):
            Scoring(matches.stores).request_rating(
                match_id
            )  # the projector asks again when it sees match_scored
            _into_tournament(matches, match_id, namespace)
    except Exception:
        metrics.JOBS.labels("score_match", "failed").inc()
        raise
    metrics.JOBS.labels("score_match", "finished").inc()
    return result


def _into_tournament(matches: Matches, match_id: str, namespace: str) -> None:
    """A tournament's match that ended: its result goes into the tournament's log (which may finish it)."""
    tournaments = Tournaments.of(matches, _players(namespace))
    tournament_id = tournaments.tournament_of(match_id)
    if tournament_id is not None:
        tournaments.record_results(tournament_id)


def start_due_round(tournament_id: str, number: int, namespace: str) -> dict[str, Any]:
    """A tournament's round whose scheduled time has come starts, unless it started already."""
    matches = _matches(namespace)
    outcome = Tournaments.of(matches, _players(namespace)).start_due_round(tournament_id, number)
    metrics.JOBS.labels("start_due_round", outcome.replace(" ", "_")).inc()
    return {"outcome": outcome}


def close_window(tournament_id: str, namespace: str) -> dict[str, Any]:
    """An arena's window whose time has come closes: it finishes now if no game runs."""
    matches = _matches(namespace)
    outcome = Tournaments.of(matches, _players(namespace)).close_window(tournament_id)
    metrics.JOBS.labels("close_window", outcome.replace(" ", "_")).inc()
    return {"outcome": outcome}


def bot_move(match_id: str, seat: int, version: int, namespace: str) -> dict[str, Any]:
    """A bot seat's move at ``version``; nothing if the match has moved on."""
    answer = Bots(_matches(namespace)).move(match_id, seat, version)
    metrics.JOBS.labels("bot_move", "finished" if answer else "stale").inc()
    return {"moved": answer is not None}


def check_clock(match_id: str, version: int, namespace: str) -> dict[str, Any]:
    """A deadline: the seat out of time gets its ``on_timeout``, unless a move beat it."""
    outcome = _matches(namespace).clocks.check(match_id, version)
    metrics.JOBS.labels("check_clock", outcome.replace(" ", "_")).inc()
    return {"outcome": outcome}


def deliver_webhook(
    hook_id: str, delivery_id: str, body: str, namespace: str, shared: str | None = None
) -> dict[str, Any]:
    """POST one delivery, signed; a failure or a timeout raises, and RQ retries with backoff. ``shared``: the
    digest of the part of the body that every webhook of the append gets, kept once (``body`` is then this
    delivery's own fields); without it, as a job of an older release has it, ``body`` is the whole body.
    With its platform's delivery slots all taken, the delivery comes again a little later."""
    matches = _matches(namespace)
    hook = matches.stores.webhooks.get(hook_id)
    if hook is None:
        return {"delivered": False, "why": "the webhook is gone"}
    if hook["status"] != "enabled":
        return {"delivered": False, "why": "the webhook is disabled"}
    job = get_current_job()
    retries_left = job.retries_left if job and job.retries_left is not None else 0
    attempt = (DELIVERY_RETRIES.max - retries_left) + 1
    if shared is not None:
        rest = matches.stores.webhooks.body(shared)
        if rest is None:
            metrics.JOBS.labels("deliver_webhook", "expired").inc()
            return {"delivered": False, "why": "its body is no longer kept"}
        body = joined(body, rest)
    data = body.encode()
    with Deliveries(matches.stores).slot(hook["platform"], delivery_id) as slot:
        if not slot and job is not None:
            matches.stores.jobs.defer_delivery(job.id, tuple(job.args), retries_left)
            metrics.JOBS.labels("deliver_webhook", "deferred").inc()
            return {"delivered": False, "why": "deferred: the platform's delivery slots are taken"}
        outcome = _attempt(matches.settings, hook, delivery_id, data, attempt)
    disabled = matches.stores.webhooks.record(hook_id, outcome, last=retries_left == 0)
    if outcome["outcome"] != "status" or not 200 <= outcome["status"] < 300:
        metrics.JOBS.labels("deliver_webhook", "disabled" if disabled else "retried").inc()
        where = urllib.parse.urlsplit(
            hook["url"]
        ).netloc  # not the path: receivers' URLs can carry their secret
        raise DeliveryFailed(
            f"delivery {delivery_id} of webhook {hook_id} to {where} failed (attempt {attempt}): "
            f"{outcome.get('status') or outcome['outcome']}"
            + ("; the webhook is now disabled" if disabled else "")
        )
    metrics.JOBS.labels("deliver_webhook", "finished").inc()
    return {"delivered": True, **outcome}


def _attempt(
    settings: Settings, hook: dict[str, Any], delivery_id: str, data: bytes, attempt: int
) -> dict[str, Any]:
    """One POST of a delivery, and what to record of it: how it ended in the server's words (``OUTCOMES``)."""
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "matchlog-webhooks",
        SIGNATURE_HEADER: signature(hook["secret"], int(time.time()), data, delivery_id),
        DELIVERY_HEADER: delivery_id,
    }
    started = time.monotonic()
    outcome: dict[str, Any] = {"delivery": delivery_id, "attempt": attempt, "at": entry_time.now()}
    try:  # checked again, and sent to the address checked: the name may point elsewhere by now
        status = post(
            hook["url"],
            data,
            headers,
            settings.webhooks_private,
            settings.webhook_connect_s,
            settings.webhook_deadline_s,
        )
        outcome.update(outcome="status", status=status)
    except BadWebhookUrl:
        outcome["outcome"] = "address_refused"
    except Undelivered as error:
        outcome["outcome"] = error.outcome
    outcome["ms"] = round((time.monotonic() - started) * 1000, 1)
    return outcome


def rate_match(match_id: str, namespace: str) -> dict[str, Any]:
    """Rate a scored match: it joins its pool's queue, and the queue is rated in the order its matches
    ended (``PlayerStore.process``); run twice, or beside another worker's, it counts the match once."""
    matches = _matches(namespace)
    platform = matches.repository.meta(match_id).platform
    if platform is None:
        return {"rated": False, "why": "anonymous"}
    _, entries = matches.repository.read(match_id)
    match, why = ratings.rated_match(match_id, entries)
    store = _players(namespace)
    if match is None:
        pool = ratings.pool_of_log(entries)
        if pool is not None:  # its place in the queue, if held, goes: the matches after it are rated
            store.release(platform, pool, match_id, why)
            store.process(platform, pool)
        metrics.JOBS.labels("rate_match", "not_rated").inc()
        return {"rated": False, "why": why}
    store.enqueue(platform, match)
    for done, before, after in store.process(platform, match.pool):
        changed = [
            {
                "player": player,
                "mu": mu,
                "sigma": sigma,
                "rating": mu - 3 * sigma,
                **(
                    {"before": {"mu": before[player][0], "sigma": before[player][1]}}
                    if player in before
                    else {}
                ),
            }
            for player, (mu, sigma) in after.items()
        ]
        Deliveries(matches.stores).deliver_event(
            platform,
            "rating_changed",
            f"rated-{done.match_id}",
            {"match": done.match_id, "game": done.game, "pool": done.pool, "players": changed},
        )
    metrics.JOBS.labels("rate_match", "finished").inc()
    return {"rated": True, "pool": match.pool}


def rebuild_ratings(platform: str, pool: str, match_ids: list[str], namespace: str) -> dict[str, Any]:
    """One pool of ``matchlog ratings rebuild``: its matches read from their logs and rated again, in
    the order they ended, from nothing."""
    matches = _matches(namespace)
    rated = []
    for match_id in match_ids:
        _, entries = matches.repository.read(match_id)
        match, _ = ratings.rated_match(match_id, entries)
        if match is not None and match.pool == pool:
            rated.append(match)
    count = _players(namespace).write_pool(platform, pool, rated)
    metrics.JOBS.labels("rebuild_ratings", "finished").inc()
    return {"pool": pool, "matches": count}


def analyse_match(match_id: str, namespace: str) -> dict[str, Any]:
    """Analyse a finished match (``service.domain.analysis``), keeping its progress and result beside it; run twice,
    the result kept first stays (the analysis is pure: both runs compute the same one)."""
    try:
        answer = Analysis(_matches(namespace).stores).run(match_id)
    except Exception:
        metrics.JOBS.labels("analyse_match", "failed").inc()
        raise
    metrics.JOBS.labels("analyse_match", "finished").inc()
    return answer
