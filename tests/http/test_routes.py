"""The HTTP contract, on fakeredis: every status code and error code a client can meet."""

from __future__ import annotations

from tests.helpers import PLAYERS, act, bearer, create, run_jobs

CORNERS = [(0, 0), (19, 0), (19, 19), (0, 19)]


def place(cells, piece=None):
    action = {"type": "place", "cells": [list(c) for c in cells]}
    if piece:
        action["piece"] = piece
    return action


def opened(client):
    """A match where every colour has placed its monomino in its corner (version 5)."""
    match_id, tokens = create(client)
    for seat, corner in enumerate(CORNERS):
        assert act(client, match_id, tokens[seat], seat + 1, place([corner])).status_code == 201
    return match_id, tokens


def assert_error(response, status, error):
    assert response.status_code == status, response.json
    assert response.is_json
    assert response.json["error"] == error
    assert isinstance(response.json["message"], str) and response.json["message"]


# -- the catalogue and creation ------------------------------------------------------------------


def test_catalogue_lists_blokus_with_its_options_schema(client):
    games = client.get("/v1/games").json
    blokus = next(g for g in games if g["id"] == "blokus")
    assert blokus["player_counts"] == [1, 2, 3, 4]
    assert blokus["options_schema"]["properties"]["scoring"]["enum"] == ["simple", "advanced"]


def test_catalogue_says_who_acts_at_once_and_how_results_relate(client):
    games = {g["id"]: g for g in client.get("/v1/games").json}
    declared = {gid: (g["dynamics"], g["utility"], g["utility_by_option"]) for gid, g in games.items()}
    assert declared == {
        "blokus": ("sequential", "competitive", {}),
        "block-block": ("sequential", "competitive", {}),
        "chock-a-block": ("sequential", "competitive", {"mode": {"COOP": "cooperative"}}),
        "blackout-hong-kong": ("simultaneous", "competitive", {"mode": {"CAMPAIGN": "mixed"}}),
    }


def test_create_returns_one_token_per_seat_and_version_1(client):
    response = client.post("/v1/matches", json={"game": "blokus", "players": PLAYERS})
    assert response.status_code == 201
    body = response.json
    assert body["version"] == 1 and body["game"] == "blokus"
    assert [s["name"] for s in body["seats"]] == ["ann", "bob", "cat", "dan"]
    assert len({s["token"] for s in body["seats"]}) == 4


def test_tokens_are_stored_hashed(client, fake_redis):
    body = client.post("/v1/matches", json={"game": "blokus", "players": PLAYERS}).json
    stored = b"".join(
        k + b"".join(v for v in fake_redis.hgetall(k).values()) for k in fake_redis.keys("*meta")
    )
    assert not any(seat["token"].encode() in stored for seat in body["seats"])


def test_match_summary_says_who_acts(client):
    match_id, _ = create(client)
    body = client.get(f"/v1/matches/{match_id}").json
    assert body["status"] == "active" and body["to_act"] == [0] and body["version"] == 1
    assert body["options"] == {
        "variant": "four_player",
        "scoring": "simple",
        "start_corners": "fixed",
        "allow_voluntary_pass": False,
        "puzzle_corner_contact": "required",
    }
    assert "result" not in body


def test_a_match_says_when_it_was_created_updated_and_ended(client, monkeypatch):
    """``created_at``, ``updated_at`` (its latest entry) and ``ended_at`` (null until it ends) on the match, its
    listing row and the abort's answer: the times its entries record."""
    from service.application import entry_time

    times = iter(f"2026-01-01T00:00:0{i}.000Z" for i in range(10))
    monkeypatch.setattr(entry_time, "now", lambda: next(times))
    created = client.post("/v1/matches", json={"game": "blokus", "players": PLAYERS}).json
    match_id, token = created["id"], created["seats"][0]["token"]
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(token)).json["actions"]
    assert act(client, match_id, token, 1, legal[0]).status_code == 201
    body = client.get(f"/v1/matches/{match_id}").json
    assert (body["created_at"], body["updated_at"], body["ended_at"]) == (
        "2026-01-01T00:00:00.000Z",
        "2026-01-01T00:00:01.000Z",
        None,
    )
    aborted = client.post(
        f"/v1/matches/{match_id}/abort", json={"reason": "enough"}, headers=bearer(created["creator_token"])
    ).json
    listed = client.get("/v1/matches?status=aborted").json["matches"]
    assert [row["id"] for row in listed] == [match_id]
    for shown in (aborted, client.get(f"/v1/matches/{match_id}").json, *listed):
        assert shown["created_at"] == "2026-01-01T00:00:00.000Z"
        assert shown["updated_at"] == shown["ended_at"] == aborted["ended_at"] > body["updated_at"]


