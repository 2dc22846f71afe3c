"""Undo never rewrites the log: ``undone`` returns the match to the state before the seat's last move,
and the log keeps both; refused where the move revealed hidden information, or without the option."""

from __future__ import annotations

import json

import pytest

from service.application.bots import Bots
from service.domain import replay
from service.domain.chain import Recorded
from service.http.app import create_app
from tests.helpers import act, bearer, full_log


@pytest.fixture(params=["fakeredis", "redis"])
def store(request):
    """Every undo test runs on fakeredis (with the real Lua append) and on the real Redis."""
    if request.param == "redis":
        return request.getfixturevalue("real_redis")
    return request.getfixturevalue("fake_redis")


@pytest.fixture
def client(store, settings):
    return create_app(settings, store).test_client()


def _match(client, game="blokus", undo="until_next_action", players=({"name": "ann"}, {"name": "bob"})):
    created = client.post("/v1/matches", json={"game": game, "players": list(players), "undo": undo})
    assert created.status_code == 201, created.json
    return created.json["id"], [s.get("token") for s in created.json["seats"]]


def _move(client, match_id, tokens, pick=0):
    match = client.get(f"/v1/matches/{match_id}").json
    seat = match["to_act"][0]
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json
    answer = act(client, match_id, tokens[seat], legal["version"], legal["actions"][pick])
    assert answer.status_code == 201, answer.json
    return seat, answer.json


def _undo(client, match_id, token, verb=""):
    return client.post(f"/v1/matches/{match_id}/undo{verb}", headers=bearer(token))


def test_undo_until_next_action_takes_back_the_last_move_and_keeps_it_in_the_log(client):
    match_id, tokens = _match(client)
    before = client.get(f"/v1/matches/{match_id}/state").json["state"]
    seat, _moved = _move(client, match_id, tokens)
    undone = _undo(client, match_id, tokens[seat])
    assert undone.status_code == 201, undone.json
    assert undone.json["events"][0]["type"] == "undone" and undone.json["events"][0]["data"] == {
        "to_version": 1
    }
    state = client.get(f"/v1/matches/{match_id}/state").json
    assert state["state"] == before and state["version"] == 4  # created, acted_by, placed, undone
    assert client.get(f"/v1/matches/{match_id}").json["to_act"] == [seat]
    log = full_log(client, match_id)
    assert [e["type"] for e in log] == ["match_created", "acted_by", "placed", "undone"]
    assert log[-1]["text"] == "undone: back to version 1"


def test_a_match_with_undos_replays_to_its_live_state(client, settings, store):
    """Every third move taken back, to the end: the log (moves and undos) replays to the same match."""
    match_id, tokens = _match(client, game="block-block")
    moves = 0
    while client.get(f"/v1/matches/{match_id}").json["status"] != "finished":
        seat, _ = _move(client, match_id, tokens, pick=moves % 3)
        moves += 1
        if moves % 3 == 0 and client.get(f"/v1/matches/{match_id}").json["status"] != "finished":
            assert _undo(client, match_id, tokens[seat]).status_code == 201
    entries = [Recorded.from_dict(e) for e in full_log(client, match_id)]
    assert sum(e.type == "undone" for e in entries) >= 2
    replayed = replay.replay(entries)
    assert (
        replayed.engine.view(replayed.game, None) == client.get(f"/v1/matches/{match_id}/state").json["state"]
    )
    assert replayed.version == entries[-1].version
    fresh = create_app(settings, store).test_client()  # another process: folds the log, undos and all
    for version in (entries[-1].version, next(e.version for e in entries if e.type == "undone")):
        path = f"/v1/matches/{match_id}/state?version={version}"
        assert fresh.get(path).json == client.get(path).json


def test_only_the_last_move_and_only_by_its_seat(client):
    match_id, tokens = _match(client)
    first, _ = _move(client, match_id, tokens)
    second, _ = _move(client, match_id, tokens)
    assert _undo(client, match_id, tokens[first]).json["reason"] == "nothing_to_undo"  # bob moved since
    assert _undo(client, match_id, tokens[second]).status_code == 201
    assert _undo(client, match_id, tokens[second]).json["reason"] == "nothing_to_undo"  # once


