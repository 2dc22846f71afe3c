"""Open data: the finished public matches with their logs, a page at a time (``service.application.exports``)."""

from __future__ import annotations

import json
from typing import Any, cast

from flask import Response, current_app

from service.application import exports
from service.games import GAMES
from service.http import schemas
from service.http.errors import unknown_game
from service.http.middleware.guards import GuardedJSON
from service.http.routes import NO_CREDENTIAL, _errors, matches, v1


@v1.route("/exports/matches", methods=["GET"])
@v1.doc(operationId="exportMatches")
@v1.doc(security=NO_CREDENTIAL)
@v1.arguments(schemas.ExportQuerySchema(), location="query")
@v1.response(200, schemas.ExportSchema)
@_errors(400)
def export_matches(query: dict[str, Any]) -> Response:
    """The finished public matches, oldest first (by creation), optionally of one `game`, each with its whole
    log as a spectator reads it and its game record (where its game has a record format); `cursor` pages on.
    Open data: anyone may read it, and a credential changes nothing (a platform's own matches are exported
    only if public)."""
    if query.get("game") is not None and query["game"] not in GAMES:
        raise unknown_game(query["game"])
    app = matches()
    found, next_cursor = exports.page(
        app.repository, app.stores.listings, query.get("game"), query.get("cursor"), query["limit"]
    )
    provider = cast(GuardedJSON, current_app.json)
    body = b'{"matches":[' + b",".join(found) + b'],"next_cursor":' + provider.part(next_cursor) + b"}\n"
    if provider.indented:  # answers for people: decoded, to be indented
        return provider.response(json.loads(body))
    return current_app.response_class(body, mimetype=provider.mimetype)