def test_creation_errors_name_the_field(client):
    cases = [
        ({"game": "chess", "players": PLAYERS}, "game"),
        ({"game": "blokus", "players": PLAYERS[:3], "options": {"variant": "four_player"}}, "players"),
        ({"game": "blokus", "players": PLAYERS * 2}, "players"),
        ({"game": "blokus", "players": PLAYERS, "options": {"colour_blind": True}}, "options.colour_blind"),
        ({"game": "blokus", "players": PLAYERS, "options": {"scoring": "golf"}}, "options.scoring"),
        ({"game": "blokus", "players": PLAYERS, "options": {"variant": "hexagonal"}}, "options.variant"),
        ({"game": "blokus"}, "players"),
        ({"game": "blokus", "players": [{"name": ""}] * 4}, "players.0.name"),
        ({"game": "blokus", "players": PLAYERS, "surprise": 1}, "surprise"),
        (
            {"game": "chock-a-block", "players": PLAYERS[:2], "options": {"market_size": 4.0}},
            "options.market_size",
        ),
        (
            {"game": "chock-a-block", "players": PLAYERS[:2], "options": {"start_seat": 0.0}},
            "options.start_seat",
        ),
        (
            {"game": "block-block", "players": PLAYERS[:2], "options": {"board_size": [4.0, 4]}},
            "options.board_size",
        ),
    ]
    for body, field in cases:
        response = client.post("/v1/matches", json=body)
        assert_error(response, 400, "invalid_request")
        assert field in response.json["fields"], (body, response.json)


def test_a_body_that_is_not_json_is_a_400(client):
    response = client.post("/v1/matches", data="{not json", content_type="application/json")
    assert_error(response, 400, "invalid_request")


def test_unknown_match_is_404(client):
    assert_error(client.get("/v1/matches/nope"), 404, "match_not_found")
    assert_error(client.get("/v1/matches/nope/state"), 404, "match_not_found")
    assert_error(client.get("/v1/matches/nope/events"), 404, "match_not_found")
    assert_error(client.post(f"/v1/matches/{'0' * 32}/score", headers=bearer("x")), 404, "match_not_found")


# -- tokens --------------------------------------------------------------------------------------------


def test_acting_needs_a_token_of_this_match(client):
    match_id, _tokens = create(client)
    _other_id, other_tokens = create(client)
    url = f"/v1/matches/{match_id}/actions"
    body = {"expected_version": 1, "action": place([(0, 0)])}
    assert_error(client.post(url, json=body), 401, "missing_token")
    assert_error(client.post(url, json=body, headers={"Authorization": "Basic abc"}), 401, "malformed_token")
    assert_error(client.post(url, json=body, headers=bearer("made-up")), 403, "wrong_token")
    assert_error(client.post(url, json=body, headers=bearer(other_tokens[0])), 403, "wrong_token")
    assert_error(client.get(f"/v1/matches/{match_id}/legal-actions"), 401, "missing_token")


def test_a_token_acts_only_for_its_own_seat(client):
    match_id, tokens = create(client)
    response = act(client, match_id, tokens[1], 1, place([(0, 0)]))  # bob tries blue's move
    assert_error(response, 422, "illegal_action")
    assert response.json["reason"] == "not_your_turn"


# -- legal actions and acting ------------------------------------------------------------------------


