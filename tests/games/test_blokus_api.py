"""Blokus through the HTTP API: every variant played to the end, game records in and out, the
options errors and the picture of the board."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ElementTree

import pytest

from service.games.blokus.engine import VARIANTS
from tests.helpers import act, bearer, create, play_random_game, score

SGF = "application/x-blokus-sgf"


def names(n):
    return [{"name": f"p{i}"} for i in range(n)]


def scored(client, fake_redis, settings, match_id, token):
    score(client, fake_redis, settings, match_id, token)
    return client.get(f"/v1/matches/{match_id}").json


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_each_variant_plays_to_the_end_over_http(client, fake_redis, settings, variant):
    players = VARIANTS[variant].players
    match_id, tokens = create(client, players=names(players), options={"variant": variant})
    play_random_game(client, match_id, tokens, random.Random(variant))
    match = scored(client, fake_redis, settings, match_id, tokens[0])
    assert match["status"] == "finished" and match["to_act"] == []
    assert match["result"]["final"] is True and len(match["result"]["scores"]) == players
    if VARIANTS[variant].puzzle:
        assert match["result"]["solved"] == (match["result"]["scores"] == [0])


def test_two_player_to_act_follows_the_colour(client):
    match_id, tokens = create(client, players=names(2))
    seen = []
    for _ in range(4):
        match = client.get(f"/v1/matches/{match_id}").json
        seat = match["to_act"][0]
        legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json
        seen.append((seat, legal["actions"][0]["colour"]))
        assert act(client, match_id, tokens[seat], legal["version"], legal["actions"][0]).status_code == 201
    assert seen == [(0, "blue"), (1, "yellow"), (0, "red"), (1, "green")]


def test_three_player_state_says_who_places_green_next(client):
    match_id, _ = create(client, players=names(3))
    state = client.get(f"/v1/matches/{match_id}/state").json["state"]
    assert state["shared_colour"] == {"colour": "green", "next_seat": 0}


def test_options_errors_name_the_field(client):
    for body, field in [
        ({"game": "blokus", "players": names(4), "options": {"variant": "octagon"}}, "options.variant"),
        ({"game": "blokus", "players": names(4), "options": {"variant": "duo"}}, "players"),
        ({"game": "blokus", "players": names(2), "options": {"handicap": 3}}, "options.handicap"),
        (
            {
                "game": "blokus",
                "players": names(1),
                "options": {"variant": "solo_rectangle", "scoring": "advanced"},
            },
            "options.scoring",
        ),
    ]:
        response = client.post("/v1/matches", json=body)
        assert response.status_code == 400 and response.json["error"] == "invalid_request"
        assert list(response.json["fields"]) == [field], response.json


# -- game records -----------------------------------------------------------------------------------


def test_any_match_exports_as_sgf_finished_or_not(client):
    match_id, tokens = create(client)
    assert (
        act(client, match_id, tokens[0], 1, {"type": "place", "cells": [[0, 0], [1, 0]]}).status_code == 201
    )
    response = client.get(f"/v1/matches/{match_id}/record", headers={"Accept": SGF})
    assert response.status_code == 200 and response.mimetype == SGF
    text = response.get_data(as_text=True)
    assert text.startswith("(;GM[Blokus]") and ";1[a20,b20]" in text and "P1[ann]" in text
    assert client.get(f"/v1/matches/{match_id}/record").status_code == 200  # no Accept: the record type
    refused = client.get(f"/v1/matches/{match_id}/record", headers={"Accept": "application/json"})
    assert refused.status_code == 406 and refused.json["error"] == "not_acceptable"


def test_an_sgf_body_creates_an_ordinary_match(client):
    record = "(;GM[Blokus Duo]PB[Pia]PW[Olu]\n;B[e10,f10]\n;W[j5])"
    response = client.post("/v1/matches", data=record, content_type=SGF)
    assert response.status_code == 201, response.json
    body = response.json
    assert body["game"] == "blokus" and [s["name"] for s in body["seats"]] == ["Pia", "Olu"]
    assert body["version"] == 3
    match_id = body["id"]
    events = client.get(f"/v1/matches/{match_id}/events").json["events"]
    assert [e["type"] for e in events] == ["match_created", "placed", "placed"]
    assert events[1]["data"] == {"colour": "purple", "piece": "2", "cells": [[4, 4], [5, 4]]}
    # and play goes on from there, with the tokens it handed out
    legal = client.get(
        f"/v1/matches/{match_id}/legal-actions", headers=bearer(body["seats"][0]["token"])
    ).json
    assert legal["version"] == 3 and legal["actions"]


def test_a_record_imported_as_json_creates_the_same_match_as_its_own_body_type(client):
    record = "(;GM[Blokus Duo]PB[Pia]PW[Olu]\n;B[e10,f10]\n;W[j5])"
    imported = client.post("/v1/imports", json={"record_type": SGF, "record": record})
    assert imported.status_code == 201, imported.json
    posted = client.post("/v1/matches", data=record, content_type=SGF)  # deprecated, still taken
    assert posted.status_code == 201
    for body in (imported.json, posted.json):
        assert body["game"] == "blokus" and body["version"] == 3
        assert [s["name"] for s in body["seats"]] == ["Pia", "Olu"]
    illegal = client.post("/v1/imports", json={"record_type": SGF, "record": "(;GM[Blokus];2[t20])"})
    assert illegal.status_code == 422 and illegal.json["move"] == 1
    unknown = client.post("/v1/imports", json={"record_type": "text/x-chess-pgn", "record": "1. e4"})
    assert unknown.status_code == 400 and unknown.json["error"] == "invalid_record"


def test_a_record_that_is_not_utf8_is_refused_not_turned_into_replacement_characters(client):
    response = client.post(
        "/v1/matches", data=b"(;GM[Blokus Duo]PB[\xff]PW[Olu]\n;B[e10,f10])", content_type=SGF
    )
    assert response.status_code == 400 and response.json["error"] == "invalid_record", response.json
    assert "not UTF-8 (byte 19)" in response.json["message"]


def test_a_record_names_players_as_json_would_and_may_start_with_a_bom(client):
    long = client.post(
        "/v1/matches", data=f"(;GM[Blokus Duo]PB[{'p' * 65}]PW[Olu]\n;B[e10,f10])", content_type=SGF
    )
    assert long.status_code == 400 and long.json["error"] == "invalid_record", long.json
    assert "the name of seat 0" in long.json["message"] and "64" in long.json["message"]
    bom = client.post(
        "/v1/matches", data="\ufeff(;GM[Blokus Duo]PB[Pia]PW[Olu]\n;B[e10,f10])".encode(), content_type=SGF
    )
    assert bom.status_code == 201 and [s["name"] for s in bom.json["seats"]] == ["Pia", "Olu"], bom.json


def test_a_record_with_an_illegal_move_is_refused_and_nothing_is_stored(client, fake_redis, settings):
    keys_before = set(fake_redis.keys("*"))
    # move 6: yellow, far from its own
    record = "(;GM[Blokus];1[a20];2[t20];3[t1];4[a1];1[b19,c19];2[j10,j11])"
    response = client.post("/v1/matches", data=record, content_type=SGF)
    assert response.status_code == 422
    assert response.json["error"] == "illegal_action"
    assert response.json["move"] == 6 and response.json["reason"] == "corner_rule"
    assert "move 6" in response.json["message"]
    assert set(fake_redis.keys("*")) == keys_before
    wrong_turn = client.post("/v1/matches", data="(;GM[Blokus];2[t20])", content_type=SGF)
    assert wrong_turn.status_code == 422 and wrong_turn.json["move"] == 1
    assert wrong_turn.json["reason"] == "wrong_colour"


def test_an_unreadable_record_is_a_400(client):
    response = client.post("/v1/matches", data="(;GM[Chess];1[e4])", content_type=SGF)
    assert response.status_code == 400 and response.json["error"] == "invalid_record"
    assert "GM[Chess]" in response.json["message"]


def test_a_move_of_another_dialect_is_refused_not_dropped(client):
    for record, tag in (
        ("(;GM[Blokus Two-Player]P1[a]P2[b];9[a20])", "9"),
        ("(;GM[Blokus Duo]PB[a]PW[b];1[e10])", "1"),
        ("(;GM[Blokus];B[a20])", "B"),
    ):
        response = client.post("/v1/matches", data=record, content_type=SGF)
        assert response.status_code == 400 and f"{tag}[...] is not a move" in response.json["message"], record
    named = client.post("/v1/matches", data="(;GM[Blokus Duo]P1[Pia]P2[Olu];B[e10])", content_type=SGF)
    assert [s["name"] for s in named.json["seats"]] == ["Pia", "Olu"]  # P1/P2 where PB/PW are missing


def test_names_in_a_record_meet_the_rule_json_names_meet(client):
    response = client.post(
        "/v1/matches", data="(;GM[Blokus Duo]PB[\u202eevil]PW[Olu];B[e10])", content_type=SGF
    )
    assert response.status_code == 400 and response.json["error"] == "invalid_record"
    assert "seat 0" in response.json["message"] and "U+202E" in response.json["message"]


def test_a_match_with_an_open_seat_exports_its_record(client):
    created = client.post(
        "/v1/matches", json={"game": "blokus", "players": [{"name": "ann"}, {"open": True}]}
    ).json
    record = client.get(f"/v1/matches/{created['id']}/record", headers={"Accept": SGF})
    assert record.status_code == 200 and "P1[ann]P2[]" in record.get_data(as_text=True)


def test_other_body_types_are_refused(client):
    response = client.post(
        "/v1/matches", data="game=blokus", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 415 and response.json["error"] == "unsupported_media_type"


def test_export_then_import_round_trip_over_http(client, fake_redis, settings):
    match_id, tokens = create(client, players=names(3))
    play_random_game(client, match_id, tokens, random.Random(9))
    original = scored(client, fake_redis, settings, match_id, tokens[0])
    text = client.get(f"/v1/matches/{match_id}/record", headers={"Accept": SGF}).get_data(as_text=True)
    copy = client.post("/v1/matches", data=text, content_type=SGF).json
    copied = scored(client, fake_redis, settings, copy["id"], copy["seats"][0]["token"])
    assert copied["status"] == "finished"
    assert copied["result"] == original["result"]

    def moves(m):
        return [
            e["data"]
            for e in client.get(f"/v1/matches/{m}/events?limit=1000").json["events"]
            if e["type"] == "placed"
        ]

    assert moves(copy["id"]) == moves(match_id)


# -- the picture ---------------------------------------------------------------------------------------


def test_state_as_svg(client):
    match_id, tokens = create(client)
    act(client, match_id, tokens[0], 1, {"type": "place", "cells": [[0, 0], [1, 0]]})
    response = client.get(f"/v1/matches/{match_id}/state", headers={"Accept": "image/svg+xml"})
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    svg = ElementTree.fromstring(response.get_data())
    assert svg.tag.endswith("svg")
    blue_squares = [r for r in svg.iter("{http://www.w3.org/2000/svg}rect") if r.get("fill") == "#2f6fd6"]
    assert len(blue_squares) >= 2
    assert client.get(f"/v1/matches/{match_id}/state").mimetype == "application/json"
