"""Chock-a-Block, rule by rule: spec sections 1 to 7 (``service/games/chock_a_block/rules.md``).

Each test is named after the rule it checks and cites the rule number in its docstring. The
rulebooks' own examples are in ``test_chock_a_block_appendix.py`` (Appendix A).

Spec and rulebooks: no rule of the spec's defaults contradicts the rulebook text. Where the two
rulebooks disagree with each other the spec picks one, and the tests say which:
* 5 players (V-3, A-29): KO's parenthesis "the 10th card" contradicts KO's own "second-to-last turn"
  and JA; the engine follows the rulebooks' main statement (no draw after the 11th and 12th cards).
* S-10: KO fixes the excluded feature before the setup, JA after laying out the markets. Fixing it
  at creation (``excluded_feature``) follows KO; the start player's ``choose_excluded_feature`` action,
  after the deal, follows JA.
* A-08: KO's "always 5 cards" in the block market against 4 in both setups: 4.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from service.games.chock_a_block import GAME, autoblock, building, choices, markets
from service.games.chock_a_block.content import default_content
from service.games.chock_a_block.scoring import judge
from service.games.protocol import InvalidOptions, fold
from tests.engines import random_playout
from tests.games.test_chock_a_block_support import (
    A,
    B,
    after_c1,
    after_c2,
    at_step,
    fixture_pack,
    grid_building,
    icons_of,
    inject,
    new_game,
    place,
    play,
    random_game,
    rejected,
    rig,
    rooms_of,
    tile_action,
)


def kinds(moves):
    return [e["type"] for _, _, evs in moves for e in evs]


# -- 1. Components and data model -------------------------------------------------------------------------


def test_1_1_a_full_pack_has_64_cards_40_tiles_12_tokens():
    """1.1: 64 block cards, 40 neighbour tiles, 12 score tokens (the default pack)."""
    content = default_content()
    assert (len(content["card_ids"]), len(content["tile_ids"]), len(content["token_ids"])) == (64, 40, 12)


def test_1_2_1_there_are_exactly_four_features():
    """1.2.1: CAT, UNDERWEAR, FLOWER, BIRD."""
    assert sorted(default_content()["features"]) == ["BIRD", "CAT", "FLOWER", "UNDERWEAR"]


def test_1_2_3_a_vacant_room_has_a_colour_and_belongs_to_its_group():
    """1.2.3, 1.6.4: vacant rooms are members of their same-colour group."""
    rooms = {
        "0,0": {"colour": "PINK", "vacant": True, "features": [], "closed": []},
        "1,0": {"colour": "PINK", "vacant": False, "features": ["CAT"], "closed": []},
    }
    [group] = building.colour_groups(rooms)
    assert group["rooms"] == [(0, 0), (1, 0)] and group["vacant"] == [(0, 0)]


def test_1_2_5_a_room_with_two_features_belongs_to_a_chain_of_each():
    """1.2.5, 1.6.9: a room showing CAT and BIRD is in the CAT chain and in the BIRD chain."""
    state = inject(
        new_game(),
        0,
        {
            (0, 0): ("WHITE", False, ["CAT", "BIRD"]),
            (1, 1): ("WHITE", False, ["CAT"]),
            (1, 0): ("WHITE", False, ["BIRD"]),
        },
    )
    assert building.chains(rooms_of(state, 0), "CAT") == [[(0, 0), (1, 1)]]
    assert building.chains(rooms_of(state, 0), "BIRD") == [[(0, 0), (1, 0)]]


def test_1_3_3_the_back_is_derived_as_the_mirror_of_the_front():
    """1.3.2, 1.3.3 (card_back_mode MIRROR): back.TL = front.TR, back.BL = front.BR and so on."""
    for card in default_content()["cards"].values():
        front, back = card["FRONT"], card["BACK"]
        assert (back["TL"], back["TR"], back["BL"], back["BR"]) == (
            front["TR"],
            front["TL"],
            front["BR"],
            front["BL"],
        )


def test_1_3_5_cards_are_never_rotated_only_two_faces_exist():
    """1.3.5, 1.3.6: a face is FRONT or BACK; anything else is refused, and the action schema has no
    rotation."""
    state = at_step(new_game(seed="r"), 0, "place")
    card = state["seats"][0]["hand"][0]
    assert (
        rejected(state, 0, {"type": "place_card", "card": card, "face": "UPSIDE_DOWN", "column": 0})
        == "unknown_face"
    )
    assert GAME.action_schema().fields["face"].validate.choices == ["FRONT", "BACK"]  # type: ignore[union-attr]


def test_1_3_6_a_symmetric_card_still_accepts_both_faces():
    """1.3.6: when front and back are identical both values are accepted (and listed)."""
    symmetric = {
        "TL": {"colour": "PINK", "vacant": False, "features": ["CAT"]},
        "TR": {"colour": "PINK", "vacant": False, "features": ["CAT"]},
        "BL": {"colour": "BLUE", "vacant": True, "features": []},
        "BR": {"colour": "BLUE", "vacant": True, "features": []},
    }
    state = rig(new_game(2, fixture_pack(cards={"S1": symmetric}), start_seat=0), hands={0: ["S1", "F1"]})
    faces = {a["face"] for a in GAME.legal_actions(state, 0) if a["card"] == "S1"}
    assert faces == {"FRONT", "BACK"}
    for face in faces:
        assert play(state, 0, place("S1", 0, face=face))["seats"][0]["cards"][0]["face"] == face


def test_1_4_4_a_covered_room_never_takes_a_second_tile():
    """1.4.4: after A is covered it is no longer vacant: a second tile on it is refused."""
    state, _ = after_c2()
    state = play(state, 0, tile_action(state, **A))
    assert rejected(state, 0, tile_action(state, **A)) == "not_vacant"


def test_1_5_1_one_token_per_feature_and_value():
    """1.5.1, S-8: the 12 tokens are the pairs of 4 features and 6/8/10, in the supply in order."""
    state = new_game()
    assert state["token_supply"] == [
        f"{f}-{v}" for f in ("CAT", "UNDERWEAR", "FLOWER", "BIRD") for v in (6, 8, 10)
    ]


def test_1_6_2_a_finished_grid_building_is_3_wide_and_4_high():
    """1.6.2, R-1.4: 12 cards, 3 contiguous columns of 4, 6 x 8 rooms."""
    final, _, _ = random_game(3, "r162")
    for player in final["seats"]:
        columns = sorted({c["column"] for c in player["cards"]})
        assert len(player["cards"]) == 12 and columns == list(range(columns[0], columns[0] + 3))
        assert all(sum(c["column"] == col for c in player["cards"]) == 4 for col in columns)
        xs = {building.coord(k)[0] for k in player["rooms"]}
        ys = {building.coord(k)[1] for k in player["rooms"]}
        assert len(player["rooms"]) == 48 and len(xs) == 6 and ys == set(range(8))


def test_1_6_4_colour_groups_connect_through_edges_not_corners():
    """1.6.4, A-21: two pink rooms touching at a corner are two groups (group_connectivity N4)."""
    rooms = {
        "0,0": {"colour": "PINK", "vacant": False, "features": ["CAT"]},
        "1,1": {"colour": "PINK", "vacant": True, "features": []},
    }
    assert len(building.colour_groups(rooms)) == 2
    assert len(building.colour_groups(rooms, "N8")) == 1


def test_1_6_7_chains_connect_through_corners():
    """1.6.7, A-21: two cats touching at a corner are one chain (N8); with N4 they are two."""
    state = inject(new_game(), 0, icons_of("CAT", [(0, 0), (1, 1)]))
    assert building.chains(rooms_of(state, 0), "CAT") == [[(0, 0), (1, 1)]]
    assert len(building.chains(rooms_of(state, 0), "CAT", "N4")) == 2


def test_1_6_10_groups_and_chains_are_derived_never_stored():
    """1.6.10: the state holds rooms only; the view derives groups and chains from them."""
    state, _ = after_c2()
    assert "colour_groups" not in json.dumps(state)
    seat0 = GAME.view(state, 0)["players"][0]
    assert [g["qualifying"] for g in seat0["colour_groups"] if g["colour"] == "PINK"] == [True]
    assert {c["feature"] for c in seat0["open_chains"]} >= {"CAT", "BIRD"}


# -- 2. Setup -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mode, good, bad",
    [
        ("STANDARD", [2, 3, 4, 5], [1]),
        ("SOLO", [1], [2, 3, 4, 5]),
        ("AUTOBLOCK_EXTRA", [2, 3, 4], [1, 5]),
        ("COOP", [2, 3, 4], [1, 5]),
    ],
)
def test_S1_each_mode_has_its_player_counts(mode, good, bad):
    """S-1: STANDARD 2-5, SOLO 1, AUTOBLOCK_EXTRA and COOP 2-4 (Autoblock never joins 5 players)."""
    for players in good:
        assert GAME.resolve_options({"mode": mode}, players)["mode"] == mode
    for players in bad:
        with pytest.raises(InvalidOptions) as error:
            GAME.resolve_options({"mode": mode}, players)
        assert error.value.field == "players"


def test_S1_without_a_mode_one_player_plays_solo_and_more_play_standard():
    """S-1: a 1-player game without Autoblock does not exist, so the default mode follows the count."""
    assert GAME.resolve_options({}, 1)["mode"] == "SOLO"
    assert GAME.resolve_options({}, 4)["mode"] == "STANDARD"


def test_S1_autoblock_options_need_an_autoblock_mode():
    """S-1, S-10, S-11: Grand Autoblock and an excluded feature only where Autoblock plays; Grand
    Autoblock excludes nothing."""
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"grand_autoblock": True}, 2, "options.grand_autoblock"),
        ({"excluded_feature": "CAT"}, 2, "options.excluded_feature"),
        ({"mode": "SOLO", "grand_autoblock": True, "excluded_feature": "CAT"}, 1, "options.excluded_feature"),
        (
            {"mode": "SOLO", "excluded_feature": "CAT", "autoblock_excluded_feature_choice": "RANDOM"},
            1,
            "options.excluded_feature",
        ),
        ({"start_seat": 3}, 3, "options.start_seat"),
        ({"bb_max_width_rooms": 6}, 2, "options.bb_max_width_rooms"),
        ({"mode": "CHESS"}, 2, "options.mode"),
        ({"colour_blind": True}, 2, "options.colour_blind"),
    ]
    for options, players, field in cases:
        with pytest.raises(InvalidOptions) as error:
            GAME.resolve_options(options, players)
        assert error.value.field == field, options


def test_S2_building_rules_are_independent_of_the_mode():
    """S-2: GRID or BUILDING_BLOCK in any mode."""
    state = new_game(1, building_rules="BUILDING_BLOCK", excluded_feature="CAT")
    assert state["rules"] == "BUILDING_BLOCK" and state["mode"] == "SOLO"
    assert all("room_x" in a for a in GAME.legal_actions(state, 0))


def test_S4_S5_the_deal_comes_from_the_seed_only():
    """S-4, S-5: the shuffle depends on the seed and nothing else; two cards per hand."""
    assert new_game(3, seed="same") == new_game(3, seed="same")
    assert new_game(3, seed="same")["deck"] != new_game(3, seed="other")["deck"]
    state = new_game(4, seed="deal")
    everything = state["deck"] + state["block_market"] + [c for p in state["seats"] for c in p["hand"]]
    assert sorted(everything) == sorted(default_content()["card_ids"])


@pytest.mark.parametrize(
    "players, mode, layout",
    [(3, "STANDARD", "ROW"), (1, "SOLO", "COLUMN"), (2, "AUTOBLOCK_EXTRA", "COLUMN"), (3, "COOP", "COLUMN")],
)
def test_S6_markets_are_rows_without_autoblock_and_columns_with_it(players, mode, layout):
    """S-6, S-7, V-10, V-16: ROW in STANDARD, COLUMN whenever Autoblock plays."""
    state = new_game(players, mode=mode, **({} if mode == "STANDARD" else {"excluded_feature": "CAT"}))
    assert state["layout"] == layout


def test_S9_the_start_seat_is_an_option_or_drawn_from_the_seed():
    """S-9, A-09: start_seat if given, else seeded; the single human starts in SOLO."""
    assert new_game(4, start_seat=2)["start_seat"] == 2
    assert new_game(4, start_seat=2)["order"] == [2, 3, 0, 1]
    assert {new_game(4, seed=str(i))["start_seat"] for i in range(20)} == {0, 1, 2, 3}
    assert new_game(1, excluded_feature="CAT")["start_seat"] == 0


def test_S10_the_start_player_chooses_the_excluded_feature_first():
    """S-10 (A-36 PLAYER): with Autoblock at level NORMAL and no feature given, the start player's first
    action is choose_excluded_feature; nothing else is legal before it."""
    state = new_game(3, mode="COOP", start_seat=1)
    assert state["step"] == "choose_feature" and GAME.to_act(state) == [1]
    assert GAME.legal_actions(state, 1) == [
        {"type": "choose_excluded_feature", "feature": f} for f in ("CAT", "UNDERWEAR", "FLOWER", "BIRD")
    ]
    assert rejected(state, 0, {"type": "choose_excluded_feature", "feature": "CAT"}) == "not_your_turn"
    card = state["seats"][1]["hand"][0]
    assert rejected(state, 1, place(card, 0)) == "wrong_step"
    state = play(state, 1, {"type": "choose_excluded_feature", "feature": "BIRD"})
    assert state["autoblock"]["excluded"] == "BIRD" and state["step"] == "place"


def test_S10_the_excluded_feature_can_be_fixed_at_creation_or_drawn():
    """S-10 (A-36): given at creation (KO: before the setup), or RANDOM from the seed."""
    assert new_game(1, excluded_feature="FLOWER")["autoblock"]["excluded"] == "FLOWER"
    drawn = {
        new_game(1, seed=str(i), autoblock_excluded_feature_choice="RANDOM")["autoblock"]["excluded"]
        for i in range(30)
    }
    assert drawn == {"CAT", "UNDERWEAR", "FLOWER", "BIRD"}


def test_S11_grand_autoblock_excludes_no_feature():
    """S-11, V-22: level GRAND, nothing excluded, no choice to make."""
    state = new_game(2, mode="AUTOBLOCK_EXTRA", grand_autoblock=True)
    assert (state["autoblock"]["level"], state["autoblock"]["excluded"], state["step"]) == (
        "GRAND",
        None,
        "place",
    )


def test_S12_S13_everyone_starts_empty():
    """S-12, S-13, 2.6: Autoblock has no tile or token; each human has 2 cards and nothing else."""
    state = new_game(3, mode="COOP", excluded_feature="CAT")
    assert state["autoblock"] == {"level": "NORMAL", "excluded": "CAT", "tiles": [], "tokens": [], "turns": 0}
    for p in state["seats"]:
        assert len(p["hand"]) == 2 and p["cards"] == [] and p["rooms"] == {} and p["tokens"] == []
        assert p["neighbours"] == 0
    assert state["round"] == 1 and state["step"] == "place"


@pytest.mark.parametrize(
    "players, mode, deck_after_setup, left_at_end",
    [
        (1, "SOLO", 58, 39),
        (2, "STANDARD", 56, 38),
        (2, "AUTOBLOCK_EXTRA", 56, 26),
        (3, "STANDARD", 54, 25),
        (3, "COOP", 54, 13),
        (4, "STANDARD", 52, 12),
        (4, "AUTOBLOCK_EXTRA", 52, 0),
        (5, "STANDARD", 50, 4),
    ],
)
def test_2_5_card_arithmetic_per_player_count(players, mode, deck_after_setup, left_at_end):
    """2.5: the deck after the deal and the market of 4, and the cards left in deck + market at the
    end, for every player count with and without Autoblock."""
    extra: dict[str, Any] = {} if mode == "STANDARD" else {"excluded_feature": "CAT"}
    final, moves, start = random_game(players, f"arith{players}{mode}", mode=mode, **extra)
    assert len(start["deck"]) == deck_after_setup
    assert len(final["deck"]) + len([c for c in final["block_market"] if c]) == left_at_end
    assert "supply_empty" not in [
        e["data"]["draw_skipped"] for _, _, evs in moves for e in evs if e["type"] == "turn_ended"
    ]


# -- 3. Turn structure ------------------------------------------------------------------------------------------


def test_R0_1_humans_play_in_turn_order_then_autoblock():
    """R-0.1, 0.4.3, A-37: each round every human plays once from the start seat, then Autoblock."""
    _, moves, _ = random_game(3, "r01", mode="AUTOBLOCK_EXTRA", start_seat=2, excluded_feature="CAT")
    sequence = [
        ("h", e["seat"]) if e["type"] == "turn_ended" else ("ab", None)
        for _, _, evs in moves
        for e in evs
        if e["type"] in ("turn_ended", "autoblock_turn")
    ]
    assert sequence == [("h", 2), ("h", 0), ("h", 1), ("ab", None)] * 12


def test_R0_2_the_four_steps_come_in_order():
    """R-0.2: place, then neighbours, then tokens, then the draw; a later step's action is refused early."""
    state = new_game(2, fixture_pack(), start_seat=0)
    assert state["step"] == "place"
    assert rejected(state, 0, {"type": "draw_card", "source": "DECK"}) == "wrong_step"
    assert rejected(state, 0, {"type": "end_turn"}) == "wrong_step"
    assert rejected(state, 0, {"type": "claim_token", "token": "CAT-6", "x": 0, "y": 0}) == "wrong_step"
    state = play(state, 0, place(state["seats"][0]["hand"][0], 0))
    assert state["step"] == "tokens"
    assert rejected(state, 0, place(state["seats"][0]["hand"][0], 1)) == "wrong_step"


