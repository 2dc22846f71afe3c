"""What a seat may see (§8.4): the one gate of Chock-a-Block's hidden information for the state.

A seat sees its own hand (every hand when hands are open, V-21) and the sizes of the others, never
the order of the deck or the tile pile; the derived colour groups and open chains of every building.
"""

from __future__ import annotations

from typing import Any

from service.games.chock_a_block import autoblock, building, choices, scoring
from service.games.chock_a_block.names import GENERATED_NOTE
from service.games.protocol import State


def hands_open(state: State) -> bool:
    o = state["options"]
    return o["open_hands"] or (state["mode"] == "COOP" and o["coop_open_hands"])


def view(state: State, seat: int | None, to_act: list[int], over: bool) -> dict[str, Any]:
    """The match as ``seat`` may see it (None: a spectator); ``to_act`` and ``over`` as the engine says."""
    content = state["content"]
    o = state["options"]
    open_hands = hands_open(state)
    visible_cards = [c for c in state["block_market"] if c is not None]
    players = []
    for i, player in enumerate(state["seats"]):
        shows_hand = open_hands or i == seat
        if shows_hand:
            visible_cards += player["hand"]
        rooms = [
            {"x": x, "y": y, **room}
            for (x, y), room in sorted(
                ((building.coord(k), r) for k, r in player["rooms"].items()),
                key=lambda e: (e[0][1], e[0][0]),
            )
        ]
        groups = building.colour_groups(player["rooms"], o["group_connectivity"])
        players.append(
            {
                "seat": i,
                "hand": list(player["hand"]) if shows_hand else None,
                "hand_size": len(player["hand"]),
                "placements": len(player["cards"]),
                "cards": [dict(c) for c in player["cards"]],
                "rooms": rooms,
                "tokens": [dict(t) for t in player["tokens"]],
                "neighbours": player["neighbours"],
                "finished": player["finished"],
                "colour_groups": [
                    {
                        "colour": g["colour"],
                        "rooms": [list(c) for c in g["rooms"]],
                        "vacant": [list(c) for c in g["vacant"]],
                        "qualifying": len(g["rooms"]) >= o["neighbour_group_min"] and bool(g["vacant"]),
                    }
                    for g in groups
                ],
                "open_chains": scoring.open_chains(player["rooms"], o, content["features"]),
            }
        )
    result = scoring.result(state)
    for entry, total in zip(players, result["scores"]):
        entry["score"] = total
    ab = state["autoblock"]
    return {
        "game": "chock-a-block",
        "mode": state["mode"],
        "building_rules": state["rules"],
        "viewer": seat,
        "pack": {
            "id": content["pack_id"],
            "version": content["version"],
            "provenance": content["provenance"],
            "note": GENERATED_NOTE if content["provenance"] in ("GENERATED", "TEST_FIXTURE") else "",
        },
        "colours": [dict(c) for c in content["colours"]],
        "features": list(content["features"]),
        "round": state["round"],
        "rounds": state["rounds"],
        "start_seat": state["start_seat"],
        "order": list(state["order"]),
        "active": state["active"],
        "step": state["step"],
        "to_act": to_act,
        "draw": (
            None
            if state["step"] != "tokens"
            else {
                "applies": choices.draw_skip_reason(state, state["active"]) is None,
                "skip_reason": choices.draw_skip_reason(state, state["active"]),
                "deck_allowed": choices.deck_draw_allowed(state),
            }
        ),
        "layout": state["layout"],
        "deck_size": len(state["deck"]),
        "block_market": list(state["block_market"]),
        "tile_pile_size": len(state["tile_pile"]),
        "neighbour_market": list(state["neighbour_market"]),
        "token_supply": [{"token": t, **content["tokens"][t]} for t in state["token_supply"]],
        "discard": list(state["discard"]),
        "card_faces": {
            c: {"FRONT": content["cards"][c]["FRONT"], "BACK": content["cards"][c]["BACK"]}
            for c in visible_cards
        },
        "tile_features": {t: list(content["tiles"][t]) for t in state["neighbour_market"] if t is not None},
        "players": players,
        "autoblock": None
        if ab is None
        else {
            "level": ab["level"],
            "excluded_feature": ab["excluded"],
            "tiles": list(ab["tiles"]),
            "tile_features": {t: list(content["tiles"][t]) for t in ab["tiles"]},
            "icons": autoblock.icon_counts(ab["tiles"], content),
            "tokens": list(ab["tokens"]),
            "turns": ab["turns"],
            "score": sum(content["tokens"][t]["value"] for t in ab["tokens"]),
        },
        "over": over,
        "result": result if over else None,
    }
