"""What a seat may see (spec §8.4): the one gate for hidden information, ``view`` and ``event_view``.

Hands and unrevealed plans are their owner's; a patrol look is the patrolling seat's, and a tile a
seat has looked at stays known to it; owned face-down tiles show only their backs unless
OWNED_FACEDOWN_TILE_VISIBILITY is PUBLIC; simultaneous Phase 6/7 choices stay hidden until every seat
has chosen; decks are counts. A stabilised district's tiles go back to the box unseen: its event
carries how many (``tiles_returned``), not which.

``seen_by`` is the state as a seat could know it (every hidden part decided by its view alone): what the
analysis of a finished match judges a seat's choices from, and what a bot plays its moves ahead on.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from service.games.blackout_hong_kong.board import board_of
from service.games.blackout_hong_kong.common import PHASE_OF_STEP, scoring_table
from service.games.blackout_hong_kong.flow import to_act
from service.games.blackout_hong_kong.market import price
from service.games.protocol import Event, State

PRIVATE_TO_ACTOR = ("plan_submitted", "patrol_viewed")
PRIVATE_WHILE_COLLECTING = ("discard_submitted", "house_chosen")


def view(state: State, seat: int | None) -> dict[str, Any]:
    board = board_of(state["content"])
    shown = {
        "mode": state["mode"],
        "round": state["round"],
        "phase": PHASE_OF_STEP[state["step"]],
        "step": state["step"],
        "start_seat": state["start_seat"],
        "order": state["order"],
        "active": state["active"],
        "to_act": to_act(state),
        "dice": state["dice"],
        "rondel_order": board.ring,
        "market": state["market"],
        "market_prices": [price(row) if any(row) else None for row in state["market"]],
        "objective_deck": len(state["deck"]),
        "reserve_deck": len(state["reserve"]),
        "discard": state["discard"],
        "map": state["content"]["map"],
        "scoring_table": scoring_table(state),
        "districts": _districts(state, seat),
        "shared_plans": state["shared_plans"],
        "end_triggered_round": state["end_round"],
        "final_round": state["final_round"],
        "pass_streak": state["pass_streak"],
        "queue": state["queue"],
        "turn": _turn(state),
        "plans_submitted": sorted(int(k) for k in state["plans"]),
        "my_plan": state["plans"].get(str(seat)) if seat is not None else None,
        "collect": _collection(state, seat),
        "players": [_player_view(state, player, seat) for player in state["players"]],
        "result": state["result"],
    }
    shown["cards"] = {c: _card_summary(board.cards[c]) for c in sorted(_strings(shown) & board.cards.keys())}
    return shown


def _districts(state: State, seat: int | None) -> list[dict[str, Any]]:
    """Each district with its tiles: a tile's front where it lies face up or the seat has looked."""
    board = board_of(state["content"])
    patrol_seat = state["active"] if state["step"] == "p4" and state["turn"].get("patrol") else None
    looking_at = state["turn"].get("patrol") if patrol_seat == seat and seat is not None else None
    districts = []
    for district_id, district in state["districts"].items():
        tiles = []
        for tile_id in district["tiles"]:
            face_up = state["tiles"][tile_id]["faceUp"]
            known = face_up or district_id == looking_at or seat in state["tiles"][tile_id]["seenBy"]
            tiles.append({**board.tiles[tile_id], "faceUp": face_up} if known else {"faceUp": False})
        districts.append(
            {
                "id": district_id,
                "tiles": tiles,
                "tile_count": len(tiles),
                "stabilised": district["stabilised"],
                "houses": district["houses"],
                "substitute_cubes": district["substitutes"],
                "chosen_by": district["chosen_by"],
            }
        )
    return districts


def _turn(state: State) -> dict[str, Any]:
    """This turn's bookkeeping; the district being patrolled only while there is one."""
    patrol = {"patrol": state["turn"]["patrol"]} if state["turn"].get("patrol") else {}
    return {k: v for k, v in state["turn"].items() if k != "patrol"} | patrol


def _collection(state: State, seat: int | None) -> dict[str, Any] | None:
    """The collection under way; with simultaneous choices, only the seat's own submitted choice."""
    collect = state["collect"]
    if not collect:
        return None
    open_choices = not state["options"]["P6_P7_SIMULTANEOUS"]
    return {
        "kind": collect["kind"],
        "waiting": collect["waiting"],
        "due": _due(state, seat, open_choices),
        "submitted": {k: v for k, v in collect["submitted"].items() if open_choices or k == str(seat)},
    }


def _due(state: State, seat: int | None, open_choices: bool) -> dict[str, list[str]]:
    """Each seat's districts still due a house. A house chosen in secret leaves ``due`` at once: to the
    others, the district stands there until the reveal, or the list would tell which one it was for."""
    due = state["collect"].get("due", {})
    if open_choices:
        return due
    chosen = state["collect"]["submitted"]
    return {
        key: districts
        if key == str(seat)
        else [d for d in state["districts"] if d in districts or d in chosen.get(key, {})]
        for key, districts in due.items()
    }