def test_R0_3_every_human_takes_exactly_12_turns():
    """R-0.3, E-1: turn k places the k-th card; 12 turns each."""
    _, moves, _ = random_game(4, "r03")
    placements = [e["data"]["placement"] for _, _, evs in moves for e in evs if e["type"] == "card_placed"]
    assert placements == [k for k in range(1, 13) for _ in range(4)]


def test_R0_4_no_action_outside_ones_own_turn():
    """R-0.4: the other seats have no legal action and are refused."""
    state = new_game(3, start_seat=0)
    assert GAME.legal_actions(state, 1) == [] and GAME.legal_actions(state, 2) == []
    assert rejected(state, 1, place(state["seats"][1]["hand"][0], 0)) == "not_your_turn"


def test_R1_1_the_card_must_come_from_ones_hand():
    """R-1.1: a card that is not in the hand is refused; every hand card on both faces is offered."""
    state = new_game(2, start_seat=0)
    other = state["seats"][1]["hand"][0]
    assert rejected(state, 0, place(other, 0)) == "not_in_hand"
    assert rejected(state, 0, place(state["block_market"][0], 0)) == "not_in_hand"
    offered = {(a["card"], a["face"]) for a in GAME.legal_actions(state, 0)}
    assert offered == {(c, f) for c in state["seats"][0]["hand"] for f in ("FRONT", "BACK")}


