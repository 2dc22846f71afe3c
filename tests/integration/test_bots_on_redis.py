"""Bot seats on the real Redis with real ``matchlog worker`` processes: bot-only matches of every game
and mode play to the end and are scored by themselves, many at once; a person plays among bots; the
log says which moves were a bot's, and replays to the live state."""

from __future__ import annotations

import random

import pytest

from service.domain import replay
from service.domain.chain import Recorded
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.helpers import act, bearer, full_log, start_worker, wait_for

pytestmark = pytest.mark.slow

CASES = [
    ("blokus", {"variant": "four_player"}, 4),
    ("blokus", {"variant": "three_player"}, 3),
    ("blokus", {"variant": "two_player"}, 2),
    ("blokus", {"variant": "duo"}, 2),
    ("blokus", {"variant": "solo_all_pieces"}, 1),
    ("blokus", {"variant": "solo_rectangle"}, 1),
    ("block-block", {}, 2),
    ("chock-a-block", {"mode": "STANDARD"}, 3),
    ("chock-a-block", {"mode": "SOLO"}, 1),
    ("chock-a-block", {"mode": "AUTOBLOCK_EXTRA"}, 2),
    ("chock-a-block", {"mode": "COOP"}, 2),
    ("chock-a-block", {"mode": "STANDARD", "building_rules": "BUILDING_BLOCK"}, 2),
    ("blackout-hong-kong", {"mode": "SINGLE"}, 2),
    ("blackout-hong-kong", {"mode": "CAMPAIGN"}, 1),
]


def check_bot_log(client, match_id, players):
    """Every move of the match was a bot's, said so in the log, and the log replays to the live state."""
    log = [Recorded.from_dict(e) for e in full_log(client, match_id)]
    bots = {p["seat"]: p["bot"] for p in players if "bot" in p}
    by = [e for e in log if e.type == "acted_by"]
    assert by and all(e.data["by"] == f"bot:{bots[e.seat]}" for e in by)
    revealed = next(e.data for e in log if e.type == "seed_revealed")
    live = replay.replay(log, revealed["seed"], revealed["salt"])
    assert live.result is not None and live.result["final"] is True
    return live


def test_bot_only_matches_of_every_game_and_mode_finish_by_themselves(real_client, redis_url, settings):
    matches = []
    for number, (game, options, count) in enumerate(CASES):
        players = [{"bot": ("random", "greedy")[(number + seat) % 2]} for seat in range(count)]
        created = real_client.post("/v1/matches", json={"game": game, "options": options, "players": players})
        assert created.status_code == 201, (game, options, created.json)
        matches.append((created.json["id"], created.json["seats"]))
    workers = [start_worker(redis_url, settings) for _ in range(2)]  # many matches at once, shared
    try:

        def all_scored():
            """every bot-only match finished and scored"""
            return all(real_client.get(f"/v1/matches/{m}").json.get("result") for m, _ in matches)

        wait_for(all_scored, timeout=240, every=0.5)
    finally:
        for worker in workers:
            worker.kill()
            worker.wait()
    for match_id, seats in matches:
        live = check_bot_log(real_client, match_id, seats)
        assert real_client.get(f"/v1/matches/{match_id}").json["result"] == live.result


def test_a_person_plays_among_bots(real_client, redis_url, settings):
    created = real_client.post(
        "/v1/matches",
        json={
            "game": "blokus",
            "players": [{"name": "ann"}, {"bot": "greedy"}, {"bot": "random"}, {"bot": "greedy"}],
        },
    ).json
    match_id, token = created["id"], created["seats"][0]["token"]
    worker = start_worker(redis_url, settings)
    rng = random.Random(4)
    moves = 0
    try:
        while True:

            def anns_turn_or_over():
                """ann to act, or the match over"""
                match = real_client.get(f"/v1/matches/{match_id}").json
                return match["to_act"] == [0] or match["status"] == "finished"

            wait_for(anns_turn_or_over, timeout=60)
            if real_client.get(f"/v1/matches/{match_id}").json["status"] == "finished":
                break
            legal = real_client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(token)).json
            assert (
                act(real_client, match_id, token, legal["version"], rng.choice(legal["actions"])).status_code
                == 201
            )
            moves += 1
        wait_for(lambda: real_client.get(f"/v1/matches/{match_id}").json.get("result"), timeout=60)
    finally:
        worker.kill()
        worker.wait()
    log = full_log(real_client, match_id)
    movers = {e["seat"] for e in log if e["type"] == "placed"}
    assert movers == {0, 1, 2, 3} and moves > 5
    ann_moves = [i for i, e in enumerate(log) if e["type"] == "placed" and e["seat"] == 0]
    assert all(log[i - 1]["type"] != "acted_by" for i in ann_moves)  # a person's move is not marked
    assert all(
        log[i - 1]["type"] == "acted_by" for i, e in enumerate(log) if e["type"] == "placed" and e["seat"]
    )


def test_a_seat_handed_to_a_bot_is_played_by_it(real_client, real_redis, redis_url, settings):
    _, key = Platforms(real_redis, Keys(settings.namespace)).create("arena")
    created = real_client.post(
        "/v1/matches",
        json={"game": "block-block", "players": [{"name": "ann"}, {"name": "bob"}]},
        headers=bearer(key),
    ).json
    match_id = created["id"]
    first = real_client.get(f"/v1/matches/{match_id}").json["to_act"][0]
    handed = real_client.post(
        f"/v1/matches/{match_id}/seats/{first}/replace", json={"bot": "greedy"}, headers=bearer(key)
    )
    assert handed.status_code == 200, handed.json
    worker = start_worker(redis_url, settings)
    try:
        wait_for(lambda: real_client.get(f"/v1/matches/{match_id}").json["to_act"] == [1 - first], timeout=60)
    finally:
        worker.kill()
        worker.wait()
    log = full_log(real_client, match_id)
    assert [e["type"] for e in log[1:4]] == ["seat_replaced", "acted_by", "piece_placed"]
    assert log[2]["data"] == {"by": "bot:greedy"} and log[3]["seat"] == first
