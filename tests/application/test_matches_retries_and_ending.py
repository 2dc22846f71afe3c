"""Every write is safe to retry, and every match can end: ``Idempotency-Key`` on each POST and DELETE (the
same key and body: the first answer, the same token to the same caller; another body: 422; races: one
write), ``POST .../concede`` in every game (replays agree), the creator token that aborts a match made
without a platform key, and abandonment (``MATCHLOG_ABANDON_AFTER_S``) ended by the worker's chore."""

from __future__ import annotations

import dataclasses
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from service.application import listings
from service.application.abandonment import Abandonment
from service.application.scoring import Scoring
from service.domain import replay
from service.domain.chain import Recorded
from service.http.app import create_app
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.helpers import act, bearer, play_random_game

KEY = {"Idempotency-Key": "a-random-key-only-this-client-knows-1"}


def players(n, open_seats=()):
    return [{"open": True} if i in open_seats else {"name": f"p{i}"} for i in range(n)]


def app_of(client):
    return client.application.extensions["matchlog"]


# -- Idempotency-Key on every write --------------------------------------------------------------------


def test_a_create_sent_twice_with_one_key_makes_one_match_and_a_new_body_is_refused(client):
    body = {"game": "blokus", "players": players(2)}
    first = client.post("/v1/matches", json=body, headers=KEY)
    again = client.post("/v1/matches", json=body, headers=KEY)
    assert first.status_code == again.status_code == 201
    assert again.json == first.json  # the same match, the same tokens, the same creator token
    other = client.post("/v1/matches", json={**body, "players": players(3)}, headers=KEY)
    assert other.status_code == 422 and other.json["error"] == "idempotency_key_reused"
    assert (
        client.post("/v1/matches", json=body).json["id"] != first.json["id"]
    )  # no key: a new match each time


def test_a_platforms_key_is_its_own(client, fake_redis, settings):
    _, key = Platforms(fake_redis, Keys(settings.namespace)).create("arena")
    body = {"game": "blokus", "players": players(2)}
    mine = client.post("/v1/matches", json=body, headers={**KEY, **bearer(key)})
    anonymous = client.post("/v1/matches", json=body, headers=KEY)
    assert mine.status_code == anonymous.status_code == 201 and mine.json["id"] != anonymous.json["id"]
    assert "creator_token" not in mine.json and "creator_token" in anonymous.json
    assert client.post("/v1/matches", json=body, headers={**KEY, **bearer(key)}).json == mine.json


def test_a_key_that_alone_guards_tokens_must_be_long_enough_to_be_a_secret(client, fake_redis, settings):
    """Without a caller (an anonymous create, a join), a retry with the same key and body gets the first
    answer's tokens back, and a join's body is a public name: a short key would hand them to a stranger."""
    created = client.post("/v1/matches", json={"game": "blokus", "players": players(2, open_seats=(1,))}).json
    short = {"Idempotency-Key": "x" * 20}
    for url, body in [
        ("/v1/matches", {"game": "blokus", "players": players(2)}),
        (f"/v1/matches/{created['id']}/seats/1/join", {"name": "eve"}),
    ]:
        refused = client.post(url, json=body, headers=short)
        assert refused.status_code == 400 and refused.json["error"] == "invalid_request", url
        assert "at least 21 random characters" in refused.json["fields"]["Idempotency-Key"][0]
    assert client.get(f"/v1/matches/{created['id']}").json["version"] == created["version"]  # nobody joined
    assert (
        client.post(
            created_url := f"/v1/matches/{created['id']}/seats/1/join",
            json={"name": "eve"},
            headers={"Idempotency-Key": "x" * 21},
        ).status_code
        == 201
    ), created_url
    _, key = Platforms(fake_redis, Keys(settings.namespace)).create("arena")
    mine = client.post(
        "/v1/matches", json={"game": "blokus", "players": players(2)}, headers={**short, **bearer(key)}
    )
    assert mine.status_code == 201  # a platform's keys are scoped by the platform: any length will do


