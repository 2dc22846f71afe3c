"""RQ jobs: heavy or slow work that must not hold up an HTTP request.

Jobs are idempotent, because RQ may run one twice (a retry after its worker died) and the projector
may enqueue one twice (a feed entry processed again after a crash): ``score_match`` appends
``match_scored`` only if the match has no result yet, through the same versioned append as everything
else.
"""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import redis
from rq import Queue, Retry, get_current_job
from rq.exceptions import NoSuchJobError
from rq.job import Job

from service.config import Settings
from service.matches import Matches

RESULT_TTL_S = 24 * 3600
_apps: dict[tuple[int, str], Matches] = {}


def queue(connection: redis.Redis, namespace: str) -> Queue:
    return Queue(namespace, connection=connection)


def _matches(namespace: str) -> Matches:
    connection = get_current_job().connection
    key = (id(connection), namespace)
    if key not in _apps:
        _apps[key] = Matches(connection, dataclasses.replace(Settings.from_env(), namespace=namespace))
    return _apps[key]


def score_match(match_id: str, namespace: str) -> dict[str, Any]:
    """The match's scores; once it is over, also recorded in its log as ``match_scored``."""
    return _matches(namespace).record_result(match_id)


def enqueue_scoring(connection: redis.Redis, namespace: str, match_id: str) -> str:
    """Enqueue ``score_match``; returns the job id. Enqueueing twice is harmless (the job is idempotent)."""
    job = queue(connection, namespace).enqueue(
        score_match, match_id, namespace, job_id=f"score-{match_id}-{uuid.uuid4().hex[:12]}",
        result_ttl=RESULT_TTL_S, failure_ttl=RESULT_TTL_S, retry=Retry(max=3))
    return job.id


def job_status(connection: redis.Redis, namespace: str, job_id: str) -> dict[str, Any] | None:
    """What a client may know about a job of this deployment; None when there is no such job."""
    try:
        job = Job.fetch(job_id, connection=connection)
    except (NoSuchJobError, ValueError):
        return None
    if job.origin != namespace:
        return None
    status = str(job.get_status().value if hasattr(job.get_status(), "value") else job.get_status())
    body: dict[str, Any] = {"id": job.id, "status": status}
    if status == "finished":
        body["result"] = job.return_value()
    elif status == "failed":
        latest = job.latest_result()
        text = (latest.exc_string or "").strip().splitlines() if latest else []
        body["error"] = text[-1] if text else "the job failed"
    return body
