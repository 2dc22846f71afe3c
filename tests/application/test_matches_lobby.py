"""The lobby: a match created with open seats, listed with ``GET /v1/matches?status=open``, joined seat by
seat (each join's token shown once), started by the last join (``match_started``), nobody acting before;
racing joins for one seat (on the real Redis): exactly one wins."""

from __future__ import annotations

import random
import threading

from service.domain import replay
from service.domain.chain import Recorded
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.helpers import act, bearer, full_log, play_random_game
from tests.helpers import create as create_match


def open_match(
    client, game="blokus", players=({"name": "ann"}, {"open": True}, {"open": True}, {"name": "dan"})
):
    created = client.post("/v1/matches", json={"game": game, "players": list(players)})
    assert created.status_code == 201, created.json
    return created.json


def test_open_seats_get_no_token_and_nobody_acts_before_every_seat_is_filled(client):
    created = open_match(client)
    assert created["seats"][1] == {"seat": 1, "open": True} and "token" in created["seats"][0]
    match = client.get(f"/v1/matches/{created['id']}").json
    assert match["status"] == "open" and match["to_act"] == []
    assert match["players"][2] == {"seat": 2, "open": True}
    legal = client.get(
        f"/v1/matches/{created['id']}/legal-actions", headers=bearer(created["seats"][0]["token"])
    ).json
    assert legal["actions"] == []
    refused = act(
        client,
        created["id"],
        created["seats"][0]["token"],
        1,
        {"type": "place", "piece": "1", "cells": [[0, 0]]},
    )
    assert refused.status_code == 422 and refused.json["reason"] == "match_not_started"


def test_joins_fill_the_seats_and_the_last_one_starts_the_match(client):
    created = open_match(client)
    match_id = created["id"]
    first = client.post(f"/v1/matches/{match_id}/seats/1/join", json={"name": "bob"})
    assert first.status_code == 201 and first.json["started"] is False and first.json["token"]
    assert first.headers["Location"] == f"/v1/matches/{match_id}"
    assert (
        client.post(f"/v1/matches/{match_id}/seats/1/join", json={"name": "eve"}).json["error"]
        == "seat_taken"
    )
    for seat in (7, -1):
        assert (
            client.post(f"/v1/matches/{match_id}/seats/{seat}/join", json={"name": "eve"}).json["error"]
            == "seat_not_found"
        )
    assert client.post(f"/v1/matches/{match_id}/seats/2/join", json={}).status_code == 400
    last = client.post(f"/v1/matches/{match_id}/seats/2/join", json={"name": "cat"})
    assert last.status_code == 201 and last.json["started"] is True
    log = full_log(client, match_id)
    assert [e["type"] for e in log] == ["match_created", "seat_joined", "seat_joined", "match_started"]
    assert log[1]["seat"] == 1 and log[1]["data"] == {"seat": 1, "name": "bob"}
    match = client.get(f"/v1/matches/{match_id}").json
    assert match["status"] == "active" and match["to_act"] == [0]
    assert [p["name"] for p in match["players"]] == ["ann", "bob", "cat", "dan"]
    tokens = [
        created["seats"][0]["token"],
        first.json["token"],
        last.json["token"],
        created["seats"][3]["token"],
    ]
    final = play_random_game(client, match_id, tokens, random.Random(1))  # the joined tokens act
    assert final["status"] == "finished"
    events = [Recorded.from_dict(e) for e in full_log(client, match_id)]
    assert replay.replay(events).players == ("ann", "bob", "cat", "dan")


def test_the_lobby_lists_open_matches_by_game_with_a_cursor(client):
    ids = [open_match(client)["id"] for _ in range(3)]
    other = open_match(client, "block-block", ({"name": "x"}, {"open": True}))["id"]
    first = client.get("/v1/matches?status=open&game=blokus&limit=2").json
    assert [m["id"] for m in first["matches"]] == ids[:2] and first["next_cursor"]
    rest = client.get(f"/v1/matches?status=open&game=blokus&limit=2&cursor={first['next_cursor']}").json
    assert [m["id"] for m in rest["matches"]] == ids[2:] and rest["next_cursor"] is None
    everything = client.get("/v1/matches?status=open").json["matches"]
    assert other in [m["id"] for m in everything]
    for seat in (1, 2):
        client.post(f"/v1/matches/{ids[0]}/seats/{seat}/join", json={"name": f"p{seat}"})
    assert ids[0] not in [m["id"] for m in client.get("/v1/matches?status=open").json["matches"]]
    assert [m["id"] for m in client.get("/v1/matches?status=active").json["matches"]] == [ids[0]]  # public


