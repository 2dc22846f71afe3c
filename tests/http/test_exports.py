"""Open data (``GET /v1/exports/matches``): the finished public matches, each with its log exactly as a spectator
reads it (``GET /v1/matches/{id}/log``) and its game record; nothing of a match that goes on, was aborted or
is private; pages that cover every match once; the answer fits the served contract strictly."""

from __future__ import annotations

import random

import pytest

from service.http.schemas import EXPORT_LIMIT
from tests.helpers import bearer, create, play_random_game, score
from tests.http.test_openapi_components_typed import validator

DUO = {"options": {"variant": "duo"}}
TWO = [{"name": "ann"}, {"name": "bob"}]


def finished(client, game="blokus", seed=1, **extra):
    match_id, tokens = create(client, game, TWO, **extra)
    play_random_game(client, match_id, tokens, random.Random(seed))
    return match_id, tokens


def exported(client, query=""):
    answer = client.get(f"/v1/exports/matches{query}")
    assert answer.status_code == 200, answer.json
    errors = [e.message for e in validator("Export").iter_errors(answer.json)]
    assert not errors, errors[:3]
    return answer.json


def spectators_log(client, match_id):
    return client.get(f"/v1/matches/{match_id}/log", headers={"Accept": "application/json"}).json


def test_a_finished_public_match_comes_with_the_spectators_log_and_its_record(client):
    match_id, _ = finished(client, **DUO)
    (item,) = exported(client)["matches"]
    assert item["match"] == client.get("/v1/matches?status=finished").json["matches"][0]
    assert item["match"]["id"] == match_id
    assert item["log"] == spectators_log(client, match_id)
    record = client.get(f"/v1/matches/{match_id}/record", headers={"Accept": "application/x-blokus-sgf"})
    assert item["record"] == {"type": "application/x-blokus-sgf", "text": record.text}
    assert item["record"]["text"].startswith("(;GM[Blokus Duo]")


def test_a_hidden_information_match_shows_what_a_spectator_reads_and_no_more(client):
    """Chock-a-Block's private draws: while it runs a spectator reads no drawn card from the deck, and the
    export has no match that runs; once it is over, the seed revealed, its log is the spectator's."""
    running, tokens = create(client, "chock-a-block", TWO)
    play_random_game(client, running, tokens, random.Random(2), max_actions=6)
    assert exported(client, "?game=chock-a-block")["matches"] == []
    match_id, _ = finished(client, "chock-a-block", seed=3)
    (item,) = exported(client, "?game=chock-a-block")["matches"]
    assert item["match"]["id"] == match_id and "record" not in item  # Chock-a-Block has no record format
    assert item["log"] == spectators_log(client, match_id)
    assert any(e["type"] == "seed_revealed" for e in item["log"])


def test_only_finished_public_matches_are_exported(client):
    kept, _ = finished(client, **DUO)
    finished(client, seed=2, public=False, **DUO)  # private: found by its id only
    create(client, "blokus", TWO, **DUO)  # goes on
    creator = client.post("/v1/matches", json={"game": "blokus", "players": TWO, **DUO}).json
    assert (
        client.post(
            f"/v1/matches/{creator['id']}/abort", headers=bearer(creator["creator_token"]), json={}
        ).status_code
        == 200
    )
    assert [item["match"]["id"] for item in exported(client)["matches"]] == [kept]


def test_pages_cover_every_finished_match_once_oldest_first(client):
    made = [finished(client, "block-block", seed=seed)[0] for seed in range(3)]
    seen, cursor = [], None
    while True:
        page = exported(client, "?limit=2" + (f"&cursor={cursor}" if cursor else ""))
        assert len(page["matches"]) <= 2
        seen += [item["match"]["id"] for item in page["matches"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == made
    assert exported(client, "?game=blokus")["matches"] == []


def test_a_result_recorded_later_is_exported_with_it(client, fake_redis, settings):
    """A finished match's log is kept per version: the scoring job's entry makes a new one."""
    match_id, tokens = finished(client, **DUO)
    before = exported(client)["matches"][0]
    assert "result" not in before["match"]
    score(client, fake_redis, settings, match_id, tokens[0])
    after = exported(client)["matches"][0]
    assert after["match"]["result"]["final"] is True
    assert after["log"] == spectators_log(client, match_id) == [*before["log"], after["log"][-1]]
    assert after["log"][-1]["type"] == "match_scored"


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("?game=chess", "game"),
        ("?limit=0", "limit"),
        (f"?limit={EXPORT_LIMIT + 1}", "limit"),
        ("?cursor=yesterday", "cursor"),
    ],
)
def test_bad_queries_are_refused_with_the_field(client, query, field):
    answer = client.get(f"/v1/exports/matches{query}")
    assert answer.status_code == 400
    assert answer.json["error"] == "invalid_request" and field in answer.json["fields"]
