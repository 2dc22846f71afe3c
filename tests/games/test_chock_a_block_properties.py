"""Chock-a-Block properties over random legal games of every mode and player count (hypothesis draws
every action from the legal list, so failures shrink).

Checked after every action: the deck, the markets, the hands, the buildings and Autoblock's discard
hold exactly the 64 cards; every tile and every token is in exactly one place; the state is plain
JSON; the seat to act always has a legal action. At sampled positions every listed action is accepted
by ``play`` unchanged, and the list equals what a brute-force try of every parameter accepts. At the
end, folding the log from the start gives the state reached live, and so does folding the log as a
spectator sees it (deck draws hidden) from the state the revealed seed sets up.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.games.chock_a_block import GAME, building
from service.games.protocol import IllegalAction, fold
from tests.conftest import examples
from tests.engines import random_playout
from tests.games.test_chock_a_block_support import new_game

CONFIGS: list[tuple[int, dict[str, Any]]] = [
    (2, {}),
    (3, {}),
    (4, {}),
    (5, {}),
    (1, {"excluded_feature": "CAT"}),
    (1, {"grand_autoblock": True, "solo_deck_draw_allowed": False}),
    (3, {"mode": "AUTOBLOCK_EXTRA", "excluded_feature": "BIRD"}),
    (4, {"mode": "AUTOBLOCK_EXTRA", "grand_autoblock": True}),
    (2, {"mode": "COOP"}),
    (4, {"mode": "COOP", "autoblock_excluded_feature_choice": "RANDOM", "autoblock_token_rule": "MAX_SUM"}),
    (3, {"building_rules": "BUILDING_BLOCK"}),
    (2, {"building_rules": "BUILDING_BLOCK", "bb_max_width_rooms": 6, "bb_max_height_rooms": 6}),
    (
        2,
        {
            "neighbour_tile_source": "MARKET_OR_PILE_TOP",
            "neighbour_mandatory": False,
            "token_claim_window": "ANY_TIME_IN_TURN",
            "neighbour_group_min": 3,
            "auto_advance": False,
        },
    ),
    (
        3,
        {
            "mode": "AUTOBLOCK_EXTRA",
            "excluded_feature": "CAT",
            "column_markets_with_autoblock": False,
            "closed_chain_absorbs_new_icons": True,
            "open_chain_min_size": 3,
            "draw_sources": "MARKET_ONLY",
        },
    ),
]
IDS = [f"{p}p-" + ("-".join(f"{k}={v}" for k, v in o.items()) or "default") for p, o in CONFIGS]


def check_conservation(state):
    content = state["content"]
    cards = (
        state["deck"]
        + [c for c in state["block_market"] if c]
        + state["discard"]
        + [c for p in state["seats"] for c in p["hand"]]
        + [c["card"] for p in state["seats"] for c in p["cards"]]
    )
    assert Counter(cards) == Counter(content["card_ids"])
    tiles = (
        state["tile_pile"]
        + [t for t in state["neighbour_market"] if t]
        + [r["tile"] for p in state["seats"] for r in p["rooms"].values() if r["tile"]]
        + (state["autoblock"]["tiles"] if state["autoblock"] else [])
    )
    assert Counter(tiles) == Counter(content["tile_ids"])
    tokens = (
        state["token_supply"]
        + [t["token"] for p in state["seats"] for t in p["tokens"]]
        + (state["autoblock"]["tokens"] if state["autoblock"] else [])
    )
    assert Counter(tokens) == Counter(content["token_ids"])
    for p in state["seats"]:
        assert len(p["rooms"]) == 4 * len(p["cards"])
        assert p["neighbours"] == sum(1 for r in p["rooms"].values() if r["tile"])


def accepted(state, seat, action) -> bool:
    try:
        GAME.play(state, seat, action)
    except IllegalAction:
        return False
    return True


def canonical(state, seat, action):
    """Claims name a chain by any room: compare them by (token, chain)."""
    if action["type"] != "claim_token":
        return json.dumps(action, sort_keys=True)
    feature = state["content"]["tokens"][action["token"]]["feature"]
    o = state["options"]
    chain = next(
        c
        for c in building.chains(
            state["seats"][seat]["rooms"],
            feature,
            o["chain_connectivity"],
            o["closed_chain_absorbs_new_icons"],
        )
        if (action["x"], action["y"]) in c
    )
    return json.dumps(["claim", action["token"], chain])


def brute_force(state, seat):
    """Every action that play accepts among a generous superset of parameters."""
    step = state["step"]
    player = state["seats"][seat]
    candidates: list[dict[str, Any]] = []
    if step == "choose_feature":
        candidates = [
            {"type": "choose_excluded_feature", "feature": f} for f in ("CAT", "UNDERWEAR", "FLOWER", "BIRD")
        ]
    elif step == "place":
        if state["rules"] == "GRID":
            rows = {}
            for c in player["cards"]:
                rows[c["column"]] = rows.get(c["column"], 0) + 1
            candidates = [
                {"type": "place_card", "card": card, "face": face, "column": col, "row": rows.get(col, 0)}
                for card in player["hand"]
                for face in ("FRONT", "BACK")
                for col in range(-4, 5)
            ]
        else:
            xs = [building.coord(k)[0] for k in player["rooms"]] or [0]
            for card in player["hand"]:
                for face in ("FRONT", "BACK"):
                    for x in range(min(xs) - 4, max(xs) + 5):
                        coords = [building.coord(k) for k in player["rooms"]]
                        try:
                            y = building.bb_landing(
                                coords,
                                x,
                                state["options"]["bb_max_width_rooms"],
                                state["options"]["bb_max_height_rooms"],
                            )
                        except IllegalAction:
                            y = 0
                        candidates.append(
                            {"type": "place_card", "card": card, "face": face, "room_x": x, "room_y": y}
                        )
    else:
        coords = [building.coord(k) for k in player["rooms"]]
        if step == "neighbours":
            tiles = [t for t in state["neighbour_market"] if t]
            candidates += [
                {"type": "place_neighbour", "tile": t, "x": x, "y": y} for t in tiles for x, y in coords
            ]
            candidates += [{"type": "place_neighbour", "source": "PILE", "x": x, "y": y} for x, y in coords]
            candidates.append({"type": "end_neighbours"})
        candidates += [
            {"type": "claim_token", "token": t, "x": x, "y": y}
            for t in state["content"]["token_ids"]
            for x, y in coords
        ]
        candidates += [
            {"type": "draw_card", "source": "MARKET", "slot": s} for s in range(len(state["block_market"]))
        ]
        candidates += [{"type": "draw_card", "source": "DECK"}, {"type": "end_turn"}]
    return {canonical(state, seat, a) for a in candidates if accepted(state, seat, a)}


def play_random(data, players, options, check_moves_every=0):
    seed = data.draw(st.integers(min_value=0, max_value=10**6), label="seed")
    state = new_game(players, seed=str(seed), **options)
    start = state
    log = []
    step = 0
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_actions(state, seat)
        assert legal, "the seat to act always has a legal action"
        assert all(GAME.legal_actions(state, other) == [] for other in range(players) if other != seat)
        if check_moves_every and step % check_moves_every == 0:
            listed = {canonical(state, seat, a) for a in legal}
            assert len(listed) == len(legal), "no action listed twice"
            for action in legal:
                assert accepted(state, seat, action), action
            assert listed == brute_force(state, seat)
        action = data.draw(st.sampled_from(legal))
        events = GAME.play(state, seat, action)
        assert events and all(
            e["type"] not in ("match_created", "seed_revealed", "match_scored") for e in events
        )
        log += events
        state = fold(GAME, state, events)
        check_conservation(state)
        step += 1
    assert json.loads(json.dumps(state)) == state
    assert fold(GAME, start, log) == state, "replaying the log gives the live state"
    public = [GAME.event_view(e, None) for e in log]
    assert fold(GAME, start, public) == state, "the spectators' log replays too, once the seed is known"
    assert [e["type"] for e in log[-2:]] == ["final_scoring", "game_over"]
    result = GAME.scores(state)
    assert len(result["scores"]) == len(result["ranks"]) == players
    return state, log


@pytest.mark.parametrize("players, options", CONFIGS, ids=IDS)
@settings(
    max_examples=examples(3),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_random_games_keep_every_card_tile_and_token_in_one_place_and_replay_equal(players, options, data):
    final, _ = play_random(data, players, options)
    assert all(len(p["cards"]) == 12 or p["finished"] for p in final["seats"])


@pytest.mark.parametrize("players, options", CONFIGS, ids=IDS)
@settings(
    max_examples=examples(1),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_the_legal_list_is_complete_and_every_listed_action_is_accepted(players, options, data):
    play_random(data, players, options, check_moves_every=7)


def test_the_five_player_legal_list_in_mid_game_is_small():
    """Mid-game of 5 players: the place step offers 2 cards x 2 faces x at most 5 columns."""
    state = random_playout(
        GAME,
        new_game(5, seed="mid"),
        random.Random(5),
        until=lambda s: len(s["seats"][s["active"]]["cards"]) >= 6 and s["step"] == "place",
    )
    legal = GAME.legal_actions(state, state["active"])
    assert 0 < len(legal) <= 2 * 2 * 5
