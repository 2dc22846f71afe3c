"""Input that once broke the server gets a 4xx in the error shape, never a 500 (issue: Hardening)."""

from __future__ import annotations

import pytest

from tests.helpers import PLAYERS, act, bearer, create


def assert_error(response, status, error):
    assert response.status_code == status, (response.status_code, response.data[:300])
    assert response.is_json and response.json["error"] == error and response.json["message"]


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_json_nested_a_thousand_levels_deep_is_refused_when_creating(client):
    body = '{"game": "blokus", "players": ' + nested(1000) + "}"
    response = client.post("/v1/matches", data=body, content_type="application/json")
    assert_error(response, 400, "invalid_request")
    assert "nested deeper" in response.json["message"]


def test_json_nested_a_thousand_levels_deep_is_refused_as_an_action(client):
    match_id, tokens = create(client)
    body = '{"expected_version": 1, "action": ' + '{"a":' * 1000 + "1" + "}" * 1000 + "}"
    response = client.post(
        f"/v1/matches/{match_id}/actions",
        data=body,
        content_type="application/json",
        headers=bearer(tokens[0]),
    )
    assert_error(response, 400, "invalid_request")


def test_brackets_inside_strings_do_not_count_as_nesting(client):
    response = client.post(
        "/v1/matches", json={"game": "blokus", "players": [{"name": "[" * 60}] + PLAYERS[1:]}
    )
    assert response.status_code == 201


@pytest.mark.parametrize("where", ["seed", "name"])
def test_a_lone_surrogate_is_refused_as_invalid_request(client, where):
    name = "\\ud800" if where == "name" else "ann"
    seed = ', "seed": "\\ud800"' if where == "seed" else ""
    body = (
        '{"game": "blokus", "players": [{"name": "' + name + '"}, {"name": "bob"}, {"name": "cat"}, '
        '{"name": "dan"}]' + seed + "}"
    )
    response = client.post("/v1/matches", data=body, content_type="application/json")
    assert_error(response, 400, "invalid_request")
    assert "surrogate" in response.json["message"]


def test_an_sgf_record_nested_thirty_thousand_levels_is_an_invalid_record(client):
    response = client.post("/v1/matches", data="(" * 30000, content_type="application/x-blokus-sgf")
    assert response.status_code == 400 and response.json["error"] in ("invalid_record", "invalid_request")


@pytest.mark.parametrize("match_id", ["abc:idempotency:0", "0" * 31 + "G", "x" * 40])
def test_a_match_id_that_is_not_one_is_not_found(client, match_id):
    for path in (
        f"/v1/matches/{match_id}",
        f"/v1/matches/{match_id}/state",
        f"/v1/matches/{match_id}/events",
    ):
        assert_error(client.get(path), 404, "match_not_found")


def test_a_colon_in_a_match_id_never_reaches_redis(client):
    match_id, _tokens = create(client)
    response = client.get(f"/v1/matches/{match_id}:idempotency:0:key/state")
    assert_error(response, 404, "match_not_found")


def test_a_url_too_long_is_414_in_the_error_shape(client):
    assert_error(client.get("/v1/games?x=" + "a" * 9000), 414, "uri_too_long")


def test_headers_too_large_are_431_in_the_error_shape(client):
    headers = {f"X-Padding-{i}": "p" * 1000 for i in range(20)}
    assert_error(client.get("/v1/games", headers=headers), 431, "request_header_fields_too_large")


def test_a_state_in_a_type_the_server_cannot_draw_is_406(client):
    match_id, _ = create(client)
    assert_error(
        client.get(f"/v1/matches/{match_id}/state", headers={"Accept": "image/png"}), 406, "not_acceptable"
    )
    assert (
        client.get(f"/v1/matches/{match_id}/state", headers={"Accept": "image/*"}).mimetype == "image/svg+xml"
    )


def test_a_form_encoded_action_is_415(client):
    match_id, tokens = create(client)
    response = client.post(
        f"/v1/matches/{match_id}/actions", data={"expected_version": "1"}, headers=bearer(tokens[0])
    )
    assert_error(response, 415, "unsupported_media_type")


def test_invalid_json_is_still_an_invalid_request(client):
    response = client.post("/v1/matches", data="{not json", content_type="application/json")
    assert_error(response, 400, "invalid_request")
    match_id, tokens = create(client)
    response = client.post(
        f"/v1/matches/{match_id}/actions",
        data="[1,",
        content_type="application/json",
        headers=bearer(tokens[0]),
    )
    assert_error(response, 400, "invalid_request")
    assert act(client, match_id, tokens[0], 1, {"type": "pass"}).status_code == 422


@pytest.mark.parametrize(
    "name",
    ["   ", "ann\u0000", "ann\nbob", "\u202eann", "a" * 65, "\u200b", "\u3164", "ann\u2028bob", "\u200fann"],
)
def test_a_name_others_are_shown_is_text_they_can_read(client, name):
    created = client.post("/v1/matches", json={"game": "blokus", "players": [{"name": name}, {"open": True}]})
    assert_error(created, 400, "invalid_request")
    assert "players.0.name" in created.json["fields"]
    lobby = client.post(
        "/v1/matches", json={"game": "blokus", "players": [{"name": "ann"}, {"open": True}]}
    ).json
    joined = client.post(f"/v1/matches/{lobby['id']}/seats/1/join", json={"name": name})
    assert_error(joined, 400, "invalid_request")
    assert client.get(f"/v1/matches/{lobby['id']}").json["status"] == "open"


def test_names_in_any_script_and_with_emoji_are_welcome(client):
    names = ["Zoë", "李小龙", "שָׁלוֹם", "👩‍👩‍👧 fam"]
    created = client.post("/v1/matches", json={"game": "blokus", "players": [{"name": n} for n in names]})
    assert created.status_code == 201 and [s["name"] for s in created.json["seats"]] == names


def test_a_level_belongs_to_a_bot(client):
    refused = client.post(
        "/v1/matches", json={"game": "blokus", "players": [{"name": "ann", "level": 2}, {"name": "b"}]}
    )
    assert_error(refused, 400, "invalid_request")
    assert "players.0.level" in refused.json["fields"]
