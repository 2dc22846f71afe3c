"""Where the analyses of finished matches are kept: one Redis hash beside each match's log
(``Keys.analysis``), with its status, its progress and, once done, its result, written once.

The analysis itself is pure (``service.domain.analysis``) and runs in a worker (``workers.jobs.analyse_match``);
this store is what the API and the job share. A match is analysed once: asking again finds the hash and
enqueues nothing, and a second run of the job (RQ's retry after its worker died) finds the result there
and keeps it. Only a failed analysis may be asked for again.
"""

from __future__ import annotations

import json
from typing import Any

import redis

from service.store.keys import Keys

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"

CLAIM = """
-- KEYS: the analysis hash; ARGV: the time asked, the job's id. A new or failed analysis becomes queued
-- with that job: returns 1
local status = redis.call('HGET', KEYS[1], 'status')
if status and status ~= 'failed' then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'status', 'queued', 'requested_at', ARGV[1], 'job', ARGV[2],
           'done', 0, 'total', 0)
return 1
"""


class Analyses:
    def __init__(self, redis_client: redis.Redis, keys: Keys):
        self.redis = redis_client
        self.keys = keys
        self._claim = redis_client.register_script(CLAIM)

    def claim(self, match_id: str, at: str, job_id: str) -> bool:
        """Mark the match's analysis asked for, by ``job_id``; False when it is already queued, running or
        done (by the job it names)."""
        return bool(self._claim(keys=[self.keys.analysis(match_id)], args=[at, job_id]))

    def ask(self, requester: str, match_id: str, cap: int, now_ms: int, kept_s: int) -> bool:
        """Count the match among ``requester``'s analyses waiting or running (again: still once); False, and
        not counted, when it has ``cap`` of them already. Those done or failed, and those asked more than
        ``kept_s`` seconds ago (lost with their worker, or never claimed), leave it first. Counted after the
        add: racing asks may both be refused, never both let past it."""
        key = self.keys.analyses_asked(requester)
        since = now_ms - kept_s * 1000
        asked = [m.decode() for m in self.redis.zrangebyscore(key, since, "+inf")]
        pipe = self.redis.pipeline(transaction=False)
        for other in asked:
            pipe.hget(self.keys.analysis(other), "status")
        standing = pipe.execute()
        # one not claimed yet (no status) stands: it is being asked for now
        ended = [
            m for m, status in zip(asked, standing, strict=True) if status in (DONE.encode(), FAILED.encode())
        ]
        pipe = self.redis.pipeline(transaction=False)
        pipe.zremrangebyscore(key, "-inf", f"({since}")
        if ended:
            pipe.zrem(key, *ended)
        pipe.zadd(key, {match_id: now_ms})
        pipe.expire(key, kept_s)
        pipe.zcard(key)
        if pipe.execute()[-1] > cap:
            self.redis.zrem(key, match_id)
            return False
        return True

    def progress(self, match_id: str, done: int, total: int) -> None:
        key = self.keys.analysis(match_id)
        if self.redis.hget(key, "status") != DONE.encode():
            self.redis.hset(key, mapping={"status": RUNNING, "done": done, "total": total})

    def finish(self, match_id: str, result: dict[str, Any], at: str) -> None:
        """Keep the result, unless an earlier run of the job kept one (the same: the analysis is pure)."""
        key = self.keys.analysis(match_id)
        if self.redis.hget(key, "status") == DONE.encode():
            return
        total = len(result["moves"])
        self.redis.hset(
            key,
            mapping={
                "status": DONE,
                "done": total,
                "total": total,
                "finished_at": at,
                "result": json.dumps(result, separators=(",", ":"), sort_keys=True),
            },
        )

    def fail(self, match_id: str, error: str) -> None:
        self.redis.hset(self.keys.analysis(match_id), mapping={"status": FAILED, "error": error})

    def status(self, match_id: str) -> str | None:
        """Where the match's analysis stands (``queued``, ``running``, ``done``, ``failed``), or None."""
        status = self.redis.hget(self.keys.analysis(match_id), "status")
        return status.decode() if status else None

    def read(self, match_id: str) -> dict[str, Any] | None:
        """The analysis as the API shows it, or None when nobody asked for it."""
        raw = {k.decode(): v.decode() for k, v in self.redis.hgetall(self.keys.analysis(match_id)).items()}
        if not raw:
            return None
        shown: dict[str, Any] = {
            "match": match_id,
            "status": raw["status"],
            "job_id": raw.get("job"),
            "progress": {"done": int(raw.get("done", 0)), "total": int(raw.get("total", 0))},
            "requested_at": raw.get("requested_at"),
        }
        if "result" in raw:
            shown["finished_at"] = raw.get("finished_at")
            shown["analysis"] = json.loads(raw["result"])
        if "error" in raw:
            shown["error"] = raw["error"]
        return shown