def test_a_join_whose_answer_was_lost_gets_its_token_again(client):
    created = client.post("/v1/matches", json={"game": "blokus", "players": players(2, open_seats=(1,))}).json
    url = f"/v1/matches/{created['id']}/seats/1/join"
    first = client.post(url, json={"name": "eve"}, headers=KEY)
    again = client.post(url, json={"name": "eve"}, headers=KEY)
    assert first.status_code == again.status_code == 201 and again.json == first.json
    assert client.get(f"/v1/matches/{created['id']}").json["version"] == first.json["version"]  # joined once
    other = client.post(url, json={"name": "mallory"}, headers=KEY)
    assert other.status_code == 422 and other.json["error"] == "idempotency_key_reused"
    stranger = client.post(
        url, json={"name": "eve"}, headers={"Idempotency-Key": "another-random-key-of-a-stranger"}
    )
    assert stranger.status_code == 409 and stranger.json["error"] == "seat_taken"
    assert (
        client.get(
            f"/v1/matches/{created['id']}/legal-actions", headers=bearer(first.json["token"])
        ).status_code
        == 200
    )


def test_racing_joins_with_one_key_get_one_seat_and_one_token(real_client):
    created = real_client.post(
        "/v1/matches", json={"game": "blokus", "players": players(2, open_seats=(1,))}
    ).json
    url = f"/v1/matches/{created['id']}/seats/1/join"
    barrier = threading.Barrier(4)

    def join(_):
        barrier.wait()
        return real_client.post(url, json={"name": "eve"}, headers=KEY)

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(join, range(4)))
    assert {a.status_code for a in answers} == {201}, [a.json for a in answers]
    assert len({a.json["token"] for a in answers}) == 1
    log = real_client.get(f"/v1/matches/{created['id']}/events").json["events"]
    assert [e["type"] for e in log].count("seat_joined") == 1


def test_racing_creates_with_one_key_make_one_match(real_client):
    barrier = threading.Barrier(4)

    def create(_):
        barrier.wait()
        return real_client.post(
            "/v1/matches", json={"game": "chock-a-block", "players": players(3)}, headers=KEY
        )

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(create, range(4)))
    assert {a.status_code for a in answers} == {201}, [a.json for a in answers]
    assert len({a.json["id"] for a in answers}) == 1 and len({a.json["creator_token"] for a in answers}) == 1


def test_a_retry_while_the_first_still_runs_waits_then_is_told_it_is_in_progress(client, monkeypatch):
    from service.application import idempotency

    monkeypatch.setattr(idempotency, "IDEMPOTENCY_WAIT_S", 0.2)
    app = app_of(client)
    key = app.stores.keys.scoped_idempotency(
        None,
        "create",
        "anyone",
        __import__("hashlib").sha256(b"slow-a-random-key-of-this-client").hexdigest(),
    )
    fingerprint = idempotency.fingerprint_of(
        ["create", ["application/json", {"game": "blokus", "players": players(2)}]]
    )
    app.repository.claim(key, "pending:" + fingerprint, 60)  # a first request that is still running
    answer = client.post(
        "/v1/matches",
        json={"game": "blokus", "players": players(2)},
        headers={"Idempotency-Key": "slow-a-random-key-of-this-client"},
    )
    assert answer.status_code == 409 and answer.json["error"] == "idempotency_key_in_progress"
    other = client.post(
        "/v1/matches",
        json={"game": "blokus", "players": players(3)},
        headers={"Idempotency-Key": "slow-a-random-key-of-this-client"},
    )
    assert other.status_code == 422 and other.json["error"] == "idempotency_key_reused"