def test_legal_actions_list_is_complete_and_postable(client):
    match_id, tokens = create(client)
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json
    assert legal["version"] == 1 and legal["seat"] == 0
    assert len(legal["actions"]) == 58  # every placement covering blue's corner
    assert all(set(a["cells"][0]) and a["type"] == "place" for a in legal["actions"])
    response = act(client, match_id, tokens[0], 1, legal["actions"][-1])
    assert response.status_code == 201
    waiting = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json
    assert waiting["actions"] == []  # not blue's turn any more


def test_an_accepted_action_returns_the_new_version_and_its_events(client):
    match_id, tokens = create(client)
    response = act(client, match_id, tokens[0], 1, place([(0, 0), (1, 0)]))
    assert response.status_code == 201
    body = response.json
    assert body["version"] == 2
    [event] = body["events"]
    assert event["version"] == 2 and event["type"] == "placed" and event["seat"] == 0
    assert event["data"] == {"colour": "blue", "piece": "2", "cells": [[0, 0], [1, 0]]}
    assert client.get(f"/v1/matches/{match_id}").json["version"] == 2


def test_an_action_that_names_another_game_is_a_400_naming_game(client):
    match_id, tokens = create(client)
    body = {"expected_version": 1, "action": place([(0, 0)])}
    wrong = client.post(
        f"/v1/matches/{match_id}/actions", headers=bearer(tokens[0]), json={**body, "game": "chock-a-block"}
    )
    assert_error(wrong, 400, "invalid_request")
    assert wrong.json["fields"] == {"game": ["this match's game is blokus"]}
    said = client.post(
        f"/v1/matches/{match_id}/actions", headers=bearer(tokens[0]), json={**body, "game": "blokus"}
    )
    assert said.status_code == 201, said.json


def test_the_picture_is_its_own_endpoint_and_the_state_negotiation_still_answers_it(client):
    match_id, tokens = create(client)
    picture = client.get(f"/v1/matches/{match_id}/picture", headers=bearer(tokens[0]))
    assert picture.status_code == 200 and picture.mimetype == "image/svg+xml"
    assert picture.headers["X-Match-Version"] == "1" and picture.get_data(as_text=True).startswith("<svg")
    negotiated = client.get(f"/v1/matches/{match_id}/state", headers={"Accept": "image/svg+xml"})
    assert negotiated.mimetype == "image/svg+xml"  # deprecated, still answered
    assert client.get(f"/v1/matches/{match_id}/state").json["game"] == "blokus"


def test_every_rejection_reason_is_reported(client):
    match_id, tokens = opened(client)  # version 5, blue to move
    cases = {
        "not_your_turn": (1, place([(18, 1), (18, 2)])),
        "corner_rule": (0, place([(5, 5), (6, 5)])),
        "edge_contact": (0, place([(1, 0), (2, 0)])),
        "overlap": (0, place([(17, 19), (18, 19), (19, 19)])),  # red holds (19, 19)
        "off_board": (0, place([(19, 19), (20, 19)])),
        "piece_used": (0, place([(1, 1)])),
        "not_a_piece": (0, place([(1, 1), (3, 3)])),
        "piece_mismatch": (0, place([(1, 1), (2, 1)], piece="X5")),
        "pass_not_allowed": (0, {"type": "pass"}),
    }
    for reason, (seat, action) in cases.items():
        response = act(client, match_id, tokens[seat], 5, action)
        assert_error(response, 422, "illegal_action")
        assert response.json["reason"] == reason, (reason, response.json)
    fresh_id, fresh_tokens = create(client)
    response = act(client, fresh_id, fresh_tokens[0], 1, place([(3, 3)]))
    assert response.json["reason"] == "must_cover_start"
    assert client.get(f"/v1/matches/{match_id}").json["version"] == 5  # nothing was appended


def test_a_stale_version_is_a_conflict_with_the_current_version(client):
    match_id, tokens = create(client)
    assert act(client, match_id, tokens[0], 1, place([(0, 0)])).status_code == 201
    response = act(client, match_id, tokens[1], 1, place([(19, 0)]))
    assert_error(response, 409, "version_conflict")
    assert response.json["current_version"] == 2


