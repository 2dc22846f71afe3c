"""Prometheus metrics, exposed at ``/metrics``: requests by route and status with latency, appends,
version conflicts, illegal actions by reason, job outcomes, the feed's lag and live-feed subscribers.

Several gunicorn workers (and, under ``matchlog serve``, the rule worker) each count on their own; with
``PROMETHEUS_MULTIPROC_DIR`` set, prometheus_client's multiprocess mode keeps their values in files
there and ``/metrics`` adds them up, so a scrape sees the whole server whichever process answers it.
The variable must be set before this module is first imported (the ``matchlog`` command does that).
"""

from __future__ import annotations

import os
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    values,
)

_pid = os.getpid()


def _forked() -> None:
    global _pid
    _pid = os.getpid()


def process_id() -> int:
    """This process's id, read once and again after each fork: prometheus_client asks for it at every
    ``inc`` in multiprocess mode (to notice a fork), and ``os.getpid`` is a system call every time."""
    return _pid


os.register_at_fork(after_in_child=_forked)
if values.ValueClass is not values.MutexValue:  # multiprocess mode: the library's hook for the identifier
    values.ValueClass = values.MultiProcessValue(process_identifier=process_id)

REQUESTS = Counter("matchlog_requests", "HTTP requests answered", ["route", "method", "status"])
LATENCY = Histogram(
    "matchlog_request_seconds",
    "Time to answer a request",
    ["route"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)
APPENDS = Counter("matchlog_appended_entries", "Log entries appended by accepted actions", ["game"])
CONFLICTS = Counter("matchlog_version_conflicts", "Actions refused because the match had moved on")
ILLEGAL = Counter("matchlog_illegal_actions", "Actions the rules refused", ["reason"])
JOBS = Counter("matchlog_jobs", "Background jobs run", ["job", "outcome"])
FEED_FAILURES = Counter(
    "matchlog_feed_failures",
    "Feed notices whose work failed in a rule worker (retried: "
    "tried again later; set_aside: moved to the partition's :aside stream; fenced: left to the worker "
    "that took the partition's lease meanwhile)",
    ["outcome"],
)
SUBSCRIBERS = Gauge(
    "matchlog_live_subscribers", "Live-feed (SSE) connections open", multiprocess_mode="livesum"
)
FEED_LAG = Gauge(
    "matchlog_feed_lag_entries",
    "Feed entries not yet read by the rule workers (each counts its own partitions)",
    multiprocess_mode="livesum",
)


def exposition() -> tuple[bytes, str]:
    """The metrics of every process of this server, in Prometheus' text format."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"})
"""HTTP's methods, each its own label; any other a client makes up (gunicorn passes any upper-case token) is
``other``: not a series, and a cached one, per made-up method, which would grow for ever."""


def observe_request(route: str | None, method: str, status: int, seconds: float) -> None:
    method = method if method in METHODS else "other"
    # the labelled series of an answer, looked up once: ``labels`` checks and locks at every call
    series = _answers.get((route, method, status))
    if series is None:
        label = route or "unmatched"  # a URL no route knows: not a label per URL, which would grow for ever
        series = _answers[route, method, status] = (
            REQUESTS.labels(label, method, str(status)),
            LATENCY.labels(label),
        )
    series[0].inc()
    series[1].observe(seconds)


_answers: dict[tuple[str | None, str, int], tuple[Any, Any]] = {}


def appended(game_id: str, entries: int) -> None:
    """An accepted action appended ``entries`` entries to a match of ``game_id`` (a known game: bounded)."""
    series = _appends.get(game_id)
    if series is None:
        series = _appends[game_id] = APPENDS.labels(game_id)
    series.inc(entries)


_appends: dict[str, Any] = {}


def process_gone(pid: int) -> None:
    """A gunicorn worker exited: its live gauges no longer count."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(pid)