def test_replace_abort_score_concede_and_webhooks_answer_a_retry_with_the_first_answer(fake_redis, settings):
    settings = dataclasses.replace(settings, webhooks_private=True)
    client = create_app(settings, fake_redis).test_client()
    _, key = Platforms(fake_redis, Keys(settings.namespace)).create("arena")
    owner = bearer(key)
    created = client.post(
        "/v1/matches", json={"game": "chock-a-block", "players": players(3)}, headers=owner
    ).json
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    url = f"/v1/matches/{match_id}"

    replaced = [
        client.post(f"{url}/seats/2/replace", json={"name": "zed"}, headers={**owner, **KEY})
        for _ in range(2)
    ]
    assert replaced[0].status_code == replaced[1].status_code == 200 and replaced[0].json == replaced[1].json
    assert "token" in replaced[0].json
    other = client.post(f"{url}/seats/2/replace", json={"name": "yan"}, headers={**owner, **KEY})
    assert other.status_code == 422 and other.json["error"] == "idempotency_key_reused"

    scored = [client.post(f"{url}/score", headers={**bearer(tokens[0]), **KEY}) for _ in range(2)]
    assert scored[0].status_code == 202 and scored[0].json == scored[1].json

    conceded = [client.post(f"{url}/concede", headers={**bearer(tokens[1]), **KEY}) for _ in range(2)]
    assert conceded[0].status_code == conceded[1].status_code == 201 and conceded[0].json == conceded[1].json
    assert [e["type"] for e in client.get(f"{url}/events").json["events"]].count("seat_conceded") == 1

    aborted = [
        client.post(f"{url}/abort", json={"reason": "closing"}, headers={**owner, **KEY}) for _ in range(2)
    ]
    assert aborted[0].status_code == aborted[1].status_code == 200 and aborted[0].json == aborted[1].json
    assert aborted[0].json["status"] == "aborted"
    unkeyed = client.post(f"{url}/abort", json={"reason": "closing"}, headers=owner)
    assert unkeyed.status_code == 409 and unkeyed.json["error"] == "match_over"

    hook = {"url": "http://127.0.0.1:9/hook", "events": ["match_scored"]}
    made = [client.post("/v1/webhooks", json=hook, headers={**owner, **KEY}) for _ in range(2)]
    assert made[0].status_code == made[1].status_code == 201 and made[0].json == made[1].json
    assert len(client.get("/v1/webhooks", headers=owner).json["webhooks"]) == 1
    gone = [client.delete(f"/v1/webhooks/{made[0].json['id']}", headers={**owner, **KEY}) for _ in range(2)]
    assert [g.status_code for g in gone] == [204, 204]
    assert client.delete(f"/v1/webhooks/{made[0].json['id']}", headers=owner).status_code == 404


def test_every_write_documents_the_idempotency_key(client):
    spec = client.get("/openapi.json").json
    writes = [
        (path, method)
        for path, item in spec["paths"].items()
        for method in item
        if method in ("post", "delete") and path.startswith("/v1/")
    ]
    assert len(writes) >= 12
    shared = spec["components"].get("parameters", {})  # a header written once is referred to
    for path, method in writes:
        parameters = [
            shared[p["$ref"].rsplit("/", 1)[1]] if "$ref" in p else p
            for p in spec["paths"][path][method].get("parameters", [])
        ]
        names = [p["name"] for p in parameters if p.get("in") == "header"]
        assert "Idempotency-Key" in names, (path, method)


# -- concede -------------------------------------------------------------------------------------------

GAMES_AND_SEATS = [
    ("blokus", 2),
    ("blokus", 3),
    ("block-block", 2),
    ("chock-a-block", 2),
    ("chock-a-block", 3),
    ("blackout-hong-kong", 2),
    ("blackout-hong-kong", 3),
]


@pytest.mark.parametrize("game,seats", GAMES_AND_SEATS)
def test_a_seat_concedes_in_every_game_and_the_log_replays_to_the_same_result(client, game, seats):
    created = client.post("/v1/matches", json={"game": game, "players": players(seats)}).json
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    rng = random.Random(f"{game}{seats}")
    play_random_game(client, match_id, tokens, rng, max_actions=2)
    quitter = client.get(f"/v1/matches/{match_id}").json["to_act"][0]
    answer = client.post(f"/v1/matches/{match_id}/concede", headers=bearer(tokens[quitter]))
    assert answer.status_code == 201, answer.json
    assert answer.json["events"][0]["type"] == "seat_conceded"
    match = client.get(f"/v1/matches/{match_id}").json
    if seats == 2:
        assert match["status"] == "finished" and answer.json["events"][-1]["type"] == "seed_revealed"
    else:  # the others play on; the server takes the conceded seat's turns
        assert match["status"] == "active" and quitter not in match["to_act"]
        again = client.post(f"/v1/matches/{match_id}/concede", headers=bearer(tokens[quitter]))
        assert again.status_code == 422 and again.json["reason"] == "seat_conceded"
        mover = match["to_act"][0]
        legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[mover])).json
        refused = act(client, match_id, tokens[quitter], legal["version"], legal["actions"][0])
        assert refused.status_code == 422 and refused.json["reason"] == "seat_conceded", refused.json
        match = play_random_game(client, match_id, tokens, rng)
        assert match["status"] == "finished"
    app = app_of(client)
    result = Scoring(app.stores).record_result(match_id)
    assert result["final"] and result["conceded"] == [quitter] and result["ranks"][quitter] == seats
    _, entries = app.repository.read(match_id)
    rebuilt = replay.replay(entries)
    assert rebuilt.result == result and rebuilt.conceded == (quitter,)
    late = client.post(f"/v1/matches/{match_id}/concede", headers=bearer(tokens[(quitter + 1) % seats]))
    assert late.status_code == 422 and late.json["reason"] == "game_over"
    # and every answer is what openapi.yaml says: the created match with its creator token, the concession,
    # the log with seat_conceded and the server's moves, the result with conceded
    from service.games import GAMES
    from service.http.openapi_components import prefix
    from tests.http.test_openapi_components_typed import problems

    shape = prefix(GAMES[game])
    assert problems("create", shape, created) == []
    assert problems("accepted", shape, answer.json) == []
    # (up to the concession: a long random game's later entries are the game's contract's business)
    upto = answer.json["version"]
    page = client.get(f"/v1/matches/{match_id}/events?limit={upto}").json
    assert problems("events", shape, page) == []
    tail = client.get(
        f"/v1/matches/{match_id}/events?after={client.get(f'/v1/matches/{match_id}').json['version'] - 2}"
    ).json
    assert problems("events", shape, tail) == []  # the end: seed_revealed, match_scored with conceded
    assert problems("match", shape, client.get(f"/v1/matches/{match_id}").json) == []