def test_a_body_failing_the_schema_is_a_400_naming_fields(client):
    match_id, tokens = create(client)
    url = f"/v1/matches/{match_id}/actions"
    cases = [
        ({"action": place([(0, 0)])}, "expected_version"),
        ({"expected_version": "1", "action": place([(0, 0)])}, "expected_version"),
        ({"expected_version": 0, "action": place([(0, 0)])}, "expected_version"),
        ({"expected_version": 1}, "action"),
        ({"expected_version": 1, "action": {"type": "teleport"}}, "action.type"),
        ({"expected_version": 1, "action": {"type": "place", "cells": [[0]]}}, "action.cells.0"),
        ({"expected_version": 1, "action": {"type": "place"}}, "action.cells"),
        ({"expected_version": 1, "action": {"type": "place", "cells": [[0, 0]], "seat": 1}}, "action.seat"),
        (
            {"expected_version": 1, "action": {"type": "place", "cells": [[0, 0]], "colour": "teal"}},
            "action.colour",
        ),
        ({"expected_version": 1, "action": place([(0, 0)]), "extra": 1}, "extra"),
    ]
    for body, field in cases:
        response = client.post(url, json=body, headers=bearer(tokens[0]))
        assert_error(response, 400, "invalid_request")
        assert field in response.json["fields"], (body, response.json)


def test_retry_with_the_same_idempotency_key_returns_the_first_answer(client):
    match_id, tokens = create(client)
    first = act(client, match_id, tokens[0], 1, place([(0, 0)]), **{"Idempotency-Key": "k1"})
    again = act(client, match_id, tokens[0], 1, place([(0, 0)]), **{"Idempotency-Key": "k1"})
    assert first.status_code == again.status_code == 201
    assert first.json == again.json
    assert client.get(f"/v1/matches/{match_id}").json["version"] == 2  # appended once
    reused = act(client, match_id, tokens[0], 1, place([(0, 0), (0, 1)]), **{"Idempotency-Key": "k1"})
    assert_error(reused, 422, "idempotency_key_reused")


def test_oversized_bodies_get_413(client):
    match_id, tokens = create(client)
    huge = {"expected_version": 1, "action": {"type": "place", "cells": [[0, 0]] * 20000}}
    answer = client.post(f"/v1/matches/{match_id}/actions", json=huge, headers=bearer(tokens[0]))
    assert_error(answer, 413, "request_entity_too_large")
    assert answer.json["message"] == "the body is over this server's limit of 65536 bytes"


def test_unknown_paths_and_methods_use_the_error_shape(client):
    assert_error(client.get("/v1/nothing"), 404, "not_found")
    assert_error(client.delete("/v1/games"), 405, "method_not_allowed")
    assert_error(client.get("/v1/matches//state"), 404, "not_found")  # an empty id (an unset $M): no redirect
    assert_error(client.post("/v1/matches//actions", json={}), 404, "not_found")


# -- reading back ----------------------------------------------------------------------------------------


def test_state_now_and_at_any_earlier_version(client):
    match_id, _tokens = opened(client)
    now = client.get(f"/v1/matches/{match_id}/state").json
    assert now["version"] == 5 and now["state"]["placements"] == 4
    then = client.get(f"/v1/matches/{match_id}/state?version=2").json
    assert then["version"] == 2 and then["state"]["board"][0][0] == "blue"
    assert then["state"]["board"][0][19] is None
    assert then["state"]["to_move"] == {"colour": "yellow", "seat": 1}
    assert_error(client.get(f"/v1/matches/{match_id}/state?version=6"), 404, "version_not_found")
    assert_error(client.get(f"/v1/matches/{match_id}/state?version=0"), 400, "invalid_request")