def _player_view(state: State, player: dict, seat: int | None) -> dict[str, Any]:
    own = player["seat"] == seat
    slots = [
        [
            {"card": entry["card"], "faceUp": entry["faceUp"], "round": entry["round"]}
            if entry["faceUp"] or own
            else {"faceUp": False, "round": entry["round"]}
            for entry in stack
        ]
        for stack in player["slots"]
    ]
    return {
        "seat": player["seat"],
        "animal": player["animal"],
        "vp": player["vp"],
        "hkd": player["hkd"],
        "transport": player["transport"],
        "gps": player["gps"],
        "cube_supply": player["supply"],
        "rondel": player["rondel"],
        "cubes": player["cubes"],
        "hand": list(player["hand"]) if own else None,
        "hand_size": len(player["hand"]),
        "slots": slots,
        "slot4_unlocked": player["slot4"],
        "objective_area": player["objectives"],
        "emergency_plan": player["emergency"],
        "hospital": player["hospital"],
        "check_area": player["check_area"],
        "check_spaces": player["spaces"],
        "houses_left": sum(1 for space in player["spaces"] if space["covered"]),
        "power_restoration": player["power"],
        "refill_threshold": player["threshold"],
        "patrol_tiles": _owned_tiles(state, player, own),
    }


def _owned_tiles(state: State, player: dict, own: bool) -> list[dict[str, Any]]:
    tiles = board_of(state["content"]).tiles
    public = state["options"]["OWNED_FACEDOWN_TILE_VISIBILITY"] == "PUBLIC"
    return [
        {**tiles[t["tile"]], "faceUp": t["faceUp"]}
        if t["faceUp"] or own or public
        else {"faceUp": False, "backSearchIcons": tiles[t["tile"]]["backSearchIcons"]}
        for t in player["tiles"]
    ]


def event_view(event: Event, seat: int | None) -> Event:
    kind = event["type"]
    if kind == "district_stabilised":  # R-7.3 (a): its tiles go back to the box unseen (spec 7, hidden info)
        return {
            **event,
            "data": {
                **{k: v for k, v in event["data"].items() if k != "tiles"},
                "tiles_returned": len(event["data"]["tiles"]),
            },
        }
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
        {"objectives": len(card["objectives"])} if card.get("objectives") else {}
    )


def seen_by(state: State, seat: int) -> State:
    """The state as ``seat`` could know it (for the analysis of a finished match): everything hidden from
    it replaced by what its view alone decides. The cards it cannot see (the other hands, the others'
    face-down slot cards, the objective deck, the reserve) are pooled, sorted and dealt back to the same
    places in the same sizes, place by place; the tiles it has not seen (face down in the districts, the
    others' owned face-down tiles, the box) likewise; the others' unrevealed plans and secret choices are taken
    back (they choose again, after it); and the generator of dice not yet rolled is replaced by one
    seeded from the seat's view. Two states that look the same to the seat give the same state here."""
    key = str(seat)
    players = [dict(p) for p in state["players"]]
    others = [p for p in players if p["seat"] != seat]
    # cards: one pool of every card it cannot see, dealt back to hands, face-down slot entries, the deck,
    # then the reserve (which of them held which card is what the seat does not know)
    hidden_cards = [c for p in others for c in p["hand"]]
    hidden_cards += [e["card"] for p in others for stack in p["slots"] for e in stack if not e["faceUp"]]
    pool = iter(sorted([*hidden_cards, *state["deck"], *state["reserve"]]))
    for p in others:
        p["hand"] = [next(pool) for _ in p["hand"]]
    for p in others:
        p["slots"] = [
            [e if e["faceUp"] else {**e, "card": next(pool)} for e in stack] for stack in p["slots"]
        ]
    deck = [next(pool) for _ in state["deck"]]
    reserve = list(pool)
    # tiles: the positions the seat has no sight of
    patrolled = state["turn"].get("patrol") if state["step"] == "p4" and state["active"] == seat else None
    public_owned = state["options"]["OWNED_FACEDOWN_TILE_VISIBILITY"] == "PUBLIC"
    # place by place, so that which place held which tile (even the order of their names) stays unknown
    unseen = [
        tile
        for district_id, district in state["districts"].items()
        for tile in district["tiles"]
        if not _known(state, tile, seat) and district_id != patrolled
    ]
    unseen += [t["tile"] for p in others for t in p["tiles"] if not t["faceUp"] and not public_owned]
    unseen += state["box_tiles"]
    renamed = dict(zip(unseen, sorted(unseen)))
    districts = {
        d_id: {**d, "tiles": [renamed.get(t, t) for t in d["tiles"]]}
        for d_id, d in state["districts"].items()
    }
    for p in others:
        p["tiles"] = [{**t, "tile": renamed.get(t["tile"], t["tile"])} for t in p["tiles"]]
    flags = {renamed.get(t, t): flag for t, flag in state["tiles"].items()}
    # the others' secret choices: not made yet, as far as the seat knows
    plans = {k: v for k, v in state["plans"].items() if k == key}
    collect = state["collect"]
    if collect and state["options"]["P6_P7_SIMULTANEOUS"]:
        taken_back = [int(k) for k in collect["submitted"] if k != key]
        collect = {
            **collect,
            "submitted": {k: v for k, v in collect["submitted"].items() if k == key},
            "waiting": [s for s in state["order"] if s in collect["waiting"] or s in taken_back],
        }
    seen = view(state, seat)
    rng = hashlib.sha256(json.dumps(seen, sort_keys=True, default=str).encode()).hexdigest()
    return {
        **state,
        "players": players,
        "deck": deck,
        "reserve": reserve,
        "districts": districts,
        "tiles": flags,
        "box_tiles": sorted(renamed[t] for t in state["box_tiles"]),
        "plans": plans,
        "collect": collect,
        "rng": rng,
    }


def _known(state: State, tile: str, seat: int) -> bool:
    flags = state["tiles"][tile]
    return flags["faceUp"] or seat in flags["seenBy"]
