"""The seats' commands: a person takes an open seat (``join``), or a platform hands a filled one to a bot or
to someone else (``replace_seat``). A seat's token changes in the same append as the log says so, so the log
and the tokens never disagree."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from service.application import entry_time
from service.application.bot_budgets import check_bot
from service.application.idempotency import ANYONE
from service.application.matches import Matches, check_player
from service.domain import lifecycle
from service.domain.errors import MatchOver, NoSuchSeat, SeatTaken
from service.domain.replay import MatchState
from service.domain.tokens import new_token, token_hash
from service.games.bots import shown_bot
from service.games.texts import catalogue

_ = catalogue(__file__).gettext


def still_open(state: MatchState) -> None:
    if state.aborted or state.finished:
        raise MatchOver(_("the match is over: its seats can no longer be joined"))


class Seats:
    def __init__(self, matches: Matches):
        self.matches = matches

    def join(
        self,
        match_id: str,
        seat: int,
        name: str,
        idempotency_key: str | None = None,
        player: str | None = None,
    ) -> dict[str, Any]:
        """Take an open seat: the answer with its token, shown only now (and again to a retry with the same
        ``idempotency_key``, name and player: a join has no caller, so the key is the client's secret).
        SeatTaken if someone else has it (of two racing joins exactly one gets the seat); the join that fills
        the last seat starts the match."""
        return self.matches.idempotency.once(
            match_id,
            f"join:{seat}",
            ANYONE,
            idempotency_key,
            [name, player],
            lambda remember: self._join(match_id, seat, name, player, remember),
        )

    def _join(
        self, match_id: str, seat: int, name: str, player: str | None, remember: Callable
    ) -> dict[str, Any]:
        state = self.matches.load(match_id)
        if not 0 <= seat < len(state.players):
            raise NoSuchSeat(_("the match has seats 0 to {last}", last=len(state.players) - 1))
        still_open(state)
        check_player(self.matches.repository.meta(match_id).platform, player, "player")
        token = new_token()
        if state.players[seat] is not None or not self.matches.repository.claim_seat(
            match_id, seat, token_hash(token)
        ):
            raise SeatTaken(_("seat {seat} is taken", seat=seat))

        def joined(
            state: MatchState,
        ) -> lifecycle.Step:  # the claim is ours; the log says so when it is our turn to append
            still_open(state)  # unless the match was aborted meanwhile
            return lifecycle.join(state, seat, name, entry_time.now(), player)

        def answer(state: MatchState) -> dict[str, Any]:
            return {
                "seat": seat,
                "name": name,
                "token": token,
                "version": state.version,
                "started": state.started,
            }

        step, prior = self.matches.append_retrying(
            match_id, joined, lambda step: remember(answer(step.state))
        )
        if prior is not None:
            return json.loads(prior)["answer"]
        if step.state.started:
            self.matches.stores.listings.closed(match_id)
        return answer(step.state)

    def replace_seat(
        self,
        match_id: str,
        seat: int,
        name: str | None = None,
        bot: str | None = None,
        idempotency_key: str | None = None,
        caller: str = "platform",
        player: str | None = None,
    ) -> dict[str, Any]:
        """Hand a filled seat to a bot, or to a person (whose new token is in the answer, shown only now,
        and again to a retry of ``caller`` with the same ``idempotency_key``). The seat takes its new token
        in the append of ``seat_replaced``, so the log and the token never disagree: from then on the old
        token can no longer act, in any process (the append checks the token); its reads end within
        ``META_FRESH_S`` in other processes."""
        return self.matches.idempotency.once(
            match_id,
            f"replace:{seat}",
            caller,
            idempotency_key,
            [name, bot, player],
            lambda remember: self._replace_seat(match_id, seat, name, bot, player, remember),
        )

    def _replace_seat(
        self,
        match_id: str,
        seat: int,
        name: str | None,
        bot: str | None,
        player: str | None,
        remember: Callable,
    ) -> dict[str, Any]:
        state = self.matches.load(match_id)
        if not 0 <= seat < len(state.players):
            raise NoSuchSeat(_("the match has seats 0 to {last}", last=len(state.players) - 1))
        if state.players[seat] is None:
            raise SeatTaken(_("seat {seat} is open: a person joins it", seat=seat))
        if state.finished:
            raise MatchOver(_("the match is over"))
        if seat in state.conceded:
            raise SeatTaken(_("seat {seat} has conceded: it is out of play", seat=seat))
        if bot:
            check_bot(state.engine, bot, "")
        check_player(self.matches.repository.meta(match_id).platform, player, "player", bot)
        token = new_token()

        def replaced(state: MatchState) -> lifecycle.Step:
            if state.finished:  # it ended meanwhile: nothing but the seed and the result follows the end
                raise MatchOver(_("the match is over"))
            return lifecycle.replace_seat(state, seat, name or f"{bot} bot", bot, entry_time.now(), player)

        def answer(state: MatchState) -> dict[str, Any]:
            shown = {"seat": seat, "name": state.players[seat], "version": state.version}
            return (
                {**shown, **shown_bot(state.bot_of(seat))}
                if state.bot_of(seat)
                else {**shown, "token": token}
            )

        step, prior = self.matches.append_retrying(
            match_id, replaced, lambda step: remember(answer(step.state)), handover=(seat, token_hash(token))
        )
        return json.loads(prior)["answer"] if prior is not None else answer(step.state)
