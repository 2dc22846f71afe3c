"""Settings, read once from the environment. Nothing else in the service reads ``os.environ``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from service.domain.serverkey import new_secret, secret_from_file


@dataclass(frozen=True)
class Settings:
    redis_url: str | None = None
    """``REDIS_URL``; when unset, ``matchlog serve`` starts an embedded Redis in ``data_dir``."""
    data_dir: Path = Path("matchlog-data")
    """``MATCHLOG_DATA``: where the embedded Redis keeps its append-only file."""
    namespace: str = "matchlog"
    """``MATCHLOG_NAMESPACE``: prefix of every Redis key and the RQ queue name, so that several
    deployments (or test runs) can share one Redis without seeing each other."""
    snapshot_every: int = 16
    """``MATCHLOG_SNAPSHOT_EVERY``: a snapshot of derived state is kept every this many versions, so a
    state is never more than this many events away from a stored one."""
    state_cache_bytes: int = 64 * 2**20
    """``MATCHLOG_STATE_CACHE_BYTES`` (default 64 MiB): how many bytes of match states each API or worker
    process keeps cached at most (as counted approximately, content packs apart: a process holds each pack
    once), beside a bound of 2,048 matches. A state not cached is read from its snapshot and the log."""
    max_body_bytes: int = 64 * 1024
    """``MATCHLOG_MAX_BODY_BYTES``: larger request bodies get 413."""
    claim_idle_ms: int = 30_000
    """``MATCHLOG_CLAIM_IDLE_MS``: a worker takes over log entries another worker read but did not
    finish after this long (the other is presumed dead)."""
    packs_dir: Path | None = None
    """``MATCHLOG_PACKS``: extra content packs, as ``<dir>/<game id>/<name>.json``."""
    idempotency_ttl_s: int = 24 * 3600
    """How long a retried request with the same ``Idempotency-Key`` gets the first answer back."""
    abandon_after_s: float = 3 * 24 * 3600
    """``MATCHLOG_ABANDON_AFTER_S`` (default 3 days; 0: never): a match not over with nothing appended for
    this long is ended as abandoned by the worker (``match_aborted``, reason ``abandoned``)."""
    cors_origins: tuple[str, ...] = ("*",)
    """``MATCHLOG_CORS_ORIGINS``: comma-separated origins browsers may call the API from (``*``: any)."""
    rate_limit_per_token: str | None = None
    """``MATCHLOG_RATE_LIMIT_PER_TOKEN`` (server default ``50/second;1500/minute``; ``off``): writes per
    seat token. Settings made in code have none."""
    rate_limit_per_address: str | None = None
    """``MATCHLOG_RATE_LIMIT_PER_ADDRESS`` (server default ``500/second``; ``off``): writes per client
    address, an IPv6 one by its /64 (a platform's server sends many players' writes from one address: keep
    it generous)."""
    rate_limit_reads_per_address: str | None = None
    """``MATCHLOG_RATE_LIMIT_READS_PER_ADDRESS`` (server default ``200/second``; ``off``): every other
    request per client address, an IPv6 one by its /64 (reads, the socket's opening, the viewer's pages), in
    a window of its own; the probes ``/healthz``, ``/readyz`` and ``/metrics`` are never limited."""
    trusted_proxies: int = 0
    """``MATCHLOG_TRUSTED_PROXIES``: how many reverse proxies stand before the API. Each appends the
    address it saw to ``X-Forwarded-For``; the client is the one that many hops back (the per-address limit
    counts it, not the proxy). 0, the default: the header is not believed (anyone can send one)."""
    webhooks_private: bool = False
    """``MATCHLOG_WEBHOOKS_PRIVATE``: allow webhook URLs on private and loopback addresses (tests, or a
    platform on the same network)."""
    webhooks_per_platform: int = 10
    """``MATCHLOG_WEBHOOKS_PER_PLATFORM`` (0: no cap): webhooks one platform may have; registering one more is
    refused (409 ``too_many_webhooks``)."""
    webhook_slots_per_platform: int = 2
    """``MATCHLOG_WEBHOOK_SLOTS_PER_PLATFORM`` (0: no cap): deliveries of one platform attempted at the same
    time, over all workers; the platform's other deliveries wait their turn (a few seconds later, again),
    so that its stalled receivers hold at most these many workers while other platforms' deliveries go on."""
    webhook_connect_s: float = 2.0
    """``MATCHLOG_WEBHOOK_CONNECT_S``: how long a delivery attempt waits for the receiver's connection."""
    webhook_deadline_s: float = 5.0
    """``MATCHLOG_WEBHOOK_DEADLINE_S``: a delivery attempt's whole time (connection, TLS, request and the
    answer's status line), however slowly the receiver answers; none by then is a ``timeout``."""
    webhook_disable_after: int = 5
    """``MATCHLOG_WEBHOOK_DISABLE_AFTER`` (0: never): deliveries in a row that failed every attempt before a
    webhook is disabled (``status: disabled``); its platform enables it again (``PATCH /v1/webhooks/{id}``)."""
    anonymous_matches: bool = True
    """``MATCHLOG_ANONYMOUS_MATCHES`` (``true``/``false``): may a request without a platform key create a
    match? Allowed by default, for the two-command start."""
    sse_heartbeat_s: float = 15.0
    """``MATCHLOG_SSE_HEARTBEAT_S``: a live-feed connection with nothing to say gets a comment this often."""
    sse_per_address: int = 20
    """``MATCHLOG_SSE_PER_ADDRESS`` (0: no cap): live-feed connections one client address (an IPv6 one:
    its /64) may hold in one API process; the next is refused (429 ``too_many_streams``). A browser tab holds
    one; a platform's server that follows many matches from one address needs more (or its own address per
    follower)."""
    sse_per_process: int = 500
    """``MATCHLOG_SSE_PER_PROCESS`` (0: no cap): live-feed connections one API process holds; the next is
    refused (503 ``streams_full``, try again: another process may have room). Each is a greenlet and a
    socket, and a slot of gunicorn's 4000 ``worker_connections``, which every other request needs too:
    500 leaves 3500 for them and keeps one process's sockets under a 1024 descriptor limit."""
    sse_idle_s: float = 300.0
    """``MATCHLOG_SSE_IDLE_S``: a live-feed connection with nothing to deliver for this long is closed; its
    client reconnects (an EventSource does so by itself, with ``Last-Event-ID``) if it still wants it."""
    moves_ping_s: float = 25.0
    """``MATCHLOG_MOVES_PING_S``: the moves socket pings its client this often, and closes the connection
    (1008) when the last ping went unanswered: a client gone without a word frees its seat's socket."""
    moves_per_address: int = 100
    """``MATCHLOG_MOVES_PER_ADDRESS`` (0: no cap): moves sockets one client address (an IPv6 one: its /64) may
    hold in one API process; the next says 429 ``too_many_sockets`` and closes (1008). Each is a greenlet and a
    slot of gunicorn's 4000 ``worker_connections``, which every other request needs too; a runner playing more
    seats from one address needs more (a match's sockets are all served by its home process)."""
    feed_partitions: int = 64
    """``MATCHLOG_FEED_PARTITIONS``: how many streams the feed is split into (each with its matches in
    one hash slot). The rule workers share them out; changing it moves every match's keys, so run
    ``matchlog migrate`` after a change."""
    partition_lease_ms: int = 10_000
    """``MATCHLOG_PARTITION_LEASE_MS``: a rule worker silent this long loses its feed partitions (and
    their pending notices) to the others."""
    durability: str = "local"
    """``MATCHLOG_DURABILITY``: ``local`` (an append is acknowledged once the match's Redis has it) or
    ``replicated`` (once a replica has it too: ``WAIT``; otherwise the API answers 503)."""
    replica_wait_ms: int = 1000
    """``MATCHLOG_REPLICA_WAIT_MS``: with replicated durability, how long an append waits for a replica."""
    bot_matches_per_address: int = 0
    """``MATCHLOG_BOT_MATCHES_PER_ADDRESS`` (server default 4; 0: no cap): matches whose seats are all bots that
    one client address (an IPv6 one: its /64) may have not over at once, created without a platform key; the
    next is refused (429 ``too_many_bot_matches``). Settings made in code have none."""
    bot_matches_per_platform: int = 0
    """``MATCHLOG_BOT_MATCHES_PER_PLATFORM`` (server default 16; 0: no cap): the same for one platform's key."""
    bot_cpu_per_move_s: float = 0.0
    """``MATCHLOG_BOT_CPU_PER_MOVE_S`` (server default 2; 0: no cap): CPU seconds a bot weighing its moves one
    by one (``greedy``) may spend on one move; past them it plays the random bot's move. A search bot's level
    bounds its own thinking. Settings made in code have none."""
    bot_cpu_per_match_s: float = 0.0
    """``MATCHLOG_BOT_CPU_PER_MATCH_S`` (server default 300; 0: no cap): CPU seconds all the bots of a match of
    bots only may spend in it; after them, they play the random bot's moves to the end (nothing played is
    undone)."""
    rq_redis_url: str | None = None
    """``RQ_REDIS_URL``: a single Redis for the job queue (RQ cannot run on a Redis Cluster); the match
    store's Redis when unset."""
    secret_key: str = field(default_factory=new_secret, repr=False)
    """``MATCHLOG_SECRET_KEY`` (base64url, 32 bytes), else ``<data dir>/server.key``: seals the
    seeds kept beside the logs and signs checkpoints (``service.domain.serverkey``). Settings made in code
    get a fresh one, which only suits a single process."""

    def __post_init__(self) -> None:
        if not 0 < self.replica_wait_ms < 4000:  # inside the 5 s socket timeout, which would retry the append
            raise ValueError(f"MATCHLOG_REPLICA_WAIT_MS is 1 to 3999, not {self.replica_wait_ms}")
        if not 1 <= self.feed_partitions <= 16384:
            raise ValueError(
                f"MATCHLOG_FEED_PARTITIONS is 1 to 16384 (a Redis Cluster's slots), not {self.feed_partitions}"
            )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        return cls(
            redis_url=env.get("REDIS_URL") or None,
            data_dir=Path(env.get("MATCHLOG_DATA", "matchlog-data")),
            namespace=env.get("MATCHLOG_NAMESPACE", "matchlog"),
            snapshot_every=int(env.get("MATCHLOG_SNAPSHOT_EVERY", 16)),
            state_cache_bytes=int(env.get("MATCHLOG_STATE_CACHE_BYTES", 64 * 2**20)),
            max_body_bytes=int(env.get("MATCHLOG_MAX_BODY_BYTES", 64 * 1024)),
            claim_idle_ms=int(env.get("MATCHLOG_CLAIM_IDLE_MS", 30_000)),
            packs_dir=Path(env["MATCHLOG_PACKS"]) if env.get("MATCHLOG_PACKS") else None,
            rate_limit_per_token=_limit(env.get("MATCHLOG_RATE_LIMIT_PER_TOKEN", "50/second;1500/minute")),
            rate_limit_per_address=_limit(env.get("MATCHLOG_RATE_LIMIT_PER_ADDRESS", "500/second")),
            rate_limit_reads_per_address=_limit(
                env.get("MATCHLOG_RATE_LIMIT_READS_PER_ADDRESS", "200/second")
            ),
            trusted_proxies=int(env.get("MATCHLOG_TRUSTED_PROXIES", 0)),
            webhooks_private=env.get("MATCHLOG_WEBHOOKS_PRIVATE", "false").strip().lower()
            in ("true", "1", "yes"),
            webhooks_per_platform=int(env.get("MATCHLOG_WEBHOOKS_PER_PLATFORM", 10)),
            webhook_slots_per_platform=int(env.get("MATCHLOG_WEBHOOK_SLOTS_PER_PLATFORM", 2)),
            webhook_connect_s=float(env.get("MATCHLOG_WEBHOOK_CONNECT_S", 2)),
            webhook_deadline_s=float(env.get("MATCHLOG_WEBHOOK_DEADLINE_S", 5)),
            webhook_disable_after=int(env.get("MATCHLOG_WEBHOOK_DISABLE_AFTER", 5)),
            anonymous_matches=env.get("MATCHLOG_ANONYMOUS_MATCHES", "true").strip().lower()
            not in ("false", "0", "no"),
            sse_heartbeat_s=float(env.get("MATCHLOG_SSE_HEARTBEAT_S", 15)),
            sse_per_address=int(env.get("MATCHLOG_SSE_PER_ADDRESS", 20)),
            sse_per_process=int(env.get("MATCHLOG_SSE_PER_PROCESS", 500)),
            sse_idle_s=float(env.get("MATCHLOG_SSE_IDLE_S", 300)),
            abandon_after_s=float(env.get("MATCHLOG_ABANDON_AFTER_S", 3 * 24 * 3600)),
            cors_origins=tuple(
                o.strip() for o in env.get("MATCHLOG_CORS_ORIGINS", "*").split(",") if o.strip()
            ),
            moves_ping_s=float(env.get("MATCHLOG_MOVES_PING_S", 25)),
            moves_per_address=int(env.get("MATCHLOG_MOVES_PER_ADDRESS", 100)),
            feed_partitions=int(env.get("MATCHLOG_FEED_PARTITIONS", 64)),
            partition_lease_ms=int(env.get("MATCHLOG_PARTITION_LEASE_MS", 10_000)),
            durability=_choice(
                env.get("MATCHLOG_DURABILITY", "local"), ("local", "replicated"), "MATCHLOG_DURABILITY"
            ),
            replica_wait_ms=int(env.get("MATCHLOG_REPLICA_WAIT_MS", 1000)),
            bot_matches_per_address=int(env.get("MATCHLOG_BOT_MATCHES_PER_ADDRESS", 4)),
            bot_matches_per_platform=int(env.get("MATCHLOG_BOT_MATCHES_PER_PLATFORM", 16)),
            bot_cpu_per_move_s=float(env.get("MATCHLOG_BOT_CPU_PER_MOVE_S", 2)),
            bot_cpu_per_match_s=float(env.get("MATCHLOG_BOT_CPU_PER_MATCH_S", 300)),
            rq_redis_url=env.get("RQ_REDIS_URL") or None,
            secret_key=env.get("MATCHLOG_SECRET_KEY")
            or secret_from_file(Path(env.get("MATCHLOG_DATA", "matchlog-data")) / "server.key"),
        )


def _limit(text: str) -> str | None:
    return None if text.strip().lower() in ("", "off", "none") else text.strip()


def _choice(text: str, choices: tuple[str, ...], name: str) -> str:
    value = text.strip().lower()
    if value not in choices:
        raise ValueError(f"{name} is one of {', '.join(choices)}, not {text!r}")
    return value
