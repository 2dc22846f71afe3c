"""Rate limits, kept in the match store's Redis (so every API process counts against the same windows): on
writes (every ``POST``, ``PUT``, ``PATCH`` and ``DELETE``) per seat token and per client address, and on reads
(every other request but the probes) per client address. A step of the request pipeline
(``service.http.middleware.pipeline``).

Each limit is one window for all writes (or all reads) together, whatever the endpoint, and each message on
the moves socket counts in the same per-token and per-address write windows as a POST. A breach is a 429 in
the API's error shape (``too_many_requests``) with ``Retry-After``; every limited answer says the state of
one window in ``X-RateLimit-Limit``, ``X-RateLimit-Remaining`` and ``X-RateLimit-Reset``. The limits are
``MATCHLOG_RATE_LIMIT_PER_TOKEN``, ``MATCHLOG_RATE_LIMIT_PER_ADDRESS`` and
``MATCHLOG_RATE_LIMIT_READS_PER_ADDRESS`` (the ``limits`` library's notation, such as
``50/second;1000/minute``; ``off`` for none). A token is counted by a digest, never by itself; an address as
``service.domain.addresses`` counts it (an IPv6 one by its /64, an IPv4-mapped one as its IPv4 address).

The windows are the ``limits`` library's fixed windows, named and parsed by its public API
(``limits.parse_many``, ``RateLimitItem.key_for``), under the keys flask-limiter used for them, and hit as
flask-limiter hit them: every window a request counts in, shortest first, stopping at the first breach; the
headers show the breached window, else the first. All of them are hit in one call
(``service.store.rate_windows``): one round trip a request, where flask-limiter made one per window and two
more for the headers.
"""

from __future__ import annotations

import functools
import hashlib
import time
from typing import TYPE_CHECKING

from limits import RateLimitItem, parse_many
from limits.storage import RedisStorage

from service.domain.addresses import counted_address
from service.http.errors import ApiError
from service.store.rate_windows import RateWindows, Window

if TYPE_CHECKING:
    from service.http.middleware.pipeline import Exchange

WRITES = "writes"
"""The one scope every write is counted in."""

READS = "reads"
"""The one scope every other request is counted in (apart from the writes: a reader does not use up
the writes of the players behind the same address)."""

PROBES = ("/healthz", "/readyz", "/metrics")
"""Asked by the orchestrator and the monitoring, often and from few addresses: never limited."""

WRITING_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

WINDOWS_KEPT = 4096
"""How many clients' (an address's reads; an address's and a token's writes) windows a process keeps named, so that
a client's next request does not name them again (the ``limits`` library's ``key_for``: most of this step's
CPU besides its round trip)."""


def token_digest(token: str) -> str:
    """A token is counted by a digest, never by itself."""
    return "token:" + hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()[:24]


def _address_key(address: str | None) -> str:
    """A client is counted by its address as ``counted_address`` gives it: an IPv6 one by its /64."""
    return "address:" + counted_address(address)


def _bearer_token(header: str) -> str:
    return header[7:].strip() if header[:7].lower() == "bearer " else ""


