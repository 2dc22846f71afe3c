"""Blackout: Hong Kong, spec Appendix A: the acceptance tests taken from the rulebook's examples, T-1 to T-22.

Each test is named after its T-number. The pack values an example needs are fixtures added to a copy
of the default pack (``fixture_card``, ``fixture_tile``), as the appendix says; positions are the
state after setup with the fields the example names set (``patched``, ``in_phase``).
"""

from __future__ import annotations

import random

from service.games.blackout_hong_kong import GAME, patrol, scoring
from service.games.blackout_hong_kong.board import board_of
from service.games.blackout_hong_kong.engine import roll_until_valid
from tests.games.blackout_support import (
    events,
    fixture_card,
    fixture_tile,
    in_phase,
    new_game,
    pack,
    patched,
    play,
    refused,
    set_card,
    set_volunteers,
    started,
)

NO_RESOURCES = {"FOOD": 0, "TOOLS": 0, "PETROL": 0, "WATER": 0, "BOOKS": 0, "MEDICINE": 0, "BATTERY": 0}


def rondel(**held) -> dict:
    return {**NO_RESOURCES, **held}


def scripted_faces(script: dict[int, dict[str, str]]):
    return lambda colour, attempt: script[attempt][colour]


# -- Phase 1 and 2 --------------------------------------------------------------------------------


def test_T01_duplicate_dice_are_rerolled_and_the_odd_one_kept():
    """T-1 (R-1.3): RED=MEDICINE, BLUE=MEDICINE, YELLOW=WATER is invalid; RED and BLUE are rerolled, YELLOW
    keeps WATER, until three faces differ; every roll is logged."""
    faces = scripted_faces(
        {
            0: {"RED": "MEDICINE", "YELLOW": "WATER", "BLUE": "MEDICINE"},
            1: {"RED": "FOOD", "BLUE": "FOOD"},
            2: {"RED": "TOOLS", "BLUE": "FOOD"},
        }
    )
    rolls = roll_until_valid(faces, "REROLL_ALL_MATCHING")
    assert [r["rerolled"] for r in rolls] == [["RED", "YELLOW", "BLUE"], ["RED", "BLUE"], ["RED", "BLUE"]]
    assert all(r["faces"]["YELLOW"] == "WATER" for r in rolls)
    assert rolls[-1]["faces"] == {"RED": "TOOLS", "YELLOW": "WATER", "BLUE": "FOOD"}
    kept = roll_until_valid(
        scripted_faces({0: {"RED": "MEDICINE", "YELLOW": "WATER", "BLUE": "MEDICINE"}, 1: {"BLUE": "FOOD"}}),
        "KEEP_ONE_OF_EACH",
    )  # A-11's alternative
    assert kept[1] == {"faces": {"RED": "MEDICINE", "YELLOW": "WATER", "BLUE": "FOOD"}, "rerolled": ["BLUE"]}


def test_T01_every_round_logs_its_rolls_and_ends_with_three_different_faces():
    state = new_game(3, "dice")
    log = []
    while state["step"] == "start_cubes":
        seat = GAME.to_act(state)[0]
        played = GAME.play(state, seat, GAME.legal_actions(state, seat)[0])
        log += list(played)
        state = played.states[-1]
    rolls = [e["data"] for e in log if e["type"] == "dice_rolled"]
    assert rolls and rolls[-1]["faces"] == state["dice"] and len(set(state["dice"].values())) == 3
    assert all(len(set(r["faces"].values())) < 3 for r in rolls[:-1])


def gather_position(base: dict, seat: int, card: str, dice: dict, transport: int = 5) -> dict:
    state = patched(base, seat, transport=transport, rondel=rondel())
    return in_phase(patched(state, dice=dice), "p2", seat, revealed=[card], current=card)


