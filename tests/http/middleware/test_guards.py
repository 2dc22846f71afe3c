"""The request guards measure a request's URL and headers exactly only when cheap bounds cannot tell that
they are within the limits (``guards.within_limits``): on random requests around and over the limits
(long paths and query strings, many fields, long values, names that grow when werkzeug titles them), the
bounds never let through a request the exact measure (``guards._measure_sizes``) refuses."""

from __future__ import annotations

import json
import random

import flask
import pytest
from werkzeug.datastructures import EnvironHeaders
from werkzeug.test import EnvironBuilder

from service import serving
from service.http import errors
from service.http.errors import ApiError
from service.http.middleware import guards

CHARACTERS = ["a", "Z", "0", "-", "_", "/", "%", "é", "ß", "ﬃ", "ΐ", "☃", "\x00"]


def _text(rng: random.Random, length: int, ascii_only: bool = False) -> str:
    """A WSGI string (bytes as latin-1) of about ``length`` characters: UTF-8 text, or now and then a byte
    that is no UTF-8."""
    pool = CHARACTERS[:6] if ascii_only else CHARACTERS
    text = "".join(rng.choice(pool) for _ in range(length)).encode().decode("latin-1")
    return text if ascii_only or rng.random() < 0.5 else text + "\xff"


def _name(rng: random.Random) -> str:
    """A header's WSGI key: ``ß`` and ``ÿ`` grow, or change, when werkzeug titles the name."""
    return "HTTP_" + "".join(rng.choice("ABZ_ßÿ") for _ in range(rng.randrange(1, 30)))


def _environ(rng: random.Random) -> dict:
    environ = EnvironBuilder(path="/", method=rng.choice(["GET", "POST"])).get_environ()
    scale = rng.choice([10, 100, 1000, 3000])
    environ["PATH_INFO"] = "/" + _text(rng, rng.randrange(scale))
    environ["QUERY_STRING"] = _text(rng, rng.randrange(scale), ascii_only=rng.random() < 0.7)
    for _ in range(rng.choice([0, 5, 40, 120, 130])):
        environ[_name(rng)] = _text(rng, rng.randrange(rng.choice([10, 200, 2000])))
    if rng.random() < 0.5:
        environ["CONTENT_TYPE"] = "application/json"
    return environ


def _at_the_limit(rng: random.Random) -> dict:
    """A request whose header fields, as werkzeug names them, come within a few bytes of the limit, above
    or below, with names that grow when titled."""
    environ = EnvironBuilder(path="/").get_environ()
    for _ in range(rng.randrange(1, 20)):
        environ[_name(rng)] = _text(rng, rng.randrange(200), ascii_only=True)
    exact = sum(len(k) + len(v) + 4 for k, v in EnvironHeaders(environ).items())
    name = "HTTP_" + "ß" * rng.randrange(1, 40)
    room = guards.MAX_HEADER_BYTES - exact - 2 * (len(name) - 5) - 4 + rng.randrange(-8, 9)
    environ[name] = "v" * max(0, room)
    return environ


@pytest.mark.no_cover  # what it runs is covered by faster tests; traced, it took 3 times as long
def test_the_bounds_never_pass_what_the_exact_measure_refuses(app):
    rng = random.Random(28)
    seen = {"within": 0, "measured, passed": 0, "measured, refused": 0}
    for i in range(1500):
        environ = _environ(rng) if i % 3 else _at_the_limit(rng)
        with app.request_context(environ):
            within = guards.within_limits(environ)
            try:
                guards._measure_sizes(flask.request._get_current_object())  # type: ignore[attr-defined]
                refused = False
            except (ApiError, UnicodeError):
                refused = True
        assert not (within and refused), environ
        seen["within" if within else f"measured, {'refused' if refused else 'passed'}"] += 1
    assert min(seen.values()) >= 50, seen  # every way was taken, often


def test_the_serving_layer_reads_every_head_the_api_answers_and_refuses_the_rest_in_its_shape():
    """What gunicorn reads (``service.serving``) holds any URL and headers within the API's limits, its
    path percent-encoded, so that the API's 414 and 431 answer them; beyond, its refusals carry the same
    codes, in the API's error shape."""
    longest_method_and_version = len("OPTIONS  HTTP/1.1")
    assert 3 * guards.MAX_URL_BYTES + longest_method_and_version <= serving.HEAD_LINE_BYTES
    assert (
        serving.HEAD_BLOCK_BYTES > guards.MAX_HEADER_BYTES and serving.HEAD_FIELDS > guards.MAX_HEADER_FIELDS
    )
    for refusal, status, code in (
        (serving.LINE_REFUSAL, 414, "uri_too_long"),
        (serving.HEADERS_REFUSAL, 431, "request_header_fields_too_large"),
    ):
        head, _, body = refusal.partition(b"\r\n\r\n")
        assert head.split(b"\r\n")[0].split()[1] == str(status).encode()
        assert f"Content-Length: {len(body)}".encode() in head.split(b"\r\n")
        answer = json.loads(body)
        assert set(answer) == {"error", "message"} and answer["error"] == code and code in errors.API_ERRORS
