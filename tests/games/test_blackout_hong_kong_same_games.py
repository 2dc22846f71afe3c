"""Blackout: Hong Kong plays the recorded random games exactly as the engine did when they were recorded.

``tests/fixtures/blackout_hong_kong_random_games.json`` was recorded from the engine before its
restructuring (one class of mixins became the kit's shape): random legal games for 1 to 4 players,
in both modes and under flipped options. For each step it holds the seat, the action chosen (as
posted: without the ``choices`` listed beside it) and a digest of everything the step showed: its
events, each seat's ``event_view`` of them, the state after each event (the pack left out: it never
changes), and, for every seat to act next, its legal actions and view. Each step also probes an
action that is probably illegal by then (the previous step's action, posted by the seat about to
act) and keeps the refusal's code and message, or the digest of its events when it was accepted.
The end of a game keeps every seat's view and the scores.

The engine must reproduce every digest: same events, same event views, same states, same listings,
same refusals. To record again (only when a behaviour change is intended and reviewed):
``python -m tests.games.test_blackout_hong_kong_same_games``.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest

from service.games.blackout_hong_kong import GAME
from service.games.protocol import IllegalAction
from tests.games.blackout_support import new_game

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "blackout_hong_kong_random_games.json"
GAMES: list[tuple[int, str, dict]] = [  # (players, seed, options)
    (1, "solo-campaign", {"mode": "CAMPAIGN"}),
    (1, "solo-single", {"mode": "SINGLE", "ALLOW_SOLO_SINGLE": True, "CLOSE_OUT_TIMING": "ANY_TIME_IN_TURN"}),
    (2, "two", {"mode": "SINGLE"}),
    (
        2,
        "two-flipped",
        {
            "mode": "SINGLE",
            "P6_P7_SIMULTANEOUS": False,
            "CARD_RESOLUTION": "INTERLEAVED",
            "PATROL_DECLINE_ENDS_TURN": False,
            "VIRTUAL_MARKERS": False,
            "PLACE_CUBE_DECLINABLE_WHEN_COSTLY": True,
        },
    ),
    (
        3,
        "three",
        {
            "mode": "SINGLE",
            "TRANSPORT_POOL_LIMITED": True,
            "GPS_POOL_LIMITED": True,
            "MARKET_SLIDE": True,
            "OWNED_FACEDOWN_TILE_VISIBILITY": "OWNER_ONLY",
        },
    ),
    (
        3,
        "three-campaign",
        {
            "mode": "CAMPAIGN",
            "FOOD_WATER_CLEANUP": "SELL_1HKD_EACH",
            "END_TRIGGER": "DRAW_FROM_EMPTY",
            "PATROL_REQ_CONSUMES": True,
        },
    ),
    (
        4,
        "four",
        {
            "mode": "SINGLE",
            "CLOSE_OUT_TIMING": "ANY_TIME_IN_TURN",
            "EMERGENCY_PLAN_DISCARDABLE": True,
            "SKIP_RULE": "OTHER_COLOUR_ONLY",
        },
    ),
    (
        4,
        "four-campaign",
        {
            "mode": "CAMPAIGN",
            "AUTO_PASS": False,
            "EXPLORATION_TOTAL_MODE": "PARTY_ONLY",
            "SLOT_REQ_MODE": "EXACT",
        },
    ),
]


def digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]


def without_pack(state: dict) -> dict:
    return {k: v for k, v in state.items() if k != "content"}


def viewers(state: dict) -> list[int | None]:
    return [*range(state["n"]), None]


def step_digest(played, before: dict) -> str:
    """Everything one accepted action showed, in one digest."""
    events = list(played)
    after = played.states[-1]
    shown = {
        "events": events,
        "event_views": [[GAME.event_view(e, v) for v in viewers(before)] for e in events],
        "states": [without_pack(s) for s in played.states],
        "next": {
            str(seat): [GAME.legal_actions(after, seat), GAME.view(after, seat)]
            for seat in GAME.to_act(after)
        },
    }
    return digest(shown)


def probe(state: dict, seat: int, action: dict) -> list:
    """An action tried on the side: its refusal (code and message), or the digest of its events."""
    try:
        played = GAME.play(state, seat, action)
    except IllegalAction as refusal:
        return [refusal.reason, refusal.message]
    return ["played", digest(list(played))]


def play_game(players: int, seed: str, options: dict, recorded: list | None = None):
    """Play one game: recorded steps replayed (``recorded``), or random ones chosen; yields each step."""
    rng = random.Random(seed)
    state = new_game(players, seed, **options)
    last = None
    index = 0
    while not GAME.is_over(state):
        if recorded is not None:
            seat, action = recorded[index][0], recorded[index][1]
        else:
            seat = rng.choice(GAME.to_act(state))
            listed = rng.choice(GAME.legal_actions(state, seat))
            action = {k: v for k, v in listed.items() if k != "choices"}  # ignored when posted (§8.2)
        tried = probe(state, seat, last) if last is not None else None
        played = GAME.play(state, seat, action)
        yield [seat, action, step_digest(played, state), tried]
        last, state = action, played.states[-1]
        index += 1
    yield {
        "views": {str(v): digest(GAME.view(state, v)) for v in viewers(state)},
        "scores": GAME.scores(state),
    }


def record() -> dict:
    """The fixture: refusal messages are written once, in ``messages``, and a probe names its index."""
    out, messages = [], []
    for players, seed, options in GAMES:
        *steps, end = play_game(players, seed, options)
        for step in steps:
            if step[3] and step[3][0] != "played":
                if step[3][1] not in messages:
                    messages.append(step[3][1])
                step[3] = [step[3][0], messages.index(step[3][1])]
        out.append({"players": players, "seed": seed, "options": options, "steps": steps, "end": end})
    return {"messages": messages, "games": out}


def recorded_games() -> list[dict]:
    """The recorded games, each probe's refusal with its message written out again."""
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    for game in fixture["games"]:
        for step in game["steps"]:
            if step[3] and step[3][0] != "played":
                step[3] = [step[3][0], fixture["messages"][step[3][1]]]
    return fixture["games"]


def test_the_fixture_holds_every_game():
    games = recorded_games()
    assert [[g["players"], g["seed"], g["options"]] for g in games] == [list(g) for g in GAMES]
    assert {g["players"] for g in games} == {1, 2, 3, 4}


@pytest.mark.parametrize("index", range(len(GAMES)), ids=[seed for _, seed, _ in GAMES])
def test_a_recorded_random_game_plays_the_same(index):
    game = recorded_games()[index]
    *steps, end = play_game(game["players"], game["seed"], game["options"], game["steps"])
    assert len(steps) == len(game["steps"])
    for number, (step, expected) in enumerate(zip(steps, game["steps"])):
        assert step == expected, f"step {number}: {expected[1]} by seat {expected[0]}"
    assert end == game["end"]


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(record(), separators=(",", ":")) + "\n", encoding="utf-8")
    print(FIXTURE, FIXTURE.stat().st_size, "bytes")
