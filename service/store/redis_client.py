"""The one way the service opens a Redis connection: to one Redis (``redis://``, ``rediss://``,
``unix://``) or to a Redis Cluster (``redis+cluster://host:port``, any node of it: the client learns the
others)."""

from __future__ import annotations

import os
import socket
import struct
import weakref
from typing import Any, TypeAlias

import redis
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

from service import versions
from service.sockets import send_whole

_hiredis: Any
try:
    import hiredis as _hiredis
except ImportError:  # redis-py's own path then, for every command
    _hiredis = None

Client: TypeAlias = redis.Redis
"""A Redis client as the layers above the store name it (they import no redis)."""

POOL_SIZE = 32
"""Connections one process keeps to Redis at most: requests wait their turn for one (a few ms) rather
than open more, so connections do not grow with live-feed subscribers or bursts of requests."""


CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")


def is_cluster(url: str) -> bool:
    return url.partition("://")[0] in CLUSTER_SCHEMES


def connect(url: str, pool_size: int = POOL_SIZE) -> redis.Redis:
    if is_cluster(url):
        return _cluster(url, pool_size)
    # protocol=2 on purpose: redis-py 8 defaults to RESP3, whose reply shapes differ, and RQ and
    # fakeredis are written against RESP2. Bytes replies (no decode_responses) because RQ needs them.
    # Short timeouts and a single quick retry: when Redis is away the API must answer 503 at once
    # rather than hang; the pool reconnects by itself on the next request once Redis is back.
    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=pool_size,
        timeout=5,
        protocol=2,
        socket_connect_timeout=2,
        socket_timeout=5,
        retry=Retry(NoBackoff(), 1),
        health_check_interval=30,
    )
    return redis.Redis(connection_pool=pool)


def _cluster(url: str, pool_size: int) -> RedisCluster:
    scheme, _, rest = url.partition("://")
    # protocol=2 and bytes replies as above; the client follows MOVED/ASK and, after a failover, asks
    # the cluster for its new masters by itself
    return RedisCluster.from_url(
        f"{scheme.partition('+')[0]}://{rest}",
        protocol=2,
        max_connections=pool_size,
        socket_connect_timeout=2,
        socket_timeout=5,
        retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 3),
    )


def for_jobs(rq_url: str | None, store: redis.Redis) -> redis.Redis:
    """The job queue's Redis: ``RQ_REDIS_URL``, else the match store's own, which must then be one Redis:
    RQ's keys and transactions span hash slots, so it cannot run on a Redis Cluster."""
    if rq_url:
        return connect(rq_url)
    if isinstance(store, RedisCluster):
        raise RuntimeError(
            "RQ cannot run on a Redis Cluster: set RQ_REDIS_URL to a single Redis for the job queue"
        )
    return store


# -- the hot path's own lines ------------------------------------------------------------------------

_DIRECT = (
    redis.connection.Connection,
    redis.connection.SSLConnection,
    redis.connection.UnixDomainSocketConnection,
)
"""Connection classes whose socket ``Lines`` may drive itself (not fakeredis's, not a cache proxy's)."""


class Lines:
    """A few connections of one client's own for the commands of a move (the append script, and the read
    of the entries another process appended), each written and read directly: the command packed by
    hiredis, sent with one ``sendall``, the reply parsed by hiredis as it comes. redis-py's per-command path
    around the same two system calls (the pool's checkout with its pid check and its poll for unread bytes,
    the retry wrapper, the observability hooks, its Python-side packing) cost more CPU than the Lua script
    itself.

    Same connections otherwise: made by the pool's own connection class and settings (TLS, unix sockets,
    AUTH, SELECT, timeouts), and the same retry (``Retry(NoBackoff(), 1)``): after a connection error or a
    timeout the command goes once more on a fresh connection. Replies are redis-py's: an error reply raises
    redis-py's exception for it. More callers at once than ``size`` (greenlets of one worker) wait their turn
    on a connection of redis-py's pool, as every other command does."""

    def __init__(self, client: redis.Redis, size: int = 8):
        self._client = client
        self._pool = client.connection_pool
        self._idle: list[_Line] = []
        self._open = 0
        self.size = size
        _EVERY.add(self)

    @staticmethod
    def possible(client: redis.Redis) -> bool:
        """Whether ``client``'s connections can be driven so (one Redis, hiredis at hand, real sockets)."""
        return (
            REDIS_PY
            and _hiredis is not None
            and type(client) is redis.Redis
            and type(getattr(client.connection_pool, "cache", None)) is type(None)
            and client.connection_pool.connection_class in _DIRECT
        )

    def call(self, *command: str | bytes | int | float) -> Any:
        """The raw reply to ``command`` (as ``execute_command`` gives it for a command without a reply
        callback: ``XRANGE``'s a list of ``[id, [field, value, ...]]``, ``PING``'s ``b"PONG"``), through one
        of the lines, or through the pool when they are all in use."""
        packed = _hiredis.pack_command(command)
        try:
            line = self._idle.pop()
        except IndexError:
            if self._open >= self.size:
                return self._pooled(command)
            line = self._new()
        try:
            reply = line.ask(packed)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
            self._drop(line)
            self._forget()  # they went through the same broken server, most likely
            line = self._new()
            try:
                reply = line.ask(packed)
            except BaseException:
                self._drop(line)
                raise
        except BaseException:  # interrupted mid-reply (a greenlet killed): the line's state is unknown
            self._drop(line)
            raise
        self._idle.append(line)
        if isinstance(reply, redis.exceptions.ResponseError):
            raise reply
        return reply

    def _pooled(self, command: tuple[str | bytes | int | float, ...]) -> Any:
        """The command on a connection of redis-py's pool, its reply raw as on a line (no reply callback:
        ``XRANGE``'s is not made a list of dicts), with the pool's one retry on a fresh connection."""
        connection = self._pool.get_connection()
        try:
            try:
                connection.send_command(*command)
                return connection.read_response()
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                connection.disconnect()
                connection.send_command(*command)
                return connection.read_response()
        finally:
            self._pool.release(connection)

    def _new(self) -> _Line:
        connection = self._pool.connection_class(**self._pool.connection_kwargs)
        self._open += 1
        try:
            connection.connect()
        except BaseException:
            self._open -= 1
            raise
        return _Line(connection)

    def _drop(self, line: _Line) -> None:
        self._open -= 1
        line.connection.disconnect()

    def _forget(self) -> None:
        idle, self._idle = self._idle, []
        for line in idle:
            self._drop(line)

    def _forked(self) -> None:
        """In a child process: the lines are the parent's (their sockets too), never to be used here."""
        self._idle, self._open = [], 0


