"""``/v1/seeks``: seeks paired by rating into matches, the seat's token to the seek's owner only, bots only
where both sides allowed them, bounds per player, address and platform, cancel, expiry with a reason; every
answer as the contract says (service/http/seek_routes.py, service/application/seeks.py)."""

from __future__ import annotations

import pytest

from service.application import seeks as seeks_module
from service.domain.pairing.seeks import EXPIRE_MS
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.helpers import bearer
from tests.http.test_openapi_components_typed import fits

DUO = {"game": "blokus", "options": {"variant": "duo"}, "players": 2}


@pytest.fixture
def keys(settings, fake_redis):
    platforms = Platforms(fake_redis, Keys(settings.namespace))
    return platforms.create("arena")[1], platforms.create("elsewhere")[1]


def seek(client, key=None, status=201, **body):
    answer = client.post("/v1/seeks", json={**DUO, **body}, headers=bearer(key) if key else {})
    assert answer.status_code == status, answer.json
    return fits("CreatedSeek" if status == 201 else "Error", answer.json)


def tick(app, after_ms):
    """A pairing tick ``after_ms`` from now, as the worker's seek chore runs one."""
    import time

    return app.extensions["matchlog-seeks"].tick(int(time.time() * 1000) + after_ms)


def test_two_anonymous_seeks_meet_at_once_and_each_owner_alone_reads_its_token(client):
    first = seek(client, name="alice")
    assert first["status"] == "open" and first["match"] is None and first["owner_token"]
    second = seek(client, name="bob")
    assert second["status"] == "paired" and second["token"]
    mine = fits("Seek", client.get(f"/v1/seeks/{first['id']}", headers=bearer(first["owner_token"])).json)
    assert mine["status"] == "paired" and mine["match"] == second["match"]
    assert {mine["seat"], second["seat"]} == {0, 1} and mine["token"] != second["token"]
    seen = fits("Seek", client.get(f"/v1/seeks/{first['id']}").json)
    assert seen["token"] is None and seen["match"] == second["match"]
    match = client.get(f"/v1/matches/{second['match']}").json
    names = [s["name"] for s in sorted(match["players"], key=lambda s: s["seat"])]
    assert names[mine["seat"]] == "alice" and names[second["seat"]] == "bob"
    legal = client.get(f"/v1/matches/{second['match']}/legal-actions", headers=bearer(mine["token"]))
    assert legal.status_code == 200 and legal.json["seat"] == mine["seat"]


def test_seeks_for_other_settings_do_not_meet(client):
    seek(client, name="alice")
    other = seek(client, name="bob", options={"variant": "two_player"})
    assert other["status"] == "open"
    assert seek(client, name="carol", clock={"per_action_s": 30})["status"] == "open"


def test_far_ratings_wait_for_the_tick_that_widens_their_windows(app, client, keys, settings, fake_redis):
    key, _ = keys
    # the strong player's rating, as the ratings projection keeps it: 1500 + 40 * (31 - 25) = 1740
    from service.domain.ratings import Rating, pool_of
    from service.store.players import _rating_text

    pool = pool_of("blokus", {"variant": "duo"}, 2)
    fake_redis.hset(
        Keys(settings.namespace).ratings(_platform(app, key), pool),
        "u-1",
        _rating_text(Rating(31.0, 2.0, 40)),
    )
    strong = seek(client, key, player="u-1", rated=True)
    assert strong["rating"] == 1740.0
    newcomer = seek(client, key, player="u-2", rated=True)
    assert newcomer["rating"] == 1500.0 and newcomer["status"] == "open"
    assert tick(app, 0) == ([], [])
    started, expired = tick(app, 10_000)  # 240 apart: both windows reach it after 7 s
    assert len(started) == 1 and expired == []
    paired = client.get(f"/v1/seeks/{newcomer['id']}", headers=bearer(key)).json
    assert paired["status"] == "paired" and paired["match"] == started[0] and paired["token"]
    match = client.get(f"/v1/matches/{started[0]}", headers=bearer(key)).json
    assert sorted(s.get("player") for s in match["players"]) == ["u-1", "u-2"]


def _platform(app, key):
    return app.extensions["matchlog"].stores.platforms.of_key(key)["id"]


