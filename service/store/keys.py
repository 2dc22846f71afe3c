"""Redis key names, in one place. Every structure asks here for its keys; nothing else spells one.

All keys of a deployment start with its namespace (``MATCHLOG_NAMESPACE``), so several deployments
or test runs share one Redis without seeing each other.

Every key of a match carries one hash tag, its feed partition's: ``<namespace>:{<tag>}:match:<id>:``.
A match belongs to partition ``crc32(id) mod P`` (``MATCHLOG_FEED_PARTITIONS``), and the feed stream
that announces its appends is ``<namespace>:{<tag>}:feed``, so on a Redis Cluster the log, meta,
snapshots, idempotency answers and that feed stream share one hash slot and the append stays one
atomic script. Each partition's tag is chosen so that its slot falls in the partition's own slice of
the 16384 slots: partitions (and with them matches) spread evenly over masters that own equal slot
ranges. On one Redis the tags change nothing.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from functools import lru_cache

from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot

DEFAULT_PARTITIONS = 64

LOG, SUMMARY = "log", "summary"
"""The parts of a match's keys (``Keys.match_key``) that name its log and its listing summary."""


@lru_cache(maxsize=8)
def partition_tags(partitions: int) -> tuple[str, ...]:
    """One hash tag per partition, the first of ``p0, p1, ...`` whose slot lands in the partition's
    slice of the slot space (a few hundred CRC16s for 64 partitions)."""
    if not 1 <= partitions <= REDIS_CLUSTER_HASH_SLOTS:
        raise ValueError(f"the feed has 1 to {REDIS_CLUSTER_HASH_SLOTS} partitions, not {partitions}")
    tags: list[str | None] = [None] * partitions
    missing, n = partitions, 0
    while missing:
        candidate = f"p{n}"
        part = key_slot(candidate.encode()) * partitions // REDIS_CLUSTER_HASH_SLOTS
        if tags[part] is None:
            tags[part] = candidate
            missing -= 1
        n += 1
    return tuple(tag for tag in tags if tag is not None)  # all of them: the loop ends when none is missing


@lru_cache(maxsize=8)
def _by_tag(partitions: int) -> dict[str, int]:
    return {tag: p for p, tag in enumerate(partition_tags(partitions))}


