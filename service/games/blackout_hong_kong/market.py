"""Phase 5, new objectives (§3.5), and the market of objective cards: seats buy cards onto empty
objective spaces or pass, until as many passes in a row as there are players (R-5.2); empty rows are
refilled from the deck, then the reserve, and the deck running out triggers the end (R-5.6, E-1)."""

from __future__ import annotations

from service.games.blackout_hong_kong.common import refuse, require_phase
from service.games.kit import Turn
from service.games.protocol import Action, State
from service.games.texts import catalogue

_ = catalogue(__file__).gettext

PRICES = {3: 4, 2: 3, 1: 2}  # a row's price by the cards left in it


def price(row: list) -> int:
    return PRICES[sum(1 for card in row if card is not None)]


def can_buy(state: State, seat: int) -> bool:
    player = state["players"][seat]
    rows = [row for row in state["market"] if any(card is not None for card in row)]
    return None in player["objectives"] and any(player["hkd"] >= price(row) for row in rows)


def buy_market_card(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    require_phase(state, "p5", "R-5.1")
    row, col, space = action["row"], action["col"], action["objectiveSpaceIndex"]
    card = state["market"][row][col]
    if card is None:
        raise refuse("cell_empty", _("R-5.4: that market cell is empty"))
    player = state["players"][seat]
    if player["objectives"][space] is not None:
        raise refuse("space_taken", _("R-5.4: that objective space is not empty"))
    cost = price(state["market"][row])
    if player["hkd"] < cost:
        raise refuse("cannot_afford", _("R-5.3, R-5.4: the card costs {cost} HK$", cost=cost))
    turn.emit("card_bought", seat, row=row, col=col, card=card, space=space, price=cost)
    refill_rows(turn)


def pass_(turn: Turn, seat: int, action: Action) -> None:
    require_phase(turn.state, "p5", "R-5.1")
    turn.emit("passed", seat)


def refill_rows(turn: Turn) -> None:
    """R-5.6, R-6.2: every empty row gets 3 cards, from the deck, then the reserve; E-1 when the deck ends."""
    for row in range(3):
        state = turn.state
        if any(card is not None for card in state["market"][row]):
            continue
        from_deck = min(3, len(state["deck"]))
        cards = state["deck"][:from_deck] + state["reserve"][: 3 - from_deck]
        trigger = state["options"]["END_TRIGGER"]
        if not cards and trigger == "DECK_REACHES_ZERO":
            continue
        turn.emit("row_refilled", None, row=row, cards=cards, from_deck=from_deck)
        if trigger == "DECK_REACHES_ZERO":
            ended = len(state["deck"]) > 0 and from_deck == len(state["deck"])
        else:
            ended = from_deck < 3
        if ended and turn.state["end_round"] is None:
            turn.emit("end_triggered", None, round=turn.state["round"])


def solo_decay(turn: Turn) -> None:
    """R-5.8, C-15(a): with one player, a Phase 5 without a purchase removes the top row's last card."""
    state = turn.state
    top = [(0, col, card) for col, card in enumerate(state["market"][0]) if card is not None][-1:]
    if top:
        turn.emit("market_decayed", None, cards=[list(t) for t in top], solo=True)
        refill_rows(turn)


def market_entries(state: State, seat: int) -> list[Action]:
    player = state["players"][seat]
    spaces = [i for i, plan in enumerate(player["objectives"]) if plan is None]
    out = []
    for r, row in enumerate(state["market"]):
        if not any(card is not None for card in row) or player["hkd"] < price(row):
            continue
        for c, card in enumerate(row):
            if card is not None:
                out += [
                    {"type": "BUY_MARKET_CARD", "row": r, "col": c, "objectiveSpaceIndex": i} for i in spaces
                ]
    return out + [{"type": "PASS"}]