def test_T02_a_blue_volunteer_gathers_where_the_transport_takes_it():
    """T-2 (R-2.4): BLUE die on TOOLS, a blue volunteer gathering 2: 0 tokens -> TOOLS, 1 -> FOOD or PETROL,
    3 -> BOOKS, 2 -> WATER or MEDICINE (as the pack's ring says); one type only, once."""
    the_pack = pack()
    card = fixture_card(
        the_pack,
        {"id": "FX-BLUE-2", "kind": "VOLUNTEER", "colour": "BLUE", "gatherCount": 2, "searchIcons": 1},
    )
    base = started(2, "t2", the_pack)
    board = board_of(base["content"])
    position = gather_position(base, 0, card, {"RED": "PETROL", "YELLOW": "WATER", "BLUE": "TOOLS"})
    for target in ("TOOLS", "FOOD", "PETROL", "WATER", "BOOKS", "MEDICINE"):
        after = play(position, 0, {"type": "GATHER", "cardId": card, "targetResource": target})
        p = after["players"][0]
        assert p["rondel"] == rondel(**{target: 2})
        assert p["transport"] == 5 - board.ring_distance("TOOLS", target)
    assert {t: board.ring_distance("TOOLS", t) for t in ("TOOLS", "FOOD", "PETROL", "BOOKS")} == {
        "TOOLS": 0,
        "FOOD": 1,
        "PETROL": 1,
        "BOOKS": 3,
    }
    once = play(position, 0, {"type": "GATHER", "cardId": card, "targetResource": "TOOLS"})
    assert (
        refused(once, 0, {"type": "GATHER", "cardId": card, "targetResource": "FOOD"}).reason
        == "already_used"
    )


def test_T03_resources_gathered_this_turn_pay_the_mechanic():
    """T-3 (R-2.6): BLUE on TOOLS, RED on PETROL; slot 1 a red volunteer (1), slot 2 a blue (2), slot 3 the
    mechanic. Reveal 2 and gather TOOLS; reveal 3, row 2 then row 1; reveal 1 and gather PETROL: TOOLS 2 -> 1,
    HK$ +6, PETROL +1."""
    the_pack = pack()
    red = fixture_card(the_pack, {"id": "FX-RED-1", "kind": "VOLUNTEER", "colour": "RED", "gatherCount": 1})
    blue = fixture_card(
        the_pack, {"id": "FX-BLUE-2", "kind": "VOLUNTEER", "colour": "BLUE", "gatherCount": 2}
    )
    base = started(2, "t3", the_pack)
    mechanic = set_card(base, 0, "MECHANIC")
    slots = [
        [{"card": red, "faceUp": False, "round": 1}],
        [{"card": blue, "faceUp": False, "round": 1}],
        [{"card": mechanic, "faceUp": False, "round": 1}],
        [],
    ]
    state = patched(base, 0, slots=slots, hand=[], rondel=rondel(), hkd=4)
    state = in_phase(
        patched(state, dice={"RED": "PETROL", "YELLOW": "WATER", "BLUE": "TOOLS"}, round=1), "p2", 0
    )
    for action in (
        {"type": "REVEAL_CARD", "slot": 2},
        {"type": "GATHER", "cardId": blue, "targetResource": "TOOLS"},
        {"type": "REVEAL_CARD", "slot": 3},
        {"type": "USE_SPECIALIST_ROW", "cardId": mechanic, "rowIndex": 1},
        {
            "type": "USE_SPECIALIST_ROW",
            "cardId": mechanic,
            "rowIndex": 0,
            "payment": {"resources": {"TOOLS": 1}},
        },
        {"type": "REVEAL_CARD", "slot": 1},
        {"type": "GATHER", "cardId": red, "targetResource": "PETROL"},
    ):
        state = play(state, 0, action)
    p = state["players"][0]
    assert p["rondel"] == rondel(TOOLS=1, PETROL=1)
    assert p["hkd"] == 4 + 6


# -- Phase 3 ---------------------------------------------------------------------------------------


def locations_at(board, own: str, colour: str | None, distance: int) -> list[str]:
    table = board.distances()
    return sorted(
        loc
        for loc, d in table[own].items()
        if d == distance and (colour is None or board.locations[loc]["colour"] == colour)
    )


def objective_position(the_pack: dict, card: str, seat: int = 0, space: int = 2, **fields) -> dict:
    base = started(2, "objectives", the_pack)
    objectives = list(base["players"][seat]["objectives"])
    objectives[space] = {"card": card, "done": [], "markers": 0}
    return in_phase(patched(base, seat, objectives=objectives, **fields), "p3", seat)


