"""A game is one package: a toy game that lives only under ``tests/`` is registered, listed,
documented, played to the end over HTTP, scored and replayed, and no file of ``service/`` names it; no
line outside the game packages names any game (tests/test_new_game_package.py drops the toy game into
``service/games/`` of a copy of the tree and runs every check a new game meets)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import fakeredis
import pytest

from service import games
from service.cli import main
from service.http.app import create_app, spec
from service.http.openapi_components import prefix
from tests import toy_nim
from tests.helpers import create, play_random_game, score

ROOT = Path(__file__).resolve().parents[1]
SERVICE = ROOT / "service"
PLAYERS = [{"name": "ann"}, {"name": "bob"}]


@pytest.fixture
def toy_client(settings):
    games.register(toy_nim.GAME)
    redis = fakeredis.FakeRedis()
    try:
        yield create_app(settings, redis).test_client(), redis
    finally:
        games.unregister(toy_nim.GAME.info.id)


def test_no_file_of_the_service_names_the_toy_game():
    for path in SERVICE.rglob("*"):
        if path.is_file() and path.suffix in (".py", ".json", ".yaml"):
            text = path.read_text(encoding="utf-8").lower()
            assert "toy-nim" not in text and "toynim" not in text and "toy_nim" not in text, path


def test_the_catalogue_lists_what_the_toy_game_declares(toy_client):
    client, _ = toy_client
    entry = next(g for g in client.get("/v1/games").json if g["id"] == "toy-nim")
    assert entry["packs"] == ["classic", "tiny"]
    assert entry["pictures"] == ["image/svg+xml"]
    assert entry["record_type"] == "text/x-nim"
    assert entry["options_schema"]["properties"]["max_take"]["default"] == 3


def test_the_served_openapi_documents_the_toy_game(toy_client):
    client, _ = toy_client
    document = client.get("/openapi.json").json
    schemas = document["components"]["schemas"]
    assert schemas["ToyNimTakeAction"]["properties"]["heap"]["type"] == "integer"  # each type its own shape
    assert {"$ref": "#/components/schemas/ToyNimAction"} in schemas["Action"]["anyOf"]
    assert "text/x-nim" in schemas["ImportMatch"]["properties"]["record_type"]["enum"]  # its records imported
    created = schemas["CreateMatch"]["discriminator"]["mapping"]  # its create body, options typed
    assert created[toy_nim.GAME.info.id] == "#/components/schemas/ToyNimCreateMatch"
    assert schemas["ToyNimCreateOptions"]["properties"]["max_take"]["type"] == "integer"
    record = document["paths"]["/v1/matches/{match_id}/record"]["get"]["responses"]["200"]["content"]
    assert "text/x-nim" in record


def test_the_toy_game_is_played_scored_and_replayed_over_http(toy_client, settings, tmp_path, capsys):
    client, redis = toy_client
    match_id, tokens = create(client, "toy-nim", PLAYERS, options={"pack": "tiny", "max_take": 2})
    final = play_random_game(client, match_id, tokens, random.Random(7))
    assert final["status"] == "finished"
    score(client, redis, settings, match_id, tokens[0])
    result = client.get(f"/v1/matches/{match_id}").json["result"]
    assert sorted(result["scores"]) == [0, 1]

    log = client.get(f"/v1/matches/{match_id}/events?limit=1000").json
    assert log["events"][0]["data"]["content"] == {"heaps": [1, 2]}  # the pack is in the log
    path = tmp_path / "events.json"
    path.write_text(json.dumps(log))
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(path)])
    assert exit_.value.code == 0
    assert json.loads(capsys.readouterr().out)["recorded_result_matches"] is True


def test_the_toy_game_draws_itself_and_round_trips_its_record(toy_client):
    client, _ = toy_client
    match_id, _tokens = create(client, "toy-nim", PLAYERS)
    picture = client.get(f"/v1/matches/{match_id}/state", headers={"Accept": "image/svg+xml"})
    assert (
        picture.status_code == 200 and picture.mimetype == "image/svg+xml" and b"<title>Nim" in picture.data
    )

    record = "nim 3 ann,bob 0:3 1:2 2:3"
    created = client.post("/v1/matches", data=record, content_type="text/x-nim")
    assert created.status_code == 201, created.json
    exported = client.get(f"/v1/matches/{created.json['id']}/record", headers={"Accept": "text/x-nim"})
    assert exported.status_code == 200 and exported.get_data(as_text=True) == record

    illegal = client.post("/v1/matches", data="nim 3 ann,bob 0:4", content_type="text/x-nim")
    assert illegal.status_code == 422 and illegal.json["move"] == 1 and illegal.json["reason"] == "too_many"


def test_an_unregistered_game_leaves_the_openapi_document(settings):
    games.register(toy_nim.GAME)
    games.unregister(toy_nim.GAME.info.id)
    document = spec(create_app(settings, fakeredis.FakeRedis()))
    assert "ToyNimAction" not in document["components"]["schemas"]


def naming(game: games.Game) -> re.Pattern[str]:
    """What names a game: its id, package, component prefix and name in any case (``block-block``,
    ``block_block``, ``BlockBlock``, ``BLOCK.BLOCK``), and each word of its name as written (``Chock``,
    ``Hong``)."""
    spelled = {game.info.id, game.info.id.replace("-", "_"), prefix(game), game.info.name}
    spelled.add(games.package_folder(game).name)
    words = {word for word in re.findall(r"[A-Za-z]{3,}", game.info.name) if word[0].isupper()}
    return re.compile(
        "|".join(f"(?i:{re.escape(s)})" for s in sorted(spelled))
        + "".join(f"|\\b{w}\\b" for w in sorted(words))
    )


UNNAMED = [
    *(p for p in SERVICE.rglob("*") if "games" not in p.relative_to(SERVICE).parts[:1]),
    *(ROOT / "workers").rglob("*"),
    ROOT / "docs" / "gen_reference.py",
    ROOT / "docs" / "index.md",  # its list of games is made while the site builds
    ROOT / "docs" / "games" / "index.md",
    ROOT / "docs" / "rules" / "README.md",
    ROOT / "mkdocs.yml",
    ROOT / "pyproject.toml",
]
"""Where no game is named: the shell (service/ but service/games/, workers/), the documentation's machinery
and the pages that list the games. A game's page and spec live in its package; the README's list is generated
(tests/test_docs.py); openapi.yaml is generated; the guides, the tutorial, the changelog and the tests use
one game or another as their example, as they may."""


def test_no_line_outside_the_game_packages_names_a_game():
    patterns = {game.info.id: naming(game) for game in games.GAMES.values()}
    found = []
    for path in UNNAMED:
        if path.is_file() and path.suffix in (
            ".py",
            ".json",
            ".yaml",
            ".yml",
            ".toml",
            ".md",
            ".js",
            ".html",
            ".css",
        ):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                found += [
                    f"{path.relative_to(ROOT)}:{number}: {game_id}: {line.strip()}"
                    for game_id, pattern in patterns.items()
                    if pattern.search(line)
                ]
    assert found == []


def test_the_check_of_names_finds_each_spelling():
    game = next(iter(games.GAMES.values()))
    pattern = naming(game)
    for spelled in (
        game.info.id.upper(),
        game.info.id.replace("-", "_"),
        prefix(game) + "Action",
        game.info.name,
    ):
        assert pattern.search(f"a line with {spelled} in it"), spelled
    assert not pattern.search("a line that names no game")
