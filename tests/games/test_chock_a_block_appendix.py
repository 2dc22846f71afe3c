"""Chock-a-Block, spec Appendix A: the acceptance tests taken from the rulebooks' examples, T-1 to T-44.

Each test is named after its T-number and says what it checks; "(inject)" tests set a building's
rooms directly (``inject``) with a TEST_FIXTURE pack or the default pack, as the spec's fixture
notes say. Defaults of spec 7.11 apply unless a test names an option.
"""

from __future__ import annotations

import random

from service.games.chock_a_block import GAME, autoblock, building, scoring
from service.games.protocol import fold
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
    placed,
    play,
    random_game,
    rejected,
    rig,
    rooms_of,
    tile_action,
)

# -- A.1 setup and card arithmetic ----------------------------------------------------------------


def test_T01_three_player_setup_counts():
    """T-1 (S-4 to S-8): 2 cards per hand, market 4, deck 54, neighbour market 5, pile 35, 12 tokens."""
    state = new_game(3)
    assert [len(p["hand"]) for p in state["seats"]] == [2, 2, 2]
    assert len([c for c in state["block_market"] if c]) == 4
    assert len(state["deck"]) == 54
    assert len([t for t in state["neighbour_market"] if t]) == 5
    assert len(state["tile_pile"]) == 35
    assert len(state["token_supply"]) == 12


def test_T02_five_players_draw_after_placements_1_to_10_only():
    """T-2 (V-1, V-2): with 5 players nobody draws after the 11th or 12th placement; hands hold 1 card
    at the start of turn 12 and none at the end; 4 cards are left in deck + market; no draw fails."""

    def no_draw_after_the_tenth_placement(state, seat, action, evs):
        if state["step"] == "place" and len(state["seats"][seat]["cards"]) == 11:
            assert len(state["seats"][seat]["hand"]) == 1
        for e in evs:
            if e["type"] == "turn_ended":
                assert e["data"]["drew"] == (e["data"]["placement"] <= 10)
                assert e["data"]["draw_skipped"] in (None, "last_turns")

    state = random_playout(GAME, new_game(5, seed="t2"), random.Random(2), no_draw_after_the_tenth_placement)
    assert all(p["hand"] == [] and len(p["cards"]) == 12 for p in state["seats"])
    assert len(state["deck"]) + len([c for c in state["block_market"] if c]) == 4


def test_T03_a_draw_after_the_11th_placement_would_run_out_with_5_players():
    """T-3 (A-30, A-29): with five_player_last_draw_placement = 11 the 55th draw finds deck and
    market empty and is skipped, which is why the default is 10."""
    final, moves, _ = random_game(5, "t3", five_player_last_draw_placement=11)
    ended = [e["data"] for _, _, evs in moves for e in evs if e["type"] == "turn_ended"]
    drawn = [e for _, _, evs in moves for e in evs if e["type"] == "card_drawn"]
    assert len(drawn) == 54
    assert [e["draw_skipped"] for e in ended if e["placement"] <= 11].count("supply_empty") == 1
    assert all(len(p["cards"]) == 12 for p in final["seats"])


def test_T04_no_draw_on_a_players_12th_turn():
    """T-4 (R-4.1, R-4.5): 2 players, 12th turn: draw_card is refused, end_turn accepted, 1 card stays."""
    state = random_playout(
        GAME,
        new_game(2, seed="t4", auto_advance=False),
        random.Random(4),
        until=lambda s: s["step"] == "tokens" and len(s["seats"][s["active"]]["cards"]) == 12,
    )
    seat = GAME.to_act(state)[0]
    assert rejected(state, seat, {"type": "draw_card", "source": "DECK"}) == "no_draw"
    assert rejected(state, seat, {"type": "draw_card", "source": "MARKET", "slot": 0}) == "no_draw"
    state = play(state, seat, {"type": "end_turn"})
    assert len(state["seats"][seat]["hand"]) == 1


# -- A.2 card placement ---------------------------------------------------------------------------


def placing(columns=(), seat=0, rules="GRID", **options):
    state = new_game(2, seed="a2", start_seat=seat, building_rules=rules, **options)
    if rules == "GRID":
        state = grid_building(state, seat, columns)
    return at_step(state, seat, "place")


