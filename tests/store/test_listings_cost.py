"""A listing reads only what it shows: ``GET /v1/matches`` with a ``status`` or a ``game`` reads a listing
narrowed to them (kept as matches are created and change status), so its cost is bounded by its page,
whatever the number of matches of another status or game."""

from __future__ import annotations

import random

from service.application import listings
from tests.helpers import create, play_random_game


def _matches(client):
    return client.application.extensions["matchlog"]


def _counting_loads(monkeypatch, matches) -> list:
    loads = []
    load = matches.load
    monkeypatch.setattr(
        matches, "load", lambda *args, **kwargs: loads.append(args[0]) or load(*args, **kwargs)
    )
    return loads


def _ids(answer) -> list[str]:
    assert answer.status_code == 200, answer.json
    return [m["id"] for m in answer.json["matches"]]


def test_a_listing_folds_no_match_however_many_matches_have_another_status(client, monkeypatch):
    matches = _matches(client)
    [create(client) for _ in range(40)]  # active
    aborted = [create(client)[0] for _ in range(3)]
    for match_id in aborted:
        matches.abort(match_id, "for the test")
    loads = _counting_loads(monkeypatch, matches)
    first = client.get("/v1/matches?status=aborted&limit=2")
    assert _ids(first) == aborted[:2]
    rest = client.get(f"/v1/matches?status=aborted&limit=2&cursor={first.json['next_cursor']}")
    assert _ids(rest) == aborted[2:] and rest.json["next_cursor"] is None
    assert _ids(client.get("/v1/matches?status=open")) == []
    assert _ids(client.get("/v1/matches?game=chock-a-block")) == []
    assert len(_ids(client.get("/v1/matches?status=active&game=blokus&order=newest&limit=5"))) == 5
    assert len(_ids(client.get("/v1/matches?limit=200"))) == 43
    assert loads == []  # the rows are the summaries each append keeps


def test_the_redis_commands_of_a_listing_do_not_grow_with_the_other_matches(client, fake_redis, monkeypatch):
    matches = _matches(client)
    aborted = create(client)[0]
    matches.abort(aborted, "for the test")

    def commands_of_a_listing() -> int:
        sent = []
        execute = fake_redis.execute_command
        with monkeypatch.context() as patched:
            patched.setattr(
                fake_redis,
                "execute_command",
                lambda *args, **kwargs: sent.append(args[0]) or execute(*args, **kwargs),
            )
            assert _ids(client.get("/v1/matches?status=aborted")) == [aborted]
        return len(sent)

    commands_of_a_listing()  # the first loads the listing's scripts into Redis
    few = commands_of_a_listing()
    [create(client) for _ in range(30)]
    assert commands_of_a_listing() == few


def test_a_match_moves_to_the_listing_of_its_new_status(client):
    lobby = client.post(
        "/v1/matches", json={"game": "blokus", "players": [{"name": "ann"}, {"open": True}]}
    ).json
    match_id = lobby["id"]
    assert _ids(client.get("/v1/matches?status=open&game=blokus")) == [match_id]
    assert client.post(f"/v1/matches/{match_id}/seats/1/join", json={"name": "bob"}).status_code == 201
    assert (
        _ids(client.get("/v1/matches?status=open")) == []
        and _ids(client.get("/v1/matches?status=open&game=blokus")) == []
    )
    assert _ids(client.get("/v1/matches?status=active&game=blokus")) == [match_id]
    small, tokens = create(
        client,
        game="block-block",
        players=[{"name": "ann"}, {"name": "bob"}],
        options={"board_size": [2, 2], "max_height": 1},
    )
    play_random_game(client, small, tokens, random.Random(3))
    assert _ids(client.get("/v1/matches?status=finished")) == [small]
    assert _ids(client.get("/v1/matches?status=finished&game=block-block")) == [small]
    assert _ids(client.get("/v1/matches?status=active")) == [match_id]
    assert _ids(client.get("/v1/matches")) == [match_id, small]  # every public match, whatever its status


def test_a_match_left_under_a_status_it_has_left_is_moved_when_a_listing_meets_it(
    client, fake_redis, settings
):
    matches = _matches(client)
    match_id = create(client)[0]
    matches.abort(match_id, "for the test")
    stale = f"{settings.namespace}:public:*:active"
    fake_redis.zadd(stale, {match_id: 1})  # as if the move had been cut off half-way
    assert _ids(client.get("/v1/matches?status=active")) == []
    assert fake_redis.zscore(stale, match_id) is None
    assert _ids(client.get("/v1/matches?status=aborted")) == [match_id]


def test_migrate_lists_the_matches_created_before_the_narrowed_listings(client, fake_redis, settings):
    matches = _matches(client)
    ids = [create(client)[0] for _ in range(3)]
    matches.abort(ids[1], "for the test")
    for key in fake_redis.keys(
        f"{settings.namespace}:public:*"
    ):  # what an earlier version kept: the public list only
        fake_redis.delete(key)
    assert _ids(client.get("/v1/matches?status=aborted")) == []
    assert listings.index_listings(matches.stores) == 3
    assert _ids(client.get("/v1/matches?status=aborted")) == [ids[1]]
    assert _ids(client.get("/v1/matches?status=active&game=blokus")) == [ids[0], ids[2]]
