"""Webhooks: a platform registers a URL and the entry types it wants (``match_started``, ``match_scored``...);
each append to one of its matches with such entries is delivered once, as an RQ job, signed and retried.

The signature: ``Matchlog-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">,v2=<hex
HMAC-SHA256 of "<t>.<delivery id>.<body>">``, both with the secret; v2 also covers the ``Matchlog-Delivery``
header, the id a receiver de-duplicates by (v1 is sent for one more release, for receivers that check it).
A receiver recomputes it and refuses a ``t`` older than a few minutes (a replay). URLs on addresses that
are not globally reachable are refused unless the server allows them (``MATCHLOG_WEBHOOKS_PRIVATE``).

A platform's deliveries take at most ``MATCHLOG_WEBHOOK_SLOTS_PER_PLATFORM`` delivery slots at a time (a
lease in Redis, ``slot``); each attempt has a connect timeout and a total deadline that a slow receiver
cannot stretch; a webhook whose deliveries keep failing is disabled until its platform enables it again.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import ipaddress
import json
import re
import secrets
import selectors
import socket
import ssl
import time
import uuid
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar
from urllib.parse import urlsplit

import redis

from service.domain.errors import LeaseLost, TooManyWebhooks
from service.domain.serverkey import ServerKey
from service.store.fences import CHECK, Fence
from service.store.keys import Keys

T = TypeVar("T")

SIGNATURE_HEADER = "Matchlog-Signature"
DELIVERY_HEADER = "Matchlog-Delivery"
KEPT_ATTEMPTS = 10_000
"""Delivery attempts kept per webhook (about: Redis trims a stream by whole nodes), paged newest first."""
ORDER_KEPT_S = 30 * 24 * 3600
"""How long a webhook remembers, per match, the version of its latest delivery (``previous_version``)
after the match's last delivery to it."""
CURSOR = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")
BODY_KEPT_S = 3 * 24 * 3600
"""How long a delivery body is kept after the last delivery that needs it was enqueued or deferred: longer
than a delivery job is kept (a day queued, a day failed)."""
OUTCOMES = (
    "status",
    "timeout",
    "refused",
    "reset",
    "unreachable",
    "tls",
    "not_http",
    "address_refused",
    "unknown",
)
"""What an attempt's ``outcome`` can be: ``status`` (the receiver answered, ``status`` says with what), or why
no answer came, in the server's own words: never the peer's bytes or an exception's text (a receiver's
address could be anyone's service). ``unknown``: an attempt recorded by an older release."""
STATUS_LINE = re.compile(rb"HTTP/1\.[01] ([1-9][0-9]{2})(?: [^\r\n]*)?\r?")
STATUS_LINE_MAX = 1024

_LIMITED_ADD = """
if tonumber(ARGV[2]) > 0 and redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2])
   and redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call('SADD', KEYS[1], ARGV[1])
return 1
"""

_TAKE_SLOT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return 1
end
return 0
"""

_PREVIOUS = (
    CHECK
    + """
-- KEYS: the order record, the partition's fence. ARGV: version, seconds kept, token (0: none), the latest
-- version of the legacy record ('' once read), '?' when not read yet
if fenced(KEYS[2], tonumber(ARGV[3])) then return false end
local done = redis.call('HGET', KEYS[1], 'v' .. ARGV[1])
if done then return done end
local last = redis.call('HGET', KEYS[1], 'last')
if not last then
  if ARGV[4] == '?' then return '?' end
  last = ARGV[4]
end
if last == '' or tonumber(last) < tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'last', ARGV[1])
else
  last = ''  -- enqueued out of order (never, from one projector): nothing to wait for
