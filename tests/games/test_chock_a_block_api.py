"""Chock-a-Block through the HTTP API (fakeredis): every mode played to the end with the scoring job
run and its result checked, hidden information as each seat and a spectator see it, the SVG picture,
creation errors naming the field, and a pack installed on the server."""

from __future__ import annotations

import dataclasses
import json
import random
import xml.dom.minidom

import pytest

from service.domain import replay
from service.domain.chain import Recorded
from service.games.chock_a_block import GAME
from service.games.chock_a_block.content import DEFAULT_PACK, PACKS_DIR
from service.http.app import create_app
from tests.helpers import act, bearer, create, full_log, play_random_game, score

GAME_ID = "chock-a-block"


def players(n):
    return [{"name": f"p{i}"} for i in range(n)]


def new_match(client, n, options=None, seed="api"):
    return create(client, game=GAME_ID, players=players(n), options=options or {}, seed=seed)


MODES = [
    ("standard-2", 2, {}),
    ("standard-5", 5, {}),
    ("solo", 1, {"excluded_feature": "BIRD"}),
    ("solo-grand", 1, {"grand_autoblock": True}),
    ("autoblock-extra", 3, {"mode": "AUTOBLOCK_EXTRA", "excluded_feature": "CAT"}),
    ("coop-chosen-in-game", 2, {"mode": "COOP"}),
    ("building-block", 3, {"building_rules": "BUILDING_BLOCK", "open_chain_scope": "PER_FEATURE"}),
]


@pytest.mark.parametrize("label, n, options", MODES, ids=[m[0] for m in MODES])
def test_every_mode_plays_to_the_end_and_gets_scored(client, fake_redis, settings, label, n, options):
    match_id, tokens = new_match(client, n, options, seed=label)
    final = play_random_game(client, match_id, tokens, random.Random(label))
    assert final["status"] == "finished" and final["to_act"] == []
    log = full_log(client, match_id)
    assert log[0]["type"] == "match_created" and log[0]["data"]["content"]["pack_id"] == DEFAULT_PACK
    assert [e["type"] for e in log[-3:]] == ["final_scoring", "game_over", "seed_revealed"]
    if options.get("mode") == "COOP":
        assert log[1]["type"] == "excluded_feature_chosen"

    result = score(client, fake_redis, settings, match_id, tokens[0])
    assert result["final"] is True and len(result["scores"]) == n and len(result["ranks"]) == n
    assert client.get(f"/v1/matches/{match_id}").json["result"] == result
    # the result is the engine's scoring of the state replayed from the log alone: the public log
    # (deck draws hidden) and a seat's log both replay, with the seed revealed at the end
    for token in (None, tokens[0]):
        entries = [Recorded.from_dict(e) for e in full_log(client, match_id, token)]
        state = replay.replay(entries).game
        assert result["scores"] == GAME.scores(state)["scores"] == log[-3]["data"]["scores"]
    # a breakdown a person can check
    for player, total in zip(result["breakdown"]["players"], result["scores"]):
        assert (
            player["total"]
            == total
            == (player["token_points"] + player["open_chain_points"] + player["leftover_points"])
        )
        assert all(t["chain"] for t in player["tokens"])
        assert all(c["size"] >= 4 and c["rooms"] for c in player["open_chains"])
    autoblock = result["breakdown"]["autoblock"]
    if n == 1 or options.get("mode"):
        assert autoblock["total"] == sum(t["value"] for t in autoblock["tokens"]) and "rank" in autoblock
        assert state["autoblock"]["turns"] == 12
    else:
        assert autoblock is None
    assert result["breakdown"]["rules"]["open_chain_scope"] == options.get("open_chain_scope", "PER_CHAIN")


def test_both_open_chain_readings_are_a_match_option(client):
    """7.8, A-32: the catalogue offers open_chain_scope and open_chain_points; a match records its reading."""
    entry = next(g for g in client.get("/v1/games").json if g["id"] == GAME_ID)
    props = entry["options_schema"]["properties"]
    assert (
        props["open_chain_scope"]["enum"] == ["PER_CHAIN", "PER_FEATURE"]
        and props["open_chain_points"]["default"] == 4
    )
    assert entry["player_counts"] == [1, 2, 3, 4, 5] and entry["hidden_information"] and entry["chance"]
    assert DEFAULT_PACK in entry["packs"]
    match_id, _ = new_match(client, 2, {"open_chain_scope": "PER_FEATURE", "open_chain_points": 2})
    options = client.get(f"/v1/matches/{match_id}").json["options"]
    assert (options["open_chain_scope"], options["open_chain_points"], options["pack"]) == (
        "PER_FEATURE",
        2,
        DEFAULT_PACK,
    )