def test_undo_is_refused_without_the_option(client):
    match_id, tokens = _match(client, undo="none")
    seat, _ = _move(client, match_id, tokens)
    refused = _undo(client, match_id, tokens[seat])
    assert refused.status_code == 422 and refused.json["reason"] == "undo_off"
    assert [e["type"] for e in full_log(client, match_id)] == [
        "match_created",
        "placed",
    ]  # no marker without undo


def test_undo_is_refused_after_hidden_information_was_revealed(client):
    """Chock-a-Block: a turn that draws from the deck has shown a hidden card: it stands."""
    match_id, tokens = _match(client, game="chock-a-block")
    for _ in range(12):
        match = client.get(f"/v1/matches/{match_id}").json
        seat = match["to_act"][0]
        legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json
        draws = [a for a in legal["actions"] if a["type"] == "draw_card" and a.get("source") == "DECK"]
        action = draws[0] if draws else legal["actions"][0]
        answer = act(client, match_id, tokens[seat], legal["version"], action).json
        if draws:
            assert any(e["type"] == "card_drawn" for e in answer["events"])
            refused = _undo(client, match_id, tokens[seat])
            assert refused.status_code == 422 and refused.json["reason"] == "hidden_information_revealed"
            return
        assert _undo(client, match_id, tokens[seat]).status_code == 201  # nothing hidden shown: undoable
        act(client, match_id, tokens[seat], client.get(f"/v1/matches/{match_id}").json["version"], action)
    raise AssertionError("no draw from the deck came up")


def test_undo_with_consent_waits_for_the_others_and_lapses_when_someone_moves(client):
    match_id, tokens = _match(
        client, undo="with_consent", players=[{"name": n} for n in ("ann", "bob", "cat")]
    )
    seat, _ = _move(client, match_id, tokens)
    asked = _undo(client, match_id, tokens[seat])
    assert [e["type"] for e in asked.json["events"]] == ["undo_requested"]
    others = [s for s in range(3) if s != seat]
    assert client.get(f"/v1/matches/{match_id}").json["undo_request"] == {
        "seat": seat,
        "to_version": 1,
        "accepted": [],
    }
    assert [e["type"] for e in _undo(client, match_id, tokens[others[0]], "/accept").json["events"]] == [
        "undo_accepted"
    ]
    assert _undo(client, match_id, tokens[others[0]], "/accept").json["reason"] == "undo_already_answered"
    last = _undo(client, match_id, tokens[others[1]], "/accept").json
    assert [e["type"] for e in last["events"]] == ["undo_accepted", "undone"]
    assert client.get(f"/v1/matches/{match_id}").json["to_act"] == [seat]
    # refused
    seat, _ = _move(client, match_id, tokens)
    _undo(client, match_id, tokens[seat])
    assert [e["type"] for e in _undo(client, match_id, tokens[(seat + 1) % 3], "/refuse").json["events"]] == [
        "undo_refused"
    ]
    assert "undo_request" not in client.get(f"/v1/matches/{match_id}").json
    # lapses when someone moves
    _undo(client, match_id, tokens[seat])
    _move(client, match_id, tokens)
    assert _undo(client, match_id, tokens[(seat + 2) % 3], "/accept").json["reason"] == "no_undo_request"


def test_a_consent_undo_among_bots_is_accepted_by_them(client):
    match_id, tokens = _match(client, undo="with_consent", players=[{"name": "ann"}, {"bot": "random"}])
    _, _moved = _move(client, match_id, tokens)
    answer = _undo(client, match_id, tokens[0]).json
    assert [e["type"] for e in answer["events"]] == ["undo_requested", "undo_accepted", "undone"]


def _bot_replies(client, match_id, seat):
    version = client.get(f"/v1/matches/{match_id}").json["version"]
    assert Bots(client.application.extensions["matchlog"]).move(match_id, seat, version) is not None


