"""``/v1/tournaments``: a platform's tournament created, entered, played round by round through real matches
(each ended by a concession over the API), read by anyone, its log audited; refusals with their codes and
reasons; every answer as the contract says (service/http/tournament_routes.py)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from service.domain import tournaments as rules
from service.domain.chain import Recorded
from service.http import tournament_routes as routes
from service.http.app import create_app
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.application.test_tournaments import failing_creation
from tests.helpers import bearer
from tests.http.test_openapi_components_typed import fits

SWISS = {"name": "Winter Swiss", "kind": "swiss", "game": "block-block", "rounds": 2}


@pytest.fixture
def keys(settings, fake_redis) -> tuple[str, str]:
    platforms = Platforms(fake_redis, Keys(settings.namespace))
    return platforms.create("club")[1], platforms.create("elsewhere")[1]


def call(client, method: str, url: str, key: str | None, status: int, **body: Any) -> dict[str, Any]:
    headers = bearer(key) if key else {}
    answer = client.open(url, method=method, json=body or None, headers=headers)
    assert answer.status_code == status, answer.json
    return answer.json


def test_a_swiss_from_creation_to_its_audited_end(client, keys) -> None:
    key, _ = keys
    made = fits("Tournament", call(client, "POST", "/v1/tournaments", key, 201, **SWISS))
    assert made["status"] == "registering" and made["seed"] is None and made["current_round"] is None
    url = f"/v1/tournaments/{made['id']}"
    for i in range(3):
        call(client, "POST", f"{url}/players", key, 201, player=f"u-{i}", name=f"Player {i}")
    for number in (1, 2):
        started = fits("Tournament", call(client, "POST", f"{url}/rounds", key, 201))
        current = started["current_round"]
        assert current["number"] == number and len(current["matches"]) == 1 and len(current["byes"]) == 1
        seats = current["matches"][0]["seats"]
        assert [s["seat"] for s in seats] == [0, 1] and all(s["token"] for s in seats)
        refused = call(client, "POST", f"{url}/rounds", key, 409)
        assert (refused["error"], refused["reason"]) == ("tournament_refused", "round_in_play")
        spectator = fits("Tournament", call(client, "GET", url, None, 200))
        assert "seats" not in spectator["current_round"]["matches"][0]
        call(client, "POST", f"/v1/matches/{current['matches'][0]['match']}/concede", seats[1]["token"], 201)
        read = fits("Tournament", call(client, "GET", url, key, 200))
        assert read["current_round"]["matches"][0]["ranks"] == [1, 2]
    assert read["status"] == "finished" and rules.seed_commitment(read["seed"]) == read["seed_commitment"]
    assert [s["place"] for s in read["standings"]] == [1, 2, 3]
    log = fits("TournamentLog", call(client, "GET", f"{url}/log?limit=1000", None, 200))
    assert log["version"] == len(log["entries"]) == read["version"]
    assert rules.audit([Recorded.from_dict(e) for e in log["entries"]]).finished
    assert len(call(client, "GET", f"{url}/log?after=3&limit=2", None, 200)["entries"]) == 2


def test_the_live_feed_takes_the_accept_header_of_an_event_stream(client, keys) -> None:
    """A browser's reader of the feed (the tournament's page) asks for ``text/event-stream``, the type the
    feed answers in: it was refused ``406`` as if the feed answered JSON only."""
    key, _ = keys
    made = call(client, "POST", "/v1/tournaments", key, 201, **SWISS)
    stream = {"Accept": "text/event-stream"}
    missing = client.get("/v1/tournaments/nope/events/stream", headers=stream)
    assert (missing.status_code, missing.json["error"]) == (404, "tournament_not_found")
    refused = client.get(f"/v1/tournaments/{made['id']}/events/stream?after=x", headers=stream)
    assert (refused.status_code, refused.json["error"]) == (400, "invalid_request")
    json_only = client.get(
        f"/v1/tournaments/{made['id']}/events/stream", headers={"Accept": "application/json"}
    )
    assert (json_only.status_code, json_only.json["error"]) == (406, "not_acceptable")


def test_registration_refusals_and_withdrawal(client, keys) -> None:
    key, other = keys
    made = call(
        client, "POST", "/v1/tournaments", key, 201, **{**SWISS, "kind": "round_robin", "rounds": None}
    )
    url = f"/v1/tournaments/{made['id']}"
    call(client, "POST", f"{url}/players", key, 201, player="u-1")
    again = call(client, "POST", f"{url}/players", key, 409, player="u-1")
    assert again["reason"] == "already_registered" and fits("Error", again)
    assert (
        call(client, "POST", f"{url}/players", key, 409, player="b", bot="random")["reason"]
        == "bots_not_allowed"
    )
    assert call(client, "POST", f"{url}/players", other, 404, player="u-2")["error"] == "tournament_not_found"
    assert call(client, "POST", f"{url}/rounds", key, 409)["reason"] == "too_few_players"
    withdrawn = call(client, "DELETE", f"{url}/players/u-1", key, 200)
    assert withdrawn["players"][0]["withdrawn"] is True
    assert call(client, "DELETE", f"{url}/players/u-1", key, 409)["reason"] == "not_registered"
    assert call(client, "POST", f"{url}/players", None, 401, player="u-3")["error"] == "platform_key_required"
    assert call(client, "GET", "/v1/tournaments/nope", None, 404)["error"] == "tournament_not_found"


def test_bad_settings_are_refused_with_the_field(client, keys) -> None:
    key, _ = keys
    for body in (
        {**SWISS, "rounds": None},
        {**SWISS, "kind": "arena"},
        {**SWISS, "players_per_match": 6},
        {**SWISS, "game": "blokus", "players_per_match": 2, "options": {"variant": "three_player"}},
        {**SWISS, "max_players": 5000},
        {**SWISS, "extra": 1},
        {**SWISS, "kind": "single_elimination", "rounds": None, "game": "blokus", "players_per_match": 4},
    ):
        answer = client.post("/v1/tournaments", json=body, headers=bearer(key))
        assert answer.status_code in (400, 422), (body, answer.json)
        assert answer.json["error"] == "invalid_request" and fits("Error", answer.json)


def test_a_round_start_retried_with_its_idempotency_key_gets_the_same_round(client, keys) -> None:
    """A platform whose answer to ``POST .../rounds`` was lost sends it again: with the same key it gets the
    first round's matches and tokens back, and no second set of matches is made."""
    key, _ = keys
    made = call(client, "POST", "/v1/tournaments", key, 201, **SWISS)
    url = f"/v1/tournaments/{made['id']}"
    for i in range(2):
        call(client, "POST", f"{url}/players", key, 201, player=f"u-{i}")
    once = {**bearer(key), "Idempotency-Key": "round-1-of-winter-swiss"}
    first = client.post(f"{url}/rounds", headers=once)
    again = client.post(f"{url}/rounds", headers=once)
    assert first.status_code == again.status_code == 201 and first.json == again.json
    assert call(client, "GET", url, key, 200)["version"] == first.json["version"]
    other = client.post(f"{url}/rounds", headers={**once, "Idempotency-Key": "round-1-again"})
    assert (other.status_code, other.json["reason"]) == (409, "round_in_play")


