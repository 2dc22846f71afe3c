"""What bots may cost: a place in the budget of bot-only matches their creator (a platform, an anonymous
address) has (``MATCHLOG_BOT_MATCHES_PER_*``), and CPU per move and per match (``MATCHLOG_BOT_CPU_*``); the
budgets' keys are the store's (``service.store.budgets``). And which bots a game has."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from service.config import Settings
from service.domain import lifecycle
from service.domain.errors import TooManyBotMatches
from service.domain.replay import MatchState
from service.games.bots import BOTS, bot_name, bots_of
from service.games.protocol import Game, InvalidOptions
from service.store import budgets
from service.store.budgets import BotBudgets
from service.store.repository import MatchRepository


def check_bot(game: Game, spec: str, where: str) -> None:
    """InvalidOptions unless ``spec`` names a bot of ``game``, with a level only for the game's own."""
    name, _ = bot_name(spec)
    prefix = f"{where}." if where else ""
    if name not in bots_of(game):
        raise InvalidOptions(
            f"{prefix}bot", f"no such bot for {game.info.name}: the catalogue lists {sorted(bots_of(game))}"
        )
    if ":" in spec and name in BOTS:
        raise InvalidOptions(
            f"{prefix}level", f"the {name} bot has no levels: they are for a game's search bots"
        )


class BotBudget:
    """What the bots of a match may cost: a place in its tenant's budget of bot-only matches, and CPU."""

    def __init__(self, repository: MatchRepository, budgets: BotBudgets, settings: Settings):
        self.repository = repository
        self.budgets = budgets
        self.settings = settings

    def cap(self, platform: str | None) -> int:
        """How many matches of bots only a platform, or an anonymous address, may have not over (0: no cap)."""
        return self.settings.bot_matches_per_platform if platform else self.settings.bot_matches_per_address

    def admit(
        self, platform: str | None, address: str, bots: Sequence[str | None], match_id: str
    ) -> str | None:
        """For a match whose seats are all bots, take its place in its creator's budget of them.

        The budget is a platform's, or an anonymous client's address's; returns its tenant, or None for any
        other match or with no cap; TooManyBotMatches when the creator has as many not over as it may. Each
        costs the workers CPU with nobody waiting: a budget per creator keeps one from filling the bot
        workers (a bot's reply to a person goes first anyway). A match that becomes one of bots only later
        takes its place then (``left_to_bots``)."""
        cap = self.cap(platform)
        tenant = budgets.tenant(platform, address)
        if not bots or not all(bots) or cap <= 0 or tenant is None:
            return None
        if not self.budgets.place(tenant, match_id, cap):
            self.budgets.unplace(tenant, match_id)
            raise TooManyBotMatches(cap, "platform" if platform else "address")
        return tenant

    def left_to_bots(self, match_id: str) -> None:
        """A handover (a clock timing a seat out to a bot, a seat replaced by a bot, a concession) left only
        bots in play: the match takes a place in its tenant's budget, as one created of bots only does. Past
        the cap it is not stopped (nothing accepted is lost) but its bots play the cheapest move to its end."""
        budget = self._budget_of(match_id)
        if budget is not None:
            self.budgets.place(budget[0], match_id, budget[1])

    def thought(
        self, match_id: str, state: MatchState, seat: int, secret: lifecycle.SeedSecret
    ) -> dict[str, Any]:
        """The bot's action, within the bot budgets: a move that has thought for ``bot_cpu_per_move_s``
        plays the cheapest move instead, and so does every move of a match of bots only past its budgets
        (``_over_budget``; a match with a person in it goes only as fast as the person's moves, which the
        rate limits bound). The moves already played stay: only how the next ones are chosen changes. CPU
        time of this thread, so other work in the process does not count."""
        per_move, per_match = self.settings.bot_cpu_per_move_s, self.settings.bot_cpu_per_match_s
        if not state.bots_only:
            per_match = 0.0
        cheapest = state.bots_only and self._over_budget(match_id, per_match)
        began = time.thread_time()
        action = lifecycle.bot_action(
            state,
            seat,
            secret,
            cheapest=cheapest,
            out_of_thought=lambda: per_move > 0 and time.thread_time() - began > per_move,
        )
        if per_match > 0:
            self.budgets.spend(match_id, time.thread_time() - began)
        return action

    def _over_budget(self, match_id: str, per_match: float) -> bool:
        """Whether the bots of a match of bots only play the cheapest move: its bots have thought for
        ``per_match`` CPU seconds (0: no cap), or its place in its tenant's budget of bot-only matches does
        not stand. One left to bots without its place taken (its process stopped after the handover's append,
        or a match from before handovers were counted) takes it now."""
        budget = self._budget_of(match_id)
        if per_match <= 0 and budget is None:
            return False
        spent, stands = self.budgets.of_match(match_id)
        if stands is None and budget is not None:
            stands = self.budgets.place(budget[0], match_id, budget[1])
        return stands is False or 0 < per_match <= spent

    def _budget_of(self, match_id: str) -> tuple[str, int] | None:
        """The tenant whose budget of bot-only matches the match counts in, and its cap; None with no cap, or
        for an anonymous match from before creators' addresses were kept (left as it was made)."""
        meta = self.repository.meta(match_id)
        tenant, cap = budgets.tenant(meta.platform, meta.client), self.cap(meta.platform)
        return (tenant, cap) if tenant is not None and cap > 0 else None