@pytest.mark.parametrize("undo", ["until_next_action", "with_consent"])
def test_a_person_playing_a_bot_takes_back_the_move_with_the_bots_reply(client, undo):
    match_id, tokens = _match(client, undo=undo, players=[{"name": "ann"}, {"bot": "greedy"}])
    before = client.get(f"/v1/matches/{match_id}/state").json["state"]
    _move(client, match_id, tokens)
    _bot_replies(client, match_id, 1)
    answer = _undo(client, match_id, tokens[0])
    assert answer.status_code == 201, answer.json
    assert answer.json["events"][-1]["type"] == "undone" and answer.json["events"][-1]["data"] == {
        "to_version": 1
    }
    assert client.get(f"/v1/matches/{match_id}/state").json["state"] == before
    assert client.get(f"/v1/matches/{match_id}").json["to_act"] == [0]
    log = [e["type"] for e in full_log(client, match_id)]  # both moves stay in the log
    assert log[:5] == ["match_created", "acted_by", "placed", "acted_by", "placed"] and log[-1] == "undone"


def test_an_undo_asked_for_is_still_open_after_a_bots_reply(client):
    match_id, tokens = _match(
        client, undo="with_consent", players=[{"name": "ann"}, {"bot": "greedy"}, {"name": "cat"}]
    )
    before = client.get(f"/v1/matches/{match_id}/state").json["state"]
    _move(client, match_id, tokens)
    asked = _undo(client, match_id, tokens[0])
    assert [e["type"] for e in asked.json["events"]] == ["undo_requested", "undo_accepted"]  # the bot's yes
    _bot_replies(client, match_id, 1)
    accepted = _undo(client, match_id, tokens[2], "/accept")
    assert accepted.status_code == 201, accepted.json
    assert accepted.json["events"][-1]["type"] == "undone"
    assert client.get(f"/v1/matches/{match_id}/state").json["state"] == before


def test_a_bots_reply_does_not_carry_an_undo_past_another_persons_move(client):
    match_id, tokens = _match(client, players=[{"name": "ann"}, {"bot": "greedy"}, {"name": "cat"}])
    _move(client, match_id, tokens)
    _bot_replies(client, match_id, 1)
    assert _undo(client, match_id, tokens[2]).json["error"] == "illegal_action"  # cat has not moved
    _move(client, match_id, tokens)  # cat
    refused = _undo(client, match_id, tokens[0]).json
    assert refused["error"] == "illegal_action" and refused["reason"] == "nothing_to_undo"
    assert _undo(client, match_id, tokens[2]).status_code == 201  # cat's own move is hers to take back


def test_an_undo_retried_with_its_idempotency_key_gets_the_first_answer_and_undoes_once(client):
    match_id, tokens = _match(client)
    seat, _ = _move(client, match_id, tokens)
    key = {"Idempotency-Key": "undo-1", **bearer(tokens[seat])}
    first = client.post(f"/v1/matches/{match_id}/undo", headers=key)
    again = client.post(f"/v1/matches/{match_id}/undo", headers=key)  # its first answer may have been lost
    assert first.status_code == again.status_code == 201 and first.json == again.json
    assert [e["type"] for e in full_log(client, match_id)].count("undone") == 1
    assert (
        _undo(client, match_id, tokens[seat]).json["reason"] == "nothing_to_undo"
    )  # without the key: refused


def test_answers_to_an_undo_request_are_idempotent_and_keys_are_not_shared_across_commands(client):
    match_id, tokens = _match(client, undo="with_consent")
    seat, _ = _move(client, match_id, tokens)
    asked = client.post(
        f"/v1/matches/{match_id}/undo", headers={"Idempotency-Key": "k", **bearer(tokens[seat])}
    )
    assert asked.status_code == 201 and asked.json["events"][0]["type"] == "undo_requested"
    other = {"Idempotency-Key": "k2", **bearer(tokens[1 - seat])}
    accepted = client.post(f"/v1/matches/{match_id}/undo/accept", headers=other)
    assert [e["type"] for e in accepted.json["events"]] == ["undo_accepted", "undone"]
    assert client.post(f"/v1/matches/{match_id}/undo/accept", headers=other).json == accepted.json
    reused = client.post(
        f"/v1/matches/{match_id}/undo/refuse", headers=other
    )  # the same key, another command
    assert reused.status_code == 422 and reused.json["error"] == "idempotency_key_reused"
    assert [e["type"] for e in full_log(client, match_id)].count("undone") == 1
    too_long = client.post(
        f"/v1/matches/{match_id}/undo", headers={"Idempotency-Key": "x" * 129, **bearer(tokens[seat])}
    )
    assert too_long.status_code == 400 and too_long.json["error"] == "invalid_request"