def test_T04_a_slot_requirement_and_HKD_then_a_yellow_cube_by_transport():
    """T-4 (R-3.6, R-3.12): SLOT_COLOURS {YELLOW, RED, RED} + HKD 4, immediate PLACE_CUBE(YELLOW), destination
    HAND: HK$ -4, the card to hand, then a cube; a yellow target next to an own cube costs 0, one location
    further costs 1 transport, or 1 VP with no token."""
    the_pack = pack()
    card = fixture_card(
        the_pack,
        {
            "id": "FX-T4",
            "kind": "VOLUNTEER",
            "colour": "RED",
            "gatherCount": 1,
            "destination": "HAND",
            "objectives": [
                {
                    "requirements": [
                        {"type": "SLOT_COLOURS", "colours": ["YELLOW", "RED", "RED"]},
                        {"type": "HKD", "n": 4},
                    ],
                    "immediateEffects": [{"type": "PLACE_CUBE", "colour": "YELLOW"}],
                }
            ],
        },
    )
    base = objective_position(the_pack, card)
    board = board_of(base["content"])
    yellows, reds = set_volunteers(base, 0, "YELLOW"), set_volunteers(base, 0, "RED")
    slot = [{"card": c, "faceUp": True, "round": 0} for c in (yellows[0], reds[0], reds[1])]
    own = next(
        loc
        for loc in sorted(board.locations)
        if locations_at(board, loc, "YELLOW", 1) and locations_at(board, loc, "YELLOW", 2)
    )
    state = patched(base, 0, slots=[slot, [], [], []], hkd=6, transport=1, cubes=[own], vp=0)
    state = play(
        state,
        0,
        {
            "type": "COMPLETE_OBJECTIVE",
            "source": {"area": "OBJECTIVE_SPACE", "index": 2},
            "objectiveIndex": 0,
        },
    )
    p = state["players"][0]
    assert p["hkd"] == 2 and card in p["hand"] and p["objectives"][2] is None
    assert state["queue"][0]["effect"] == {"type": "PLACE_CUBE", "colour": "YELLOW"}
    near, far = locations_at(board, own, "YELLOW", 1)[0], locations_at(board, own, "YELLOW", 2)[0]
    options = {
        a["locationId"]: a["choices"]["transport"]
        for a in GAME.legal_actions(state, 0)
        if a["type"] == "PLACE_CUBE"
    }
    assert options[near] == 0 and options[far] == 1
    assert all(board.locations[loc]["colour"] == "YELLOW" for loc in options)
    adjacent = play(state, 0, {"type": "PLACE_CUBE", "locationId": near})["players"][0]
    assert near in adjacent["cubes"] and adjacent["transport"] == 1 and adjacent["vp"] == 0
    by_token = play(state, 0, {"type": "PLACE_CUBE", "locationId": far})["players"][0]
    assert far in by_token["cubes"] and by_token["transport"] == 0 and by_token["vp"] == 0
    no_token = play(patched(state, 0, transport=0), 0, {"type": "PLACE_CUBE", "locationId": far})["players"][
        0
    ]
    assert far in no_token["cubes"] and no_token["transport"] == 0 and no_token["vp"] == -1


def crisis_plan(the_pack: dict, id_: str, objectives: list, bonus=(), completion=()) -> str:
    return fixture_card(
        the_pack,
        {
            "id": id_,
            "kind": "CRISIS_PLAN",
            "destination": "CHECK_AREA",
            "objectives": objectives,
            "bonusEffects": list(bonus),
            "completionEffects": list(completion),
        },
    )


def objective(*effects, requirements=()) -> dict:
    return {"requirements": list(requirements), "immediateEffects": list(effects)}


def test_T05_keep_a_crisis_plan_after_one_of_its_objectives():
    """T-5 (R-3.7): +6 HK$, one marker cube on the card, Keep: the card stays in the objective area."""
    the_pack = pack()
    card = crisis_plan(
        the_pack, "FX-T5", [objective({"type": "HKD", "n": 6}), objective({"type": "POINTS", "n": 1})]
    )
    state = objective_position(the_pack, card, hkd=0)
    supply = state["players"][0]["supply"]
    state = play(
        state,
        0,
        {
            "type": "COMPLETE_OBJECTIVE",
            "source": {"area": "OBJECTIVE_SPACE", "index": 2},
            "objectiveIndex": 0,
        },
    )
    assert [a["type"] for a in GAME.legal_actions(state, 0)][:2] == ["RESOLVE_CLOSE_OUT", "RESOLVE_CLOSE_OUT"]
    state = play(state, 0, {"type": "RESOLVE_CLOSE_OUT", "cardId": card, "closeOut": False})
    p = state["players"][0]
    assert p["hkd"] == 6 and p["objectives"][2] == {"card": card, "done": [0], "markers": 1}
    assert p["supply"] == supply - 1 and not state["queue"]


