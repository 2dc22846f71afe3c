"""Blackout: Hong Kong, one test per numbered rule of the spec the engine implements (S-, R-, E-, C-), named
after the rule, refusals included. The Appendix-A examples are in ``test_blackout_hong_kong_appendix``;
these tests cover what they do not, or the rule from another side."""

from __future__ import annotations

import random

import pytest

from service.games.blackout_hong_kong import GAME, common, effects, objectives, patrol, scoring, volunteers
from service.games.blackout_hong_kong.board import RESOURCES, board_of
from service.games.protocol import InvalidOptions
from tests.games.blackout_support import (
    events,
    fixture_card,
    in_phase,
    new_game,
    pack,
    patched,
    play,
    refused,
    set_card,
    started,
)
from tests.games.test_blackout_hong_kong_appendix import (
    crisis_plan,
    into_cleanup,
    into_stabilisation,
    market_position,
    objective,
    objective_position,
    patrol_position,
    refill_position,
    rondel,
)

SPACE2 = {"area": "OBJECTIVE_SPACE", "index": 2}


# -- setup (section 2) ----------------------------------------------------------------------------


def test_s_1_single_and_campaign_modes():
    assert new_game(3)["mode"] == "SINGLE" and new_game(3, mode="CAMPAIGN")["mode"] == "CAMPAIGN"
    assert new_game(1)["mode"] == "CAMPAIGN"  # solo belongs to the campaign (C-13)


def test_s_2_player_counts_per_mode():
    with pytest.raises(InvalidOptions) as error:
        GAME.resolve_options({"mode": "SINGLE"}, 1)
    assert error.value.field == "options.mode"
    assert GAME.resolve_options({"mode": "SINGLE", "ALLOW_SOLO_SINGLE": True}, 1)["mode"] == "SINGLE"
    assert GAME.info.counts() == [1, 2, 3, 4]


def test_s_4_three_face_down_tiles_in_each_of_16_districts():
    state = new_game(2)
    assert len(state["districts"]) == 16
    assert all(len(d["tiles"]) == 3 for d in state["districts"].values())
    assert not any(t["faceUp"] or t["seenBy"] for t in state["tiles"].values())


@pytest.mark.parametrize(
    "players, mode, reserve, deck",
    [
        (2, "SINGLE", 36, 27),
        (3, "SINGLE", 21, 42),
        (4, "SINGLE", 15, 48),
        (1, "CAMPAIGN", 33, 30),
        (2, "CAMPAIGN", 24, 39),
        (3, "CAMPAIGN", 18, 45),
        (4, "CAMPAIGN", 12, 51),
    ],
)
def test_s_5_reserve_and_objective_deck_sizes(players, mode, reserve, deck):
    state = new_game(players, mode=mode)
    assert (len(state["reserve"]), len(state["deck"])) == (reserve, deck)
    assert all(c is not None for row in state["market"] for c in row)


def test_s_6_score_zero_25_cubes_and_one_battery():
    for p in new_game(4)["players"]:
        assert p["vp"] == 0 and p["rondel"] == rondel(BATTERY=1) and p["supply"] == 24


def test_s_7_transport_money_houses_threshold_and_locked_slot_4():
    for p in new_game(3)["players"]:
        assert (p["transport"], p["hkd"], p["threshold"], p["slot4"]) == (5, 4, 4, False)
        assert p["spaces"] and all(s["covered"] for s in p["spaces"])


def test_s_8_two_starting_volunteers_each_the_third_space_empty():
    state = new_game(3)
    dealt = [h["card"] for p in state["players"] for h in p["objectives"] if h]
    assert len(dealt) == len(set(dealt)) == 6
    for p in state["players"]:
        assert p["objectives"][2] is None
        assert all(
            common.card(state, h["card"])["origin"] == "STARTING_VOLUNTEER" for h in p["objectives"][:2]
        )


def test_s_9_emergency_plans_personal_in_single_shared_in_campaign():
    single = new_game(4)
    plans = [p["emergency"]["card"] for p in single["players"]]
    assert len(set(plans)) == 4 and single["shared_plans"] == []
    campaign = new_game(2, mode="CAMPAIGN")
    assert all(p["emergency"] is None for p in campaign["players"])
    assert [common.card(campaign, s["card"])["letter"] for s in campaign["shared_plans"]] == ["A"]  # C-10


def test_s_10_player_cards_placed_by_their_setup_position():
    state = new_game(2, animal_sets=["DRAGON", "SHEEP"])
    p = state["players"][0]
    assert p["animal"] == "DRAGON" and len(p["hand"]) == 7 and len(p["hospital"]) == 2
    assert [len(s) for s in p["slots"]] == [1, 2, 0, 0]
    assert set_card(state, 0, "LEADER") in p["hospital"]
    bottom, top = (common.card(state, e["card"])["colour"] for e in p["slots"][1])
    assert (bottom, top) == ("RED", "BLUE")


def test_s_11_start_player_chosen_or_drawn_from_the_seed():
    assert new_game(4, START_SEAT=2)["start_seat"] == 2
    assert new_game(4, "a")["start_seat"] == new_game(4, "a")["start_seat"]
    assert refused(new_game(4, START_SEAT=2), 3, {"type": "PASS"}).reason in ("not_your_turn", "wrong_phase")


def test_s_12_start_cubes_counter_clockwise_from_the_start_players_right_on_distinct_locations():
    state = new_game(4, START_SEAT=1)
    order = []
    first = None
    while state["step"] == "start_cubes":
        seat = GAME.to_act(state)[0]
        order.append(seat)
        location = GAME.legal_actions(state, seat)[0]["locationId"]
        if first is None:
            first = location
        elif seat == order[1]:
            assert (
                refused(state, seat, {"type": "PLACE_START_CUBE", "locationId": first}).reason
                == "location_taken"
            )
        state = play(state, seat, {"type": "PLACE_START_CUBE", "locationId": location})
    assert order == [0, 3, 2, 1]
    assert state["step"] == "plan" and state["round"] == 1


# -- the round (section 3.0) -----------------------------------------------------------------------


def test_r_0_1_eight_phases_in_order():
    steps = []
    state = started(2, "phases")
    rng = random.Random(1)
    while state["round"] == 1:
        seat = GAME.to_act(state)[0]
        played = GAME.play(state, seat, rng.choice(GAME.legal_actions(state, seat)))
        steps += [e["data"]["step"] for e in played if e["type"] == "phase_started"]
        state = played.states[-1]
    assert steps == ["p2", "p3", "p4", "p5", "p6", "p7", "p8", "plan"]


def test_r_0_2_the_start_player_passes_left_each_round():
    state = started(3, "left", START_SEAT=2)
    rng = random.Random(2)
    starts = [state["start_seat"]]
    while state["round"] < 3:
        seat = GAME.to_act(state)[0]
        state = play(state, seat, rng.choice(GAME.legal_actions(state, seat)))
        if state["start_seat"] != starts[-1]:
            starts.append(state["start_seat"])
    assert starts == [2, 0, 1]


def test_r_0_3_sequential_phases_in_turn_order_and_simultaneous_planning():
    state = started(3, "order", START_SEAT=1)
    assert sorted(GAME.to_act(state)) == [0, 1, 2]
    phase3 = in_phase(state, "p3", 1)
    assert GAME.to_act(phase3) == [1]
    assert refused(phase3, 2, {"type": "END_TURN"}).reason == "not_your_turn"
    assert GAME.to_act(play(phase3, 1, {"type": "END_TURN"})) in ([2], [0])


