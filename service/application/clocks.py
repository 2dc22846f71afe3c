"""The clocks of a running match: a deadline job at the moment a clock would run out, and the timeout
appended then (or before a move that comes late), with what ``on_timeout`` does. The rules of time are the
domain's (``service.domain.clocks``, ``lifecycle.time_out``); this is when they are asked, and the append."""

from __future__ import annotations

import time

from service.application import entry_time
from service.domain import clocks, lifecycle
from service.domain.errors import OutOfTime, VersionConflict
from service.domain.replay import MatchState
from service.domain.tokens import new_token, token_hash
from service.store.jobqueue import JobQueue
from service.store.repository import MatchRepository


class Clocks:
    def __init__(self, repository: MatchRepository, jobs: JobQueue):
        self.repository = repository
        self.jobs = jobs

    def check(self, match_id: str, version: int) -> str:
        """At a deadline: ``timed_out`` (and what ``on_timeout`` does) if the match is still at ``version``
        and a clock has run out; else nothing ("moved on"), or a later deadline ("not yet")."""
        state = self.repository.load(match_id)
        if state.version != version:
            return "moved on"
        try:
            step = self.time_out(match_id, state)
        except VersionConflict:  # a move came in at the last moment: it stands, and the clock with it
            return "moved on"
        if step is None:
            self.schedule(match_id, state, again=int(time.time()))
            return "not yet"
        return "timed out"

    def time_out(self, match_id: str, state: MatchState) -> lifecycle.Step | None:
        """Append ``timed_out`` (and what ``on_timeout`` does) if a clock of ``state`` has run out by now;
        VersionConflict if the log has moved on from ``state``."""
        step = lifecycle.time_out(state, self.repository.meta(match_id).secret, entry_time.now())
        if step is None:
            return None
        seat, clock = step.entries[0].seat, step.state.clock
        assert seat is not None and clock is not None, "timed_out names the seat whose clock ran out"
        # to a bot, the seat's token goes with the timeout, in its append: until then its holder may still move
        # in time, and after it the rules refuse that token (seat_played_by_a_bot)
        handover = (seat, token_hash(new_token())) if clock["on_timeout"] == "bot" else None  # nobody's token
        self.repository.save(match_id, step, handover=handover)  # VersionConflict: the log moved on
        return step

    def meet_deadline(self, match_id: str, state: MatchState, seat: int) -> lifecycle.Step | None:
        """Before ``seat`` acts on ``state``: the timeout a clock has run into by now, appended however busy
        the clock's job is (OutOfTime when it was ``seat``'s own); None when no clock has run out."""
        late = self.time_out(match_id, state) if state.clock is not None else None
        if late is not None and late.entries[0].seat == seat:
            raise OutOfTime(late.state.version)
        return late

    def schedule(self, match_id: str, state: MatchState, again: int = 0) -> None:
        """A job at the moment the first running clock of ``state`` (the latest) would run out
        (``again``: a check that came early sets another)."""
        deadline = clocks.deadline_ms(state.clock) if state.clock is not None and not state.finished else None
        if deadline is not None:
            self.jobs.enqueue_deadline(match_id, state.version, deadline, again)
