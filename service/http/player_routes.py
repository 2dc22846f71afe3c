"""The players' API, ``/v1/leaderboards`` and ``/v1/players``: the ratings projection
(``service.store.players``) as a platform reads it. Every route takes the platform's key and shows the
platform's own players only: another platform's ``u-123`` is someone else, and invisible here."""

from __future__ import annotations

from typing import Any

from flask import current_app

from service.games import GAMES
from service.http import schemas
from service.http.auth import request_platform
from service.http.errors import ApiError, invalid
from service.http.routes import PLATFORM, _errors, matches, v1
from service.store.players import PlayerStore


def players() -> PlayerStore:
    return current_app.extensions["matchlog-players"]


def _platform() -> str:
    platform = request_platform(matches())
    if platform is None:
        raise ApiError(
            401,
            "platform_key_required",
            "players and their ratings are a platform's: Authorization: Bearer <platform key>",
        )
    return platform["id"]


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit() or len(cursor) > 9:
        raise invalid({"cursor": ["not a cursor this endpoint gave"]})
    return int(cursor)


@v1.route("/leaderboards/<game>", methods=["GET"])
@v1.arguments(schemas.LeaderboardQuerySchema(), location="query")
@v1.response(200, schemas.LeaderboardSchema)
@v1.doc(security=PLATFORM)
@_errors(400, 401)
def get_leaderboard(query: dict[str, Any], game: str) -> dict[str, Any]:
    """The platform's players of a game's rating pool, best first by their conservative rating
    (mu - 3 sigma), with their rated matches; ``cursor`` pages on. A pool is the game with its variant or
    mode and its number of seats (``pool``; ``pools`` lists the game's)."""
    platform = _platform()
    if game not in GAMES:
        raise invalid({"game": [f"unknown game {game!r}; GET /v1/games lists them"]})
    store = players()
    pools = [p for p in store.pools(platform) if p.split(":")[0] == game]
    pool = query.get("pool")
    if pool is not None and pool.split(":")[0] != game:
        raise invalid({"pool": [f"{pool!r} is not a pool of {game}: pools are named <game>:<variant>:<n>p"]})
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
@v1.response(200, schemas.PlayerProfileSchema)
@v1.doc(security=PLATFORM)
@_errors(401, 404)
def get_player(player: str) -> dict[str, Any]:
    """The player's rating in each pool it has played rated matches in, with games, wins (ranked first),
    average rank and games and wins by seat position."""
    profile = players().player(_platform(), player)
    if profile is None:
        raise ApiError(404, "player_not_found", f"the platform has no rated player {player!r}")
    return profile


@v1.route("/players/<player>/matches", methods=["GET"])
@v1.arguments(schemas.CursorPageQuerySchema(), location="query")
@v1.response(200, schemas.PlayerMatchesSchema)
@v1.doc(security=PLATFORM)
@_errors(400, 401, 404)
def get_player_matches(query: dict[str, Any], player: str) -> dict[str, Any]:
    """The player's rated matches, newest first, each with the seat, the rank and the rating it left."""
    platform = _platform()
    cursor = query.get("cursor")
    if cursor is not None and not (cursor.partition(":")[0].isdigit() and cursor.partition(":")[2]):
        raise invalid({"cursor": ["not a cursor this endpoint gave"]})
    store = players()
    if store.player(platform, player) is None:
        raise ApiError(404, "player_not_found", f"the platform has no rated player {player!r}")
    rows, after = store.matches_of(platform, player, cursor, query["limit"])
    return {"player": player, "matches": rows, "next_cursor": after}