SECRET_REVEALS = ("plans_placed", "objectives_discarded", "houses_placed")  # Blackout: Hong Kong


@pytest.mark.parametrize("bot_seat", [None, 1])
def test_a_move_that_shows_every_seats_secret_choice_stands(bot_seat):
    """Blackout: Hong Kong's plans, discards and houses are chosen in secret and shown when the last seat
    has chosen: that seat (and, against a bot who chose last, the person whose move the bot answered)
    cannot take its choice back having seen the others'."""
    import random

    from service.domain import lifecycle
    from service.domain.lifecycle import SeedSecret
    from service.games import GAMES
    from service.games.protocol import IllegalAction

    secret, rng = SeedSecret("seed1", "salt"), random.Random(3)
    game = GAMES["blackout-hong-kong"]
    step = lifecycle.begin(
        game.info.id,
        game.resolve_options({}, 2),
        ["ann", "bob"],
        secret,
        "2026-01-01T00:00:00.000Z",
        undo="until_next_action",
        bots=[None, "random" if bot_seat else None],
    )
    states = {s.version: s for s in step.states}
    state, revealed = step.state, set()
    person = None
    while not state.finished and not {"plans_placed", "objectives_discarded"} <= revealed:
        seat = state.to_act()[0]
        by = "bot:random" if seat == bot_seat else None
        moved = lifecycle.act(
            state, seat, rng.choice(state.legal_actions(seat)), secret, "2026-01-01T00:00:01.000Z", by
        )
        states.update({s.version: s for s in moved.states})
        person = seat if by is None else person
        shown = {e.type for e in moved.entries} & set(SECRET_REVEALS)
        if shown and not state.finished:
            with pytest.raises(IllegalAction) as refused:
                lifecycle.undo(moved.state, person, "2026-01-01T00:00:02.000Z", states.__getitem__)
            assert refused.value.reason == "hidden_information_revealed", (shown, refused.value.reason)
            revealed |= shown
        state = moved.state
    assert {"plans_placed", "objectives_discarded"} <= revealed  # houses only where several stabilise at once
    assert set(SECRET_REVEALS) <= game.irreversible


def _chock_pile_match(client):
    """Chock-a-Block where a neighbour may come unseen from the tile pile (A-19), and where the first
    room placed already calls for one (a group of 1), so the pile is reached on the first turn."""
    created = client.post(
        "/v1/matches",
        json={
            "game": "chock-a-block",
            "players": [{"name": "ann"}, {"name": "bob"}],
            "undo": "until_next_action",
            "options": {"neighbour_tile_source": "MARKET_OR_PILE_TOP", "neighbour_group_min": 1},
        },
    )
    assert created.status_code == 201, created.json
    return created.json["id"], [s["token"] for s in created.json["seats"]]


def _play_first(client, match_id, token, wanted):
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(token)).json
    action = next(a for a in legal["actions"] if wanted(a))
    answer = act(client, match_id, token, legal["version"], action)
    assert answer.status_code == 201, answer.json
    return answer.json


def test_a_neighbour_from_the_face_down_pile_cannot_be_undone(client):
    """The pile's top tile is seen once placed: taking the move back would leave it known on top."""
    match_id, tokens = _chock_pile_match(client)
    seat = client.get(f"/v1/matches/{match_id}").json["to_act"][0]
    _play_first(client, match_id, tokens[seat], lambda a: a["type"] == "place_card")
    pile = _play_first(
        client, match_id, tokens[seat], lambda a: a["type"] == "place_neighbour" and a.get("source") == "PILE"
    )
    assert [e["data"]["source"] for e in pile["events"] if e["type"] == "neighbour_tile_placed"] == ["PILE"]
    refused = _undo(client, match_id, tokens[seat])
    assert refused.status_code == 422, refused.json
    assert refused.json["reason"] == "hidden_information_revealed"