def test_a_bot_meets_only_seeks_that_allowed_bots_on_both_sides(client, keys):
    key, _ = keys
    robot = seek(client, key, player="r-1", bot=True, bots_allowed=True)
    person = seek(client, key, player="u-1")  # allows no bot
    assert robot["status"] == person["status"] == "open"
    willing = seek(client, key, player="u-2", bots_allowed=True)
    assert willing["status"] == "paired"
    assert client.get(f"/v1/seeks/{robot['id']}", headers=bearer(key)).json["match"] == willing["match"]
    assert client.get(f"/v1/seeks/{person['id']}", headers=bearer(key)).json["status"] == "open"
    shy = seek(client, key, player="r-2", bot=True)  # a bot whose platform allows it no bots: nobody
    assert seek(client, key, player="u-3", bots_allowed=True)["status"] == "paired"  # meets u-1, not r-2
    assert client.get(f"/v1/seeks/{shy['id']}", headers=bearer(key)).json["status"] == "open"


def test_a_player_s_open_seeks_are_bounded(client, keys):
    key, _ = keys
    for variant, players in (("duo", 2), ("three_player", 3), ("four_player", 4)):
        seek(client, key, player="u-1", options={"variant": variant}, players=players)
    refused = seek(
        client, key, status=429, player="u-1", options={"variant": "duo"}, clock={"per_action_s": 60}
    )
    assert refused["error"] == "too_many_seeks" and refused["limit"] == seeks_module.SEEKS_PER_PLAYER
    assert seek(client, key, player="u-9", clock={"per_action_s": 60})["status"] == "open"  # another player


def test_an_address_s_anonymous_seeks_are_bounded(client):
    for variant, players in (("duo", 2), ("three_player", 3), ("four_player", 4)):
        seek(client, name="x", options={"variant": variant}, players=players)
    refused = seek(client, status=429, name="x", options={"variant": "two_player"})
    assert refused["error"] == "too_many_seeks" and refused["limit"] == seeks_module.SEEKS_PER_ADDRESS


def test_an_ipv6_client_s_anonymous_seeks_are_bounded_by_its_64(client, fake_redis):
    # a host is given a whole /64: bounded by the address, one client had 2^64 bounds, and filled the server's
    # anonymous seeks (SEEKS_PER_TENANT) for everyone, as the bot budgets already count it (counted_address)
    pools = (("duo", 2), ("three_player", 3), ("four_player", 4), ("two_player", 2))
    for at, (variant, players) in enumerate(pools):
        answer = client.post(
            "/v1/seeks",
            json={"game": "blokus", "name": "x", "options": {"variant": variant}, "players": players},
            environ_base={"REMOTE_ADDR": f"2001:db8:1:2::{at + 1:x}"},
        )
        if at < seeks_module.SEEKS_PER_ADDRESS:
            assert answer.status_code == 201, answer.json
    assert answer.status_code == 429 and fits("Error", answer.json)["error"] == "too_many_seeks"
    elsewhere = client.post(
        "/v1/seeks",
        json={"game": "blokus", "name": "x", "options": {"variant": "two_player"}, "players": 2},
        environ_base={"REMOTE_ADDR": "2001:db8:1:3::1"},  # another /64
    )
    assert elsewhere.status_code == 201, elsewhere.json
    # the seek keeps what it is counted by, not the client's full address (a day, in every seek's record)
    assert all(b"2001:db8:1:3::1" not in fake_redis.get(key) for key in fake_redis.scan_iter("*:seek:*"))


def test_an_ipv4_client_written_in_ipv6_has_the_bound_of_its_ipv4_address(client):
    pools = (("duo", 2), ("three_player", 3), ("four_player", 4), ("two_player", 2))
    answers = [
        client.post(
            "/v1/seeks",
            json={"game": "blokus", "name": "x", "options": {"variant": variant}, "players": players},
            environ_base={"REMOTE_ADDR": "::ffff:192.0.2.7" if at % 2 else "192.0.2.7"},
        )
        for at, (variant, players) in enumerate(pools)
    ]
    assert [a.status_code for a in answers] == [201] * seeks_module.SEEKS_PER_ADDRESS + [429]