end
redis.call('HSET', KEYS[1], 'v' .. ARGV[1], last)
redis.call('EXPIRE', KEYS[1], ARGV[2])
return last
"""
)


IPV4_INSIDE = tuple(
    ipaddress.ip_network(prefix)
    for prefix in (
        "::ffff:0:0/96",  # IPv4-mapped: the kernel itself connects to the IPv4 address
        "::ffff:0:0:0/96",  # IPv4-translated (SIIT)
        "::/96",  # IPv4-compatible (deprecated)
        "64:ff9b::/96",  # NAT64, the well-known prefix
        "64:ff9b:1::/48",  # NAT64, local use (RFC 8215): a site's own translator
        "2002::/16",  # 6to4
        "2001::/32",  # Teredo
    )
)
"""IPv6 prefixes whose addresses carry an IPv4 address that a gateway on the way may deliver to."""


NOT_GLOBAL = tuple(
    ipaddress.ip_network(prefix)
    for prefix in (
        # IPv4 special-purpose registry, "globally reachable: false" (RFC 6890 and its updates)
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "240.0.0.0/4",
        "255.255.255.255/32",
        # IPv6 special-purpose registry
        "::1/128",
        "::/128",
        "100::/64",
        "2001::/23",
        "2001:db8::/32",
        "3fff::/20",
        "5f00::/16",
        "fc00::/7",
        "fe80::/10",
        "fec0::/10",
    )
)
"""Blocks of the IANA special-purpose address registries that are not globally reachable, as the newest
``ipaddress.is_global`` reads them: an older Python's table lacks some (3.11 calls 192.0.0.8 global)."""
GLOBAL_INSIDE = tuple(
    ipaddress.ip_network(prefix)
    for prefix in ("192.0.0.9/32", "192.0.0.10/32", "2001:1::1/128", "2001:1::2/128", "2001:3::/32")
    + ("2001:4:112::/48", "2001:20::/28", "2001:30::/28")
)
"""The registries' globally reachable exceptions inside those blocks (anycast services)."""


class BadWebhookUrl(ValueError):
    """A URL deliveries may not go to; the message says why."""


def check_url(url: str, allow_private: bool) -> list[str]:
    if any(char.isspace() or ord(char) < 32 or ord(char) >= 127 for char in url):
        raise BadWebhookUrl(
            "a URL without spaces, control or non-ASCII characters (percent-encode them, "
            "and write an international host name in its xn-- form)"
        )
    try:
        parts = urlsplit(url)
        hostname, port = parts.hostname, parts.port
    except ValueError as error:  # a bracketed host that is no IPv6 address, a port out of range...
        raise BadWebhookUrl(f"not a URL this server can deliver to ({error})") from None
    if parts.scheme not in ("http", "https") or not hostname:
        raise BadWebhookUrl("an http or https URL with a host")
    if port == 0:
        raise BadWebhookUrl("port 0 is no port to deliver to")
    try:
        addresses = {str(info[4][0]) for info in socket.getaddrinfo(hostname, port or 443)}
    except (socket.gaierror, UnicodeError, ValueError):
        raise BadWebhookUrl(f"the host {hostname!r} does not resolve") from None
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        if not allow_private and not _public(ip):
            raise BadWebhookUrl(
                f"{hostname} is a private address ({ip}); this server delivers to public "
                "ones only (its operator can allow others: MATCHLOG_WEBHOOKS_PRIVATE=true)"
            )
    return sorted(addresses)


class Undelivered(Exception):
    """An attempt that got no HTTP status; ``outcome`` (one of ``OUTCOMES``) says why."""

    def __init__(self, outcome: str):
        super().__init__(outcome)
        self.outcome = outcome


