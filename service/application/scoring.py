"""Scoring a match once it is over: ``match_scored`` appended exactly once, by a job (one per version however
often asked), and a platform's match rated after it (``service.domain.ratings``), in the order the games of
its pool ended: a game's place in its pool's queue is held as it ends (``hold_place``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from service.application import entry_time
from service.application.stores import Stores
from service.domain import lifecycle, projections
from service.domain.chain import Recorded
from service.domain.errors import VersionConflict
from service.domain.ratings import epoch_ms, pool_of
from service.domain.replay import MatchState


class Scoring:
    def __init__(self, stores: Stores):
        self.repository = stores.repository
        self.jobs = stores.jobs
        self.players = stores.players

    def record_result(self, match_id: str) -> dict[str, Any]:
        """Score the match. Once it is over, the result is appended as ``match_scored`` exactly once."""
        for _ in range(10):
            state = self.repository.load(match_id)
            if state.result is not None:
                return state.result
            step = lifecycle.score(state, entry_time.now())
            if not step.entries:  # not over yet: the scores so far, recorded nowhere
                return projections.provisional(state)
            try:
                self.repository.save(match_id, step)
            except VersionConflict:
                continue  # someone else appended (another scoring job?): look again
            assert step.state.result is not None, "scoring a finished match records its result"
            return step.state.result
        raise RuntimeError(f"could not record the result of {match_id}: the log kept moving")

    def request_scoring(self, match_id: str, version: int | None = None, reuse: bool = True) -> str:
        """The job that scores the match at ``version`` (its current one by default): one per version,
        however often asked (``reuse``: a finished job of that version stands; else it is run again)."""
        version = self.repository.load(match_id).version if version is None else version
        return self.jobs.enqueue_scoring(match_id, version, reuse=reuse)

    def request_rating(self, match_id: str) -> None:
        """Rate a scored match of a platform (``service.domain.ratings``); nothing for an anonymous one."""
        if self.repository.meta(match_id).platform is not None:
            self.jobs.enqueue_rating(match_id)

    def hold_place(self, match_id: str, state: MatchState, entries: Iterable[Recorded]) -> None:
        """A platform's game that ``entries`` end (its ``seed_revealed``): its place in its rating pool's queue,
        by the time it ended, so that the games of the pool that end after it are rated after it even when
        they are scored first. Held by the request that appends the end, before it is answered (a game's end
        notice may wait for its worker while a later game of the pool is scored and rated); held again, to no
        effect, by the rule worker that handles the notice (``workers.projector``: the request may have
        failed in between)."""
        ended = [entry.at for entry in entries if entry.type == "seed_revealed"]
        if not ended:
            return
        platform = self.repository.meta(match_id).platform
        if platform is not None:
            pool = pool_of(state.game_id, state.options, len(state.players))
            self.players.hold(platform, pool, match_id, epoch_ms(ended[0]))
