"""``GET /v1/players/{player}/matches?status=``: a platform lists the matches its player holds a seat in, not
over (``active``) or ended (``finished``), with the seat, whose turn it is and when each last changed; only the
platform that owns the player id sees them, a page at a time."""

from __future__ import annotations

import pytest

from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.helpers import act, bearer


@pytest.fixture
def keys(settings, fake_redis):
    """Two platforms' keys: the one whose players these are, and another."""
    platforms = Platforms(fake_redis, Keys(settings.namespace))
    return platforms.create("arena")[1], platforms.create("elsewhere")[1]


def _duo(client, key, *players, open_seat=False):
    """A Blokus duo match of the platform for ``players`` (ids), the second seat left open if asked."""
    seats = [{"name": f"n-{p}", "player": p} for p in players]
    if open_seat:
        seats.append({"open": True})
    created = client.post(
        "/v1/matches",
        headers=bearer(key),
        json={"game": "blokus", "options": {"variant": "duo"}, "players": seats},
    )
    assert created.status_code == 201, created.json
    return created.json["id"], [seat.get("token") for seat in created.json["seats"]]


def _listed(client, key, player, status, **query):
    answer = client.get(
        f"/v1/players/{player}/matches", headers=bearer(key), query_string={"status": status, **query}
    )
    assert answer.status_code == 200, answer.json
    return answer.json


def test_a_platform_lists_its_players_matches_not_over_with_the_seat_and_whose_turn(client, keys):
    key, _ = keys
    waiting, _ = _duo(client, key, "u-1", open_seat=True)
    joined = client.post(
        f"/v1/matches/{waiting}/seats/1/join", headers=bearer(key), json={"name": "bob", "player": "u-2"}
    )
    assert joined.status_code == 201, joined.json
    playing, tokens = _duo(client, key, "u-2", "u-1")
    legal = client.get(f"/v1/matches/{playing}/legal-actions", headers=bearer(tokens[0])).json["actions"]
    assert act(client, playing, tokens[0], 1, legal[0]).status_code == 201
    rows = _listed(client, key, "u-1", "active")
    assert rows["player"] == "u-1" and rows["next_cursor"] is None
    assert [(r["match"], r["seat"], r["to_act"]) for r in rows["matches"]] == [
        (playing, 1, [1]),
        (waiting, 0, [0]),
    ]
    for row in rows["matches"]:
        match = client.get(f"/v1/matches/{row['match']}").json
        assert row == {
            "match": match["id"],
            "game": "blokus",
            "seat": row["seat"],
            "status": "active",
            "version": match["version"],
            "to_act": match["to_act"],
            "created_at": match["created_at"],
            "updated_at": match["updated_at"],
            "ended_at": None,
        }
    assert [r["match"] for r in _listed(client, key, "u-2", "active")["matches"]] == [playing, waiting]
    assert _listed(client, key, "u-1", "finished")["matches"] == []


def test_a_match_that_ends_moves_to_its_players_finished_matches(client, keys):
    key, _ = keys
    match_id, _ = _duo(client, key, "u-1", "u-2")
    aborted = client.post(f"/v1/matches/{match_id}/abort", headers=bearer(key), json={"reason": "enough"})
    assert aborted.status_code == 200, aborted.json
    for player, seat in (("u-1", 0), ("u-2", 1)):
        assert _listed(client, key, player, "active")["matches"] == []
        (row,) = _listed(client, key, player, "finished")["matches"]
        assert (row["match"], row["seat"], row["status"]) == (match_id, seat, "aborted")
        assert row["ended_at"] == aborted.json["ended_at"] is not None


def test_a_seat_handed_to_another_player_leaves_the_first_ones_matches(client, keys):
    key, _ = keys
    match_id, _ = _duo(client, key, "u-1", "u-2")
    for body in ({"name": "cat", "player": "u-3"}, {"bot": "random"}):
        handed = client.post(f"/v1/matches/{match_id}/seats/1/replace", headers=bearer(key), json=body)
        assert handed.status_code == 200, handed.json
        assert _listed(client, key, "u-2", "active")["matches"] == []
        held = [r["match"] for r in _listed(client, key, "u-3", "active")["matches"]]
        assert held == ([match_id] if "player" in body else [])
    assert [r["seat"] for r in _listed(client, key, "u-1", "active")["matches"]] == [0]