def test_a_chock_a_block_move_that_shows_nothing_hidden_is_still_undoable(client):
    match_id, tokens = _chock_pile_match(client)
    seat = client.get(f"/v1/matches/{match_id}").json["to_act"][0]
    before = client.get(f"/v1/matches/{match_id}/state").json["state"]
    _play_first(client, match_id, tokens[seat], lambda a: a["type"] == "place_card")
    undone = _undo(client, match_id, tokens[seat])
    assert undone.status_code == 201, undone.json
    assert client.get(f"/v1/matches/{match_id}/state").json["state"] == before


def test_a_stabilised_district_shows_nobody_the_tiles_it_returns_to_the_box():
    """Blackout: Hong Kong's district_stabilised records the district's tiles (R-7.3 (a): back to the
    box), face-down ones too, whose ids the pack describes: every viewer, its own stabilisers too, sees
    only how many went (spec 7, hidden information), so the event shows nothing and an undo may go
    back on it."""
    from service.games import GAMES

    game = GAMES["blackout-hong-kong"]
    stabilised = {
        "type": "district_stabilised",
        "seat": None,
        "data": {"district": "D1", "tiles": ["T01", "T07"], "stabilisers": [0], "scores": {"0": 3}},
    }
    for viewer in (None, 0, 1):
        seen = game.event_view(stabilised, viewer)
        assert seen["data"] == {"district": "D1", "tiles_returned": 2, "stabilisers": [0], "scores": {"0": 3}}
    assert not game.reveals(stabilised)


SGF = "application/x-blokus-sgf"


def _round_trip(client, match_id, headers=None):
    """The match's record, imported as a new match: its final state and the original's."""
    record = client.get(f"/v1/matches/{match_id}/record", headers={"Accept": SGF})
    assert record.status_code == 200, record.json
    imported = client.post("/v1/matches", data=record.data, content_type=SGF, headers=headers or {})
    assert imported.status_code == 201, (imported.json, record.data)
    original = client.get(f"/v1/matches/{match_id}/state").json["state"]
    copy = client.get(f"/v1/matches/{imported.json['id']}/state").json["state"]
    return original, copy


def test_a_record_leaves_out_what_was_undone_and_imports_to_the_same_state(client):
    match_id, tokens = _match(client)
    seat, _ = _move(client, match_id, tokens)
    assert _undo(client, match_id, tokens[seat]).status_code == 201
    _move(client, match_id, tokens, pick=1)
    _move(client, match_id, tokens)
    seat, _ = _move(client, match_id, tokens)
    assert _undo(client, match_id, tokens[seat]).status_code == 201
    original, copy = _round_trip(client, match_id)
    assert copy == original


def test_a_record_of_a_match_with_a_seat_handed_to_a_bot_and_an_undo_imports_to_the_same_state(
    client, store, settings
):
    """A seat handed to a bot (its moves marked acted_by) and back, an undo in between: the record plays
    the moves the state kept, named as the state names the seats."""
    from service.store.keys import Keys
    from service.store.platforms import Platforms

    _, key = Platforms(store, Keys(settings.namespace)).create("arena")
    created = client.post(
        "/v1/matches",
        json={"game": "blokus", "players": [{"name": "ann"}, {"name": "bob"}], "undo": "until_next_action"},
        headers=bearer(key),
    ).json
    match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    seat, _ = _move(client, match_id, tokens)
    assert _undo(client, match_id, tokens[seat]).status_code == 201
    _move(client, match_id, tokens, pick=2)
    replaced = client.post(
        f"/v1/matches/{match_id}/seats/1/replace", json={"name": "cy"}, headers=bearer(key)
    )
    assert replaced.status_code == 200, replaced.json
    tokens[1] = replaced.json["token"]
    _move(client, match_id, tokens)
    _move(client, match_id, tokens)
    original, copy = _round_trip(client, match_id, headers=bearer(key))
    assert copy == original


