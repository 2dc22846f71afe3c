"""BLOCK.BLOCK through the HTTP API (Flask test client on fakeredis): whole games to the end, a game
lost by a player with no legal placement, option and action errors, content packs, the picture, and
the offline replay of an exported log."""

from __future__ import annotations

import dataclasses
import json
import random
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from service.cli import main
from service.http.app import create_app
from tests.games.test_block_block_rules import GOLDEN, GOLDEN_BOARD
from tests.helpers import act, bearer, create, play_random_game, run_jobs, score

GAME_ID = "block-block"
PLAYERS = [{"name": "ann"}, {"name": "bob"}]


def new_match(client, **options):
    options.setdefault("first_player", 0)  # ann (seat 0) plays brown
    return create(client, game=GAME_ID, players=PLAYERS, options=options)


def legal(client, match_id, token):
    response = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(token))
    assert response.status_code == 200, response.json
    return response.json


def test_catalogue_lists_block_block_with_its_options_and_pack(client):
    entry = next(g for g in client.get("/v1/games").json if g["id"] == GAME_ID)
    assert entry["name"] == "BLOCK.BLOCK" and entry["player_counts"] == [2]
    assert entry["hidden_information"] is False and entry["chance"] is False
    assert entry["packs"] == ["bb-default-generated"]
    assert entry["options_schema"]["properties"]["same_shape_stack_rule"]["default"] == "EXACT_COVER"


def test_golden_game_through_the_api(client, fake_redis, settings):
    """A.6 over HTTP: each move posted as shape, rotation and cell only, at the version the
    legal-actions answer gave; the server derives the heights; the result is brown 8.5, white 7."""
    match_id, tokens = new_match(client)
    for number, (player, shape, r, x, y, z, cubes) in enumerate(GOLDEN, start=1):
        seat = 0 if player == "BROWN" else 1
        listing = legal(client, match_id, tokens[seat])
        assert any(
            (a["shape"], a["rotation"], a["x"], a["y"], a["z"]) == (shape, r, x, y, z)
            for a in listing["actions"]
        ), number
        response = act(
            client,
            match_id,
            tokens[seat],
            listing["version"],
            {"type": "place", "shape": shape, "rotation": r, "x": x, "y": y},
        )
        assert response.status_code == 201, response.json
        placed = response.json["events"][0]
        assert placed["type"] == "piece_placed" and placed["data"]["z"] == z
        assert sorted(tuple(c) for c in placed["data"]["cubes"]) == cubes
    assert [e["type"] for e in response.json["events"]] == ["piece_placed", "game_over", "seed_revealed"]
    match = client.get(f"/v1/matches/{match_id}").json
    assert match["status"] == "finished" and match["to_act"] == []
    state = client.get(f"/v1/matches/{match_id}/state").json["state"]
    for row, y in zip(GOLDEN_BOARD, (3, 2, 1, 0)):
        assert [(state["tops"][y][x], state["heights"][y][x]) for x in range(4)] == row
    result = score(client, fake_redis, settings, match_id, tokens[0])
    assert result["final"] is True and result["scores"] == [8.5, 7] and result["ranks"] == [1, 2]
    assert result["winner"] == "BROWN" and result["reason"] == "SCORE"


def test_random_game_to_the_end_with_listed_actions_and_offline_replay(
    client, fake_redis, settings, tmp_path, capsys
):
    """A random game through the API only: legal actions as listed, posted back unchanged at the
    version they were listed at; then the exported log replays offline to the same result."""
    match_id, tokens = new_match(client, first_player="random")
    listings = []

    def only_the_seat_to_act_may_place(seat, listing):
        assert legal(client, match_id, tokens[1 - seat])["actions"] == []
        listings.append(listing)

    play_random_game(client, match_id, tokens, random.Random(3), on_listing=only_the_seat_to_act_may_place)
    assert len(listings) >= 2
    result = score(client, fake_redis, settings, match_id, tokens[0])
    log = client.get(f"/v1/matches/{match_id}/events?limit=1000").json
    over = next(e for e in log["events"] if e["type"] == "game_over")
    assert result["winner"] == over["data"]["winner"] and result["reason"] == over["data"]["reason"]
    path = tmp_path / "events.json"
    path.write_text(json.dumps(log))
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(path)])
    report = json.loads(capsys.readouterr().out)
    assert exit_.value.code == 0 and report["seed_verified"] and report["recorded_result_matches"]


