"""Webhooks: a platform registers a URL and the entry types it wants (``match_started``, ``match_scored``...);
each append to one of its matches with such entries is delivered once, as an RQ job, signed and retried.

The signature: ``Matchlog-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the
secret>``. A receiver recomputes it and refuses a ``t`` older than a few minutes (a replay). Each
delivery has an id (``Matchlog-Delivery``), the same on every retry, for de-duplication. URLs on private,
loopback or link-local addresses are refused unless the server allows them (``MATCHLOG_WEBHOOKS_PRIVATE``).
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import json
import re
import secrets
import socket
import time
import uuid
from typing import Any
from urllib.parse import urlsplit

import redis

from service.keys import Keys
from service.serverkey import ServerKey

SIGNATURE_HEADER = "Matchlog-Signature"
DELIVERY_HEADER = "Matchlog-Delivery"
KEPT_ATTEMPTS = 10_000
"""Delivery attempts kept per webhook (about: Redis trims a stream by whole nodes), paged newest first."""
ORDER_KEPT_S = 30 * 24 * 3600
"""How long a webhook remembers, per match, the version of its latest delivery (``previous_version``)
after the match's last delivery to it."""
CURSOR = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")

_PREVIOUS = """
local done = redis.call('HGET', KEYS[1], 'v' .. ARGV[1])
if done then return done end
local last = redis.call('HGET', KEYS[1], 'last') or ''
if last == '' or tonumber(last) < tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'last', ARGV[1])
else
  last = ''  -- enqueued out of order (never, from one projector): nothing to wait for
end
redis.call('HSET', KEYS[1], 'v' .. ARGV[1], last)
redis.call('EXPIRE', KEYS[1], ARGV[2])
return last
"""


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


class BadWebhookUrl(ValueError):
    """A URL deliveries may not go to; the message says why."""


def check_url(url: str, allow_private: bool) -> list[str]:
    if any(char.isspace() or ord(char) < 32 or ord(char) == 127 for char in url):
        raise BadWebhookUrl("a URL without spaces or control characters (percent-encode them)")
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


def post(url: str, body: bytes, headers: dict[str, str], allow_private: bool, timeout: float) -> int:
    """POST ``body`` to ``url`` and return the answer's status, connecting to an address the check has just
    approved: resolving the name again would let a DNS server answer differently the second time (rebinding).
    A redirect is an answer like any other, never followed. BadWebhookUrl, or OSError and
    http.client.HTTPException for what the network or the receiver did."""
    address = check_url(url, allow_private)[0]
    parts = urlsplit(url)
    assert parts.hostname, "check_url refuses a URL without a host"
    kind = _PinnedTLS if parts.scheme == "https" else _Pinned
    connection = kind(parts.hostname, parts.port, timeout=timeout, address=address)
    try:
        connection.request(
            "POST", (parts.path or "/") + (f"?{parts.query}" if parts.query else ""), body, headers
        )
        return connection.getresponse().status
    finally:
        connection.close()


class _ToAddress(http.client.HTTPConnection):
    """A connection to ``address``, whatever the host name resolves to now (the Host header keeps the name)."""

    def __init__(self, host: str, port: int | None, address: str, **options: Any):
        super().__init__(host, port, **options)
        self.address = address

    def _socket(self) -> socket.socket:
        return socket.create_connection((self.address, self.port), self.timeout)


class _Pinned(_ToAddress):
    def connect(self) -> None:
        self.sock = self._socket()


class _PinnedTLS(_ToAddress, http.client.HTTPSConnection):
    """Over TLS the certificate is still checked against the host name."""

    def connect(self) -> None:
        # http.client keeps the connection's TLS context (default or given) there, unannotated
        self.sock = self._context.wrap_socket(  # type: ignore[attr-defined]
            self._socket(), server_hostname=self.host
        )


def _public(ip) -> bool:
    """A globally routed unicast address, and for IPv6 one that carries no IPv4 address inside it
    (mapped, translated, compatible, NAT64, 6to4, Teredo, ISATAP): 2002:7f00:1:: is 127.0.0.1 by another
    name. Refused even when the address inside is public: telling which gateway would translate it is
    guesswork, and a receiver on a public IPv4 address is reachable by that address itself."""
    if isinstance(ip, ipaddress.IPv6Address) and (any(ip in prefix for prefix in IPV4_INSIDE) or _isatap(ip)):
        return False
    return ip.is_global and not ip.is_multicast


