"""Blackout: Hong Kong, properties of random legal games: 1 to 4 players in every mode, played to the end,
checked after every step.

- Conservation: each player's 25 cubes are in exactly one place (supply, rondel, map, marker cubes on
  plan cards, shared-plan cubes, substitute cubes in districts); every card and every patrol tile is
  in exactly one place; transport and GPS tokens never exceed a limited pool.
- HK$, resources, transport and GPS never negative.
- Hidden information (spec §8.4): no seat's view or legal actions hold another seat's hand, and no
  seat's view, legal actions or log entries (as ``event_view`` shows them) hold another seat's
  unrevealed plan or a tile that seat has not seen.
- Replay: folding the log from the initial state gives the live state.
- Scores follow from the state: the final scoring's totals are the players' VP and its parts add up.
- A-20 ANY_TIME_IN_TURN: a Phase 3 turn never ends by itself while its seat is offered a close-out.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from service.games.blackout_hong_kong import GAME
from service.games.blackout_hong_kong.board import board_of
from tests.conftest import examples
from tests.games.blackout_support import new_game

MODES = [
    (1, "CAMPAIGN", {}),
    (1, "SINGLE", {"ALLOW_SOLO_SINGLE": True}),
    (2, "SINGLE", {}),
    (3, "SINGLE", {}),
    (4, "SINGLE", {}),
    (2, "CAMPAIGN", {}),
    (3, "CAMPAIGN", {}),
    (4, "CAMPAIGN", {}),
]
FLIPS = {
    "P6_P7_SIMULTANEOUS": False,
    "CARD_RESOLUTION": "INTERLEAVED",
    "TRANSPORT_POOL_LIMITED": True,
    "GPS_POOL_LIMITED": True,
    "PATROL_DECLINE_ENDS_TURN": False,
    "MARKET_SLIDE": True,
    "FOOD_WATER_CLEANUP": "SELL_1HKD_EACH",
    "END_TRIGGER": "DRAW_FROM_EMPTY",
    "VIRTUAL_MARKERS": False,
    "OWNED_FACEDOWN_TILE_VISIBILITY": "OWNER_ONLY",
    "CLOSE_OUT_TIMING": "ANY_TIME_IN_TURN",
}


def strings(node) -> set[str]:
    """Every string in a JSON value, keys included.

    A walk with a stack into one set, not a set per node: the checks after every step call it on each
    seat's view, legal actions and log entries, and the recursive form was half of the test's time."""
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
            stack.extend(item.keys())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def check_conserved(state: dict) -> None:
    board = board_of(state["content"])
    cards = []
    for p in state["players"]:
        cards += (
            p["hand"] + [e["card"] for stack in p["slots"] for e in stack] + p["hospital"] + p["check_area"]
        )
        cards += [held["card"] for held in p["objectives"] if held]
        markers = sum(held["markers"] for held in p["objectives"] if held)
        if isinstance(p["emergency"], dict):
            cards.append(p["emergency"]["card"])
            markers += p["emergency"]["markers"]
        shared = sum(plan["cubes"].get(str(p["seat"]), 0) for plan in state["shared_plans"])
        substitutes = sum(d["substitutes"].count(p["seat"]) for d in state["districts"].values())
        assert (
            p["supply"] + sum(p["rondel"].values()) + len(p["cubes"]) + markers + shared + substitutes == 25
        )
        assert len(set(p["cubes"])) == len(p["cubes"]), "1.6.4: one cube per player per location"
        assert p["hkd"] >= 0 and p["transport"] >= 0 and p["gps"] >= 0 and p["supply"] >= 0
        assert min(p["rondel"].values()) >= 0
    cards += (
        [c for row in state["market"] for c in row if c] + state["deck"] + state["reserve"] + state["discard"]
    )
    assert len(cards) == len(set(cards)), "a card in two places"
    objective_cards = {c["id"] for c in state["content"]["objectiveCards"]}
    in_play = {c for c in cards if c in objective_cards}
    assert in_play == objective_cards, "every objective card is somewhere"
    tiles = [t for d in state["districts"].values() for t in d["tiles"]]
    tiles += [t["tile"] for p in state["players"] for t in p["tiles"]] + state["box_tiles"]
    assert sorted(tiles) == sorted(board.tiles), "every tile in exactly one place"
    if state["options"]["TRANSPORT_POOL_LIMITED"]:
        assert sum(p["transport"] for p in state["players"]) <= 24
    if state["options"]["GPS_POOL_LIMITED"]:
        assert sum(p["gps"] for p in state["players"]) <= 12


def secrets_from(state: dict, viewer: int | None) -> set[str]:
    """What ``viewer`` may not know now: other seats' unrevealed plans and tiles it has not seen."""
    out = set()
    for p in state["players"]:
        if p["seat"] != viewer:
            out |= {e["card"] for stack in p["slots"] for e in stack if not e["faceUp"]}
            out |= set(state["plans"].get(str(p["seat"]), {}).values())
    for district in state["districts"].values():
        for tile in district["tiles"]:
            if not state["tiles"][tile]["faceUp"] and viewer not in state["tiles"][tile]["seenBy"]:
                out.add(tile)
    return out