def test_a_round_start_that_failed_midway_retried_with_its_key_makes_each_match_once(
    client, keys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store fails after the round's first match was made: the same request again (its key unanswered,
    since it failed) makes only the second match, and the round's matches are the two stored."""
    key, _ = keys
    made = call(client, "POST", "/v1/tournaments", key, 201, **SWISS)
    url = f"/v1/tournaments/{made['id']}"
    for i in range(4):
        call(client, "POST", f"{url}/players", key, 201, player=f"u-{i}")
    stored = failing_creation(monkeypatch, at=2)
    once = {**bearer(key), "Idempotency-Key": "round-1-of-winter-swiss"}
    failed = client.post(f"{url}/rounds", headers=once)
    assert failed.status_code == 503 and len(stored) == 1
    started = client.post(f"{url}/rounds", headers=once)
    assert started.status_code == 201, started.json
    matches = [m["match"] for m in fits("Tournament", started.json)["current_round"]["matches"]]
    assert matches[0] == stored[0] and sorted(matches) == sorted(stored)
    assert client.post(f"{url}/rounds", headers=once).json == started.json


def test_a_single_elimination_shows_its_bracket(client, keys) -> None:
    key, _ = keys
    body = {**SWISS, "kind": "single_elimination", "rounds": None}
    made = fits("Tournament", call(client, "POST", "/v1/tournaments", key, 201, **body))
    assert made["bracket"] is None
    pods = call(
        client, "POST", "/v1/tournaments", key, 400, **{**body, "game": "blokus", "players_per_match": 4}
    )
    assert pods["error"] == "invalid_request" and list(pods["fields"]) == ["players_per_match"]
    url = f"/v1/tournaments/{made['id']}"
    for i in range(3):
        call(client, "POST", f"{url}/players", key, 201, player=f"u-{i}")
    started = fits("Tournament", call(client, "POST", f"{url}/rounds", key, 201))
    bracket = started["bracket"]
    top = bracket["seeds"][0]
    assert [m["meeting"] for m in bracket["meetings"]] == ["W1-1", "W1-2", "W2-1"]
    bye, played, final = bracket["meetings"]
    assert bye["players"] == [top, None] and bye["winner"] == top and bye["match"] is None
    match = started["current_round"]["matches"][0]
    assert played["match"] == match["match"] and played["winner"] is None and final["players"] == [None, None]
    assert call(client, "POST", f"{url}/players", key, 409, player="late")["reason"] == "registration_closed"
    call(client, "POST", f"/v1/matches/{match['match']}/concede", match["seats"][1]["token"], 201)
    started = fits("Tournament", call(client, "POST", f"{url}/rounds", key, 201))
    final = started["current_round"]["matches"][0]
    assert started["bracket"]["meetings"][2]["players"] == [top, match["players"][0]]
    call(client, "POST", f"/v1/matches/{final['match']}/concede", final["seats"][0]["token"], 201)
    read = fits("Tournament", call(client, "GET", url, key, 200))
    assert read["status"] == "finished" and read["bracket"]["champion"] == match["players"][0]
    assert [s["player"] for s in read["standings"]] == [match["players"][0], top, match["players"][1]]
    log = fits("TournamentLog", call(client, "GET", f"{url}/log?limit=1000", None, 200))
    assert rules.audit([Recorded.from_dict(e) for e in log["entries"]]).finished