def test_a_conceded_seats_own_move_is_refused_with_its_reason(client):
    created = client.post("/v1/matches", json={"game": "chock-a-block", "players": players(3)}).json
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    match = client.get(f"/v1/matches/{match_id}").json
    quitter = next(seat for seat in range(3) if seat not in match["to_act"])
    assert client.post(f"/v1/matches/{match_id}/concede", headers=bearer(tokens[quitter])).status_code == 201
    app = app_of(client)
    state = app.load(match_id)
    from service.domain import lifecycle
    from service.games.protocol import IllegalAction

    with pytest.raises(IllegalAction) as refused:
        lifecycle.act(
            state,
            quitter,
            {"type": "anything"},
            app.repository.meta(match_id).secret,
            "2026-01-01T00:00:00Z",
        )
    assert refused.value.reason == "seat_conceded"


def test_an_open_match_cannot_be_conceded_yet(client):
    created = client.post("/v1/matches", json={"game": "blokus", "players": players(2, open_seats=(1,))}).json
    answer = client.post(f"/v1/matches/{created['id']}/concede", headers=bearer(created["seats"][0]["token"]))
    assert answer.status_code == 422 and answer.json["reason"] == "match_not_started"


def test_a_forged_concession_is_out_of_place(client):
    created = client.post("/v1/matches", json={"game": "chock-a-block", "players": players(3)}).json
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    client.post(f"/v1/matches/{match_id}/concede", headers=bearer(tokens[0]))
    client.post(f"/v1/matches/{match_id}/concede", headers=bearer(tokens[1]))
    _, entries = app_of(client).repository.read(match_id)
    assert app_of(client).load(match_id).finished  # two of three conceded: one left in play
    conceded = next(e for e in entries if e.type == "seat_conceded")
    seed = next(e for e in entries if e.type == "seed_revealed").data
    state = replay.start(entries[0], seed["seed"], seed["salt"])
    state = replay.fold(state, [e for e in entries if 1 < e.version <= conceded.version])
    again = Recorded(state.version + 1, "seat_conceded", conceded.seat, conceded.data, conceded.at).chained(
        state.head_hash
    )
    with pytest.raises(replay.EntryOutOfPlace):
        replay.advance(state, again)
    by_person = Recorded(
        state.version + 1, "acted_by", conceded.seat, {"by": "bot:random"}, conceded.at
    ).chained(state.head_hash)
    with pytest.raises(replay.EntryOutOfPlace):
        replay.advance(state, by_person)
    nobody = Recorded(state.version + 1, "seat_conceded", 7, {"seat": 7}, conceded.at).chained(
        state.head_hash
    )
    with pytest.raises(replay.EntryOutOfPlace):
        replay.advance(state, nobody)


def test_ranks_put_conceded_seats_last_the_latest_first():
    assert replay.conceded_ranks([1, 2, 3, 4], [0]) == [4, 1, 2, 3]
    assert replay.conceded_ranks([1, 1, 3, 4], [3, 0]) == [3, 1, 2, 4]
    assert replay.conceded_ranks([2, 1, 1], [2]) == [2, 1, 3]


# -- the creator token ---------------------------------------------------------------------------------