def test_T06_close_out_an_emergency_plan_after_its_first_objective():
    """T-6 (R-3.7): +5 HK$; the marker returns; the card goes to the check-mark area and the space is never
    used again; a cube on any-colour location next to an own cube; no bonus."""
    the_pack = pack()
    plan = {
        "id": "FX-T6",
        "origin": "EMERGENCY_PLAN",
        "kind": "EMERGENCY_PLAN",
        "letter": "A",
        "points": 0,
        "searchIcons": 0,
        "destination": "CHECK_AREA",
        "objectives": [
            objective({"type": "HKD", "n": 5}),
            objective({"type": "POINTS", "n": 1}),
            objective({"type": "POINTS", "n": 1}),
        ],
        "bonusEffects": [{"type": "POINTS", "n": 9}],
        "completionEffects": [{"type": "PLACE_CUBE", "colour": "ANY"}],
    }
    the_pack["emergencyPlans"].append(plan)
    base = started(2, "t6", the_pack)
    state = in_phase(
        patched(base, 0, emergency={"card": "FX-T6", "done": [], "markers": 0}, hkd=0, vp=0), "p3", 0
    )
    supply = state["players"][0]["supply"]
    state = play(
        state, 0, {"type": "COMPLETE_OBJECTIVE", "source": {"area": "EMERGENCY_PLAN"}, "objectiveIndex": 0}
    )
    state = play(state, 0, {"type": "RESOLVE_CLOSE_OUT", "cardId": "FX-T6", "closeOut": True})
    p = state["players"][0]
    assert p["hkd"] == 5 and p["emergency"] == "USED" and "FX-T6" in p["check_area"] and p["supply"] == supply
    board = board_of(state["content"])
    own = p["cubes"][0]
    neighbour = sorted(board.neighbours[own])[0]
    state = play(state, 0, {"type": "PLACE_CUBE", "locationId": neighbour})
    p = state["players"][0]
    assert neighbour in p["cubes"] and p["vp"] == 0 and p["transport"] == 5  # no bonus, no cost


def test_T07_the_last_objective_of_a_plan_brings_its_bonus_and_completion_effect():
    """T-7 (R-3.8): the last open objective gives +2 VP, the bonus +5 VP: VP +7, every marker back, the card
    to the check-mark area, then the completion effect."""
    the_pack = pack()
    card = crisis_plan(
        the_pack,
        "FX-T7",
        [objective({"type": "HKD", "n": 1}), objective({"type": "POINTS", "n": 2})],
        bonus=[{"type": "POINTS", "n": 5}],
        completion=[{"type": "HKD", "n": 3}],
    )
    state = objective_position(the_pack, card, vp=0, hkd=0)
    objectives = list(state["players"][0]["objectives"])
    objectives[2] = {"card": card, "done": [0], "markers": 1}
    supply = state["players"][0]["supply"]
    state = patched(state, 0, objectives=objectives, supply=supply - 1)
    state = play(
        state,
        0,
        {
            "type": "COMPLETE_OBJECTIVE",
            "source": {"area": "OBJECTIVE_SPACE", "index": 2},
            "objectiveIndex": 1,
        },
    )
    p = state["players"][0]
    assert p["vp"] == 7 and p["supply"] == supply and card in p["check_area"] and p["objectives"][2] is None
    assert p["hkd"] == 3 and not state["queue"]


# -- Phase 4 ---------------------------------------------------------------------------------------


