"""Blackout: Hong Kong against a real Redis (REDIS_URL, or the embedded one): every mode and player count
played to the end through the HTTP API, scored by the worker's job, and verified by ``matchlog replay``
from the exported log; the planning phase's secrecy as each seat and a spectator see it over HTTP;
the SVG picture; creation errors naming the option."""

from __future__ import annotations

import json
import random
import xml.dom.minidom

import pytest

from service.cli import main
from service.games.blackout_hong_kong import GAME
from tests.helpers import act, bearer, create, full_log, play_random_game, score

GAME_ID = "blackout-hong-kong"
MODES = [
    ("single-2", 2, {}),
    ("single-3", 3, {}),
    ("single-4", 4, {}),
    ("campaign-1-solo", 1, {"mode": "CAMPAIGN"}),
    ("campaign-2", 2, {"mode": "CAMPAIGN"}),
    ("campaign-3", 3, {"mode": "CAMPAIGN", "CAMPAIGN_MIN_VP": 10}),
    ("campaign-4", 4, {"mode": "CAMPAIGN", "P6_P7_SIMULTANEOUS": False}),
    ("solo-single", 1, {"mode": "SINGLE", "ALLOW_SOLO_SINGLE": True, "SOLO_MARKET_DECAY": True}),
]


def new_match(client, n, options=None, seed="api"):
    return create(
        client, game=GAME_ID, players=[{"name": f"p{i}"} for i in range(n)], options=options or {}, seed=seed
    )


@pytest.mark.parametrize("label, n, options", MODES, ids=[m[0] for m in MODES])
def test_every_mode_plays_to_the_end_is_scored_and_replays(
    real_client, real_redis, settings, tmp_path, capsys, label, n, options
):
    match_id, tokens = new_match(real_client, n, options, seed=label)
    final = play_random_game(real_client, match_id, tokens, random.Random(label))
    assert final["status"] == "finished" and final["to_act"] == []
    result = score(real_client, real_redis, settings, match_id, tokens[0])
    breakdown = result["breakdown"]
    assert [row["seat"] for row in breakdown["players"]] == list(range(n))
    for row in breakdown["players"]:  # E-5: each source of VP per player, and the parts add up
        assert (
            row["total"]
            == row["vp_before"] + row["vp_from_hkd"] + row["vp_from_tiles"] + row["vp_from_cards"]
        )
    assert result["scores"] == [row["total"] for row in breakdown["players"]]
    if options.get("mode") == "CAMPAIGN":
        assert [p["seat"] for p in breakdown["campaign"]["players"]] == list(range(n))

    log = full_log(real_client, match_id)
    assert log[-1]["type"] == "match_scored"
    path = tmp_path / "log.json"
    path.write_text(json.dumps({"events": log}))
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(path)])
    report = json.loads(capsys.readouterr().out)
    assert exit_.value.code == 0 and report["seed_verified"] and report["recorded_result_matches"]
    assert report["scores"]["scores"] == result["scores"]


def test_plans_stay_secret_until_their_owner_reveals_them(real_client):
    match_id, tokens = new_match(real_client, 3, {"START_SEAT": 0}, seed="secret")
    while real_client.get(f"/v1/matches/{match_id}/state").json["state"]["step"] == "start_cubes":
        match = real_client.get(f"/v1/matches/{match_id}").json
        seat = match["to_act"][0]
        legal = real_client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json
        assert (
            act(real_client, match_id, tokens[seat], legal["version"], legal["actions"][0]).status_code == 201
        )
    match = real_client.get(f"/v1/matches/{match_id}").json
    assert sorted(match["to_act"]) == [0, 1, 2]  # Phase 1: every seat that has still to submit
    hand = real_client.get(f"/v1/matches/{match_id}/state", headers=bearer(tokens[1])).json["state"][
        "players"
    ][1]["hand"]
    plan = {"1": hand[0], "2": hand[1]}
    answer = act(real_client, match_id, tokens[1], match["version"], {"type": "SUBMIT_PLAN", "slots": plan})
    assert answer.status_code == 201
    assert sorted(real_client.get(f"/v1/matches/{match_id}").json["to_act"]) == [0, 2]
    for viewer in (None, tokens[0], tokens[2]):
        headers = bearer(viewer) if viewer else {}
        shown = json.dumps(real_client.get(f"/v1/matches/{match_id}/state", headers=headers).json)
        logged = full_log(real_client, match_id, viewer)
        submitted = [e for e in logged if e["type"] == "plan_submitted"]
        assert submitted and all(e["data"] == {} for e in submitted)
        after_creation = json.dumps(logged[1:])  # match_created holds the public pack, every card id in it
        assert hand[0] not in shown and hand[0] not in after_creation and hand[1] not in after_creation
    own = real_client.get(f"/v1/matches/{match_id}/state", headers=bearer(tokens[1])).json["state"]
    assert own["my_plan"] == plan
    for seat in (0, 2):
        version = real_client.get(f"/v1/matches/{match_id}").json["version"]
        assert (
            act(
                real_client, match_id, tokens[seat], version, {"type": "SUBMIT_PLAN", "slots": {}}
            ).status_code
            == 201
        )
    spectator = real_client.get(f"/v1/matches/{match_id}/state").json["state"]
    slots = spectator["players"][1]["slots"]
    assert slots[0][-1] == {"faceUp": False, "round": 1} and hand[0] not in json.dumps(spectator)


def test_the_state_is_drawn_as_svg(real_client):
    match_id, tokens = new_match(real_client, 2, seed="svg")
    for token in (None, tokens[0]):
        headers = {"Accept": "image/svg+xml", **(bearer(token) if token else {})}
        answer = real_client.get(f"/v1/matches/{match_id}/state", headers=headers)
        assert answer.status_code == 200 and answer.mimetype == "image/svg+xml"
        xml.dom.minidom.parseString(answer.data)


@pytest.mark.parametrize(
    "n, options, field",
    [
        (1, {"mode": "SINGLE"}, "options.mode"),
        (2, {"DICE_REROLL_POLICY": "SOMETIMES"}, "options.DICE_REROLL_POLICY"),
        (2, {"animal_sets": ["HORSE"]}, "options.animal_sets"),
        (2, {"START_SEAT": 3}, "options.START_SEAT"),
        (5, {}, "players"),
    ],
)
def test_creation_errors_name_the_option(real_client, n, options, field):
    answer = real_client.post(
        "/v1/matches",
        json={"game": GAME_ID, "players": [{"name": f"p{i}"} for i in range(n)], "options": options},
    )
    assert answer.status_code == 400, answer.json
    assert field in json.dumps(answer.json)


def test_the_catalogue_lists_every_config_key_with_its_default(real_client):
    games = {g["id"]: g for g in real_client.get("/v1/games").json}
    schema = games[GAME_ID]["options_schema"]["properties"]
    for key in (
        "DICE_REROLL_POLICY",
        "CARD_RESOLUTION",
        "SKIP_RULE",
        "PATROL_REQ_TILES",
        "FOOD_WATER_CLEANUP",
        "END_TRIGGER",
        "SOLO_MARKET_DECAY",
        "SOLO_FAIL_BELOW",
        "RETRY_BONUS_HKD",
        "CAMPAIGN_MIN_VP",
        "CONTENT_PACK_ID",
        "CLEANUP_STEPS",
        "OWNED_FACEDOWN_TILE_VISIBILITY",
    ):
        assert key in schema and "default" in schema[key]
    assert GAME.info.counts() == [1, 2, 3, 4]