def test_public_matches_are_listed_newest_first_for_anyone(client, settings, fake_redis):
    _, key = Platforms(fake_redis, Keys(settings.namespace)).create("arena")
    two = {"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}
    anonymous = [client.post("/v1/matches", json=two).json["id"] for _ in range(3)]
    unlisted = client.post("/v1/matches", json={**two, "public": False}).json["id"]
    private = client.post("/v1/matches", json=two, headers=bearer(key)).json["id"]
    shown = client.post("/v1/matches", json={**two, "public": True}, headers=bearer(key)).json["id"]
    newest = client.get("/v1/matches?order=newest&limit=2").json
    assert [m["id"] for m in newest["matches"]] == [shown, anonymous[2]]
    rest = client.get(f"/v1/matches?order=newest&cursor={newest['next_cursor']}").json
    assert [m["id"] for m in rest["matches"]] == [anonymous[1], anonymous[0]] and rest["next_cursor"] is None
    assert [m["id"] for m in client.get("/v1/matches").json["matches"]] == anonymous + [shown]  # oldest first
    assert {unlisted, private}.isdisjoint(
        m["id"] for m in client.get("/v1/matches?limit=200").json["matches"]
    )
    assert client.get("/v1/matches?order=sideways").json["error"] == "invalid_request"
    unknown = client.get("/v1/matches?game=chess")
    assert unknown.status_code == 400 and "unknown game 'chess'" in unknown.json["fields"]["game"][0]


def test_a_private_match_with_open_seats_is_not_in_the_lobby_but_its_id_is_joined(
    client, settings, fake_redis
):
    _, key = Platforms(fake_redis, Keys(settings.namespace)).create("arena")
    seats = {"game": "blokus", "players": [{"name": "ann"}, {"open": True}]}
    unlisted = client.post("/v1/matches", json={**seats, "public": False}).json["id"]
    platforms = client.post("/v1/matches", json=seats, headers=bearer(key)).json["id"]
    listed = client.post("/v1/matches", json=seats).json["id"]
    lobby = [m["id"] for m in client.get("/v1/matches?status=open").json["matches"]]
    assert listed in lobby and unlisted not in lobby and platforms not in lobby
    own = client.get("/v1/matches?status=open", headers=bearer(key)).json["matches"]
    assert [m["id"] for m in own] == [platforms]  # the platform still finds its own
    joined = client.post(f"/v1/matches/{unlisted}/seats/1/join", json={"name": "bob"})
    assert joined.status_code == 201 and joined.json["started"] is True


def test_racing_joins_for_one_seat_one_wins(real_client):
    created = open_match(real_client, players=({"name": "ann"}, {"open": True}))
    answers = []
    barrier = threading.Barrier(8)

    def join(i):
        barrier.wait()
        answers.append(real_client.post(f"/v1/matches/{created['id']}/seats/1/join", json={"name": f"j{i}"}))

    threads = [threading.Thread(target=join, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(a.status_code for a in answers) == [201] + [409] * 7
    log = full_log(real_client, created["id"])
    assert [e["type"] for e in log] == ["match_created", "seat_joined", "match_started"]
    winner = next(a for a in answers if a.status_code == 201)
    assert log[1]["data"]["name"] == winner.json["name"]


def test_every_entry_has_its_plain_words(client):
    match_id, tokens = create_match(client, "block-block", [{"name": "ann"}, {"name": "bob"}])
    seat = client.get(f"/v1/matches/{match_id}").json["to_act"][0]
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json
    answer = act(client, match_id, tokens[seat], legal["version"], legal["actions"][0]).json
    placed = answer["events"][0]
    assert placed["text"] == (
        f"brown placed {placed['data']['shape']} at "
        f"({placed['data']['x']}, {placed['data']['y']}, {placed['data']['z']})"
    )
    log = full_log(client, match_id)
    assert log[0]["text"] == "a BLOCK.BLOCK match for ann, bob"
    assert log[1]["text"] == placed["text"]