def test_events_page_through_the_log(client):
    match_id, _ = opened(client)
    page = client.get(f"/v1/matches/{match_id}/events").json
    assert page["version"] == 5
    assert [e["version"] for e in page["events"]] == [1, 2, 3, 4, 5]
    created = page["events"][0]
    assert created["type"] == "match_created" and len(created["data"]["seed_commitment"]) == 64
    assert "seed" not in created["data"]
    tail = client.get(f"/v1/matches/{match_id}/events?after=2&limit=2").json
    assert [e["version"] for e in tail["events"]] == [3, 4]
    assert_error(client.get(f"/v1/matches/{match_id}/events?limit=0"), 400, "invalid_request")


def test_scoring_job_runs_and_reports(client, fake_redis, settings):
    match_id, tokens = opened(client)
    assert_error(client.post(f"/v1/matches/{match_id}/score"), 401, "missing_token")
    job_id = client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[0]))
    assert job_id.status_code == 202
    job_id = job_id.json["job_id"]
    assert client.get(f"/v1/jobs/{job_id}", headers=bearer(tokens[1])).json["status"] == "queued"
    run_jobs(fake_redis, settings)
    job = client.get(f"/v1/jobs/{job_id}", headers=bearer(tokens[0])).json
    assert job["status"] == "finished"
    assert job["result"]["final"] is False and job["result"]["scores"] == [88, 88, 88, 88]
    assert "result" not in client.get(f"/v1/matches/{match_id}").json  # provisional: nothing recorded
    assert_error(client.get("/v1/jobs/no-such-job", headers=bearer(tokens[0])), 404, "job_not_found")


def test_a_job_is_read_only_with_a_credential_of_its_match(client, fake_redis, settings):
    """Job ids are predictable (score-<match>-v<version>): without a credential 401, with a seat token or
    platform key of another match 404, the same answer as for no such job."""
    from service.store.keys import Keys
    from service.store.platforms import Platforms

    platforms = Platforms(fake_redis, Keys(settings.namespace))
    _, key = platforms.create("arena")
    _, other_key = platforms.create("elsewhere")
    created = client.post(
        "/v1/matches", json={"game": "blokus", "players": [{"name": n} for n in "abcd"]}, headers=bearer(key)
    ).json
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    _, other_tokens = create(client)
    job_id = client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[0])).json["job_id"]
    assert_error(client.get(f"/v1/jobs/{job_id}"), 401, "missing_token")
    for stranger in (other_tokens[0], other_key, "not-a-token"):
        assert_error(client.get(f"/v1/jobs/{job_id}", headers=bearer(stranger)), 404, "job_not_found")
    for allowed in (tokens[3], key):
        assert client.get(f"/v1/jobs/{job_id}", headers=bearer(allowed)).json["id"] == job_id


def test_bot_clock_and_webhook_jobs_are_nobodys_to_read(client, fake_redis, settings):
    """Only scoring jobs are handed out by id; the workers' own are not shown, even to the match's seats."""
    from service.store.jobqueue import JobQueue
    from service.store.keys import Keys

    match_id, tokens = create(client)
    jobs = JobQueue(fake_redis, Keys(settings.namespace))
    jobs.enqueue_bot_move(match_id, 1, 1)
    jobs.enqueue_deadline(match_id, 1, 4_102_444_800_000)
    jobs.enqueue_delivery("d" * 32, "h" * 16, "{}")
    for job_id in (f"bot-{match_id}-1-v1", f"clock-{match_id}-v1-4102444800000-0", f"hook-{'d' * 32}"):
        assert_error(client.get(f"/v1/jobs/{job_id}", headers=bearer(tokens[0])), 404, "job_not_found")


def test_scoring_needs_a_seat_and_is_one_job_per_version(client, fake_redis, settings):
    """Nothing anonymous costs storage: scoring asks for a seat token; asking again at the same
    version gets the same job; the job's status is kept for an hour, not a day."""
    match_id, tokens = opened(client)
    assert_error(client.post(f"/v1/matches/{match_id}/score"), 401, "missing_token")
    _other, other_tokens = create(client)
    assert_error(
        client.post(f"/v1/matches/{match_id}/score", headers=bearer(other_tokens[0])), 403, "wrong_token"
    )
    jobs = {
        client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[i % 4])).json["job_id"]
        for i in range(20)
    }
    assert jobs == {f"score-{match_id}-v5"}
    assert act(client, match_id, tokens[0], 5, place([(1, 1), (2, 1)])).status_code == 201
    again = client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[0])).json["job_id"]
    assert again == f"score-{match_id}-v6"
    run_jobs(fake_redis, settings)
    ttl = fake_redis.ttl(f"rq:job:{again}")
    assert 0 < ttl <= 3600