def test_T05_first_card_goes_in_column_0():
    """T-5 (R-1.4a): column 1 on an empty building is refused; column 0 lands in slot (0, 0)."""
    state = placing()
    card = state["seats"][0]["hand"][0]
    assert rejected(state, 0, place(card, 1)) == "first_card_column"
    after = play(state, 0, place(card, 0))
    assert after["seats"][0]["cards"][0] == {
        "card": card,
        "face": "FRONT",
        "column": 0,
        "row": 0,
        "placement": 1,
    }


def test_T06_cards_stack_and_never_float():
    """T-6 (R-1.2): on a column of 1 card a card stacks at (0, 1); with row 2 it has no floor below."""
    state = placing([0])
    card = state["seats"][0]["hand"][0]
    assert rejected(state, 0, place(card, 0, row=2)) == "no_floor_below"
    after = play(state, 0, place(card, 0))
    assert (after["seats"][0]["cards"][-1]["column"], after["seats"][0]["cards"][-1]["row"]) == (0, 1)


def test_T07_a_new_column_must_be_next_to_the_building():
    """T-7 (R-1.3, R-1.4c): column 2 beside a lone column 0 is not adjacent; 1 and -1 land at row 0."""
    state = placing([0])
    card = state["seats"][0]["hand"][0]
    assert rejected(state, 0, place(card, 2)) == "not_adjacent"
    for column in (1, -1):
        after = play(state, 0, place(card, column))
        assert after["seats"][0]["cards"][-1]["row"] == 0


def test_T08_a_fifth_card_in_a_column_is_over_the_height_limit():
    """T-8 (R-1.4b): column 0 holds 4 cards; another is refused."""
    state = placing([0, 0, 0, 0])
    assert rejected(state, 0, place(state["seats"][0]["hand"][0], 0)) == "height_limit"


def test_T09_a_fourth_column_is_over_the_width_limit():
    """T-9 (R-1.4c): with columns -1, 0 and 1 occupied, columns 2 and -2 are refused."""
    state = placing([0, 1, -1])
    card = state["seats"][0]["hand"][0]
    assert rejected(state, 0, place(card, 2)) == "width_limit"
    assert rejected(state, 0, place(card, -2)) == "width_limit"


def test_T10_grid_takes_columns_not_room_x():
    """T-10 (R-1.4): a room_x in GRID is "not properly adjacent"; there is no rotation parameter."""
    state = placing()
    assert rejected(state, 0, place(state["seats"][0]["hand"][0], room_x=1)) == "misaligned"
    assert "rotation" not in GAME.action_schema().fields


def test_T11_the_back_is_the_mirror_of_the_front():
    """T-11 (1.3.3): C1 placed BACK at column 0 puts (0,1) PINK vacant, (1,1) GREEN [CAT],
    (0,0) PINK [FLOWER], (1,0) PINK vacant."""
    state = rig(new_game(2, fixture_pack(), start_seat=0), hands={0: ["C1", "F1"]})
    state = play(state, 0, place("C1", 0, face="BACK"))
    rooms = rooms_of(state, 0)
    assert (rooms["0,1"]["colour"], rooms["0,1"]["vacant"], rooms["0,1"]["features"]) == ("PINK", True, [])
    assert (rooms["1,1"]["colour"], rooms["1,1"]["features"]) == ("GREEN", ["CAT"])
    assert (rooms["0,0"]["colour"], rooms["0,0"]["features"]) == ("PINK", ["FLOWER"])
    assert (rooms["1,0"]["colour"], rooms["1,0"]["vacant"]) == ("PINK", True)


# -- A.3 neighbours: the rulebook's A/B example ------------------------------------------------------


def test_T12a_a_pink_group_of_3_does_not_call_for_a_neighbour():
    """T-12a (R-2.2): after C1 alone the pink group {A, p, B} has 3 rooms; step 2 is skipped."""
    state, evs = after_c1()
    pink = [g for g in building.colour_groups(rooms_of(state, 0)) if g["colour"] == "PINK"]
    assert [len(g["rooms"]) for g in pink] == [3]
    assert evs[-1] == {"type": "neighbour_step_ended", "seat": 0, "data": {"reason": "no_qualifying_group"}}
    assert state["step"] == "tokens"


