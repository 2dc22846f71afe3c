"""Players across matches: player ids in the log, ratings as a projection of the logs (openskill's
Plackett-Luce), rated once per match in the order matches ended, rebuilt from the logs to the same
numbers, and read per platform over the API."""

from __future__ import annotations

import json
import random

import pytest
from openskill.models import PlackettLuce

from service.application.bots import Bots
from service.application.scoring import Scoring
from service.domain.ratings import RatedMatch, Seat, pool_of, rate, rated_match
from service.store.jobqueue import JobQueue
from service.store.keys import Keys
from service.store.platforms import Platforms
from service.store.players import PlayerStore, plan_rebuild
from tests.helpers import bearer, full_log, play_random_game, run_jobs

PEOPLE = [{"name": n, "player": f"u-{i}"} for i, n in enumerate(("ann", "bob", "cat", "dan"), start=1)]


@pytest.fixture
def platform(settings, fake_redis):
    return Platforms(fake_redis, Keys(settings.namespace)).create("arena")


def _play_bots(matches, match_id):
    """Every seat a bot: their moves made here, in-process, as the bot jobs would make them."""
    while True:
        state = matches.load(match_id)
        if state.finished:
            return state
        for seat in state.to_act():
            assert state.bot_of(seat), f"seat {seat} is a person's"
            Bots(matches).move(match_id, seat, state.version)


def _scored(client, app, fake_redis, settings, match_id):
    matches = app.extensions["matchlog"]
    Scoring(matches.stores).request_scoring(match_id)
    run_jobs(fake_redis, settings)  # scoring, then the rating it asks for
    return matches.load(match_id).result


def _snapshot(store: PlayerStore, platform: str) -> dict:
    """Everything the projection holds for a platform, as plain values."""
    out = {}
    for pool in store.pools(platform):
        ratings = store.all_ratings(platform, pool)
        out[pool] = {
            "ratings": {p: (r.mu, r.sigma, r.games) for p, r in sorted(ratings.items())},
            "players": {p: store.player(platform, p) for p in sorted(ratings)},
            "board": store.leaderboard(platform, pool, 0, 1000)[0],
        }
    return out


def test_player_ids_are_kept_in_the_log_and_need_a_platform(client, platform):
    _, key = platform
    created = client.post(
        "/v1/matches",
        headers=bearer(key),
        json={
            "game": "blokus",
            "players": [PEOPLE[0], {"open": True}, {"bot": "random", "name": "Rita"}, {"name": "dan"}],
        },
    )
    assert created.status_code == 201, created.json
    match_id = created.json["id"]
    assert (
        client.post(f"/v1/matches/{match_id}/seats/1/join", json={"name": "bob", "player": "u-2"}).status_code
        == 401
    )
    assert (
        client.post(
            f"/v1/matches/{match_id}/seats/1/join", json={"name": "bob", "player": "u-2"}, headers=bearer(key)
        ).status_code
        == 201
    )
    assert (
        client.post(
            f"/v1/matches/{match_id}/seats/3/replace",
            json={"name": "eve", "player": "u-5"},
            headers=bearer(key),
        ).status_code
        == 200
    )
    log = full_log(client, match_id)
    assert log[0]["data"]["players"] == [
        {"seat": 0, "name": "ann", "player": "u-1"},
        {"seat": 1, "open": True},
        {"seat": 2, "name": "Rita", "bot": "random"},
        {"seat": 3, "name": "dan"},
    ]
    assert [e["data"] for e in log if e["type"] in ("seat_joined", "seat_replaced")] == [
        {"seat": 1, "name": "bob", "player": "u-2"},
        {"seat": 3, "name": "eve", "player": "u-5"},
    ]

    anonymous = client.post("/v1/matches", json={"game": "blokus", "players": [PEOPLE[0], {"name": "b"}]})
    assert anonymous.status_code == 400 and "players.0.player" in anonymous.json["fields"]
    assert "platform key" in anonymous.json["message"]
    open_anonymous = client.post(
        "/v1/matches", json={"game": "blokus", "players": [{"name": "a"}, {"open": True}]}
    ).json
    refused = client.post(
        f"/v1/matches/{open_anonymous['id']}/seats/1/join", json={"name": "b", "player": "u-2"}
    )
    assert refused.status_code == 400 and "player" in refused.json["fields"]
    for seat, field in (
        ({"bot": "random", "player": "u-9"}, "players.0.player"),
        ({"name": "x", "player": "bot:random"}, "players.0.player"),
        ({"name": "x", "player": "a/b"}, "players.0.player"),
    ):
        answer = client.post(
            "/v1/matches", headers=bearer(key), json={"game": "blokus", "players": [seat, PEOPLE[1]]}
        )
        assert answer.status_code == 400 and field in answer.json["fields"], answer.json


