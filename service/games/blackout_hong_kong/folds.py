"""The fold: one small method per event type, each changing a shallow copy of the state.

Nested parts are copied before they change (``_player``, ``_copy``), so earlier states stay intact.
An event with ``queued: true`` in its data resolves the head of the effect queue: ``Folds.apply``
pops that head before the event's own method runs, so the method may push follow-ups to the front.
"""

from __future__ import annotations

import copy
from typing import Any

from service.games.blackout_hong_kong.board import board_of
from service.games.kit import Engine, applies

POWER_REWARDS = {"A": [{"type": "POINTS", "n": 10}, {"type": "UPGRADE_REFILL_THRESHOLD"}],
                 "B": [{"type": "POINTS", "n": 10}, {"type": "UNLOCK_SLOT4"}]}


def _player(state: dict, seat: int) -> dict:
    players = list(state["players"])
    players[seat] = copy.deepcopy(players[seat])
    state["players"] = players
    return players[seat]


def _copy(state: dict, key: str) -> Any:
    state[key] = copy.deepcopy(state[key])
    return state[key]


def _push(state: dict, seat: int, effects: list, source: Any = None) -> None:
    """Put effects at the front of the queue, in order, for ``seat``."""
    state["queue"] = [{"seat": seat, "effect": e, "source": source} for e in effects] + list(state["queue"])


def next_in_order(state: dict, seat: int | None) -> int | None:
    order = state["order"]
    i = order.index(seat) + 1 if seat is not None else 0
    return order[i] if i < len(order) else None


def plan_at(player: dict, source: dict) -> dict | None:
    if source["area"] == "OBJECTIVE_SPACE":
        return player["objectives"][source["index"]]
    if source["area"] == "EMERGENCY_PLAN":
        return player["emergency"] if isinstance(player["emergency"], dict) else None
    return None


def _clear_source(player: dict, source: dict) -> None:
    if source["area"] == "OBJECTIVE_SPACE":
        player["objectives"][source["index"]] = None
    else:
        player["emergency"] = "USED"  # the space is never used again


def _move_to(player: dict, card: dict, card_id: str) -> None:
    (player["hand"] if card.get("destination", "CHECK_AREA") == "HAND" else player["check_area"]).append(card_id)


