"""A content pack is checked once per process, not once per match (Blackout's schema check costs
about 0.4 s of CPU): the check is remembered by the digest of the pack file and the options it reads."""

from __future__ import annotations

import json

import pytest

from service.config import Settings
from service.games import GAMES
from service.games.blackout_hong_kong import content as blackout_content
from service.games.chock_a_block import content as chock_content
from service.http.app import create_app
from service.store import packs

PLAYERS = [{"name": "ann"}, {"name": "bob"}]


def _counting(monkeypatch, module, name: str) -> list:
    calls = []
    checked = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *args, **kwargs: calls.append(1) or checked(*args, **kwargs))
    return calls


def test_creates_check_the_blackout_pack_at_most_once(client, monkeypatch):
    calls = _counting(monkeypatch, blackout_content, "_check_schema")
    for _ in range(3):
        response = client.post("/v1/matches", json={"game": "blackout-hong-kong", "players": PLAYERS})
        assert response.status_code == 201, response.json
    assert len(calls) <= 1  # none when an earlier test of this process checked it already


def test_an_installed_pack_is_checked_again_when_its_file_changes(tmp_path, fake_redis, monkeypatch):
    shipped = json.loads((GAMES["chock-a-block"].packs.folder / "cab-default-generated.json").read_text())
    folder = tmp_path / "chock-a-block"
    folder.mkdir()
    pack = folder / "mine.json"
    settings = Settings(namespace="test-packs", packs_dir=tmp_path)
    client = create_app(settings, fake_redis).test_client()

    def create():
        return client.post(
            "/v1/matches", json={"game": "chock-a-block", "players": PLAYERS, "options": {"pack": "mine"}}
        )

    calls = _counting(monkeypatch, chock_content, "_validator")
    pack.write_text(json.dumps({**shipped, "packId": "mine"}))
    assert create().status_code == 201 and create().status_code == 201
    assert len(calls) == 1
    pack.write_text(json.dumps({**shipped, "packId": "mine", "cards": "none"}))  # edited: checked again
    refused = create()
    assert refused.status_code == 400 and "options.pack" in refused.json["fields"], refused.json
    assert create().status_code == 400 and len(calls) == 2  # the refusal is remembered too


def test_the_options_a_check_reads_are_part_of_what_is_remembered(monkeypatch):
    game = GAMES["chock-a-block"]
    calls = _counting(monkeypatch, chock_content, "_validator")
    lax = {**game.resolve_options({}, 2), "pack_strict_counts": False}
    for options in (game.resolve_options({}, 2), lax, lax, game.resolve_options({}, 2)):
        packs.content_for(game, options)
    assert len(calls) <= 2


def test_every_match_gets_the_one_shared_content_and_none_can_change_it():
    game = GAMES["blackout-hong-kong"]
    options = game.resolve_options({}, 2)
    first = packs.content_for(game, options)
    with pytest.raises(TypeError):
        first.clear()
    assert packs.content_for(game, options) is first and first