def test_T12b_the_pink_path_of_five_qualifies_and_blocks_other_actions():
    """T-12b (R-2.1, R-2.9): after C2 one group {A, p, B, q, r} qualifies; drawing and claiming are
    refused while the neighbour step is open."""
    state, _ = after_c2()
    groups = building.qualifying_groups(rooms_of(state, 0), 4)
    assert [(g["colour"], g["rooms"], g["vacant"]) for g in groups] == [
        ("PINK", [(0, 0), (1, 0), (1, 1), (2, 1), (3, 1)], [(0, 0), (1, 1)])
    ]
    assert state["step"] == "neighbours" and GAME.to_act(state) == [0]
    assert rejected(state, 0, {"type": "draw_card", "source": "DECK"}) == "wrong_step"
    assert rejected(state, 0, {"type": "claim_token", "token": "CAT-6", "x": 0, "y": 1}) == "wrong_step"


def test_T12c_a_tile_on_A_first_leaves_a_group_of_4_with_B_so_B_gets_one_too():
    """T-12c (R-2.6, worked example): a tile on A leaves {p, B, q, r}, still qualifying; a tile on B
    then splits pink into {p} and {q, r}; the step ends with 2 neighbours."""
    state, _ = after_c2()
    state = play(state, 0, tile_action(state, **A))
    groups = building.qualifying_groups(rooms_of(state, 0), 4)
    assert [g["rooms"] for g in groups] == [[(1, 0), (1, 1), (2, 1), (3, 1)]]
    assert state["step"] == "neighbours"
    state = play(state, 0, tile_action(state, **B))
    pink = [g["rooms"] for g in building.colour_groups(rooms_of(state, 0)) if g["colour"] == "PINK"]
    assert sorted(pink) == [[(1, 0)], [(2, 1), (3, 1)]]
    assert state["step"] != "neighbours"
    assert state["seats"][0]["neighbours"] == 2


def test_T12d_a_tile_on_B_first_splits_the_group_and_A_stays_vacant():
    """T-12d (worked example): a tile on B splits pink into {A, p} and {q, r}; the step ends; a later
    tile on A is refused; 1 neighbour."""
    state, _ = after_c2()
    state = play(state, 0, tile_action(state, **B))
    pink = [g["rooms"] for g in building.colour_groups(rooms_of(state, 0)) if g["colour"] == "PINK"]
    assert sorted(pink) == [[(0, 0), (1, 0)], [(2, 1), (3, 1)]]
    assert state["step"] != "neighbours"
    assert rejected(state, 0, tile_action(state, **A)) == "wrong_step"
    assert rooms_of(state, 0)["0,0"]["vacant"] is True
    assert state["seats"][0]["neighbours"] == 1


def test_T13_a_vacant_room_of_a_group_of_3_is_never_a_target():
    """T-13 (R-2.3): during step 2, a vacant room in a group of 3 is refused."""
    state, _ = after_c2()
    green3 = {
        (0, 4): ("GREEN", True, []),
        (1, 4): ("GREEN", False, ["CAT"]),
        (2, 4): ("GREEN", False, ["CAT"]),
    }
    state = inject(state, 0, green3, keep=True)
    assert rejected(state, 0, tile_action(state, x=0, y=4)) == "group_not_qualifying"


def test_T14_the_neighbour_market_is_refilled_at_once():
    """T-14 (R-2.5, AE-3): ROW layout; a tile taken from slot 3 is replaced by the pile top; the pile
    shrinks by 1."""
    state, _ = after_c2()
    assert state["layout"] == "ROW"
    top, pile = state["tile_pile"][0], len(state["tile_pile"])
    before = list(state["neighbour_market"])
    state = play(state, 0, tile_action(state, 3, **A))
    assert state["neighbour_market"] == before[:3] + [top] + before[4:]
    assert len(state["tile_pile"]) == pile - 1


def test_T15_the_obligation_lapses_when_no_tile_is_left():
    """T-15 (R-2.7): market and pile empty, a group qualifies: neighbour_obligation_lapsed, step 3."""
    state, _ = after_c1()
    state = play(state, 0, {"type": "draw_card", "source": "MARKET", "slot": 0})
    state = play(state, 1, place(state["seats"][1]["hand"][0], 0))
    state = play(state, 1, {"type": "draw_card", "source": "MARKET", "slot": 0})
    state = {**state, "neighbour_market": [None] * 5, "tile_pile": []}
    evs = GAME.play(state, 0, place("C2", 1))
    assert [e["type"] for e in evs][:2] == ["card_placed", "neighbour_obligation_lapsed"]
    assert evs[1]["data"]["groups"] == [[[0, 0], [1, 0], [1, 1], [2, 1], [3, 1]]]
    assert fold(GAME, state, evs[:2])["step"] == "tokens"


