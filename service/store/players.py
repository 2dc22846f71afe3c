"""The ratings projection's store: per platform and pool, the queue of scored matches waiting to be
rated, the ratings, the leaderboard, and each player's record; the rules are in ``service.domain.ratings``.

Every key of a platform carries one hash tag (``{rt:<platform>}``), so one Lua script applies a match
atomically on a Redis Cluster too: the match is marked applied (by id, with its scored version), the
pool's sequence moves on, and every rating, leaderboard score and record of its players changes, or
nothing does. The script refuses a match already applied (a job run twice, or retried) and a
computation made on ratings that have moved on meanwhile (two workers rating one pool: the later one
reads again), so each match counts exactly once, on the ratings left by the matches that ended before it.

The writes of the live projection (a place held, a match queued, released or applied) are made as durably as
an append (``durably``): with replicated durability, one lost in a failover after its job had finished left
a pool's queue stopped at a match held and never rated, or a match counted by nobody.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import redis

from service.domain.ratings import RatedMatch, Rating, rate
from service.store.keys import Keys
from service.store.repository import MatchRepository

APPLY = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('ZREM', KEYS[5], ARGV[1])
  redis.call('HDEL', KEYS[6], ARGV[1])
  return 0
end
if tonumber(redis.call('GET', KEYS[2]) or '0') ~= tonumber(ARGV[3]) then return -1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('INCR', KEYS[2])
redis.call('ZREM', KEYS[5], ARGV[1])
redis.call('HDEL', KEYS[6], ARGV[1])
redis.call('SADD', KEYS[7], ARGV[4])
redis.call('HSET', KEYS[8], ARGV[1], ARGV[6])
local n = tonumber(ARGV[5])
for i = 0, n - 1 do
  local a, k = 7 + i * 7, 9 + i * 3
  local player, rating, conservative = ARGV[a], ARGV[a + 1], ARGV[a + 2]
  local rank, seat, win, ended = tonumber(ARGV[a + 3]), ARGV[a + 4], tonumber(ARGV[a + 5]), ARGV[a + 6]
  redis.call('HSET', KEYS[3], player, rating)
  redis.call('ZADD', KEYS[4], conservative, player)
  redis.call('HINCRBY', KEYS[k], 'games', 1)
  redis.call('HINCRBY', KEYS[k], 'wins', win)
  redis.call('HINCRBY', KEYS[k], 'rank_sum', rank)
  redis.call('HINCRBY', KEYS[k], 'seat:' .. seat .. ':games', 1)
  redis.call('HINCRBY', KEYS[k], 'seat:' .. seat .. ':wins', win)
  redis.call('ZADD', KEYS[k + 1], ended, ARGV[1])
  redis.call('SADD', KEYS[k + 2], ARGV[4])
end
return 1
"""