def test_a_seat_sees_its_hand_others_see_counts_and_the_log_hides_deck_draws(client):
    """8.4 through the API: state, legal actions and the log, as seats and as a spectator."""
    match_id, tokens = new_match(client, 3, {"start_seat": 0})
    states = {
        seat: client.get(f"/v1/matches/{match_id}/state", headers=bearer(tokens[seat])).json["state"]
        for seat in range(3)
    }
    spectator = client.get(f"/v1/matches/{match_id}/state").json["state"]
    hands = {seat: states[seat]["players"][seat]["hand"] for seat in range(3)}
    for seat in range(3):
        text = json.dumps(states[seat])
        for other in range(3):
            if other != seat:
                assert states[seat]["players"][other]["hand"] is None
                assert not any(json.dumps(c) in text for c in hands[other])
    assert all(p["hand"] is None and p["hand_size"] == 2 for p in spectator["players"])
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json["actions"]
    assert {a["card"] for a in legal} == set(hands[0])
    assert (
        client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[1])).json["actions"] == []
    )

    # seat 0 places, then draws from the deck: only seat 0 sees the card
    response = act(client, match_id, tokens[0], 1, legal[0])
    assert response.status_code == 201, response.json
    seat0 = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json
    assert {"type": "draw_card", "source": "DECK"} in seat0["actions"]
    response = act(client, match_id, tokens[0], seat0["version"], {"type": "draw_card", "source": "DECK"})
    assert response.status_code == 201
    mine = next(e for e in response.json["events"] if e["type"] == "card_drawn")
    card = mine["data"]["card"]
    for viewer in (tokens[1], tokens[2], None):
        log = full_log(client, match_id, viewer)
        drawn = next(e for e in log if e["type"] == "card_drawn")
        assert drawn["data"] == {"source": "DECK", "private": True}
        assert json.dumps(card) not in json.dumps(log[1:])
    assert (
        next(e for e in full_log(client, match_id, tokens[0]) if e["type"] == "card_drawn")["data"]["card"]
        == card
    )


def test_illegal_actions_get_their_reason(client):
    """8.2 through the API: 422 with the rule's code; 400 for a body that misses a parameter."""
    match_id, tokens = new_match(client, 2, {"start_seat": 0})
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json["actions"]
    card = legal[0]["card"]
    response = act(
        client, match_id, tokens[0], 1, {"type": "place_card", "card": card, "face": "FRONT", "column": 1}
    )
    assert response.status_code == 422 and response.json["reason"] == "first_card_column"
    response = act(client, match_id, tokens[0], 1, {"type": "draw_card", "source": "DECK"})
    assert response.status_code == 422 and response.json["reason"] == "wrong_step"
    response = act(client, match_id, tokens[1], 1, legal[0])
    assert response.status_code == 422 and response.json["reason"] == "not_your_turn"
    response = act(client, match_id, tokens[0], 1, {"type": "place_card", "card": card, "face": "FRONT"})
    assert response.status_code == 400 and "action.column" in response.json["fields"]
    response = act(
        client, match_id, tokens[0], 1, {"type": "place_card", "card": card, "face": "SIDEWAYS", "column": 0}
    )
    assert response.status_code == 400 and "action.face" in response.json["fields"]


def test_the_state_as_a_picture(client):
    """Accept: image/svg+xml draws the view: a standalone SVG document."""
    match_id, tokens = new_match(client, 2)
    play_random_game(client, match_id, tokens, random.Random(3))
    for headers in ({}, bearer(tokens[0])):
        response = client.get(f"/v1/matches/{match_id}/state", headers={**headers, "Accept": "image/svg+xml"})
        assert response.status_code == 200 and response.mimetype == "image/svg+xml"
        document = xml.dom.minidom.parseString(response.data)
        assert document.documentElement.tagName == "svg"
        assert document.documentElement.getAttribute("xmlns") == "http://www.w3.org/2000/svg"
        assert b"not the publisher" in response.data


