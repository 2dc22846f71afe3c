"""Turn clocks from the log's own times: Fischer and per-action allowances, one clock per seat still
to act, the time left shown to everyone, and ``on_timeout`` carried out through the ordinary append."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.domain import clocks, lifecycle
from service.domain.lifecycle import SeedSecret
from service.games import GAMES
from tests.helpers import act, bearer


def _at(seconds: float) -> str:
    return (
        datetime.fromtimestamp(1_800_000_000 + seconds, tz=UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


def test_fischer_charges_the_running_seat_and_adds_its_increment():
    clock = clocks.started({"initial_ms": 60_000, "increment_ms": 2_000, "on_timeout": "bot"}, 2, _at(0))
    clock = clocks.advanced(clock, [0], _at(0))  # seat 0 to act
    clock = clocks.advanced(clock, [1], _at(5))  # it moved after 5 s
    assert clock["remaining_ms"] == [57_000, 60_000] and clock["running"] == [1]
    clock = clocks.advanced(clock, [1], _at(8))  # seat 1 still to act (several actions in its turn)
    assert clock["remaining_ms"] == [57_000, 57_000]
    assert clocks.remaining_now(clock, _at(10)) == [57_000, 55_000]
    assert clocks.expired(clock, _at(64.9)) == [] and clocks.expired(clock, _at(65)) == [1]
    assert clocks.deadline_ms(clock) == clocks.at_ms(_at(65))


def test_per_action_allowance_is_fresh_each_turn_and_simultaneous_seats_each_run():
    clock = clocks.started({"per_action_ms": 10_000, "on_timeout": "bot"}, 3, _at(0))
    clock = clocks.advanced(clock, [0, 1, 2], _at(0))  # a simultaneous phase: three clocks run
    clock = clocks.advanced(clock, [1, 2], _at(4))  # seat 0 submitted
    assert clock["remaining_ms"] == [6_000, 6_000, 6_000]
    clock = clocks.advanced(clock, [0], _at(9))  # seats 1 and 2 submitted; seat 0 to act again, afresh
    assert clock["remaining_ms"] == [10_000, 1_000, 1_000]


def _clocked_match(client, game="blokus", players=({"name": "ann"}, {"name": "bob"}), **clock):
    body = {"game": game, "players": list(players), "clock": clock or {"per_action_s": 30}}
    if "on_timeout" in clock:
        body["on_timeout"] = clock.pop("on_timeout")
        body["clock"] = clock
    created = client.post("/v1/matches", json=body)
    assert created.status_code == 201, created.json
    return created.json["id"], [s.get("token") for s in created.json["seats"]]


def test_every_seat_sees_the_clocks(client):
    match_id, tokens = _clocked_match(client, initial_s=300, increment_s=5)
    match = client.get(f"/v1/matches/{match_id}").json
    assert match["clock"]["initial_ms"] == 300_000 and match["clock"]["increment_ms"] == 5_000
    assert match["clock"]["on_timeout"] == "bot" and match["clock"]["running"] == [0]
    assert (
        290_000 < match["clock"]["remaining_ms"][0] <= 300_000
        and match["clock"]["remaining_ms"][1] == 300_000
    )
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json
    act(client, match_id, tokens[0], 1, legal["actions"][0])
    assert client.get(f"/v1/matches/{match_id}").json["clock"]["running"] == [1]


def test_clock_seconds_are_json_numbers(client):
    for odd in ("30", True, None, [30]):
        refused = client.post(
            "/v1/matches",
            json={
                "game": "blokus",
                "players": [{"name": "a"}, {"name": "b"}],
                "clock": {"per_action_s": odd},
            },
        )
        assert refused.status_code == 400 and "clock.per_action_s" in refused.json["fields"], (
            odd,
            refused.json,
        )
    assert _clocked_match(client, per_action_s=30.5)[0]


def test_a_clock_setting_the_game_cannot_carry_out_is_refused(client):
    refused = client.post(
        "/v1/matches",
        json={
            "game": "chock-a-block",
            "players": [{"name": "a"}, {"name": "b"}],
            "clock": {"per_action_s": 30},
            "on_timeout": "forfeit",
        },
    )
    assert refused.status_code == 400 and "on_timeout" in refused.json["fields"]
    both = client.post(
        "/v1/matches",
        json={
            "game": "blokus",
            "players": [{"name": "a"}, {"name": "b"}],
            "clock": {"per_action_s": 30, "initial_s": 60},
        },
    )
    assert both.status_code == 400
    assert client.get("/v1/games").json[0]["timeouts"][0] == "bot"


def test_a_blokus_pass_on_timeout_needs_a_match_where_a_colour_may_pass(client):
    two = {
        "game": "blokus",
        "players": [{"name": "a"}, {"name": "b"}],
        "clock": {"per_action_s": 30},
        "on_timeout": "pass",
    }
    refused = client.post("/v1/matches", json=two)  # blokus spec 2.7: no voluntary pass by default
    assert refused.status_code == 400 and "with these options" in refused.json["fields"]["on_timeout"][0]
    allowed = client.post("/v1/matches", json={**two, "options": {"allow_voluntary_pass": True}})
    assert allowed.status_code == 201, allowed.json
    rectangle = {
        **two,
        "players": [{"name": "a"}],
        "options": {"allow_voluntary_pass": True, "variant": "solo_rectangle"},
    }
    assert (
        client.post("/v1/matches", json=rectangle).status_code == 400
    )  # any colour at any time: no turn to pass


def test_on_timeout_without_a_clock_is_refused(client):
    two = {"game": "block-block", "players": [{"name": "a"}, {"name": "b"}]}
    refused = client.post("/v1/matches", json={**two, "on_timeout": "forfeit"})
    assert refused.status_code == 400 and "give the match a clock" in refused.json["fields"]["on_timeout"][0]
    assert (
        client.post("/v1/matches", json={**two, "on_timeout": "bot"}).status_code == 201
    )  # the default, said


def _iso(ms: float) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _out_of_time(matches, match_id):
    """The match, a moment before its running clock runs out, and one after."""
    state = matches.load(match_id)
    deadline = clocks.deadline_ms(state.clock)
    return state, _iso(deadline - 1000), _iso(deadline + 1000)


def test_each_timeout_policy(app, client):
    matches = app.extensions["matchlog"]
    secret = SeedSecret("s", "t")
    cases = [
        ("blokus", {"per_action_s": 5, "on_timeout": "bot"}, ["timed_out", "seat_replaced"]),
        ("block-block", {"per_action_s": 5, "on_timeout": "forfeit"}, ["timed_out", "acted_by", "resigned"]),
        ("blackout-hong-kong", {"per_action_s": 5, "on_timeout": "pass"}, ["timed_out", "acted_by"]),
    ]
    for game, clock, types in cases:
        match_id, _ = _clocked_match(client, game, **clock)
        state, early, late = _out_of_time(matches, match_id)
        assert lifecycle.time_out(state, secret, early) is None  # not yet
        step = lifecycle.time_out(state, secret, late)
        assert [e.type for e in step.entries][: len(types)] == types, (game, [e.type for e in step.entries])
        assert step.entries[0].data == {"on_timeout": clock["on_timeout"]}
        if clock["on_timeout"] == "bot":
            assert step.state.bot_of(step.entries[0].seat) == "random"


def test_the_state_carries_the_clocks_at_each_version(client):
    match_id, tokens = _clocked_match(client, initial_s=300, increment_s=5)
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json
    act(client, match_id, tokens[0], 1, legal["actions"][0])
    latest = client.get(f"/v1/matches/{match_id}/state").json["clock"]
    first = client.get(f"/v1/matches/{match_id}/state?version=1").json["clock"]
    assert first["running"] == [0] and first["remaining_ms"] == [300_000, 300_000]  # as it stood at version 1
    assert latest["running"] == [1] and 300_000 < latest["remaining_ms"][0] <= 305_000  # the increment


def _undo_at(undo: str, clock: dict, seconds: list[float]) -> list[list[int]]:
    """A two-seat Blokus match with ``clock``: seat 0 moves at ``seconds[0]`` and asks to take the move
    back at ``seconds[1]`` (seat 1 consenting at ``seconds[2]`` with ``with_consent``); the clocks
    (remaining ms) after the move and after the undo."""
    secret = SeedSecret("seed", "salt")
    step = lifecycle.begin(
        "blokus",
        GAMES["blokus"].resolve_options({}, 2),
        ["ann", "bob"],
        secret,
        _at(0),
        undo=undo,
        clock={**clock, "on_timeout": "bot"},
    )
    states = {s.version: s for s in step.states}
    moved = lifecycle.act(step.state, 0, step.state.legal_actions(0)[0], secret, _at(seconds[0]))
    states.update({s.version: s for s in moved.states})
    undone = lifecycle.undo(moved.state, 0, _at(seconds[1]), states.__getitem__)
    if undo == "with_consent":
        states.update({s.version: s for s in undone.states})
        undone = lifecycle.answer_undo(undone.state, 1, True, _at(seconds[2]), states.__getitem__)
    assert undone.state.to_act() == [0] and undone.state.clock["running"] == [0]
    return [moved.state.clock["remaining_ms"], undone.state.clock["remaining_ms"]]


def test_an_undo_takes_back_what_the_undone_moves_earned_and_time_spent_stays_spent():
    """No seat gains time by an undo, and none can run another's clock down with one: each is charged
    for the time its own clock ran (the seat answering an undo request for its wait), and what the undone
    moves earned, a Fischer increment or a fresh per-action allowance, is taken back."""
    fischer = {"initial_ms": 10_000, "increment_ms": 5_000}
    assert _undo_at("until_next_action", fischer, [1, 2]) == [[14_000, 10_000], [9_000, 9_000]]
    assert _undo_at("with_consent", fischer, [1, 2, 10.5]) == [[14_000, 10_000], [9_000, 500]]
    per_action = {"per_action_ms": 10_000}
    assert _undo_at("until_next_action", per_action, [3, 4]) == [[7_000, 10_000], [7_000, 9_000]]


def test_moving_and_undoing_again_and_again_runs_the_clock_down():
    secret = SeedSecret("seed", "salt")
    step = lifecycle.begin(
        "blokus",
        GAMES["blokus"].resolve_options({}, 2),
        ["ann", "bob"],
        secret,
        _at(0),
        undo="until_next_action",
        clock={"initial_ms": 10_000, "increment_ms": 5_000, "on_timeout": "bot"},
    )
    states = {s.version: s for s in step.states}
    state = step.state
    for second in range(1, 5):
        moved = lifecycle.act(state, 0, state.legal_actions(0)[0], secret, _at(2 * second - 1))
        states.update({s.version: s for s in moved.states})
        undone = lifecycle.undo(moved.state, 0, _at(2 * second), states.__getitem__)
        states.update({s.version: s for s in undone.states})
        state = undone.state
    assert state.clock["remaining_ms"] == [6_000, 6_000]  # four seconds each, spent


def test_a_move_the_clock_made_stands():
    """A timeout's move (``acted_by`` ``timeout``) cannot be undone: undoing it would put the seat back out
    of time, to be timed out again, and again."""
    from service.games.protocol import IllegalAction

    secret = SeedSecret("seed", "salt")
    step = lifecycle.begin(
        "blokus",
        GAMES["blokus"].resolve_options({"allow_voluntary_pass": True}, 2),
        ["ann", "bob"],
        secret,
        _at(0),
        undo="until_next_action",
        clock={"per_action_ms": 5_000, "on_timeout": "pass"},
    )
    timed_out = lifecycle.time_out(step.state, secret, _at(6))
    assert [e.type for e in timed_out.entries][:2] == ["timed_out", "acted_by"]
    assert timed_out.entries[1].data == {"by": "timeout"}
    states = {s.version: s for s in (*step.states, *timed_out.states)}
    with pytest.raises(IllegalAction) as refused:
        lifecycle.undo(timed_out.state, 0, _at(7), states.__getitem__)
    assert refused.value.reason == "nothing_to_undo"


def test_a_move_after_the_deadline_is_too_late_whatever_the_clocks_job_is_doing(client):
    """The clock's job may run late (a busy worker): a move that comes after the seat's time ran out is
    refused, and the timeout it would have met is appended there and then."""
    import time

    match_id, tokens = _clocked_match(client, per_action_s=1, on_timeout="bot")
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json
    time.sleep(1.1)  # no worker runs here: only the move can find the clock out
    late = act(client, match_id, tokens[0], legal["version"], legal["actions"][0])
    assert late.status_code == 409 and late.json["error"] == "out_of_time", late.json
    log = client.get(f"/v1/matches/{match_id}/events").json["events"]
    assert [e["type"] for e in log] == ["match_created", "timed_out", "seat_replaced"]
    assert late.json["current_version"] == 3
    again = act(client, match_id, tokens[0], 3, legal["actions"][0])  # the seat is a bot's now
    assert again.status_code in (401, 403), again.json


def test_an_undo_does_not_buy_back_time_run_out(client):
    """Seat 0 is out of time when seat 1 takes its move back: the timeout is appended first, as for a move."""
    import time

    created = client.post(
        "/v1/matches",
        json={
            "game": "blokus",
            "players": [{"name": "ann"}, {"name": "bob"}],
            "clock": {"per_action_s": 1},
            "undo": "until_next_action",
        },
    )
    match_id, tokens = created.json["id"], [s["token"] for s in created.json["seats"]]
    for seat, version in ((0, 1), (1, 3)):
        legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json
        assert act(client, match_id, tokens[seat], version, legal["actions"][0]).status_code == 201
    time.sleep(1.1)  # seat 0's second of thought is over
    undone = client.post(f"/v1/matches/{match_id}/undo", headers=bearer(tokens[1]))
    assert undone.status_code == 201, undone.json
    log = client.get(f"/v1/matches/{match_id}/events").json["events"]
    assert [(e["type"], e["seat"]) for e in log[5:]] == [
        ("timed_out", 0),
        ("seat_replaced", 0),
        ("undone", 1),
    ]


def test_a_timeout_that_loses_its_race_leaves_the_seat_its_token(fake_redis, settings):
    """The token is handed to nobody before the timeout is appended; should the append lose to a move that
    came in time, the seat gets its token back rather than being locked out of a match it is playing."""
    import time

    from service.application.matches import Matches, NewMatch
    from service.domain.tokens import seat_for
    from service.store.events import VersionConflict

    matches = Matches(fake_redis, settings)
    match_id, state, tokens = matches.create(
        NewMatch("blokus", ["ann", "bob"], {}, clock={"per_action_ms": 1000, "on_timeout": "bot"})
    )
    stale = matches.load(match_id)
    matches.submit(match_id, 0, 1, state.legal_actions(0)[0])  # in time
    time.sleep(1.1)  # seat 1 is out of time now, and seat 0 was, judged on the stale copy
    with pytest.raises(VersionConflict):
        matches.clocks.time_out(match_id, stale)
    assert seat_for(tokens[0], matches.repository.meta(match_id).seat_hashes) == 0
    assert matches.repository.seat_digest(match_id, 0) is not None