def test_an_arena_opens_its_window_with_its_first_pairings(client, keys) -> None:
    key, _ = keys
    body = {**SWISS, "kind": "arena", "rounds": None, "duration_minutes": 30}
    assert call(client, "POST", "/v1/tournaments", key, 400, **{**body, "duration_minutes": None})[
        "fields"
    ] == {"duration_minutes": ["an arena, and only an arena, has a window: give its minutes"]}
    made = fits("Tournament", call(client, "POST", "/v1/tournaments", key, 201, **body))
    assert (made["duration_minutes"], made["closes"]) == (30, None)
    url = f"/v1/tournaments/{made['id']}"
    for i in range(3):
        call(client, "POST", f"{url}/players", key, 201, player=f"u-{i}")
    started = fits("Tournament", call(client, "POST", f"{url}/rounds", key, 201))
    assert started["closes"] is not None and len(started["current_round"]["matches"]) == 1
    assert started["rounds"] is None and started["status"] == "playing"
    assert call(client, "POST", f"{url}/rounds", key, 409)["reason"] == "too_few_players"  # one waits alone
    call(client, "POST", f"{url}/players", key, 201, player="late")
    again = fits("Tournament", call(client, "POST", f"{url}/rounds", key, 201))
    assert again["current_round"]["number"] == 2 and len(again["current_round"]["matches"]) == 2
    assert all(m["seats"] for m in again["current_round"]["matches"])  # the first wave's game still runs
    log = fits("TournamentLog", call(client, "GET", f"{url}/log?limit=1000", None, 200))
    assert rules.audit([Recorded.from_dict(e) for e in log["entries"]]).rounds == 2