def test_a_game_ending_with_a_player_who_cannot_place(client, fake_redis, settings):
    """T-21, R-1.1 over HTTP: on a 2 x 2 board of height 1, brown's O4 fills the board; white loses."""
    match_id, tokens = new_match(client, board_size=[2, 2], max_height=1)
    listing = legal(client, match_id, tokens[0])
    o4 = next(a for a in listing["actions"] if a["shape"] == "O4" and a["rotation"] == 0)
    response = act(client, match_id, tokens[0], listing["version"], o4)
    assert response.status_code == 201, response.json
    events = response.json["events"]
    assert [e["type"] for e in events] == ["piece_placed", "no_legal_placement", "game_over", "seed_revealed"]
    assert events[1]["seat"] == 1 and events[2]["data"]["winner"] == "BROWN"
    assert events[2]["data"]["reason"] == "NO_LEGAL_PLACEMENT"
    assert client.get(f"/v1/matches/{match_id}").json["status"] == "finished"
    assert legal(client, match_id, tokens[1])["actions"] == []
    refused = act(
        client,
        match_id,
        tokens[1],
        response.json["version"],
        {"type": "place", "shape": "I1", "rotation": 0, "x": 0, "y": 0},
    )
    assert refused.status_code == 422 and refused.json["reason"] == "game_over"
    result = score(client, fake_redis, settings, match_id, tokens[0])
    assert result["ranks"] == [1, 2] and result["reason"] == "NO_LEGAL_PLACEMENT"


@pytest.mark.parametrize(
    "options, field",
    [
        ({"board_size": [0, 4]}, "options.board_size"),
        ({"board_size": [4, 4, 4]}, "options.board_size"),
        ({"max_height": 0}, "options.max_height"),
        ({"tie_break": "COIN_TOSS"}, "options.tie_break"),
        ({"same_shape_stack_rule": "NEAR"}, "options.same_shape_stack_rule"),
        ({"first_player": 2}, "options.first_player"),
        ({"colour_blind": True}, "options.colour_blind"),
        ({"pack": "no-such-pack"}, "options.pack"),
    ],
)
def test_option_errors_name_the_field(client, options, field):
    response = client.post("/v1/matches", json={"game": GAME_ID, "players": PLAYERS, "options": options})
    assert response.status_code == 400, response.json
    assert response.json["error"] == "invalid_request" and field in response.json["fields"], response.json


def test_three_players_are_refused(client):
    response = client.post("/v1/matches", json={"game": GAME_ID, "players": PLAYERS + [{"name": "cat"}]})
    assert response.status_code == 400 and "players" in response.json["fields"]


def test_resolved_options_are_recorded(client):
    match_id, _ = new_match(client, board_size=[3, 3])
    options = client.get(f"/v1/matches/{match_id}").json["options"]
    assert options["board_size"] == [3, 3] and options["pack"] == "bb-default-generated"
    assert options["loss_check_timing"] == "START_OF_TURN" and options["first_player"] == 0
    created = client.get(f"/v1/matches/{match_id}/events").json["events"][0]
    assert created["data"]["content"]["packId"] == "bb-default-generated"  # the pack is in the log


def test_rejections_carry_the_spec_error_codes(client):
    """8.2 error codes as the 422 reason; a malformed action is a 400 naming the field."""
    match_id, tokens = new_match(client)
    assert (
        act(
            client, match_id, tokens[0], 1, {"type": "place", "shape": "I2", "rotation": 0, "x": 0, "y": 0}
        ).status_code
        == 201
    )
    cases: dict[str, tuple[int, dict[str, Any]]] = {
        "not_your_turn": (0, {"type": "place", "shape": "I1", "rotation": 0, "x": 3, "y": 3}),
        "same_shape_as_opponent": (1, {"type": "place", "shape": "I2", "rotation": 0, "x": 0, "y": 3}),
        "out_of_board": (1, {"type": "place", "shape": "I4", "rotation": 0, "x": 1, "y": 3}),
        "z_mismatch": (1, {"type": "place", "shape": "I1", "rotation": 0, "x": 0, "y": 0, "z": 0}),
        "unsupported": (1, {"type": "place", "shape": "O4", "rotation": 0, "x": 1, "y": 0}),
        "no_such_piece": (1, {"type": "place", "shape": "H", "rotation": 0, "x": 3, "y": 3}),
        "no_such_rotation": (1, {"type": "place", "shape": "I1", "rotation": 40, "x": 3, "y": 3}),
    }
    for reason, (seat, action) in cases.items():
        response = act(client, match_id, tokens[seat], 2, action)
        assert response.status_code == 422, (reason, response.json)
        assert response.json["error"] == "illegal_action" and response.json["reason"] == reason, response.json
    malformed: list[tuple[dict[str, Any], str]] = [
        ({"type": "place", "rotation": 0, "x": 0, "y": 0}, "action.shape"),
        ({"type": "place", "shape": "I1", "rotation": 24.5, "x": 0, "y": 0}, "action.rotation"),
        ({"type": "pass"}, "action.type"),
        ({"type": "place", "shape": "I1", "rotation": 0, "x": 0, "y": 0, "colour": "RED"}, "action.colour"),
    ]
    for action, field in malformed:
        response = act(client, match_id, tokens[1], 2, action)
        assert response.status_code == 400 and field in response.json["fields"], response.json
    assert client.get(f"/v1/matches/{match_id}").json["version"] == 2  # nothing appended