def patrol_position(party_icons_hand: bool = True):
    """T-8's table: hand doctor (0), leader (2), a red (1) and a blue (1) volunteer; a crisis plan with 1
    icon in the check-mark area; face-down tiles with 2 icons; 1 GPS; the district's tile: easy 6 icons ->
    2 BOOKS; a face-up BOOKS tile owned already."""
    the_pack = pack()
    red = fixture_card(
        the_pack, {"id": "FX-RED", "kind": "VOLUNTEER", "colour": "RED", "gatherCount": 1, "searchIcons": 1}
    )
    blue = fixture_card(
        the_pack, {"id": "FX-BLUE", "kind": "VOLUNTEER", "colour": "BLUE", "gatherCount": 1, "searchIcons": 1}
    )
    plan = crisis_plan(the_pack, "FX-PLAN", [objective({"type": "POINTS", "n": 1})])
    the_pack["objectiveCards"][-1]["searchIcons"] = 1
    target = fixture_tile(
        the_pack,
        {
            "id": "FX-TILE",
            "rewardType": "BOOKS",
            "easy": {"requiredIcons": 6, "rewardAmount": 2},
            "hard": {"requiredIcons": 9, "rewardAmount": 4},
        },
    )
    others = [
        fixture_tile(
            the_pack,
            {
                "id": f"FX-OTHER-{i}",
                "rewardType": "POINTS",
                "easy": {"requiredIcons": 3 + i, "rewardAmount": 1},
                "hard": {"requiredIcons": 8, "rewardAmount": 3},
            },
        )
        for i in range(2)
    ]
    owned_books = fixture_tile(
        the_pack,
        {
            "id": "FX-OWN-BOOKS",
            "rewardType": "BOOKS",
            "easy": {"requiredIcons": 5, "rewardAmount": 1},
            "hard": {"requiredIcons": 8, "rewardAmount": 2},
        },
    )
    owned_back = fixture_tile(
        the_pack,
        {
            "id": "FX-OWN-BACK",
            "backSearchIcons": 2,
            "rewardType": "FOOD",
            "easy": {"requiredIcons": 5, "rewardAmount": 1},
            "hard": {"requiredIcons": 8, "rewardAmount": 2},
        },
    )
    base = started(2, "t8", the_pack)
    board = board_of(base["content"])
    district = sorted(board.districts)[0]
    districts = {**base["districts"]}
    districts[district] = {**districts[district], "tiles": [target] + others, "chosen_by": None}
    tiles = {**base["tiles"], **{t: {"faceUp": False, "seenBy": []} for t in [target] + others}}
    for t in base["districts"][district]["tiles"]:
        del tiles[t]
    hand = [set_card(base, 0, "DOCTOR"), set_card(base, 0, "LEADER"), red, blue]
    state = patched(
        base,
        districts=districts,
        tiles=tiles,
        box_tiles=base["box_tiles"] + base["districts"][district]["tiles"] + [owned_books, owned_back],
    )
    state = patched(
        state,
        0,
        hand=hand,
        check_area=[plan],
        gps=1,
        rondel=rondel(),
        cubes=[board.districts[district]["boundary"][0]],
        tiles=[{"tile": owned_books, "faceUp": True}, {"tile": owned_back, "faceUp": False}],
    )
    state["box_tiles"] = [t for t in state["box_tiles"] if t not in (owned_books, owned_back)]
    return in_phase(state, "p4", 0), district, target, others, blue


def test_T08_a_patrol_takes_the_easy_challenge_with_passive_icons_and_GPS():
    """T-8 (R-4.5, R-4.6): S = 1 + 1 + 2 + 3 = 7 >= 6: +2 BOOKS, the tile face-down beside the BOOKS tile,
    the blue card to the hospital, the district's other tiles face-up."""
    state, district, target, others, blue = patrol_position()
    state = play(state, 0, {"type": "PATROL_CHOOSE_DISTRICT", "districtId": district})
    assert patrol.search_total(state, 0, [blue], 1)[0] == 7
    state = play(
        state,
        0,
        {"type": "PATROL_TAKE", "tileId": target, "challenge": "EASY", "partyCardIds": [blue], "gps": 1},
    )
    p = state["players"][0]
    assert p["rondel"]["BOOKS"] == 2 and p["gps"] == 0
    assert {"tile": target, "faceUp": False} in p["tiles"]
    assert blue in p["hospital"] and blue not in p["hand"]
    assert all(state["tiles"][t]["faceUp"] for t in others)


def test_T09_the_doctor_cannot_join_a_party():
    """T-9 (R-4.5): party = [doctor] is refused, the doctor has no search icon."""
    state, district, target, _, _ = patrol_position()
    state = play(state, 0, {"type": "PATROL_CHOOSE_DISTRICT", "districtId": district})
    doctor = set_card(state, 0, "DOCTOR")
    refusal = refused(
        state,
        0,
        {"type": "PATROL_TAKE", "tileId": target, "challenge": "EASY", "partyCardIds": [doctor], "gps": 1},
    )
    assert refusal.reason == "bad_party" and "R-4.5" in refusal.message