def test_the_owner_cancels_once_and_nobody_else_can(client, keys):
    key, other = keys
    mine = seek(client, key, player="u-1")
    assert client.get(f"/v1/seeks/{mine['id']}", headers=bearer(other)).status_code == 404
    assert client.delete(f"/v1/seeks/{mine['id']}", headers=bearer(other)).status_code == 404
    cancelled = client.delete(f"/v1/seeks/{mine['id']}", headers=bearer(key))
    assert cancelled.status_code == 200 and fits("Seek", cancelled.json)["status"] == "cancelled"
    again = client.delete(f"/v1/seeks/{mine['id']}", headers=bearer(key))
    assert (
        again.status_code == 409
        and again.json["error"] == "not_open"
        and again.json["current_status"] == "cancelled"
    )
    fits("Error", again.json)
    assert seek(client, key, player="u-2")["status"] == "open"  # the cancelled one no longer meets anyone
    anonymous = seek(client, name="alice", options={"variant": "four_player"}, players=4)
    stranger = client.delete(f"/v1/seeks/{anonymous['id']}")
    assert stranger.status_code == 403 and stranger.json["error"] == "not_your_seek"
    owned = client.delete(f"/v1/seeks/{anonymous['id']}", headers=bearer(anonymous["owner_token"]))
    assert owned.status_code == 200


def test_a_seek_nobody_meets_expires_with_a_reason(app, client, keys):
    key, _ = keys
    lonely = seek(client, key, player="u-1")
    started, expired = tick(app, EXPIRE_MS)
    assert started == [] and expired == [lonely["id"]]
    gone = client.get(f"/v1/seeks/{lonely['id']}", headers=bearer(key)).json
    assert gone["status"] == "expired" and gone["reason"] == "no_opponent_in_time" and gone["token"] is None
    assert client.get("/v1/seeks", headers=bearer(key)).json["seeks"] == []


def test_the_open_seeks_are_listed_a_page_at_a_time_without_tokens(client, keys):
    key, other = keys
    made = [
        seek(client, key, player=f"u-{i}", options={"variant": "four_player"}, players=4)["id"]
        for i in range(3)
    ]
    listed, cursor = [], None
    while True:
        page = client.get(
            "/v1/seeks",
            headers=bearer(key),
            query_string={"limit": 2, **({"cursor": cursor} if cursor else {})},
        )
        assert page.status_code == 200
        fits("Seeks", page.json)
        listed += [row["id"] for row in page.json["seeks"]]
        cursor = page.json["next_cursor"]
        if cursor is None:
            break
    assert listed == made
    assert client.get("/v1/seeks", headers=bearer(other)).json["seeks"] == []
    bad = client.get("/v1/seeks", query_string={"cursor": "nope"})
    assert bad.status_code == 400 and bad.json["fields"] == {"cursor": ["not a cursor this endpoint gave"]}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"game": "chess"}, "game"),
        ({"players": 3, "options": {"variant": "duo"}}, "players"),
        ({"rated": True}, "rated"),
        ({"player": "u-1"}, "player"),
        ({"on_timeout": "pass"}, "on_timeout"),
        ({"bots_allowed": "yes"}, "bots_allowed"),
    ],
)
def test_settings_no_match_could_have_are_refused_naming_the_field(client, body, field):
    refused = seek(client, status=400, name="x", **body)
    assert refused["error"] == "invalid_request" and field in refused["fields"], refused


def test_a_platform_seeks_for_a_player_whose_id_may_stand_for_a_name(client, keys):
    key, _ = keys
    refused = seek(client, key, status=400)
    assert "player" in refused["fields"]
    hidden = seek(client, key, status=400, player="u-\u202e1")  # a direction override: no seat's name
    assert "name" in hidden["fields"]
    assert seek(client, key, player="u-\u202e1", name="ann")["name"] == "ann"


def test_a_retried_seek_with_its_idempotency_key_is_the_same_seek(client, keys):
    key, _ = keys
    retry = {**bearer(key), "Idempotency-Key": "seek-u-1-first-try"}
    first = client.post("/v1/seeks", json={**DUO, "player": "u-1"}, headers=retry)
    again = client.post("/v1/seeks", json={**DUO, "player": "u-1"}, headers=retry)
    assert first.status_code == again.status_code == 201 and again.json["id"] == first.json["id"]
    assert len(client.get("/v1/seeks", headers=bearer(key)).json["seeks"]) == 1


@pytest.mark.parametrize("at", ["²", "٣", "1" * 16])
def test_a_cursor_of_other_than_ascii_digits_is_refused_not_a_server_error(client, keys, at):
    # str.isdigit() takes "²", which int() refuses: a 500 where a 400 belongs, for seeks and challenges alike
    key, _ = keys
    cursor = f"{at}:{'0' * 32}"
    for path, query in (("/v1/seeks", {}), ("/v1/challenges", {"player": "u-1"})):
        bad = client.get(path, headers=bearer(key), query_string={"cursor": cursor, **query})
        assert bad.status_code == 400, (path, bad.json)
        assert fits("Error", bad.json)["fields"] == {"cursor": ["not a cursor this endpoint gave"]}
