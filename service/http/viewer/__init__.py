"""The match viewer: the pages and their scripts, for people with a browser.

The pages are static: everything they show they read from the public API (``/v1/...``), the same one
a third-party client uses, so the viewer needs nothing the API does not already give. Nothing here
knows a game: the boards are the engines' SVG or a game package's own board (``board.js``), the step
texts are the log entries' ``text``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from flask import Blueprint, Response, abort, jsonify, request, send_from_directory

from service.games import GAMES, texts

STATIC = Path(__file__).resolve().parent / "static"

viewer = Blueprint("viewer", __name__, static_folder=str(STATIC), static_url_path="/viewer/static")

# the pages run only their own scripts and styles, and fetch only this server
POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)


def _page(name: str) -> Response:
    response = send_from_directory(STATIC, name, mimetype="text/html", max_age=0)
    response.headers["Content-Security-Policy"] = POLICY
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@viewer.route("/", methods=["GET"])
def front_page() -> Response:
    return _page("index.html")


@viewer.route("/matches/<match_id>", methods=["GET"])
def match_page(match_id: str) -> Response:
    return _page("match.html")


@viewer.route("/tournaments/<tournament_id>", methods=["GET"])
def tournament_page(tournament_id: str) -> Response:
    """A tournament's page for anyone: its standings, kept current, and its bracket or its rounds."""
    return _page("tournament.html")


@viewer.route("/viewer/messages", methods=["GET"])
def page_messages() -> Response:
    """The pages' words in the reader's language (``Accept-Language`` or ``?lang=``, as for the API): the
    shell's, or with ``?game=`` the words of that game's board and its name. One small answer per page and
    language, read once: the page says a message missing here in English, its id."""
    game = request.args.get("game")
    if game is None:
        folder = texts.catalogue(__file__)
    elif game in GAMES:
        folder = texts.catalogue(str(_package(game) / "board.js"))
    else:
        abort(404)
    language = texts.language()
    texts.carries_texts()  # Content-Language and Vary: Accept-Language
    named = {} if game is None else {"name": GAMES[game].info.name}  # the box's name, for a page's title
    return jsonify(
        language=language, languages=texts.endonyms(), messages=folder.page_messages(language), **named
    )


def _package(game: str) -> Path:
    return Path(sys.modules[type(GAMES[game]).__module__].__file__ or "").parent


BOARD_FILES = {"board.js": "text/javascript", "board.css": "text/css"}
"""What a game's package may hold for the play page: a board to point at, and its styles."""


@viewer.route("/viewer/games/<game>/<name>", methods=["GET"])
def game_board(game: str, name: str) -> Response:
    """A game package's board for the play page (404 where the game has none: the page then shows the
    engine's drawing), so that a game's page code lives in its package, as its rules do."""
    if game not in GAMES or name not in BOARD_FILES:
        abort(404)
    package = _package(game)
    if not (package / name).is_file():
        abort(404)
    return send_from_directory(package, name, mimetype=BOARD_FILES[name], max_age=0)


@viewer.route("/play/<match_id>", methods=["GET"])
def play_page(match_id: str) -> Response:
    return _page("play.html")