def test_T16_a_tile_removes_the_colour_and_shows_its_icons():
    """T-16 (1.4.3): a [CAT] tile on A: A has no colour, shows CAT and is in no colour group."""
    state, _ = after_c2()
    cat_tile = next(t for t in state["tile_pile"] if state["content"]["tiles"][t] == ["CAT"])
    pile = [state["neighbour_market"][0] if t == cat_tile else t for t in state["tile_pile"]]
    state = {**state, "neighbour_market": [cat_tile] + state["neighbour_market"][1:], "tile_pile": pile}
    state = play(state, 0, {"type": "place_neighbour", "tile": cat_tile, **A})
    room = rooms_of(state, 0)["0,0"]
    assert (room["colour"], room["vacant"], room["features"], room["tile"]) == (
        None,
        False,
        ["CAT"],
        cat_tile,
    )
    assert all((0, 0) not in g["rooms"] for g in building.colour_groups(rooms_of(state, 0)))


# -- A.4 score tokens and chains ----------------------------------------------------------------------

DIAGONAL = [(i, i) for i in range(6)]


def tokens_step(rooms, seat=0, **options):
    state = new_game(2, seed="a4", **options)
    return at_step(inject(state, seat, rooms), seat, "tokens", cards=[{"card": "X"}] * 3)


def claim(token, x, y):
    return {"type": "claim_token", "token": token, "x": x, "y": y}


def test_T17_a_diagonal_chain_of_six_earns_the_6_and_closes_all_six():
    """T-17 (inject; R-3.3, R-3.5, 1.6.7): six diagonal CAT icons form one N8 chain; CAT-8 is refused,
    CAT-6 is accepted and closes all six."""
    state = tokens_step(icons_of("CAT", DIAGONAL))
    assert rejected(state, 0, claim("CAT-8", 2, 2)) == "chain_too_short"
    state = play(state, 0, claim("CAT-6", 2, 2))
    assert all(rooms_of(state, 0)[f"{x},{y}"]["closed"] == ["CAT"] for x, y in DIAGONAL)
    assert state["seats"][0]["tokens"][0]["chain"] == [list(c) for c in DIAGONAL]


def test_T18_closed_icons_neither_count_nor_connect():
    """T-18 (inject; R-3.6, R-3.7, A-23): new CAT icons at (4,6), (5,7) next to the closed chain form
    a chain of 2: CAT-8 is refused as too short; if closed chains absorb new icons, there is no open icon."""
    for absorbs, reason in ((False, "chain_too_short"), (True, "no_open_icon")):
        state = play(
            tokens_step(icons_of("CAT", DIAGONAL), closed_chain_absorbs_new_icons=absorbs),
            0,
            claim("CAT-6", 2, 2),
        )
        state = at_step(inject(state, 0, icons_of("CAT", [(4, 6), (5, 7)]), keep=True), 0, "tokens")
        assert rejected(state, 0, claim("CAT-8", 4, 6)) == reason
    assert building.chains(rooms_of(state, 0), "CAT", absorbs=False) == [[(4, 6), (5, 7)]]


def test_T19_closing_a_cat_icon_leaves_the_flower_icon_of_the_same_room_open():
    """T-19 (inject; 1.6.9): (2,2) shows CAT and FLOWER; after CAT-6 on the diagonal, FLOWER-6 on
    (2,2)'s flower chain is accepted."""
    rooms = icons_of("CAT", DIAGONAL)
    rooms.update(icons_of("FLOWER", [(3, 2), (4, 2), (5, 2), (5, 3), (4, 3)]))
    rooms[(2, 2)] = ("WHITE", False, ["CAT", "FLOWER"])
    state = play(tokens_step(rooms), 0, claim("CAT-6", 2, 2))
    state = play(state, 0, claim("FLOWER-6", 2, 2))
    assert [t["token"] for t in state["seats"][0]["tokens"]] == ["CAT-6", "FLOWER-6"]
    assert rooms_of(state, 0)["2,2"]["closed"] == ["CAT", "FLOWER"]


def test_T20_two_chains_of_one_feature_can_earn_two_tokens_in_one_turn():
    """T-20 (inject; R-3.8): separate CAT chains of 8 and 6: CAT-8 then CAT-6 in one turn."""
    rooms = icons_of("CAT", [(x, 0) for x in range(8)])
    rooms.update(icons_of("CAT", [(x, 3) for x in range(6)]))
    state = play(tokens_step(rooms), 0, claim("CAT-8", 0, 0))
    state = play(state, 0, claim("CAT-6", 0, 3))
    assert [t["token"] for t in state["seats"][0]["tokens"]] == ["CAT-8", "CAT-6"]