@pytest.mark.parametrize("undo", ["until_next_action", "with_consent"])
def test_an_undo_never_takes_back_a_bots_card_from_its_hidden_hand(undo):
    """Issue 39: a person moves, the bot answers with a card from its hidden hand, the person undoes. The
    bot's ``card_placed`` reveals nothing the game declares (its mover knew the card), but it showed the
    person a card of a hand it cannot see: taking it back would leave that card known in the bot's hand
    (six undos showed six of its cards). The person's move and the reply stand."""
    import random

    from service.domain import lifecycle
    from service.games import GAMES
    from service.games.protocol import IllegalAction
    from service.store import packs

    game, at = GAMES["chock-a-block"], "2026-01-01T00:00:00.000Z"
    secret, rng = lifecycle.SeedSecret("seed0", "salt"), random.Random(0)
    options = lifecycle.check_options(game.info.id, {"last_draw_placement": 0}, 2)
    step = lifecycle.begin(
        game.info.id,
        options,
        ["ann", "greedy bot"],
        secret,
        at,
        packs.content_for(game, options),
        bots=[None, "greedy"],
        undo=undo,
    )
    states = {s.version: s for s in step.states}
    state, bot_cards = step.state, []
    while not bot_cards or state.to_act() != [0]:
        seat = state.to_act()[0]
        if seat == 0:
            action, by = rng.choice(state.legal_actions(0)), None
            hidden = game.view(state.game, 0)["players"][1]["hand"]
        else:
            action, by = lifecycle.bot_action(state, 1, secret), "bot:greedy"
        moved = lifecycle.act(state, seat, action, secret, at, by)
        bot_cards += [e.data["card"] for e in moved.entries if e.type == "card_placed" and e.seat == 1]
        states.update({s.version: s for s in moved.states})
        state = moved.state
    assert hidden is None and state.last_action["seat"] == 0 and not state.last_action["revealed"]
    placed = [card["card"] for card in game.view(state.game, 0)["players"][1]["cards"]]
    assert set(bot_cards) <= set(placed)  # shown to ann now
    with pytest.raises(IllegalAction) as refused:
        lifecycle.undo(state, 0, at, states.__getitem__)
    assert refused.value.reason == "hidden_information_revealed"


def test_a_consent_undo_does_not_go_back_past_a_bots_reply_that_showed_the_asker_a_card():
    """With consent, the request stays open through a bot's reply (ann asks, the bot accepts, it answers her
    move with a card from its hidden hand): the last acceptance, cat's, is refused, since the undo would now
    take back what ann was shown."""
    import random

    from service.domain import lifecycle
    from service.games import GAMES
    from service.games.protocol import IllegalAction
    from service.store import packs

    game, at = GAMES["chock-a-block"], "2026-01-01T00:00:00.000Z"
    secret, rng = lifecycle.SeedSecret("seed1", "salt"), random.Random(1)
    options = lifecycle.check_options(game.info.id, {"last_draw_placement": 0, "start_seat": 0}, 3)
    step = lifecycle.begin(
        game.info.id,
        options,
        ["ann", "greedy bot", "cat"],
        secret,
        at,
        packs.content_for(game, options),
        bots=[None, "greedy", None],
        undo="with_consent",
    )
    states = {s.version: s for s in step.states}

    def take(step):
        states.update({s.version: s for s in step.states})
        return step.state

    state = step.state
    while state.to_act() == [0]:
        state = take(lifecycle.act(state, 0, rng.choice(state.legal_actions(0)), secret, at))
    state = take(lifecycle.undo(state, 0, at, states.__getitem__))
    assert state.undo_request == {"seat": 0, "to_version": state.undo_request["to_version"], "accepted": [1]}
    placed = []
    while state.to_act() == [1]:
        moved = lifecycle.act(state, 1, lifecycle.bot_action(state, 1, secret), secret, at, "bot:greedy")
        placed += [e.data["card"] for e in moved.entries if e.type == "card_placed"]
        state = take(moved)
    assert placed and state.undo_request is not None and not state.last_action["revealed"]
    with pytest.raises(IllegalAction) as refused:
        lifecycle.answer_undo(state, 2, True, at, states.__getitem__)
    assert refused.value.reason == "hidden_information_revealed"
    refusal = lifecycle.answer_undo(state, 2, False, at, states.__getitem__)  # refusing still may
    assert [e.type for e in refusal.entries] == ["undo_refused"]


