"""The players' API, ``/v1/leaderboards`` and ``/v1/players``: the ratings projection
(``service.store.players``) as a platform reads it. Every route takes the platform's key and shows the
platform's own players only: another platform's ``u-123`` is someone else, and invisible here."""

from __future__ import annotations

import re
from typing import Any

from flask import current_app

from service.application import player_matches
from service.games import GAMES
from service.games.texts import catalogue
from service.http import schemas
from service.http.auth import required_platform
from service.http.errors import ApiError, invalid, not_a_cursor, unknown_game
from service.http.routes import PLATFORM, _errors, matches, v1
from service.store.player_matches import Cursor
from service.store.players import PlayerStore

_ = catalogue(__file__).gettext


PLACE = re.compile(r"[0-9]{1,9}")  # ASCII digits: str.isdigit() also takes "²", which int() refuses
RATED_CURSOR = re.compile(r"[0-9]{1,15}:.+")  # ``matches_of``'s: <ended_ms>:<match id>


def players() -> PlayerStore:
    return current_app.extensions["matchlog-players"]


def _platform() -> str:
    return required_platform(matches(), _("players and their ratings are a platform's"))


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not PLACE.fullmatch(cursor):
        raise not_a_cursor()
    return int(cursor)


@v1.route("/leaderboards/<game>", methods=["GET"])
@v1.doc(operationId="getLeaderboard")
@v1.arguments(schemas.LeaderboardQuerySchema(), location="query")
@v1.response(200, schemas.LeaderboardSchema)
@v1.doc(security=PLATFORM)
@_errors(400, 401)
def get_leaderboard(query: dict[str, Any], game: str) -> dict[str, Any]:
    """The platform's players of a game's rating pool, best first by their conservative rating
    (mu - 3 sigma), with their rated matches; `cursor` pages on. A pool is the game with its variant or
    mode and its number of seats (`pool`; `pools` lists the game's)."""
    platform = _platform()
    if game not in GAMES:
        raise unknown_game(game)
    store = players()
    pools = [p for p in store.pools(platform) if p.split(":")[0] == game]
    pool = query.get("pool")
    if pool is not None and pool.split(":")[0] != game:
        named = _(
            "{pool} is not a pool of {game}: pools are named <game>:<variant>:<n>p",
            pool=repr(pool),
            game=game,
        )
        raise invalid({"pool": [named]})
    if pool is None:
        pool = max(pools, key=lambda p: (store.board_size(platform, p), p), default=None)
    if pool is None:
        return {"game": game, "pool": None, "pools": [], "players": [], "next_cursor": None}
    rows, after = store.leaderboard(platform, pool, _offset(query.get("cursor")), query["limit"])
    return {
        "game": game,
        "pool": pool,
        "pools": pools,
        "players": rows,
        "next_cursor": None if after is None else str(after),
    }


@v1.route("/players/<player>", methods=["GET"])
@v1.doc(operationId="getPlayer")
@v1.response(200, schemas.PlayerProfileSchema)
@v1.doc(security=PLATFORM)
@_errors(401, 404)
def get_player(player: str) -> dict[str, Any]:
    """The player's rating in each pool it has played rated matches in, with games, wins (ranked first),
    average rank and games and wins by seat position."""
    profile = players().player(_platform(), player)
    if profile is None:
        raise ApiError(
            404, "player_not_found", _("the platform has no rated player {player!r}", player=player)
        )
    return profile


@v1.route("/players/<player>/matches", methods=["GET"])
@v1.doc(operationId="listPlayerMatches")
@v1.arguments(schemas.PlayerMatchesQuerySchema(), location="query")
@v1.response(200, schemas.PlayerMatchesSchema)
@v1.doc(security=PLATFORM)
@_errors(400, 401, 404)
def get_player_matches(query: dict[str, Any], player: str) -> dict[str, Any]:
    """The player's rated matches, newest first; with `status`, its matches as they stand.

    Without `status`: its rated matches, each with the seat, the rank and the rating it left (404
    `player_not_found` for a player with none). With `status=active`: its matches not over (the lobby's open
    ones too), with the seat it holds, whose turn it is and when each last changed, newest seat first; with
    `status=finished`: the newest that ended. A player id is the platform's own: another platform's `u-123` is
    someone else."""
    platform = _platform()
    status = query.get("status")
    if status is not None:
        cursor = query.get("cursor")
        parsed = None if cursor is None else Cursor.parse(cursor)
        if cursor is not None and parsed is None:
            raise not_a_cursor()
        rows, after = player_matches.listed(
            matches().stores, platform, player, status, parsed, query["limit"]
        )
        return {"player": player, "matches": rows, "next_cursor": after}
    cursor = query.get("cursor")
    if cursor is not None and not RATED_CURSOR.fullmatch(cursor):
        raise not_a_cursor()
    store = players()
    if store.player(platform, player) is None:
        raise ApiError(
            404, "player_not_found", _("the platform has no rated player {player!r}", player=player)
        )
    rows, after = store.matches_of(platform, player, cursor, query["limit"])
    return {"player": player, "matches": rows, "next_cursor": after}
