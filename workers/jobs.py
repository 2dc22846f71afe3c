"""RQ jobs: heavy or slow work that must not hold up an HTTP request. They are enqueued through
``service.jobqueue`` by their import path.

Jobs are idempotent, because RQ may run one twice (a retry after its worker died) and the projector
may enqueue one twice (a feed entry processed again after a crash): ``score_match`` appends
``match_scored`` only if the match has no result yet, through the same versioned append as everything
else.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rq import get_current_job

from service import metrics
from service.config import Settings
from service.matches import Matches

_apps: dict[tuple[int, str], Matches] = {}


def _matches(namespace: str) -> Matches:
    connection = get_current_job().connection
    key = (id(connection), namespace)
    if key not in _apps:
        _apps[key] = Matches(connection, dataclasses.replace(Settings.from_env(), namespace=namespace))
    return _apps[key]


def score_match(match_id: str, namespace: str) -> dict[str, Any]:
    """The match's scores; once it is over, also recorded in its log as ``match_scored``."""
    try:
        result = _matches(namespace).record_result(match_id)
    except Exception:
        metrics.JOBS.labels("score_match", "failed").inc()
        raise
    metrics.JOBS.labels("score_match", "finished").inc()
    return result