def test_a_knockout_says_what_a_draw_does_and_only_a_knockout_takes_it(client, keys) -> None:
    key, _ = keys
    knockout = {**SWISS, "kind": "single_elimination", "rounds": None}
    assert fits("Tournament", call(client, "POST", "/v1/tournaments", key, 201, **knockout))[
        "knockout_draws"
    ] == ("higher_seed")
    replayed = call(client, "POST", "/v1/tournaments", key, 201, **knockout, knockout_draws="replay")
    assert replayed["knockout_draws"] == "replay"
    log = call(client, "GET", f"/v1/tournaments/{replayed['id']}/log", None, 200)
    assert log["entries"][0]["data"]["knockout_draws"] == "replay"
    swiss = call(client, "POST", "/v1/tournaments", key, 201, **SWISS)
    assert (
        swiss["knockout_draws"] is None
        and "knockout_draws"
        not in call(client, "GET", f"/v1/tournaments/{swiss['id']}/log", None, 200)["entries"][0]["data"]
    )
    for wrong in ({**SWISS, "knockout_draws": "replay"}, {**knockout, "knockout_draws": "coin"}):
        refused = call(client, "POST", "/v1/tournaments", key, 400, **wrong)
        assert refused["error"] == "invalid_request" and list(refused["fields"]) == ["knockout_draws"]


def test_a_schedule_is_shown_and_bad_schedules_are_refused_with_the_field(client, keys) -> None:
    key, _ = keys
    soon = datetime.now(UTC) + timedelta(hours=1)
    at = soon.astimezone(timezone(timedelta(hours=9))).isoformat()  # any time zone: kept in UTC
    made = fits(
        "Tournament",
        call(client, "POST", "/v1/tournaments", key, 201, **SWISS, starts_at=at, round_interval=90),
    )
    assert made["starts_at"] == made["next_round_at"] == soon.strftime("%Y-%m-%dT%H:%M:%S")
    assert made["round_interval"] == 90
    log = fits("TournamentLog", call(client, "GET", f"/v1/tournaments/{made['id']}/log", None, 200))
    assert log["entries"][0]["data"]["schedule"] == {"starts_at": made["starts_at"], "round_interval": 90}
    plain = fits("Tournament", call(client, "POST", "/v1/tournaments", key, 201, **SWISS))
    assert plain["starts_at"] is plain["next_round_at"] is plain["round_interval"] is None
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    for extra, field in (
        ({"starts_at": past}, "starts_at"),
        ({"starts_at": "2030-01-01T10:00:00"}, "starts_at"),  # no time zone: whose ten o'clock?
        ({"round_interval": -5}, "round_interval"),
        ({"kind": "arena", "rounds": None, "duration_minutes": 5, "round_interval": 60}, "round_interval"),
    ):
        answer = client.post("/v1/tournaments", json={**SWISS, **extra}, headers=bearer(key))
        assert answer.status_code == 400, (extra, answer.json)
        assert answer.json["error"] == "invalid_request" and field in answer.json["fields"], answer.json
        fits("Error", answer.json)


