"""Blackout: Hong Kong: a pure rules engine (spec ``service/games/blackout_hong_kong/rules.md``).

The engine is the kit's shape: actions through a table (``ACTIONS``), the automatic flow after each
action (``flow.proceed``), one small fold per event type marked with ``@applies`` (below), and one
gate for hidden information (``visibility``). The rules live in modules named for the game's parts:

- ``setup``: the state a game starts from, and the start cubes (S-12);
- ``flow``: the round's state machine (§3.9): who acts, and every step that needs no choice;
- ``common``: the steps and their phase numbers, lookups every phase shares;
- ``effects``: the effect queue: effects resolved without a choice (a table by effect type), and
  the decisions that answer the others;
- ``planning`` (Phase 1), ``volunteers`` (2), ``objectives`` (3), ``patrol`` (4), ``market`` (5),
  ``cleanup`` (6), ``stabilisation`` (7), ``refill`` (8): each phase's actions, the queries its rules
  ask and its entries of ``legal-actions``; ``free_actions`` (R-0.4);
- ``listing``: ``legal-actions`` put together; ``visibility``: ``view`` and ``event_view`` (§8.4);
- ``scoring``: final scoring and the campaign's result (section 5).

Effects are queued (``queue``): each one is resolved by an event, automatically when it needs no
choice, otherwise by the queue head's seat with a decision action. An event with ``queued: true``
resolves the head: ``apply`` pops it before the event's fold runs, so the fold may push follow-ups
to the front. Folds change a shallow copy of the state and copy nested parts before changing them
(``_player``, ``_copy``), so earlier states stay intact.

Chance (``setup_chance``): setup's shuffles and start seat come from the seed itself, one stream each
(``setup.drawn``); the draws of play (dice, injuries) go through ``common.picked``, which takes them
from ``rng``, a key derived from the seed and never shown, or, in a game the AI faces dealt from drawn
items, asks for each.

Hidden information has one gate, ``view`` and ``event_view`` in ``visibility.py`` (spec §8.4): hands and
unrevealed plans are their owner's, a patrol look is the patrolling seat's, simultaneous Phase 6/7 choices
stay hidden until every seat has chosen, decks are counts.

Reasons an action is refused (stable codes; the message names the rule): ``refusals.py``.
"""

from __future__ import annotations

import copy
from typing import Any

from service.games.blackout_hong_kong import (
    cleanup,
    effects,
    flow,
    free_actions,
    listing,
    market,
    objectives,
    patrol,
    planning,
    refill,
    scoring,
    setup,
    stabilisation,
    visibility,
    volunteers,
)
from service.games.blackout_hong_kong import content as pack_data
from service.games.blackout_hong_kong import options as opts
from service.games.blackout_hong_kong.actions import PARAMETERS, BlackoutHongKongAction
from service.games.blackout_hong_kong.board import board_of
from service.games.blackout_hong_kong.common import ACTIVE_FROM_FIRST, given, held_plan, refuse
from service.games.blackout_hong_kong.effects import DECISIONS, check_effects
from service.games.blackout_hong_kong.free_actions import FREE_ACTIONS
from service.games.blackout_hong_kong.planning import roll_until_valid  # noqa: F401 (the Appendix A tests use it)
from service.games.blackout_hong_kong.sentences import sentence
from service.games.blackout_hong_kong.svg import render_svg
from service.games.blackout_hong_kong.words import WORDS
from service.games.kit import Analyst, Engine, Turn, applies
from service.games.protocol import Action, Event, GameInfo, Packs, SetupChance, State
from service.games.texts import catalogue

_ = catalogue(__file__).gettext

POWER_REWARDS = {
    "A": [{"type": "POINTS", "n": 10}, {"type": "UPGRADE_REFILL_THRESHOLD"}],
    "B": [{"type": "POINTS", "n": 10}, {"type": "UNLOCK_SLOT4"}],
}