def check_hidden(state: dict, new_events: list[dict], before: dict) -> None:
    viewers = [None] + list(range(state["n"]))
    for viewer in viewers:
        secret = secrets_from(state, viewer)
        others_hands = {c for p in state["players"] if p["seat"] != viewer for c in p["hand"]}
        shown = strings(GAME.view(state, viewer))
        assert not shown & (secret | others_hands), (viewer, shown & (secret | others_hands))
        if viewer is not None and viewer in GAME.to_act(state):
            listed = strings(GAME.legal_actions(state, viewer))
            assert not listed & (secret | others_hands)
        for e in new_events:
            seen = strings(GAME.event_view(e, viewer)["data"])
            assert not seen & secret, (viewer, e["type"], seen & secret)


def check_scores(state: dict) -> None:
    result = state["result"]
    for row, p in zip(result["players"], state["players"]):
        assert (
            row["total"]
            == row["vp_before"] + row["vp_from_hkd"] + row["vp_from_tiles"] + row["vp_from_cards"]
        )
        assert p["vp"] == row["total"] and p["hkd"] == row["hkd_left"] < 5
    scores = GAME.scores(state)
    assert scores["scores"] == [p["vp"] for p in state["players"]]
    best = max((r["total"], r["hkd_left"]) for r in result["players"])
    assert scores["winners"] == [r["seat"] for r in result["players"] if (r["total"], r["hkd_left"]) == best]


@pytest.mark.no_cover  # what it runs is covered by faster tests; traced, it took 3 times as long
@pytest.mark.parametrize(
    "players,mode,extra", MODES, ids=[f"{n}p-{m}" + ("-solo-single" if e else "") for n, m, e in MODES]
)
@settings(
    max_examples=examples(2),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)  # a whole game shrinks too slowly to wait for
@given(
    seed=st.text(min_size=1, max_size=8),
    flips=st.sets(st.sampled_from(sorted(FLIPS)), max_size=4),
    choices=st.integers(0, 2**32),
)
def test_random_games_keep_every_invariant(players, mode, extra, seed, flips, choices):
    options = {"mode": mode, **extra, **{k: FLIPS[k] for k in flips}}
    rng = random.Random(choices)
    initial = state = new_game(players, seed, **options)
    log = []
    check_conserved(state)
    while not GAME.is_over(state):
        seat = rng.choice(GAME.to_act(state))
        legal = GAME.legal_actions(state, seat)
        assert legal, "a seat to act always has a legal action"
        action = rng.choice(legal)
        played = GAME.play(state, seat, action)
        check_conserved(played.states[-1])
        check_hidden(played.states[-1], list(played), state)
        log += list(played)
        state = played.states[-1]
        assert len(log) < 20000, "a game ends"
    check_scores(state)
    replayed = initial
    for e in log:
        replayed = GAME.apply(replayed, e)
    assert json.dumps(replayed, sort_keys=True) == json.dumps(state, sort_keys=True)


@settings(
    max_examples=examples(6),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(
    players=st.integers(2, 4),
    mode=st.sampled_from(["SINGLE", "CAMPAIGN"]),
    seed=st.text(min_size=1, max_size=8),
    choices=st.integers(0, 2**32),
)
def test_a_20_no_automatic_end_of_turn_while_a_close_out_is_listed(players, mode, seed, choices):
    """With CLOSE_OUT_TIMING = ANY_TIME_IN_TURN, closing out a kept plan is a move of the Phase 3 turn:
    the state just before every automatic ``turn_ended`` lists no RESOLVE_CLOSE_OUT for that seat."""
    rng = random.Random(choices)
    state = new_game(players, seed, mode=mode, CLOSE_OUT_TIMING="ANY_TIME_IN_TURN")
    steps = 0
    while not GAME.is_over(state):
        seat = rng.choice(GAME.to_act(state))
        played = GAME.play(state, seat, rng.choice(GAME.legal_actions(state, seat)))
        for event, before in zip(played, [state] + played.states[:-1]):
            if event["type"] == "turn_ended" and event["data"].get("auto"):
                listed = [a["type"] for a in GAME.legal_actions(before, event["seat"])]
                assert "RESOLVE_CLOSE_OUT" not in listed, (before["step"], event["seat"], listed)
        state = played.states[-1]
        steps += 1
        assert steps < 20000, "a game ends"
