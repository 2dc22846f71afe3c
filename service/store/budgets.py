"""The budgets of bots' work, a store that owns its keys: how many matches of bots only a tenant may have not
over at once, and how much CPU the bots of one such match have spent.

A match whose seats still in play are all bots costs the workers CPU with nobody waiting on it. Its tenant
(the platform whose key created it, or the address of the anonymous client that did) has a list of such
matches, in the order Redis took their places. A match takes its place when it is created of bots only, or
when a handover (a clock timing a seat out to a bot, a seat replaced by a bot, a concession) leaves only bots
in it (at its bots' next move, should the process that appended the handover stop first); it keeps the same
place however often it asks. The places that stand are the first ``cap`` of matches not over: a create past
them is refused, and a handover past them leaves its bots the cheapest move to the end (``BotBudget.thought``).
A match leaves the list when a later place is counted and finds it over: the abandonment watch
(``Keys.activity``) no longer holds it.
"""

from __future__ import annotations

import time

import redis

from service.store.keys import Keys

BOT_MATCHES_KEPT_S = 7 * 24 * 3600
"""A tenant's list of its bot-only matches, and a match's standing and CPU in it, go after a week untouched
(they end long before)."""

COUNTED_AT_ONCE = 64
"""How many places past the cap one read of a tenant's list looks at: a count past a long list of matches that
ended reads it in steps, each one snapshot, rather than all of it (or one place at a time)."""

_PLACE = """
-- KEYS: the tenant's list. ARGV: the match id, the list's lifetime (s). The match's place (from 0): the one it
-- holds, or a new one at the end.
local at = redis.call('LPOS', KEYS[1], ARGV[1])
if not at then at = redis.call('RPUSH', KEYS[1], ARGV[1]) - 1 end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return at
"""


def tenant(platform: str | None, address: str | None) -> str | None:
    """Whose budget a match counts in: its platform's, else its anonymous creator's address's (as
    ``addresses.counted_address`` gives it); None for neither (an anonymous match created before addresses
    were kept)."""
    if platform:
        return f"platform:{platform}"
    return f"address:{address}" if address else None


class BotBudgets:
    def __init__(self, redis_client: redis.Redis, keys: Keys):
        self.redis = redis_client
        self.keys = keys
        self._place = redis_client.register_script(_PLACE)

    def place(self, tenant: str, match_id: str, cap: int) -> bool:
        """Take the match's place in ``tenant``'s budget (the one it holds, if it has one) and record whether
        it stands: fewer than ``cap`` of the places before it are of matches not over. The place is taken
        before the earlier ones are counted, so matches placed at once cannot all pass a count none of them is
        in yet; the earliest places stand."""
        key = self.keys.bot_matches(tenant)
        # watched from its place on (the watch's absence is what says a placed match is over), and watched
        # before it is placed, so that no place is seen without its watch; a match already watched keeps its
        # time there. (Two calls: a cluster's pipeline does not load a script it lacks.)
        self.redis.zadd(self.keys.activity, {match_id: time.time() * 1000}, nx=True)
        at = int(self._place(keys=[key], args=[match_id, BOT_MATCHES_KEPT_S]))
        # only a tenant at its cap pays for finding which of the earlier ones have ended
        stands = at < cap or self._running_before(key, match_id, cap) < cap
        self.redis.set(self.keys.bot_standing(match_id), b"1" if stands else b"0", ex=BOT_MATCHES_KEPT_S)
        return stands

    def _running_before(self, key: str, match_id: str, cap: int) -> int:
        """How many matches not over hold places before ``match_id``'s, counted until ``cap``; the places of
        the matches found over are let go. Each read is one snapshot of the list's head, so places let go by
        another count meanwhile move nothing under this one."""
        while True:
            head = [
                m.decode() if isinstance(m, bytes) else m
                for m in self.redis.lrange(key, 0, cap + COUNTED_AT_ONCE - 1)
            ]
            earlier = head[: head.index(match_id)] if match_id in head else head
            with self.redis.pipeline(transaction=False) as pipe:
                for member in earlier:
                    pipe.zscore(self.keys.activity, member)  # a match leaves the watch when it ends
                over = {m for m, score in zip(earlier, pipe.execute()) if score is None}
            if over:
                with self.redis.pipeline(transaction=False) as pipe:
                    for member in over:
                        pipe.lrem(key, 0, member)
                    pipe.execute()
            running = sum(member not in over for member in earlier)
            if running >= cap or match_id in head or len(head) < cap + COUNTED_AT_ONCE:
                # counted up to the cap, or up to its own place (gone: found over by another count)
                return running
            # a head of the list with fewer than cap matches not over in it: those found over are gone now

    def unplace(self, tenant: str, match_id: str) -> None:
        """Take a match that will not run (a create refused or failed, or played to its end by its record) out
        of ``tenant``'s budget and the watch."""
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.lrem(self.keys.bot_matches(tenant), 0, match_id)
            pipe.zrem(self.keys.activity, match_id)
            pipe.delete(self.keys.bot_standing(match_id))
            pipe.execute()

    def of_match(self, match_id: str) -> tuple[float, bool | None]:
        """The CPU seconds the match's bots have thought for, and whether its place in its tenant's budget
        stands (None: it has taken none)."""
        spent, standing = self.redis.mget([self.keys.bot_cpu(match_id), self.keys.bot_standing(match_id)])
        return float(spent or 0), None if standing is None else standing == b"1"

    def spend(self, match_id: str, seconds: float) -> None:
        """Count ``seconds`` more of CPU thought by the match's bots."""
        key = self.keys.bot_cpu(match_id)
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.incrbyfloat(key, seconds)
            pipe.expire(key, BOT_MATCHES_KEPT_S)
            pipe.execute()