def test_a_consent_undo_that_several_bots_accept_at_once_goes_through(client):
    """The bots' acceptances come in the same step as the request: the last one judges the versions the
    undo would take back, the request's among them, which the log does not hold yet."""
    created = client.post(
        "/v1/matches",
        json={
            "game": "chock-a-block",
            "players": [{"name": "ann"}, {"bot": "random"}, {"bot": "random"}],
            "undo": "with_consent",
            "options": {"start_seat": 0},
        },
    )
    assert created.status_code == 201, created.json
    match_id, token = created.json["id"], created.json["seats"][0]["token"]
    before = client.get(f"/v1/matches/{match_id}/state").json["state"]
    _play_first(client, match_id, token, lambda a: a["type"] == "place_card")
    answer = _undo(client, match_id, token)
    assert answer.status_code == 201, answer.json
    assert [e["type"] for e in answer.json["events"]] == [
        "undo_requested",
        "undo_accepted",
        "undo_accepted",
        "undone",
    ]
    assert client.get(f"/v1/matches/{match_id}/state").json["state"] == before


def test_an_undo_refused_for_what_the_bots_showed_folds_the_span_once_and_is_not_judged_again(
    fake_redis, settings, monkeypatch
):
    """Judging an undo reads every view of each version it would take back: loaded one by one (each from
    its snapshot), a refused request cost some 27 ms of API CPU (Chock-a-Block, three bots), and a seat may
    ask at the write rate, 500 a second. The versions come from one fold of the span, and asking again at
    the same state is refused by the judgement already made."""
    import random

    from service.application.matches import Matches, NewMatch
    from service.domain.tokens import token_hash
    from service.games.protocol import IllegalAction
    from tests.helpers import run_jobs

    matches = Matches(fake_redis, settings)
    created = matches.open_match(
        NewMatch(
            "chock-a-block",
            ["ann", "greedy bot"],
            options={"last_draw_placement": 0},
            bots=[None, "greedy"],
            undo="until_next_action",
            seed="one game",
        )
    )
    match_id, token, rng = created.match_id, created.tokens[0], random.Random(0)
    refused, loads, load = None, [], matches.repository.load

    def counted(match: str, version: int | None = None):
        loads.append(version)
        return load(match, version)

    for _ in range(200):
        state = matches.load(match_id)
        if state.finished:
            break
        if state.to_act() != [0]:  # the bot's reply, as a worker makes it
            Bots(matches).to_move(match_id, state)
            run_jobs(fake_redis, settings)
            continue
        if (
            state.last_action
            and state.last_action["seat"] == 0
            and state.version - state.last_action["before"] > 4
        ):
            monkeypatch.setattr(matches.repository, "load", counted)
            with pytest.raises(IllegalAction) as refused:
                matches.undo(match_id, 0, None, token_hash(token))
            monkeypatch.setattr(matches.repository, "load", load)
            taken_back = state.version - state.last_action["before"]
            break
        matches.submit(match_id, 0, state.version, rng.choice(sorted(state.legal_actions(0), key=json.dumps)))
    assert refused is not None and refused.value.reason == "hidden_information_revealed"
    assert taken_back > 4 and len([v for v in loads if v is not None]) == 1, (loads, taken_back)
    from service.domain import lifecycle

    judged, judge = [], lifecycle.showed_a_secret
    monkeypatch.setattr(lifecycle, "showed_a_secret", lambda *args: judged.append(1) or judge(*args))
    with pytest.raises(IllegalAction) as again:
        matches.undo(match_id, 0, None, token_hash(token))
    assert again.value.reason == "hidden_information_revealed" and judged == []