def test_only_the_platform_that_owns_the_player_id_lists_its_matches(client, keys):
    key, other = keys
    match_id, tokens = _duo(client, key, "u-1", "u-2")
    assert [r["match"] for r in _listed(client, key, "u-1", "active")["matches"]] == [match_id]
    assert _listed(client, other, "u-1", "active")["matches"] == []  # another platform's u-1 is someone else
    _duo(client, other, "u-1", "u-9")
    assert [r["match"] for r in _listed(client, key, "u-1", "active")["matches"]] == [match_id]
    for headers in ({}, bearer(tokens[0])):  # no key, or a seat's token: not the platform
        answer = client.get("/v1/players/u-1/matches?status=active", headers=headers)
        assert answer.status_code == 401 and answer.json["error"] == "platform_key_required"


def test_pages_are_bounded_and_a_cursor_pages_on_to_each_match_once(client, keys):
    key, _ = keys
    made = [_duo(client, key, "u-1", "u-1")[0] for _ in range(3)]  # both seats: two rows a match
    rows, cursor = [], None
    while True:
        page = _listed(client, key, "u-1", "active", limit=4, **({"cursor": cursor} if cursor else {}))
        assert len(page["matches"]) <= 4
        rows += page["matches"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    seen = [(r["match"], r["seat"]) for r in rows]
    assert sorted(seen) == sorted((m, s) for m in made for s in (0, 1)) and len(seen) == 6
    assert [r["created_at"] for r in rows] == sorted((r["created_at"] for r in rows), reverse=True)
    for query in ("status=active&limit=101", "status=active&limit=0", "status=active&cursor=nope"):
        for refused in (
            query,
            query.replace("active", "finished"),
            "status=open",
            "status=active&cursor=1:m",
        ):
            answer = client.get(f"/v1/players/u-1/matches?{refused}", headers=bearer(key))
            assert answer.status_code == 400 and answer.json["error"] == "invalid_request", refused


def test_without_status_the_answer_is_the_rated_matches_as_before(client, keys):
    key, _ = keys
    _duo(client, key, "u-1", "u-2")
    answer = client.get("/v1/players/u-1/matches", headers=bearer(key))
    assert answer.status_code == 404 and answer.json["error"] == "player_not_found"


def test_a_match_that_ended_unseen_by_the_index_leaves_the_active_ones_when_listed(client, app, keys):
    key, _ = keys
    match_id, _ = _duo(client, key, "u-1", "u-2")
    stores = app.extensions["matchlog"].stores
    change = stores.player_matches.change
    stores.player_matches.change = lambda *args, **kwargs: None  # a process stopped after the append
    try:
        assert (
            client.post(
                f"/v1/matches/{match_id}/abort", headers=bearer(key), json={"reason": "x"}
            ).status_code
            == 200
        )
    finally:
        stores.player_matches.change = change
    assert _listed(client, key, "u-1", "active")["matches"] == []
    assert [r["match"] for r in _listed(client, key, "u-1", "finished")["matches"]] == [match_id]


@pytest.mark.parametrize("at", ["²", "٣", "9" * 150])
def test_a_cursor_of_other_than_ascii_digits_is_refused_not_a_server_error(
    client, app, keys, settings, fake_redis, at
):
    # str.isdigit() takes "²" (which int() refuses) : a 500, not a 400
    from service.domain.ratings import Rating
    from service.store.players import _rating_text

    key, _ = keys
    platform = app.extensions["matchlog"].stores.platforms.of_key(key)["id"]
    store_keys = Keys(settings.namespace)
    fake_redis.hset(store_keys.ratings(platform, "blokus:duo:2p"), "u-1", _rating_text(Rating(25.0, 8.0, 1)))
    fake_redis.sadd(store_keys.rating_player_pools(platform, "u-1"), "blokus:duo:2p")
    for path, query in (
        ("/v1/leaderboards/blokus", {"pool": "blokus:duo:2p", "cursor": at}),
        ("/v1/players/u-1/matches", {"cursor": f"{at}:{'0' * 32}"}),
        ("/v1/players/u-1/matches", {"status": "active", "cursor": f"{at}:{'0' * 32}:0"}),
        ("/v1/players/u-1/matches", {"status": "active", "cursor": f"1:{'0' * 32}:{at}"}),
    ):
        bad = client.get(path, headers=bearer(key), query_string=query)
        assert bad.status_code == 400, (path, query, bad.json)
        assert bad.json["fields"] == {"cursor": ["not a cursor this endpoint gave"]}
