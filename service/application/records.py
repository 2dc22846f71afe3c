"""Game records: a match made from a record in a game's own format (its moves played through the rules), and a
match exported as one."""

from __future__ import annotations

from collections.abc import Callable

from service.application.matches import NewMatch
from service.domain import projections
from service.domain.chain import Recorded
from service.domain.errors import NoRecordFormat
from service.domain.replay import MatchState, kept_moves
from service.domain.shown import name_refusal
from service.games import GAMES
from service.games.protocol import Game, InvalidRecord
from service.games.texts import catalogue
from service.store.repository import MatchRepository

_ = catalogue(__file__).gettext


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
        raise NoRecordFormat(_("{game} has no game record format", game=engine.info.name))
    if not accepts(engine.record.mime):
        raise NoRecordFormat(_("a {game} record is {mime}", game=engine.info.name, mime=engine.record.mime))
    state = repository.load(match_id)
    _at, entries = repository.read(match_id, until=state.version)
    return engine.record.mime, record_of(state, entries)


def record_of(state: MatchState, entries: list[Recorded]) -> str:
    """The record of the match at ``state`` whose log is ``entries`` (its game has a record format): its
    moves as a spectator sees them, those an undo took back left out."""
    record = state.engine.record
    assert record is not None, "asked of a game with a record format"
    events = projections.entries_view(state, kept_moves(entries), None)
    names = [name or "" for name in state.players]  # an open seat has nobody's name yet
    return record.export(state.options, names, events)
