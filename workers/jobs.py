"""RQ jobs: heavy or slow work that must not hold up an HTTP request. They are enqueued through
``service.jobqueue`` by their import path.

Jobs are idempotent, because RQ may run one twice (a retry after its worker died) and the projector
may enqueue one twice (a feed entry processed again after a crash): ``score_match`` appends
``match_scored`` only if the match has no result yet, through the same versioned append as everything
else.
"""

from __future__ import annotations

import dataclasses
import http.client
import time
import urllib.parse
from typing import Any

from rq import get_current_job

from service import metrics
from service.config import Settings
from service.jobqueue import DELIVERY_RETRIES
from service.matches import Matches, now
from service.redis_client import connect
from service.webhooks import DELIVERY_HEADER, SIGNATURE_HEADER, BadWebhookUrl, post, signature

_apps: dict[tuple[int, str], Matches] = {}


class DeliveryFailed(RuntimeError):
    """A receiver that answered other than 2xx, or not in time: RQ tries again later."""


def _matches(namespace: str) -> Matches:
    """The matches of ``namespace``: in the job queue's Redis, or (``RQ_REDIS_URL`` set) in ``REDIS_URL``'s."""
    jobs = get_current_job().connection
    key = (id(jobs), namespace)
    if key not in _apps:
        settings = dataclasses.replace(Settings.from_env(), namespace=namespace)
        store = connect(settings.redis_url) if settings.rq_redis_url and settings.redis_url else jobs
        _apps[key] = Matches(store, settings, jobs_redis=jobs)
    return _apps[key]


def run_here(matches: Matches, jobs) -> None:
    """Run this process's jobs of ``matches``'s namespace, taken from ``jobs``, on ``matches`` itself."""
    _apps[(id(jobs), matches.settings.namespace)] = matches


def score_match(match_id: str, namespace: str) -> dict[str, Any]:
    """The match's scores; once it is over, also recorded in its log as ``match_scored``."""
    try:
        result = _matches(namespace).record_result(match_id)
    except Exception:
        metrics.JOBS.labels("score_match", "failed").inc()
        raise
    metrics.JOBS.labels("score_match", "finished").inc()
    return result


def bot_move(match_id: str, seat: int, version: int, namespace: str) -> dict[str, Any]:
    """A bot seat's move at ``version``; nothing if the match has moved on."""
    answer = _matches(namespace).bot_move(match_id, seat, version)
    metrics.JOBS.labels("bot_move", "finished" if answer else "stale").inc()
    return {"moved": answer is not None}


def check_clock(match_id: str, version: int, namespace: str) -> dict[str, Any]:
    """A deadline: the seat out of time gets its ``on_timeout``, unless a move beat it."""
    outcome = _matches(namespace).check_clock(match_id, version)
    metrics.JOBS.labels("check_clock", outcome.replace(" ", "_")).inc()
    return {"outcome": outcome}


def deliver_webhook(hook_id: str, delivery_id: str, body: str, namespace: str) -> dict[str, Any]:
    """POST one delivery, signed; a failure or a timeout raises, and RQ retries with backoff."""
    matches = _matches(namespace)
    hook = matches.webhook(hook_id)
    if hook is None:
        return {"delivered": False, "why": "the webhook is gone"}
    job = get_current_job()
    attempt = (DELIVERY_RETRIES.max - (job.retries_left if job and job.retries_left is not None else 0)) + 1
    data = body.encode()
    headers = {"Content-Type": "application/json", "User-Agent": "matchlog-webhooks",
               SIGNATURE_HEADER: signature(hook["secret"], int(time.time()), data), DELIVERY_HEADER: delivery_id}
    started = time.monotonic()
    outcome: dict[str, Any] = {"delivery": delivery_id, "attempt": attempt, "at": now()}
    try:  # checked again, and sent to the address checked: the name may point elsewhere by now
        outcome["status"] = post(hook["url"], data, headers, matches.settings.webhooks_private, timeout=5)
    except BadWebhookUrl as error:
        outcome["error"] = f"refused: {error}"
    except (OSError, http.client.HTTPException, ValueError) as error:  # ValueError: a URL http.client refuses
        outcome["error"] = str(error) or type(error).__name__
    outcome["ms"] = round((time.monotonic() - started) * 1000, 1)
    matches.record_delivery(hook_id, outcome)
    if not 200 <= outcome.get("status", 0) < 300:
        metrics.JOBS.labels("deliver_webhook", "retried").inc()
        where = urllib.parse.urlsplit(hook["url"]).netloc  # not the path: receivers' URLs can carry their secret
        raise DeliveryFailed(f"delivery {delivery_id} of webhook {hook_id} to {where} failed (attempt {attempt}): "
                             f"{outcome.get('status') or outcome.get('error')}")
    metrics.JOBS.labels("deliver_webhook", "finished").inc()
    return {"delivered": True, **outcome}