def test_R1_4_legal_columns_are_listed_with_their_rows():
    """R-1.4: the legal list names every legal column with the row the card lands in."""
    state = at_step(grid_building(new_game(2, start_seat=0), 0, [0, 0, 1]), 0, "place")
    spots = sorted({(a["column"], a["row"]) for a in GAME.legal_actions(state, 0)})
    assert spots == [(-1, 0), (0, 2), (1, 1), (2, 0)]


def test_R1_6_a_placement_moves_the_card_into_the_building():
    """R-1.6: the card leaves the hand, its four rooms join the building, placements grow by one."""
    state = new_game(2, start_seat=0)
    card = state["seats"][0]["hand"][0]
    after = play(state, 0, place(card, 0, face="BACK"))
    assert card not in after["seats"][0]["hand"] and len(after["seats"][0]["cards"]) == 1
    assert sorted(after["seats"][0]["rooms"]) == ["0,0", "0,1", "1,0", "1,1"]
    assert {r["card"] for r in after["seats"][0]["rooms"].values()} == {card}


def test_R2_3_any_market_tile_on_any_vacant_room_of_a_qualifying_group():
    """R-2.3: the legal list is every market tile times every vacant room of a qualifying group."""
    state, _ = after_c2()
    listed = {(a["tile"], a["x"], a["y"]) for a in GAME.legal_actions(state, 0)}
    assert listed == {(t, x, y) for t in state["neighbour_market"] for x, y in ((0, 0), (1, 1))}


