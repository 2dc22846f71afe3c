"""The store's failures in the domain's words: redis-py raises its own classes, and what reaches the
application and the HTTP error format is the domain's ``Unavailable`` (or ``StorageFull``), translated here,
the one place that knows redis-py's exceptions by name. The store's own refusals (a version conflict, a
token no longer the seat's) are the domain's classes (``service.domain.errors``)."""

from __future__ import annotations

import re

import redis

from service.domain.errors import StorageFull, Unavailable

STORAGE_DOWN = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.BusyLoadingError,
    redis.exceptions.ClusterError,  # a cluster failing over (CLUSTERDOWN, MASTERDOWN, redirected over and over)
    redis.exceptions.TryAgainError,
    redis.exceptions.SlotNotCoveredError,
    redis.exceptions.AskError,  # and MovedError: a slot moving, or its master changed
    redis.exceptions.ReadOnlyError,
)
UNAVAILABLE_REPLY = re.compile(
    r"(?:^|caused error: |: -)(?:CLUSTERDOWN|LOADING|MASTERDOWN|NOREPLICAS|READONLY|TRYAGAIN|UNBLOCKED) "
)
"""Error replies of a store that is away or failing over, as redis-py leaves them in a plain ResponseError: one it
has no class for (NOREPLICAS, UNBLOCKED), and any of them inside a pipeline's error or a script's (Redis 6)."""

DEMOTED_REPLY = re.compile(r"(?:^|caused error: )UNBLOCKED .*master -> replica")
"""Redis 7's reply to a blocked command (``WAIT``) cut short because its node turned replica: a failover took
its slots (a master paused past the node timeout answers so once it is resumed)."""


def demoted(error: BaseException) -> bool:
    """Whether ``error`` says the node stopped being a master while the command waited."""
    return isinstance(error, redis.exceptions.ResponseError) and bool(DEMOTED_REPLY.search(str(error)))


OUTAGE_IF_CAUSED = (redis.exceptions.ResponseError, redis.exceptions.RedisClusterException)
"""What redis-py raises for an outage it has no class for, or for a bug: which, its message and its causes say."""


def in_an_outage(error: BaseException | None) -> bool:
    """Whether ``error`` is, or was raised while handling, an error of the store being away: redis-py's cluster
    client asks the cluster for its layout again when a master fails, and raises what that meets (nodes that
    disagree on who holds a slot, none reachable) in place of the error that sent it."""
    seen = 0
    while error is not None and seen < 8:  # a chain is short; a cycle of contexts is not followed for ever
        if isinstance(error, STORAGE_DOWN) or (
            isinstance(error, redis.exceptions.ResponseError) and UNAVAILABLE_REPLY.search(str(error))
        ):
            return True
        error, seen = error.__cause__ or error.__context__, seen + 1
    return False


def translated(error: Exception) -> Exception:
    """``error`` in the domain's words: ``StorageFull`` or ``Unavailable`` (caused by it) for redis-py's error
    of a full or unreachable store; any other error as it is (a bug, which the error format logs)."""
    if isinstance(error, redis.exceptions.OutOfMemoryError):
        found: Exception = StorageFull(str(error))
    elif isinstance(error, STORAGE_DOWN) or (isinstance(error, OUTAGE_IF_CAUSED) and in_an_outage(error)):
        found = Unavailable(str(error))
    else:
        return error
    found.__cause__ = error
    return found


StoreFailure = redis.exceptions.RedisError
"""What a command to the store raises when it fails (away, a cluster failing over, a bug): for a loop that
keeps going through an outage, naming no redis-py class itself."""