def test_T10_a_district_without_an_own_cube_on_its_boundary_is_refused():
    """T-10 (R-4.2c)."""
    state, _district, _, _, _ = patrol_position()
    board = board_of(state["content"])
    far = next(
        d
        for d in sorted(board.districts)
        if not set(board.districts[d]["boundary"]) & set(state["players"][0]["cubes"])
    )
    refusal = refused(state, 0, {"type": "PATROL_CHOOSE_DISTRICT", "districtId": far})
    assert refusal.reason == "not_eligible" and "R-4.2" in refusal.message


# -- Phases 5 and 6 --------------------------------------------------------------------------------


def market_position(market: list, deck_size: int, hkd: int = 10) -> dict:
    base = started(2, "market")
    deck = base["deck"][:deck_size]
    state = patched(base, market=market, deck=deck)
    state = patched(state, 0, hkd=hkd, objectives=[None, None, None])
    return in_phase(state, "p5", 0)


def test_T11_a_row_with_one_card_costs_2_and_refills_at_once_triggering_the_end():
    """T-11 (R-5.3, R-5.6): price 2 HK$; the row is empty, so 3 cards are drawn into it; the deck reaching 0
    triggers the end."""
    base = started(2, "market")
    cards = base["market"]
    market = [cards[0], cards[1], [cards[2][0], None, None]]
    state = market_position(market, 3)
    drawn = state["deck"]
    after = events(state, 0, {"type": "BUY_MARKET_CARD", "row": 2, "col": 0, "objectiveSpaceIndex": 0})
    assert after[0]["data"]["price"] == 2
    refill = next(e for e in after if e["type"] == "row_refilled")
    assert refill["data"]["cards"] == drawn and refill["data"]["row"] == 2
    assert any(e["type"] == "end_triggered" and e["data"]["round"] == state["round"] for e in after)


def test_T12_a_full_row_costs_4():
    """T-12 (R-5.3)."""
    state = market_position(started(2, "market")["market"], 20)
    assert (
        events(state, 0, {"type": "BUY_MARKET_CARD", "row": 1, "col": 1, "objectiveSpaceIndex": 0})[0][
            "data"
        ]["price"]
        == 4
    )


def into_cleanup(state: dict) -> dict:
    """From Phase 5 with every seat but the one to act having passed: the last pass starts Phase 6."""
    state = patched(state, pass_streak=state["n"] - 1)
    return play(state, state["active"], {"type": "PASS"})


def test_T13_market_decay_discards_the_rightmost_card_of_each_row_and_refills():
    """T-13 (R-6.1, R-6.2): the top row holds 1 card; 3 cards are discarded and the top row refilled."""
    cards = started(2, "market")["market"]
    state = market_position([[cards[0][0], None, None], cards[1], cards[2]], 20)
    state = patched(state, 0, objectives=[None, None, None])
    state = patched(state, 1, objectives=[None, None, None])
    after = into_cleanup(state)
    assert after["discard"] == [cards[0][0], cards[1][2], cards[2][2]]
    assert all(c is not None for c in after["market"][0])
    assert after["market"][1][2] is None and after["market"][2][2] is None


def test_T14_food_and_water_spoil_batteries_do_not():
    """T-14 (R-6.3): FOOD 2, WATER 1, BATTERY 1 -> 0, 0, 1."""
    state = market_position(started(2, "market")["market"], 20)
    state = patched(state, 0, rondel=rondel(FOOD=2, WATER=1, BATTERY=1))
    after = into_cleanup(state)
    assert after["players"][0]["rondel"] == rondel(BATTERY=1)


# -- Phase 7 ---------------------------------------------------------------------------------------


def district_of_size(board, size: int) -> str:
    return next(d for d in sorted(board.districts) if len(board.districts[d]["boundary"]) == size)


def into_stabilisation(holdings: dict[int, list[str]]) -> dict:
    """Phase 5's last pass with these cubes on the map and no objective cards to discard: Phase 6 runs on,
    and Phase 7 stops at the house choices."""
    state = market_position(started(2, "stabilise")["market"], 20)
    for seat, cubes in holdings.items():
        state = patched(state, seat, cubes=sorted(cubes), objectives=[None, None, None], vp=0)
    return into_cleanup(state)