class _Line:
    """One connection, its socket read straight into a hiredis reader."""

    __slots__ = ("buffer", "connection", "reader", "sock")

    def __init__(self, connection: redis.connection.AbstractConnection):
        self.connection = connection
        self.sock = connection._sock
        self.reader = _hiredis.Reader(
            protocolError=redis.exceptions.InvalidResponse, replyError=_parse_error, notEnoughData=_WANTING
        )
        self.buffer = bytearray(65536)
        _timed_by_the_kernel(self.sock)

    def ask(self, packed: bytes) -> Any:
        """Send one packed command, return its reply (an error reply as its exception, unraised)."""
        sock, reader, buffer = self.sock, self.reader, self.buffer
        try:
            send_whole(sock, packed)
            while True:
                got = sock.recv_into(buffer)
                if not got:
                    raise redis.exceptions.ConnectionError("Connection closed by server.")
                reader.feed(buffer, 0, got)
                reply = reader.gets()
                if reply is not _WANTING:
                    if isinstance(
                        reply, redis.exceptions.ConnectionError
                    ):  # LOADING: retried, as redis-py does
                        raise reply
                    return reply
        except redis.exceptions.ConnectionError:
            raise
        except (
            TimeoutError,
            BlockingIOError,
        ) as error:  # socket.timeout: the connection's socket_timeout ran out
            raise redis.exceptions.TimeoutError(f"Timeout reading from socket ({error})") from error
        except OSError as error:
            raise redis.exceptions.ConnectionError(f"Error while talking to Redis: {error}") from error


def _timed_by_the_kernel(sock: socket.socket) -> None:
    """A plain socket (no gevent, no TLS) with a timeout, made blocking with the same timeout kept by the kernel
    (``SO_RCVTIMEO``, ``SO_SNDTIMEO``): CPython polls a socket that has a timeout before every ``send`` and
    ``recv``, two system calls more per command; a blocking one goes straight to them, and the kernel's
    timeout ends a wait as the socket's would (``BlockingIOError`` then, read as a timeout)."""
    timeout = sock.gettimeout()
    if not timeout or type(sock) is not socket.socket or socket.socket.__module__ != "socket":
        return
    seconds = int(timeout)
    kept = struct.pack("ll", seconds, int((timeout - seconds) * 1_000_000))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, kept)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, kept)
    sock.settimeout(None)


_WANTING = object()
"""What the reader gives while a reply is still incomplete (hiredis's ``notEnoughData``)."""

REDIS_PY = versions.written_for("redis", "8.")
"""Whether the installed redis-py is the one ``Lines`` was written for: it reads a connection's socket
(``Connection._sock``) and maps error replies with redis-py's parser (``redis._parsers``), both private; with
another, every command takes redis-py's own path."""

_parse_error = redis._parsers.BaseParser.parse_error if REDIS_PY else None
"""redis-py's own mapping of an error reply to its exception (``NOSCRIPT`` to ``NoScriptError``, ...)."""

_EVERY: weakref.WeakSet[Lines] = weakref.WeakSet()


def _after_fork() -> None:
    for lines in list(_EVERY):
        lines._forked()


os.register_at_fork(after_in_child=_after_fork)