def test_R2_3_the_tile_comes_from_the_market_and_goes_on_a_vacant_room():
    """R-2.3, A-19: a pile tile is refused (tile_not_in_market), so is an occupied room (not_vacant)."""
    state, _ = after_c2()
    assert (
        rejected(state, 0, {"type": "place_neighbour", "tile": state["tile_pile"][0], **A})
        == "tile_not_in_market"
    )
    assert rejected(state, 0, {"type": "place_neighbour", "source": "PILE", **A}) == "tile_not_in_market"
    assert rejected(state, 0, tile_action(state, x=1, y=0)) == "not_vacant"
    assert rejected(state, 0, tile_action(state, x=9, y=9)) == "not_vacant"


def test_R2_3_a_neighbour_must_move_in_while_a_group_qualifies():
    """R-2.3, A-15: the neighbour step has no way out but a tile (neighbour_mandatory); with
    neighbour_mandatory false the player may end it."""
    state, _ = after_c2()
    assert {a["type"] for a in GAME.legal_actions(state, 0)} == {"place_neighbour"}
    assert rejected(state, 0, {"type": "end_neighbours"}) == "neighbour_mandatory"
    optional, _ = after_c2(neighbour_mandatory=False)
    assert {"type": "end_neighbours"} in GAME.legal_actions(optional, 0)
    after = play(optional, 0, {"type": "end_neighbours"})
    assert after["step"] != "neighbours" and after["seats"][0]["neighbours"] == 0


def test_R2_4_a_tile_adds_a_neighbour_and_can_split_the_group():
    """R-2.4: neighbourCount grows by one; the covered room leaves its colour group."""
    state, _ = after_c2()
    after = play(state, 0, tile_action(state, **B))
    assert after["seats"][0]["neighbours"] == 1
    assert len([g for g in building.colour_groups(rooms_of(after, 0)) if g["colour"] == "PINK"]) == 2


def test_R2_7_the_lapsed_obligation_does_not_come_back():
    """R-2.7, A-17: after a lapse, the qualifying group stays uncovered and later turns do not reopen it."""
    state, _ = after_c1()
    state = play(state, 0, {"type": "draw_card", "source": "MARKET", "slot": 0})
    state = play(state, 1, place(state["seats"][1]["hand"][0], 0))
    state = play(state, 1, {"type": "draw_card", "source": "MARKET", "slot": 0})
    state = play({**state, "neighbour_market": [None] * 5, "tile_pile": []}, 0, place("C2", 1))
    assert building.qualifying_groups(rooms_of(state, 0), 4)
    assert state["step"] == "tokens"


def test_R2_9_nothing_else_is_legal_during_the_neighbour_step():
    """R-2.9: only tiles (tokens wait for step 3, A-24); with token_claim_window ANY_TIME_IN_TURN a
    claim is accepted during step 2."""
    state, _ = after_c2()
    chain = icons_of("CAT", [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4), (5, 4)])
    state = inject(state, 0, chain, keep=True)
    assert rejected(state, 0, {"type": "claim_token", "token": "CAT-6", "x": 0, "y": 4}) == "wrong_step"
    anytime = {**state, "options": {**state["options"], "token_claim_window": "ANY_TIME_IN_TURN"}}
    assert {"type": "claim_token", "token": "CAT-6", "x": 0, "y": 4} in GAME.legal_actions(anytime, 0)
    after = play(anytime, 0, {"type": "claim_token", "token": "CAT-6", "x": 0, "y": 4})
    assert after["step"] == "neighbours" and after["seats"][0]["tokens"][0]["token"] == "CAT-6"