def test_T21_a_claim_closes_the_whole_chain_even_beyond_the_value():
    """T-21 (inject; R-3.5, R-3.9): a chain of 9 earns CAT-6 and closes all 9; CAT-8 is then refused."""
    nine = [(x, 0) for x in range(5)] + [(x, 1) for x in range(4)]
    state = play(tokens_step(icons_of("CAT", nine)), 0, claim("CAT-6", 0, 0))
    assert all(rooms_of(state, 0)[f"{x},{y}"]["closed"] == ["CAT"] for x, y in nine)
    for x, y in nine:
        assert rejected(state, 0, claim("CAT-8", x, y)) == "no_open_icon"


def test_T22_a_token_held_by_another_player_cannot_be_claimed():
    """T-22 (R-3.3a): CAT-6 held by seat 1 is not in the supply."""
    state = tokens_step(icons_of("CAT", DIAGONAL))
    state = {**state, "token_supply": [t for t in state["token_supply"] if t != "CAT-6"]}
    assert rejected(state, 0, claim("CAT-6", 0, 0)) == "token_not_in_supply"


def test_T23_an_old_chain_can_be_claimed_later():
    """T-23 (R-3.4, A-25): a chain of 7 formed on turn 3 is claimed on turn 5 without new cats; with
    token_claim_requires_growth it is refused."""
    seven = [(x, 0) for x in range(7)]
    state = tokens_step(icons_of("CAT", seven))
    state = at_step(state, 0, "tokens", cards=[{"card": "X"}] * 5, fresh=["0,6", "1,6"])
    assert play(state, 0, claim("CAT-6", 3, 0))["seats"][0]["tokens"][0]["token"] == "CAT-6"
    strict = {**state, "options": {**state["options"], "token_claim_requires_growth": True}}
    assert rejected(strict, 0, claim("CAT-6", 3, 0)) == "chain_not_grown"


# -- A.5 drawing ------------------------------------------------------------------------------------------


def drawing(seed="a5"):
    state = new_game(2, fixture_pack(), seed=seed, start_seat=0)
    state = play(state, 0, place(state["seats"][0]["hand"][0], 0))
    assert state["step"] == "tokens"
    return state


def test_T24_a_market_draw_is_replaced_by_the_deck_top_in_the_same_slot():
    """T-24 (R-4.2, R-4.3, AE-3): ROW market [m0..m3], deck top d1, draw slot 2: the hand gains m2,
    the market becomes [m0, m1, d1, m3] and the turn ends."""
    state = drawing()
    m, d1 = list(state["block_market"]), state["deck"][0]
    after = play(state, 0, {"type": "draw_card", "source": "MARKET", "slot": 2})
    assert m[2] in after["seats"][0]["hand"]
    assert after["block_market"] == [m[0], m[1], d1, m[3]]
    assert GAME.to_act(after) == [1]


def test_T25_a_deck_draw_is_seen_only_by_the_drawer():
    """T-25 (R-4.2, 8.4): a deck draw gives d1, leaves the market alone, and the others see only that
    a card was drawn from the deck."""
    state = drawing()
    m, d1 = list(state["block_market"]), state["deck"][0]
    evs = GAME.play(state, 0, {"type": "draw_card", "source": "DECK"})
    after = fold(GAME, state, evs)
    assert d1 in after["seats"][0]["hand"] and after["block_market"] == m
    drawn = next(e for e in evs if e["type"] == "card_drawn")
    assert GAME.event_view(drawn, 0)["data"]["card"] == d1
    for viewer in (1, None):
        assert GAME.event_view(drawn, viewer)["data"] == {"source": "DECK", "private": True}


# -- A.6 end scoring: the rulebook's 36 points --------------------------------------------------------------


def with_tokens(state, seat, tokens, neighbours=None):
    content = state["content"]
    held = [
        {
            "token": t,
            "feature": content["tokens"][t]["feature"],
            "value": content["tokens"][t]["value"],
            "chain": [],
            "placement": 1,
        }
        for t in tokens
    ]
    seats = list(state["seats"])
    seats[seat] = {
        **seats[seat],
        "tokens": held,
        **({} if neighbours is None else {"neighbours": neighbours}),
    }
    return {**state, "seats": seats}