def test_r_0_4_free_actions_buy_transport_for_vp_and_batteries_for_money():
    state = in_phase(patched(started(2), 0, vp=0, hkd=9), "p3", 0)
    after = play(state, 0, {"type": "BUY_TRANSPORT", "count": 2})["players"][0]
    assert after["vp"] == -2 and after["transport"] == 7  # VP may go negative
    after = play(state, 0, {"type": "BUY_BATTERY", "count": 1})["players"][0]
    assert after["hkd"] == 4 and after["rondel"]["BATTERY"] == 2
    assert refused(state, 0, {"type": "BUY_BATTERY", "count": 2}).reason == "cannot_afford"
    assert refused(state, 1, {"type": "BUY_TRANSPORT", "count": 1}).reason == "not_your_turn"


def test_r_0_5_batteries_replace_units_and_payments_are_whole():
    the_pack = pack()
    card = crisis_plan(
        the_pack,
        "FX-R05",
        [
            objective(
                {"type": "POINTS", "n": 1}, requirements=[{"type": "RESOURCE", "resource": "WATER", "n": 2}]
            )
        ],
    )
    state = objective_position(the_pack, card, rondel=rondel(WATER=1, BATTERY=1), vp=0)
    complete = {"type": "COMPLETE_OBJECTIVE", "source": SPACE2, "objectiveIndex": 0}
    listed = next(
        a for a in GAME.legal_actions(state, 0) if a["type"] == "COMPLETE_OBJECTIVE" and a["source"] == SPACE2
    )
    assert listed["choices"]["payment"] == [{"resources": {"WATER": 1, "BATTERY": 1}, "hkd": 0}]
    after = play(state, 0, {**complete, "payment": {"resources": {"WATER": 1, "BATTERY": 1}}})
    assert after["players"][0]["rondel"] == rondel()
    assert (
        refused(state, 0, {**complete, "payment": {"resources": {"WATER": 1}}}).reason == "payment_mismatch"
    )
    assert (
        refused(state, 0, {**complete, "payment": {"resources": {"WATER": 1, "BATTERY": 2}}}).reason
        == "overpayment"
    )
    poor = patched(state, 0, rondel=rondel(WATER=1))
    assert refused(poor, 0, complete).reason == "cannot_afford"


def test_r_0_6_gains_stop_at_an_empty_cube_supply():
    the_pack = pack()
    card = fixture_card(the_pack, {"id": "FX-R06", "kind": "VOLUNTEER", "colour": "RED", "gatherCount": 3})
    state = in_phase(
        patched(started(2, "r06", the_pack), 0, supply=2, rondel=rondel(FOOD=0)),
        "p2",
        0,
        revealed=[card],
        current=card,
    )
    state = patched(state, dice={"RED": "FOOD", "YELLOW": "WATER", "BLUE": "TOOLS"})
    after = play(state, 0, {"type": "GATHER", "cardId": card, "targetResource": "FOOD"})["players"][0]
    assert after["rondel"]["FOOD"] == 2 and after["supply"] == 0


# -- phase 1 ----------------------------------------------------------------------------------------


def test_r_1_4_each_die_sits_on_its_face_for_the_round():
    state = started(2, "dice")
    assert set(state["dice"]) == {"RED", "YELLOW", "BLUE"} and set(state["dice"].values()) <= set(RESOURCES)


def test_r_1_5_a_plan_takes_distinct_hand_cards_one_per_open_slot():
    state = started(2, "plan")
    hand = state["players"][0]["hand"]
    assert (
        refused(state, 0, {"type": "SUBMIT_PLAN", "slots": {"1": hand[0], "2": hand[0]}}).reason
        == "duplicate_card"
    )
    other = state["players"][1]["hand"][0]
    assert refused(state, 0, {"type": "SUBMIT_PLAN", "slots": {"1": other}}).reason == "not_in_hand"
    assert refused(state, 0, {"type": "SUBMIT_PLAN", "slots": {"4": hand[0]}}).reason == "slot_locked"
    assert play(patched(state, 0, slot4=True), 0, {"type": "SUBMIT_PLAN", "slots": {"4": hand[0]}})


def test_r_1_6_a_planned_card_is_seen_by_its_owner_only():
    state = started(2, "secret")
    card = state["players"][0]["hand"][0]
    state = play(state, 0, {"type": "SUBMIT_PLAN", "slots": {"3": card}})
    state = play(state, 1, {"type": "SUBMIT_PLAN", "slots": {}})
    own, other = GAME.view(state, 0), GAME.view(state, 1)
    assert own["players"][0]["slots"][2][-1]["card"] == card
    assert other["players"][0]["slots"][2][-1] == {"faceUp": False, "round": 1}
    assert card not in str(other) and card not in str(GAME.view(state, None))


def test_r_1_7_planning_ends_when_every_plan_is_in_and_plans_may_be_revised_until_then():
    state = started(2, "revise")
    hand = state["players"][0]["hand"]
    state = play(state, 0, {"type": "SUBMIT_PLAN", "slots": {"1": hand[0]}})
    assert GAME.to_act(state) == [1] and GAME.legal_actions(state, 0)
    state = play(state, 0, {"type": "SUBMIT_PLAN", "slots": {"2": hand[1]}})
    closed = new_game(2, "revise", PLAN_REVISABLE=False)
    while closed["step"] == "start_cubes":
        seat = GAME.to_act(closed)[0]
        closed = play(closed, seat, GAME.legal_actions(closed, seat)[0])
    closed = play(closed, 0, {"type": "SUBMIT_PLAN", "slots": {}})
    assert refused(closed, 0, {"type": "SUBMIT_PLAN", "slots": {}}).reason == "plan_closed"
    state = play(state, 1, {"type": "SUBMIT_PLAN", "slots": {}})
    assert state["step"] != "plan" and [e["card"] for e in state["players"][0]["slots"][1]][-1] == hand[1]


# -- phase 2 ----------------------------------------------------------------------------------------


def planned_position(seat: int = 0, cards: tuple = (), **turn):
    base = started(2, "p2")
    slots = [list(base["players"][seat]["slots"][i]) for i in range(4)]
    for i, card in enumerate(cards):
        slots[i] = slots[i] + [{"card": card, "faceUp": False, "round": base["round"]}]
    return in_phase(patched(base, seat, slots=slots), "p2", seat, **turn)


def test_r_2_1_volunteers_and_specialists_in_turn_order():
    state = planned_position(0)
    assert GAME.to_act(state) == [0] and refused(state, 1, {"type": "END_TURN"}).reason == "not_your_turn"


def test_r_2_2_every_planned_card_is_revealed_before_the_turn_ends_and_strictly_in_turn():
    base = started(2, "p2")
    hand = base["players"][0]["hand"]
    state = planned_position(0, (hand[0], hand[1]))
    assert refused(state, 0, {"type": "END_TURN"}).reason == "cards_unrevealed"
    state = play(state, 0, {"type": "REVEAL_CARD", "slot": 1})
    state = play(state, 0, {"type": "REVEAL_CARD", "slot": 2})
    assert volunteers.usable_cards(state) == [hand[1]]  # A-43 STRICT: the first card's resolution has ended
    assert play(state, 0, {"type": "END_TURN"})


