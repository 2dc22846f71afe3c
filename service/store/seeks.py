"""Seeks as Redis keeps them: each seek a JSON record (``Keys.seek``), and the open ones indexed by arrival
(all of them, and per platform for the listings), by holder (a platform's player, or a client address: its
bound) and by pool, by rating (where an arrival looks for partners). Pairing decisions are the domain's
(``service.domain.pairing.seeks``); the use case (``service.application.seeks``) holds ``pairing`` while it
decides, so one process pairs at a time and a seek meets once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import redis

from service.store.keys import Keys

KEPT_S = 24 * 3600
"""How long a seek's record stays readable (its match, its token for its owner) after it arrived."""

LOCK_S = 30
"""The longest a pairing may hold the lock: a process that dies holding it frees it after this."""


class SeekStore:
    def __init__(self, redis_client: redis.Redis, keys: Keys):
        self.redis = redis_client
        self.keys = keys

    def add(self, seek: dict[str, Any], holder: str, per_holder: int, per_scope: int) -> str | None:
        """File an open seek; None, or (nothing filed) ``"holder"`` or ``"scope"``: the bound it would pass.
        Counted after the add, so two racing arrivals may both be refused, never both let past a bound."""
        seek_id, scope = seek["id"], seek["scope"]
        self._forget_gone(holder)
        pipe = self.redis.pipeline()
        pipe.set(self.keys.seek(seek_id), json.dumps(seek), ex=KEPT_S)
        pipe.zadd(self.keys.open_seeks, {seek_id: seek["created_ms"]})
        pipe.zadd(self.keys.listed_seeks(scope), {seek_id: seek["created_ms"]})
        pipe.zadd(self.keys.held_seeks(holder), {seek_id: seek["created_ms"]})
        pipe.zadd(self.keys.seek_pool(seek["pool"]), {seek_id: seek["rating"]})
        # outlives every record in it (each kept KEPT_S from its add): a pool nobody seeks in goes with its ids
        pipe.expire(self.keys.seek_pool(seek["pool"]), KEPT_S)
        pipe.zcard(self.keys.held_seeks(holder))
        pipe.zcard(self.keys.listed_seeks(scope))
        *_, held, listed = pipe.execute()
        if held <= per_holder and listed > per_scope:  # seeks whose records have gone do not hold it
            listed -= self._forget_gone_listed(scope)
        over = "holder" if held > per_holder else "scope" if listed > per_scope else None
        if over is not None:
            self._unlist(seek, holder)
            self.redis.delete(self.keys.seek(seek_id))
        return over

    def _forget_gone(self, holder: str) -> None:
        """Take out of the holder's open seeks those whose record has gone (kept a day: a seek no tick ever
        expired, the workers stopped), so that they do not hold its bound for ever."""
        gone = self._gone([i.decode() for i in self.redis.zrange(self.keys.held_seeks(holder), 0, -1)])
        if gone:
            self.redis.zrem(self.keys.held_seeks(holder), *gone)
            self.redis.zrem(self.keys.open_seeks, *gone)

    def _forget_gone_listed(self, scope: str) -> int:
        """The same for a platform's (or the anonymous) listing, which its bound counts: how many went."""
        gone = self._gone([i.decode() for i in self.redis.zrange(self.keys.listed_seeks(scope), 0, -1)])
        if gone:
            self.redis.zrem(self.keys.listed_seeks(scope), *gone)
            self.redis.zrem(self.keys.open_seeks, *gone)
        return len(gone)

    def _gone(self, seek_ids: list[str]) -> list[str]:
        """Those of ``seek_ids`` whose record has gone."""
        if not seek_ids:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for seek_id in seek_ids:
            pipe.exists(self.keys.seek(seek_id))
        return [seek_id for seek_id, there in zip(seek_ids, pipe.execute(), strict=True) if not there]

    def get(self, seek_id: str) -> dict[str, Any] | None:
        raw = self.redis.get(self.keys.seek(seek_id))
        return None if raw is None else json.loads(raw)

    def _kept(self, seek_ids: list[str], index: str) -> list[dict[str, Any]]:
        """The records of ``seek_ids`` still kept, in their order, read a thousand at a time; the ids of those
        gone (kept a day, never closed: no tick ran) leave ``index``, where they were found."""
        found: list[dict[str, Any]] = []
        gone: list[str] = []
        for at in range(0, len(seek_ids), 1000):
            chunk = seek_ids[at : at + 1000]
            for seek_id, raw in zip(chunk, self.redis.mget([self.keys.seek(i) for i in chunk]), strict=True):
                if raw is None:
                    gone.append(seek_id)
                else:
                    found.append(json.loads(raw))
        if gone:
            self.redis.zrem(index, *gone)
        return found

    def open_records(self) -> list[dict[str, Any]]:
        """Every open seek, oldest first (as many as the bounds let be open)."""
        ids = [i.decode() for i in self.redis.zrange(self.keys.open_seeks, 0, -1)]
        return self._kept(ids, self.keys.open_seeks)

    def in_pool(self, pool: str, low: float, high: float) -> list[dict[str, Any]]:
        """The open seeks of ``pool`` rated from ``low`` to ``high``."""
        ids = self.redis.zrangebyscore(self.keys.seek_pool(pool), low, high)
        return self._kept([i.decode() for i in ids], self.keys.seek_pool(pool))

    def listed(self, scope: str, after: tuple[int, str] | None, limit: int) -> list[dict[str, Any]]:
        """A page of ``scope``'s open seeks, oldest first, after ``(created_ms, id)``."""
        low = after[0] if after else "-inf"
        page: list[dict[str, Any]] = []
        offset = 0
        while len(page) < limit:
            ids = self.redis.zrangebyscore(
                self.keys.listed_seeks(scope), low, "+inf", start=offset, num=limit + 1, withscores=True
            )
            if not ids:
                break
            offset += len(ids)
            wanted = [i.decode() for i, at in ids if after is None or (int(at), i.decode()) > after]
            page += self._kept(wanted, self.keys.listed_seeks(scope))
        return page[:limit]

    def close(self, seek: dict[str, Any], holder: str) -> None:
        """Keep ``seek`` as it now stands (paired, cancelled, expired), out of every index of open seeks."""
        self.redis.set(self.keys.seek(seek["id"]), json.dumps(seek), keepttl=True)
        self._unlist(seek, holder)

    def _unlist(self, seek: dict[str, Any], holder: str) -> None:
        seek_id = seek["id"]
        pipe = self.redis.pipeline()
        pipe.zrem(self.keys.open_seeks, seek_id)
        pipe.zrem(self.keys.listed_seeks(seek["scope"]), seek_id)
        pipe.zrem(self.keys.held_seeks(holder), seek_id)
        pipe.zrem(self.keys.seek_pool(seek["pool"]), seek_id)
        pipe.execute()

    @contextmanager
    def pairing(self, wait_s: float) -> Iterator[bool]:
        """The pairing lock, waited for up to ``wait_s`` seconds: True while held, False if not got."""
        lock = self.redis.lock(self.keys.seeks_pairing, timeout=LOCK_S, blocking_timeout=wait_s)
        got = lock.acquire(blocking=wait_s > 0)
        try:
            yield bool(got)
        finally:
            if got:
                # held past LOCK_S and taken by another: theirs now
                with suppress(redis.exceptions.LockError):
                    lock.release()
