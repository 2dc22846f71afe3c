"""What a seat, a spectator or a listing is shown of a match: pure functions from its state and log
entries to answers (no Redis, no clock: the time a view is made at is given)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from service.domain import clocks, replay
from service.domain.chain import Recorded
from service.domain.replay import SHELL_EVENTS, MatchState
from service.games.bots import shown_bot
from service.games.protocol import Game


def entry_view(
    engine: Game,
    entry: Recorded,
    seat: int | None,
    revealed: bool,
    sealed: bool,
    game: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A log entry as ``seat`` may see it: the game's ``event_view`` is the only gate while the
    match runs. Once the seed is ``revealed`` anyone can rebuild every hidden card from the log, so
    entries are shown whole, and with them the hash chain can be checked by anyone.

    A ``sealed`` chain commits to hidden data through a keyed commitment, so its hashes can be
    shown to anyone (``service.domain.chain``). In a log from before sealing, a hash covers hidden data
    whole, and guessing the data from it is easy: in a game with hidden information those hashes
    are withheld until the seed is revealed. ``game``, the match's game state, lends its content to the
    text (``replay.describe``)."""
    body = entry.as_dict()
    if not revealed:
        if entry.type not in SHELL_EVENTS:
            seen = engine.event_view(entry.event(), seat)
            body.update(type=seen["type"], seat=seen["seat"], data=seen["data"])
        if not sealed and engine.info.hidden_information:
            body["hash"] = None
    body["text"] = replay.describe(engine, body, game)
    return body


def entries_view(state: MatchState, entries: list[Recorded], seat: int | None) -> list[dict[str, Any]]:
    """``entries`` of the match whose latest state is ``state``, as ``seat`` may see them."""
    return [
        entry_view(state.engine, e, seat, state.seed is not None, state.sealed_chain, state.game)
        for e in entries
    ]


def hashes_withheld(state: MatchState) -> bool:
    """Whether the match's hashes would tell a viewer hidden data (``entry_view``): a checkpoint
    waits for the seed to be revealed."""
    return not state.sealed_chain and state.engine.info.hidden_information and state.seed is None


def status_of(state: MatchState) -> str:
    return (
        "aborted"
        if state.aborted
        else "finished"
        if state.finished
        else "active"
        if state.started
        else "open"
    )


def summary(match_id: str, state: MatchState, at: str) -> dict[str, Any]:
    """The match as anyone may read it (``GET /v1/matches/{id}``, a listing's rows), its clocks as they
    stand at ``at``."""
    return listed(match_id, listing_summary(state), at)


def listing_summary(state: MatchState) -> dict[str, Any]:
    """What a listing's row is made of (``listed``), kept beside the log by each append: a listing reads it
    instead of folding the match. Plain JSON values; the clocks as the state keeps them."""
    kept = {
        "game": state.game_id,
        "status": status_of(state),
        "version": state.version,
        "players": [
            {"seat": i, "name": name, **shown_bot(state.bot_of(i))}
            if name is not None
            else {"seat": i, "open": True}
            for i, name in enumerate(state.players)
        ],
        "options": state.options,
        "to_act": state.to_act(),
        "seed_known_to_creator": state.seed_known_to_creator,
        "undo": state.undo,
        "created_at": state.created_at,
        "updated_at": state.updated_at,
        "ended_at": state.ended_at,
    }
    if state.clock is not None:
        kept["clock"] = state.clock
    if state.tournament is not None:
        kept["tournament"] = state.tournament
    if state.undo_request is not None:
        kept["undo_request"] = state.undo_request
    if state.result is not None:
        kept["result"] = state.result
    return kept


def listed(match_id: str, kept: dict[str, Any], at: str) -> dict[str, Any]:
    """A match's row, from its ``listing_summary``: its clocks as they stand at ``at``."""
    body = {"id": match_id, **kept}
    if "clock" in kept:
        body["clock"] = clocks.shown(kept["clock"], at)
    return body


def player_ids(entries: Iterable[Recorded]) -> dict[int, str]:
    """Each seat's platform player id, of whoever holds it now (``match_created``, then the joins and seat
    replacements in the log); a seat without one (anonymous, a bot, a person the platform did not name)
    is absent."""
    held: dict[int, str | None] = {}
    for entry in entries:
        if entry.type == "match_created":
            held.update({seat["seat"]: seat.get("player") for seat in entry.data["players"]})
        elif entry.type in ("seat_joined", "seat_replaced"):
            held[entry.data["seat"]] = entry.data.get("player")
    return {seat: player for seat, player in held.items() if player}


def provisional(state: MatchState) -> dict[str, Any]:
    """The scores of a match still running, for whoever asked (any seat, the platform). Where the game
    hides information they are withheld: they count what only some seats may see (a game that
    scores the cards in hands and face-down slots), and one job answers every seat alike."""
    if state.engine.info.hidden_information:
        return {"final": False, "withheld": "hidden_information"}
    return replay.result(state)
