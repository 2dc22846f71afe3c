"""Game records: a match made from a record in a game's own format (its moves played through the rules), and a
match exported as one."""

from __future__ import annotations

from collections.abc import Callable

from service.application.matches import NewMatch
from service.domain import projections
from service.domain.chain import Recorded
from service.domain.errors import NoRecordFormat
from service.domain.replay import SHELL_EVENTS
from service.domain.shown import name_refusal
from service.games import GAMES
from service.games.protocol import Game, InvalidRecord
from service.store.repository import MatchRepository


def record_games() -> dict[str, Game]:
    """The games with a record format, by its MIME type."""
    return {game.record.mime: game for game in GAMES.values() if game.record is not None}


def from_record(mime: str, text: str, platform: str | None = None) -> NewMatch:
    """The new match a game record in the format ``mime`` makes (InvalidRecord when it cannot be read)."""
    game = record_games().get(mime)
    if game is None or game.record is None:
        raise InvalidRecord(f"no game reads {mime}")
    try:
        options, names, actions = game.record.parse(text)
    except RecursionError:  # a parser that recurses per nesting level, given thousands of levels
        raise InvalidRecord("the record is nested too deeply") from None
    for seat, name in enumerate(names):
        refusal = name_refusal(name)
        if refusal:
            raise InvalidRecord(f"the name of seat {seat} ({name[:40]!r}): {refusal}")
    return NewMatch(game.info.id, names, options, record=actions, platform=platform)


def export_record(
    repository: MatchRepository, match_id: str, accepts: Callable[[str], bool] = lambda mime: True
) -> tuple[str, str]:
    """The match as a game record: ``(mime, text)``; NoRecordFormat when the game has no record
    format, or one the client does not ``accepts``."""
    engine = GAMES[repository.meta(match_id).game_id]
    if engine.record is None:
        raise NoRecordFormat(f"{engine.info.name} has no game record format")
    if not accepts(engine.record.mime):
        raise NoRecordFormat(f"a {engine.info.name} record is {engine.record.mime}")
    state = repository.load(match_id)
    _, entries = repository.read(match_id, until=state.version)
    events = projections.entries_view(state, _kept_moves(entries), None)
    names = [name or "" for name in state.players]  # an open seat has nobody's name yet
    return engine.record.mime, engine.record.export(state.options, names, events)


def _kept_moves(entries: list[Recorded]) -> list[Recorded]:
    """The game's entries the match's state kept: an ``undone`` goes back to the moves kept at its
    ``to_version``, as the fold does (the log keeps what it took back; a record leaves it out)."""
    kept: tuple[Recorded, ...] = ()
    kept_at: dict[int, tuple[Recorded, ...]] = {0: kept}
    for entry in entries:
        if entry.type == "undone":
            kept = kept_at[entry.data["to_version"]]
        elif entry.type not in SHELL_EVENTS:
            kept = (*kept, entry)
        kept_at[entry.version] = kept
    return list(kept)
