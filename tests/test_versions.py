"""A dependency's private API is used where it was written for the installed version (``service.versions``):
an upgrade fails at start-up with a message naming the module to check, or falls back on the public API."""

from __future__ import annotations

import pytest

from service import versions
from service.http import fastload, schemas


def test_the_installed_versions_are_the_ones_written_for():
    assert versions.written_for("marshmallow", "4.") and versions.written_for("redis", "8.")
    assert not versions.written_for("marshmallow", "3.", "5.")
    assert not versions.written_for("no-such-distribution", "1.")


def test_another_version_stops_the_start_and_says_where_to_look():
    with pytest.raises(versions.UnexpectedVersion, match=r"service\.http\.moves_socket .*simple-websocket"):
        versions.require("simple-websocket", "0.9.", user="service.http.moves_socket")


def test_with_another_marshmallow_every_load_goes_to_the_schema(monkeypatch):
    assert fastload.compiled(schemas.SubmitActionSchema()) is not None
    monkeypatch.setattr(fastload, "MARSHMALLOW", False)
    assert fastload.compiled(schemas.SubmitActionSchema()) is None
    assert fastload.compiled_dump(schemas.AcceptedSchema()) is None
