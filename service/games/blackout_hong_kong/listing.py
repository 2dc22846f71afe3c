"""What a seat may do now (``legal-actions``) and what it may see (``view``, ``event_view``, spec §8.4).

Every listed entry is postable as it is. Where an action has too many parameter combinations to list,
one entry stands for the decision and ``choices`` spells out the rest as sets:

- ``payment``: the entry pays ``"AUTO"`` (fewest batteries); ``choices.payment`` lists every exact
  payment the seat can make, any of which may be sent instead;
- ``partyCardIds`` and ``gps`` of ``PATROL_TAKE``: the entry carries the smallest party that meets
  the challenge; ``choices.party`` is the set of hand cards that may join (any non-empty subset),
  ``choices.gps`` the GPS counts, and ``choices.needs`` the icons the search total S must reach;
- ``slots`` of ``SUBMIT_PLAN``: a few whole plans are listed; ``choices.slots`` gives, per slot, the
  hand cards it may take (or none), all distinct;
- ``count`` of the free actions: ``choices.count`` is the range that may be bought.
"""

from __future__ import annotations

import itertools
from typing import Any

from service.games.blackout_hong_kong import payments
from service.games.blackout_hong_kong.board import RESOURCES, board_of
from service.games.protocol import Action, Event, State

PRIVATE_TO_ACTOR = ("plan_submitted", "patrol_viewed")
PRIVATE_WHILE_COLLECTING = ("discard_submitted", "house_chosen")