def test_R3_2_claiming_is_optional():
    """R-3.2: with a claimable chain the player may still draw straight away."""
    state = at_step(
        inject(new_game(2), 0, icons_of("CAT", [(x, 0) for x in range(6)])),
        0,
        "tokens",
        cards=[{"card": "X"}],
    )
    legal = GAME.legal_actions(state, 0)
    assert {"type": "claim_token", "token": "CAT-6", "x": 0, "y": 0} in legal
    after = play(state, 0, {"type": "draw_card", "source": "DECK"})
    assert after["seats"][0]["tokens"] == [] and GAME.to_act(after) == [1]


def test_R3_10_each_claim_is_checked_after_the_previous_ones():
    """R-3.10, R-3.9: after CAT-6 closes a chain of 10, CAT-10 on it is refused."""
    state = at_step(
        inject(new_game(2), 0, icons_of("CAT", [(x, y) for x in range(5) for y in range(2)])),
        0,
        "tokens",
        cards=[{"card": "X"}],
    )
    state = play(state, 0, {"type": "claim_token", "token": "CAT-6", "x": 0, "y": 0})
    assert rejected(state, 0, {"type": "claim_token", "token": "CAT-10", "x": 0, "y": 0}) == "no_open_icon"
    assert not [a for a in GAME.legal_actions(state, 0) if a["type"] == "claim_token"]


def test_R4_1_the_draw_is_skipped_when_deck_and_market_are_empty():
    """R-4.1b, A-30: with nothing to draw, the turn ends without a draw (here by auto_advance: no token
    can be claimed)."""
    state = new_game(2, fixture_pack(), start_seat=0)
    state = {**state, "deck": [], "block_market": [None] * 4}
    evs = GAME.play(state, 0, place(state["seats"][0]["hand"][0], 0))
    assert choices.draw_skip_reason(fold(GAME, state, evs[:1]), 0) == "supply_empty"
    assert evs[-1] == {
        "type": "turn_ended",
        "seat": 0,
        "data": {"placement": 1, "drew": False, "draw_skipped": "supply_empty"},
    }


def test_R4_4_the_draw_ends_the_turn():
    """R-4.4, AE-6: after a draw the next seat is active, in step 1."""
    state = new_game(3, fixture_pack(), start_seat=1)
    state = play(state, 1, place(state["seats"][1]["hand"][0], 0))
    assert (state["active"], state["step"]) == (1, "tokens")
    state = play(state, 1, {"type": "draw_card", "source": "DECK"})
    assert (state["active"], state["step"]) == (2, "place")


def test_R4_5_end_turn_only_when_the_draw_does_not_apply():
    """R-4.5: end_turn is refused while the draw applies (must_draw)."""
    state = at_step(new_game(2), 0, "tokens", cards=[{"card": "X"}])
    assert rejected(state, 0, {"type": "end_turn"}) == "must_draw"
    assert {"type": "end_turn"} not in GAME.legal_actions(state, 0)


def test_R4_5_auto_advance_ends_a_turn_with_nothing_left_to_do():
    """R-4.5: with auto_advance the engine ends the 12th turn itself when no token is claimable; with
    auto_advance false the player sends end_turn."""
    for auto in (True, False):
        state = at_step(
            new_game(2, fixture_pack(), start_seat=0, auto_advance=auto),
            0,
            "place",
            cards=[
                {"card": "X", "column": c, "row": r} for c in range(3) for r in range(4) if (c, r) != (2, 3)
            ],
        )
        evs = GAME.play(state, 0, place(state["seats"][0]["hand"][0], 2))
        assert ("turn_ended" in [e["type"] for e in evs]) is auto
        if not auto:
            assert GAME.legal_actions(fold(GAME, state, evs), 0) == [{"type": "end_turn"}]


def test_R4_6_one_card_is_left_in_hand_with_1_to_4_players():
    """R-4.6: 2 cards at the start of every turn; one unplayed card at the end."""

    def two_cards_to_place_from(state, seat, action, played):
        if state["step"] == "place":
            assert len(state["seats"][seat]["hand"]) == 2

    state = random_playout(GAME, new_game(3, seed="r46"), random.Random(46), two_cards_to_place_from)
    assert [len(p["hand"]) for p in state["seats"]] == [1, 1, 1]


# -- 4. Automatic effects -------------------------------------------------------------------------------------


def test_AE3_a_row_slot_takes_the_source_top_or_stays_empty():
    """AE-3, A-30: ROW refill puts the source top into the emptied slot; an empty source leaves it empty."""
    assert markets.refill(["a", None, "c"], ["d", "e"], 1, False) == (["a", "d", "c"], ["e"], "d")
    assert markets.refill(["a", None, "c"], [], 1, False) == (["a", None, "c"], [], None)


def test_AE4_column_markets_slide_down_and_stay_bottom_aligned():
    """AE-4: items above the gap slide down; the source top fills slot 0; an empty source leaves a gap
    at the top, so occupied slots stay a bottom-aligned run."""
    assert markets.refill(["a", "b", None, "d"], ["e"], 2, True) == (["e", "a", "b", "d"], [], "e")
    market, _source, _ = markets.refill(["a", "b", None, "d"], [], 2, True)
    assert market == [None, "a", "b", "d"]
    market, _source, _ = markets.refill([None, "a", None, "d"], [], 2, True)
    assert market == [None, None, "a", "d"] and markets.bottom_slot(market) == 3


def test_AE7_autoblock_skips_an_empty_market():
    """AE-7, A-43: with both markets empty Autoblock discards and takes nothing, and still takes its turn."""
    state = new_game(1, fixture_pack(), excluded_feature="CAT", seed="ae7")
    state = play(state, 0, place(state["seats"][0]["hand"][0], 0))
    assert state["step"] == "tokens"
    state = {**state, "block_market": [None] * 4, "deck": [], "neighbour_market": [None] * 5, "tile_pile": []}
    evs = GAME.play(state, 0, {"type": "end_turn"})
    kinds_ = [e["type"] for e in evs]
    assert "autoblock_discarded" not in kinds_ and "autoblock_took_tile" not in kinds_
    assert fold(GAME, state, evs)["autoblock"]["turns"] == 1