def test_a_match_played_through_the_api_is_rated_as_openskill_rates_it(
    client, app, settings, fake_redis, platform
):
    """Four people play Blokus to the end through the API, twice; the ratings are openskill's own, computed
    here independently, to the last digit."""
    _, key = platform
    model, expected = PlackettLuce(), {}
    for game_number in range(2):
        created = client.post(
            "/v1/matches", headers=bearer(key), json={"game": "blokus", "players": PEOPLE}
        ).json
        tokens = [seat["token"] for seat in created["seats"]]
        play_random_game(client, created["id"], tokens, random.Random(game_number))
        result = _scored(client, app, fake_redis, settings, created["id"])
        teams = [[expected.get(p["player"]) or model.rating()] for p in PEOPLE]
        for person, team in zip(PEOPLE, model.rate(teams, ranks=result["ranks"])):
            expected[person["player"]] = team[0]
    for person in PEOPLE:
        profile = client.get(f"/v1/players/{person['player']}", headers=bearer(key))
        assert profile.status_code == 200, profile.json
        (pool,) = profile.json["pools"]
        assert pool["pool"] == "blokus:four_player:4p" and pool["games"] == 2
        assert (pool["mu"], pool["sigma"]) == (
            expected[person["player"]].mu,
            expected[person["player"]].sigma,
        )
        assert sum(s["games"] for s in pool["by_seat"]) == 2
    board = client.get("/v1/leaderboards/blokus", headers=bearer(key)).json
    assert board["pool"] == "blokus:four_player:4p" and len(board["players"]) == 4
    assert [row["rating"] for row in board["players"]] == sorted(
        (r.mu - 3 * r.sigma for r in expected.values()), reverse=True
    )
    first = client.get("/v1/leaderboards/blokus?limit=3", headers=bearer(key)).json
    rest = client.get(
        f"/v1/leaderboards/blokus?limit=3&cursor={first['next_cursor']}", headers=bearer(key)
    ).json
    assert first["players"] + rest["players"] == board["players"] and rest["next_cursor"] is None
    history = client.get("/v1/players/u-1/matches?limit=1", headers=bearer(key)).json
    older = client.get(
        f"/v1/players/u-1/matches?limit=1&cursor={history['next_cursor']}", headers=bearer(key)
    ).json
    assert len(history["matches"]) == len(older["matches"]) == 1 and older["next_cursor"] is None
    assert history["matches"][0]["ended_ms"] >= older["matches"][0]["ended_ms"]
    assert history["matches"][0]["mu"] == expected["u-1"].mu


def test_another_platform_sees_none_of_it(client, app, settings, fake_redis, platform):
    _, key = platform
    _, other = Platforms(fake_redis, Keys(settings.namespace)).create("elsewhere")
    matches = app.extensions["matchlog"]
    created = client.post(
        "/v1/matches",
        headers=bearer(key),
        json={
            "game": "blokus",
            "options": {"variant": "duo"},
            "players": [{"bot": "random", "name": "r1"}, {"bot": "random", "name": "r2"}],
        },
    ).json
    _play_bots(matches, created["id"])
    _scored(client, app, fake_redis, settings, created["id"])
    assert client.get("/v1/players/bot:random@r1", headers=bearer(key)).status_code == 200
    assert client.get("/v1/players/bot:random@r1", headers=bearer(other)).json["error"] == "player_not_found"
    assert client.get("/v1/players/bot:random@r1/matches", headers=bearer(other)).status_code == 404
    assert client.get("/v1/leaderboards/blokus", headers=bearer(other)).json["players"] == []
    assert client.get("/v1/leaderboards/blokus", headers=bearer(key)).json["pool"] == "blokus:duo:2p"
    for path in ("/v1/players/bot:random@r1", "/v1/leaderboards/blokus", "/v1/players/bot:random@r1/matches"):
        assert client.get(path).status_code == 401