class Listing:
    """Mixed into the engine: it uses the engine's rule queries."""

    def _legal_actions(self, s: State, seat: int) -> list[Action]:
        free = self._free_entries(s, seat)
        if s["queue"]:
            return self._decision_entries(s, seat) + free
        if s["collect"]:
            return self._collect_entries(s, seat) + free
        step = s["step"]
        if step == "start_cubes":
            taken = {loc for p in s["players"] for loc in p["cubes"]}
            return [{"type": "PLACE_START_CUBE", "locationId": loc}
                    for loc in board_of(s["content"]).locations if loc not in taken]
        if step == "plan":
            return self._plan_entries(s, seat) + free
        listing = {"p2": self._volunteer_entries, "p3": self._objective_entries, "p4": self._patrol_entries,
                   "p5": self._market_entries, "p8": self._refill_entries}[step]
        return listing(s, seat) + free

    def _free_entries(self, s: State, seat: int) -> list[Action]:
        p = s["players"][seat]
        out = []
        pool = min(25, self._transport_pool(s))
        if pool >= 1:
            out.append({"type": "BUY_TRANSPORT", "count": 1, "choices": {"count": [1, pool]}})
        batteries = min(p["hkd"] // 5, p["supply"] if s["options"]["CUBES_LIMITED"] else 25, 25)
        if batteries >= 1:
            out.append({"type": "BUY_BATTERY", "count": 1, "choices": {"count": [1, batteries]}})
        return out

    def _paying(self, entry: Action, costs: list, p: dict) -> Action | None:
        if not costs:
            return entry
        options = payments.payments(costs, self._held(p))
        if not options:
            return None
        return {**entry, "payment": "AUTO", "choices": {"payment": options}}

    # -- phase 2 -------------------------------------------------------------------------------------

    def _volunteer_entries(self, s: State, seat: int) -> list[Action]:
        p = s["players"][seat]
        out: list[Action] = [{"type": "REVEAL_CARD", "slot": slot} for slot, _ in self._planned(s, p)]
        board = board_of(s["content"])
        used = s["turn"].get("used", {})
        for card_id in self._usable_cards(s):
            card = board.cards[card_id]
            if card["kind"] == "VOLUNTEER" and "gather" not in used.get(card_id, []):
                base = s["dice"][card["colour"]]
                for target in RESOURCES:
                    if not s["options"]["SHIFT_ONTO_OTHER_DIE"] and target != base and target in s["dice"].values():
                        continue
                    buy = max(0, board.ring_distance(base, target) - p["transport"])
                    if buy > self._transport_pool(s):
                        continue
                    out.append({"type": "GATHER", "cardId": card_id, "targetResource": target, "buyTransport": buy})
            if card["kind"] == "SPECIALIST":
                for row, action in enumerate(card["actions"]):
                    if str(row) in used.get(card_id, []):
                        continue
                    for alt, alternative in enumerate(action["alternatives"]):
                        entry = self._paying({"type": "USE_SPECIALIST_ROW", "cardId": card_id, "rowIndex": row,
                                              "alternativeIndex": alt}, alternative["cost"], p)
                        if entry:
                            out.append(entry)
        if not self._planned(s, p):
            out.append({"type": "END_TURN"})
        return out

    # -- phase 3 -------------------------------------------------------------------------------------

    def _objective_entries(self, s: State, seat: int) -> list[Action]:
        p = s["players"][seat]
        out = []
        for source, index, objective in self._open_objectives(s, seat):
            if self._objective_blocker(s, seat, source, objective):
                continue
            entry = self._paying({"type": "COMPLETE_OBJECTIVE", "source": source, "objectiveIndex": index},
                                 payments.costs_of(objective["requirements"]), p)
            if entry:
                out.append(entry)
        out += [{"type": "RESOLVE_CLOSE_OUT", "cardId": c["card"], "closeOut": True} for c in self.closable(s, seat)]
        return out + [{"type": "END_TURN"}]

    # -- phase 4 -------------------------------------------------------------------------------------

    def _patrol_entries(self, s: State, seat: int) -> list[Action]:
        district = s["turn"].get("patrol")
        if not district:
            return [{"type": "PATROL_CHOOSE_DISTRICT", "districtId": d} for d in self._eligible_districts(s, seat)] \
                + [{"type": "PATROL_SKIP"}]
        p = s["players"][seat]
        board = board_of(s["content"])
        searchers = sorted((c for c in p["hand"] if board.cards[c]["searchIcons"] >= 1),
                           key=lambda c: (-board.cards[c]["searchIcons"], c))
        out = []
        for tile in s["districts"][district]["tiles"]:
            for challenge in ("EASY", "HARD", "EXPLORATION"):
                entry = self._smallest_party(s, seat, tile, challenge, searchers)
                if entry:
                    out.append(entry)
        return out + [{"type": "PATROL_DECLINE"}]

    def _smallest_party(self, s: State, seat: int, tile: str, challenge: str, searchers: list[str]):
        gps_held = s["players"][seat]["gps"]
        for gps in range(gps_held + 1):
            for size in range(1, len(searchers) + 1):
                party = searchers[:size]
                if self._take_blocker(s, seat, tile, challenge, party, gps) is None:
                    if challenge == "EXPLORATION" and s["options"]["EXPLORATION_TOTAL_MODE"] == "PARTY_ONLY":
                        needs = 4
                    else:
                        needs = 4 if challenge == "EXPLORATION" else self._tile(s, tile)[challenge.lower()][
                            "requiredIcons"]
                    return {"type": "PATROL_TAKE", "tileId": tile, "challenge": challenge, "partyCardIds": party,
                            "gps": gps, "choices": {"party": sorted(searchers), "gps": list(range(gps_held + 1)),
                                                    "needs": needs}}
        return None

    # -- phase 5 -------------------------------------------------------------------------------------

    def _market_entries(self, s: State, seat: int) -> list[Action]:
        p = s["players"][seat]
        spaces = [i for i, held in enumerate(p["objectives"]) if held is None]
        out = []
        for r, row in enumerate(s["market"]):
            if not any(c is not None for c in row) or p["hkd"] < self._price(row):
                continue
            for c, card in enumerate(row):
                if card is not None:
                    out += [{"type": "BUY_MARKET_CARD", "row": r, "col": c, "objectiveSpaceIndex": i} for i in spaces]
        return out + [{"type": "PASS"}]

    # -- phases 6 and 7 ------------------------------------------------------------------------------

    def _collect_entries(self, s: State, seat: int) -> list[Action]:
        collect = s["collect"]
        if seat not in collect["waiting"]:
            return []
        if collect["kind"] == "discard":
            cards = self._discardable(s, seat)
            return [{"type": "CLEANUP_DISCARD_OBJECTIVES", "cardIds": list(chosen)}
                    for size in range(len(cards) + 1) for chosen in itertools.combinations(cards, size)]
        chosen = set(collect["submitted"].get(str(seat), {}).values())
        spaces = [x["action"] for x in s["players"][seat]["spaces"] if x["covered"] and x["action"] not in chosen]
        return [{"type": "CHOOSE_HOUSE", "districtId": d, "checkSpaceId": space}
                for d in collect["due"][str(seat)] for space in spaces]

    # -- phase 8 -------------------------------------------------------------------------------------

    def _refill_entries(self, s: State, seat: int) -> list[Action]:
        if not s["turn"].get("refilled"):
            return [{"type": "REFILL_HAND", "slot": n} for n in self._refill_slots(s, seat)] + \
                [{"type": "DECLINE_REFILL"}]
        return [{"type": "ACTIVATE_CHECK_ACTION", "sourceId": c} for c in self._phase8_checks(s, seat)] + \
            [{"type": "END_TURN"}]

    # -- pending decisions ---------------------------------------------------------------------------

    def _decision_entries(self, s: State, seat: int) -> list[Action]:
        head = s["queue"][0]
        effect = head["effect"]
        kind = effect["type"]
        if kind == "PLACE_CUBE":
            targets = self.placements(s, seat, effect["colour"])
            out = [{"type": "PLACE_CUBE", "locationId": loc, "choices": {"transport": cost}}
                   for loc, cost in sorted(targets.items())]
            if s["options"]["PLACE_CUBE_DECLINABLE_WHEN_COSTLY"] and min(targets.values()) > 0:
                out.append({"type": "PLACE_CUBE", "locationId": None})
            return out
        if kind == "GAIN_RESOURCE":
            return [{"type": "CHOOSE_RESOURCE", "resource": r} for r in RESOURCES]
        if kind == "RETRIEVE_FROM_HOSPITAL":
            return [{"type": "RETRIEVE_CARD", "cardId": c} for c in s["players"][seat]["hospital"]]
        if kind == "ACTIVATE_CHECK_ACTION":
            return [{"type": "CHOOSE_CHECK_ACTION", "sourceId": c} for c in self._leader_checks(s, seat)]
        return [{"type": "RESOLVE_CLOSE_OUT", "cardId": head["source"]["card"], "closeOut": choice}
                for choice in (False, True)]

    # -- what a seat may see (§8.4) ------------------------------------------------------------------

    def view(self, s: State, seat: int | None) -> dict[str, Any]:
        board = board_of(s["content"])
        patrol_seat = s["active"] if s["step"] == "p4" and s["turn"].get("patrol") else None
        looking_at = s["turn"].get("patrol") if patrol_seat == seat and seat is not None else None
        districts = []
        for d, state in s["districts"].items():
            tiles = []
            for t in state["tiles"]:
                known = s["tiles"][t]["faceUp"] or d == looking_at or seat in s["tiles"][t]["seenBy"]
                tiles.append({**board.tiles[t], "faceUp": s["tiles"][t]["faceUp"]} if known else {"faceUp": False})
            districts.append({"id": d, "tiles": tiles, "tile_count": len(tiles), "stabilised": state["stabilised"],
                              "houses": state["houses"], "substitute_cubes": state["substitutes"],
                              "chosen_by": state["chosen_by"]})
        collect = None
        if s["collect"]:
            open_choices = not s["options"]["P6_P7_SIMULTANEOUS"]
            due = s["collect"].get("due", {})
            if not open_choices:  # a house chosen leaves ``due`` at once: to the others, it stands until the reveal
                chosen = s["collect"]["submitted"]
                due = {k: v if k == str(seat) else [d for d in s["districts"] if d in v or d in chosen.get(k, {})]
                       for k, v in due.items()}
            collect = {"kind": s["collect"]["kind"], "waiting": s["collect"]["waiting"],
                       "due": due,
                       "submitted": {k: v for k, v in s["collect"]["submitted"].items()
                                     if open_choices or k == str(seat)}}
        shown = {
            "mode": s["mode"], "round": s["round"], "phase": {"start_cubes": 0, "plan": 1}.get(s["step"], None)
            if s["step"] in ("start_cubes", "plan") else (9 if s["step"] == "over" else int(s["step"][1])),
            "step": s["step"], "start_seat": s["start_seat"], "order": s["order"], "active": s["active"],
            "to_act": self.to_act(s), "dice": s["dice"], "rondel_order": board.ring,
            "market": s["market"], "market_prices": [self._price(r) if any(r) else None for r in s["market"]],
            "objective_deck": len(s["deck"]), "reserve_deck": len(s["reserve"]), "discard": s["discard"],
            "map": s["content"]["map"], "scoring_table": s["options"]["SCORING_TABLE"] or s["content"]["scoringTable"],
            "districts": districts, "shared_plans": s["shared_plans"],
            "end_triggered_round": s["end_round"], "final_round": s["final_round"], "pass_streak": s["pass_streak"],
            "queue": s["queue"], "turn": {k: v for k, v in s["turn"].items() if k != "patrol"} | (
                {"patrol": s["turn"]["patrol"]} if s["turn"].get("patrol") else {}),
            "plans_submitted": sorted(int(k) for k in s["plans"]),
            "my_plan": s["plans"].get(str(seat)) if seat is not None else None,
            "collect": collect,
            "players": [self._player_view(s, p, seat) for p in s["players"]],
            "result": s["result"],
        }
        shown["cards"] = {c: _card_summary(board.cards[c]) for c in sorted(_strings(shown) & board.cards.keys())}
        return shown

    def _player_view(self, s: State, p: dict, seat: int | None) -> dict[str, Any]:
        own = p["seat"] == seat
        board = board_of(s["content"])
        slots = [[{"card": e["card"], "faceUp": e["faceUp"], "round": e["round"]} if e["faceUp"] or own
                  else {"faceUp": False, "round": e["round"]} for e in stack] for stack in p["slots"]]
        tiles = []
        for t in p["tiles"]:
            if t["faceUp"] or own or s["options"]["OWNED_FACEDOWN_TILE_VISIBILITY"] == "PUBLIC":
                tiles.append({**board.tiles[t["tile"]], "faceUp": t["faceUp"]})
            else:
                tiles.append({"faceUp": False, "backSearchIcons": board.tiles[t["tile"]]["backSearchIcons"]})
        return {
            "seat": p["seat"], "animal": p["animal"], "vp": p["vp"], "hkd": p["hkd"], "transport": p["transport"],
            "gps": p["gps"], "cube_supply": p["supply"], "rondel": p["rondel"], "cubes": p["cubes"],
            "hand": list(p["hand"]) if own else None, "hand_size": len(p["hand"]),
            "slots": slots, "slot4_unlocked": p["slot4"], "objective_area": p["objectives"],
            "emergency_plan": p["emergency"], "hospital": p["hospital"], "check_area": p["check_area"],
            "check_spaces": p["spaces"], "houses_left": sum(1 for x in p["spaces"] if x["covered"]),
            "power_restoration": p["power"], "refill_threshold": p["threshold"], "patrol_tiles": tiles,
        }

    def event_view(self, event: Event, seat: int | None) -> Event:
        kind = event["type"]
        if kind == "district_stabilised":  # R-7.3 (a): its tiles go back to the box unseen (spec 7, hidden info)
            return {**event, "data": {**{k: v for k, v in event["data"].items() if k != "tiles"},
                                      "tiles_returned": len(event["data"]["tiles"])}}
        if event["seat"] == seat:
            return event
        if kind in PRIVATE_TO_ACTOR:
            kept = {"district": event["data"]["district"]} if kind == "patrol_viewed" else {}
            return {**event, "data": kept}
        if kind in PRIVATE_WHILE_COLLECTING and event["data"].get("hidden"):
            return {**event, "data": {}}
        return event


def _strings(node: Any) -> set[str]:
    """Every string in a JSON value: the card ids a view shows, to describe them beside it."""
    if isinstance(node, str):
        return {node}
    if isinstance(node, dict):
        return set().union(*map(_strings, node.values())) if node else set()
    if isinstance(node, list):
        return set().union(*map(_strings, node)) if node else set()
    return set()


def _card_summary(card: dict) -> dict[str, Any]:
    keys = ("kind", "colour", "name", "role", "points", "searchIcons", "gatherCount", "letter", "destination")
    return {k: card[k] for k in keys if card.get(k) is not None} | (
        {"objectives": len(card["objectives"])} if card.get("objectives") else {})