def test_the_live_feed_counts_an_ipv6_client_by_its_64(settings, fake_redis, keys) -> None:
    """The tournament's feed counts in the address's cap on held streams, with the matches' feeds: an IPv6
    client by its /64 (counted by the address, one client held 2^64 times the cap)."""
    client = create_app(dataclasses.replace(settings, sse_per_address=1), fake_redis).test_client()
    made = call(client, "POST", "/v1/tournaments", keys[0], 201, **SWISS)
    match = client.post("/v1/matches", json={"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]})

    def opened(url: str, address: str):
        return client.get(f"{url}/events/stream", environ_base={"REMOTE_ADDR": address}, buffered=False)

    held = [opened(f"/v1/tournaments/{made['id']}", "2001:db8:1:2::1")]
    for url in (f"/v1/tournaments/{made['id']}", f"/v1/matches/{match.json['id']}"):
        refused = opened(url, "2001:db8:1:2::2")  # the same /64, whichever feed
        assert (refused.status_code, refused.json["error"]) == (429, "too_many_streams")
    held.append(opened(f"/v1/matches/{match.json['id']}", "2001:db8:1:3::1"))  # another /64
    assert [answer.status_code for answer in held] == [200, 200]


def test_anyone_s_reads_of_a_version_make_its_answer_and_standings_once(client, keys, monkeypatch) -> None:
    """A thousand players' tournament took a fifth of a second to show (its standings, then its answer of
    some 250 KB), made anew for every read: one anonymous address, within its read limit, kept tens of
    processes busy. Anyone's answer is made once per version, and the standings once for everyone."""
    made_standings, made_answers = [], []
    standings, answer = rules.shown_standings, routes.shown
    monkeypatch.setattr(rules, "shown_standings", lambda state: made_standings.append(1) or standings(state))
    monkeypatch.setattr(
        routes, "shown", lambda state, owner: made_answers.append(owner) or answer(state, owner)
    )
    key, other = keys
    made = call(client, "POST", "/v1/tournaments", key, 201, **SWISS)
    url = f"/v1/tournaments/{made['id']}"
    for i in range(3):
        call(client, "POST", f"{url}/players", key, 201, player=f"u-{i}", name=f"Player {i}")
    reads = [client.get(url) for _ in range(3)] + [client.get(url, headers=bearer(other))]
    assert {r.status_code for r in reads} == {200} and all(r.data == reads[0].data for r in reads)
    assert len(fits("Tournament", reads[0].json)["players"]) == 3 and reads[0].json["version"] == 4
    assert made_answers.count(False) == 1  # anyone's, once
    own = call(client, "GET", url, key, 200)
    assert own["standings"] == reads[0].json["standings"]
    assert len(made_standings) == 4  # once per version: each the platform's answer showed, then shared
    call(client, "POST", f"{url}/players", key, 201, player="u-3", name="Player 3")
    assert len(fits("Tournament", call(client, "GET", url, None, 200))["players"]) == 4  # a new version
    started = call(client, "POST", f"{url}/rounds", key, 201)
    read = fits("Tournament", call(client, "GET", url, None, 200))
    assert read["current_round"]["matches"][0]["match"] == started["current_round"]["matches"][0]["match"]
    assert "seats" not in read["current_round"]["matches"][0]
    assert "seats" in started["current_round"]["matches"][0]


def test_a_round_s_match_names_its_tournament_and_round_to_anyone(client, keys) -> None:
    """``tournament`` in the match's answer and in its platform's listing, read from its ``match_created``;
    a match no tournament made has none."""
    key, _ = keys
    made = call(client, "POST", "/v1/tournaments", key, 201, **SWISS)
    url = f"/v1/tournaments/{made['id']}"
    for i in range(3):
        call(client, "POST", f"{url}/players", key, 201, player=f"u-{i}")
    for number in (1, 2):
        game = call(client, "POST", f"{url}/rounds", key, 201)["current_round"]["matches"][0]
        read = fits("Match", call(client, "GET", f"/v1/matches/{game['match']}", None, 200))
        assert read["tournament"] == {"id": made["id"], "round": number}
        created = call(client, "GET", f"/v1/matches/{game['match']}/events", None, 200)["events"][0]
        assert created["data"]["tournament"] == {"id": made["id"], "round": number}
        call(client, "POST", f"/v1/matches/{game['match']}/concede", game["seats"][1]["token"], 201)
    listed = fits("Lobby", call(client, "GET", "/v1/matches?limit=10", key, 200))["matches"]
    assert sorted(m["tournament"]["round"] for m in listed) == [1, 2]
    alone = call(
        client,
        "POST",
        "/v1/matches",
        key,
        201,
        game="block-block",
        players=[{"name": "ann"}, {"name": "bob"}],
    )
    assert "tournament" not in fits("Match", call(client, "GET", f"/v1/matches/{alone['id']}", None, 200))