def test_resigning_ends_the_match(client):
    """E-7: either player, at any time."""
    match_id, tokens = new_match(client)
    response = act(client, match_id, tokens[1], 1, {"type": "resign"})
    assert response.status_code == 201
    assert [e["type"] for e in response.json["events"]] == ["resigned", "game_over", "seed_revealed"]
    assert response.json["events"][1]["data"]["winner"] == "BROWN"


def test_state_as_svg(client):
    """Accept: image/svg+xml on the state draws the top view and the isometric view."""
    match_id, tokens = new_match(client)
    act(client, match_id, tokens[0], 1, {"type": "place", "shape": "I3", "rotation": 12, "x": 0, "y": 0})
    response = client.get(f"/v1/matches/{match_id}/state", headers={"Accept": "image/svg+xml"})
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    root = ET.fromstring(response.data)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    assert (
        root.find(f"{ns}g[@id='top-view']") is not None
        and root.find(f"{ns}g[@id='isometric-view']") is not None
    )
    json_state = client.get(f"/v1/matches/{match_id}/state").json["state"]
    assert json_state["tops"][0][0] == "WHITE" and json_state["heights"][0][0] == 3


# -- content packs installed on the server ------------------------------------------------------------------


def tiny_pack(**changes):
    pack = {
        "packId": "tiny",
        "version": "1",
        "provenance": "TEST_FIXTURE",
        "board": {"width": 2, "depth": 1},
        "maxHeight": 1,
        "shapes": [{"shapeId": "I1", "cubes": [[0, 0, 0]]}],
        "sets": {"BROWN": [{"shapeId": "I1", "count": 1}], "WHITE": [{"shapeId": "I1", "count": 1}]},
    }
    pack.update(changes)
    return pack


@pytest.fixture
def pack_client(settings, fake_redis, tmp_path):
    folder = tmp_path / GAME_ID
    folder.mkdir()
    (folder / "tiny.json").write_text(json.dumps(tiny_pack()))
    (folder / "broken.json").write_text(
        json.dumps(
            tiny_pack(
                packId="broken",
                shapes=[
                    {
                        "shapeId": "I1",
                        "cubes": [[0, 0, 0]],
                        "faceColours": [{"cube": 0, "face": "+Q", "colour": "OWNER"}],
                    }
                ],
            )
        )
    )
    return create_app(dataclasses.replace(settings, packs_dir=tmp_path), fake_redis).test_client()


def test_an_installed_pack_is_listed_and_played(pack_client):
    """1.8: a TEST_FIXTURE pack from MATCHLOG_PACKS, with pack_strict_counts off: two cells, one
    cube each; the game ends on score after two moves."""
    entry = next(g for g in pack_client.get("/v1/games").json if g["id"] == GAME_ID)
    assert entry["packs"] == ["bb-default-generated", "broken", "tiny"]
    match_id, tokens = new_match(
        pack_client, pack="tiny", pack_strict_counts=False, tie_break="SECOND_PLAYER"
    )
    state = pack_client.get(f"/v1/matches/{match_id}/state").json["state"]
    assert state["board"] == {"width": 2, "depth": 1, "max_height": 1}
    assert state["pack"]["provenance"] == "TEST_FIXTURE"
    act(pack_client, match_id, tokens[0], 1, {"type": "place", "shape": "I1", "rotation": 0, "x": 0, "y": 0})
    response = act(
        pack_client, match_id, tokens[1], 2, {"type": "place", "shape": "I1", "rotation": 0, "x": 1, "y": 0}
    )
    over = response.json["events"][1]
    assert over["type"] == "game_over" and over["data"]["score"] == {"BROWN": 1, "WHITE": 1}
    assert over["data"]["winner"] == "WHITE" and over["data"]["tie_break"] == "SECOND_PLAYER"


