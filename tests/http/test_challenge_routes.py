"""``/v1/challenges`` and ``/v1/matches/{id}/rematch``: a match that starts when every player named in it has
accepted; a challenge's seats and tokens to its platform, a rematch's to each seat; seats rotated; refusals
with their codes; every answer as the contract says (service/http/challenge_routes.py)."""

from __future__ import annotations

import pytest

from service.application import challenges as challenges_module
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.helpers import bearer
from tests.http.test_openapi_components_typed import fits

DUO = {"game": "blokus", "options": {"variant": "duo"}}


@pytest.fixture
def keys(settings, fake_redis):
    platforms = Platforms(fake_redis, Keys(settings.namespace))
    return platforms.create("arena")[1], platforms.create("elsewhere")[1]


def challenge(client, key, status=201, **body):
    answer = client.post("/v1/challenges", json={**DUO, **body}, headers=bearer(key))
    assert answer.status_code == status, answer.json
    return fits("Challenge" if status == 201 else "Error", answer.json)


def answer(client, key, challenge_id, player, verb="accept", status=200):
    given = client.post(f"/v1/challenges/{challenge_id}/{verb}", json={"player": player}, headers=bearer(key))
    assert given.status_code == status, given.json
    return fits("Challenge" if status == 200 else "Error", given.json)


def test_an_accepted_challenge_starts_a_rated_match_whose_tokens_its_platform_reads(client, keys):
    key, _ = keys
    made = challenge(client, key, challenger="u-1", challenged=["u-2"], names={"u-1": "ann"})
    assert made["status"] == "open" and made["match"] is None and made["seats"] == []
    started = answer(client, key, made["id"], "u-2")
    assert started["status"] == "started" and started["accepted"] == ["u-2"]
    assert fits("Challenge", client.get(f"/v1/challenges/{made['id']}", headers=bearer(key)).json) == started
    match = client.get(f"/v1/matches/{started['match']}", headers=bearer(key)).json
    seated = {p["player"]: p["name"] for p in match["players"]}
    assert seated == {"u-1": "ann", "u-2": "u-2"}
    for seat in started["seats"]:
        legal = client.get(f"/v1/matches/{started['match']}/legal-actions", headers=bearer(seat["token"]))
        assert legal.status_code == 200 and legal.json["seat"] == seat["seat"]
    again = answer(client, key, made["id"], "u-2", status=409)
    assert again["error"] == "not_open" and again["current_status"] == "started"


def test_a_pod_starts_only_when_every_challenged_player_accepted(client, keys):
    key, _ = keys
    made = challenge(
        client,
        key,
        challenger="u-1",
        challenged=["u-2", "u-3"],
        game="blokus",
        options={"variant": "three_player"},
    )
    assert answer(client, key, made["id"], "u-3")["status"] == "open"
    assert answer(client, key, made["id"], "u-3")["accepted"] == ["u-3"]  # again: nothing changes
    started = answer(client, key, made["id"], "u-2")
    assert started["status"] == "started" and len(started["seats"]) == 3


def test_a_decline_or_a_withdrawal_ends_it_without_a_match(client, keys):
    key, _ = keys
    declined = challenge(client, key, challenger="u-1", challenged=["u-2"])
    gone = answer(client, key, declined["id"], "u-2", "decline")
    assert gone["status"] == "declined" and gone["declined_by"] == "u-2" and gone["match"] is None
    late = answer(client, key, declined["id"], "u-2", status=409)
    assert late["current_status"] == "declined"
    withdrawn = challenge(client, key, challenger="u-1", challenged=["u-2"])
    assert answer(client, key, withdrawn["id"], "u-1", "decline")["status"] == "cancelled"


def test_only_its_players_answer_and_only_its_platform_sees_it(client, keys):
    key, other = keys
    made = challenge(client, key, challenger="u-1", challenged=["u-2"])
    assert answer(client, key, made["id"], "u-9", status=403)["error"] == "not_in_challenge"
    assert answer(client, other, made["id"], "u-2", status=404)["error"] == "challenge_not_found"
    assert client.get(f"/v1/challenges/{made['id']}", headers=bearer(other)).status_code == 404
    assert client.get(f"/v1/challenges/{made['id']}").status_code == 401


