"""Blackout: Hong Kong: a pure rules engine (spec ``docs/rules/blackout-hong-kong.md``).

A round has eight phases (R-0.1; state machine §3.9). ``state["step"]`` says where the game stands:
``start_cubes`` (S-12), ``plan`` (Phase 1, every seat at once), ``p2``...``p8`` and ``over``. Sequential
phases have an ``active`` seat; Phase 5 loops until as many passes in a row as there are players;
Phases 6 and 7 collect each concerned seat's choice (``collect``), at once or in turn order (A-47).

Effects are queued (``queue``): each one is resolved by an event, automatically when it needs no
choice, otherwise by the queue head's seat with a decision action (``PLACE_CUBE``,
``CHOOSE_RESOURCE``, ``RETRIEVE_CARD``, ``CHOOSE_CHECK_ACTION``, ``RESOLVE_CLOSE_OUT``). While the
queue is not empty, only its head's seat acts.

Randomness (dice, injuries) after setup comes from ``rng``, a key derived from the match seed and
never shown; setup shuffles come from the seed itself.

Hidden information has one gate, ``view`` and ``event_view`` (spec §8.4): hands and unrevealed plans
are their owner's, a patrol look is the patrolling seat's, simultaneous Phase 6/7 choices stay
hidden until every seat has chosen, decks are counts.

Reasons an action is refused (stable codes; the message names the rule): ``refusals.py``.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from service.games.blackout_hong_kong import content as pack_data, options as opts, payments
from service.games.blackout_hong_kong.actions import BlackoutHongKongAction
from service.games.blackout_hong_kong.board import DICE, RESOURCES, board_of, table_value
from service.games.blackout_hong_kong.folds import Folds, plan_at
from service.games.blackout_hong_kong.listing import Listing
from service.games.blackout_hong_kong.svg import render_svg
from service.games.kit import Turn, event
from service.games.protocol import Action, Event, GameInfo, IllegalAction, InvalidOptions, Packs, State, ranks

SEQUENTIAL = ("p2", "p3", "p4", "p8")
SINGLE_RESERVE = {1: 33, 2: 36, 3: 21, 4: 15}  # S-5 (1 player: A-40's variant)
PRICES = {3: 4, 2: 3, 1: 2}
FREE_ACTIONS = ("BUY_TRANSPORT", "BUY_BATTERY")
DECISIONS = {"PLACE_CUBE": "PLACE_CUBE", "GAIN_RESOURCE": "CHOOSE_RESOURCE",
             "RETRIEVE_FROM_HOSPITAL": "RETRIEVE_CARD", "ACTIVATE_CHECK_ACTION": "CHOOSE_CHECK_ACTION",
             "CLOSE_OUT_OFFER": "RESOLVE_CLOSE_OUT"}
PHASE_OF_STEP = {"start_cubes": 0, "plan": 1, "p2": 2, "p3": 3, "p4": 4, "p5": 5, "p6": 6, "p7": 7, "p8": 8, "over": 9}


def refuse(reason: str, message: str) -> IllegalAction:
    return IllegalAction(reason, message)


def resolving(kind: str, seat: int, **data: Any) -> Event:
    """The event that resolves the head of the effect queue."""
    return event(kind, seat, queued=True, **data)


class BlackoutHongKong(Listing, Folds):
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
    packs = Packs(load=pack_data.load_pack, default=pack_data.DEFAULT_PACK, folder=pack_data.PACKS_DIR,
                  option="CONTENT_PACK_ID", checked_by=())
    svg = staticmethod(render_svg)
    turn_rule = "R-0.3"
    over_rule = "E-3"
    from service.games.blackout_hong_kong.refusals import REFUSALS as refusals  # every reason play refuses with
    out_of_turn = frozenset({"SUBMIT_PLAN"})  # a submitted plan may be revised: checked in _submit_plan
    timeout_actions = {"pass": {"type": "PASS"}}
    # dice, draws, reveals and private looks: someone has learnt what was hidden or left to chance
    # (plans, discards and houses chosen in secret are shown to all once the last seat has chosen)
    irreversible = frozenset({"dice_rolled", "card_revealed", "hand_refilled", "hand_revealed", "row_refilled",
                              "patrol_viewed", "patrol_taken", "injured", "plans_placed", "market_decayed",
                              "objectives_discarded", "houses_placed"})

    def __init__(self):
        self._actions = {
            "PLACE_START_CUBE": self._start_cube, "SUBMIT_PLAN": self._submit_plan, "REVEAL_CARD": self._reveal,
            "GATHER": self._gather, "USE_SPECIALIST_ROW": self._use_row, "END_TURN": self._end_turn,
            "COMPLETE_OBJECTIVE": self._complete, "RESOLVE_CLOSE_OUT": self._close_out,
            "PATROL_CHOOSE_DISTRICT": self._choose_district, "PATROL_TAKE": self._take,
            "PATROL_DECLINE": self._decline, "PATROL_SKIP": self._skip, "BUY_MARKET_CARD": self._buy,
            "PASS": self._pass, "CLEANUP_DISCARD_OBJECTIVES": self._discard, "CHOOSE_HOUSE": self._house,
            "REFILL_HAND": self._refill, "DECLINE_REFILL": self._decline_refill,
            "ACTIVATE_CHECK_ACTION": self._activate, "BUY_TRANSPORT": self._buy_transport,
            "BUY_BATTERY": self._buy_battery, "PLACE_CUBE": self._place_cube,
            "CHOOSE_RESOURCE": self._choose_resource, "RETRIEVE_CARD": self._retrieve,
            "CHOOSE_CHECK_ACTION": self._choose_check,
        }

    def complete_options(self, resolved, players, given):
        return opts.complete(resolved, players, given)

    # -- setup (section 2) ---------------------------------------------------------------------------

    def setup(self, options: dict[str, Any], players: int, seed: str, content: Any = None) -> State:
        content = pack_data.default_content() if content is None else content
        board = board_of(content)
        shuffled = lambda items, label: random.Random(f"{seed}:blackout-hong-kong:{label}").sample(  # noqa: E731
            list(items), len(items))
        campaign = options["mode"] == "CAMPAIGN"
        chapter = next((c for c in content.get("campaign", {}).get("chapters", []) if c["number"] == options["chapter"]),
                       None)
        if campaign and chapter is None:
            raise InvalidOptions("options.chapter", f"pack {content['id']!r} has no chapter {options['chapter']}")

        tiles = shuffled([t["id"] for t in content["patrolTiles"]], "tiles")  # S-4
        districts = {}
        for i, district in enumerate(content["map"]["districts"]):
            districts[district["id"]] = {"tiles": tiles[3 * i:3 * i + 3], "stabilised": False, "houses": [],
                                         "substitutes": [], "chosen_by": None}
        objective_cards = shuffled([c["id"] for c in content["objectiveCards"]], "objectives")  # S-5
        reserve_size = chapter["reserveSize"][str(players)] if campaign else SINGLE_RESERVE[players]
        reserve, rest = objective_cards[:reserve_size], objective_cards[reserve_size:]
        market = [rest[0:3], rest[3:6], rest[6:9]]
        deck = rest[9:]

        volunteers = shuffled([c["id"] for c in content["startingVolunteers"]], "volunteers")  # S-8
        plans = shuffled([c["id"] for c in content["emergencyPlans"]], "emergency")  # S-9
        per = options["STARTING_VOLUNTEERS_PER_PLAYER"]
        hkd = 4
        if campaign and players == 1:
            hkd += options["RETRY_BONUS_HKD"] * (options["CAMPAIGN_ATTEMPT"] - 1)  # C-15(c)
        seats = []
        for seat in range(players):
            cards = content["playerSets"][options["animal_sets"][seat]]  # S-10
            at = lambda where: [c["id"] for c in cards if c["setupPosition"] == where]  # noqa: E731
            objectives = [{"card": c, "done": [], "markers": 0} for c in volunteers[seat * per:(seat + 1) * per]]
            seats.append({
                "seat": seat, "animal": options["animal_sets"][seat],
                "vp": 0, "hkd": hkd, "transport": 5, "gps": 0, "supply": 24,  # S-6, S-7
                "rondel": {**{r: 0 for r in RESOURCES}, "BATTERY": 1},
                "cubes": [], "hand": at("HAND"),
                "slots": [[{"card": c, "faceUp": True, "round": 0} for c in at("SLOT1")],
                          [{"card": c, "faceUp": True, "round": 0} for c in at("SLOT2_BOTTOM") + at("SLOT2_TOP")],
                          [], []],
                "slot4": False,
                "objectives": (objectives + [None, None, None])[:3],
                "emergency": None if campaign else {"card": plans[seat], "done": [], "markers": 0},
                "hospital": at("HOSPITAL"), "check_area": [],
                "spaces": [{"action": a["id"], "covered": True} for a in content["personalBoard"]["checkActions"]],
                "power": {"A": False, "B": False},
                "threshold": content["personalBoard"]["refillThreshold"]["base"],
                "tiles": [],
            })
        start = options["START_SEAT"]
        if start is None:
            start = random.Random(f"{seed}:blackout-hong-kong:start").randrange(players)  # S-11, A-53
        shared = []
        if campaign:
            for letter in chapter["emergencyPlans"][str(players)]:  # C-10
                shared.append({"card": board.plans_by_letter[letter]["id"], "done": {}, "cubes": {}})
        return {
            "options": options, "content": content, "n": players, "mode": options["mode"],
            "rng": hashlib.sha256(f"{seed}:blackout-hong-kong:rng".encode()).hexdigest(),
            "round": 0, "step": "start_cubes", "start_seat": start,
            "order": [(start + i) % players for i in range(players)],
            "start_queue": [(start - 1 - i) % players for i in range(players)],  # S-12: s-1, s-2, ..., s
            "active": (start - 1) % players, "turn": {}, "dice": None,
            "market": market, "deck": deck, "reserve": reserve, "discard": [],
            "districts": districts, "tiles": {t: {"faceUp": False, "seenBy": []} for t in tiles},
            "box_tiles": [], "shared_plans": shared,
            "end_round": None, "final_round": None, "pass_streak": 0, "bought": False,
            "queue": [], "plans": {}, "collect": None, "leader_checks": {},
            "players": seats, "result": None,
        }

    # -- who acts ------------------------------------------------------------------------------------

    def is_over(self, state: State) -> bool:
        return state["step"] == "over"

    def to_act(self, state: State) -> list[int]:
        if state["step"] == "over":
            return []
        if state["queue"]:
            return [state["queue"][0]["seat"]]
        if state["collect"]:
            waiting = [s for s in state["order"] if s in state["collect"]["waiting"]]
            return waiting if state["options"]["P6_P7_SIMULTANEOUS"] else waiting[:1]
        if state["step"] == "plan":
            return [s for s in state["order"] if str(s) not in state["plans"]]
        return [] if state["active"] is None else [state["active"]]

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if (state["step"] == "plan" and not state["queue"] and str(seat) in state["plans"]
                and state["options"]["PLAN_REVISABLE"]):
            return self._plan_entries(state, seat)  # a submitted seat may still revise
        return super().legal_actions(state, seat)

    def _play(self, turn: Turn, seat: int, action: Action) -> None:
        handler = self._actions.get(action["type"])
        if handler is None:
            raise refuse("unknown_action", f"§8.2: no action {action['type']!r}")
        state = turn.state
        if action["type"] not in FREE_ACTIONS:
            head = state["queue"][0] if state["queue"] else None
            wanted = DECISIONS.get(head["effect"]["type"]) if head else None
            if head and action["type"] != wanted:
                raise refuse("decision_pending", f"§3.9: first resolve the pending {head['effect']['type']} "
                                                 f"with {wanted}")
            if not head and action["type"] in DECISIONS.values() and not (
                    action["type"] == "RESOLVE_CLOSE_OUT" and self.closable(state, seat)):
                raise refuse("not_pending", f"§3.9: no {action['type']} decision is pending")
        handler(turn, seat, action)
        self._proceed(turn)

    # -- the automatic flow (§3.9) -------------------------------------------------------------------

    def _proceed(self, turn: Turn) -> None:
        """Run every automatic step until some seat must decide, or the game is over."""
        while True:
            s = turn.state
            if s["step"] == "over":
                return
            if s["queue"]:
                if not self._resolve_head(turn):
                    return
                continue
            if s["collect"]:
                if s["collect"]["waiting"]:
                    return
                self._finish_collection(turn)
                continue
            step = s["step"]
            if step == "start_cubes":
                if s["active"] is not None:
                    return
                self._begin_round(turn, 1, s["start_seat"])
            elif step == "plan":
                if len(s["plans"]) < s["n"]:
                    return
                turn.emit("plans_placed", None, slots={k: sorted(v) for k, v in s["plans"].items()})
                self._next_phase(turn)
            elif step in SEQUENTIAL:
                if s["active"] is None:
                    self._next_phase(turn)
                elif self._nothing_to_do(s, s["active"]):
                    turn.emit("turn_ended", s["active"], auto=True)
                else:
                    return
            elif step == "p5":
                if s["pass_streak"] >= s["n"]:  # R-5.2 (C-14: one pass with one player)
                    self._next_phase(turn)
                elif s["options"]["AUTO_PASS"] and not self._can_buy(s, s["active"]):
                    turn.emit("passed", s["active"], auto=True)
                else:
                    return
            else:  # p6, p7: their automatic parts ran when they began, and their collection is done
                self._next_phase(turn)

    def _begin_round(self, turn: Turn, number: int, start: int) -> None:
        turn.emit("round_started", None, round=number, start_seat=start)
        turn.emit("phase_started", None, round=number, step="plan")
        for roll in self.dice_rolls(turn.state, number):  # T-1
            turn.emit("dice_rolled", None, **roll)

    def dice_rolls(self, state: State, number: int) -> list[dict[str, Any]]:
        dice = {d["colour"]: d["faces"] for d in state["content"]["dice"]}

        def face(colour: str, attempt: int) -> str:
            return random.Random(f"{state['rng']}:dice:{number}:{attempt}:{colour}").choice(dice[colour])

        return roll_until_valid(face, state["options"]["DICE_REROLL_POLICY"])

    def _next_phase(self, turn: Turn) -> None:
        s = turn.state
        step, number = s["step"], s["round"]
        if step == "p5" and s["n"] == 1 and s["options"]["SOLO_MARKET_DECAY"] and not s["bought"]:
            top = [(0, c, card) for c, card in enumerate(s["market"][0]) if card is not None][-1:]
            if top:  # C-15(a)
                turn.emit("market_decayed", None, cards=[list(t) for t in top], solo=True)
                self._refill_rows(turn)
        if step == "p8":
            if s["final_round"] == number:
                turn.emit("final_scoring", None, **self.final_scoring(turn.state))
                return
            start = s["start_seat"] if s["n"] == 1 else (s["start_seat"] + 1) % s["n"]  # C-14
            self._begin_round(turn, number + 1, start)
            return
        following = {"plan": "p2", "p2": "p3", "p3": "p4", "p4": "p5", "p5": "p6", "p6": "p7", "p7": "p8"}[step]
        turn.emit("phase_started", None, round=number, step=following)
        if following == "p4":
            self._ongoing(turn, "PATROL")
        elif following == "p6":
            self._cleanup(turn)
        elif following == "p7":
            self._stabilise(turn)

    def _nothing_to_do(self, s: State, seat: int) -> bool:
        """A seat whose sequential turn offers no decision at all passes it automatically."""
        p = s["players"][seat]
        if s["step"] == "p2":
            return not self._planned(s, p) and not s["turn"].get("revealed")
        if s["step"] == "p3":
            return not self.completable(s, seat)
        if s["step"] == "p4":
            return not s["turn"].get("chosen") and not self._eligible_districts(s, seat)
        if s["step"] == "p8":
            return not s["turn"].get("refilled") and not self._refill_slots(s, seat)
        return False

    # -- effects ------------------------------------------------------------------------------------

    def _resolve_head(self, turn: Turn) -> bool:
        """Resolve the queue head if it needs no choice; False when its seat must decide."""
        s = turn.state
        head = s["queue"][0]
        seat, effect = head["seat"], head["effect"]
        p = s["players"][seat]
        kind = effect["type"]
        simple = {"POINTS": "vp_gained", "HKD": "hkd_gained"}
        if kind in simple:
            turn.add(resolving(simple[kind], seat, n=effect["n"]))
        elif kind == "GAIN_TRANSPORT":  # a limited pool gives what it has
            turn.add(resolving("transport_gained", seat, n=min(effect["n"], self._transport_pool(s))))
        elif kind == "GAIN_RESOURCE" and effect["resource"] != "CHOICE":
            turn.add(resolving("resource_gained", seat, resource=effect["resource"],
                               n=self._gainable(s, p, effect["n"])))
        elif kind == "GAIN_RESOURCE" and not self._gainable(s, p, effect["n"]):
            turn.add(resolving("resource_gained", seat, resource="FOOD", n=0))  # nothing to gain
        elif kind == "GAIN_BATTERY":
            turn.add(resolving("resource_gained", seat, resource="BATTERY", n=self._gainable(s, p, effect["n"])))
        elif kind == "GAIN_GPS":
            n = effect["n"]
            if s["options"]["GPS_POOL_LIMITED"]:
                n = min(n, 12 - sum(q["gps"] for q in s["players"]))
            turn.add(resolving("gps_gained", seat, n=n))
        elif kind == "PLACE_CUBE" and not self.placements(s, seat, effect["colour"]):
            turn.add(resolving("cube_not_placed", seat, why="no target or no cube in supply (A-15)"))
        elif kind == "RETRIEVE_FROM_HOSPITAL" and not p["hospital"]:
            turn.add(resolving("nothing_retrieved", seat))
        elif kind == "ACTIVATE_CHECK_ACTION" and not self._leader_checks(s, seat):
            turn.add(resolving("nothing_to_activate", seat))
        elif kind == "REVEAL_HAND_GAIN_HKD_PER_ICON":
            cards = sorted(p["hand"])
            icons = sum(self._card(s, c)["searchIcons"] for c in cards)
            turn.add(resolving("hand_revealed", seat, cards=cards, hkd=icons * effect["perIcon"]))
        elif kind == "UPGRADE_REFILL_THRESHOLD":
            turn.add(resolving("threshold_upgraded", seat))
        elif kind == "UNLOCK_SLOT4":
            turn.add(resolving("slot4_unlocked", seat))
        elif kind == "MARKER":
            turn.add(resolving("marker_placed", seat, source=head["source"], virtual=p["supply"] == 0))
        elif kind == "FINISH_PLAN":
            held = plan_at(p, head["source"])
            turn.add(resolving("plan_finished", seat, source=head["source"], card=held["card"],
                               markers=held["markers"]))
        else:
            return False
        return True

    def _gainable(self, s: State, p: dict, n: int) -> int:
        return min(n, p["supply"]) if s["options"]["CUBES_LIMITED"] else n

    def placements(self, s: State, seat: int, colour: str) -> dict[str, int]:
        """R-3.12: every location the seat may put a cube on, with its transport cost."""
        p = s["players"][seat]
        if p["supply"] <= 0 and s["options"]["CUBES_LIMITED"]:
            return {}
        board = board_of(s["content"])
        own = set(p["cubes"])
        free = [loc for loc in board.locations if loc not in own]
        if colour != "ANY":  # the colour is ignored once the seat holds every location of it
            free = [loc for loc in free if board.locations[loc]["colour"] == colour] or free
        blocked = colour if s["options"]["SKIP_RULE"] == "OTHER_COLOUR_ONLY" and colour != "ANY" else None
        table = board.distances(blocked)
        affordable = p["transport"] + self._transport_pool(s)  # R-3.12(4): the shortfall is bought, pool allowing
        out = {}
        for target in free:
            reach = [table[o][target] for o in own if target in table[o]]
            if own and not reach:
                continue
            cost = max(0, min(reach) - 1) if reach else 0
            if cost <= affordable:
                out[target] = cost
        return out

    def _transport_pool(self, s: State) -> int:
        if not s["options"]["TRANSPORT_POOL_LIMITED"]:
            return 10 ** 6
        return 24 - sum(q["transport"] for q in s["players"])

    def _leader_checks(self, s: State, seat: int) -> list[str]:
        return self.unlocked_checks(s, seat)

    def unlocked_checks(self, s: State, seat: int) -> list[str]:
        """R-8.4: personal actions whose house has gone, and actions of cards in the check-mark area."""
        p = s["players"][seat]
        personal = [space["action"] for space in p["spaces"] if not space["covered"]]
        cards = [c for c in p["check_area"] if self._card(s, c).get("checkAction")]
        return personal + cards

    def check_effects(self, state: State, seat: int, source: str) -> list:
        board = board_of(state["content"])
        if source in board.check_actions:
            return list(board.check_actions[source]["effects"])
        return list(board.cards[source].get("checkAction", []))

    def _ongoing(self, turn: Turn, phase: str) -> None:
        """R-6.4 and the patrol counterpart: ongoing effects of cards in each check-mark area."""
        for seat in turn.state["order"]:
            for card in turn.state["players"][seat]["check_area"]:
                ongoing = self._card(turn.state, card).get("ongoingEffect")
                if ongoing and ongoing["phase"] == phase:
                    turn.emit("ongoing_effect", seat, card=card, effect=ongoing["effect"])

    # -- start cubes (S-12) ------------------------------------------------------------------------

    def _start_cube(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        if s["step"] != "start_cubes":
            raise refuse("wrong_phase", "S-12: start cubes are placed before round 1")
        location = action["locationId"]
        if location not in board_of(s["content"]).locations:
            raise refuse("unknown_location", f"S-12: no location {location!r}")
        if any(location in p["cubes"] for p in s["players"]):
            raise refuse("location_taken", "S-12, A-16: another player's start cube is already there")
        turn.emit("start_cube_placed", seat, location=location)

    # -- phase 1 -------------------------------------------------------------------------------------

    def _usable_slots(self, p: dict) -> list[int]:
        return [1, 2, 3, 4] if p["slot4"] else [1, 2, 3]

    def _submit_plan(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        if s["step"] != "plan" or s["queue"]:
            raise refuse("wrong_phase", "R-1.5: plans are submitted in Phase 1")
        if str(seat) in s["plans"] and not s["options"]["PLAN_REVISABLE"]:
            raise refuse("plan_closed", "R-1.7, A-51: this plan is already in (PLAN_REVISABLE is off)")
        p = s["players"][seat]
        slots = action["slots"]
        cards = list(slots.values())
        if len(set(cards)) != len(cards):
            raise refuse("duplicate_card", "R-1.5: the planned cards must be distinct")
        for slot, card in slots.items():
            if card not in p["hand"]:
                raise refuse("not_in_hand", f"R-1.5: {card} is not in your hand")
            if int(slot) not in self._usable_slots(p):
                raise refuse("slot_locked", "R-1.5: slot 4 is locked until power restoration B")
        turn.emit("plan_submitted", seat, slots=dict(sorted(slots.items())))

    def _plan_entries(self, s: State, seat: int) -> list[Action]:
        """A handful of whole plans (the empty one, and the hand in turn filling every slot); ``choices``
        spells out the rest: each slot takes any hand card or none, all distinct."""
        p = s["players"][seat]
        slots = [str(n) for n in self._usable_slots(p)]
        hand = sorted(p["hand"])
        plans = [{}]
        for shift in range(len(hand)):
            turned = hand[shift:] + hand[:shift]
            plans.append({slot: card for slot, card in zip(slots, turned)})
        choices = {"slots": {slot: hand for slot in slots}, "distinct": True}
        unique = {tuple(sorted(plan.items())): plan for plan in plans}
        return [{"type": "SUBMIT_PLAN", "slots": plan, "choices": choices} for plan in unique.values()]

    # -- phase 2 -------------------------------------------------------------------------------------

    def _planned(self, s: State, p: dict) -> list[tuple[int, str]]:
        """This round's cards still face-down: (slot, card)."""
        return [(i + 1, e["card"]) for i, stack in enumerate(p["slots"]) for e in stack
                if e["round"] == s["round"] and not e["faceUp"]]

    def _usable_cards(self, s: State) -> list[str]:
        if s["options"]["CARD_RESOLUTION"] == "INTERLEAVED":
            return list(s["turn"].get("revealed", []))
        return [s["turn"]["current"]] if s["turn"].get("current") else []  # A-43 STRICT

    def _phase(self, s: State, step: str, rule: str) -> None:
        if s["step"] != step:
            raise refuse("wrong_phase", f"{rule}: not in Phase {PHASE_OF_STEP[step]}")

    def _reveal(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        self._phase(s, "p2", "R-2.2")
        planned = dict(self._planned(s, s["players"][seat]))
        if action["slot"] not in planned:
            raise refuse("no_card_to_reveal", "R-2.2: that slot holds no card planned this round face-down")
        turn.emit("card_revealed", seat, slot=action["slot"], card=planned[action["slot"]])

    def _revealed_card(self, s: State, card_id: str, kind: str) -> dict:
        if card_id not in self._usable_cards(s):
            raise refuse("not_revealed", "R-2.2, A-43: that card is not the card being resolved this turn")
        card = self._card(s, card_id)
        if card["kind"] != kind:
            raise refuse(f"not_a_{kind.lower()}", f"R-2.4, R-2.5: {card_id} is not a {kind.lower()}")
        return card

    def _gather(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        self._phase(s, "p2", "R-2.4")
        card = self._revealed_card(s, action["cardId"], "VOLUNTEER")
        if "gather" in s["turn"].get("used", {}).get(action["cardId"], []):
            raise refuse("already_used", "R-2.4: this volunteer has gathered already")
        board = board_of(s["content"])
        base, target = s["dice"][card["colour"]], action["targetResource"]
        if (not s["options"]["SHIFT_ONTO_OTHER_DIE"] and target != base and target in s["dice"].values()):
            raise refuse("die_in_the_way", "R-2.4(d), A-12: SHIFT_ONTO_OTHER_DIE is off")
        k = board.ring_distance(base, target)
        p = s["players"][seat]
        buy = action.get("buyTransport", 0)
        if p["transport"] + buy < k:
            raise refuse("not_enough_transport", f"R-2.4(b): the shift costs {k} transport tokens")
        if buy:
            self._buy_transport_tokens(turn, seat, buy)
        turn.emit("gathered", seat, card=action["cardId"], base=base, resource=target, transport=k,
                  n=self._gainable(s, p, card["gatherCount"]))

    def _use_row(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        self._phase(s, "p2", "R-2.5")
        card = self._revealed_card(s, action["cardId"], "SPECIALIST")
        row, alternative = action["rowIndex"], action.get("alternativeIndex", 0)
        if row >= len(card["actions"]) or alternative >= len(card["actions"][row]["alternatives"]):
            raise refuse("unknown_row", f"R-2.5: {action['cardId']} has no such row or alternative")
        if str(row) in s["turn"].get("used", {}).get(action["cardId"], []):
            raise refuse("already_used", "R-2.5: each row is used at most once per reveal")
        cost = card["actions"][row]["alternatives"][alternative]["cost"]
        paid = payments.settle(cost, action.get("payment", "AUTO"), self._held(s["players"][seat]), "R-2.5")
        turn.emit("row_used", seat, card=action["cardId"], row=row, alternative=alternative, payment=paid)

    def _end_turn(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        if s["step"] == "p2" and self._planned(s, s["players"][seat]):
            raise refuse("cards_unrevealed", "R-2.2: reveal every card you planned this round first")
        if s["step"] == "p8" and not s["turn"].get("refilled"):
            raise refuse("not_refilled", "R-8.3: refill or decline (DECLINE_REFILL)")
        if s["step"] not in ("p2", "p3", "p8"):
            raise refuse("wrong_phase", "§8.2 #6: END_TURN ends a turn of Phase 2, 3 or 8")
        turn.emit("turn_ended", seat)

    # -- phase 3 -------------------------------------------------------------------------------------

    def _open_objectives(self, s: State, seat: int) -> list[tuple[dict, int, dict]]:
        """R-3.2: (source, objective index, objective) of every objective open to the seat."""
        p = s["players"][seat]
        out = []
        for i, held in enumerate(p["objectives"]):
            if held:
                card = self._card(s, held["card"])
                out += [({"area": "OBJECTIVE_SPACE", "index": i}, k, o) for k, o in enumerate(card["objectives"])
                        if k not in held["done"]]
        if isinstance(p["emergency"], dict):
            card = self._card(s, p["emergency"]["card"])
            out += [({"area": "EMERGENCY_PLAN"}, k, o) for k, o in enumerate(card["objectives"])
                    if k not in p["emergency"]["done"]]
        for which in ("A", "B"):
            if not p["power"][which]:
                out.append(({"area": "POWER_RESTORATION", "which": which}, 0,
                            s["content"]["personalBoard"]["powerRestoration"][which]))
        for plan in s["shared_plans"]:
            card = self._card(s, plan["card"])
            out += [({"area": "SHARED_PLAN", "cardId": plan["card"]}, k, o) for k, o in enumerate(card["objectives"])
                    if seat not in plan["done"].get(str(k), [])]
        return out

    def completable(self, s: State, seat: int) -> list[tuple[dict, int, dict]]:
        """The open objectives whose checked requirements hold and whose cost the seat could pay, counting
        the batteries its HK$ could still buy (R-0.4b): with none, Phase 3 offers the seat nothing."""
        p = s["players"][seat]
        out = []
        for source, index, objective in self._open_objectives(s, seat):
            if self._objective_blocker(s, seat, source, objective):
                continue
            costs = payments.costs_of(objective["requirements"])
            spare = max(0, (p["hkd"] - payments.hkd_due(costs)) // 5)
            if not s["options"]["CUBES_LIMITED"]:
                extra = spare
            else:
                extra = min(spare, p["supply"])
            held = self._held(p)
            held["BATTERY"] += extra
            if payments.affordable(costs, held):
                out.append((source, index, objective))
        return out

    def _source_key(self, source: dict) -> tuple:
        return (source["area"], source.get("index"), source.get("which"), source.get("cardId"))

    def requirement_check(self, s: State, seat: int, requirement: dict) -> tuple[bool, list[str]]:
        """R-3.4 for the requirements that are checked, not paid: (holds, tiles it uses)."""
        p = s["players"][seat]
        o = s["options"]
        kind = requirement["type"]
        if kind == "SLOT_COLOURS":
            want = _count(requirement["colours"])
            for stack in p["slots"]:
                have = _count(self._card(s, e["card"])["colour"] for e in stack)
                if o["SLOT_REQ_MODE"] == "EXACT" and have == want:
                    return True, []
                if o["SLOT_REQ_MODE"] == "CONTAINS" and all(have.get(c, 0) >= n for c, n in want.items()):
                    return True, []
            return False, []
        if kind == "PATROL_TILES":
            tiles = [t for t in p["tiles"] if t["faceUp"] or o["PATROL_REQ_TILES"] == "ANY_OWNED"]
            used = []
            for reward in requirement["rewardTypes"]:  # each tile matches one listed type
                match = next((t["tile"] for t in tiles if t["tile"] not in used
                              and self._tile(s, t["tile"])["rewardType"] == reward), None)
                if match is None:
                    return False, []
                used.append(match)
            return True, used
        if kind == "CRISIS_CENTRE_LINK":
            board = board_of(s["content"])
            cubes = set(p["cubes"])
            letters = list(board.letters) if (requirement["letter"] == "ANY" or o["CRISIS_LINK_LETTER_MODE"] == "ANY") \
                else [requirement["letter"]]
            return any(len(board.letters.get(l, [])) == 2 and board.linked(cubes, *board.letters[l])
                       for l in letters), []
        return True, []

    def _objective_blocker(self, s: State, seat: int, source: dict, objective: dict) -> IllegalAction | None:
        for requirement in objective["requirements"]:
            if not self.requirement_check(s, seat, requirement)[0]:
                return refuse("requirement_unmet", f"R-3.3, R-3.4: the {requirement['type']} requirement does "
                                                   "not hold")
        p = s["players"][seat]
        held = plan_at(p, source)
        returned = payments.units_due(payments.costs_of(objective["requirements"]))  # paid cubes come back first
        if not s["options"]["VIRTUAL_MARKERS"] and p["supply"] + returned == 0:
            card = self._card(s, held["card"]) if held else None
            marked = source["area"] == "SHARED_PLAN" or (
                card and card["kind"] not in ("VOLUNTEER", "SPECIALIST") and len(held["done"]) + 1 < len(card["objectives"]))
            if marked:
                return refuse("no_marker_cube", "R-3.7, C-6, A-38: no cube in supply to mark the objective "
                                                "(VIRTUAL_MARKERS is off)")
        return None

    def _complete(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        self._phase(s, "p3", "R-3.1, A-50")
        source, index = action["source"], action["objectiveIndex"]
        found = next((o for src, k, o in self._open_objectives(s, seat)
                      if self._source_key(src) == self._source_key(source) and k == index), None)
        if found is None:
            raise refuse("unknown_objective", "R-3.2, R-3.9: no such objective is open to you")
        blocker = self._objective_blocker(s, seat, source, found)
        if blocker:
            raise blocker
        p = s["players"][seat]
        paid = payments.settle(payments.costs_of(found["requirements"]), action.get("payment", "AUTO"),
                               self._held(p), "R-3.3")
        data: dict[str, Any] = {"source": dict(source), "objective": index, "payment": paid}
        if s["options"]["PATROL_REQ_CONSUMES"]:
            data["consumed_tiles"] = [t for r in found["requirements"] if r["type"] == "PATROL_TILES"
                                      for t in self.requirement_check(s, seat, r)[1]]
        if source["area"] == "SHARED_PLAN":  # C-6: the seat's own cube marks it (A-38 when none is left)
            data["cube"] = p["supply"] + paid_cubes(paid) > 0  # paying returns cubes first
            plan = next(x for x in s["shared_plans"] if x["card"] == source["cardId"])
            card = self._card(s, plan["card"])
            done = {int(k) for k, seats in plan["done"].items() if seat in seats} | {index}
            data["bonus"] = s["options"]["SHARED_PLAN_BONUS"] and len(done) == len(card["objectives"])
        elif source["area"] in ("OBJECTIVE_SPACE", "EMERGENCY_PLAN"):
            data["card"] = plan_at(p, source)["card"]
        turn.emit("objective_completed", seat, **data)

    def closable(self, s: State, seat: int) -> list[dict]:
        """A-20 ANY_TIME_IN_TURN: the seat's partly completed plans, with their source, in its Phase 3 turn."""
        if s["options"]["CLOSE_OUT_TIMING"] != "ANY_TIME_IN_TURN" or s["step"] != "p3" or s["queue"]:
            return []
        p = s["players"][seat]
        sources = [{"area": "OBJECTIVE_SPACE", "index": i} for i in range(3)] + [{"area": "EMERGENCY_PLAN"}]
        out = []
        for source in sources:
            held = plan_at(p, source)
            if held and held["done"] and self._card(s, held["card"])["kind"] in ("CRISIS_PLAN", "EMERGENCY_PLAN"):
                out.append({**source, "card": held["card"]})
        return out

    def _close_out(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        if not s["queue"]:  # a close out on the player's own initiative
            self._phase(s, "p3", "R-3.7, A-20")
            source = next((c for c in self.closable(s, seat) if c["card"] == action["cardId"]), None)
            if source is None or not action["closeOut"]:
                raise refuse("no_close_out", "R-3.7, A-20: no partly completed plan of yours to close out")
            held = plan_at(s["players"][seat], source)
            turn.emit("plan_closed_out", seat, source=source, card=held["card"], markers=held["markers"])
            return
        head = s["queue"][0]
        source = head["source"]
        if action["cardId"] != source.get("card"):
            raise refuse("no_close_out", "R-3.7: the pending close-out decision is about another card")
        p = s["players"][seat]
        if action["closeOut"]:
            held = plan_at(p, source)
            turn.add(resolving("plan_closed_out", seat, source=source, card=held["card"], markers=held["markers"]))
        else:
            turn.add(resolving("plan_kept", seat, card=action["cardId"]))

    # -- phase 4 -------------------------------------------------------------------------------------

    def _eligible_districts(self, s: State, seat: int) -> list[str]:
        """R-4.2: not chosen by another player this round, tiles left, a boundary location held."""
        if s["turn"].get("patrol") or (s["turn"].get("chosen") and s["options"]["PATROL_DECLINE_ENDS_TURN"]):
            return []
        board = board_of(s["content"])
        cubes = set(s["players"][seat]["cubes"])
        return [d for d, state in s["districts"].items()
                if state["chosen_by"] is None and state["tiles"] and cubes & set(board.districts[d]["boundary"])]

    def _choose_district(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        self._phase(s, "p4", "R-4.1")
        if s["turn"].get("patrol"):
            raise refuse("already_patrolling", "R-4.1: you are already looking at a district")
        district = action["districtId"]
        if district not in s["districts"]:
            raise refuse("unknown_district", f"R-4.2: no district {district!r}")
        if district not in self._eligible_districts(s, seat):
            raise refuse("not_eligible", "R-4.2: that district was chosen this round, has no tiles, or has none of "
                                         "your cubes on its boundary (R-4.2c)")
        tiles = [{**self._tile(s, t), "faceUp": s["tiles"][t]["faceUp"]} for t in s["districts"][district]["tiles"]]
        turn.emit("patrol_viewed", seat, district=district, tiles=tiles)

    def search_total(self, s: State, seat: int, party: list[str], gps: int) -> tuple[int, int]:
        """R-4.5: (full total S, the party's icons alone)."""
        p = s["players"][seat]
        party_icons = sum(self._card(s, c)["searchIcons"] for c in party)
        crisis_only = s["options"]["PASSIVE_ICON_SOURCES"] == "CRISIS_PLANS_ONLY"
        passive = sum(self._card(s, c)["searchIcons"] for c in p["check_area"]
                      if not crisis_only or self._card(s, c)["kind"] == "CRISIS_PLAN")
        backs = sum(self._tile(s, t["tile"])["backSearchIcons"] for t in p["tiles"] if not t["faceUp"])
        return party_icons + passive + backs + 3 * gps, party_icons

    def _exploration_tiles(self, s: State, district: str) -> list[str]:
        tiles = s["districts"][district]["tiles"]
        low = min(self._tile(s, t)["easy"]["requiredIcons"] for t in tiles)
        return [t for t in tiles if self._tile(s, t)["easy"]["requiredIcons"] == low]

    def _take_blocker(self, s: State, seat: int, tile: str, challenge: str, party: list[str], gps: int):
        p = s["players"][seat]
        district = s["turn"].get("patrol")
        if tile not in s["districts"][district]["tiles"]:
            return refuse("unknown_tile", "R-4.4: that tile is not in the district you are looking at")
        if not party or len(set(party)) != len(party):
            return refuse("bad_party", "R-4.5: the party is one or more distinct cards")
        for card in party:
            if card not in p["hand"]:
                return refuse("not_in_hand", f"R-4.5: {card} is not in your hand")
            if self._card(s, card)["searchIcons"] < 1:
                return refuse("bad_party", f"R-4.5: {card} has no search icon (the doctor can never join)")
        if gps > p["gps"]:
            return refuse("not_enough_gps", "R-4.5: you do not hold that many GPS tokens")
        total, party_icons = self.search_total(s, seat, party, gps)
        if challenge == "EXPLORATION":
            if tile not in self._exploration_tiles(s, district):
                return refuse("not_exploration_tile", "R-4.5: exploration takes a tile with the lowest easy "
                                                      "requirement in the district")
            counted = total if s["options"]["EXPLORATION_TOTAL_MODE"] == "FULL" else party_icons
            if counted < 4:
                return refuse("challenge_unmet", f"R-4.5, A-24: exploration needs 4 icons, the party has {counted}")
            return None
        needed = self._tile(s, tile)[challenge.lower()]["requiredIcons"]
        if total < needed:
            return refuse("challenge_unmet", f"R-4.5: the {challenge} challenge needs {needed} icons, S = {total}")
        return None

    def _take(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        self._phase(s, "p4", "R-4.4")
        district = s["turn"].get("patrol")
        if not district:
            raise refuse("no_patrol", "R-4.4: choose a district first (PATROL_CHOOSE_DISTRICT)")
        tile, challenge, party, gps = action["tileId"], action["challenge"], list(action["partyCardIds"]), \
            action.get("gps", 0)
        blocker = self._take_blocker(s, seat, tile, challenge, party, gps)
        if blocker:
            raise blocker
        p = s["players"][seat]
        data = self._tile(s, tile)
        if challenge == "EXPLORATION":
            reward, face_up = {"type": data["rewardType"], "n": 0}, False
        else:
            n = data[challenge.lower()]["rewardAmount"]
            if data["rewardType"] != "POINTS":
                n = self._gainable(s, p, n)
            reward = {"type": data["rewardType"], "n": n}
            face_up = not any(t["faceUp"] and self._tile(s, t["tile"])["rewardType"] == data["rewardType"]
                              for t in p["tiles"])
        others = [{**self._tile(s, t), "faceUp": True} for t in s["districts"][district]["tiles"] if t != tile]
        total = self.search_total(s, seat, party, gps)[0]
        turn.emit("patrol_taken", seat, district=district, tile=tile, tile_front=data, challenge=challenge,
                  party=sorted(party), gps=gps, total=total, reward=reward, faceUp=face_up, revealed=others)
        if challenge != "EXPLORATION" or s["options"]["EXPLORATION_INJURY"]:
            hurt = random.Random(f"{s['rng']}:injury:{s['round']}:{seat}").choice(sorted(party))
            turn.emit("injured", seat, card=hurt)
        turn.emit("turn_ended", seat)

    def _decline(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        self._phase(s, "p4", "R-4.4")
        if not s["turn"].get("patrol"):
            raise refuse("no_patrol", "R-4.4: you are not looking at a district")
        turn.emit("patrol_declined", seat, district=s["turn"]["patrol"])
        if s["options"]["PATROL_DECLINE_ENDS_TURN"] or not self._eligible_districts(turn.state, seat):
            turn.emit("turn_ended", seat)

    def _skip(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        self._phase(s, "p4", "R-4.1")
        if s["turn"].get("patrol"):
            raise refuse("already_patrolling", "R-4.4: take a tile or decline")
        turn.emit("turn_ended", seat, patrol="skipped")

    # -- phase 5 and the market ---------------------------------------------------------------------

    def _price(self, row: list) -> int:
        return PRICES[sum(1 for c in row if c is not None)]

    def _can_buy(self, s: State, seat: int) -> bool:
        p = s["players"][seat]
        rows = [r for r in s["market"] if any(c is not None for c in r)]
        return None in p["objectives"] and any(p["hkd"] >= self._price(r) for r in rows)

    def _buy(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        self._phase(s, "p5", "R-5.1")
        row, col, space = action["row"], action["col"], action["objectiveSpaceIndex"]
        card = s["market"][row][col]
        if card is None:
            raise refuse("cell_empty", "R-5.4: that market cell is empty")
        p = s["players"][seat]
        if p["objectives"][space] is not None:
            raise refuse("space_taken", "R-5.4: that objective space is not empty")
        price = self._price(s["market"][row])
        if p["hkd"] < price:
            raise refuse("cannot_afford", f"R-5.3, R-5.4: the card costs {price} HK$")
        turn.emit("card_bought", seat, row=row, col=col, card=card, space=space, price=price)
        self._refill_rows(turn)

    def _pass(self, turn: Turn, seat: int, action: Action) -> None:
        self._phase(turn.state, "p5", "R-5.1")
        turn.emit("passed", seat)

    def _refill_rows(self, turn: Turn) -> None:
        """R-5.6, R-6.2: every empty row gets 3 cards, from the deck, then the reserve; E-1 when the deck ends."""
        for row in range(3):
            s = turn.state
            if any(c is not None for c in s["market"][row]):
                continue
            from_deck = min(3, len(s["deck"]))
            cards = s["deck"][:from_deck] + s["reserve"][:3 - from_deck]
            if not cards and s["options"]["END_TRIGGER"] == "DECK_REACHES_ZERO":
                continue
            turn.emit("row_refilled", None, row=row, cards=cards, from_deck=from_deck)
            trigger = s["options"]["END_TRIGGER"]
            ended = (len(s["deck"]) > 0 and from_deck == len(s["deck"])) if trigger == "DECK_REACHES_ZERO" \
                else from_deck < 3
            if ended and turn.state["end_round"] is None:
                turn.emit("end_triggered", None, round=turn.state["round"])

    # -- phase 6 -------------------------------------------------------------------------------------

    def _cleanup(self, turn: Turn) -> None:
        steps = turn.state["options"]["CLEANUP_STEPS"]
        if "MARKET_DECAY" in steps:
            market = turn.state["market"]
            if turn.state["options"]["MARKET_DECAY_MODE"] == "RIGHTMOST_OF_EACH_ROW":
                gone = [[r, max(c for c in range(3) if market[r][c] is not None), None]
                        for r in range(3) if any(x is not None for x in market[r])]
            else:
                gone = [[r, 2, None] for r in range(3) if market[r][2] is not None]
            for item in gone:
                item[2] = market[item[0]][item[1]]
            if gone:
                turn.emit("market_decayed", None, cards=gone)
        if "REFILL" in steps:
            self._refill_rows(turn)
        rule = turn.state["options"]["FOOD_WATER_CLEANUP"]
        if "SPOILAGE" in steps and rule != "NONE":
            for seat in turn.state["order"]:
                r = turn.state["players"][seat]["rondel"]
                if r["FOOD"] or r["WATER"]:
                    turn.emit("spoiled", seat, FOOD=r["FOOD"], WATER=r["WATER"],
                              sold_for=r["FOOD"] + r["WATER"] if rule == "SELL_1HKD_EACH" else 0)
        if "ONGOING_EFFECTS" in steps:
            self._ongoing(turn, "CLEANUP")
        if "DISCARD_OBJECTIVES" in steps:
            waiting = [seat for seat in turn.state["order"] if self._discardable(turn.state, seat)]
            if waiting:
                turn.emit("collection_started", None, purpose="discard", waiting=waiting)

    def _discardable(self, s: State, seat: int) -> list[str]:
        p = s["players"][seat]
        cards = [held["card"] for held in p["objectives"] if held]
        if s["options"]["EMERGENCY_PLAN_DISCARDABLE"] and isinstance(p["emergency"], dict):
            cards.append(p["emergency"]["card"])
        return cards

    def _discard(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        collect = s["collect"]
        if not collect or collect["kind"] != "discard" or seat not in collect["waiting"]:
            raise refuse("wrong_phase", "R-6.5: no discard of yours is due")
        allowed = self._discardable(s, seat)
        cards = list(action["cardIds"])
        if len(set(cards)) != len(cards) or any(c not in allowed for c in cards):
            raise refuse("not_discardable", "R-6.5, A-06: discard only cards of your objective area")
        turn.emit("discard_submitted", seat, cards=sorted(cards), hidden=s["options"]["P6_P7_SIMULTANEOUS"])

    def _finish_collection(self, turn: Turn) -> None:
        collect = turn.state["collect"]
        if collect["kind"] == "discard":
            turn.emit("objectives_discarded", None, discards=dict(sorted(collect["submitted"].items())))
        else:
            turn.emit("houses_placed", None, houses=dict(sorted(collect["submitted"].items())))

    # -- phase 7 -------------------------------------------------------------------------------------

    def _stabilise(self, turn: Turn) -> None:
        board = board_of(turn.state["content"])
        table = turn.state["options"]["SCORING_TABLE"] or turn.state["content"]["scoringTable"]
        due: dict[str, list[str]] = {}
        for district_id, district in turn.state["districts"].items():
            if district["stabilised"]:
                continue
            boundary = set(board.districts[district_id]["boundary"])
            held = {p["seat"]: len(boundary & set(p["cubes"])) for p in turn.state["players"]}
            stabilisers = [seat for seat in turn.state["order"] if held[seat] == len(boundary)]
            if not stabilisers:
                continue
            scores = {str(seat): table_value(table, k) for seat, k in sorted(held.items()) if k}
            turn.emit("district_stabilised", None, district=district_id, stabilisers=stabilisers,
                      tiles=list(district["tiles"]), held={str(k): v for k, v in sorted(held.items())},
                      scores=scores)
            for seat in stabilisers:
                houses = sum(1 for space in turn.state["players"][seat]["spaces"] if space["covered"])
                if houses > len(due.get(str(seat), [])):
                    due.setdefault(str(seat), []).append(district_id)
                elif turn.state["players"][seat]["supply"] > 0:  # R-7.3(b): a cube instead of a house
                    turn.emit("substitute_cube_placed", seat, district=district_id)
        if due:
            waiting = [seat for seat in turn.state["order"] if str(seat) in due]
            turn.emit("collection_started", None, purpose="house", waiting=waiting, due=due)

    def _house(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        collect = s["collect"]
        if not collect or collect["kind"] != "house" or action["districtId"] not in collect["due"].get(str(seat), []):
            raise refuse("no_house_due", "R-7.3(b): no house of yours is due on that district")
        chosen = collect["submitted"].get(str(seat), {}).values()
        covered = [space["action"] for space in s["players"][seat]["spaces"] if space["covered"]]
        if action["checkSpaceId"] not in covered or action["checkSpaceId"] in chosen:
            raise refuse("space_uncovered", "R-7.3(b): that check-mark space holds no house any more")
        turn.emit("house_chosen", seat, district=action["districtId"], space=action["checkSpaceId"],
                  hidden=s["options"]["P6_P7_SIMULTANEOUS"])

    # -- phase 8 -------------------------------------------------------------------------------------

    def _refill_slots(self, s: State, seat: int) -> list[int]:
        """R-8.2, R-8.3: the slots the seat may take into hand now."""
        p = s["players"][seat]
        if len(p["hand"]) > p["threshold"]:
            return []
        sizes = {n: len(p["slots"][n - 1]) for n in self._usable_slots(p)}
        top = max(sizes.values())
        if top == 0 and not s["options"]["REFILL_ALLOW_EMPTY"]:
            return []
        return [n for n, size in sizes.items() if size == top]

    def _refill(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        self._phase(s, "p8", "R-8.1")
        if s["turn"].get("refilled"):
            raise refuse("refill_not_allowed", "R-8.3: one refill a turn")
        p = s["players"][seat]
        if len(p["hand"]) > p["threshold"]:
            raise refuse("refill_not_allowed", f"R-8.2: a hand of {len(p['hand'])} is over the limit {p['threshold']}")
        slots = self._refill_slots(s, seat)
        if action["slot"] not in slots:
            raise refuse("not_largest_slot", "R-8.3, A-32: take a slot with the most cards (not an empty one)")
        turn.emit("hand_refilled", seat, slot=action["slot"],
                  cards=[e["card"] for e in p["slots"][action["slot"] - 1]])

    def _decline_refill(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        self._phase(s, "p8", "R-8.3")
        if s["turn"].get("refilled"):
            raise refuse("refill_not_allowed", "R-8.3: you have refilled; END_TURN ends the turn")
        turn.emit("turn_ended", seat, refill="declined")

    def _phase8_checks(self, s: State, seat: int) -> list[str]:
        used = set(s["turn"].get("checks_used", []))
        if s["options"]["LEADER_SHARES_PHASE8_LIMIT"]:
            used |= set(s["leader_checks"].get(str(seat), []))
        return [c for c in self.unlocked_checks(s, seat) if c not in used]

    def _activate(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        self._phase(s, "p8", "R-8.4, 4.3.3")
        if not s["turn"].get("refilled"):
            raise refuse("not_refilled", "R-8.4: only a player who refilled this turn activates check-mark actions")
        if action["sourceId"] not in self.unlocked_checks(s, seat):
            raise refuse("action_locked", "R-8.4: that action is still under a house or not in your check-mark area")
        if action["sourceId"] not in self._phase8_checks(s, seat):
            raise refuse("already_used", "R-8.4, A-34: each action once per Phase 8")
        turn.emit("check_action_activated", seat, source=action["sourceId"])

    # -- decisions -----------------------------------------------------------------------------------

    def _place_cube(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        effect = s["queue"][0]["effect"]
        targets = self.placements(s, seat, effect["colour"])
        location = action.get("locationId")
        if location is None:
            if not s["options"]["PLACE_CUBE_DECLINABLE_WHEN_COSTLY"] or min(targets.values()) == 0:
                raise refuse("cannot_decline", "R-3.12(7), A-15: the placement is mandatory")
            turn.add(resolving("cube_not_placed", seat, why="declined (A-15)"))
            return
        if location not in targets:
            raise refuse("not_a_target", "R-3.12: not a location you may place on (your own cube is there, or "
                                         "the colour does not match)")
        cost = targets[location]
        bought = max(0, cost - s["players"][seat]["transport"])  # R-3.12(4): the shortfall costs VP
        turn.add(resolving("cube_placed", seat, location=location, cost=cost, bought=bought))

    def _choose_resource(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        effect = s["queue"][0]["effect"]
        turn.add(resolving("resource_gained", seat, resource=action["resource"],
                           n=self._gainable(s, s["players"][seat], effect["n"])))

    def _retrieve(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        if action["cardId"] not in s["players"][seat]["hospital"]:
            raise refuse("not_a_target", "§4.1 doctor: that card is not in your hospital")
        turn.add(resolving("card_retrieved", seat, card=action["cardId"],
                           points=self._card(s, action["cardId"])["points"]))

    def _choose_check(self, turn: Turn, seat: int, action: Action) -> None:
        s = turn.state
        if action["sourceId"] not in self._leader_checks(s, seat):
            raise refuse("action_locked", "§4.1 leader: that check-mark action is not unlocked")
        turn.add(resolving("check_action_activated", seat, source=action["sourceId"], via="LEADER"))

    # -- free actions (R-0.4) ------------------------------------------------------------------------

    def _buy_transport_tokens(self, turn: Turn, seat: int, n: int) -> None:
        s = turn.state
        if self._transport_pool(s) < n:
            raise refuse("pool_empty", "R-0.4(a), A-37: the transport pool is empty")
        turn.emit("transport_bought", seat, n=n)

    def _buy_transport(self, turn: Turn, seat: int, action: Action) -> None:
        self._buy_transport_tokens(turn, seat, action["count"])

    def _buy_battery(self, turn: Turn, seat: int, action: Action) -> None:
        p = turn.state["players"][seat]
        n = action["count"]
        if p["hkd"] < 5 * n:
            raise refuse("cannot_afford", f"R-0.4(b): {n} batteries cost {5 * n} HK$")
        if turn.state["options"]["CUBES_LIMITED"] and p["supply"] < n:
            raise refuse("no_cube", "R-0.4(b): not enough cubes in your supply")
        turn.emit("battery_bought", seat, n=n)

    # -- the end (section 5) -------------------------------------------------------------------------

    def final_scoring(self, s: State) -> dict[str, Any]:
        table = s["options"]["SCORING_TABLE"] or s["content"]["scoringTable"]
        rows = []
        for p in s["players"]:
            kinds = list(RESOURCES) + (["BATTERY"] if s["options"]["SELL_BATTERIES_AT_END"] else [])
            sold = {k: p["rondel"][k] for k in kinds if p["rondel"][k]}
            money = p["hkd"] + sum(sold.values())  # E-5(A)
            face_up = sum(1 for t in p["tiles"] if t["faceUp"])
            cards = p["hand"] + [e["card"] for stack in p["slots"] for e in stack]
            row = {"seat": p["seat"], "vp_before": p["vp"], "sold": sold, "hkd_total": money,
                   "vp_from_hkd": money // 5, "hkd_left": money % 5, "face_up_tiles": face_up,
                   "vp_from_tiles": table_value(table, face_up),  # E-5(B)
                   "vp_from_cards": sum(self._card(s, c)["points"] for c in cards)}  # E-5(C)
            row["total"] = row["vp_before"] + row["vp_from_hkd"] + row["vp_from_tiles"] + row["vp_from_cards"]
            rows.append(row)
        best = max((r["total"], r["hkd_left"]) for r in rows)
        winners = [r["seat"] for r in rows if (r["total"], r["hkd_left"]) == best]  # E-7
        top = max(r["total"] for r in rows)
        tied_on_vp = [r["seat"] for r in rows if r["total"] == top]
        data: dict[str, Any] = {"players": rows, "winners": winners,
                                "tie_break": "HK$ left" if len(tied_on_vp) > 1 else None}
        if s["mode"] == "CAMPAIGN":
            data["campaign"] = self._campaign(s, rows)
        return data

    def _campaign(self, s: State, rows: list[dict]) -> dict[str, Any]:
        """C-11: a player wins chapter 1 with their cube on every objective of one shared plan and at least
        N VP; N is unknown unless CAMPAIGN_MIN_VP gives it (reported as "unknown")."""
        n = s["options"]["CAMPAIGN_MIN_VP"]
        thresholds = s["options"]["CAMPAIGN_FLOWER_THRESHOLDS"]
        out = []
        for row in rows:
            seat = row["seat"]
            plan_done = any(all(seat in plan["done"].get(str(k), []) for k in
                                range(len(self._card(s, plan["card"])["objectives"]))) for plan in s["shared_plans"])
            vp_ok = None if n is None else row["total"] >= n
            victory = plan_done and vp_ok if vp_ok is not None else (False if not plan_done else "unknown")
            entry = {"seat": seat, "shared_plan_completed": plan_done, "min_vp": n, "min_vp_met": vp_ok,
                     "victory": victory}
            if thresholds is not None:
                entry["flowers"] = sum(1 for t in thresholds if row["total"] >= t) if victory is True else 0
                if s["n"] == 1:
                    entry["failed"] = entry["flowers"] < s["options"]["SOLO_FAIL_BELOW"]  # C-15(b)
            out.append(entry)
        return {"chapter": s["options"]["chapter"], "players": out}

    def scores(self, state: State) -> dict[str, Any]:
        result = state["result"] or self.final_scoring(state)
        totals = [r["total"] for r in result["players"]]
        keys = [r["total"] * 10 + r["hkd_left"] for r in result["players"]]
        return {"scores": totals, "ranks": ranks(keys, True), "winners": result["winners"],
                "tie_break": result["tie_break"], "breakdown": result}

    # -- lookups -------------------------------------------------------------------------------------

    @staticmethod
    def _card(s: State, card_id: str) -> dict:
        return board_of(s["content"]).cards[card_id]

    @staticmethod
    def _tile(s: State, tile_id: str) -> dict:
        return board_of(s["content"]).tiles[tile_id]

    @staticmethod
    def _held(p: dict) -> dict[str, int]:
        return {**p["rondel"], "hkd": p["hkd"]}


def paid_cubes(payment: dict) -> int:
    return sum(payment["resources"].values())


def _count(items) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        out[item] = out.get(item, 0) + 1
    return out


def roll_until_valid(face, policy: str) -> list[dict[str, Any]]:
    """R-1.2, R-1.3, A-11: roll the three dice, then reroll duplicates until all three faces differ.
    ``face(colour, attempt)`` is one die's roll; every roll is returned, for the log (T-1)."""
    attempt = 0
    faces = {colour: face(colour, attempt) for colour in DICE}
    rolls = [{"faces": dict(faces), "rerolled": list(DICE)}]
    while len(set(faces.values())) < len(DICE) and attempt < 1000:
        attempt += 1
        again = rerolled(faces, policy)
        faces = {colour: face(colour, attempt) if colour in again else faces[colour] for colour in DICE}
        rolls.append({"faces": dict(faces), "rerolled": again})
    return rolls


def rerolled(faces: dict[str, str], policy: str) -> list[str]:
    """Which dice a roll with duplicates rerolls: every matching die, or all but one of each group."""
    groups: dict[str, list[str]] = {}
    for colour in DICE:
        groups.setdefault(faces[colour], []).append(colour)
    out = []
    for members in groups.values():
        if len(members) > 1:
            out += members if policy == "REROLL_ALL_MATCHING" else members[1:]
    return [c for c in DICE if c in out]