def example_36(**options):
    """Tokens FLOWER-10, CAT-10, CAT-8 (28) and open chains of 5 underwear, 4 birds, 3 cats."""
    rooms = icons_of("UNDERWEAR", [(x, 0) for x in range(5)])
    rooms.update(icons_of("BIRD", [(x, 2) for x in range(4)]))
    rooms.update(icons_of("CAT", [(x, 4) for x in range(3)]))
    state = inject(new_game(2, seed="a6", **options), 0, rooms)
    return with_tokens(state, 0, ["FLOWER-10", "CAT-10", "CAT-8"])


def test_T26_the_rulebooks_36_point_example():
    """T-26 (E-2 to E-4): 28 in tokens + 4 (underwear 5) + 4 (birds 4) + 0 (cats 3) = 36."""
    result = GAME.scores(example_36())
    mine = result["breakdown"]["players"][0]
    assert result["scores"][0] == 36
    assert mine["token_points"] == 28
    assert [(c["feature"], c["size"], c["points"]) for c in mine["open_chains"]] == [
        ("UNDERWEAR", 5, 4),
        ("BIRD", 4, 4),
    ]


def test_T27_the_ja_texts_reading_gives_32_which_contradicts_its_own_example():
    """T-27 (A-32): PER_FEATURE with 2 points gives 32 (JA's text); PER_FEATURE with 4 gives 36."""
    assert GAME.scores(example_36(open_chain_scope="PER_FEATURE", open_chain_points=2))["scores"][0] == 32
    assert GAME.scores(example_36(open_chain_scope="PER_FEATURE", open_chain_points=4))["scores"][0] == 36


def test_T28_two_bird_chains_score_twice_per_chain_once_per_feature():
    """T-28 (E-3): no tokens; bird chains of 4 and 5 and a cat chain of 4: PER_CHAIN 12, PER_FEATURE 8."""
    rooms = icons_of("BIRD", [(x, 0) for x in range(4)])
    rooms.update(icons_of("BIRD", [(x, 2) for x in range(5)]))
    rooms.update(icons_of("CAT", [(x, 4) for x in range(4)]))
    for scope, total in (("PER_CHAIN", 12), ("PER_FEATURE", 8)):
        state = inject(new_game(2, seed="a6", open_chain_scope=scope), 0, rooms)
        assert GAME.scores(state)["scores"][0] == total


def test_T29_ties_go_to_the_most_neighbours_then_are_shared():
    """T-29 (E-7): P and Q both score 40; P with 5 neighbours beats Q with 3; with 5 each they share."""
    state = new_game(2, seed="a6")
    forty = ["CAT-10", "FLOWER-10", "BIRD-10", "UNDERWEAR-10"]
    state = with_tokens(with_tokens(state, 0, forty, 5), 1, forty, 3)
    assert GAME.scores(state)["scores"] == [40, 40]
    assert GAME.scores(state)["ranks"] == [1, 2]
    assert GAME.scores(with_tokens(state, 1, forty, 5))["ranks"] == [1, 1]


# -- A.7 building-block variant ---------------------------------------------------------------------------------


def bb(*room_xs):
    state = new_game(2, seed="a7", building_rules="BUILDING_BLOCK", start_seat=0)
    for x in room_xs:
        y0 = building.bb_landing([building.coord(k) for k in rooms_of(state, 0)], x, None, None)
        state = placed(state, 0, state["deck"][0], room_x=x, room_y=y0)
        state = {**state, "deck": state["deck"][1:]}
    return at_step(state, 0, "place")


def bb_place(state, x):
    return {"type": "place_card", "card": state["seats"][0]["hand"][0], "face": "FRONT", "room_x": x}


def test_T30_a_card_half_over_the_first_one_lands_on_it_and_overhangs():
    """T-30 (V-5): first card at room_x 0; room_x 1 lands at y0 = 2; column x = 2 has a gap below."""
    state = play(bb(0), 0, bb_place(bb(0), 1))
    assert state["seats"][0]["cards"][-1]["room_y"] == 2
    assert {"1,2", "2,2", "1,3", "2,3"} <= set(rooms_of(state, 0)) and "2,0" not in rooms_of(state, 0)


def test_T31_a_card_must_share_a_room_edge_after_landing():
    """T-31 (V-5): after T-30, room_x 3 lands on the ground beside nothing: refused; room_x 2 lands at
    y0 = 4 on the card at x 1-2: accepted."""
    state = bb(0, 1)
    assert rejected(state, 0, bb_place(state, 3)) == "not_adjacent"
    assert play(state, 0, bb_place(state, 2))["seats"][0]["cards"][-1]["room_y"] == 4