def test_a_challenge_unanswered_for_a_day_expires(app, client, keys):
    key, _ = keys
    made = challenge(client, key, challenger="u-1", challenged=["u-2"])
    store = app.extensions["matchlog-challenges"].store
    record = store.get(made["id"])
    store.put({**record, "expires_ms": record["created_ms"]})
    assert client.get(f"/v1/challenges/{made['id']}", headers=bearer(key)).json["status"] == "expired"
    assert answer(client, key, made["id"], "u-2", status=409)["current_status"] == "expired"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"challenger": "u-1", "challenged": ["u-1"]}, "challenged"),
        ({"challenger": "u-1", "challenged": ["u-2", "u-2"]}, "challenged"),
        ({"challenger": "u-1", "challenged": ["u-2"], "options": {"variant": "four_player"}}, "players"),
        ({"challenger": "u-1", "challenged": ["u-2"], "names": {"u-3": "cat"}}, "names"),
        ({"challenger": "bot:greedy", "challenged": ["u-2"]}, "challenged"),
        ({"challenger": "u-1", "challenged": []}, "challenged"),
        ({"challenger": "u-1", "challenged": ["u-2"], "on_timeout": "pass"}, "on_timeout"),
        ({"challenger": "u-1", "challenged": ["u\u202e-2"]}, "names.u\u202e-2"),
    ],
)
def test_a_challenge_no_match_could_come_of_is_refused_naming_the_field(client, keys, body, field):
    refused = challenge(client, keys[0], status=400, **body)
    assert refused["error"] == "invalid_request" and field in refused["fields"], refused


def test_a_challenge_takes_a_platform_key(client):
    refused = client.post("/v1/challenges", json={**DUO, "challenger": "u-1", "challenged": ["u-2"]})
    assert refused.status_code == 401 and refused.json["error"] == "platform_key_required"


def test_a_player_s_challenges_a_day_are_bounded(client, keys, monkeypatch):
    monkeypatch.setattr(challenges_module, "CHALLENGES_PER_PLAYER", 2)
    key, _ = keys
    for _ in range(2):
        challenge(client, key, challenger="u-1", challenged=["u-2"])
    refused = challenge(client, key, status=429, challenger="u-1", challenged=["u-2"])
    assert refused["error"] == "too_many_challenges" and refused["limit"] == 2
    assert challenge(client, key, challenger="u-2", challenged=["u-1"])["status"] == "open"