ACTIONS = {
    "PLACE_START_CUBE": setup.place_start_cube,
    "SUBMIT_PLAN": planning.submit_plan,
    "REVEAL_CARD": volunteers.reveal_card,
    "GATHER": volunteers.gather,
    "USE_SPECIALIST_ROW": volunteers.use_specialist_row,
    "END_TURN": flow.end_turn,
    "COMPLETE_OBJECTIVE": objectives.complete_objective,
    "RESOLVE_CLOSE_OUT": objectives.resolve_close_out,
    "PATROL_CHOOSE_DISTRICT": patrol.choose_district,
    "PATROL_TAKE": patrol.take,
    "PATROL_DECLINE": patrol.decline,
    "PATROL_SKIP": patrol.skip,
    "BUY_MARKET_CARD": market.buy_market_card,
    "PASS": market.pass_,
    "CLEANUP_DISCARD_OBJECTIVES": cleanup.discard_objectives,
    "CHOOSE_HOUSE": stabilisation.choose_house,
    "REFILL_HAND": refill.refill_hand,
    "DECLINE_REFILL": refill.decline_refill,
    "ACTIVATE_CHECK_ACTION": refill.activate_check_action,
    "BUY_TRANSPORT": free_actions.buy_transport,
    "BUY_BATTERY": free_actions.buy_battery,
    "PLACE_CUBE": effects.place_cube,
    "CHOOSE_RESOURCE": effects.choose_resource,
    "RETRIEVE_CARD": effects.retrieve_card,
    "CHOOSE_CHECK_ACTION": effects.choose_check_action,
}
"""Each action type's rules: ``(turn, seat, action)`` checks the action and emits its events."""