def test_AE8_autoblock_rechooses_tokens_for_each_scored_feature():
    """AE-8, A-44: budgets are points_per_icon per icon, per feature; the excluded feature is never scored."""
    content = fixture_pack(tiles=40)
    tiles = {f: [t for t in content["tile_ids"] if content["tiles"][t] == [f]] for f in content["features"]}
    ab = {
        "level": "NORMAL",
        "excluded": "BIRD",
        "tiles": tiles["CAT"][:3] + tiles["FLOWER"][:5] + tiles["BIRD"][:5],
        "tokens": [],
        "turns": 0,
    }
    returned, taken = autoblock.token_plan(ab, list(content["token_ids"]), content, "GREEDY_DESCENDING", 2)
    assert (returned, taken) == ([], ["CAT-6", "FLOWER-10"])
    assert autoblock.token_plan(ab, list(content["token_ids"]), content, "GREEDY_DESCENDING", 3)[1] == [
        "CAT-8",
        "FLOWER-10",
    ]


def test_AE9_running_the_token_procedure_again_changes_nothing():
    """AE-9: with the same icons, AE-8 run again keeps Autoblock's tokens."""
    content = fixture_pack(tiles=40)
    cats = [t for t in content["tile_ids"] if content["tiles"][t] == ["CAT"]]
    for count in range(10):
        ab = {"level": "GRAND", "excluded": None, "tiles": cats[:count], "tokens": [], "turns": 0}
        supply = list(content["token_ids"])
        _, taken = autoblock.token_plan(ab, supply, content, "GREEDY_DESCENDING", 2)
        again = autoblock.token_plan(
            {**ab, "tokens": taken}, [t for t in supply if t not in taken], content, "GREEDY_DESCENDING", 2
        )
        assert again == ([], [])


def test_AE10_the_game_ends_with_final_scoring_then_game_over():
    """AE-10, E-9: after the last human turn (and Autoblock's 12th) come final_scoring and game_over."""
    final, moves, _ = random_game(1, "ae10", excluded_feature="CAT")
    assert kinds(moves)[-3:] == ["autoblock_turn", "final_scoring", "game_over"]
    assert final["autoblock"]["turns"] == 12 and GAME.is_over(final) and GAME.to_act(final) == []
    assert GAME.legal_actions(final, 0) == []
    assert rejected(final, 0, {"type": "end_turn"}) == "game_over"


# -- 5. Scoring ------------------------------------------------------------------------------------------------


def test_E3_chains_of_1_to_3_and_closed_chains_score_nothing():
    """E-3, E-5: an open chain of 3 scores 0; a closed chain scores only its token."""
    rooms = icons_of("CAT", [(0, 0), (1, 0), (2, 0)])
    rooms.update({(x, 4): ("WHITE", False, ["BIRD"], ["BIRD"]) for x in range(6)})
    state = inject(new_game(), 0, rooms)
    assert GAME.scores(state)["scores"][0] == 0


def test_E3_open_chain_min_size_and_points_are_options():
    """E-3, A-32: open_chain_min_size and open_chain_points."""
    rooms = icons_of("CAT", [(0, 0), (1, 0), (2, 0)])
    assert (
        GAME.scores(inject(new_game(open_chain_min_size=3, open_chain_points=5), 0, rooms))["scores"][0] == 5
    )


def test_E5_cards_left_in_hand_score_nothing_by_default():
    """E-5, A-34: leftover_card_points 0; with 2 each of 2 cards scores 4."""
    assert GAME.scores(new_game())["scores"] == [0, 0]
    assert GAME.scores(new_game(leftover_card_points=2))["scores"] == [4, 4]


def test_E6_autoblock_scores_its_tokens_and_never_open_chains():
    """E-6: Autoblock's total is its tokens' sum; it has no building."""
    state = new_game(2, mode="AUTOBLOCK_EXTRA", excluded_feature="CAT")
    state = {**state, "autoblock": {**state["autoblock"], "tokens": ["BIRD-10", "FLOWER-6"]}}
    ab = GAME.scores(state)["breakdown"]["autoblock"]
    assert ab["total"] == 16 and [t["token"] for t in ab["tokens"]] == ["BIRD-10", "FLOWER-6"]


def test_E7_tie_break_shared_ignores_neighbours():
    """E-7, A-33: with tie_break SHARED equal scores share the rank whatever the neighbours."""
    state = new_game(3, tie_break="SHARED")
    seats = [{**p, "neighbours": n} for p, n in zip(state["seats"], (5, 3, 0))]
    assert GAME.scores({**state, "seats": seats})["ranks"] == [1, 1, 1]
    assert GAME.scores(
        {**state, "seats": seats, "options": {**state["options"], "tie_break": "NEIGHBOURS_THEN_SHARED"}}
    )["ranks"] == [1, 2, 3]


def test_E8_autoblock_is_ranked_among_the_humans_in_autoblock_extra():
    """E-8 (A-38): Autoblock above every human it ties with (HUMAN_MUST_EXCEED); NEIGHBOUR_TIEBREAK
    compares its tiles with the humans' neighbours."""
    options = GAME.resolve_options({"mode": "AUTOBLOCK_EXTRA"}, 3)
    keys = [(30, 2), (20, 0), (10, 0)]
    ranks, outcome, ab_rank = judge("AUTOBLOCK_EXTRA", keys, (20, 4), options)
    assert ranks == [1, 3, 4] and ab_rank == 2 and outcome["winners"] == [0]
    ranks, _, ab_rank = judge(
        "AUTOBLOCK_EXTRA",
        [(20, 5), (20, 1)],
        (20, 3),
        {**options, "autoblock_tie_rule": "NEIGHBOUR_TIEBREAK"},
    )
    assert ranks == [1, 3] and ab_rank == 2
    ranks, outcome, ab_rank = judge(
        "SOLO", [(20, 5)], (20, 3), {**options, "autoblock_tie_rule": "NEIGHBOUR_TIEBREAK"}
    )
    assert ranks == [1] and outcome["human_wins"] and ab_rank == 2