def post(
    url: str, body: bytes, headers: dict[str, str], allow_private: bool, connect_s: float, deadline_s: float
) -> int:
    """POST ``body`` to ``url`` and return the answer's status, connecting to an address the check has just
    approved: resolving the name again would let a DNS server answer differently the second time (rebinding).
    A redirect is an answer like any other, never followed. The connection is given ``connect_s``, and the
    whole attempt (connection, TLS, request, the answer's status line) ``deadline_s``: a receiver that
    answers a byte at a time cannot stretch it, as it stretches a timeout per read. Only the status line is
    read. BadWebhookUrl for an address the check refuses; Undelivered for what the network or the receiver did."""
    address = check_url(url, allow_private)[0]
    parts = urlsplit(url)
    assert parts.hostname, "check_url refuses a URL without a host"
    https = parts.scheme == "https"
    deadline = time.monotonic() + deadline_s
    try:
        sock: socket.socket = socket.create_connection(
            (address, parts.port or (443 if https else 80)), min(connect_s, deadline_s)
        )
    except OSError as error:  # a timeout, refused, unreachable...
        raise Undelivered(_outcome(error)) from None
    try:
        sock.setblocking(False)
        if https:
            # the certificate is still checked against the host name, not the address connected to
            sock = ssl.create_default_context().wrap_socket(
                sock, server_hostname=parts.hostname, do_handshake_on_connect=False
            )
            _until(deadline, sock, sock.do_handshake)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        head = [
            f"POST {target} HTTP/1.1",
            f"Host: {_host(parts.hostname, parts.port)}",
            f"Content-Length: {len(body)}",
        ]
        head += ["Connection: close", *(f"{name}: {value}" for name, value in headers.items())]
        _send(sock, ("\r\n".join(head) + "\r\n\r\n").encode("ascii") + body, deadline)
        return _status(sock, deadline)
    except (OSError, ValueError) as error:  # ssl.SSLError is an OSError
        raise Undelivered(_outcome(error)) from None
    finally:
        sock.close()


def _host(hostname: str, port: int | None) -> str:
    """The Host header: the URL's host (an IPv6 address in brackets) and its port, if it names one."""
    host = f"[{hostname}]" if ":" in hostname else hostname
    return f"{host}:{port}" if port else host


def _outcome(error: BaseException) -> str:
    if isinstance(error, Undelivered):
        return error.outcome
    if isinstance(error, ssl.SSLError | ssl.CertificateError):
        return "tls"
    if isinstance(error, TimeoutError):
        return "timeout"
    if isinstance(error, ConnectionRefusedError):
        return "refused"
    if isinstance(error, ConnectionResetError | BrokenPipeError | ConnectionAbortedError):
        return "reset"
    if isinstance(error, ValueError):  # a URL the request line cannot carry: the check refuses those
        return "address_refused"
    return "unreachable"


def _until(deadline: float, sock: socket.socket, step: Callable[[], T]) -> T:
    """``step()`` on a non-blocking socket, waiting for it to be readable or writable as it asks, until
    ``deadline`` (then ``Undelivered("timeout")``)."""
    with selectors.DefaultSelector() as selector:
        while True:
            try:
                return step()
            except (BlockingIOError, ssl.SSLWantReadError):
                events = selectors.EVENT_READ
            except ssl.SSLWantWriteError:
                events = selectors.EVENT_WRITE
            left = deadline - time.monotonic()
            if left <= 0:
                raise Undelivered("timeout")
            selector.register(sock, events)
            ready = selector.select(left)
            selector.unregister(sock)
            if not ready:
                raise Undelivered("timeout")


def _send(sock: socket.socket, data: bytes, deadline: float) -> None:
    view = memoryview(data)
    while view:
        view = view[_until(deadline, sock, functools.partial(sock.send, view)) :]


def _status(sock: socket.socket, deadline: float) -> int:
    """The status of the answer's status line, read before ``deadline``; ``not_http`` when the receiver
    closes before one, or sends something else."""
    line = b""
    while b"\n" not in line:
        if len(line) >= STATUS_LINE_MAX:
            raise Undelivered("not_http")
        chunk = _until(deadline, sock, functools.partial(sock.recv, STATUS_LINE_MAX - len(line)))
        if not chunk:
            raise Undelivered("not_http")
        line += chunk
    status = STATUS_LINE.fullmatch(line.split(b"\n", 1)[0])
    if status is None:
        raise Undelivered("not_http")
    return int(status.group(1))


def _public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """A globally routed unicast address, and for IPv6 one that carries no IPv4 address inside it
    (mapped, translated, compatible, NAT64, 6to4, Teredo, ISATAP): 2002:7f00:1:: is 127.0.0.1 by another
    name. Refused even when the address inside is public: telling which gateway would translate it is
    guesswork, and a receiver on a public IPv4 address is reachable by that address itself."""
    if isinstance(ip, ipaddress.IPv6Address) and (any(ip in prefix for prefix in IPV4_INSIDE) or _isatap(ip)):
        return False
    special = any(ip in block for block in NOT_GLOBAL) and not any(ip in block for block in GLOBAL_INSIDE)
    return ip.is_global and not ip.is_multicast and not special