def test_invalid_and_non_strict_packs_are_refused_naming_the_field(pack_client):
    """1.8.1: a pack failing its schema is a 400 on options.pack naming the item and field; K-7
    refuses the tiny set unless pack_strict_counts is false."""

    def create_with(pack):
        return pack_client.post(
            "/v1/matches", json={"game": GAME_ID, "players": PLAYERS, "options": {"pack": pack}}
        )

    response = create_with("broken")
    assert response.status_code == 400
    assert "shapes[0] (I1).faceColours[0].face" in response.json["fields"]["options.pack"][0]
    response = create_with("tiny")
    assert response.status_code == 400 and "K-7" in response.json["fields"]["options.pack"][0]


def test_a_pack_is_named_by_its_file(settings, fake_redis, tmp_path):
    folder = tmp_path / GAME_ID
    folder.mkdir()
    (folder / "renamed.json").write_text(json.dumps(tiny_pack(packId="something-else")))
    client = create_app(dataclasses.replace(settings, packs_dir=tmp_path), fake_redis).test_client()
    response = client.post(
        "/v1/matches",
        json={
            "game": GAME_ID,
            "players": PLAYERS,
            "options": {"pack": "renamed", "pack_strict_counts": False},
        },
    )
    assert response.status_code == 400
    assert "packId" in response.json["fields"]["options.pack"][0]


def test_a_game_lost_before_the_first_move_still_reveals_its_seed_and_is_scored(
    settings, fake_redis, tmp_path
):
    """R-1.1 at the very first turn: brown's only piece fits nowhere on a 1x1 board. The match is
    over at creation; the log reveals the seed, and the rule worker has it scored like any other."""
    from service.application.matches import Matches
    from workers.projector import Projector

    folder = tmp_path / GAME_ID
    folder.mkdir()
    o4 = {"shapeId": "O4", "cubes": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]}
    (folder / "stuck.json").write_text(
        json.dumps(
            tiny_pack(
                packId="stuck",
                board={"width": 1, "depth": 1},
                shapes=[o4],
                sets={"BROWN": [{"shapeId": "O4", "count": 1}], "WHITE": [{"shapeId": "O4", "count": 1}]},
            )
        )
    )
    configured = dataclasses.replace(settings, packs_dir=tmp_path, claim_idle_ms=0)
    client = create_app(configured, fake_redis).test_client()
    match_id, _ = new_match(client, pack="stuck", pack_strict_counts=False)
    log = client.get(f"/v1/matches/{match_id}/events").json["events"]
    assert [e["type"] for e in log] == ["match_created", "seed_revealed"]
    assert client.get(f"/v1/matches/{match_id}").json["status"] == "finished"

    projector = Projector(Matches(fake_redis, configured), fake_redis, consumer="test", block_ms=1)
    projector.step()
    run_jobs(fake_redis, settings)
    result = client.get(f"/v1/matches/{match_id}").json["result"]
    assert result["final"] is True and result["winner"] == "WHITE"


def test_a_board_bigger_than_8_is_refused_at_creation(client):
    """The legal-actions answer grows with the board: 26,253 placements (4.5 MB) at 32 x 32."""
    response = client.post(
        "/v1/matches", json={"game": GAME_ID, "players": PLAYERS, "options": {"board_size": [32, 32]}}
    )
    assert response.status_code == 400 and response.json["error"] == "invalid_request", response.json
    assert "options.board_size" in response.json["fields"]
    assert "maximum of 8" in response.json["message"], response.json["message"]
    assert new_match(client, board_size=[8, 8])  # the largest allowed


def test_a_match_made_with_a_bigger_board_before_the_cap_still_replays(
    client, settings, fake_redis, monkeypatch
):
    from service.domain import lifecycle
    from service.games import GAMES

    game = GAMES[GAME_ID]
    with monkeypatch.context() as patched:  # the creation check of an earlier version, which allowed 32
        patched.setattr(
            lifecycle,
            "check_options",
            lambda game_id, options, players: {**game.resolve_options({}, players), **options},
        )
        match_id, tokens = new_match(client, board_size=[12, 12])
    fresh = create_app(settings, fake_redis).test_client()  # no cached state: folded from the log
    assert fresh.get(f"/v1/matches/{match_id}").json["options"]["board_size"] == [12, 12]
    actions = legal(fresh, match_id, tokens[0])
    assert len(actions["actions"]) > 1389
    played = act(fresh, match_id, tokens[0], actions["version"], actions["actions"][0])
    assert played.status_code == 201, played.json