class Folds(Engine):
    def apply(self, state, event):
        if event["data"].get("queued"):
            state = {**state, "queue": list(state["queue"][1:])}
        return super().apply(state, event)

    # -- setup and phase flow ----------------------------------------------------------------------

    @applies("start_cube_placed")
    def _start_cube(self, state, data, seat):
        p = _player(state, seat)
        p["cubes"] = sorted(p["cubes"] + [data["location"]])
        p["supply"] -= 1
        state["start_queue"] = state["start_queue"][1:]
        state["active"] = state["start_queue"][0] if state["start_queue"] else None

    @applies("phase_started")
    def _phase(self, state, data, seat):
        state["round"], state["step"] = data["round"], data["step"]
        state["active"] = state["order"][0] if data["step"] in ("p2", "p3", "p4", "p5", "p8") else None
        state["turn"] = {}
        state["pass_streak"] = 0
        state["bought"] = False
        if data["step"] == "plan":
            state["plans"] = {}

    @applies("round_started")
    def _round(self, state, data, seat):
        state["round"], state["start_seat"] = data["round"], data["start_seat"]
        n = state["n"]
        state["order"] = [(data["start_seat"] + i) % n for i in range(n)]
        districts = _copy(state, "districts")
        for d in districts.values():
            d["chosen_by"] = None
        state["leader_checks"] = {}  # A-34 counts within a round

    @applies("turn_ended")
    def _turn_ended(self, state, data, seat):
        state["active"] = next_in_order(state, state["active"])
        state["turn"] = {}

    @applies("dice_rolled")
    def _dice(self, state, data, seat):
        state["dice"] = dict(data["faces"])

    # -- phase 1 -----------------------------------------------------------------------------------

    @applies("plan_submitted")
    def _plan(self, state, data, seat):
        state["plans"] = {**state["plans"], str(seat): dict(data["slots"])}

    @applies("plans_placed")
    def _plans_placed(self, state, data, seat):
        for key, slots in state["plans"].items():
            p = _player(state, int(key))
            for slot, card in slots.items():
                p["hand"].remove(card)
                p["slots"][int(slot) - 1].append({"card": card, "faceUp": False, "round": state["round"]})
        state["plans"] = {}

    # -- phase 2 -----------------------------------------------------------------------------------

    @applies("card_revealed")
    def _revealed(self, state, data, seat):
        p = _player(state, seat)
        for entry in p["slots"][data["slot"] - 1]:
            if entry["card"] == data["card"]:
                entry["faceUp"] = True
        turn = dict(state["turn"])
        turn["revealed"] = list(turn.get("revealed", [])) + [data["card"]]
        turn["current"] = data["card"]
        state["turn"] = turn

    def _use(self, state, card: str, what: str) -> None:
        turn = dict(state["turn"])
        used = dict(turn.get("used", {}))
        used[card] = list(used.get(card, [])) + [what]
        turn["used"] = used
        state["turn"] = turn

    @applies("gathered")
    def _gathered(self, state, data, seat):
        p = _player(state, seat)
        p["transport"] -= data["transport"]
        p["rondel"][data["resource"]] += data["n"]
        p["supply"] -= data["n"]
        self._use(state, data["card"], "gather")

    @applies("row_used")
    def _row_used(self, state, data, seat):
        self._pay(state, seat, data["payment"])
        self._use(state, data["card"], f"{data['row']}")
        card = board_of(state["content"]).cards[data["card"]]
        effects = card["actions"][data["row"]]["alternatives"][data["alternative"]]["effects"]
        _push(state, seat, effects, {"card": data["card"], "row": data["row"]})

    def _pay(self, state, seat, payment) -> None:
        p = _player(state, seat)
        for kind, n in payment["resources"].items():
            p["rondel"][kind] -= n
            p["supply"] += n
        p["hkd"] -= payment["hkd"]

    # -- free actions --------------------------------------------------------------------------------

    @applies("transport_bought")
    def _transport_bought(self, state, data, seat):
        p = _player(state, seat)
        p["transport"] += data["n"]
        p["vp"] -= data["n"]

    @applies("battery_bought")
    def _battery_bought(self, state, data, seat):
        p = _player(state, seat)
        p["hkd"] -= 5 * data["n"]
        p["rondel"]["BATTERY"] += data["n"]
        p["supply"] -= data["n"]

    # -- effects (each resolves the head of the queue) -------------------------------------------------

    @applies("vp_gained")
    def _vp(self, state, data, seat):
        _player(state, seat)["vp"] += data["n"]

    @applies("hkd_gained")
    def _hkd(self, state, data, seat):
        _player(state, seat)["hkd"] += data["n"]

    @applies("resource_gained")
    def _resource(self, state, data, seat):
        p = _player(state, seat)
        p["rondel"][data["resource"]] += data["n"]
        p["supply"] -= data["n"]

    @applies("gps_gained")
    def _gps(self, state, data, seat):
        _player(state, seat)["gps"] += data["n"]

    @applies("transport_gained")
    def _transport(self, state, data, seat):
        _player(state, seat)["transport"] += data["n"]

    @applies("cube_placed")
    def _cube(self, state, data, seat):
        p = _player(state, seat)
        p["transport"] += data["bought"] - data["cost"]
        p["vp"] -= data["bought"]
        p["cubes"] = sorted(p["cubes"] + [data["location"]])
        p["supply"] -= 1

    @applies("cube_not_placed", "nothing_retrieved", "nothing_to_activate", "plan_kept")
    def _nothing(self, state, data, seat):
        pass  # the queue head is resolved without change (apply popped it)

    @applies("card_retrieved")
    def _retrieved(self, state, data, seat):
        p = _player(state, seat)
        p["hospital"].remove(data["card"])
        p["hand"].append(data["card"])
        p["vp"] += data["points"]

    @applies("check_action_activated")
    def _activated(self, state, data, seat):
        turn = dict(state["turn"])
        key = "leader_used" if data.get("via") == "LEADER" else "checks_used"
        turn[key] = list(turn.get(key, [])) + [data["source"]]
        state["turn"] = turn
        used = _copy(state, "leader_checks")
        if data.get("via") == "LEADER":
            used.setdefault(str(seat), []).append(data["source"])
        _push(state, seat, self.check_effects(state, seat, data["source"]), {"check": data["source"]})

    @applies("hand_revealed")
    def _hand_revealed(self, state, data, seat):
        _player(state, seat)["hkd"] += data["hkd"]

    @applies("threshold_upgraded")
    def _threshold(self, state, data, seat):
        _player(state, seat)["threshold"] = state["content"]["personalBoard"]["refillThreshold"]["upgraded"]

    @applies("slot4_unlocked")
    def _slot4(self, state, data, seat):
        _player(state, seat)["slot4"] = True

    # -- phase 3: objectives --------------------------------------------------------------------------

    @applies("objective_completed")
    def _completed(self, state, data, seat):
        self._pay(state, seat, data["payment"])
        p = _player(state, seat)
        for tile in data.get("consumed_tiles", []):
            p["tiles"] = [t for t in p["tiles"] if t["tile"] != tile]
            state["box_tiles"] = state["box_tiles"] + [tile]
        source, index = data["source"], data["objective"]
        board = board_of(state["content"])
        if source["area"] == "POWER_RESTORATION":
            p["power"][source["which"]] = True
            objective = state["content"]["personalBoard"]["powerRestoration"][source["which"]]
            _push(state, seat, objective["immediateEffects"] + POWER_REWARDS[source["which"]], source)
            return
        if source["area"] == "SHARED_PLAN":
            shared = _copy(state, "shared_plans")
            plan = next(s for s in shared if s["card"] == source["cardId"])
            plan["done"].setdefault(str(index), []).append(seat)
            if data["cube"]:
                p["supply"] -= 1
                plan["cubes"][str(seat)] = plan["cubes"].get(str(seat), 0) + 1
            card = board.cards[source["cardId"]]
            effects = list(card["objectives"][index]["immediateEffects"])
            if data.get("bonus"):
                effects += card.get("bonusEffects", [])
            _push(state, seat, effects, source)
            return
        held = plan_at(p, source)
        card = board.cards[held["card"]]
        objective = card["objectives"][index]
        if card["kind"] in ("VOLUNTEER", "SPECIALIST"):
            _clear_source(p, source)  # the card moves first, then its effects
            _move_to(p, card, held["card"])
            _push(state, seat, objective["immediateEffects"], source)
            return
        held["done"] = sorted(held["done"] + [index])
        if len(held["done"]) == len(card["objectives"]):
            steps = objective["immediateEffects"] + card.get("bonusEffects", []) + [{"type": "FINISH_PLAN"}]
        else:
            steps = objective["immediateEffects"] + [{"type": "MARKER"}, {"type": "CLOSE_OUT_OFFER"}]
        _push(state, seat, steps, {**source, "card": held["card"]})

    @applies("marker_placed")
    def _marker(self, state, data, seat):
        p = _player(state, seat)
        held = plan_at(p, data["source"])
        if not data["virtual"]:
            held["markers"] += 1
            p["supply"] -= 1

    @applies("plan_finished", "plan_closed_out")
    def _plan_leaves(self, state, data, seat):
        """R-3.7 close out and R-3.8: markers back, the card to its destination, completion effects."""
        p = _player(state, seat)
        held = plan_at(p, data["source"])
        p["supply"] += held["markers"]
        card = board_of(state["content"]).cards[held["card"]]
        _clear_source(p, data["source"])
        _move_to(p, card, held["card"])
        _push(state, seat, card.get("completionEffects", []), data["source"])

    # -- phase 4: patrol ----------------------------------------------------------------------------

    @applies("patrol_viewed")
    def _viewed(self, state, data, seat):
        districts = _copy(state, "districts")
        districts[data["district"]]["chosen_by"] = seat
        tiles = _copy(state, "tiles")
        for tile in districts[data["district"]]["tiles"]:
            if seat not in tiles[tile]["seenBy"]:
                tiles[tile]["seenBy"].append(seat)
        state["turn"] = {**state["turn"], "patrol": data["district"],
                         "chosen": list(state["turn"].get("chosen", [])) + [data["district"]]}

    @applies("patrol_declined")
    def _declined(self, state, data, seat):
        state["turn"] = {**state["turn"], "patrol": None}

    @applies("patrol_taken")
    def _taken(self, state, data, seat):
        districts = _copy(state, "districts")
        tiles = _copy(state, "tiles")
        district = districts[data["district"]]
        district["tiles"].remove(data["tile"])
        for other in district["tiles"]:
            tiles[other]["faceUp"] = True
        del tiles[data["tile"]]
        p = _player(state, seat)
        p["gps"] -= data["gps"]
        p["tiles"].append({"tile": data["tile"], "faceUp": data["faceUp"]})
        reward = data["reward"]
        if reward["type"] == "POINTS":
            p["vp"] += reward["n"]
        elif reward["n"]:
            p["rondel"][reward["type"]] += reward["n"]
            p["supply"] -= reward["n"]
        state["turn"] = {**state["turn"], "patrol": None}

    @applies("injured")
    def _injured(self, state, data, seat):
        p = _player(state, seat)
        p["hand"].remove(data["card"])
        p["hospital"].append(data["card"])

    # -- phase 5 and the market -------------------------------------------------------------------------

    @applies("card_bought")
    def _bought(self, state, data, seat):
        market = _copy(state, "market")
        row = market[data["row"]]
        row[data["col"]] = None
        if state["options"]["MARKET_SLIDE"]:
            cards = [c for c in row if c is not None]
            market[data["row"]] = cards + [None] * (3 - len(cards))
        p = _player(state, seat)
        p["hkd"] -= data["price"]
        p["objectives"][data["space"]] = {"card": data["card"], "done": [], "markers": 0}
        state["pass_streak"] = 0
        state["bought"] = True
        state["active"] = state["order"][(state["order"].index(seat) + 1) % state["n"]]

    @applies("passed")
    def _passed(self, state, data, seat):
        state["pass_streak"] += 1
        state["active"] = state["order"][(state["order"].index(seat) + 1) % state["n"]]

    @applies("row_refilled")
    def _refilled(self, state, data, seat):
        market = _copy(state, "market")
        cards = list(data["cards"]) + [None] * (3 - len(data["cards"]))
        market[data["row"]] = cards
        state["deck"] = state["deck"][data["from_deck"]:]
        state["reserve"] = state["reserve"][len(data["cards"]) - data["from_deck"]:]

    @applies("end_triggered")
    def _end_triggered(self, state, data, seat):
        state["end_round"], state["final_round"] = data["round"], data["round"] + 1

    @applies("market_decayed")
    def _decayed(self, state, data, seat):
        market = _copy(state, "market")
        for row, col, card in data["cards"]:
            market[row][col] = None
        state["discard"] = state["discard"] + [card for _, _, card in data["cards"]]

    # -- phase 6 -------------------------------------------------------------------------------------

    @applies("spoiled")
    def _spoiled(self, state, data, seat):
        p = _player(state, seat)
        for kind in ("FOOD", "WATER"):
            p["supply"] += data[kind]
            p["rondel"][kind] -= data[kind]
        p["hkd"] += data["sold_for"]

    @applies("ongoing_effect")
    def _ongoing(self, state, data, seat):
        _push(state, seat, [data["effect"]], {"card": data["card"]})

    @applies("collection_started")
    def _collection(self, state, data, seat):
        state["collect"] = {"kind": data["purpose"], "waiting": list(data["waiting"]), "submitted": {},
                            "due": {k: list(v) for k, v in data.get("due", {}).items()}}

    @applies("discard_submitted")
    def _discard_submitted(self, state, data, seat):
        collect = _copy(state, "collect")
        collect["submitted"][str(seat)] = list(data["cards"])
        collect["waiting"].remove(seat)

    @applies("objectives_discarded")
    def _discarded(self, state, data, seat):
        for key, cards in data["discards"].items():
            p = _player(state, int(key))
            for card in cards:
                if isinstance(p["emergency"], dict) and p["emergency"]["card"] == card:
                    p["supply"] += p["emergency"]["markers"]
                    p["emergency"] = "USED"
                    continue
                i = next(i for i, held in enumerate(p["objectives"]) if held and held["card"] == card)
                p["supply"] += p["objectives"][i]["markers"]
                p["objectives"][i] = None
            state["discard"] = state["discard"] + list(cards)
        state["collect"] = None

    # -- phase 7 -------------------------------------------------------------------------------------

    @applies("district_stabilised")
    def _stabilised(self, state, data, seat):
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
    def _substitute(self, state, data, seat):
        districts = _copy(state, "districts")
        districts[data["district"]]["substitutes"].append(seat)
        _player(state, seat)["supply"] -= 1

    @applies("house_chosen")
    def _house_chosen(self, state, data, seat):
        collect = _copy(state, "collect")
        collect["submitted"].setdefault(str(seat), {})[data["district"]] = data["space"]
        collect["due"][str(seat)].remove(data["district"])
        if not collect["due"][str(seat)]:
            collect["waiting"].remove(seat)

    @applies("houses_placed")
    def _houses(self, state, data, seat):
        districts = _copy(state, "districts")
        for key, choices in data["houses"].items():
            p = _player(state, int(key))
            for district, space in choices.items():
                districts[district]["houses"].append(int(key))
                next(s for s in p["spaces"] if s["action"] == space)["covered"] = False
        state["collect"] = None

    # -- phase 8 -------------------------------------------------------------------------------------

    @applies("hand_refilled")
    def _refill(self, state, data, seat):
        p = _player(state, seat)
        p["hand"] += [entry["card"] for entry in p["slots"][data["slot"] - 1]]
        p["slots"][data["slot"] - 1] = []
        state["turn"] = {**state["turn"], "refilled": True}

    # -- the end -------------------------------------------------------------------------------------

    @applies("final_scoring")
    def _final(self, state, data, seat):
        for entry in data["players"]:
            p = _player(state, entry["seat"])
            for kind, n in entry["sold"].items():
                p["rondel"][kind] -= n
                p["supply"] += n
            p["hkd"] = entry["hkd_left"]
            p["vp"] = entry["total"]
        state["result"] = data
        state["step"] = "over"
        state["active"] = None

    def check_effects(self, state, seat, source: str) -> list:
        raise NotImplementedError