def test_E9_final_scoring_is_itemised_in_the_log():
    """E-9: final_scoring carries each token with its chain's rooms, each scoring open chain, totals and
    neighbour counts; game_over carries the ranks."""
    final, moves, _ = random_game(2, "e9", open_chain_min_size=2)
    last = [e for _, _, evs in moves for e in evs][-2:]
    assert [e["type"] for e in last] == ["final_scoring", "game_over"]
    breakdown = last[0]["data"]["breakdown"]["players"]
    for p, total in zip(breakdown, last[0]["data"]["scores"]):
        assert p["total"] == sum(t["value"] for t in p["tokens"]) + sum(c["points"] for c in p["open_chains"])
        assert p["total"] == total and "neighbours" in p
        assert all(c["size"] >= 2 and c["rooms"] for c in p["open_chains"])
    assert last[1]["data"]["ranks"] == GAME.scores(final)["ranks"]


# -- 6. Variants and solo modes -------------------------------------------------------------------------------------


def test_V3_the_five_player_rule_follows_the_rulebooks_main_statement():
    """V-1 to V-3, A-29 (rulebook vs rulebook): KO's parenthesis says draws stop from "the 10th card",
    but KO's own sentence and JA say "from the second-to-last turn", i.e. the 11th; the engine follows
    the latter: draws after placements 1-10 (five_player_last_draw_placement = 10)."""
    assert GAME.resolve_options({}, 5)["five_player_last_draw_placement"] == 10
    state = at_step(new_game(5), 0, "tokens", cards=[{"card": "X"}] * 10)
    assert choices.draw_skip_reason(state, 0) is None
    state = at_step(new_game(5), 0, "tokens", cards=[{"card": "X"}] * 11)
    assert choices.draw_skip_reason(state, 0) == "last_turns"


def test_V5_building_block_limits():
    """V-5, A-13: bb_max_height_rooms and bb_max_width_rooms, when set, bound landings."""
    state = new_game(
        2, start_seat=0, building_rules="BUILDING_BLOCK", bb_max_height_rooms=4, bb_max_width_rooms=4
    )
    state = at_step(
        inject(state, 0, {(x, y): ("WHITE", False, ["CAT"]) for x in range(2) for y in range(4)}), 0, "place"
    )
    hand = state["seats"][0]["hand"][0]
    assert (
        rejected(state, 0, {"type": "place_card", "card": hand, "face": "FRONT", "room_x": 0})
        == "height_limit"
    )
    assert (
        play(state, 0, {"type": "place_card", "card": hand, "face": "FRONT", "room_x": -2})["seats"][0][
            "cards"
        ][-1]["room_y"]
        == 0
    )
    assert (
        rejected(state, 0, {"type": "place_card", "card": hand, "face": "FRONT", "room_x": 3})
        == "not_adjacent"
    )
    wide = at_step(inject(state, 0, {(x, 0): ("WHITE", False, ["CAT"]) for x in range(3)}), 0, "place")
    assert (
        rejected(wide, 0, {"type": "place_card", "card": hand, "face": "FRONT", "room_x": 3}) == "width_limit"
    )
    assert (
        rejected(state, 0, {"type": "place_card", "card": hand, "face": "FRONT", "column": 0}) == "misaligned"
    )
    assert (
        rejected(state, 0, {"type": "place_card", "card": hand, "face": "FRONT", "room_x": 2, "room_y": 2})
        == "no_floor_below"
    )


def test_V6_V7_building_block_landings_are_even_and_games_last_12_placements():
    """V-6, V-7: every card lands at an even height and every player places 12 cards."""
    final, _, _ = random_game(3, "v6", building_rules="BUILDING_BLOCK")
    for player in final["seats"]:
        assert len(player["cards"]) == 12 and all(c["room_y"] % 2 == 0 for c in player["cards"])
        coords = {building.coord(k) for k in player["rooms"]}
        for c in player["cards"]:  # a card rests on the ground or on a room
            assert (
                c["room_y"] == 0
                or {(c["room_x"], c["room_y"] - 1), (c["room_x"] + 1, c["room_y"] - 1)} & coords
            )


def test_V8_a_player_with_no_legal_placement_is_finished():
    """V-8, A-14: with both limits set a player can get stuck; they skip their remaining turns and the
    game still ends after 12 rounds."""
    final, moves, _ = random_game(
        2, "v8", building_rules="BUILDING_BLOCK", bb_max_width_rooms=4, bb_max_height_rooms=4
    )
    finished = [e for _, _, evs in moves for e in evs if e["type"] == "player_finished"]
    assert {e["seat"] for e in finished} == {0, 1}
    assert all(e["data"]["reason"] == "no_legal_placement" for e in finished)
    assert GAME.is_over(final) and all(len(p["cards"]) < 12 for p in final["seats"])


def test_V11_solo_deck_draws_can_be_switched_off():
    """V-11, A-41: solo_deck_draw_allowed false (JA pictures market draws only)."""
    state = at_step(
        new_game(1, excluded_feature="CAT", solo_deck_draw_allowed=False), 0, "tokens", cards=[{"card": "X"}]
    )
    assert {"type": "draw_card", "source": "DECK"} not in GAME.legal_actions(state, 0)
    assert rejected(state, 0, {"type": "draw_card", "source": "DECK"}) == "deck_draw_not_allowed"
    allowed = at_step(new_game(1, excluded_feature="CAT"), 0, "tokens", cards=[{"card": "X"}])
    assert {"type": "draw_card", "source": "DECK"} in GAME.legal_actions(allowed, 0)


def test_V12_V13_autoblock_plays_after_each_human_turn_for_12_rounds():
    """V-12, V-13: solo: 12 human turns, each followed by an Autoblock turn."""
    _, moves, _ = random_game(1, "v12", excluded_feature="FLOWER")
    sequence = [
        e["type"]
        for e in (e for _, _, evs in moves for e in evs)
        if e["type"] in ("turn_ended", "autoblock_turn")
    ]
    assert sequence == ["turn_ended", "autoblock_turn"] * 12


