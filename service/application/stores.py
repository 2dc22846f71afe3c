"""The stores a process keeps its matches in, made once from a Redis client and the settings: the use cases
(``service.application``) take what they need from here, and a caller that only reads or writes a store (a
webhook's registration, a platform's key, the job queues) uses that store itself. The match commands
(``Matches``) hang what follows every append (listings, the abandonment watch, bot budgets, a rating pool's
place for a game that ended) on the repository: a process that appends makes its ``Matches`` first."""

from __future__ import annotations

from dataclasses import dataclass

from service.config import Settings
from service.domain.serverkey import ServerKey
from service.store.activity import AbandonmentWatch
from service.store.analyses import Analyses
from service.store.budgets import BotBudgets
from service.store.jobqueue import JobQueue
from service.store.keys import Keys
from service.store.listings import Listings
from service.store.platforms import Platforms
from service.store.player_matches import PlayerMatches
from service.store.players import PlayerStore
from service.store.redis_client import Client, for_jobs
from service.store.repository import MatchRepository
from service.store.webhooks import Webhooks


@dataclass(frozen=True)
class Stores:
    settings: Settings
    """The configuration they were made with (a value: read it, it changes nothing)."""
    keys: Keys
    server_key: ServerKey
    repository: MatchRepository
    jobs: JobQueue
    platforms: Platforms
    listings: Listings
    webhooks: Webhooks
    analyses: Analyses
    """Of finished matches (``service.store.analyses``)."""
    budgets: BotBudgets
    """Of bot-only matches, by tenant."""
    watch: AbandonmentWatch
    player_matches: PlayerMatches
    """Each platform's players' seats, in matches not over and over."""
    players: PlayerStore
    """The ratings of each platform's players, and each rating pool's queue."""

    @classmethod
    def connect(
        cls,
        redis_client: Client,
        settings: Settings | None = None,
        cache_size: int = 2048,
        jobs_redis: Client | None = None,
    ) -> Stores:
        """``jobs_redis``: the job queue's Redis (by default ``RQ_REDIS_URL``'s, else the match store's)."""
        settings = settings or Settings()
        keys = Keys(settings.namespace, settings.feed_partitions)
        server_key = ServerKey(settings.secret_key)
        repository = MatchRepository(
            redis_client,
            keys,
            settings.snapshot_every,
            server_key,
            cache_size,
            settings.durability,
            settings.replica_wait_ms,
            settings.state_cache_bytes,
        )
        return cls(
            settings,
            keys,
            server_key,
            repository,
            JobQueue(jobs_redis or for_jobs(settings.rq_redis_url, redis_client), keys),
            Platforms(redis_client, keys),
            Listings(redis_client, keys, lambda match_id: repository.load(match_id)),
            Webhooks(
                redis_client,
                keys,
                server_key,
                repository.durably,
                settings.webhooks_per_platform,
                settings.webhook_disable_after,
            ),
            Analyses(redis_client, keys),
            BotBudgets(redis_client, keys),
            AbandonmentWatch(redis_client, keys),
            PlayerMatches(redis_client, keys),
            PlayerStore(redis_client, settings.namespace, repository.durably),
        )