HOLD = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 or redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return 0 end
redis.call('ZADD', KEYS[2], 'NX', ARGV[2], ARGV[1])
return 1
"""

ENQUEUE = """
-- KEYS: pending, queue. ARGV: match, its RatedMatch JSON, ended ms. Again: nothing changes.
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
"""
"""The place is the scored log's end: a place held with another (a rule worker read a game's end from a
master that lost it in a failover, and the retry ended the game later) is moved to it."""

RELEASE = """
-- KEYS: applied, queue, pending. ARGV: match, why it is not rated.
redis.call('HSETNX', KEYS[1], ARGV[1], 'not rated: ' .. ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
"""


def _rating_text(rating: Rating) -> str:
    return json.dumps([rating.mu, rating.sigma, rating.games])  # repr floats: read back exactly


def _rating(text: bytes | str | None) -> Rating | None:
    return None if text is None else _rating_of(text)


def _rating_of(text: bytes | str) -> Rating:
    mu, sigma, games = json.loads(text)
    return Rating(mu, sigma, games)


class PlayerStore:
    def __init__(
        self,
        redis_client: redis.Redis,
        namespace: str,
        durably: Callable[[str, Callable[[redis.Redis], Any]], Any] | None = None,
    ):
        """``durably(key, write)``: how the live projection's writes are made (the event store's: with
        replicated durability it waits for a replica); by default, plainly."""
        self.redis = redis_client
        self.namespace = namespace
        self.keys = Keys(namespace)
        self.durably = durably or (lambda key, write: write(redis_client))
        self._apply = redis_client.register_script(APPLY)
        self._hold = redis_client.register_script(HOLD)
        self._enqueue = redis_client.register_script(ENQUEUE)
        self._release = redis_client.register_script(RELEASE)

    # -- the live projection ---------------------------------------------------------------------

    def hold(self, platform: str, pool: str, match_id: str, ended_ms: int) -> bool:
        """A game of the pool has ended and is not scored yet: its place in the queue is kept, and the
        matches that ended after it wait (``process`` stops there) until it is rated or released.
        Nothing for a match already queued with its result, rated or released."""
        keys = [
            self.keys.rating_applied(platform, pool),
            self.keys.rating_queue(platform, pool),
            self.keys.rating_pending(platform, pool),
        ]
        return bool(
            self.durably(
                keys[1], lambda client: self._hold(keys=keys, args=[match_id, ended_ms], client=client)
            )
        )

    def release(self, platform: str, pool: str, match_id: str, why: str) -> None:
        """A scored match that is not rated (aborted...): out of the queue for good, so the matches after
        it go on."""
        keys = [
            self.keys.rating_applied(platform, pool),
            self.keys.rating_queue(platform, pool),
            self.keys.rating_pending(platform, pool),
        ]
        self.durably(keys[1], lambda client: self._release(keys=keys, args=[match_id, why], client=client))

    def enqueue(self, platform: str, match: RatedMatch) -> None:
        """Put a scored match in its pool's queue, at the place its log's end gives it (again: nothing
        changes)."""
        keys = [self.keys.rating_pending(platform, match.pool), self.keys.rating_queue(platform, match.pool)]
        args = [match.match_id, json.dumps(match.to_json()), match.ended_ms]
        self.durably(keys[1], lambda client: self._enqueue(keys=keys, args=args, client=client))

    def process(self, platform: str, pool: str, limit: int = 10_000) -> list[tuple[RatedMatch, dict, dict]]:
        """Rate the pool's queued matches in order; returns each match applied here with the ratings
        before and after (what a ``rating_changed`` says). Safe to run anywhere, any number of times."""
        done = []
        for _ in range(limit):
            head = self.redis.zrange(self.keys.rating_queue(platform, pool), 0, 0)
            if not head:
                break
            match_id = head[0].decode()
            text = self.redis.hget(self.keys.rating_pending(platform, pool), match_id)
            if text is None:
                if self.redis.hexists(
                    self.keys.rating_applied(platform, pool), match_id
                ):  # another worker's, meanwhile
                    self.redis.zrem(self.keys.rating_queue(platform, pool), match_id)
                    continue
                break  # held: a game that ended before the rest, not scored yet; its rating job goes on
            match = RatedMatch.from_json(json.loads(text))
            applied = self.apply(platform, match)
            if applied is not None:
                done.append((match, *applied))
        return done

    def apply(self, platform: str, match: RatedMatch) -> tuple[dict, dict] | None:
        """Rate one match on the pool's current ratings, atomically; None when it was applied already."""
        pool = match.pool
        players = [seat.player for seat in match.seats]
        while True:
            pipe = self.redis.pipeline(transaction=False)
            pipe.get(self.keys.rating_seq(platform, pool))
            pipe.hmget(self.keys.ratings(platform, pool), players)
            seq, found = pipe.execute()
            seq = int(seq or 0)
            before = {p: r for p, r in zip(players, map(_rating, found)) if r is not None}
            after = rate(before, match)
            best = min(seat.rank for seat in match.seats)
            keys = [
                self.keys.rating_applied(platform, pool),
                self.keys.rating_seq(platform, pool),
                self.keys.ratings(platform, pool),
                self.keys.rating_board(platform, pool),
                self.keys.rating_queue(platform, pool),
                self.keys.rating_pending(platform, pool),
                self.keys.rating_pools(platform),
                self.keys.rated_matches(platform, pool),
            ]
            args: list[Any] = [
                match.match_id,
                match.version,
                seq,
                pool,
                len(match.seats),
                json.dumps(
                    {**match.to_json(), "after": {p: [r.mu, r.sigma] for p, r in after.items()}, "seq": seq}
                ),
            ]
            for seat in match.seats:
                rating = after[seat.player]
                keys += [
                    self.keys.rating_record(platform, pool, seat.player),
                    self.keys.rating_player_matches(platform, pool, seat.player),
                    self.keys.rating_player_pools(platform, seat.player),
                ]
                args += [
                    seat.player,
                    _rating_text(rating),
                    repr(rating.conservative),
                    seat.rank,
                    seat.seat,
                    int(seat.rank == best),
                    match.ended_ms,
                ]
            outcome = self.durably(
                keys[0],
                lambda client: self._apply(keys=keys, args=args, client=client),  # noqa: B023
            )
            if outcome == -1:
                continue  # another worker rated a match of this pool meanwhile: read again
            if outcome == 0:
                return None
            return (
                {p: [r.mu, r.sigma] for p, r in before.items()},
                {p: [r.mu, r.sigma] for p, r in after.items()},
            )

    # -- rebuilding ------------------------------------------------------------------------------

    def pools(self, platform: str) -> list[str]:
        return sorted(p.decode() for p in self.redis.smembers(self.keys.rating_pools(platform)))

    def clear_pool(self, platform: str, pool: str) -> None:
        """Forget a pool's ratings and its players' records in it (a rebuild starts there)."""
        players = [p.decode() for p in self.redis.hkeys(self.keys.ratings(platform, pool))]
        pipe = self.redis.pipeline(transaction=False)
        for player in players:
            pipe.delete(
                self.keys.rating_record(platform, pool, player),
                self.keys.rating_player_matches(platform, pool, player),
            )
            pipe.srem(self.keys.rating_player_pools(platform, player), pool)
        pipe.delete(
            self.keys.rating_applied(platform, pool),
            self.keys.rating_seq(platform, pool),
            self.keys.ratings(platform, pool),
            self.keys.rating_board(platform, pool),
            self.keys.rated_matches(platform, pool),
        )
        pipe.srem(self.keys.rating_pools(platform), pool)
        pipe.execute()

    # -- reading -----------------------------------------------------------------------------------

    def rating(self, platform: str, pool: str, player: str) -> Rating | None:
        return _rating(self.redis.hget(self.keys.ratings(platform, pool), player))

    def all_ratings(self, platform: str, pool: str) -> dict[str, Rating]:
        return {
            k.decode(): _rating_of(v)
            for k, v in self.redis.hgetall(self.keys.ratings(platform, pool)).items()
        }

    def rated_matches(self, platform: str, pool: str) -> dict[str, dict[str, Any]]:
        """The pool's rated matches as they were applied: each one's ``RatedMatch`` JSON, the ratings it left
        its players (``after``) and its place in the pool's sequence (``seq``, the matches rated before it)."""
        return {
            k.decode(): json.loads(v)
            for k, v in self.redis.hgetall(self.keys.rated_matches(platform, pool)).items()
        }

    def board_size(self, platform: str, pool: str) -> int:
        return self.redis.zcard(self.keys.rating_board(platform, pool))

    def leaderboard(
        self, platform: str, pool: str, cursor: int, limit: int
    ) -> tuple[list[dict[str, Any]], int | None]:
        """A page of the pool's players by conservative rating (best first), from place ``cursor``."""
        found = self.redis.zrevrange(self.keys.rating_board(platform, pool), cursor, cursor + limit - 1)
        players = [p.decode() for p in found]
        ratings = self.redis.hmget(self.keys.ratings(platform, pool), players) if players else []
        rows = []
        for place, (player, text) in enumerate(zip(players, ratings), start=cursor + 1):
            rating = _rating(text)
            if rating is None:  # rebuilt in between: gone from the pool
                continue
            rows.append(
                {
                    "place": place,
                    "player": player,
                    "mu": rating.mu,
                    "sigma": rating.sigma,
                    "rating": rating.conservative,
                    "games": rating.games,
                }
            )
        more = (
            len(players) == limit
            and self.redis.zcard(self.keys.rating_board(platform, pool)) > cursor + limit
        )
        return rows, cursor + limit if more else None

    def player(self, platform: str, player: str) -> dict[str, Any] | None:
        """The player's ratings and record per pool; None for a player with no rated match here."""
        pools = sorted(
            p.decode() for p in self.redis.smembers(self.keys.rating_player_pools(platform, player))
        )
        if not pools:
            return None
        rows = []
        for pool in pools:
            rating = self.rating(platform, pool, player)
            if rating is None:  # rebuilt in between: gone from the pool
                continue
            record = {
                k.decode(): int(v)
                for k, v in self.redis.hgetall(self.keys.rating_record(platform, pool, player)).items()
            }
            seats: dict[int, dict[str, int]] = {}
            for name, value in record.items():
                if name.startswith("seat:"):
                    _, seat, what = name.split(":")
                    seats.setdefault(int(seat), {"seat": int(seat), "games": 0, "wins": 0})[what] = value
            games = record.get("games", 0)
            rows.append(
                {
                    "pool": pool,
                    "game": pool.split(":")[0],
                    "mu": rating.mu,
                    "sigma": rating.sigma,
                    "rating": rating.conservative,
                    "games": games,
                    "wins": record.get("wins", 0),
                    "average_rank": record.get("rank_sum", 0) / games if games else None,
                    "by_seat": [seats[s] for s in sorted(seats)],
                }
            )
        return {"player": player, "pools": rows}

    def matches_of(
        self, platform: str, player: str, cursor: str | None, limit: int
    ) -> tuple[list[dict[str, Any]], str | None]:
        """The player's rated matches, newest first; ``cursor``: ``<ended_ms>:<match id>`` of the last shown."""
        pools = sorted(
            p.decode() for p in self.redis.smembers(self.keys.rating_player_pools(platform, player))
        )
        bound = (int(cursor.split(":", 1)[0]), cursor.split(":", 1)[1]) if cursor else None
        found: list[tuple[int, str, str]] = []
        for pool in pools:
            top = "+inf" if bound is None else bound[0]
            for member, score in self.redis.zrevrangebyscore(
                self.keys.rating_player_matches(platform, pool, player),
                top,
                "-inf",
                start=0,
                num=limit + 50,
                withscores=True,
            ):
                key = (int(score), member.decode())
                if bound is None or key < bound:
                    found.append((*key, pool))
        found.sort(reverse=True)
        page = found[:limit]
        rows = []
        for ended, match_id, pool in page:
            match = json.loads(self.redis.hget(self.keys.rated_matches(platform, pool), match_id) or "null")
            if match is None:
                continue
            seat = next(s for s in match["seats"] if s[1] == player)
            mu, sigma = match["after"][player]
            rows.append(
                {
                    "match": match_id,
                    "game": match["game"],
                    "pool": pool,
                    "ended_ms": ended,
                    "seat": seat[0],
                    "rank": seat[2],
                    "players": len(match["seats"]),
                    "mu": mu,
                    "sigma": sigma,
                    "rating": mu - 3 * sigma,
                }
            )
        more = len(found) > limit
        return rows, f"{page[-1][0]}:{page[-1][1]}" if more and page else None

    def write_pool(self, platform: str, pool: str, matches: Iterable[RatedMatch]) -> int:
        """A rebuild's end: the pool as its ``matches`` make it, rated in the order they ended, through the
        same script as live (so with the same numbers). Returns how many."""
        self.clear_pool(platform, pool)
        count = 0
        for match in sorted(matches, key=lambda m: m.order):
            self.apply(platform, match)
            count += 1
        return count


def plan_rebuild(
    redis_client: redis.Redis, repository: MatchRepository, platform_ids: Iterable[str]
) -> dict[tuple[str, str], list[str]]:
    """What ``matchlog ratings rebuild`` rates again: every finished match of every platform, by pool
    (read from its ``match_created`` alone; the pool's job reads the rest of each log)."""
    from service.domain.ratings import pool_of

    keys = repository.keys
    plan: dict[tuple[str, str], list[str]] = {}
    for platform in platform_ids:
        listing = keys.listing(keys.platform_matches(platform), None, "finished")
        for member, _ in redis_client.zscan_iter(listing):
            match_id = member.decode()
            _, first = repository.read(match_id, until=1)
            if not first or first[0].type != "match_created":
                continue
            data = first[0].data
            plan.setdefault(
                (platform, pool_of(data["game"], data["options"], len(data["players"]))), []
            ).append(match_id)
    return plan
