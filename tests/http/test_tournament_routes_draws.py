"""A double elimination whose meeting is drawn, played through the API to its champion: with
``knockout_draws: replay`` the drawn meeting is played again in the next round with its seats swapped, and
the finished tournament's log, with every match's log, passes ``matchlog replay``.

BLOCK.BLOCK on the test's ``tiny`` pack (two cells, one cube each) can be drawn at will: each seat places its
one cube, the score is 1 to 1 and ``tie_break: DRAW`` leaves it a draw (E-5); a game is won by the other
seat's concession."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from service.cli import main
from service.http.app import create_app
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.games.test_block_block_api import GAME_ID, tiny_pack
from tests.helpers import bearer
from tests.http.test_openapi_components_typed import fits

DRAWN = {"pack": "tiny", "pack_strict_counts": False, "tie_break": "DRAW"}


@pytest.fixture
def client(settings, fake_redis, tmp_path):
    folder = tmp_path / "packs" / GAME_ID
    folder.mkdir(parents=True)
    (folder / "tiny.json").write_text(json.dumps(tiny_pack()))
    return create_app(dataclasses.replace(settings, packs_dir=tmp_path / "packs"), fake_redis).test_client()


def call(client, method: str, url: str, key: str | None, status: int, **body: Any) -> dict[str, Any]:
    answer = client.open(url, method=method, json=body or None, headers=bearer(key) if key else {})
    assert answer.status_code == status, answer.json
    return answer.json


def draw(client, game: dict[str, Any]) -> None:
    """Each seat places its one cube, in the order the match asks: a 1 to 1 draw (scored when the organiser
    next reads the tournament)."""
    tokens = {seat["seat"]: seat["token"] for seat in game["seats"]}
    url = f"/v1/matches/{game['match']}"
    for _ in tokens:
        match = call(client, "GET", url, None, 200)
        (seat,) = match["to_act"]
        legal = call(client, "GET", f"{url}/legal-actions", tokens[seat], 200)["actions"]
        call(
            client,
            "POST",
            f"{url}/actions",
            tokens[seat],
            201,
            expected_version=match["version"],
            action=legal[0],
        )
    assert call(client, "GET", url, None, 200)["status"] == "finished"


def test_a_drawn_double_elimination_meeting_is_replayed_seats_swapped_and_audits(
    client, fake_redis, settings, tmp_path, capsys
) -> None:
    key = Platforms(fake_redis, Keys(settings.namespace)).create("club")[1]
    body = {"name": "Draw cup", "kind": "double_elimination", "game": GAME_ID, "options": DRAWN}
    made = call(client, "POST", "/v1/tournaments", key, 201, **body, knockout_draws="replay")
    url = f"/v1/tournaments/{made['id']}"
    for name in ("ann", "bob"):
        call(client, "POST", f"{url}/players", key, 201, player=f"u-{name}", name=name)
    first = call(client, "POST", f"{url}/rounds", key, 201)["current_round"]["matches"][0]
    draw(client, first)
    read = fits("Tournament", call(client, "GET", url, key, 200))
    assert read["current_round"]["matches"][0]["ranks"] == [1, 1]
    meeting = next(m for m in read["bracket"]["meetings"] if m["match"] == first["match"])
    assert meeting["winner"] is None  # a draw decides nothing: the meeting is played again

    again = call(client, "POST", f"{url}/rounds", key, 201)
    replayed = again["current_round"]["matches"][0]
    assert again["current_round"]["number"] == 2
    assert replayed["players"] == list(reversed(first["players"]))
    meetings = {m["match"]: m["meeting"] for m in again["bracket"]["meetings"] if m["match"]}
    assert meetings[replayed["match"]] == meeting["meeting"]
    games = [first, replayed]
    call(client, "POST", f"/v1/matches/{replayed['match']}/concede", replayed["seats"][1]["token"], 201)
    while (read := call(client, "GET", url, key, 200))["status"] != "finished":
        game = call(client, "POST", f"{url}/rounds", key, 201)["current_round"]["matches"][0]
        call(client, "POST", f"/v1/matches/{game['match']}/concede", game["seats"][1]["token"], 201)
        games.append(game)
    assert read["bracket"]["champion"] == replayed["players"][0]

    logs = []
    for game in games:
        path = tmp_path / f"{game['match']}.jsonl"
        path.write_bytes(client.get(f"/v1/matches/{game['match']}/log").data)
        logs.append(str(path))
    tournament = tmp_path / "tournament.json"
    tournament.write_text(json.dumps(call(client, "GET", f"{url}/log?limit=1000", None, 200)))
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(tournament), "--matches", *logs])
    report = json.loads(capsys.readouterr().out)
    assert exit_.value.code == 0, report
    assert report["finished"] and report["rounds"] == len(games)
    assert report["results_checked"] == report["seats_checked"] == report["match_ids_checked"] == len(games)
    assert report["matches_without_log"] == 0