class BlackoutHongKong(Engine):
    words = WORDS
    analyst = Analyst()  # one step: the points each choice leaves the seat with
    info = GameInfo(
        id="blackout-hong-kong",
        name="Blackout: Hong Kong",
        min_players=1,
        max_players=4,
        hidden_information=True,
        chance=True,
        description="Hong Kong without power: plan volunteers and specialists in secret, gather on a dice-set "
        "rondel, complete objectives, patrol districts, stabilise the map. 2-4 players, campaign "
        "chapter 1 for 1-4, solo.",
        dynamics="simultaneous",  # Phase 1 planning is simultaneous (to_act: every seat still planning)
        utility="competitive",  # E-7: the highest VP wins
        # C-11: a chapter is won by each player who reaches its goals, whatever the others do
        utility_by_option={"mode": {"CAMPAIGN": "mixed"}},
    )
    options_schema = opts.OPTIONS_SCHEMA
    action_schema = BlackoutHongKongAction
    action_parameters = PARAMETERS
    packs = Packs(
        load=pack_data.load_pack,
        default=pack_data.DEFAULT_PACK,
        folder=pack_data.PACKS_DIR,
        option="CONTENT_PACK_ID",
        checked_by=(),
    )
    svg = staticmethod(render_svg)
    setup_chance = SetupChance(draws=setup.draws, drawn=setup.drawn, deal=setup.deal, given=given)
    turn_rule = "R-0.3"
    over_rule = "E-3"
    from service.games.blackout_hong_kong.refusals import (
        REFUSALS as refusals,
    )  # every reason play refuses with

    out_of_turn = frozenset(
        {"SUBMIT_PLAN"}
    )  # a submitted plan may be revised: checked in _submit_plan
    timeout_actions = {"pass": {"type": "PASS"}}
    # dice, draws, reveals and private looks: someone has learnt what was hidden or left to chance
    # (plans, discards and houses chosen in secret are shown to all once the last seat has chosen)
    irreversible = frozenset(
        {
            "dice_rolled",
            "card_revealed",
            "hand_refilled",
            "hand_revealed",
            "row_refilled",
            "patrol_viewed",
            "patrol_taken",
            "injured",
            "plans_placed",
            "market_decayed",
            "objectives_discarded",
            "houses_placed",
        }
    )

    def complete_options(
        self, resolved: dict[str, Any], players: int, given: dict[str, Any]
    ) -> dict[str, Any]:
        return opts.complete(resolved, players, given)

    def setup(self, options: dict[str, Any], players: int, seed: str, content: Any = None) -> State:
        return setup.setup(options, players, seed, content)

    # -- who acts, and what they may do --------------------------------------------------------------

    def is_over(self, state: State) -> bool:
        return state["step"] == "over"

    def to_act(self, state: State) -> list[int]:
        return flow.to_act(state)

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if (
            state["step"] == "plan"
            and not state["queue"]
            and str(seat) in state["plans"]
            and state["options"]["PLAN_REVISABLE"]
        ):
            return planning.plan_entries(state, seat)  # a submitted seat may still revise
        return super().legal_actions(state, seat)

    def _legal_actions(self, state: State, seat: int) -> list[Action]:
        return listing.legal_actions(state, seat)

    def _play(self, turn: Turn, seat: int, action: Action) -> None:
        rules = ACTIONS.get(action["type"])
        if rules is None:
            raise refuse("unknown_action", _("§8.2: no action {kind!r}", kind=action["type"]))
        if action["type"] not in FREE_ACTIONS:
            _check_decision(turn.state, seat, action)
        rules(turn, seat, action)
        flow.proceed(turn)

    # -- what a seat may see (§8.4), and the end ------------------------------------------------------

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return visibility.view(state, seat)

    def describe(self, event: Event, state: State | None = None) -> str:
        """The event as a short sentence in the rulebook's words (``sentences``), its cards and places
        named from ``state``'s pack where it is lent."""
        return sentence(event, state) or super().describe(event, state)

    def event_view(self, event: Event, seat: int | None) -> Event:
        return visibility.event_view(event, seat)

    def seen_by(self, state: State, seat: int) -> State:
        return visibility.seen_by(state, seat)

    def scores(self, state: State) -> dict[str, Any]:
        return scoring.scores(state)

    # -- the fold: one small method per event type ----------------------------------------------------

    def apply(self, state: State, event: Event) -> State:
        if event["data"].get("queued"):
            state = {**state, "queue": list(state["queue"][1:])}
        return super().apply(state, event)

    # -- setup and phase flow ----------------------------------------------------------------------

    @applies("start_cube_placed")
    def _start_cube_placed(self, state: State, data: dict[str, Any], seat: int) -> None:
        player = _player(state, seat)
        player["cubes"] = sorted(player["cubes"] + [data["location"]])
        player["supply"] -= 1
        state["start_queue"] = state["start_queue"][1:]
        state["active"] = state["start_queue"][0] if state["start_queue"] else None

    @applies("phase_started")
    def _phase_started(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state["round"], state["step"] = data["round"], data["step"]
        state["active"] = state["order"][0] if data["step"] in ACTIVE_FROM_FIRST else None
        state["turn"] = {}
        state["pass_streak"] = 0
        state["bought"] = False
        if data["step"] == "plan":
            state["plans"] = {}

    @applies("round_started")
    def _round_started(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state["round"], state["start_seat"] = data["round"], data["start_seat"]
        n = state["n"]
        state["order"] = [(data["start_seat"] + i) % n for i in range(n)]
        districts = _copy(state, "districts")
        for d in districts.values():
            d["chosen_by"] = None
        state["leader_checks"] = {}  # A-34 counts within a round

    @applies("turn_ended")
    def _turn_ended(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state["active"] = _next_in_order(state, state["active"])
        state["turn"] = {}

    @applies("dice_rolled")
    def _dice_rolled(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state["dice"] = dict(data["faces"])

    # -- phase 1 -----------------------------------------------------------------------------------

    @applies("plan_submitted")
    def _plan_submitted(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state["plans"] = {**state["plans"], str(seat): dict(data["slots"])}

    @applies("plans_placed")
    def _plans_placed(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        for key, slots in state["plans"].items():
            player = _player(state, int(key))
            for slot, planned in slots.items():
                player["hand"].remove(planned)
                player["slots"][int(slot) - 1].append(
                    {"card": planned, "faceUp": False, "round": state["round"]}
                )
        state["plans"] = {}

    # -- phase 2 -----------------------------------------------------------------------------------

    @applies("card_revealed")
    def _card_revealed(self, state: State, data: dict[str, Any], seat: int) -> None:
        player = _player(state, seat)
        for entry in player["slots"][data["slot"] - 1]:
            if entry["card"] == data["card"]:
                entry["faceUp"] = True
        turn = dict(state["turn"])
        turn["revealed"] = list(turn.get("revealed", [])) + [data["card"]]
        turn["current"] = data["card"]
        state["turn"] = turn

    @applies("gathered")
    def _gathered(self, state: State, data: dict[str, Any], seat: int) -> None:
        player = _player(state, seat)
        player["transport"] -= data["transport"]
        player["rondel"][data["resource"]] += data["n"]
        player["supply"] -= data["n"]
        _use(state, data["card"], "gather")

    @applies("row_used")
    def _row_used(self, state: State, data: dict[str, Any], seat: int) -> None:
        _pay(state, seat, data["payment"])
        _use(state, data["card"], f"{data['row']}")
        specialist = board_of(state["content"]).cards[data["card"]]
        steps = specialist["actions"][data["row"]]["alternatives"][data["alternative"]]["effects"]
        _push(state, seat, steps, {"card": data["card"], "row": data["row"]})

    # -- free actions --------------------------------------------------------------------------------

    @applies("transport_bought")
    def _transport_bought(self, state: State, data: dict[str, Any], seat: int) -> None:
        player = _player(state, seat)
        player["transport"] += data["n"]
        player["vp"] -= data["n"]

    @applies("battery_bought")
    def _battery_bought(self, state: State, data: dict[str, Any], seat: int) -> None:
        player = _player(state, seat)
        player["hkd"] -= 5 * data["n"]
        player["rondel"]["BATTERY"] += data["n"]
        player["supply"] -= data["n"]

    # -- effects (each resolves the head of the queue) -------------------------------------------------

    @applies("vp_gained")
    def _vp_gained(self, state: State, data: dict[str, Any], seat: int) -> None:
        _player(state, seat)["vp"] += data["n"]

    @applies("hkd_gained")
    def _hkd_gained(self, state: State, data: dict[str, Any], seat: int) -> None:
        _player(state, seat)["hkd"] += data["n"]

    @applies("resource_gained")
    def _resource_gained(self, state: State, data: dict[str, Any], seat: int) -> None:
        player = _player(state, seat)
        player["rondel"][data["resource"]] += data["n"]
        player["supply"] -= data["n"]

    @applies("gps_gained")
    def _gps_gained(self, state: State, data: dict[str, Any], seat: int) -> None:
        _player(state, seat)["gps"] += data["n"]

    @applies("transport_gained")
    def _transport_gained(self, state: State, data: dict[str, Any], seat: int) -> None:
        _player(state, seat)["transport"] += data["n"]

    @applies("cube_placed")
    def _cube_placed(self, state: State, data: dict[str, Any], seat: int) -> None:
        player = _player(state, seat)
        player["transport"] += data["bought"] - data["cost"]
        player["vp"] -= data["bought"]
        player["cubes"] = sorted(player["cubes"] + [data["location"]])
        player["supply"] -= 1

    @applies("cube_not_placed", "nothing_retrieved", "nothing_to_activate", "plan_kept")
    def _nothing_changes(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        pass  # the queue head is resolved without change (apply popped it)

    @applies("card_retrieved")
    def _card_retrieved(self, state: State, data: dict[str, Any], seat: int) -> None:
        player = _player(state, seat)
        player["hospital"].remove(data["card"])
        player["hand"].append(data["card"])
        player["vp"] += data["points"]

    @applies("check_action_activated")
    def _check_action_activated(self, state: State, data: dict[str, Any], seat: int) -> None:
        turn = dict(state["turn"])
        key = "leader_used" if data.get("via") == "LEADER" else "checks_used"
        turn[key] = list(turn.get(key, [])) + [data["source"]]
        state["turn"] = turn
        used = _copy(state, "leader_checks")
        if data.get("via") == "LEADER":
            used.setdefault(str(seat), []).append(data["source"])
        _push(state, seat, check_effects(state, data["source"]), {"check": data["source"]})

    @applies("hand_revealed")
    def _hand_revealed(self, state: State, data: dict[str, Any], seat: int) -> None:
        _player(state, seat)["hkd"] += data["hkd"]

    @applies("threshold_upgraded")
    def _threshold_upgraded(self, state: State, data: dict[str, Any], seat: int) -> None:
        _player(state, seat)["threshold"] = state["content"]["personalBoard"]["refillThreshold"]["upgraded"]

    @applies("slot4_unlocked")
    def _slot4_unlocked(self, state: State, data: dict[str, Any], seat: int) -> None:
        _player(state, seat)["slot4"] = True

    # -- phase 3: objectives --------------------------------------------------------------------------

    @applies("objective_completed")
    def _objective_completed(self, state: State, data: dict[str, Any], seat: int) -> None:
        _pay(state, seat, data["payment"])
        player = _player(state, seat)
        for tile in data.get("consumed_tiles", []):
            player["tiles"] = [t for t in player["tiles"] if t["tile"] != tile]
            state["box_tiles"] = state["box_tiles"] + [tile]
        completed = {"POWER_RESTORATION": _power_restored, "SHARED_PLAN": _shared_plan_done}
        completed.get(data["source"]["area"], _own_plan_done)(state, player, seat, data)

    @applies("marker_placed")
    def _marker_placed(self, state: State, data: dict[str, Any], seat: int) -> None:
        player = _player(state, seat)
        held = held_plan(player, data["source"])
        if not data["virtual"]:
            held["markers"] += 1
            player["supply"] -= 1

    @applies("plan_finished", "plan_closed_out")
    def _plan_leaves(self, state: State, data: dict[str, Any], seat: int) -> None:
        """R-3.7 close out and R-3.8: markers back, the card to its destination, completion effects."""
        player = _player(state, seat)
        held = held_plan(player, data["source"])
        player["supply"] += held["markers"]
        leaving = board_of(state["content"]).cards[held["card"]]
        _clear_source(player, data["source"])
        _move_to(player, leaving, held["card"])
        _push(state, seat, leaving.get("completionEffects", []), data["source"])

    # -- phase 4: patrol ----------------------------------------------------------------------------

    @applies("patrol_viewed")
    def _patrol_viewed(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state["turn"] = patrol.district_viewed(
            _copy(state, "districts"), _copy(state, "tiles"), state["turn"], data["district"], seat
        )

    @applies("patrol_declined")
    def _patrol_declined(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state["turn"] = {**state["turn"], "patrol": None}

    @applies("patrol_taken")
    def _patrol_taken(self, state: State, data: dict[str, Any], seat: int) -> None:
        patrol.tile_taken(_copy(state, "districts"), _copy(state, "tiles"), _player(state, seat), data)
        state["turn"] = {**state["turn"], "patrol": None}

    @applies("injured")
    def _injured(self, state: State, data: dict[str, Any], seat: int) -> None:
        player = _player(state, seat)
        player["hand"].remove(data["card"])
        player["hospital"].append(data["card"])

    # -- phase 5 and the market -------------------------------------------------------------------------

    @applies("card_bought")
    def _card_bought(self, state: State, data: dict[str, Any], seat: int) -> None:
        market = _copy(state, "market")
        row = market[data["row"]]
        row[data["col"]] = None
        if state["options"]["MARKET_SLIDE"]:
            cards = [c for c in row if c is not None]
            market[data["row"]] = cards + [None] * (3 - len(cards))
        player = _player(state, seat)
        player["hkd"] -= data["price"]
        player["objectives"][data["space"]] = {"card": data["card"], "done": [], "markers": 0}
        state["pass_streak"] = 0
        state["bought"] = True
        state["active"] = state["order"][(state["order"].index(seat) + 1) % state["n"]]

    @applies("passed")
    def _passed(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state["pass_streak"] += 1
        state["active"] = state["order"][(state["order"].index(seat) + 1) % state["n"]]

    @applies("row_refilled")
    def _row_refilled(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        market = _copy(state, "market")
        cards = list(data["cards"]) + [None] * (3 - len(data["cards"]))
        market[data["row"]] = cards
        state["deck"] = state["deck"][data["from_deck"] :]
        state["reserve"] = state["reserve"][len(data["cards"]) - data["from_deck"] :]

    @applies("end_triggered")
    def _end_triggered(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state["end_round"], state["final_round"] = data["round"], data["round"] + 1

    @applies("market_decayed")
    def _market_decayed(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        market = _copy(state, "market")
        for row, col, _card in data["cards"]:
            market[row][col] = None
        state["discard"] = state["discard"] + [card for _, _, card in data["cards"]]

    # -- phase 6 -------------------------------------------------------------------------------------

    @applies("spoiled")
    def _spoiled(self, state: State, data: dict[str, Any], seat: int) -> None:
        player = _player(state, seat)
        for kind in ("FOOD", "WATER"):
            player["supply"] += data[kind]
            player["rondel"][kind] -= data[kind]
        player["hkd"] += data["sold_for"]

    @applies("ongoing_effect")
    def _ongoing_effect(self, state: State, data: dict[str, Any], seat: int) -> None:
        _push(state, seat, [data["effect"]], {"card": data["card"]})

    @applies("collection_started")
    def _collection_started(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state["collect"] = {
            "kind": data["purpose"],
            "waiting": list(data["waiting"]),
            "submitted": {},
            "due": {k: list(v) for k, v in data.get("due", {}).items()},
        }

    @applies("discard_submitted")
    def _discard_submitted(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        collect = _copy(state, "collect")
        collect["submitted"][str(seat)] = list(data["cards"])
        collect["waiting"].remove(seat)

    @applies("objectives_discarded")
    def _objectives_discarded(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        for key, cards in data["discards"].items():
            player = _player(state, int(key))
            for card_id in cards:
                if isinstance(player["emergency"], dict) and player["emergency"]["card"] == card_id:
                    player["supply"] += player["emergency"]["markers"]
                    player["emergency"] = "USED"
                    continue
                i = next(i for i, held in enumerate(player["objectives"]) if held and held["card"] == card_id)
                player["supply"] += player["objectives"][i]["markers"]
                player["objectives"][i] = None
            state["discard"] = state["discard"] + list(cards)
        state["collect"] = None

    # -- phase 7 -------------------------------------------------------------------------------------

    @applies("district_stabilised")
    def _district_stabilised(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        districts = _copy(state, "districts")
        district = districts[data["district"]]
        state["box_tiles"] = state["box_tiles"] + district["tiles"]
        tiles = _copy(state, "tiles")
        for tile in district["tiles"]:
            del tiles[tile]
        district["tiles"] = []
        district["stabilised"] = True
        for key, vp in data["scores"].items():
            _player(state, int(key))["vp"] += vp

    @applies("substitute_cube_placed")
    def _substitute_cube_placed(self, state: State, data: dict[str, Any], seat: int) -> None:
        districts = _copy(state, "districts")
        districts[data["district"]]["substitutes"].append(seat)
        _player(state, seat)["supply"] -= 1

    @applies("house_chosen")
    def _house_chosen(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        collect = _copy(state, "collect")
        collect["submitted"].setdefault(str(seat), {})[data["district"]] = data["space"]
        collect["due"][str(seat)].remove(data["district"])
        if not collect["due"][str(seat)]:
            collect["waiting"].remove(seat)

    @applies("houses_placed")
    def _houses_placed(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        districts = _copy(state, "districts")
        for key, choices in data["houses"].items():
            player = _player(state, int(key))
            for district, space in choices.items():
                districts[district]["houses"].append(int(key))
                next(x for x in player["spaces"] if x["action"] == space)["covered"] = False
        state["collect"] = None

    # -- phase 8 -------------------------------------------------------------------------------------

    @applies("hand_refilled")
    def _hand_refilled(self, state: State, data: dict[str, Any], seat: int) -> None:
        player = _player(state, seat)
        player["hand"] += [entry["card"] for entry in player["slots"][data["slot"] - 1]]
        player["slots"][data["slot"] - 1] = []
        state["turn"] = {**state["turn"], "refilled": True}

    # -- the end -------------------------------------------------------------------------------------

    @applies("final_scoring")
    def _final_scoring(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        for entry in data["players"]:
            player = _player(state, entry["seat"])
            for kind, n in entry["sold"].items():
                player["rondel"][kind] -= n
                player["supply"] += n
            player["hkd"] = entry["hkd_left"]
            player["vp"] = entry["total"]
        state["result"] = data
        state["step"] = "over"
        state["active"] = None


def _check_decision(state: State, seat: int, action: Action) -> None:
    """§3.9: while an effect waits for its seat's decision, only the action answering it is taken; a
    decision action with none pending is refused (a close out at will excepted, A-20)."""
    head = state["queue"][0] if state["queue"] else None
    wanted = DECISIONS.get(head["effect"]["type"]) if head else None
    if head and action["type"] != wanted:
        raise refuse(
            "decision_pending",
            _(
                "§3.9: first resolve the pending {effect} with {wanted}",
                effect=head["effect"]["type"],
                wanted=wanted,
            ),
        )
    if (
        not head
        and action["type"] in DECISIONS.values()
        and not (action["type"] == "RESOLVE_CLOSE_OUT" and objectives.closable(state, seat))
    ):
        raise refuse("not_pending", _("§3.9: no {kind} decision is pending", kind=action["type"]))


# -- what the folds share ------------------------------------------------------------------------------


def _player(state: dict, seat: int) -> dict:
    """The seat's player record, copied into ``state`` so that it may change."""
    players = list(state["players"])
    players[seat] = copy.deepcopy(players[seat])
    state["players"] = players
    return players[seat]


def _copy(state: dict, key: str) -> Any:
    state[key] = copy.deepcopy(state[key])
    return state[key]


def _push(state: dict, seat: int, effects_: list, source: Any = None) -> None:
    """Put effects at the front of the queue, in order, for ``seat``."""
    state["queue"] = [{"seat": seat, "effect": e, "source": source} for e in effects_] + list(state["queue"])


def _next_in_order(state: dict, seat: int | None) -> int | None:
    order = state["order"]
    i = order.index(seat) + 1 if seat is not None else 0
    return order[i] if i < len(order) else None


def _use(state: dict, card_id: str, what: str) -> None:
    """Mark a revealed card's gather or row as used this turn."""
    turn = dict(state["turn"])
    used = dict(turn.get("used", {}))
    used[card_id] = list(used.get(card_id, [])) + [what]
    turn["used"] = used
    state["turn"] = turn


def _pay(state: dict, seat: int, payment: dict) -> None:
    """A payment (§8.3): resources and batteries back to the supply, HK$ spent."""
    player = _player(state, seat)
    for kind, n in payment["resources"].items():
        player["rondel"][kind] -= n
        player["supply"] += n
    player["hkd"] -= payment["hkd"]


def _clear_source(player: dict, source: dict) -> None:
    if source["area"] == "OBJECTIVE_SPACE":
        player["objectives"][source["index"]] = None
    else:
        player["emergency"] = "USED"  # the space is never used again


def _move_to(player: dict, played: dict, card_id: str) -> None:
    """A finished card to its destination (§1.4.9): the hand, or the check-mark area."""
    (player["hand"] if played.get("destination", "CHECK_AREA") == "HAND" else player["check_area"]).append(
        card_id
    )


# -- an objective completed (R-3.6 to, C-6), by where it was ----------------------------------------


def _power_restored(state: dict, player: dict, seat: int, data: dict) -> None:
    which = data["source"]["which"]
    player["power"][which] = True
    objective = state["content"]["personalBoard"]["powerRestoration"][which]
    _push(state, seat, objective["immediateEffects"] + POWER_REWARDS[which], data["source"])


def _shared_plan_done(state: dict, player: dict, seat: int, data: dict) -> None:
    source, index = data["source"], data["objective"]
    plan = next(shared for shared in _copy(state, "shared_plans") if shared["card"] == source["cardId"])
    plan["done"].setdefault(str(index), []).append(seat)
    if data["cube"]:
        player["supply"] -= 1
        plan["cubes"][str(seat)] = plan["cubes"].get(str(seat), 0) + 1
    shared_card = board_of(state["content"]).cards[source["cardId"]]
    steps = list(shared_card["objectives"][index]["immediateEffects"])
    if data.get("bonus"):
        steps += shared_card.get("bonusEffects", [])
    _push(state, seat, steps, source)


def _own_plan_done(state: dict, player: dict, seat: int, data: dict) -> None:
    """A volunteer or specialist leaves at once (R-3.6); a plan card is marked (R-3.7) or finished (R-3.8)."""
    source, index = data["source"], data["objective"]
    held = held_plan(player, source)
    plan_card = board_of(state["content"]).cards[held["card"]]
    objective = plan_card["objectives"][index]
    if plan_card["kind"] in ("VOLUNTEER", "SPECIALIST"):
        _clear_source(player, source)  # the card moves first, then its effects
        _move_to(player, plan_card, held["card"])
        _push(state, seat, objective["immediateEffects"], source)
        return
    held["done"] = sorted(held["done"] + [index])
    if len(held["done"]) == len(plan_card["objectives"]):
        steps = objective["immediateEffects"] + plan_card.get("bonusEffects", []) + [{"type": "FINISH_PLAN"}]
    else:
        steps = objective["immediateEffects"] + [{"type": "MARKER"}, {"type": "CLOSE_OUT_OFFER"}]
    _push(state, seat, steps, {**source, "card": held["card"]})