@dataclass(frozen=True)
class Keys:
    namespace: str = "matchlog"
    partitions: int = DEFAULT_PARTITIONS
    _tags: tuple[str, ...] = field(default=(), init=False, repr=False, compare=False)
    _stem_starts: tuple[bytes, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_tags", partition_tags(self.partitions))
        object.__setattr__(
            self, "_stem_starts", tuple(f"{self.namespace}:{{{tag}}}:match:".encode() for tag in self._tags)
        )

    def partition(self, match_id: str) -> int:
        """The feed partition of a match: fixed by its id and the number of partitions."""
        return zlib.crc32(match_id.encode()) % self.partitions

    def match_key(self, match_id: str, part: str) -> str:
        """Any key of a match, by its part (``log``, ``meta``...): under the match's partition tag."""
        return f"{self.namespace}:{{{self._tags[self.partition(match_id)]}}}:match:{match_id}:{part}"

    def stems(self, match_ids: list[bytes]) -> list[bytes]:
        """Each match's ``match_key`` less its part, in bytes, from its id as a sorted set replies it: a page
        of many matches names their keys from these without a call per key and match."""
        starts, partitions = self._stem_starts, self.partitions
        return [starts[zlib.crc32(match_id) % partitions] + match_id + b":" for match_id in match_ids]

    def match_id_of(self, key: str) -> tuple[str, str] | None:
        """``(match id, part)`` of a match's key in either layout, else None."""
        rest = key[len(self.namespace) + 1 :] if key.startswith(self.namespace + ":") else ""
        if rest.startswith("{"):
            rest = rest.partition("}:")[2]
        head, _, tail = rest.partition(":")
        if head != "match" or ":" not in tail:
            return None
        match_id, _, part = tail.partition(":")
        return match_id, part

    def tournaments(self) -> TournamentKeys:
        """The keys of tournaments' logs: a match's layout under ``tournament:`` (``TournamentKeys``)."""
        return TournamentKeys(self.namespace, self.partitions)

    def match_tournament(self, match_id: str) -> str:
        """The tournament a match was created for: its result goes into that tournament's log."""
        return self.match_key(match_id, "tournament")

    def platform_tournaments(self, platform_id: str) -> str:
        """The tournaments a platform created, scored by creation time (ms): its list and its day's bound."""
        return f"{self.namespace}:platform:{platform_id}:tournaments"

    def log(self, match_id: str) -> str:
        """The match's event stream: the truth."""
        return self.match_key(match_id, LOG)

    def meta(self, match_id: str) -> str:
        """What is fixed at creation and kept out of the log: the seed and the seat token hashes."""
        return self.match_key(match_id, "meta")

    def snapshots(self, match_id: str) -> str:
        """A hash of derived states by version: a cache of the fold."""
        return self.match_key(match_id, "snapshots")

    def summary(self, match_id: str) -> str:
        """The match's row as listings show it (``views.listing_summary``), written by each append."""
        return self.match_key(match_id, SUMMARY)

    def analysis(self, match_id: str) -> str:
        """The analysis of a finished match (``service.store.analyses``): its status, progress and result."""
        return self.match_key(match_id, "analysis")

    def idempotency(self, match_id: str, seat: int | str, key: str) -> str:
        """The first answer to a request sent with this ``Idempotency-Key``."""
        return self.match_key(match_id, f"idempotency:{seat}:{key}")

    def scoped_idempotency(self, match_id: str | None, endpoint: str, caller: str, key_digest: str) -> str:
        """The first answer to a request of ``endpoint`` by ``caller`` with an ``Idempotency-Key`` (by its
        digest): beside the match's log when there is a match (the append remembers it atomically)."""
        part = f"idempotency:{endpoint}:{caller}:{key_digest}"
        return self.match_key(match_id, part) if match_id else f"{self.namespace}:{part}"

    @property
    def activity(self) -> str:
        """Matches not over, scored by the time of their last append (ms): where abandonment looks."""
        return f"{self.namespace}:activity"

    def unused(self, match_id: str) -> str:
        """A key no one writes, standing in for an absent optional key of a script."""
        return self.match_key(match_id, "none")

    def pack(self, digest: str) -> str:
        """A content pack, by the SHA-256 of its canonical JSON: stored once for all its matches."""
        return f"{self.namespace}:pack:{digest}"

    @property
    def platforms(self) -> str:
        """Platform keys: SHA-256 of the key -> the platform (id, name)."""
        return f"{self.namespace}:platforms"

    def platform_matches(self, platform_id: str) -> str:
        """The matches a platform created, scored by creation time (ms)."""
        return f"{self.namespace}:platform:{platform_id}:matches"

    def player_matches(self, platform_id: str, status: str, player: str) -> str:
        """The matches whose seats a platform's player holds, ``active`` (not over) or ``finished`` (over):
        ``<match id>:<seat>``, scored by when the seat was taken, or when the match ended (ms)."""
        return f"{self.namespace}:platform:{platform_id}:player-matches:{status}:{player}"

    @property
    def server_key(self) -> str:
        """The fingerprint of the server key every API and worker process of the deployment uses."""
        return f"{self.namespace}:server-key"

    def webhook(self, hook_id: str) -> str:
        """A webhook: its platform, URL, entry types and sealed secret."""
        return f"{self.namespace}:webhook:{hook_id}"

    def webhook_deliveries(self, hook_id: str) -> str:
        """Before 0.x: the latest delivery attempts of a webhook as a list (the last 100); deleted with the hook."""
        return f"{self.namespace}:webhook:{hook_id}:deliveries"

    def webhook_attempts(self, hook_id: str) -> str:
        """A webhook's delivery attempts: a stream, capped (``webhooks.KEPT_ATTEMPTS``), paged newest first."""
        return f"{self.namespace}:webhook:{hook_id}:attempts"

    def webhook_order(self, hook_id: str, match_id: str) -> str:
        """For one webhook and one match: the version of the latest delivery enqueued (``last``) and, for each
        delivery, the version of the one before it (``v<version>``): its ``previous_version``. Under the
        match's tag, with its partition's ``feed_fence``, which the script that writes it checks."""
        return self.match_key(match_id, f"webhook-order:{hook_id}")

    def legacy_webhook_order(self, hook_id: str, match_id: str) -> str:
        """``webhook_order`` as releases before the fencing tokens kept it (no tag), read while it lasts."""
        return f"{self.namespace}:webhook:{hook_id}:order:{match_id}"

    def webhook_slots(self, platform_id: str) -> str:
        """A platform's delivery slots taken: a sorted set of holders by the end of their lease (ms)."""
        return f"{self.namespace}:platform:{platform_id}:webhook-slots"

    def webhook_body(self, digest: str) -> str:
        """A delivery body (or the part the deliveries of one append share) by its SHA-256, kept once however
        many webhooks get it."""
        return f"{self.namespace}:webhook-body:{digest}"

    def platform_webhooks(self, platform_id: str) -> str:
        return f"{self.namespace}:platform:{platform_id}:webhooks"

    @property
    def public_matches(self) -> str:
        """Matches anyone may find (``public``), scored by creation time (ms): the newest 10,000."""
        return f"{self.namespace}:public"

    @property
    def open_matches(self) -> str:
        """The lobby: matches with a seat still open, scored by creation time (ms)."""
        return f"{self.namespace}:open"

    def listing(self, index: str, game_id: str | None, status: str | None) -> str:
        """``index`` (the public matches, or a platform's) narrowed to one game, one status or both, scored
        as ``index`` is, so that a listing reads only the matches it shows. The public open ones are the lobby."""
        if index == self.public_matches and status == "open" and not game_id:
            return self.open_matches
        if not game_id and not status:
            return index
        return f"{index}:{game_id or '*'}:{status or '*'}"

    def feed(self, partition: int) -> str:
        """A partition of the feed: the notices of appends to its matches, which the rule workers follow."""
        return f"{self.namespace}:{{{self._tags[partition]}}}:feed"

    def partition_of_feed(self, feed: str) -> int:
        """The partition number of a feed stream's key."""
        return _by_tag(self.partitions)[feed.partition("{")[2].partition("}")[0]]

    @property
    def layout(self) -> str:
        """The number of feed partitions this deployment's match keys are tagged for (``migrate``)."""
        return f"{self.namespace}:layout"

    @property
    def legacy_feed(self) -> str:
        """The single feed stream of the layout before partitions."""
        return f"{self.namespace}:feed"

    @property
    def feed_members(self) -> str:
        """The rule workers alive, scored by their last heartbeat (ms): who shares the partitions."""
        return f"{self.namespace}:{{feed}}:members"

    @property
    def feed_owners(self) -> str:
        """Partition -> ``<worker>|<lease expiry, ms>``: each partition read by one live worker at a time."""
        return f"{self.namespace}:{{feed}}:owners"

    @property
    def feed_tokens(self) -> str:
        """Partition -> the fencing token of its latest lease: one more each time a worker takes the lease."""
        return f"{self.namespace}:{{feed}}:tokens"

    def feed_fence(self, partition: int) -> str:
        """The newest fencing token a rule worker has shown for a partition, under the partition's tag: the
        writes of its notices' work refuse an older one (``service.store.fences``)."""
        return f"{self.namespace}:{{{self._tags[partition]}}}:feed:fence"

    @property
    def queue(self) -> str:
        """The one RQ queue of releases before the queues by kind: still drained (``JobQueue.queues``)."""
        return self.namespace

    def job_queue(self, kind: str) -> str:
        """The RQ queue of one kind of background work (``service.store.jobqueue.KINDS``); RQ derives its keys
        from it."""
        return f"{self.namespace}:jobs:{kind}"

    def bot_matches(self, tenant: str) -> str:
        """A tenant's matches of bots only, in the order their places reached Redis: its budget of them
        (``service.store.budgets``)."""
        return f"{self.namespace}:bot-matches:{tenant}"

    def analyses_asked(self, requester: str) -> str:
        """The analyses a platform or an anonymous client address asked for, by when: its bound of those
        waiting or running (``service.store.analyses``)."""
        return f"{self.namespace}:analyses-asked:{requester}"

    def bot_standing(self, match_id: str) -> str:
        """Whether the match's place in its tenant's budget of bot-only matches stands (``1``) or is past it
        (``0``: its bots play the cheapest move); absent while it has no place."""
        return self.match_key(match_id, "bot-budget")

    def bot_cpu(self, match_id: str) -> str:
        """The CPU seconds the match's bots have thought for (its budget, ``MATCHLOG_BOT_CPU_PER_MATCH_S``)."""
        return self.match_key(match_id, "bot-cpu")

    @property
    def stranded_jobs(self) -> str:
        """Jobs seen in RQ's intermediate list without starting, and when first (``JobQueue.clean_registries``)."""
        return f"{self.namespace}:jobs:stranded"

    # -- players meet (service.store.seeks, service.store.challenges) -------------------------------------------

    def seek(self, seek_id: str) -> str:
        """A seek: what it asks for, its status and, once paired, its match and its seat's sealed token."""
        return f"{self.namespace}:seek:{seek_id}"

    @property
    def open_seeks(self) -> str:
        """Every open seek, scored by when it arrived (ms): what a pairing tick looks at."""
        return f"{self.namespace}:seeks:open"

    def listed_seeks(self, scope: str) -> str:
        """The open seeks of a platform (its id) or the anonymous ones (``-``), by arrival (ms)."""
        return f"{self.namespace}:seeks:listed:{scope}"

    def held_seeks(self, holder: str) -> str:
        """The open seeks of one player of a platform, or of one client address: its bound."""
        return f"{self.namespace}:seeks:held:{holder}"

    def seek_pool(self, pool: str) -> str:
        """The open seeks that may meet (same tenant, game, options, count, clock, rated), by rating."""
        return f"{self.namespace}:seeks:pool:{pool}"

    @property
    def seeks_pairing(self) -> str:
        """The lock a pairing holds: one process pairs at a time, so no seek meets twice."""
        return f"{self.namespace}:seeks:pairing"

    def challenge(self, challenge_id: str) -> str:
        """A challenge: who asked whom, the match's settings, who accepted, and the match once it starts."""
        return f"{self.namespace}:challenge:{challenge_id}"

    def player_challenges(self, platform: str, player: str) -> str:
        """The challenges from or to a platform's player, open or not, scored by when they were made (ms)."""
        return f"{self.namespace}:platform:{platform}:challenges:{player}"

    def challenges_made(self, platform: str, player: str) -> str:
        """The challenges a platform's player made in the last day, by when (ms): its bound."""
        return f"{self.namespace}:platform:{platform}:challenges-made:{player}"

    def rematch(self, match_id: str) -> str:
        """The rematch a finished match offers: the seats that accepted, and the new match once it starts."""
        return self.match_key(match_id, "rematch")

    @staticmethod
    def lock(key: str) -> str:
        """The lock held while the record at ``key`` (a challenge, a rematch) changes."""
        return f"{key}:lock"

    # -- ratings (service.store.players): a platform's under one hash tag, so a match is rated by one script ------

    def _rating(self, platform: str, *parts: str) -> str:
        return ":".join([f"{self.namespace}:{{rt:{platform}}}", *parts])

    def rating_pools(self, platform: str) -> str:
        """The platform's pools that have rated matches."""
        return self._rating(platform, "pools")

    def rating_applied(self, platform: str, pool: str) -> str:
        """match id -> the scored version it was rated at."""
        return self._rating(platform, "pool", pool, "applied")

    def rating_seq(self, platform: str, pool: str) -> str:
        return self._rating(platform, "pool", pool, "seq")

    def ratings(self, platform: str, pool: str) -> str:
        return self._rating(platform, "pool", pool, "ratings")

    def rating_board(self, platform: str, pool: str) -> str:
        return self._rating(platform, "pool", pool, "board")

    def rating_queue(self, platform: str, pool: str) -> str:
        """Scored matches waiting to be rated, by the time they ended (then by id)."""
        return self._rating(platform, "pool", pool, "queue")

    def rating_pending(self, platform: str, pool: str) -> str:
        """match id -> the RatedMatch waiting in the queue."""
        return self._rating(platform, "pool", pool, "pending")

    def rating_record(self, platform: str, pool: str, player: str) -> str:
        return self._rating(platform, "pool", pool, "player", player, "record")

    def rating_player_matches(self, platform: str, pool: str, player: str) -> str:
        return self._rating(platform, "pool", pool, "player", player, "matches")

    def rating_player_pools(self, platform: str, player: str) -> str:
        return self._rating(platform, "player", player, "pools")

    def rated_matches(self, platform: str, pool: str) -> str:
        """match id -> the RatedMatch with every seat's rating after it (a player's match list shows them)."""
        return self._rating(platform, "pool", pool, "matches")


@dataclass(frozen=True)
class TournamentKeys(Keys):
    """A tournament's keys, in a match's layout (``<namespace>:{<tag>}:tournament:<id>:<part>``), so that the
    event store appends to a tournament's log as to a match's, with the same script and hash chain. Its appends
    are announced on a feed of their own, which no rule worker follows (a tournament has no rules to run)."""

    def match_key(self, match_id: str, part: str) -> str:
        return f"{self.namespace}:{{{self._tags[self.partition(match_id)]}}}:tournament:{match_id}:{part}"

    def feed(self, partition: int) -> str:
        """The announcements of a partition's tournaments' appends, trimmed by each append's writer."""
        return f"{self.namespace}:{{{self._tags[partition]}}}:tournament-feed"

    def tokens(self, tournament_id: str) -> str:
        """A hash of each round's matches' seat tokens, sealed (``round:<n>``): what the platform hands out."""
        return self.match_key(tournament_id, "tokens")

    def changing(self, tournament_id: str) -> str:
        """The lock held while a round is started or a result recorded: one writer at a time."""
        return self.match_key(tournament_id, "lock")