def test_T32_a_card_beside_the_first_on_the_ground_is_accepted():
    """T-32 (V-5): first card at room_x 0; room_x 2 lands at y0 = 0 sharing the x = 1 / x = 2 edge."""
    state = bb(0)
    assert play(state, 0, bb_place(state, 2))["seats"][0]["cards"][-1]["room_y"] == 0


# -- A.8 solo and Autoblock ----------------------------------------------------------------------------------------


def solo_draw_turn():
    """SOLO with the fixture pack: the human placed a card and is about to draw."""
    state = new_game(1, fixture_pack(), seed="a8", excluded_feature="BIRD")
    assert state["layout"] == "COLUMN"
    return play(state, 0, place(state["seats"][0]["hand"][0], 0))


def test_T33_a_solo_market_draw_slides_the_column_down():
    """T-33 (AE-4): column [c0, c1, c2, c3], deck top d1; drawing slot 1 gives c1 and leaves
    [d1, c0, c2, c3]."""
    state = solo_draw_turn()
    c, d1 = list(state["block_market"]), state["deck"][0]
    evs = GAME.play(state, 0, {"type": "draw_card", "source": "MARKET", "slot": 1})
    human = list(evs[: next(i for i, e in enumerate(evs) if e["type"] == "turn_ended") + 1])
    mid = fold(GAME, state, human)
    assert c[1] in mid["seats"][0]["hand"]
    assert mid["block_market"] == [d1, c[0], c[2], c[3]]


def test_T34_autoblock_discards_the_bottom_card_and_takes_the_bottom_tile():
    """T-34 (AE-7): after T-33 Autoblock discards c3 and takes t4; the columns become
    [d2, d1, c0, c2] and [u1, t0, t1, t2, t3]."""
    state = solo_draw_turn()
    c, (d1, d2) = list(state["block_market"]), state["deck"][:2]
    t, u1 = list(state["neighbour_market"]), state["tile_pile"][0]
    evs = GAME.play(state, 0, {"type": "draw_card", "source": "MARKET", "slot": 1})
    after = fold(GAME, state, evs)
    kinds = [e["type"] for e in evs]
    assert kinds.index("autoblock_discarded") > kinds.index("turn_ended")
    assert after["discard"] == [c[3]]
    assert after["autoblock"]["tiles"] == [t[4]]
    assert after["block_market"] == [d2, d1, c[0], c[2]]
    assert after["neighbour_market"] == [u1, t[0], t[1], t[2], t[3]]
    assert after["autoblock"]["turns"] == 1 and GAME.to_act(after) == [0] and after["round"] == 2


def ab_plan(
    tiles_cat,
    held=(),
    supply=None,
    excluded="BIRD",
    level="NORMAL",
    rule="GREEDY_DESCENDING",
    feature="CAT",
    content=None,
):
    content = content or fixture_pack(tiles=48)  # 12 one-feature tiles per feature
    tiles = [t for t in content["tile_ids"] if content["tiles"][t] == [feature]][:tiles_cat]
    assert len(tiles) == tiles_cat
    ab = {"level": level, "excluded": excluded, "tiles": tiles, "tokens": list(held), "turns": 0}
    supply = [t for t in content["token_ids"] if t not in held] if supply is None else supply
    returned, taken = autoblock.token_plan(ab, supply, content, rule, 2)
    return sorted((set(held) - set(returned)) | set(taken)), returned, taken


def test_T35_three_icons_take_the_6_through_autoblocks_turn():
    """T-35 (AE-8): NORMAL, BIRD excluded, CAT x3 on its tiles: Autoblock takes CAT-6 (here through
    a whole Autoblock turn whose tile is the third cat)."""
    state = solo_draw_turn()
    cats = [t for t in state["content"]["tile_ids"] if state["content"]["tiles"][t] == ["CAT"]]
    others = [t for t in state["content"]["tile_ids"] if t not in cats[:3]]
    state = {
        **state,
        "autoblock": {**state["autoblock"], "tiles": cats[:2]},
        "neighbour_market": others[:4] + [cats[2]],
        "tile_pile": others[4:],
    }
    evs = GAME.play(state, 0, {"type": "draw_card", "source": "DECK"})
    assert {"type": "autoblock_token_taken", "seat": None, "data": {"token": "CAT-6"}} in evs
    assert fold(GAME, state, evs)["autoblock"]["tokens"] == ["CAT-6"]


