"""``/docs``: the interactive API reference, Swagger UI reading the served ``/openapi.json``.

Swagger UI's built files come from an installed package (``flask-swagger-ui``, pinned in pyproject.toml;
only its ``dist/`` folder is used, not its blueprint, whose page runs an inline script). This module adds
the page and the few lines that start Swagger UI, so everything the page loads comes from this server:
it works offline, and its Content-Security-Policy lets it fetch nothing from anywhere else.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from flask import Blueprint, Response, redirect, send_from_directory
from werkzeug.wrappers import Response as WerkzeugResponse

HERE = Path(__file__).resolve().parent
SWAGGER_UI = Path(str(files("flask_swagger_ui") / "dist"))

apidocs = Blueprint("apidocs", __name__)

# Swagger UI sets inline styles and draws its icons as data: images; it talks to this server only
POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)


def _headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = POLICY
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@apidocs.route("/docs", methods=["GET"])
def docs_redirect() -> WerkzeugResponse:
    return redirect("/docs/", code=308)


@apidocs.route("/docs/", methods=["GET"])
def docs_page() -> Response:
    return _headers(send_from_directory(HERE, "docs.html", mimetype="text/html", max_age=0))


@apidocs.route("/docs/start.js", methods=["GET"])
def docs_start() -> Response:
    return _headers(send_from_directory(HERE, "start.js", max_age=0))


@apidocs.route("/docs/swagger-ui/<path:name>", methods=["GET"])
def swagger_ui_file(name: str) -> Response:
    return _headers(send_from_directory(SWAGGER_UI, name, max_age=3600))
