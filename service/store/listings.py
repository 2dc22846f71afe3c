"""The listings: the public matches (the newest ``PUBLIC_LISTED``), the lobby (public matches with a seat
open), each platform's matches, and each of those narrowed to one game, one status or both. A store that
owns its keys: sorted sets scored by creation time (ms), so that a page reads only the matches it shows.

A page's rows are the matches' listing summaries (``views.listing_summary``), which each append writes beside
the log in its own step (``EventStore.append``), encoded as the answer sends them (``rows``): a page reads them,
one small value per row, and folds no match. A summary that is missing (a match from before summaries, or one
of an earlier encoding) or behind the log (appended to by a process of an earlier version) is made once from
the match's state and kept, only if the log has not moved on since.

On one Redis a page is two commands whatever its length: the listing's range of ids, then one script
(``PAGE``) that checks every row's record and joins them into the page's text; this process only names their
keys. A page with a row the script cannot vouch for is made again row by row (``page``'s loop), which mends
it. On a Redis Cluster the rows are read by a pipeline (each match's keys on their own slot), row by row."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import redis
from redis.cluster import RedisCluster

from service.domain import projections
from service.domain.replay import MatchState
from service.store import rows
from service.store.keys import LOG, SUMMARY, Keys
from service.store.repository import MatchNotFound, encoded_summary

PUBLIC_LISTED = 10_000
"""How many of the newest public matches are listed (older ones stay readable by their id)."""

KEEP_IF_CURRENT = """
-- KEYS: log, listing summary. ARGV: the version the summary is of, the summary. Kept only while the log is at
-- that version: an append since then wrote its own, newer one.
if redis.call('XLEN', KEYS[1]) == tonumber(ARGV[1]) then redis.call('SET', KEYS[2], ARGV[2]) return 1 end
return 0
"""


SUMMARIES = """
-- KEYS: each match's listing summary and log, in turn. Each summary (false for none) and its log's length.
local found = {}
for i = 1, #KEYS, 2 do
  found[i] = redis.call('GET', KEYS[i])
  found[i + 1] = redis.call('XLEN', KEYS[i + 1])