def test_T15_a_three_location_district_held_by_one_player():
    """T-15 (R-7.3): D's tiles go to the box; G places the house from "petrol reward", unlocking it; G scores
    table[3] = 3."""
    board = board_of(started(2, "stabilise")["content"])
    d = district_of_size(board, 3)
    state = into_stabilisation({0: board.districts[d]["boundary"], 1: []})
    tiles = started(2, "market")["districts"][d]["tiles"]  # market_position deals from this seed
    assert state["districts"][d]["stabilised"] and state["districts"][d]["tiles"] == []
    assert set(tiles) <= set(state["box_tiles"])
    assert state["players"][0]["vp"] == 3
    assert GAME.to_act(state) == [0]
    state = play(state, 0, {"type": "CHOOSE_HOUSE", "districtId": d, "checkSpaceId": "petrol-reward"})
    spaces = {s["action"]: s["covered"] for s in state["players"][0]["spaces"]}
    assert spaces["petrol-reward"] is False and state["districts"][d]["houses"] == [0]


def test_T16_a_seven_location_district_held_by_W_with_G_on_two():
    """T-16: W places a house and scores table[7] = 14; G scores table[2] = 2 and places no house."""
    board = board_of(started(2, "stabilise")["content"])
    d = district_of_size(board, 7)
    boundary = board.districts[d]["boundary"]
    state = into_stabilisation({0: boundary, 1: boundary[:2]})
    assert state["players"][0]["vp"] == 14 and state["players"][1]["vp"] == 2
    assert state["collect"]["due"] == {"0": [d]}


def test_T17_a_district_held_by_both_in_the_same_round():
    """T-17: both place houses and unlock; each scores the table value of the boundary size (4 -> 5)."""
    board = board_of(started(2, "stabilise")["content"])
    d = district_of_size(board, 4)
    boundary = board.districts[d]["boundary"]
    state = into_stabilisation({0: boundary, 1: boundary})
    assert state["players"][0]["vp"] == state["players"][1]["vp"] == 5
    assert sorted(GAME.to_act(state)) == [0, 1]
    state = play(state, 1, {"type": "CHOOSE_HOUSE", "districtId": d, "checkSpaceId": "tools-reward"})
    state = play(state, 0, {"type": "CHOOSE_HOUSE", "districtId": d, "checkSpaceId": "petrol-reward"})
    assert sorted(state["districts"][d]["houses"]) == [0, 1] and state["collect"] is None
    for seat, space in ((0, "petrol-reward"), (1, "tools-reward")):
        assert {"action": space, "covered": False} in state["players"][seat]["spaces"]


# -- Phase 8 ---------------------------------------------------------------------------------------


def refill_position(hand_size: int, slot_sizes: list[int], threshold: int = 4) -> dict:
    base = started(2, "refill")
    animal = base["players"][0]["animal"]
    cards = [c["id"] for c in base["content"]["playerSets"][animal]]
    hand, rest = cards[:hand_size], cards[hand_size:]
    slots = []
    for size in slot_sizes + [0] * (4 - len(slot_sizes)):
        slots.append([{"card": c, "faceUp": True, "round": 0} for c in rest[:size]])
        rest = rest[size:]
    return in_phase(patched(base, 0, hand=hand, slots=slots, threshold=threshold), "p8", 0)


def test_T18_refill_takes_the_largest_slot_and_opens_the_check_mark_actions():
    """T-18 (R-8.3): hand 3, threshold 4, slots [1, 4, 2]: slot 2 -> hand 7; slot 3 is refused."""
    state = refill_position(3, [1, 4, 2])
    assert refused(state, 0, {"type": "REFILL_HAND", "slot": 3}).reason == "not_largest_slot"
    after = play(state, 0, {"type": "REFILL_HAND", "slot": 2})
    assert len(after["players"][0]["hand"]) == 7 and after["turn"]["refilled"]
    unlocked = patched(after, 0, spaces=[{"action": "petrol-reward", "covered": False}])
    assert {"type": "ACTIVATE_CHECK_ACTION", "sourceId": "petrol-reward"} in GAME.legal_actions(unlocked, 0)