def test_a_move_chosen_at_an_old_version_is_a_conflict_even_where_this_process_is_behind(
    app, fake_redis, settings
):
    """Two API processes: the second appends; the first, whose copy is still at version 1, gets a move
    for version 1 that its copy would refuse (not that seat's turn there): it is a 409, not a 422."""
    from service.http.app import create_app

    first, second = app.test_client(), create_app(settings, fake_redis).test_client()
    created = first.post(
        "/v1/matches", json={"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}
    ).json
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    legal = first.get(
        f"/v1/matches/{match_id}/legal-actions", headers={"Authorization": f"Bearer {tokens[0]}"}
    ).json
    assert (
        second.post(
            f"/v1/matches/{match_id}/actions",
            headers={"Authorization": f"Bearer {tokens[0]}"},
            json={"expected_version": 1, "action": legal["actions"][0]},
        ).status_code
        == 201
    )
    stale = first.post(
        f"/v1/matches/{match_id}/actions",
        headers={"Authorization": f"Bearer {tokens[1]}"},
        json={"expected_version": 1, "action": {"type": "place", "cells": [[19, 0]]}},
    )
    assert (
        stale.status_code == 409
        and stale.json["error"] == "version_conflict"
        and stale.json["current_version"] == 2
    )


def test_a_running_blackout_match_scores_nothing_anyone_may_not_see(client, fake_redis, settings):
    """Blackout: Hong Kong's scores count the cards in hands and face-down slots: before the end a score
    job answers only that the result is not final."""
    from tests.helpers import score

    match_id, tokens = create(client, "blackout-hong-kong", PLAYERS[:2])
    assert score(client, fake_redis, settings, match_id, tokens[1]) == {
        "final": False,
        "withheld": "hidden_information",
    }


# -- words and links for people ----------------------------------------------------------------------


def test_each_listed_actions_text_is_the_text_of_its_entry(client):
    """``?text=true`` says each listed action as its log entry will (BLOCK.BLOCK lists unkeyed actions, Blokus
    keyed ones); without it the answer has no ``texts``."""
    for game, players in (("block-block", PLAYERS[:2]), ("blokus", PLAYERS)):
        match_id, tokens = create(client, game, players)
        for version in range(1, 4):
            seat = client.get(f"/v1/matches/{match_id}").json["to_act"][0]
            assert (
                "texts"
                not in client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json
            )
            listed = client.get(
                f"/v1/matches/{match_id}/legal-actions?text=true", headers=bearer(tokens[seat])
            ).json
            assert len(listed["texts"]) == len(listed["actions"]) > 0
            pick = len(listed["actions"]) // 2
            assert act(client, match_id, tokens[seat], version, listed["actions"][pick]).status_code == 201
            entry = client.get(f"/v1/matches/{match_id}/events?after={version}").json["events"][0]
            assert entry["text"] == listed["texts"][pick]


def test_the_create_answer_links_each_persons_seat_and_the_spectators_to_their_pages(client):
    players = [{"name": "ann"}, {"bot": "random"}, {"open": True}]
    body = client.post("/v1/matches", json={"game": "chock-a-block", "players": players}).json
    ann, bot, empty = body["seats"]
    assert ann["play_url"] == f"/play/{body['id']}#token={ann['token']}"
    assert "play_url" not in bot and "play_url" not in empty
    assert body["spectate_url"] == f"/matches/{body['id']}"
    for page in (ann["play_url"].split("#")[0], body["spectate_url"]):
        answer = client.get(page)
        assert answer.status_code == 200 and answer.mimetype == "text/html"