def _isatap(ip: ipaddress.IPv6Address) -> bool:
    """An ISATAP interface id (``0:5efe`` or ``200:5efe``, then the IPv4 address), under any prefix."""
    return (int(ip) >> 32) & 0xFDFF_FFFF == 0x5EFE


def signature(secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


def verify(secret: str, header: str, body: bytes, tolerance_s: int = 300, now: float | None = None) -> bool:
    """What a receiver does (and the tests): the signature matches and is recent."""
    fields = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    timestamp = int(fields.get("t", "0"))
    expected = signature(secret, timestamp, body).split("v1=")[1]
    fresh = abs((now or time.time()) - timestamp) <= tolerance_s
    return fresh and hmac.compare_digest(expected, fields.get("v1", ""))


class Webhooks:
    def __init__(self, redis_client: redis.Redis, keys: Keys, server_key: ServerKey, durably=None):
        """``durably(key, write)``: how a write the API acknowledges is made (the event store's: with
        replicated durability it waits for a replica)."""
        self.redis = redis_client
        self.keys = keys
        self.server_key = server_key
        self.durably = durably or (lambda key, write: write(redis_client))
        self._previous = redis_client.register_script(_PREVIOUS)

    def register(self, platform: str, url: str, events: list[str], secret: str | None) -> dict[str, Any]:
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
                mapping={"platform": platform, "url": url, "events": json.dumps(events), "secret": sealed},
            ),
        )
        self.durably(listed, lambda client: client.sadd(listed, hook_id))
        return {"id": hook_id, "url": url, "events": events, "secret": secret}

    def get(self, hook_id: str) -> dict[str, Any] | None:
        raw = {k.decode(): v for k, v in self.redis.hgetall(self.keys.webhook(hook_id)).items()}
        if not raw:
            return None
        return {
            "id": hook_id,
            "platform": raw["platform"].decode(),
            "url": raw["url"].decode(),
            "events": json.loads(raw["events"]),
            "secret": self.server_key.open(raw["secret"], hook_id.encode()).decode(),
        }

    def of_platform(self, platform: str) -> list[dict[str, Any]]:
        """The platform's webhooks, by id: ``id``, ``url``, ``events`` (their secrets stay sealed)."""
        ids = sorted(h.decode() for h in self.redis.smembers(self.keys.platform_webhooks(platform)))
        with self.redis.pipeline(transaction=False) as pipe:
            for hook_id in ids:
                pipe.hmget(self.keys.webhook(hook_id), "url", "events")
            rows = pipe.execute() if ids else []
        return [
            {"id": hook_id, "url": url.decode(), "events": json.loads(events)}
            for hook_id, (url, events) in zip(ids, rows)
            if url is not None
        ]

    def remove(self, hook_id: str, platform: str) -> None:
        """No more deliveries: unlisted first (what is not listed gets none), then forgotten."""
        listed = self.keys.platform_webhooks(platform)
        self.durably(listed, lambda client: client.srem(listed, hook_id))
        self.redis.delete(
            self.keys.webhook(hook_id),
            self.keys.webhook_deliveries(hook_id),
            self.keys.webhook_attempts(hook_id),
        )

    def previous_version(self, hook_id: str, match_id: str, version: int) -> int | None:
        """The version of the delivery of ``match_id`` to ``hook_id`` enqueued before the one of ``version``
        (None: it is the first), and ``version`` is now the latest. Asked again for the same version (a feed
        notice handled twice) it answers the same: a receiver holds a delivery until it has had the previous one."""
        previous = self._previous(
            keys=[self.keys.webhook_order(hook_id, match_id)], args=[version, ORDER_KEPT_S]
        )
        previous = previous.decode() if isinstance(previous, bytes) else previous
        return int(previous) if previous else None

    def record(self, hook_id: str, attempt: dict[str, Any]) -> None:
        self.redis.xadd(
            self.keys.webhook_attempts(hook_id),
            {"attempt": json.dumps(attempt)},
            maxlen=KEPT_ATTEMPTS,
            approximate=True,
        )

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
        page = [json.loads(fields[b"attempt"]) for _, fields in rows[:limit]]
        return page, (rows[limit - 1][0].decode() if len(rows) > limit else None)
