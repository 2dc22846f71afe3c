"""The match viewer: two pages and their scripts, for people with a browser.

The pages are static: everything they show they read from the public API (``/v1/...``), the same one
a third-party client uses, so the viewer needs nothing the API does not already give. Nothing here
knows a game: the boards are the engines' SVG, the step texts are the log entries' ``text``.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

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
