"""Chock-a-Block's automatic effects (section 4): every consequence that needs no decision, as events.

A finished player, the end of the neighbour step, a lapsed obligation, a turn ended by auto_advance,
market refills (AE-3, AE-4), Autoblock's turn (AE-7, AE-8), the final scoring and the end.
"""

from __future__ import annotations

from service.games.chock_a_block import autoblock, choices, markets, scoring
from service.games.kit import Turn


def settle(turn: Turn) -> None:
    """Every consequence that needs no decision, up to the next decision or the end."""
    while next_automatic(turn):
        pass


def next_automatic(turn: Turn) -> bool:
    """Emit the next automatic step of ``turn.state``, if there is one; whether there was."""
    state = turn.state
    step = state["step"]
    seat = state["active"]
    if step == "place":
        player = state["seats"][seat]
        if not player["hand"]:
            turn.emit("player_finished", seat, reason="no_card_in_hand")
        elif not choices.placements(state, seat):
            turn.emit("player_finished", seat, reason="no_legal_placement")  # V-8, A-14
        else:
            return False
        return True
    if step == "neighbours":
        groups = choices.qualifying(state, seat)
        if not groups:
            turn.emit("neighbour_step_ended", seat, reason="no_qualifying_group")
        elif not choices.tile_available(state):
            turn.emit(
                "neighbour_obligation_lapsed",
                seat,
                groups=[[list(c) for c in g["rooms"]] for g in groups],
            )
        else:
            return False
        return True
    if step == "tokens":
        if not state["options"]["auto_advance"] or choices.claims(state, seat):
            return False
        reason = choices.draw_skip_reason(state, seat)
        if reason is None:
            return False
        turn.emit(
            "turn_ended",
            seat,
            placement=len(state["seats"][seat]["cards"]),
            drew=False,
            draw_skipped=reason,
        )
        return True
    if step == "autoblock":
        autoblock_turn(turn)
        return True
    if step == "scoring":
        result = scoring.result(state)
        turn.emit("final_scoring", None, **result)
        turn.emit(
            "game_over",
            None,
            reason="all_turns_played",
            scores=result["scores"],
            ranks=result["ranks"],
            outcome=result["outcome"],
        )
        return True
    return False


def autoblock_turn(turn: Turn) -> None:
    """AE-7: discard the bottom card, take the bottom tile, slide and refill, then AE-8."""
    discarded = None
    slot = markets.bottom_slot(turn.state["block_market"])
    if slot is not None:
        discarded = turn.state["block_market"][slot]
        turn.emit("autoblock_discarded", None, slot=slot, card=discarded)
    took = None
    tile_slot = markets.bottom_slot(turn.state["neighbour_market"])
    if tile_slot is not None:
        took = turn.state["neighbour_market"][tile_slot]
        turn.emit(
            "autoblock_took_tile",
            None,
            slot=tile_slot,
            tile=took,
            features=list(turn.state["content"]["tiles"][took]),
        )
    if slot is not None:
        refill(turn, "block", slot, None)
    if tile_slot is not None:
        refill(turn, "neighbour", tile_slot, None)
    state, o = turn.state, turn.state["options"]
    returned, taken = autoblock.token_plan(
        state["autoblock"],
        state["token_supply"],
        state["content"],
        o["autoblock_token_rule"],
        o["autoblock_points_per_icon"],
    )
    for token in returned:
        turn.emit("autoblock_token_returned", None, token=token)
    for token in taken:
        turn.emit("autoblock_token_taken", None, token=token)
    ab = turn.state["autoblock"]
    turn.emit(
        "autoblock_turn",
        None,
        turn=ab["turns"] + 1,
        discarded=discarded,
        took=took,
        icons=autoblock.icon_counts(ab["tiles"], turn.state["content"]),
        tokens=list(ab["tokens"]),
    )


def refill(turn: Turn, market: str, slot: int, seat: int | None) -> None:
    """The emptied ``slot`` of a market refilled from the deck or the tile pile, as they now are."""
    state = turn.state
    source = state["deck"] if market == "block" else state["tile_pile"]
    turn.emit(
        "market_refilled",
        seat,
        market=market,
        slot=slot,
        item=source[0] if source else None,
        layout=state["layout"],
        slide=state["slide"],
    )