end
return found
"""


PAGE = """
-- KEYS: the listing. ARGV: the status the page is of ('' for any), the parts that name a match's summary and
-- log (``keys.SUMMARY``, ``keys.LOG``), the last match's id when the page is full ('' when it is not), then
-- the matches' key stems (``Keys.stems``) in the page's order, one a line. The matches' keys are named here,
-- not declared, in one argument: 400 arguments would cost the caller a packing step each, and on one Redis
-- (the only place this runs) any key may be read.
-- Returns the score of the last match ('' for none), then each match's record (``rows.record``), checked as
-- ``rows.read`` and ``Listings.summaries`` check it: four lines, a header of four words, the last
-- ``rows.ENCODING``, at the version of its log, of the page's status. Returns false if any is missing or
-- fails that: the caller then makes the page row by row, which mends those.
local wanted, summary, log = ARGV[1], ARGV[2], ARGV[3]
local found = {''}
for stem in string.gmatch(ARGV[5], '[^\\n]+') do
  local raw = redis.call('GET', stem .. summary)
  if not raw then return false end
  local version, status, first = string.match(raw, '^(%d+) ([^ \\n]*) [^ \\n]* <encoding>()\\n')
  if not version or tonumber(version) ~= redis.call('XLEN', stem .. log) then return false end
  if wanted ~= '' and status ~= wanted then return false end
  local second = string.find(raw, '\\n', first + 1, true)
  local third = second and string.find(raw, '\\n', second + 1, true)
  if not third or string.find(raw, '\\n', third + 1, true) then return false end
  found[#found + 1] = raw
end
if ARGV[4] ~= '' then
  found[1] = redis.call('ZSCORE', KEYS[1], ARGV[4])
  if not found[1] then return false end
end
return found
""".replace("<encoding>", rows.ENCODING)


class Listings:
    def __init__(self, redis_client: redis.Redis, keys: Keys, load: Callable[[str], MatchState]):
        """``load(match_id)``: a match's latest state (MatchNotFound for none), to tell a match's status."""
        self.redis = redis_client
        self.keys = keys
        self.load = load
        self._keep_if_current = redis_client.register_script(KEEP_IF_CURRENT)
        # one script for a page's rows where they all are on one Redis; a cluster holds them on many slots
        cluster = isinstance(redis_client, RedisCluster)
        self._summaries = None if cluster else redis_client.register_script(SUMMARIES)
        self._page = None if cluster else redis_client.register_script(PAGE)

    def _indexes(self, platform: str | None) -> list[str]:
        """The public matches and, for a platform's match, the platform's."""
        return [self.keys.public_matches] + ([self.keys.platform_matches(platform)] if platform else [])

    def add(
        self, match_id: str, game_id: str, status: str, platform: str | None, public: bool, created_ms: float
    ) -> None:
        """List a new match: in its platform's matches and, if ``public``, for anyone (a private match is
        joined by its id, not found)."""
        listed = [self.keys.platform_matches(platform)] if platform else []
        if public:
            listed.append(self.keys.public_matches)
        with self.redis.pipeline(transaction=False) as pipe:
            for index in listed:
                self._list(pipe, index, match_id, game_id, status, created_ms)
            pipe.execute()

    def closed(self, match_id: str) -> None:
        """The match has no seat to join any more (it started, or was aborted): out of the lobby."""
        self.redis.zrem(self.keys.open_matches, match_id)

    def page(
        self,
        platform: str | None,
        game_id: str | None,
        status: str | None,
        cursor: str | None,
        limit: int,
        newest_first: bool = False,
    ) -> tuple[rows.Page, str | None]:
        """Matches by creation time, of one game and status if given, as their listing rows, and the
        cursor of the next page (None on the last): a platform's own; else the lobby (``status`` open: a
        public match with a seat to join); else the public ones.

        A page reads its matches' summaries only (and, once, any the listing still has under a status they
        have left), however many others there are; it folds none (but a match without a current summary)."""
        index = self.keys.platform_matches(platform) if platform else self.keys.public_matches
        narrowed = self.keys.listing(index, game_id, status)
        bound = f"({cursor}" if cursor else "+inf" if newest_first else "-inf"
        if self._page is not None:
            whole = self._whole(narrowed, status, bound, limit, newest_first)
            if whole is not None:
                return whole
        found: list[rows.Row] = []
        next_cursor = None
        while len(found) < limit:
            if newest_first:
                batch = self.redis.zrevrangebyscore(
                    narrowed, bound, "-inf", start=0, num=limit, withscores=True
                )
            else:
                batch = self.redis.zrangebyscore(narrowed, bound, "+inf", start=0, num=limit, withscores=True)
            if not batch:
                break
            match_ids = [member.decode() for member, _ in batch]
            bound = f"({batch[-1][1]!r}"  # the next batch's, if this one does not fill the page
            for match_id, (_, score), kept in zip(match_ids, batch, self.summaries(match_ids)):
                if kept is None:
                    self.redis.zrem(narrowed, match_id)
                    continue
                if status and kept.status != status:  # its status changed without its listings following
                    self._move(index, match_id, kept.game, status, kept.status, score)
                    continue
                found.append(kept)
                if len(found) == limit:
                    next_cursor = repr(score)
                    break
        return rows.page(found), next_cursor

    def _whole(
        self, narrowed: str, status: str | None, bound: str, limit: int, newest_first: bool
    ) -> tuple[rows.Page, str | None] | None:
        """``page``'s answer from one Redis in two commands, its rows joined by ``PAGE``; None if a row needs
        more than its record (``page`` then makes it row by row)."""
        if newest_first:
            match_ids = self.redis.zrevrangebyscore(narrowed, bound, "-inf", start=0, num=limit)
        else:
            match_ids = self.redis.zrangebyscore(narrowed, bound, "+inf", start=0, num=limit)
        if not match_ids:
            return rows.page([]), None
        full = len(match_ids) == limit
        args = [
            status or "",
            SUMMARY,
            LOG,
            match_ids[-1] if full else "",
            b"\n".join(self.keys.stems(match_ids)),
        ]
        assert self._page is not None, "called on one Redis only"
        made = self._page(keys=[narrowed], args=args)
        if not made:
            return None
        # the cursor as ``page``'s loop writes it (``repr`` of the score redis-py would have parsed)
        return rows.joined(made[1:]), repr(float(made[0])) if full else None

    def summaries(self, match_ids: list[str]) -> list[rows.Row | None]:
        """Each match's listing row at the log's version (None for a match that is not there), in one
        round trip: made from the state, and kept, where it is missing or behind the log."""
        keys = [
            key for match_id in match_ids for key in (self.keys.summary(match_id), self.keys.log(match_id))
        ]
        if self._summaries is not None:
            replies = self._summaries(keys=keys) if keys else []
        else:
            with self.redis.pipeline(transaction=False) as pipe:
                for summary, log in zip(keys[::2], keys[1::2]):
                    pipe.get(summary)
                    pipe.xlen(log)
                replies = pipe.execute()
        found: list[rows.Row | None] = []
        for match_id, raw, version in zip(match_ids, replies[::2], replies[1::2]):
            kept = rows.read(raw) if raw and version else None
            if version and (kept is None or kept.version != version):
                kept = self._summarised(match_id)
            found.append(kept)
        return found

    def _summarised(self, match_id: str) -> rows.Row | None:
        """The summary of the match's latest state, kept unless an append got in meanwhile; None if it is gone."""
        try:
            state = self.load(match_id)
        except MatchNotFound:
            return None
        return rows.read(self.keep_summary(match_id, state))

    def keep_summary(self, match_id: str, state: MatchState) -> bytes:
        """Store ``state``'s listing summary if the log is still at its version; returns it."""
        record = encoded_summary(match_id, state)
        self._keep_if_current(
            keys=[self.keys.log(match_id), self.keys.summary(match_id)], args=[state.version, record]
        )
        return record

    def relist(self, match_id: str, platform: str | None, game_id: str, old: str, new: str) -> None:
        """A match whose status changed from ``old`` to ``new`` moves to the listings of its new status."""
        for index in self._indexes(platform):
            score = self.redis.zscore(index, match_id)
            if (
                score is not None
            ):  # listed there (a private match, or one past the newest PUBLIC_LISTED, is not)
                self._move(index, match_id, game_id, old, new, score)

    def index_all(self, platforms: Iterable[str]) -> int:
        """Put every listed match in the listings narrowed to its game and status, with its listing summary (for
        matches created before these were kept: ``matchlog migrate`` runs it). Returns how many it listed."""
        indexes = [self.keys.public_matches] + [self.keys.platform_matches(p) for p in platforms]
        listed = 0
        for index in indexes:
            for member, score in self.redis.zscan_iter(index):
                try:
                    state = self.load(member.decode())
                except MatchNotFound:
                    continue
                self.keep_summary(member.decode(), state)
                with self.redis.pipeline(transaction=False) as pipe:
                    self._list(
                        pipe, index, member.decode(), state.game_id, projections.status_of(state), score
                    )
                    pipe.execute()
                listed += 1
        return listed

    def listed_ids(self, platforms: Iterable[str]) -> Iterator[str]:
        """Every match id in the public listing and in the platforms' own (one in both comes twice)."""
        for index in [self.keys.public_matches] + [self.keys.platform_matches(p) for p in platforms]:
            for member, _ in self.redis.zscan_iter(index):
                yield member.decode()

    def _list(
        self, pipe: redis.client.Pipeline, index: str, match_id: str, game_id: str, status: str, score: float
    ) -> None:
        """Put a match in ``index`` and its listings narrowed to the match's game and status (the public
        ones keep their newest ``PUBLIC_LISTED``)."""
        for narrowed in {
            self.keys.listing(index, *by)
            for by in ((None, None), (game_id, None), (None, status), (game_id, status))
        }:
            pipe.zadd(narrowed, {match_id: score})
            if index == self.keys.public_matches:
                pipe.zremrangebyrank(narrowed, 0, -PUBLIC_LISTED - 1)

    def _move(self, index: str, match_id: str, game_id: str, old: str, new: str, score: float) -> None:
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrem(self.keys.listing(index, None, old), match_id)
            pipe.zrem(self.keys.listing(index, game_id, old), match_id)
            self._list(pipe, index, match_id, game_id, new, score)
            pipe.execute()
