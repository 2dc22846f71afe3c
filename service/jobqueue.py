"""Background jobs as the API sees them: enqueue one, and report on one.

The jobs themselves run in the workers (``workers/jobs.py``); the API names them by their import
path, so the HTTP process never imports worker code.
"""

from __future__ import annotations

import uuid
from typing import Any

import redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job

from service.keys import Keys

RESULT_TTL_S = 24 * 3600
SCORE_MATCH = "workers.jobs.score_match"


class JobQueue:
    def __init__(self, connection: redis.Redis, keys: Keys):
        self.connection = connection
        self.keys = keys

    def queue(self) -> Queue:
        return Queue(self.keys.queue, connection=self.connection)

    def enqueue_scoring(self, match_id: str) -> str:
        """Enqueue ``score_match``; returns the job id. Enqueueing twice is harmless (the job is idempotent)."""
        job = self.queue().enqueue(
            SCORE_MATCH, match_id, self.keys.namespace, job_id=f"score-{match_id}-{uuid.uuid4().hex[:12]}",
            result_ttl=RESULT_TTL_S, failure_ttl=RESULT_TTL_S, retry=Retry(max=3))
        return job.id

    def status(self, job_id: str) -> dict[str, Any] | None:
        """What a client may know about a job of this deployment; None when there is no such job."""
        try:
            job = Job.fetch(job_id, connection=self.connection)
        except (NoSuchJobError, ValueError):
            return None
        if job.origin != self.keys.queue:
            return None
        status = job.get_status()
        status = str(getattr(status, "value", status))  # RQ's JobStatus is an enum of strings
        body: dict[str, Any] = {"id": job.id, "status": status}
        if status == "finished":
            body["result"] = job.return_value()
        elif status == "failed":
            latest = job.latest_result()
            text = (latest.exc_string or "").strip().splitlines() if latest else []
            body["error"] = text[-1] if text else "the job failed"
        return body