def test_r_2_3_cards_of_earlier_rounds_are_not_executed_again():
    state = planned_position(0)
    assert refused(state, 0, {"type": "REVEAL_CARD", "slot": 1}).reason == "no_card_to_reveal"


def test_r_2_4_a_volunteer_gathers_one_type_and_pays_the_ring_distance_buying_the_shortfall():
    the_pack = pack()
    card = fixture_card(the_pack, {"id": "FX-R24", "kind": "VOLUNTEER", "colour": "YELLOW", "gatherCount": 1})
    state = in_phase(
        patched(started(2, "r24", the_pack), 0, transport=1, vp=0), "p2", 0, revealed=[card], current=card
    )
    state = patched(state, dice={"RED": "FOOD", "YELLOW": "TOOLS", "BLUE": "WATER"})
    board = board_of(state["content"])
    far = next(r for r in RESOURCES if board.ring_distance("TOOLS", r) == 3)
    assert (
        refused(state, 0, {"type": "GATHER", "cardId": card, "targetResource": far}).reason
        == "not_enough_transport"
    )
    after = play(state, 0, {"type": "GATHER", "cardId": card, "targetResource": far, "buyTransport": 2})
    assert after["players"][0]["transport"] == 0 and after["players"][0]["vp"] == -2
    blocked = patched(state, options={**state["options"], "SHIFT_ONTO_OTHER_DIE": False})
    assert (
        refused(blocked, 0, {"type": "GATHER", "cardId": card, "targetResource": "FOOD"}).reason
        == "die_in_the_way"
    )


def test_r_2_5_specialist_rows_once_each_alternatives_exclusive_costs_whole():
    base = started(2, "r25")
    officer = set_card(base, 0, "PATROL_OFFICER")
    state = in_phase(
        patched(base, 0, rondel=rondel(PETROL=1), gps=0, hkd=0), "p2", 0, revealed=[officer], current=officer
    )
    state = play(state, 0, {"type": "USE_SPECIALIST_ROW", "cardId": officer, "rowIndex": 1})
    assert state["players"][0]["hkd"] == 2
    assert (
        refused(state, 0, {"type": "USE_SPECIALIST_ROW", "cardId": officer, "rowIndex": 1}).reason
        == "already_used"
    )
    state = play(
        state,
        0,
        {
            "type": "USE_SPECIALIST_ROW",
            "cardId": officer,
            "rowIndex": 0,
            "payment": {"resources": {"PETROL": 1}},
        },
    )
    assert state["players"][0]["gps"] == 1 and state["players"][0]["rondel"]["PETROL"] == 0
    assert (
        refused(
            in_phase(patched(base, 0, rondel=rondel()), "p2", 0, revealed=[officer], current=officer),
            0,
            {"type": "USE_SPECIALIST_ROW", "cardId": officer, "rowIndex": 0},
        ).reason
        == "cannot_afford"
    )
    assert (
        refused(
            state, 0, {"type": "USE_SPECIALIST_ROW", "cardId": officer, "rowIndex": 0, "alternativeIndex": 1}
        ).reason
        == "unknown_row"
    )


def test_r_2_7_no_objective_in_phase_2():
    state = planned_position(0)
    refusal = refused(
        state,
        0,
        {
            "type": "COMPLETE_OBJECTIVE",
            "source": {"area": "POWER_RESTORATION", "which": "A"},
            "objectiveIndex": 0,
        },
    )
    assert refusal.reason == "wrong_phase"


# -- phase 3 ----------------------------------------------------------------------------------------


def test_r_3_2_sources_objective_area_emergency_plan_power_restoration():
    state = in_phase(started(2, "r32"), "p3", 0)
    areas = {s["area"] for s, _, _ in objectives.open_objectives(state, 0)}
    assert areas == {"OBJECTIVE_SPACE", "EMERGENCY_PLAN", "POWER_RESTORATION"}
    campaign = in_phase(started(2, "r32", mode="CAMPAIGN"), "p3", 0)
    assert {s["area"] for s, _, _ in objectives.open_objectives(campaign, 0)} == {
        "OBJECTIVE_SPACE",
        "POWER_RESTORATION",
        "SHARED_PLAN",
    }


def test_r_3_3_every_requirement_must_hold():
    the_pack = pack()
    card = crisis_plan(
        the_pack,
        "FX-R33",
        [
            objective(
                {"type": "POINTS", "n": 1},
                requirements=[
                    {"type": "SLOT_COLOURS", "colours": ["PURPLE", "PURPLE", "PURPLE"]},
                    {"type": "HKD", "n": 1},
                ],
            )
        ],
    )
    state = objective_position(the_pack, card)
    refusal = refused(state, 0, {"type": "COMPLETE_OBJECTIVE", "source": SPACE2, "objectiveIndex": 0})
    assert refusal.reason == "requirement_unmet" and "R-3.4" in refusal.message


def test_r_3_4_any_single_resource_pays_one_type():
    the_pack = pack()
    card = crisis_plan(
        the_pack,
        "FX-R34",
        [objective({"type": "POINTS", "n": 1}, requirements=[{"type": "ANY_SINGLE_RESOURCE", "n": 2}])],
    )
    state = objective_position(the_pack, card, rondel=rondel(FOOD=1, TOOLS=1, BATTERY=1))
    action = {"type": "COMPLETE_OBJECTIVE", "source": SPACE2, "objectiveIndex": 0}
    assert (
        refused(state, 0, {**action, "payment": {"resources": {"FOOD": 1, "TOOLS": 1}}}).reason
        == "payment_mismatch"
    )
    after = play(state, 0, {**action, "payment": {"resources": {"FOOD": 1, "BATTERY": 1}}})
    assert after["players"][0]["rondel"] == rondel(TOOLS=1)


def test_r_3_4_patrol_tiles_requirement_counts_owned_tiles_without_spending_them():
    the_pack = pack()
    card = crisis_plan(
        the_pack,
        "FX-R34T",
        [
            objective(
                {"type": "POINTS", "n": 1},
                requirements=[{"type": "PATROL_TILES", "rewardTypes": ["POINTS", "BOOKS"]}],
            )
        ],
    )
    base = objective_position(the_pack, card)
    tiles = {t["rewardType"]: t["id"] for t in base["content"]["patrolTiles"]}
    owned = [{"tile": tiles["POINTS"], "faceUp": True}, {"tile": tiles["BOOKS"], "faceUp": False}]
    state = patched(base, 0, tiles=owned)
    action = {"type": "COMPLETE_OBJECTIVE", "source": SPACE2, "objectiveIndex": 0}
    assert play(state, 0, action)["players"][0]["tiles"] == owned  # not spent, face-down counts
    face_up_only = patched(state, options={**state["options"], "PATROL_REQ_TILES": "FACE_UP_ONLY"})
    assert refused(face_up_only, 0, action).reason == "requirement_unmet"
    assert refused(patched(state, 0, tiles=owned[:1]), 0, action).reason == "requirement_unmet"


