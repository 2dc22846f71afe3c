"""The health probes and metrics, outside ``/v1``: for load balancers, orchestrators and Prometheus."""

from __future__ import annotations

from typing import Any

from flask import Response

from service import metrics
from service.http import schemas
from service.http.errors import ApiError
from service.http.routes import NO_CREDENTIAL, Blueprint, matches

probes = Blueprint("probes", __name__, description="Health probes for load balancers and orchestrators.")


@probes.route("/healthz", methods=["GET"])
@probes.doc(operationId="checkHealth")
@probes.doc(security=NO_CREDENTIAL)
@probes.response(200, schemas.HealthSchema)
def healthz() -> dict[str, Any]:
    """The process is alive (it answers; nothing else is checked)."""
    return {"status": "ok"}


@probes.route("/readyz", methods=["GET"])
@probes.doc(operationId="checkReady")
@probes.doc(security=NO_CREDENTIAL)
@probes.response(200, schemas.HealthSchema)
@probes.alt_response(
    503,
    schema=schemas.ErrorSchema,
    description="not_ready: Redis unreachable, no worker, or (replicated durability) a master "
    "without a replica",
    headers={"Retry-After": "RetryAfter"},
)
def readyz() -> dict[str, Any]:
    """Ready to serve: Redis answers, at least one rule worker has renewed its partition lease in time
    and, with replicated durability, every master has a replica to confirm writes."""
    state = matches().repository.readiness(
        matches().settings.partition_lease_ms, replicated=matches().settings.durability == "replicated"
    )
    if not state["redis"] or not state["workers"]:
        raise ApiError(
            503,
            "not_ready",
            "Redis is unreachable"
            if not state["redis"]
            else "no worker has sent a heartbeat lately (start one: matchlog worker)",
            **state,
        )
    if state.get("replicas", 1) < 1:
        raise ApiError(
            503,
            "not_ready",
            "a master of the match store has no replica, so no write can be "
            "acknowledged (MATCHLOG_DURABILITY=replicated)",
            **state,
        )
    return {"status": "ok", **state}


@probes.route("/metrics", methods=["GET"])
@probes.doc(operationId="getMetrics")
@probes.doc(
    security=NO_CREDENTIAL,
    responses={
        "200": {
            "description": "Prometheus text exposition of every process of this server",
            "content": {"text/plain": {"schema": {"type": "string"}}},
        }
    },
)
def get_metrics() -> Response:
    """Prometheus metrics: requests by route and status with latency, appends, version conflicts,
    illegal actions by reason, job outcomes, the feed's lag."""
    body, mimetype = metrics.exposition()
    return Response(body, content_type=mimetype)