@pytest.mark.parametrize(
    "body, field",
    [
        ({"players": players(1), "options": {"mode": "STANDARD"}}, "players"),
        ({"players": players(5), "options": {"mode": "AUTOBLOCK_EXTRA"}}, "players"),
        ({"players": players(2), "options": {"mode": "SOLO"}}, "players"),
        ({"players": players(6)}, "players"),
        ({"players": players(2), "options": {"mode": "TEAM"}}, "options.mode"),
        ({"players": players(2), "options": {"pack": "no-such-pack"}}, "options.pack"),
        ({"players": players(2), "options": {"card_back_mode": "PACK_BACK"}}, "options.pack"),
        ({"players": players(2), "options": {"open_chain_points": "four"}}, "options.open_chain_points"),
        ({"players": players(2), "options": {"house_rule": True}}, "options.house_rule"),
        ({"players": players(2), "options": {"grand_autoblock": True}}, "options.grand_autoblock"),
    ],
)
def test_creation_errors_name_the_field(client, body, field):
    """Each mode checks its player count at creation (S-1); options and packs name their field."""
    response = client.post("/v1/matches", json={"game": GAME_ID, **body})
    assert response.status_code == 400, response.json
    assert field in response.json["fields"], response.json


def test_a_match_can_name_another_pack_installed_on_the_server(settings, fake_redis, tmp_path, client):
    """1.9, A-01: packs installed in $MATCHLOG_PACKS/chock-a-block/ are offered and used; a broken one
    is refused with the card and field at fault."""
    folder = tmp_path / GAME_ID
    folder.mkdir()
    pack = json.loads((PACKS_DIR / f"{DEFAULT_PACK}.json").read_text(encoding="utf-8"))
    pack.update(packId="house-colours", provenance="TEST_FIXTURE")
    pack["colours"][0]["rgb"] = "#FF00AA"
    (folder / "house-colours.json").write_text(json.dumps(pack), encoding="utf-8")
    broken = json.loads(json.dumps(pack))
    broken["packId"] = "broken"
    broken["cards"][12]["front"]["TL"]["colour"] = "MAUVE"
    (folder / "broken.json").write_text(json.dumps(broken), encoding="utf-8")
    app = create_app(dataclasses.replace(settings, packs_dir=tmp_path), fake_redis)
    http = app.test_client()
    entry = next(g for g in http.get("/v1/games").json if g["id"] == GAME_ID)
    assert entry["packs"] == ["broken", DEFAULT_PACK, "house-colours"]

    match_id, tokens = create(http, game=GAME_ID, players=players(2), options={"pack": "house-colours"})
    created = full_log(http, match_id)[0]
    assert created["data"]["content"]["pack_id"] == "house-colours"
    view = http.get(f"/v1/matches/{match_id}/state", headers=bearer(tokens[0])).json["state"]
    assert view["pack"]["id"] == "house-colours" and view["colours"][0]["rgb"] == "#FF00AA"

    response = http.post(
        "/v1/matches", json={"game": GAME_ID, "players": players(2), "options": {"pack": "broken"}}
    )
    assert response.status_code == 400
    assert "cards[12] (C13).front.TL.colour" in response.json["fields"]["options.pack"][0]


def test_scoring_an_unfinished_match_is_provisional(client, fake_redis, settings):
    """Withheld before the end: the game hides information, and one job answers every seat alike."""
    match_id, tokens = new_match(client, 3)
    result = score(client, fake_redis, settings, match_id, tokens[0])
    assert result == {"final": False, "withheld": "hidden_information"}
    assert "result" not in client.get(f"/v1/matches/{match_id}").json


def test_pack_checks_follow_the_match_options(settings, fake_redis, tmp_path):
    """1.9.2 P-6: a 63-card pack is refused under the default pack_strict_counts, and accepted when the
    match relaxes it: the server checks the pack with the match's own options."""
    folder = tmp_path / GAME_ID
    folder.mkdir()
    pack = json.loads((PACKS_DIR / f"{DEFAULT_PACK}.json").read_text(encoding="utf-8"))
    pack.update(packId="short-deck", provenance="TEST_FIXTURE")
    pack["cards"].pop()
    (folder / "short-deck.json").write_text(json.dumps(pack), encoding="utf-8")
    http = create_app(dataclasses.replace(settings, packs_dir=tmp_path), fake_redis).test_client()
    strict = http.post(
        "/v1/matches", json={"game": GAME_ID, "players": players(2), "options": {"pack": "short-deck"}}
    )
    assert strict.status_code == 400 and "options.pack" in strict.json["fields"]
    relaxed = http.post(
        "/v1/matches",
        json={
            "game": GAME_ID,
            "players": players(2),
            "options": {"pack": "short-deck", "pack_strict_counts": False},
        },
    )
    assert relaxed.status_code == 201, relaxed.json