def test_r_3_5_immediate_effects_are_mandatory():
    the_pack = pack()
    card = crisis_plan(the_pack, "FX-R35", [objective({"type": "PLACE_CUBE", "colour": "ANY"})])
    state = play(
        objective_position(the_pack, card),
        0,
        {"type": "COMPLETE_OBJECTIVE", "source": SPACE2, "objectiveIndex": 0},
    )
    assert refused(state, 0, {"type": "END_TURN"}).reason == "decision_pending"
    assert refused(state, 0, {"type": "PLACE_CUBE"}).reason == "cannot_decline"


def test_r_3_9_each_objective_once():
    the_pack = pack()
    card = crisis_plan(
        the_pack, "FX-R39", [objective({"type": "POINTS", "n": 1}), objective({"type": "POINTS", "n": 1})]
    )
    state = play(
        objective_position(the_pack, card),
        0,
        {"type": "COMPLETE_OBJECTIVE", "source": SPACE2, "objectiveIndex": 0},
    )
    state = play(state, 0, {"type": "RESOLVE_CLOSE_OUT", "cardId": card, "closeOut": False})
    assert (
        refused(state, 0, {"type": "COMPLETE_OBJECTIVE", "source": SPACE2, "objectiveIndex": 0}).reason
        == "unknown_objective"
    )


def power_position(which: str):
    state = in_phase(started(2, "power"), "p3", 0)
    requirement = state["content"]["personalBoard"]["powerRestoration"][which]["requirements"]
    held = rondel(**dict.fromkeys(RESOURCES, 5), BATTERY=3)
    state = patched(state, 0, rondel=held, hkd=30, vp=0, cubes=sorted(set(state["players"][0]["cubes"])))
    return state, requirement


def test_r_3_10_power_restoration_a_gives_10_vp_and_a_refill_threshold_of_6():
    state, requirements = power_position("A")
    if any(
        r["type"] not in ("RESOURCE", "RESOURCE_ONE_OF", "ANY_SINGLE_RESOURCE", "HKD") for r in requirements
    ):
        state = patched(state, 0)  # requirements beyond payments are not in the default pack
    state = play(
        state,
        0,
        {
            "type": "COMPLETE_OBJECTIVE",
            "source": {"area": "POWER_RESTORATION", "which": "A"},
            "objectiveIndex": 0,
        },
    )
    p = state["players"][0]
    assert p["vp"] == 10 and p["threshold"] == 6 and p["power"]["A"]
    assert (
        refused(
            state,
            0,
            {
                "type": "COMPLETE_OBJECTIVE",
                "source": {"area": "POWER_RESTORATION", "which": "A"},
                "objectiveIndex": 0,
            },
        ).reason
        == "unknown_objective"
    )


def test_r_3_11_power_restoration_b_gives_10_vp_and_unlocks_slot_4_for_the_next_plan():
    state, _ = power_position("B")
    state = play(
        state,
        0,
        {
            "type": "COMPLETE_OBJECTIVE",
            "source": {"area": "POWER_RESTORATION", "which": "B"},
            "objectiveIndex": 0,
        },
    )
    assert state["players"][0]["vp"] == 10 and state["players"][0]["slot4"]
    assert common.usable_slots(state["players"][0]) == [1, 2, 3, 4]


def test_r_3_12_cube_placement_ignores_the_colour_once_every_such_location_is_held():
    base = in_phase(started(2, "r312"), "p3", 0)
    board = board_of(base["content"])
    purple = sorted(loc for loc, data in board.locations.items() if data["colour"] == "PURPLE")
    state = patched(base, 0, cubes=purple)
    targets = effects.placements(state, 0, "PURPLE")
    assert targets and not set(targets) & set(purple)  # any colour now, every other rule still applies
    other = effects.placements(patched(base, 0, cubes=purple[:1]), 0, "PURPLE")
    assert set(other) == set(purple[1:])