def test_V16_autoblock_with_row_markets_takes_the_last_occupied_slot():
    """V-16, A-42: column_markets_with_autoblock false: ROW markets; Autoblock removes the last
    occupied slot and the slot is refilled in place."""
    state = new_game(
        2, mode="AUTOBLOCK_EXTRA", excluded_feature="CAT", column_markets_with_autoblock=False, seed="v16"
    )
    assert state["layout"] == "ROW"
    _final, moves, _ = random_game(
        2, "v16", mode="AUTOBLOCK_EXTRA", excluded_feature="CAT", column_markets_with_autoblock=False
    )
    discards = [e["data"]["slot"] for _, _, evs in moves for e in evs if e["type"] == "autoblock_discarded"]
    assert discards and all(slot == 3 for slot in discards)


def test_V18_the_five_player_rule_does_not_count_autoblock_unless_asked():
    """V-18, A-40: 4 players + Autoblock draw as in a 4-player game; five_player_rule_counts_autoblock
    applies the 5-player rule."""
    state = at_step(
        new_game(4, mode="AUTOBLOCK_EXTRA", excluded_feature="CAT"), 0, "tokens", cards=[{"card": "X"}] * 11
    )
    assert choices.draw_skip_reason(state, 0) is None
    counted = at_step(
        new_game(4, mode="AUTOBLOCK_EXTRA", excluded_feature="CAT", five_player_rule_counts_autoblock=True),
        0,
        "tokens",
        cards=[{"card": "X"}] * 11,
    )
    assert choices.draw_skip_reason(counted, 0) == "last_turns"


def test_V21_coop_hands_are_hidden_unless_opened():
    """V-21: in COOP hands stay hidden; coop_open_hands shows them to everyone."""
    hidden = new_game(3, mode="COOP", excluded_feature="CAT")
    assert GAME.view(hidden, 0)["players"][1]["hand"] is None
    opened = new_game(3, mode="COOP", excluded_feature="CAT", coop_open_hands=True)
    assert GAME.view(opened, 0)["players"][1]["hand"] == opened["seats"][1]["hand"]
    assert GAME.view(new_game(3, open_hands=True), None)["players"][2]["hand"] is not None


def test_V22_grand_autoblock_scores_every_feature_in_every_autoblock_mode():
    """V-22, 6.6: Grand Autoblock in COOP."""
    final, moves, _ = random_game(2, "v22", mode="COOP", grand_autoblock=True)
    assert final["autoblock"]["level"] == "GRAND" and final["autoblock"]["excluded"] is None
    assert "choose_excluded_feature" not in {a["type"] for _, a, _ in moves}


# -- 7. Options with other readings ---------------------------------------------------------------------------


def test_A08_market_size_is_an_option():
    """A-08: market_size (KO's "5" slip)."""
    state = new_game(2, market_size=5)
    assert len(state["block_market"]) == 5 and len(state["deck"]) == 64 - 4 - 5


def test_A11_grid_size_options_change_the_game_length():
    """A-11: a 2 x 2 grid lasts 4 turns per player."""
    final, _, _ = random_game(2, "a11", grid_max_columns=2, grid_max_rows=2)
    assert all(len(p["cards"]) == 4 for p in final["seats"]) and final["rounds"] == 4


def test_A12_a_wrong_row_is_ignored_without_strict_row_check():
    """A-12: strict_row_check false."""
    state = at_step(new_game(2, start_seat=0, strict_row_check=False), 0, "place")
    after = play(state, 0, place(state["seats"][0]["hand"][0], 0, row=3))
    assert after["seats"][0]["cards"][0]["row"] == 0


def test_A18_the_neighbour_threshold_is_an_option():
    """A-18: with neighbour_group_min 3 the pink group of 3 after C1 already calls for a neighbour."""
    state, evs = after_c1(neighbour_group_min=3)
    assert state["step"] == "neighbours" and evs[-1]["type"] == "card_placed"


def test_A19_tiles_from_the_pile_top_when_allowed():
    """A-19: neighbour_tile_source MARKET_OR_PILE_TOP lets the player place the unseen pile top."""
    state, _ = after_c2(neighbour_tile_source="MARKET_OR_PILE_TOP")
    assert {"type": "place_neighbour", "source": "PILE", **A} in GAME.legal_actions(state, 0)
    top = state["tile_pile"][0]
    evs = GAME.play(state, 0, {"type": "place_neighbour", "source": "PILE", **A})
    assert evs[0]["data"]["tile"] == top and "market_refilled" not in [e["type"] for e in evs[:2]]
    assert fold(GAME, state, evs)["tile_pile"][:1] != [top]


def test_A20_tiles_need_not_count_for_chains():
    """A-20: tiles_count_for_chains false: the tile removes the colour but brings no icon."""
    state, _ = after_c2(tiles_count_for_chains=False)
    after = play(state, 0, tile_action(state, **A))
    assert rooms_of(after, 0)["0,0"]["features"] == [] and rooms_of(after, 0)["0,0"]["tile"]


def test_A27_market_only_draws():
    """A-27: draw_sources MARKET_ONLY."""
    state = at_step(new_game(2, draw_sources="MARKET_ONLY"), 0, "tokens", cards=[{"card": "X"}])
    assert all(a.get("source") == "MARKET" for a in GAME.legal_actions(state, 0))
    assert rejected(state, 0, {"type": "draw_card", "source": "DECK"}) == "deck_draw_not_allowed"


def test_A31_row_markets_can_slide():
    """A-31: row_market_slide true makes a row market slide like a column."""
    state = at_step(new_game(2, row_market_slide=True), 0, "tokens", cards=[{"card": "X"}])
    m, d1 = list(state["block_market"]), state["deck"][0]
    after = play(state, 0, {"type": "draw_card", "source": "MARKET", "slot": 2})
    assert after["block_market"] == [d1, m[0], m[1], m[3]]


def test_invalid_parameters_are_refused_with_a_reason():
    """8.2: unknown types, sources and slots have their own codes."""
    state = at_step(new_game(2), 0, "tokens", cards=[{"card": "X"}])
    assert rejected(state, 0, {"type": "teleport"}) == "unknown_action"
    assert rejected(state, 0, {"type": "draw_card", "source": "SLEEVE"}) == "unknown_source"
    assert rejected(state, 0, {"type": "draw_card", "source": "MARKET", "slot": 9}) == "slot_empty"
    assert rejected(state, 0, {"type": "draw_card", "source": "MARKET"}) == "missing_parameter"