def test_the_creator_token_aborts_a_wrong_one_is_refused_and_a_platforms_match_has_none(
    client, fake_redis, settings
):
    created = client.post("/v1/matches", json={"game": "blokus", "players": players(2)}).json
    url = f"/v1/matches/{created['id']}/abort"
    seat = client.post(url, json={}, headers=bearer(created["seats"][0]["token"]))
    assert seat.status_code == 403
    wrong = client.post(url, json={}, headers=bearer("not-the-creator-token-at-all-000"))
    assert wrong.status_code == 403
    bare = client.post(url, json={})
    assert bare.status_code == 401
    aborted = client.post(url, json={"reason": "we stopped"}, headers=bearer(created["creator_token"]))
    assert aborted.status_code == 200 and aborted.json["status"] == "aborted"
    events = client.get(f"/v1/matches/{created['id']}/events").json["events"]
    assert events[-2]["type"] == "match_aborted" and events[-2]["data"]["reason"] == "we stopped"
    other = client.post("/v1/matches", json={"game": "blokus", "players": players(2)}).json
    assert (
        client.post(
            f"/v1/matches/{other['id']}/abort", json={}, headers=bearer(created["creator_token"])
        ).status_code
        == 403
    )  # another match's

    _, key = Platforms(fake_redis, Keys(settings.namespace)).create("arena")
    platform_match = client.post(
        "/v1/matches", json={"game": "blokus", "players": players(2)}, headers=bearer(key)
    ).json
    assert "creator_token" not in platform_match
    assert app_of(client).repository.meta(platform_match["id"]).creator == ""


# -- abandonment -----------------------------------------------------------------------------------------


def test_an_idle_match_is_ended_as_abandoned_and_leaves_the_open_and_active_listings(
    settings, real_redis, redis_url
):
    settings = dataclasses.replace(settings, abandon_after_s=0.3)
    client = create_app(settings, real_redis).test_client()
    active = client.post("/v1/matches", json={"game": "blokus", "players": players(2)}).json
    waiting = client.post("/v1/matches", json={"game": "blokus", "players": players(2, open_seats=(1,))}).json
    assert active["id"] in [m["id"] for m in client.get("/v1/matches?status=active").json["matches"]]
    assert waiting["id"] in [m["id"] for m in client.get("/v1/matches?status=open").json["matches"]]
    app = app_of(client)
    assert Abandonment(app).end_abandoned() == []  # not idle yet
    time.sleep(0.5)

    from workers.worker import end_abandoned

    stop = threading.Event()
    chore = threading.Thread(target=end_abandoned, args=(app, stop))
    chore.start()  # the worker's chore, as `matchlog worker` runs it
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and app.load(waiting["id"]).version < 3:
        time.sleep(0.05)
    stop.set()
    chore.join()
    for match in (active, waiting):
        summary = client.get(f"/v1/matches/{match['id']}").json
        assert summary["status"] == "aborted", summary
        events = client.get(f"/v1/matches/{match['id']}/events").json["events"]
        assert [e["type"] for e in events[-2:]] == ["match_aborted", "seed_revealed"]
        assert events[-2]["data"]["reason"] == "abandoned"
        result = Scoring(app.stores).record_result(match["id"])
        assert result["aborted"] is True and result["final"] is True
    listed = {
        status: [m["id"] for m in client.get(f"/v1/matches?status={status}").json["matches"]]
        for status in ("open", "active", "aborted")
    }
    assert active["id"] not in listed["active"] and waiting["id"] not in listed["open"]
    assert {active["id"], waiting["id"]} <= set(listed["aborted"])
    assert Abandonment(app).end_abandoned() == []  # nothing ends twice
    assert real_redis.zscore(Keys(settings.namespace).activity, active["id"]) is None


def test_a_process_puts_a_match_it_moves_under_the_abandonment_watch_once_a_minute(
    client, fake_redis, settings, monkeypatch
):
    from service.application import matches

    created = client.post("/v1/matches", json={"game": "blokus", "players": players(4)}).json
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    watch = Keys(settings.namespace).activity

    def move():
        state = app_of(client).load(match_id)
        seat = state.to_act()[0]
        action = state.legal_actions(seat)[0]
        assert act(client, match_id, tokens[seat], state.version, action).status_code == 201

    move()
    assert fake_redis.zscore(watch, match_id) is not None
    fake_redis.zrem(watch, match_id)
    move()  # a second later: the watch is a minute's precision, the log has the rest
    assert fake_redis.zscore(watch, match_id) is None
    monkeypatch.setattr(matches, "ACTIVITY_EVERY_S", 0.0)
    move()
    assert fake_redis.zscore(watch, match_id) is not None