def test_T36_four_icons_take_the_8_and_return_the_6():
    """T-36 (AE-8)."""
    assert ab_plan(4, held=["CAT-6"]) == (["CAT-8"], ["CAT-6"], ["CAT-8"])


def test_T37_five_icons_take_the_10_and_return_the_8():
    """T-37 (AE-8)."""
    assert ab_plan(5, held=["CAT-8"]) == (["CAT-10"], ["CAT-8"], ["CAT-10"])


def test_T38_eight_icons_hold_the_10_and_the_6():
    """T-38 (AE-8: "the rare case of 8 icons, 16 points")."""
    assert ab_plan(8, held=["CAT-10"])[0] == ["CAT-10", "CAT-6"]


def test_T39_a_missing_token_is_worked_around():
    """T-39 (AE-8): 4 icons, Autoblock holds CAT-6, a human holds CAT-8: Autoblock keeps CAT-6."""
    supply = ["CAT-10", "FLOWER-6"]
    assert ab_plan(4, held=["CAT-6"], supply=supply) == (["CAT-6"], [], [])


def test_T40_the_excluded_feature_scores_nothing_except_for_grand_autoblock():
    """T-40 (S-10, 6.6): 6 BIRD icons with BIRD excluded: no token; Grand Autoblock takes BIRD-10."""
    assert ab_plan(6, feature="BIRD")[0] == []
    assert ab_plan(6, feature="BIRD", excluded=None, level="GRAND")[0] == ["BIRD-10"]


def test_T41_seven_icons_greedy_keeps_the_10_max_sum_takes_8_and_6():
    """T-41 (A-35): 7 icons holding CAT-10: GREEDY_DESCENDING keeps it; MAX_SUM returns it for 8 + 6."""
    assert ab_plan(7, held=["CAT-10"]) == (["CAT-10"], [], [])
    assert ab_plan(7, held=["CAT-10"], rule="MAX_SUM") == (["CAT-6", "CAT-8"], ["CAT-10"], ["CAT-6", "CAT-8"])


def test_T42_a_solo_tie_goes_to_autoblock():
    """T-42 (E-8, A-38): human 30, Autoblock 30: Autoblock wins (HUMAN_MUST_EXCEED)."""
    state = with_tokens(
        new_game(1, seed="a8", excluded_feature="BIRD"), 0, ["CAT-10", "FLOWER-10", "BIRD-10"]
    )
    state = {
        **state,
        "autoblock": {**state["autoblock"], "tokens": ["UNDERWEAR-10", "UNDERWEAR-8", "FLOWER-6", "CAT-6"]},
    }
    result = GAME.scores(state)
    assert result["scores"] == [30] and result["breakdown"]["autoblock"]["total"] == 30
    assert result["ranks"] == [2] and result["outcome"]["human_wins"] is False


def test_T43_four_players_and_autoblock_use_up_the_supply_exactly():
    """T-43 (2.5): 4 players + Autoblock: every draw of rounds 1-11 succeeds and Autoblock's 12th
    discard takes the last card of deck + market."""
    final, moves, _ = random_game(4, "t43", mode="AUTOBLOCK_EXTRA", excluded_feature="CAT")
    ended = [e["data"] for _, _, evs in moves for e in evs if e["type"] == "turn_ended"]
    assert all(e["drew"] for e in ended if e["placement"] <= 11)
    discards = [e for _, _, evs in moves for e in evs if e["type"] == "autoblock_discarded"]
    assert len(discards) == 12
    assert final["deck"] == [] and final["block_market"] == [None] * 4


def test_T44_coop_victory_by_all_or_by_any():
    """T-44 (V-20, A-39): 3 players with 41, 35, 29 against Autoblock's 30: ALL_EXCEED loses,
    ANY_EXCEEDS wins (and SUM_EXCEEDS wins)."""
    options = GAME.resolve_options({"mode": "COOP"}, 3)
    keys = [(41, 0), (35, 0), (29, 0)]
    for condition, won in (("ALL_EXCEED", False), ("ANY_EXCEEDS", True), ("SUM_EXCEEDS", True)):
        ranks, outcome, ab_rank = scoring.judge(
            "COOP", keys, (30, 5), {**options, "coop_win_condition": condition}
        )
        assert outcome["team_wins"] is won
        assert ranks == ([1, 1, 1] if won else [2, 2, 2]) and ab_rank == (2 if won else 1)
