"""The bots' moves: a bot plays through the same version-checked append as a person (``Matches.submit``),
thinking within its budgets (``service.application.bot_budgets``), as a job per move."""

from __future__ import annotations

from typing import Any

from service.application.matches import Matches
from service.domain import replay
from service.domain.errors import VersionConflict
from service.domain.replay import MatchState


class Bots:
    """The bots' moves in the matches ``matches`` runs."""

    def __init__(self, matches: Matches):
        self.matches = matches
        self.jobs = matches.stores.jobs

    def move(self, match_id: str, seat: int, version: int) -> dict[str, Any] | None:
        """The seat's bot plays, if the match is still at ``version`` with the seat to act: through the
        same version-checked append as a person. None when the match has moved on (nothing to do)."""
        state = self.matches.load(match_id)
        bot = state.bot_of(seat)
        if state.version != version or seat not in state.to_act() or not bot:
            return None
        action = self.matches.budget.thought(match_id, state, seat, self.matches.secret(match_id))
        try:
            return self.matches.submit(match_id, seat, version, action, by=replay.by_bot(bot))
        except VersionConflict:
            return None

    def to_move(self, match_id: str, state: MatchState) -> None:
        """Enqueue a move for each bot seat to act at ``state`` (the match's latest state)."""
        for seat in state.to_act():
            if state.bot_of(seat):
                self.jobs.enqueue_bot_move(match_id, seat, state.version, state.bots_only)