def _isatap(ip: ipaddress.IPv6Address) -> bool:
    """An ISATAP interface id (``0:5efe`` or ``200:5efe``, then the IPv4 address), under any prefix."""
    return (int(ip) >> 32) & 0xFDFF_FFFF == 0x5EFE


def joined(own: str, shared: str) -> str:
    """A delivery's body: its own members (``own``, a JSON object's text) and those it shares with the other
    deliveries of its append (``shared``, another), as one object."""
    return own[:-1] + "," + shared[1:]


def signature(secret: str, timestamp: int, body: bytes, delivery: str) -> str:
    """The ``Matchlog-Signature`` header: v2 signs the delivery id too; v1, the timestamp and body only, is
    kept for one release for the receivers that check it."""
    return f"t={timestamp},v1={_mac(secret, f'{timestamp}.', body)},v2={_mac(secret, f'{timestamp}.{delivery}.', body)}"


def _mac(secret: str, prefix: str, body: bytes) -> str:
    return hmac.new(secret.encode(), prefix.encode() + body, hashlib.sha256).hexdigest()


def verify(
    secret: str,
    header: str,
    body: bytes,
    delivery: str | None = None,
    tolerance_s: int = 300,
    now: float | None = None,
) -> bool:
    """What a receiver does (and the tests): the signature matches and is recent. With ``delivery`` (the
    ``Matchlog-Delivery`` header) the v2 signature is checked, which covers it; without, v1."""
    fields = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    timestamp = int(fields.get("t", "0")) if fields.get("t", "0").isdigit() else 0
    if delivery is None:
        expected, given = _mac(secret, f"{timestamp}.", body), fields.get("v1", "")
    else:
        expected, given = _mac(secret, f"{timestamp}.{delivery}.", body), fields.get("v2", "")
    fresh = abs((now or time.time()) - timestamp) <= tolerance_s
    return fresh and hmac.compare_digest(expected, given)