def test_a_rating_counts_once_however_often_its_job_runs(client, app, settings, fake_redis, platform):
    platform_id, key = platform
    matches = app.extensions["matchlog"]
    created = client.post(
        "/v1/matches",
        headers=bearer(key),
        json={
            "game": "blokus",
            "options": {"variant": "duo"},
            "players": [{"bot": "random", "name": "r1"}, {"bot": "greedy"}],
        },
    ).json
    _play_bots(matches, created["id"])
    _scored(client, app, fake_redis, settings, created["id"])
    store = PlayerStore(fake_redis, settings.namespace)
    once = _snapshot(store, platform_id)
    for _ in range(2):  # the projector asks again, RQ retries: the same job runs again
        Scoring(matches.stores).request_rating(created["id"])
        run_jobs(fake_redis, settings)
    _, entries = matches.repository.read(created["id"])
    match, why = rated_match(created["id"], entries)
    assert why == "rated" and store.apply(platform_id, match) is None  # applied already
    assert _snapshot(store, platform_id) == once
    assert once["blokus:duo:2p"]["ratings"]["bot:greedy"][2] == 1


def test_aborted_matches_are_not_rated_and_a_replaced_seat_rates_its_last_holder(
    client, app, settings, fake_redis, platform
):
    platform_id, key = platform
    matches = app.extensions["matchlog"]
    aborted = client.post(
        "/v1/matches",
        headers=bearer(key),
        json={"game": "blokus", "players": PEOPLE[:2], "options": {"variant": "duo"}},
    ).json
    client.post(f"/v1/matches/{aborted['id']}/abort", json={}, headers=bearer(key))
    assert _scored(client, app, fake_redis, settings, aborted["id"])["aborted"]
    _, entries = matches.repository.read(aborted["id"])
    assert rated_match(aborted["id"], entries) == (None, "aborted")
    assert PlayerStore(fake_redis, settings.namespace).pools(platform_id) == []

    replaced = client.post(
        "/v1/matches",
        headers=bearer(key),
        json={"game": "blokus", "players": PEOPLE[:2], "options": {"variant": "duo"}},
    ).json
    client.post(f"/v1/matches/{replaced['id']}/seats/1/replace", json={"bot": "random"}, headers=bearer(key))
    client.post(
        f"/v1/matches/{replaced['id']}/seats/0/replace",
        json={"name": "zed", "player": "u-9"},
        headers=bearer(key),
    )
    assert (
        client.post(
            f"/v1/matches/{replaced['id']}/seats/0/replace", json={"bot": "greedy"}, headers=bearer(key)
        ).status_code
        == 200
    )
    _play_bots(matches, replaced["id"])
    _scored(client, app, fake_redis, settings, replaced["id"])
    ratings = PlayerStore(fake_redis, settings.namespace).all_ratings(platform_id, "blokus:duo:2p")
    assert set(ratings) == {"bot:greedy", "bot:random"}  # the seats' last holders; not u-1, u-2, u-9


def test_pools_and_ties():
    assert pool_of("blokus", {"variant": "duo", "scoring": "simple"}, 2) == "blokus:duo:2p"
    assert pool_of("chock-a-block", {}, 3) == "chock-a-block:3p"
    tied = RatedMatch("m", "g", "g:3p", 0, 9, (Seat(0, "a", 1), Seat(1, "b", 1), Seat(2, "c", 3)))
    after = rate({}, tied)
    assert after["a"].mu == after["b"].mu > after["c"].mu and after["a"].games == 1


@pytest.mark.no_cover  # what it runs is covered by faster tests; traced, it took 3 times as long
@pytest.mark.slow
def test_a_rebuild_from_the_logs_gets_the_same_numbers(client, app, settings, fake_redis, platform):
    """200 bot matches rated as they end; then every rating computed again from the logs alone, by the
    rebuild's jobs: the same ratings, records and leaderboards to the last digit."""
    platform_id, key = platform
    matches = app.extensions["matchlog"]
    rng = random.Random(4)
    personas = [{"bot": "random", "name": f"r{i}"} for i in range(6)] + [{"bot": "greedy"}]
    for _ in range(200):
        created = client.post(
            "/v1/matches",
            headers=bearer(key),
            json={"game": "blokus", "options": {"variant": "duo"}, "players": rng.sample(personas, 2)},
        ).json
        _play_bots(matches, created["id"])
        Scoring(matches.stores).request_scoring(created["id"])
    run_jobs(fake_redis, settings)
    store = PlayerStore(fake_redis, settings.namespace)
    live = _snapshot(store, platform_id)
    assert sum(r[2] for r in live["blokus:duo:2p"]["ratings"].values()) == 400  # every match rated, once

    plan = plan_rebuild(fake_redis, matches.repository, [platform_id])
    assert [len(ids) for ids in plan.values()] == [200]
    queue = JobQueue(fake_redis, Keys(settings.namespace))
    for (platform_name, pool), match_ids in plan.items():
        queue.enqueue_rebuild(platform_name, pool, match_ids)
    run_jobs(fake_redis, settings)
    assert json.dumps(_snapshot(store, platform_id), sort_keys=True) == json.dumps(live, sort_keys=True)