def test_r_3_13_a_crisis_centre_link_is_a_chain_of_own_cubes():
    the_pack = pack()
    base = started(2, "r313", the_pack)
    board = board_of(base["content"])
    letter, (a, b) = sorted(board.letters.items())[0]
    path = [a]
    import collections

    parents: dict[str, str | None] = {a: None}
    queue = collections.deque([a])
    while queue:
        here = queue.popleft()
        for nxt in sorted(board.neighbours[here]):
            if nxt not in parents:
                parents[nxt] = here
                queue.append(nxt)
    node, path = b, []
    while node:
        path.append(node)
        node = parents[node]
    card = crisis_plan(
        the_pack,
        "FX-R313",
        [
            objective(
                {"type": "POINTS", "n": 4}, requirements=[{"type": "CRISIS_CENTRE_LINK", "letter": letter}]
            )
        ],
    )
    state = objective_position(the_pack, card, cubes=sorted(path), vp=0)
    assert (
        play(state, 0, {"type": "COMPLETE_OBJECTIVE", "source": SPACE2, "objectiveIndex": 0})["players"][0][
            "vp"
        ]
        == 4
    )
    broken = patched(state, 0, cubes=sorted(set(path) - {path[len(path) // 2]}))
    assert (
        refused(broken, 0, {"type": "COMPLETE_OBJECTIVE", "source": SPACE2, "objectiveIndex": 0}).reason
        == "requirement_unmet"
    )
    other_players_cubes = patched(broken, 1, cubes=sorted(path))
    assert (
        refused(
            other_players_cubes, 0, {"type": "COMPLETE_OBJECTIVE", "source": SPACE2, "objectiveIndex": 0}
        ).reason
        == "requirement_unmet"
    )


def test_r_3_14_an_emptied_objective_space_can_be_bought_into():
    the_pack = pack()
    card = fixture_card(
        the_pack,
        {
            "id": "FX-R314",
            "kind": "VOLUNTEER",
            "colour": "RED",
            "gatherCount": 1,
            "destination": "HAND",
            "objectives": [objective({"type": "POINTS", "n": 1})],
        },
    )
    state = play(
        objective_position(the_pack, card),
        0,
        {"type": "COMPLETE_OBJECTIVE", "source": SPACE2, "objectiveIndex": 0},
    )
    assert state["players"][0]["objectives"][2] is None and card in state["players"][0]["hand"]


# -- phase 4 ----------------------------------------------------------------------------------------


def test_r_4_1_patrol_is_optional():
    state, _district, _, _, _ = patrol_position()
    after = events(state, 0, {"type": "PATROL_SKIP"})
    assert after[0]["type"] == "turn_ended" and after[0]["data"]["patrol"] == "skipped"


def test_r_4_2_a_district_chosen_by_another_player_this_round_is_not_eligible():
    state, district, _, _, _ = patrol_position()
    state = patched(
        state, districts={**state["districts"], district: {**state["districts"][district], "chosen_by": 1}}
    )
    assert (
        refused(state, 0, {"type": "PATROL_CHOOSE_DISTRICT", "districtId": district}).reason == "not_eligible"
    )


def test_r_4_3_only_the_patrolling_seat_sees_the_tiles():
    state, district, target, _, _ = patrol_position()
    looked = events(state, 0, {"type": "PATROL_CHOOSE_DISTRICT", "districtId": district})
    state = play(state, 0, {"type": "PATROL_CHOOSE_DISTRICT", "districtId": district})
    assert target in str(GAME.view(state, 0)) and target not in str(GAME.view(state, 1))
    assert target not in str(GAME.event_view(looked[0], 1)) and target in str(GAME.event_view(looked[0], 0))


def test_r_4_4_a_decline_puts_every_tile_back_unchanged():
    state, district, target, others, _ = patrol_position()
    state = play(state, 0, {"type": "PATROL_CHOOSE_DISTRICT", "districtId": district})
    after = play(state, 0, {"type": "PATROL_DECLINE"})
    assert after["districts"][district]["tiles"] == [target] + others
    assert not any(after["tiles"][t]["faceUp"] for t in [target] + others)
    assert after["districts"][district]["chosen_by"] == 0 and target not in str(GAME.view(after, 1))
    assert target in str(GAME.view(after, 0))  # seenBy: the patroller remembers what it saw


def test_r_4_5_party_icons_must_reach_the_tile():
    state, district, target, _, blue = patrol_position()
    state = play(state, 0, {"type": "PATROL_CHOOSE_DISTRICT", "districtId": district})
    refusal = refused(
        state,
        0,
        {"type": "PATROL_TAKE", "tileId": target, "challenge": "HARD", "partyCardIds": [blue], "gps": 1},
    )
    assert refusal.reason == "challenge_unmet" and "R-4.5" in refusal.message
    assert (
        refused(
            state,
            0,
            {"type": "PATROL_TAKE", "tileId": target, "challenge": "EASY", "partyCardIds": [blue], "gps": 2},
        ).reason
        == "not_enough_gps"
    )


def test_r_4_5_exploration_takes_the_lowest_easy_tile_with_4_icons():
    state, district, target, others, blue = patrol_position()
    state = play(state, 0, {"type": "PATROL_CHOOSE_DISTRICT", "districtId": district})
    lowest = others[0]  # easy 3, the lowest in the district
    assert (
        refused(
            state,
            0,
            {
                "type": "PATROL_TAKE",
                "tileId": target,
                "challenge": "EXPLORATION",
                "partyCardIds": [blue],
                "gps": 0,
            },
        ).reason
        == "not_exploration_tile"
    )
    after = play(
        state,
        0,
        {
            "type": "PATROL_TAKE",
            "tileId": lowest,
            "challenge": "EXPLORATION",
            "partyCardIds": [blue],
            "gps": 0,
        },
    )
    p = after["players"][0]
    assert (
        {"tile": lowest, "faceUp": False} in p["tiles"]
        and p["rondel"]["BOOKS"] == 0
        and blue in p["hospital"]
    )


def test_r_4_6_a_take_turns_the_other_tiles_up_and_injures_one_party_card_from_the_seed():
    state, district, target, _others, blue = patrol_position()
    state = play(state, 0, {"type": "PATROL_CHOOSE_DISTRICT", "districtId": district})
    leader = set_card(state, 0, "LEADER")
    taken = events(
        state,
        0,
        {
            "type": "PATROL_TAKE",
            "tileId": target,
            "challenge": "EASY",
            "partyCardIds": [blue, leader],
            "gps": 0,
        },
    )
    injury = next(e for e in taken if e["type"] == "injured")
    assert injury["data"]["card"] in (blue, leader)
    assert taken == events(
        state,
        0,
        {
            "type": "PATROL_TAKE",
            "tileId": target,
            "challenge": "EASY",
            "partyCardIds": [blue, leader],
            "gps": 0,
        },
    )  # the seed decides, again alike
    assert next(e for e in taken if e["type"] == "patrol_taken")["data"]["revealed"]


def test_r_4_7_face_down_tiles_add_their_back_icons():
    state, _, _, _, blue = patrol_position()
    with_back = patrol.search_total(state, 0, [blue], 0)[0]
    without = patrol.search_total(patched(state, 0, tiles=[]), 0, [blue], 0)[0]
    assert with_back - without == 2


# -- phase 5 ----------------------------------------------------------------------------------------


def test_r_5_1_buy_or_pass_in_turn_from_the_start_player():
    state = market_position(started(2, "r51")["market"], 20)
    after = play(state, 0, {"type": "PASS"})
    assert GAME.to_act(after) == [1]


def test_r_5_2_the_phase_ends_after_as_many_passes_in_a_row_as_players_and_passers_may_buy_later():
    state = market_position(started(2, "r52")["market"], 20)
    state = patched(state, 1, hkd=10, objectives=[None, None, None])
    state = play(state, 0, {"type": "PASS"})
    state = play(state, 1, {"type": "BUY_MARKET_CARD", "row": 0, "col": 0, "objectiveSpaceIndex": 0})
    assert state["step"] == "p5" and state["pass_streak"] == 0
    state = play(state, 0, {"type": "BUY_MARKET_CARD", "row": 0, "col": 1, "objectiveSpaceIndex": 0})
    state = play(state, 1, {"type": "PASS"})
    assert state["step"] == "p5"
    state = play(state, 0, {"type": "PASS"})
    assert state["step"] != "p5"


def test_r_5_2_auto_pass_for_a_player_who_cannot_buy():
    state = market_position(started(2, "r52a")["market"], 20, hkd=1)
    state = patched(state, 1, hkd=10, objectives=[None, None, None])
    played = events(patched(state, active=1), 1, {"type": "PASS"})
    assert any(e["type"] == "passed" and e["data"].get("auto") for e in played)


def test_r_5_4_a_purchase_needs_an_empty_space_and_the_price():
    state = market_position(started(2, "r54")["market"], 20, hkd=3)
    assert (
        refused(state, 0, {"type": "BUY_MARKET_CARD", "row": 0, "col": 0, "objectiveSpaceIndex": 0}).reason
        == "cannot_afford"
    )
    full = patched(
        state,
        0,
        hkd=9,
        objectives=started(2, "r54")["players"][0]["objectives"][:2]
        + [{"card": "x", "done": [], "markers": 0}],
    )
    assert (
        refused(full, 0, {"type": "BUY_MARKET_CARD", "row": 0, "col": 0, "objectiveSpaceIndex": 0}).reason
        == "space_taken"
    )


def test_r_5_5_cards_do_not_slide():
    market = started(2, "r55")["market"]
    state = play(
        market_position(market, 20),
        0,
        {"type": "BUY_MARKET_CARD", "row": 0, "col": 0, "objectiveSpaceIndex": 0},
    )
    assert state["market"][0] == [None, market[0][1], market[0][2]]
    slid = market_position(market, 20)
    slid = play(
        patched(slid, options={**slid["options"], "MARKET_SLIDE": True}),
        0,
        {"type": "BUY_MARKET_CARD", "row": 0, "col": 0, "objectiveSpaceIndex": 0},
    )
    assert slid["market"][0] == [market[0][1], market[0][2], None]  # A-05's alternative


def test_r_5_6_an_exhausted_deck_refills_from_the_reserve():
    cards = started(2, "r56")["market"]
    state = market_position([cards[0], cards[1], [cards[2][0], None, None]], 1)
    reserve = state["reserve"]
    after = play(state, 0, {"type": "BUY_MARKET_CARD", "row": 2, "col": 0, "objectiveSpaceIndex": 0})
    assert after["market"][2] == state["deck"] + reserve[:2]


def test_r_5_8_solo_market_decay_without_a_purchase():
    base = started(1, "r58")
    market = base["market"]
    state = in_phase(patched(base, 0, objectives=[None, None, None]), "p5", 0)
    after = play(state, 0, {"type": "PASS"})
    assert market[0][2] in after["discard"]  # the top row's rightmost card, before Phase 6's own decay
    bought = events(
        patched(state, 0, hkd=4), 0, {"type": "BUY_MARKET_CARD", "row": 1, "col": 0, "objectiveSpaceIndex": 0}
    )  # then auto-passes
    decayed = [e for e in bought if e["type"] == "market_decayed"]
    assert decayed and not any(e["data"].get("solo") for e in decayed)  # Phase 6's decay only


# -- phase 6 ----------------------------------------------------------------------------------------


def test_r_6_1_market_decay_third_column_only_alternative():
    cards = started(2, "r61")["market"]
    state = market_position([[cards[0][0], None, None], cards[1], cards[2]], 20)
    state = patched(state, options={**state["options"], "MARKET_DECAY_MODE": "THIRD_COLUMN_ONLY"})
    for seat in (0, 1):
        state = patched(state, seat, objectives=[None, None, None])
    assert into_cleanup(state)["discard"] == [cards[1][2], cards[2][2]]


def test_r_6_2_cleanup_refills_can_trigger_the_end():
    cards = started(2, "r62")["market"]
    state = market_position([[cards[0][0], None, None], cards[1], cards[2]], 3)
    for seat in (0, 1):
        state = patched(state, seat, objectives=[None, None, None])
    after = into_cleanup(state)
    assert after["end_round"] == state["round"] and after["final_round"] == state["round"] + 1


def test_r_6_3_food_and_water_sold_when_the_option_says_so():
    state = market_position(started(2, "r63")["market"], 20)
    state = patched(state, options={**state["options"], "FOOD_WATER_CLEANUP": "SELL_1HKD_EACH"})
    state = patched(state, 0, rondel=rondel(FOOD=2, WATER=1), hkd=0)
    after = into_cleanup(state)["players"][0]
    assert after["rondel"]["FOOD"] == 0 and after["hkd"] == 3


def test_r_6_4_ongoing_cleanup_effects_of_check_mark_area_cards():
    the_pack = pack()
    card = crisis_plan(the_pack, "FX-R64", [objective({"type": "POINTS", "n": 1})])
    the_pack["objectiveCards"][-1]["ongoingEffect"] = {"phase": "CLEANUP", "effect": {"type": "HKD", "n": 2}}
    base = started(2, "r64", the_pack)
    state = in_phase(patched(base, market=base["market"]), "p5", 0)
    state = patched(state, 0, check_area=[card], hkd=0, objectives=[None, None, None])
    state = patched(state, 1, objectives=[None, None, None])
    assert into_cleanup(state)["players"][0]["hkd"] == 2


def test_r_6_5_objective_cards_may_be_discarded_with_their_markers():
    the_pack = pack()
    card = crisis_plan(
        the_pack, "FX-R65", [objective({"type": "POINTS", "n": 1}), objective({"type": "POINTS", "n": 1})]
    )
    base = started(2, "r65", the_pack)
    state = in_phase(base, "p5", 0)
    supply = state["players"][0]["supply"]
    state = patched(
        state, 0, objectives=[None, None, {"card": card, "done": [0], "markers": 1}], supply=supply - 1
    )
    state = patched(state, 1, objectives=[None, None, None])
    state = into_cleanup(state)
    assert GAME.to_act(state) == [0]
    emergency = state["players"][0]["emergency"]["card"]
    assert (
        refused(state, 0, {"type": "CLEANUP_DISCARD_OBJECTIVES", "cardIds": [emergency]}).reason
        == "not_discardable"
    )
    state = play(state, 0, {"type": "CLEANUP_DISCARD_OBJECTIVES", "cardIds": [card]})
    assert card in state["discard"] and state["players"][0]["supply"] == supply


def test_r_6_6_simultaneous_discards_stay_hidden_until_every_seat_has_chosen():
    base = started(2, "r66")
    state = in_phase(base, "p5", 0)
    state = into_cleanup(state)
    assert sorted(GAME.to_act(state)) == [0, 1]
    first = state["players"][0]["objectives"][0]["card"]
    submitted = events(state, 0, {"type": "CLEANUP_DISCARD_OBJECTIVES", "cardIds": [first]})
    assert GAME.event_view(submitted[0], 1)["data"] == {}
    state = play(state, 0, {"type": "CLEANUP_DISCARD_OBJECTIVES", "cardIds": [first]})
    assert first not in str(GAME.view(state, 1)["collect"])
    state = play(state, 1, {"type": "CLEANUP_DISCARD_OBJECTIVES", "cardIds": []})
    assert first in state["discard"]


# -- phase 7 ----------------------------------------------------------------------------------------


def test_r_7_1_a_district_is_stabilised_once():
    board = board_of(started(2, "stabilise")["content"])
    d = sorted(board.districts)[0]
    state = into_stabilisation({0: board.districts[d]["boundary"], 1: []})
    if state["collect"]:
        state = play(state, 0, {"type": "CHOOSE_HOUSE", "districtId": d, "checkSpaceId": "petrol-reward"})
    assert state["districts"][d]["stabilised"]
    vp = state["players"][0]["vp"]
    again = into_cleanup(in_phase(patched(state, pass_streak=0), "p5", 0))
    assert again["players"][0]["vp"] == vp


def test_r_7_3_a_stabiliser_without_houses_places_a_cube():
    board = board_of(started(2, "stabilise")["content"])
    d = sorted(board.districts)[0]
    state = market_position(started(2, "stabilise")["market"], 20)
    spaces = [{**s, "covered": False} for s in state["players"][0]["spaces"]]
    state = patched(
        state, 0, cubes=board.districts[d]["boundary"], objectives=[None, None, None], spaces=spaces
    )
    state = patched(state, 1, objectives=[None, None, None])
    supply = state["players"][0]["supply"]
    after = into_cleanup(state)
    assert after["districts"][d]["substitutes"] == [0] and after["players"][0]["supply"] == supply - 1


def test_r_7_4_several_districts_one_house_each():
    board = board_of(started(2, "stabilise")["content"])
    first, second = sorted(board.districts)[:2]
    cubes = sorted(set(board.districts[first]["boundary"]) | set(board.districts[second]["boundary"]))
    state = into_stabilisation({0: cubes, 1: []})
    assert state["collect"]["due"]["0"] == [first, second]
    state = play(state, 0, {"type": "CHOOSE_HOUSE", "districtId": first, "checkSpaceId": "petrol-reward"})
    assert (
        refused(
            state, 0, {"type": "CHOOSE_HOUSE", "districtId": second, "checkSpaceId": "petrol-reward"}
        ).reason
        == "space_uncovered"
    )
    state = play(state, 0, {"type": "CHOOSE_HOUSE", "districtId": second, "checkSpaceId": "tools-reward"})
    assert state["districts"][first]["houses"] == [0] == state["districts"][second]["houses"]


def test_r_7_5_an_action_unlocked_in_phase_7_is_usable_in_phase_8():
    state = refill_position(3, [1, 4, 2])
    state = patched(state, 0, spaces=[{"action": "petrol-reward", "covered": False}])
    state = play(state, 0, {"type": "REFILL_HAND", "slot": 2})
    assert play(state, 0, {"type": "ACTIVATE_CHECK_ACTION", "sourceId": "petrol-reward"})


# -- phase 8 ----------------------------------------------------------------------------------------


def test_r_8_3_refilling_is_optional_and_an_empty_slot_cannot_be_taken():
    state = refill_position(3, [0, 0, 0])
    assert [
        a["type"] for a in GAME.legal_actions(state, 0) if a["type"] in ("REFILL_HAND", "DECLINE_REFILL")
    ] == ["DECLINE_REFILL"]
    assert refused(state, 0, {"type": "REFILL_HAND", "slot": 1}).reason == "not_largest_slot"
    assert (
        refused(refill_position(3, [1, 4, 2]), 0, {"type": "REFILL_HAND", "slot": 4}).reason
        == "not_largest_slot"
    )


def test_r_8_4_check_mark_actions_only_after_refilling_each_once():
    state = refill_position(3, [1, 4, 2])
    state = patched(
        state,
        0,
        spaces=[{"action": "petrol-reward", "covered": False}, {"action": "tools-reward", "covered": True}],
        rondel=rondel(),
    )
    assert (
        refused(state, 0, {"type": "ACTIVATE_CHECK_ACTION", "sourceId": "petrol-reward"}).reason
        == "not_refilled"
    )
    state = play(state, 0, {"type": "REFILL_HAND", "slot": 2})
    assert (
        refused(state, 0, {"type": "ACTIVATE_CHECK_ACTION", "sourceId": "tools-reward"}).reason
        == "action_locked"
    )
    state = play(state, 0, {"type": "ACTIVATE_CHECK_ACTION", "sourceId": "petrol-reward"})
    assert state["players"][0]["rondel"]["PETROL"] >= 1
    assert (
        refused(state, 0, {"type": "ACTIVATE_CHECK_ACTION", "sourceId": "petrol-reward"}).reason
        == "already_used"
    )


def test_r_8_5_after_every_turn_of_phase_8_a_new_round_begins():
    state = refill_position(3, [1, 4, 2])
    state = play(state, 0, {"type": "DECLINE_REFILL"})
    state = play(state, state["active"], {"type": "DECLINE_REFILL"}) if state["step"] == "p8" else state
    assert state["step"] == "plan" and state["round"] == 2


# -- specialists (section 4) ------------------------------------------------------------------------


def test_leader_activates_one_unlocked_check_mark_action():
    base = started(2, "leader")
    leader = set_card(base, 0, "LEADER")
    state = in_phase(
        patched(base, 0, spaces=[{"action": "petrol-reward", "covered": False}], rondel=rondel()),
        "p2",
        0,
        revealed=[leader],
        current=leader,
    )
    state = play(state, 0, {"type": "USE_SPECIALIST_ROW", "cardId": leader, "rowIndex": 0})
    assert GAME.legal_actions(state, 0)[0] == {"type": "CHOOSE_CHECK_ACTION", "sourceId": "petrol-reward"}
    state = play(state, 0, {"type": "CHOOSE_CHECK_ACTION", "sourceId": "petrol-reward"})
    assert state["players"][0]["rondel"]["PETROL"] == 1


def test_doctor_brings_a_card_back_from_hospital_and_scores_it():
    base = started(2, "doctor")
    doctor = set_card(base, 0, "DOCTOR")
    state = in_phase(
        patched(base, 0, rondel=rondel(MEDICINE=1), vp=0), "p2", 0, revealed=[doctor], current=doctor
    )
    state = play(state, 0, {"type": "USE_SPECIALIST_ROW", "cardId": doctor, "rowIndex": 0})
    card = state["players"][0]["hospital"][0]
    state = play(state, 0, {"type": "RETRIEVE_CARD", "cardId": card})
    p = state["players"][0]
    assert (
        card in p["hand"] and p["vp"] == common.card(state, card)["points"] and p["rondel"]["MEDICINE"] == 0
    )


# -- the end (section 5) ----------------------------------------------------------------------------


def test_e_1_the_end_triggers_once():
    cards = started(2, "e1")["market"]
    state = market_position([cards[0], cards[1], [cards[2][0], None, None]], 3)
    state = patched(state, end_round=4, final_round=5)
    after = events(state, 0, {"type": "BUY_MARKET_CARD", "row": 2, "col": 0, "objectiveSpaceIndex": 0})
    assert not any(e["type"] == "end_triggered" for e in after)


def test_e_1_draw_from_empty_alternative():
    cards = started(2, "e1b")["market"]
    state = market_position([cards[0], cards[1], [cards[2][0], None, None]], 3)
    state = patched(state, options={**state["options"], "END_TRIGGER": "DRAW_FROM_EMPTY"})
    after = play(state, 0, {"type": "BUY_MARKET_CARD", "row": 2, "col": 0, "objectiveSpaceIndex": 0})
    assert after["deck"] == [] and after["end_round"] is None


def test_e_5_cards_in_the_objective_area_and_hospital_score_nothing():
    state = started(2, "e5")
    row = scoring.final_scoring(state)["players"][0]
    p = state["players"][0]
    cards = p["hand"] + [e["card"] for s in p["slots"] for e in s]
    assert row["vp_from_cards"] == sum(common.card(state, c)["points"] for c in cards)


def test_e_6_tokens_are_worth_nothing_at_the_end():
    state = started(2, "e6")
    rich = patched(state, 0, transport=20, gps=5)
    assert (
        scoring.final_scoring(rich)["players"][0]["total"]
        == scoring.final_scoring(state)["players"][0]["total"]
    )


def test_e_7_a_full_tie_is_a_shared_victory():
    state = started(2, "e7")
    state = patched(state, 0, **{k: state["players"][1][k] for k in ("vp", "hkd", "rondel")})
    result = scoring.final_scoring(
        patched(state, 0, hand=state["players"][1]["hand"], slots=state["players"][1]["slots"])
    )
    assert result["winners"] == [0, 1]


# -- campaign and solo (section 6) ------------------------------------------------------------------


def test_c_5_c_6_any_player_completes_a_shared_objective_once_with_their_cube():
    state = in_phase(started(2, "c5", mode="CAMPAIGN"), "p3", 0)
    plan = state["shared_plans"][0]["card"]
    source = {"area": "SHARED_PLAN", "cardId": plan}
    rich = {"hkd": 30, "rondel": rondel(**dict.fromkeys(RESOURCES, 5), BATTERY=5)}
    state = patched(patched(state, 0, **rich), 1, **rich)
    index = next(k for s, k, _ in objectives.completable(state, 0) if s == source)
    action = {"type": "COMPLETE_OBJECTIVE", "source": source, "objectiveIndex": index}
    after = play(state, 0, action)
    while after["queue"]:
        after = play(after, 0, GAME.legal_actions(after, 0)[0])
    assert after["shared_plans"][0]["done"][str(index)] == [0] and after["shared_plans"][0]["cubes"] == {
        "0": 1
    }
    assert refused(after, 0, action).reason == "unknown_objective"
    other = in_phase(after, "p3", 1)
    assert play(other, 1, action)["shared_plans"][0]["done"][str(index)] == [0, 1]  # C-5: again, by another


def test_c_11_chapter_1_victory_needs_a_whole_shared_plan_and_n_vp():
    state = started(2, "c11", mode="CAMPAIGN", CAMPAIGN_MIN_VP=5)
    plan = state["shared_plans"][0]
    objectives = len(common.card(state, plan["card"])["objectives"])
    done = {str(k): [0] for k in range(objectives)}
    state = patched(state, shared_plans=[{**plan, "done": done}])
    state = patched(state, 0, vp=10)
    campaign = scoring.final_scoring(state)["campaign"]["players"]
    assert campaign[0]["victory"] is True and campaign[1]["victory"] is False
    unknown = patched(state, options={**state["options"], "CAMPAIGN_MIN_VP": None})
    assert scoring.final_scoring(unknown)["campaign"]["players"][0]["victory"] == "unknown"


def test_c_14_solo_keeps_the_start_player_and_ends_phase_5_after_one_pass():
    state = started(1, "c14")
    rng = random.Random(14)
    while state["round"] < 3:
        seat = GAME.to_act(state)[0]
        state = play(state, seat, rng.choice(GAME.legal_actions(state, seat)))
        assert state["start_seat"] == 0
    p5 = in_phase(state, "p5", 0)
    assert play(p5, 0, {"type": "PASS"})["step"] != "p5"


def test_c_15_a_retry_starts_with_more_money():
    assert new_game(1, mode="CAMPAIGN", CAMPAIGN_ATTEMPT=4)["players"][0]["hkd"] == 4 + 6
    flowers = started(1, "c15", mode="CAMPAIGN", CAMPAIGN_FLOWER_THRESHOLDS=[5, 10, 20], CAMPAIGN_MIN_VP=0)
    entry = scoring.final_scoring(flowers)["campaign"]["players"][0]
    assert entry["flowers"] == 0 and entry["failed"] is True  # no shared plan completed: no victory


def test_r_3_7_close_out_any_time_in_the_turn_when_the_option_says_so():
    the_pack = pack()
    card = crisis_plan(
        the_pack, "FX-R37", [objective({"type": "HKD", "n": 1}), objective({"type": "POINTS", "n": 1})]
    )
    state = objective_position(the_pack, card)
    objectives = list(state["players"][0]["objectives"])
    objectives[2] = {"card": card, "done": [0], "markers": 1}
    state = patched(state, 0, objectives=objectives)
    assert (
        refused(state, 0, {"type": "RESOLVE_CLOSE_OUT", "cardId": card, "closeOut": True}).reason
        == "not_pending"
    )
    anytime = patched(state, options={**state["options"], "CLOSE_OUT_TIMING": "ANY_TIME_IN_TURN"})
    assert {"type": "RESOLVE_CLOSE_OUT", "cardId": card, "closeOut": True} in GAME.legal_actions(anytime, 0)
    after = play(anytime, 0, {"type": "RESOLVE_CLOSE_OUT", "cardId": card, "closeOut": True})
    assert card in after["players"][0]["check_area"] and after["players"][0]["objectives"][2] is None


def test_a_20_any_time_in_turn_a_kept_plan_keeps_the_turn_open_for_its_close_out():
    """A-20 ANY_TIME_IN_TURN: closing out a kept plan is a move of the player's Phase 3 turn (R-3.2, §8.2
    #6), so the turn does not end by itself while a close-out is possible, after a Keep or from its start;
    by default (IMMEDIATE_ONLY) the Keep was the last chance, and the turn ends by itself."""
    the_pack = pack()
    unaffordable = {"type": "HKD", "n": 50}
    card = crisis_plan(
        the_pack,
        "FX-A20",
        [
            objective({"type": "HKD", "n": 1}),
            objective({"type": "POINTS", "n": 1}, requirements=[unaffordable]),
        ],
    )
    default = objective_position(the_pack, card, hkd=0, rondel=rondel())
    anytime = patched(default, options={**default["options"], "CLOSE_OUT_TIMING": "ANY_TIME_IN_TURN"})
    complete = {"type": "COMPLETE_OBJECTIVE", "source": SPACE2, "objectiveIndex": 0}
    keep = {"type": "RESOLVE_CLOSE_OUT", "cardId": card, "closeOut": False}
    close_out = {"type": "RESOLVE_CLOSE_OUT", "cardId": card, "closeOut": True}

    kept = play(play(anytime, 0, complete), 0, keep)
    assert objectives.completable(kept, 0) == []
    assert (kept["step"], GAME.to_act(kept)) == ("p3", [0])
    assert close_out in GAME.legal_actions(kept, 0) and {"type": "END_TURN"} in GAME.legal_actions(kept, 0)
    closed = GAME.play(kept, 0, close_out)
    assert card in closed.states[-1]["players"][0]["check_area"]
    assert [e["seat"] for e in closed if e["type"] == "turn_ended"] == [0]  # nothing left to do: it ends

    before_turn = in_phase(patched(kept, order=[1, 0]), "p3", 1)  # seat 1's turn ends, seat 0's begins
    begun = play(before_turn, 1, {"type": "END_TURN"})
    assert GAME.to_act(begun) == [0] and close_out in GAME.legal_actions(begun, 0)

    kept_by_default = events(play(default, 0, complete), 0, keep)
    assert [e["seat"] for e in kept_by_default if e["type"] == "turn_ended" and e["data"].get("auto")] == [0]


def test_a_38_without_virtual_markers_an_empty_supply_refuses_a_marked_completion():
    the_pack = pack()
    card = crisis_plan(
        the_pack, "FX-A38", [objective({"type": "HKD", "n": 1}), objective({"type": "POINTS", "n": 1})]
    )
    state = objective_position(the_pack, card)
    state = patched(state, options={**state["options"], "VIRTUAL_MARKERS": False})
    empty = patched(state, 0, supply=0, rondel=rondel(BATTERY=state["players"][0]["supply"] + 1))
    assert (
        refused(empty, 0, {"type": "COMPLETE_OBJECTIVE", "source": SPACE2, "objectiveIndex": 0}).reason
        == "no_marker_cube"
    )
    virtual = patched(empty, options={**empty["options"], "VIRTUAL_MARKERS": True})
    after = play(virtual, 0, {"type": "COMPLETE_OBJECTIVE", "source": SPACE2, "objectiveIndex": 0})
    assert after["queue"][0]["effect"]["type"] == "CLOSE_OUT_OFFER"


def test_r_7_4_a_simultaneous_house_choice_shows_the_others_nothing_of_which_district_it_was_for():
    """The entry hides the district and the space of a house chosen while others choose (A-47); the
    match's ``collect.due`` must not tell the district either, by dropping it from the seat's list."""
    board = board_of(started(2, "stabilise")["content"])
    first, second = sorted(board.districts)[:2]
    cubes = sorted(set(board.districts[first]["boundary"]) | set(board.districts[second]["boundary"]))
    state = into_stabilisation({0: cubes, 1: []})
    assert state["options"]["P6_P7_SIMULTANEOUS"]
    before = {seat: GAME.view(state, seat)["collect"] for seat in (None, 1)}
    for chosen in (first, second):
        after = play(
            state, 0, {"type": "CHOOSE_HOUSE", "districtId": chosen, "checkSpaceId": "petrol-reward"}
        )
        for seat in (None, 1):
            assert GAME.view(after, seat)["collect"]["due"] == before[seat]["due"] == {"0": [first, second]}
        other = second if chosen == first else first
        assert GAME.view(after, 0)["collect"]["due"] == {"0": [other]}  # the seat itself sees what is left