class Webhooks:
    def __init__(
        self,
        redis_client: redis.Redis,
        keys: Keys,
        server_key: ServerKey,
        durably: Callable[[str, Callable[[redis.Redis], Any]], Any] | None = None,
        per_platform: int = 0,
        disable_after: int = 0,
    ):
        """``durably(key, write)``: how a write the API acknowledges is made (the event store's: with
        replicated durability it waits for a replica). ``per_platform``: webhooks a platform may have;
        ``disable_after``: failed deliveries in a row that disable a webhook (0: no limit, for either)."""
        self.redis = redis_client
        self.keys = keys
        self.server_key = server_key
        self.durably = durably or (lambda key, write: write(redis_client))
        self.per_platform = per_platform
        self.disable_after = disable_after
        self._previous = redis_client.register_script(_PREVIOUS)
        self._limited_add = redis_client.register_script(_LIMITED_ADD)
        self._take_slot = redis_client.register_script(_TAKE_SLOT)

    def register(
        self, platform: str, url: str, events: list[str], secret: str | None, language: str | None = None
    ) -> dict[str, Any]:
        """TooManyWebhooks when the platform has its share: counted and listed in one step, so that
        registrations at the same moment cannot pass the cap together. ``language``: that of the deliveries'
        texts (English when None)."""
        hook_id = uuid.uuid4().hex[:16]
        secret = secret or secrets.token_urlsafe(24)
        events = sorted(set(events))
        sealed = self.server_key.seal(secret.encode(), hook_id.encode())  # the secret signs: kept sealed
        hook, listed = self.keys.webhook(hook_id), self.keys.platform_webhooks(platform)
        # the hook first: one that is not listed yet (a 503 in between) is invisible and harmless
        self.durably(
            hook,
            lambda client: client.hset(
                hook,
                mapping={
                    "platform": platform,
                    "url": url,
                    "events": json.dumps(events),
                    "secret": sealed,
                    **({"language": language} if language else {}),
                },
            ),
        )
        added = self.durably(
            listed,
            lambda client: self._limited_add(keys=[listed], args=[hook_id, self.per_platform], client=client),
        )
        if not added:
            self.redis.delete(hook)
            raise TooManyWebhooks(self.per_platform)
        shown = {"id": hook_id, "url": url, "events": events, **({"language": language} if language else {})}
        return {**shown, "secret": secret, **ENABLED}

    def get(self, hook_id: str) -> dict[str, Any] | None:
        raw = {k.decode(): v for k, v in self.redis.hgetall(self.keys.webhook(hook_id)).items()}
        if "platform" not in raw:  # none, or only the count of a failure recorded as the webhook was removed
            return None
        return {
            "id": hook_id,
            "platform": raw["platform"].decode(),
            "url": raw["url"].decode(),
            "events": json.loads(raw["events"]),
            **({"language": raw["language"].decode()} if "language" in raw else {}),
            "secret": self.server_key.open(raw["secret"], hook_id.encode()).decode(),
            **_shown_status(raw.get("disabled_at"), raw.get("disabled_reason")),
        }

    def of_platform(self, platform: str) -> list[dict[str, Any]]:
        """The platform's webhooks, by id: ``id``, ``url``, ``events``, ``status`` and, disabled, since when
        and why (their secrets stay sealed)."""
        ids = sorted(h.decode() for h in self.redis.smembers(self.keys.platform_webhooks(platform)))
        with self.redis.pipeline(transaction=False) as pipe:
            for hook_id in ids:
                pipe.hmget(
                    self.keys.webhook(hook_id), "url", "events", "disabled_at", "disabled_reason", "language"
                )
            rows = pipe.execute() if ids else []
        return [
            {
                "id": hook_id,
                "url": url.decode(),
                "events": json.loads(events),
                **({"language": language.decode()} if language else {}),
                **_shown_status(at, reason),
            }
            for hook_id, (url, events, at, reason, language) in zip(ids, rows)
            if url is not None
        ]

    def enable(self, hook_id: str) -> None:
        """Deliveries again, from the next append on, and its count of failures in a row from nothing."""
        hook = self.keys.webhook(hook_id)
        self.durably(hook, lambda client: client.hdel(hook, "disabled_at", "disabled_reason", "failing"))

    def remove(self, hook_id: str, platform: str) -> None:
        """No more deliveries: unlisted first (what is not listed gets none), then forgotten."""
        listed = self.keys.platform_webhooks(platform)
        self.durably(listed, lambda client: client.srem(listed, hook_id))
        self.redis.delete(
            self.keys.webhook(hook_id),
            self.keys.webhook_deliveries(hook_id),
            self.keys.webhook_attempts(hook_id),
        )

    def previous_version(
        self, hook_id: str, match_id: str, version: int, fence: Fence | None = None
    ) -> int | None:
        """The version of the delivery of ``match_id`` to ``hook_id`` enqueued before the one of ``version``
        (None: it is the first), and ``version`` is now the latest. Asked again for the same version (a feed
        notice handled twice) it answers the same: a receiver holds a delivery until it has had the previous one.
        ``fence``: the lease of the match's partition that the caller works under; LeaseLost, and nothing
        written, when another worker has taken the partition since."""
        order = self.keys.webhook_order(hook_id, match_id)
        partition = self.keys.partition(match_id)
        assert fence is None or fence.partition == partition, "a match's work is fenced by its own partition"
        token = fence.token if fence else 0

        def record(legacy: str) -> str:
            # durably: a record lost in a failover let the next delivery name one before the one it follows
            previous = self.durably(
                order,
                lambda client: self._previous(
                    keys=[order, self.keys.feed_fence(partition)],
                    args=[version, ORDER_KEPT_S, token, legacy],
                    client=client,
                ),
            )
            if previous is None:
                raise LeaseLost(f"partition {partition} has a newer lease than token {token}")
            return previous.decode() if isinstance(previous, bytes) else previous

        previous = record("?")
        if previous == "?":  # a record not begun here: one a release before the fences kept, if any
            last = self.redis.hget(self.keys.legacy_webhook_order(hook_id, match_id), "last")
            previous = record(last.decode() if last else "")
        return int(previous) if previous else None

    def record(self, hook_id: str, attempt: dict[str, Any], last: bool = False) -> bool:
        """Keep an attempt; ``last``: the delivery's last attempt, whose outcome is the delivery's. A delivery
        that succeeds clears the webhook's count of failures in a row; one that fails adds to it, and the
        ``disable_after``-th disables the webhook. True when this one disabled it."""
        hook = self.keys.webhook(hook_id)
        self.redis.xadd(
            self.keys.webhook_attempts(hook_id),
            {"attempt": json.dumps(attempt)},
            maxlen=KEPT_ATTEMPTS,
            approximate=True,
        )
        delivered = 200 <= attempt.get("status", 0) < 300
        if delivered:
            self.redis.hdel(hook, "failing")
            return False
        if not last or not self.disable_after or not self.redis.exists(hook):
            return False
        if self.redis.hincrby(hook, "failing", 1) != self.disable_after:
            return False
        self.redis.hset(hook, mapping={"disabled_at": attempt["at"], "disabled_reason": "failing"})
        return True

    @contextmanager
    def slot(self, platform: str, holder: str, limit: int, lease_s: float) -> Iterator[bool]:
        """One of the platform's ``limit`` delivery slots for ``holder`` while in the block (True), or none
        free (False). A slot is a lease that ends after ``lease_s`` even if its holder's worker dies."""
        if limit <= 0:
            yield True
            return
        key = self.keys.webhook_slots(platform)
        now_ms = int(time.time() * 1000)
        until_ms = now_ms + int(lease_s * 1000)
        taken = self._take_slot(keys=[key], args=[holder, now_ms, limit, until_ms, int(lease_s * 1000) * 2])
        try:
            yield bool(taken)
        finally:
            if taken:
                self.redis.zrem(key, holder)

    def keep_body(self, body: str) -> str:
        """Keep a delivery's body, or the part of it that the deliveries of one append share, once however
        many webhooks get it: its key is its digest. The digest, for the deliveries to name."""
        data = body.encode()
        digest = hashlib.sha256(data).hexdigest()
        # compressed, as RQ compresses a job's arguments: a body's entries repeat their keys and names; durably:
        # a body lost in a failover was a delivery dropped for good ("its body is no longer kept")
        key = self.keys.webhook_body(digest)
        self.durably(key, lambda client: client.set(key, zlib.compress(data), ex=BODY_KEPT_S))
        return digest

    def body(self, digest: str) -> str | None:
        """A body kept by ``keep_body``, kept ``BODY_KEPT_S`` more (a delivery that waits needs it later)."""
        key = self.keys.webhook_body(digest)
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(key)
            pipe.expire(key, BODY_KEPT_S)
            body, _ = pipe.execute()
        return zlib.decompress(body).decode() if body is not None else None

    def deliveries(
        self,
        hook_id: str,
        cursor: str | None = None,
        limit: int = 100,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of the webhook's delivery attempts, newest first, older than ``cursor`` (a ``next_cursor``
        of an earlier page; none: from the newest), and the cursor of the next page (None: no more)."""
        if cursor is not None and not CURSOR.fullmatch(cursor):
            raise ValueError("not a cursor this server gave")
        rows = self.redis.xrevrange(
            self.keys.webhook_attempts(hook_id), f"({cursor}" if cursor else "+", "-", count=limit + 1
        )
        page = [_attempt(json.loads(fields[b"attempt"])) for _, fields in rows[:limit]]
        return page, (rows[limit - 1][0].decode() if len(rows) > limit else None)


ENABLED: dict[str, Any] = {"status": "enabled", "disabled_at": None, "disabled_reason": None}


def _shown_status(disabled_at: bytes | None, reason: bytes | None) -> dict[str, Any]:
    if disabled_at is None:
        return ENABLED
    return {
        "status": "disabled",
        "disabled_at": disabled_at.decode(),
        "disabled_reason": (reason or b"failing").decode(),
    }


def _attempt(kept: dict[str, Any]) -> dict[str, Any]:
    """An attempt as the platform reads it: one an older release recorded carried the error's text, which
    could be a peer's bytes; it reads as ``unknown``."""
    if "outcome" in kept:
        return kept
    shown = {k: v for k, v in kept.items() if k != "error"}
    return {**shown, "outcome": "status" if "status" in kept else "unknown"}