class RateLimits:
    """The limits of one API process, and the pipeline step that applies them."""

    def __init__(
        self,
        windows: RateWindows,
        namespace: str,
        per_token: str | None,
        per_address: str | None,
        reads_per_address: str | None,
    ):
        self.windows = windows
        self.prefix = f"{namespace}:ratelimit"
        self.per_token = _items(per_token)
        self.per_address = _items(per_address)
        self.reads = _items(reads_per_address)
        self._windows = functools.lru_cache(maxsize=WINDOWS_KEPT)(self._windows_of)

    @staticmethod
    def of(
        windows: RateWindows,
        namespace: str,
        per_token: str | None,
        per_address: str | None,
        reads_per_address: str | None,
    ) -> RateLimits | None:
        """The limits, or None when all three are off."""
        if not (per_token or per_address or reads_per_address):
            return None
        return RateLimits(windows, namespace, per_token, per_address, reads_per_address)

    def before(self, x: Exchange) -> None:
        """Count the request in its windows; a 429 over any of them."""
        environ = x.environ
        if x.endpoint is None or x.endpoint.rsplit(".", 1)[-1] == "static":
            return None  # no route (a 404, a 405), or a static file: flask-limiter counted neither
        address = _address_key(environ.get("REMOTE_ADDR"))
        if x.method in WRITING_METHODS:
            token = _bearer_token(environ.get("HTTP_AUTHORIZATION", ""))
            items, windows = self._windows(WRITES, address, token_digest(token) if token else None)
        elif environ.get("PATH_INFO") not in PROBES:
            items, windows = self._windows(READS, address, None)
        else:
            return None
        if windows:
            try:
                x.limit = self._hit(items, windows)
            except Breached as breach:
                x.limit = breach.shown
                raise
        return None

    def _windows_of(
        self, scope: str, address: str, token: str | None
    ) -> tuple[tuple[RateLimitItem, ...], list[Window]]:
        """The windows a request of ``scope`` counts in, shortest first (as flask-limiter sorted them), and their
        limits: its address's, and for a write its token's (``token``: the token's digest) where it has one."""
        if scope == WRITES:
            limited = [(item, address) for item in self.per_address]
            limited += [(item, token) for item in self.per_token] if token is not None else []
        else:
            limited = [(item, address) for item in self.reads]
        limited.sort(key=lambda pair: pair[0].GRANULARITY.seconds)
        windows = [
            Window(
                f"{RedisStorage.PREFIX}:{item.key_for(self.prefix, key, scope)}",
                item.get_expiry(),
                item.amount,
            )
            for item, key in limited
        ]
        return tuple(item for item, _ in limited), windows

    def _hit(self, items: tuple[RateLimitItem, ...], windows: list[Window]) -> tuple[RateLimitItem, int, int]:
        """Hit the windows; the shown one, its count and reset time, or 429 when one is over."""
        hit = self.windows.hit(windows)
        item = items[hit.over if hit.over is not None else 0]
        shown = (item, max(0, item.amount - hit.count), int(max(hit.ttl, 0) + time.time() + 1))
        if hit.over is not None:
            raise Breached(shown)
        return shown

    @staticmethod
    def after(x: Exchange, status: int, headers: list[tuple[str, str]]) -> None:
        """The shown window's state, and the seconds until it resets as ``Retry-After`` (which the
        ``Retry-After`` step keeps on a 429 only)."""
        if x.limit is None:
            return
        item, remaining, reset = x.limit
        headers.append(("X-RateLimit-Limit", str(item.amount)))
        headers.append(("X-RateLimit-Remaining", str(remaining)))
        headers.append(("X-RateLimit-Reset", str(reset)))
        _replace(headers, "Retry-After", str(int(reset - time.time())))

    def write_allowed(self, address: str | None, token: str) -> int:
        """Count a write made outside an HTTP POST (a move on the socket) against the address's and the
        token's limits: 0 if allowed, else the seconds until it would be."""
        items, windows = self._windows(WRITES, _address_key(address), token_digest(token))
        if not windows:
            return 0
        try:
            self._hit(items, windows)
        except Breached as breach:
            return max(1, int(breach.shown[2] - time.time()))
        return 0


class Breached(ApiError):
    """A window over its amount: 429, its state ``shown`` in the answer's headers."""

    def __init__(self, shown: tuple[RateLimitItem, int, int]):
        super().__init__(429, "too_many_requests", repr(shown[0]))  # flask-limiter's "50 per 1 second"
        self.shown = shown


def _items(limits: str | None) -> list[RateLimitItem]:
    return parse_many(limits) if limits else []


def _replace(headers: list[tuple[str, str]], name: str, value: str) -> None:
    """Set ``name``, where it stood if it was there, else at the end (as werkzeug's ``Headers.set``)."""
    lowered = name.lower()
    at = next((i for i, (k, _) in enumerate(headers) if k.lower() == lowered), None)
    headers[:] = [(k, v) for k, v in headers if k.lower() != lowered]
    headers.insert(len(headers) if at is None else at, (name, value))