def test_T19_a_hand_over_the_threshold_cannot_refill():
    """T-19 (R-8.2): hand 5 over threshold 4 is refused; with threshold 6 (power restoration A) it is allowed."""
    state = refill_position(5, [1, 4, 2])
    assert refused(state, 0, {"type": "REFILL_HAND", "slot": 2}).reason == "refill_not_allowed"
    allowed = play(patched(state, 0, threshold=6), 0, {"type": "REFILL_HAND", "slot": 2})
    assert len(allowed["players"][0]["hand"]) == 9


# -- The end ---------------------------------------------------------------------------------------


def test_T20_final_scoring():
    """T-20 (E-5, E-7): rondel cubes 12 with 1 battery, HK$ 9, 3 face-up tiles, card points 11: HK$ 21 ->
    +4 VP with 1 HK$ left; + table[3]; + 11; the tie-break uses the 1 HK$ left."""
    the_pack = pack()
    cards = [
        fixture_card(
            the_pack,
            {"id": f"FX-P{i}", "kind": "VOLUNTEER", "colour": "RED", "gatherCount": 1, "points": points},
        )
        for i, points in enumerate((5, 4, 2))
    ]
    base = started(2, "t20", the_pack)
    tiles = [{"tile": t, "faceUp": True} for t in base["districts"][sorted(base["districts"])[0]]["tiles"]]
    state = patched(
        base,
        0,
        rondel=rondel(FOOD=3, TOOLS=4, BOOKS=4, BATTERY=1),
        hkd=9,
        vp=0,
        tiles=tiles,
        hand=cards[:2],
        slots=[[{"card": cards[2], "faceUp": True, "round": 0}], [], [], []],
    )
    state = patched(
        state,
        1,
        rondel=rondel(FOOD=3, TOOLS=4, BOOKS=4, BATTERY=1),
        hkd=8,
        vp=0,
        tiles=tiles,
        hand=cards[:2],
        slots=[[{"card": cards[2], "faceUp": True, "round": 0}], [], [], []],
    )
    result = scoring.final_scoring(state)
    row = result["players"][0]
    table = state["content"]["scoringTable"]
    assert (row["hkd_total"], row["vp_from_hkd"], row["hkd_left"]) == (21, 4, 1)
    assert row["vp_from_tiles"] == table[2] == 3 and row["vp_from_cards"] == 11
    assert row["total"] == 4 + 3 + 11
    assert result["players"][1]["total"] == row["total"] and result["players"][1]["hkd_left"] == 0
    assert result["winners"] == [0] and result["tie_break"] == "HK$ left"


def test_T21_three_player_single_setup():
    """T-21 (S-5 to S-12): reserve 21, deck 42 after the market; each player 4 HK$, 5 transport, 1 battery,
    23 cubes in supply after the start cube, 7 cards in hand."""
    state = started(3, "t21")
    assert len(state["reserve"]) == 21 and len(state["deck"]) == 42
    for p in state["players"]:
        assert (p["hkd"], p["transport"], p["rondel"]["BATTERY"], p["supply"], len(p["hand"])) == (
            4,
            5,
            1,
            23,
            7,
        )
        assert len(p["cubes"]) == 1


def test_T22_the_deck_ends_in_round_9_so_round_10_is_the_last():
    """T-22 (E-1 to E-3): the objective deck reaches 0 in round 9's Phase 5: round 9 is completed, round 10
    is played, then final scoring; draws after the trigger come from the reserve."""
    base = started(2, "t22")
    cards = base["market"]
    state = market_position([cards[0], cards[1], [cards[2][0], None, None]], 1)
    reserve = state["reserve"]
    state = patched(state, round=9)
    state = play(state, 0, {"type": "BUY_MARKET_CARD", "row": 2, "col": 0, "objectiveSpaceIndex": 0})
    assert state["end_round"] == 9 and state["final_round"] == 10 and state["deck"] == []
    assert state["market"][2][1:] == reserve[:2]
    rng = random.Random(22)
    rounds = set()
    while not GAME.is_over(state):
        rounds.add(state["round"])
        seat = rng.choice(GAME.to_act(state))
        played = GAME.play(state, seat, rng.choice(GAME.legal_actions(state, seat)))
        for e in played:
            if e["type"] == "row_refilled":
                assert e["data"]["from_deck"] == 0  # E-2: only the reserve from now on
        state = played.states[-1]
    assert rounds == {9, 10} and state["round"] == 10 and state["result"]["players"]
