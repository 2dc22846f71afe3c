"""What the seat at hand may choose now (§3, §8.2), and the facts of its building each step rests on.

The placements of step 1, the qualifying groups of step 2, the claims of step 3 and whether the
draw of step 4 applies (R-4.1): the legal actions, the checks of each step and the seat's view all
ask these functions, so each fact is computed one way.
"""

from __future__ import annotations

from typing import Any

from service.games.chock_a_block import building, markets
from service.games.protocol import Action, State


def qualifying(state: State, seat: int) -> list[dict[str, Any]]:
    o = state["options"]
    return building.qualifying_groups(
        state["seats"][seat]["rooms"], o["neighbour_group_min"], o["group_connectivity"]
    )


def chains(state: State, seat: int, feature: str) -> list[list[tuple[int, int]]]:
    o = state["options"]
    return building.chains(
        state["seats"][seat]["rooms"],
        feature,
        o["chain_connectivity"],
        o["closed_chain_absorbs_new_icons"],
    )


def tile_available(state: State) -> bool:
    return any(t is not None for t in state["neighbour_market"]) or (
        state["options"]["neighbour_tile_source"] == "MARKET_OR_PILE_TOP" and bool(state["tile_pile"])
    )


def deck_draw_allowed(state: State) -> bool:
    o = state["options"]
    if o["draw_sources"] == "MARKET_ONLY":
        return False
    return not (state["mode"] == "SOLO" and not o["solo_deck_draw_allowed"])


def last_draw_placement(state: State) -> int:
    """L of R-4.1: 10 with 5 players (V-1), 11 otherwise (A-28)."""
    o = state["options"]
    counted = state["players"] + (1 if state["autoblock"] and o["five_player_rule_counts_autoblock"] else 0)
    return o["five_player_last_draw_placement"] if counted >= 5 else o["last_draw_placement"]


def draw_skip_reason(state: State, seat: int) -> str | None:
    """None if the draw applies this turn (R-4.1), else why not."""
    if len(state["seats"][seat]["cards"]) > last_draw_placement(state):
        return "last_turns"
    if not draw_actions(state):
        return "supply_empty"
    return None


def draw_actions(state: State) -> list[Action]:
    out: list[Action] = [
        {"type": "draw_card", "source": "MARKET", "slot": slot}
        for slot in markets.occupied(state["block_market"])
    ]
    if state["deck"] and deck_draw_allowed(state):
        out.append({"type": "draw_card", "source": "DECK"})
    return out


def claims(state: State, seat: int) -> list[Action]:
    """Every (token, chain) claim that is legal now (R-3.3), the chain named by its first room."""
    supply = state["token_supply"]
    if not supply:
        return []
    tokens = state["content"]["tokens"]
    fresh = set(state["seats"][seat]["fresh"])
    growth = state["options"]["token_claim_requires_growth"]
    chains_of: dict[str, list] = {}
    out: list[Action] = []
    for token in supply:
        feature, value = tokens[token]["feature"], tokens[token]["value"]
        if feature not in chains_of:
            chains_of[feature] = chains(state, seat, feature)
        for chain in chains_of[feature]:
            if len(chain) >= value and (not growth or any(building.key(*c) in fresh for c in chain)):
                out.append({"type": "claim_token", "token": token, "x": chain[0][0], "y": chain[0][1]})
    return out


def placements(state: State, seat: int) -> list[dict[str, Any]]:
    player = state["seats"][seat]
    o = state["options"]
    if state["rules"] == "GRID":
        return [
            {"column": c, "row": r}
            for c, r in building.grid_slots(player["cards"], o["grid_max_columns"], o["grid_max_rows"])
        ]
    coords = [building.coord(k) for k in player["rooms"]]
    return [
        {"room_x": x, "room_y": y}
        for x, y in building.bb_positions(coords, o["bb_max_width_rooms"], o["bb_max_height_rooms"])
    ]


# -- legal actions (section 8.2) ----------------------------------------------------------------


def legal_actions(state: State, seat: int) -> list[Action]:
    """Every action of the step the turn is in (section 8.2), for the seat at hand."""
    step = state["step"]
    if step == "choose_feature":
        return [{"type": "choose_excluded_feature", "feature": f} for f in state["content"]["features"]]
    player = state["seats"][seat]
    if step == "place":
        spots = placements(state, seat)
        return [
            {"type": "place_card", "card": card, "face": face, **spot}
            for card in player["hand"]
            for face in ("FRONT", "BACK")
            for spot in spots
        ]
    actions: list[Action] = []
    if step == "neighbours":
        targets = sorted(
            {tuple(c) for g in qualifying(state, seat) for c in g["vacant"]},
            key=lambda c: (c[1], c[0]),
        )
        tiles = [t for t in state["neighbour_market"] if t is not None]
        actions += [{"type": "place_neighbour", "tile": t, "x": x, "y": y} for t in tiles for x, y in targets]
        if state["options"]["neighbour_tile_source"] == "MARKET_OR_PILE_TOP" and state["tile_pile"]:
            actions += [{"type": "place_neighbour", "source": "PILE", "x": x, "y": y} for x, y in targets]
        if not state["options"]["neighbour_mandatory"]:
            actions.append({"type": "end_neighbours"})
        if state["options"]["token_claim_window"] == "ANY_TIME_IN_TURN":
            actions += claims(state, seat)
        return actions
    # step == "tokens"
    actions += claims(state, seat)
    if draw_skip_reason(state, seat) is None:
        actions += draw_actions(state)
    else:
        actions.append({"type": "end_turn"})
    return actions