def test_a_match_waits_for_a_match_of_its_pool_that_ended_before_it(fake_redis, settings):
    """The rule worker holds a game's place in its pool's queue when it ends; a match that ended later
    but was scored first waits for it, so ratings follow the order the games ended."""
    from service.domain.ratings import replay_pool

    store = PlayerStore(fake_redis, settings.namespace)
    early = RatedMatch("early", "g", "g:2p", 1000, 40, (Seat(0, "a", 2), Seat(1, "b", 1)))
    late = RatedMatch("late", "g", "g:2p", 2000, 40, (Seat(0, "a", 1), Seat(1, "b", 2)))
    aborted_id = "aborted"
    assert store.hold("p", "g:2p", "early", 1000) and store.hold("p", "g:2p", aborted_id, 500)
    store.enqueue("p", late)
    assert store.process("p", "g:2p") == []  # the aborted one, then early, come first: nothing yet
    store.release("p", "g:2p", aborted_id, "aborted")
    assert store.process("p", "g:2p") == []  # early still unscored
    store.enqueue("p", early)
    assert [m.match_id for m, _, _ in store.process("p", "g:2p")] == ["early", "late"]
    assert store.all_ratings("p", "g:2p") == replay_pool([late, early])
    assert not store.hold("p", "g:2p", "early", 1000) and not store.hold("p", "g:2p", aborted_id, 500)
    assert fake_redis.zcard(store.keys.rating_queue("p", "g:2p")) == 0


def test_a_place_held_with_an_end_the_log_lost_moves_to_the_logs_end_when_scored(fake_redis, settings):
    """A rule worker may hold a game's place with the end it read on a master that a failover then took
    away: the client's retry ends the game again, later, and the scored log says so. The match takes the
    place its log gives it when it is queued, so a game of the pool that ended in between goes first; on the
    code before, the first place held stood, and the ratings were not the rebuild's."""
    from service.domain.ratings import replay_pool

    store = PlayerStore(fake_redis, settings.namespace)
    between = RatedMatch("between", "g", "g:2p", 1500, 40, (Seat(0, "a", 2), Seat(1, "b", 1)))
    ended_again = RatedMatch("again", "g", "g:2p", 2000, 40, (Seat(0, "a", 1), Seat(1, "b", 2)))
    assert store.hold("p", "g:2p", "again", 1000)  # its end as the lost entry had it
    store.hold("p", "g:2p", "between", 1500)
    store.enqueue("p", ended_again)
    store.enqueue("p", between)
    assert [m.match_id for m, _, _ in store.process("p", "g:2p")] == ["between", "again"]
    assert store.all_ratings("p", "g:2p") == replay_pool([ended_again, between])


def test_a_webhook_may_ask_for_rating_changed(client, app, settings, fake_redis, platform):
    platform_id, key = platform
    matches = app.extensions["matchlog"]
    hook = matches.stores.webhooks.register(
        platform_id, "https://hooks.example/ratings", ["rating_changed"], None
    )
    created = client.post(
        "/v1/matches",
        headers=bearer(key),
        json={
            "game": "blokus",
            "options": {"variant": "duo"},
            "players": [{"bot": "random", "name": "r1"}, {"bot": "greedy"}],
        },
    ).json
    _play_bots(matches, created["id"])
    _scored(client, app, fake_redis, settings, created["id"])  # the delivery is tried (and fails: no network)
    (attempt,), _ = matches.stores.webhooks.deliveries(hook["id"])
    assert attempt["delivery"] == f"{hook['id']}-rated-{created['id']}"


@pytest.mark.redis
def test_the_ratings_benchmark_rebuilds_on_shared_workers_to_the_live_numbers(single_redis_url):
    """``tests.bench.ratings`` on a few matches: the live projection through real Redis (its Lua), then
    two worker processes sharing the pools' rebuild, equal to live."""
    from tests.bench.ratings import measure

    figures = dict(measure(single_redis_url, 60, 2))
    assert figures["matches"] == "60" and figures["rebuild equals live"] == "True"