def test_a_player_s_challenges_are_listed_newest_first_a_page_at_a_time(client, keys):
    key, other = keys
    made = [challenge(client, key, challenger="u-1", challenged=[f"u-{n}"])["id"] for n in (2, 3, 4)]
    made.append(challenge(client, key, challenger="u-5", challenged=["u-1"])["id"])
    listed, cursor = [], None
    while True:
        query = {"player": "u-1", "limit": 3, **({"cursor": cursor} if cursor else {})}
        page = fits("Challenges", client.get("/v1/challenges", headers=bearer(key), query_string=query).json)
        listed += [row["id"] for row in page["challenges"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert listed == made[::-1]
    assert client.get("/v1/challenges?player=u-1", headers=bearer(other)).json["challenges"] == []


def _finished(client, key, players):
    """A Blokus Duo match of the platform for ``players`` (seat specs), ended by seat 0 conceding."""
    created = client.post("/v1/matches", json={**DUO, "players": players}, headers=bearer(key)).json
    tokens = [seat.get("token") for seat in created["seats"]]
    token = next(t for t in tokens if t)
    assert client.post(f"/v1/matches/{created['id']}/concede", headers=bearer(token)).status_code == 201
    return created["id"], tokens


def test_a_rematch_starts_when_every_seat_asked_with_the_seats_moved_one_on(client, keys):
    key, _ = keys
    match_id, tokens = _finished(
        client, key, [{"name": "ann", "player": "u-1"}, {"name": "bob", "player": "u-2"}]
    )
    asked = client.post(f"/v1/matches/{match_id}/rematch", headers=bearer(tokens[0]))
    assert asked.status_code == 200
    assert fits("RematchOffer", asked.json) == {
        "match": match_id,
        "seats": 2,
        "accepted": [0],
        "status": "open",
        "rematch": None,
        "seat": None,
        "token": None,
    }
    started = fits(
        "RematchOffer", client.post(f"/v1/matches/{match_id}/rematch", headers=bearer(tokens[1])).json
    )
    assert started["status"] == "started" and started["seat"] == 0 and started["token"]
    first = fits(
        "RematchOffer", client.get(f"/v1/matches/{match_id}/rematch", headers=bearer(tokens[0])).json
    )
    assert (
        first["rematch"] == started["rematch"] and first["seat"] == 1 and first["token"] != started["token"]
    )
    again = client.get(f"/v1/matches/{started['rematch']}", headers=bearer(key)).json
    assert [(p["name"], p["player"]) for p in again["players"]] == [("bob", "u-2"), ("ann", "u-1")]
    assert again["options"] == client.get(f"/v1/matches/{match_id}").json["options"]
    for seat, token in ((0, started["token"]), (1, first["token"])):
        legal = client.get(f"/v1/matches/{started['rematch']}/legal-actions", headers=bearer(token))
        assert legal.status_code == 200 and legal.json["seat"] == seat


def test_a_bot_s_seat_agrees_to_a_rematch(client, keys):
    key, _ = keys
    match_id, tokens = _finished(client, key, [{"name": "ann"}, {"bot": "greedy"}])
    started = client.post(f"/v1/matches/{match_id}/rematch", headers=bearer(tokens[0])).json
    assert started["status"] == "started" and started["seat"] == 1
    again = client.get(f"/v1/matches/{started['rematch']}").json
    assert again["players"][0]["bot"] == "greedy" and again["players"][1]["name"] == "ann"


def test_a_rematch_waits_for_the_end_and_takes_a_seat_s_token(client, keys):
    key, _ = keys
    created = client.post(
        "/v1/matches", json={**DUO, "players": [{"name": "ann"}, {"name": "bob"}]}, headers=bearer(key)
    ).json
    early = client.post(f"/v1/matches/{created['id']}/rematch", headers=bearer(created["seats"][0]["token"]))
    assert early.status_code == 409 and early.json["error"] == "match_not_over"
    assert client.post(f"/v1/matches/{created['id']}/rematch").status_code == 401


def test_an_anonymous_match_offers_a_rematch_too(client):
    created = client.post("/v1/matches", json={**DUO, "players": [{"name": "ann"}, {"name": "bob"}]}).json
    tokens = [seat["token"] for seat in created["seats"]]
    assert client.post(f"/v1/matches/{created['id']}/concede", headers=bearer(tokens[1])).status_code == 201
    for token in tokens:
        started = client.post(f"/v1/matches/{created['id']}/rematch", headers=bearer(token)).json
    assert started["status"] == "started" and started["seat"] == 0
    again = client.get(f"/v1/matches/{started['rematch']}").json
    assert [p["name"] for p in again["players"]] == ["bob", "ann"]


def test_a_retried_answer_with_its_idempotency_key_gets_the_first_answer_back(client, keys):
    key, _ = keys
    made = challenge(client, key, challenger="u-1", challenged=["u-2"])
    retry = {**bearer(key), "Idempotency-Key": "accept-u-2-first-try"}
    first = client.post(f"/v1/challenges/{made['id']}/accept", json={"player": "u-2"}, headers=retry)
    again = client.post(f"/v1/challenges/{made['id']}/accept", json={"player": "u-2"}, headers=retry)
    assert first.status_code == again.status_code == 200 and again.json == first.json
    assert again.json["status"] == "started"


def test_an_answer_that_cannot_take_the_challenge_s_lock_changes_nothing(
    client, keys, fake_redis, monkeypatch
):
    # the lock's wait ran out (its holder slow past LOCK_S) and the answer went on unlocked: two acceptances
    # racing so could each start a match, the second overwriting the first's in the record
    from service.store import challenges as challenge_store
    from service.store.keys import Keys as StoreKeys

    key, _ = keys
    made = challenge(client, key, challenger="u-1", challenged=["u-2"])
    store_keys = StoreKeys(client.application.extensions["matchlog"].settings.namespace)
    holder = fake_redis.lock(store_keys.lock(store_keys.challenge(made["id"])), timeout=60)
    assert holder.acquire(blocking=False)
    monkeypatch.setattr(challenge_store, "LOCK_S", 0.3)
    refused = client.post(f"/v1/challenges/{made['id']}/accept", json={"player": "u-2"}, headers=bearer(key))
    assert refused.status_code == 503, refused.json
    holder.release()
    after = client.get(f"/v1/challenges/{made['id']}", headers=bearer(key)).json
    assert after["status"] == "open" and after["accepted"] == [] and after["match"] is None
    assert answer(client, key, made["id"], "u-2")["status"] == "started"