def test_an_undo_asked_after_a_concession_needs_only_the_seats_still_in_play(client):
    created = client.post(
        "/v1/matches", json={"game": "chock-a-block", "players": players(3), "undo": "with_consent"}
    ).json
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    url = f"/v1/matches/{match_id}"
    quitter = next(seat for seat in range(3) if seat not in client.get(url).json["to_act"])
    assert client.post(f"{url}/concede", headers=bearer(tokens[quitter])).status_code == 201
    mover = client.get(url).json["to_act"][0]
    legal = client.get(f"{url}/legal-actions", headers=bearer(tokens[mover])).json
    moves = [a for a in legal["actions"] if a.get("type") != "draw_card"] or legal["actions"]
    assert act(client, match_id, tokens[mover], legal["version"], moves[0]).status_code == 201
    asked = client.post(f"{url}/undo", headers=bearer(tokens[mover]))
    if asked.status_code == 422:  # that move revealed something: it stands, nothing to ask
        assert asked.json["reason"] == "hidden_information_revealed"
        pytest.skip("the move revealed something")
    assert asked.status_code == 201, asked.json
    refused = client.post(f"{url}/undo/accept", headers=bearer(tokens[quitter]))
    assert refused.status_code == 422 and refused.json["reason"] == "seat_conceded"
    other = next(seat for seat in range(3) if seat not in (quitter, mover))
    accepted = client.post(f"{url}/undo/accept", headers=bearer(tokens[other]))
    assert accepted.status_code == 201 and accepted.json["events"][-1]["type"] == "undone", accepted.json


def test_migrate_puts_matches_from_before_under_the_abandonment_watch(client, fake_redis, settings):
    created = client.post("/v1/matches", json={"game": "blokus", "players": players(2)}).json
    keys = Keys(settings.namespace)
    fake_redis.delete(keys.activity)  # as a match created before abandonment was watched
    listings.index_listings(app_of(client).stores)
    assert fake_redis.zscore(keys.activity, created["id"]) is not None


def test_every_process_refuses_a_move_after_the_end_alike(settings, fake_redis):
    """Once the match has ended (here by a concession), a seat's action or concession is refused with the
        rules' ``game_over`` in every process: the one that ended it, and one that still trusts its copy of the
        match's keys (up to 2 s old) with the seed's secret in it. An action chosen before the end is told to read
    again (``version_conflict``), as anywhere."""
    here, elsewhere = (create_app(settings, fake_redis).test_client() for _ in range(2))  # two API processes
    created = here.post("/v1/matches", json={"game": "blokus", "players": players(2)}).json
    match_id, (ann, bob) = created["id"], [s["token"] for s in created["seats"]]
    version = created["version"]
    # the other process reads the match at its start: its copy of the keys, and its state, are of then
    assert elsewhere.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(bob)).status_code == 200
    conceded = here.post(f"/v1/matches/{match_id}/concede", headers=bearer(ann))
    assert conceded.status_code == 201 and here.get(f"/v1/matches/{match_id}").json["status"] == "finished"
    end = conceded.json["version"]
    for process in (elsewhere, here):
        again = process.post(f"/v1/matches/{match_id}/concede", headers=bearer(bob))
        assert (again.status_code, again.json.get("reason")) == (422, "game_over"), again.json
        late = act(process, match_id, bob, version, {"type": "pass"})  # chosen before the end: read again
        assert (late.status_code, late.json.get("current_version")) == (409, end), late.json
        move = act(process, match_id, bob, end, {"type": "pass"})
        assert (move.status_code, move.json.get("reason")) == (422, "game_over"), move.json
    assert here.get(f"/v1/matches/{match_id}").json["version"] == end  # nothing was appended after the end


def test_a_seat_asking_to_abort_a_match_without_a_platform_is_told_who_may(client):
    created = client.post("/v1/matches", json={"game": "blokus", "players": players(2)}).json
    refused = client.post(
        f"/v1/matches/{created['id']}/abort", json={}, headers=bearer(created["seats"][0]["token"])
    )
    assert (refused.status_code, refused.json["error"]) == (403, "platform_only")
    assert "creator_token" in refused.json["message"], refused.json
