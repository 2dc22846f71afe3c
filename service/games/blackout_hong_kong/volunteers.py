"""Phase 2, volunteers and specialists (§3.2): in turn, each seat reveals the cards it planned this
round; a volunteer gathers on the rondel (R-2.4), a specialist uses its rows (R-2.5). Which revealed
card may act is the one being resolved (A-43 STRICT) or any revealed this turn (INTERLEAVED)."""

from __future__ import annotations

from service.games.blackout_hong_kong import payments
from service.games.blackout_hong_kong.board import RESOURCES, board_of
from service.games.blackout_hong_kong.common import (
    card,
    gainable,
    held,
    refuse,
    require_phase,
    transport_pool,
)
from service.games.blackout_hong_kong.free_actions import buy_transport_tokens, paying
from service.games.kit import Turn
from service.games.protocol import Action, State
from service.games.texts import catalogue

_ = catalogue(__file__).gettext


def planned(state: State, player: dict) -> list[tuple[int, str]]:
    """This round's cards still face-down: (slot, card)."""
    return [
        (i + 1, entry["card"])
        for i, stack in enumerate(player["slots"])
        for entry in stack
        if entry["round"] == state["round"] and not entry["faceUp"]
    ]


def usable_cards(state: State) -> list[str]:
    if state["options"]["CARD_RESOLUTION"] == "INTERLEAVED":
        return list(state["turn"].get("revealed", []))
    return [state["turn"]["current"]] if state["turn"].get("current") else []  # A-43 STRICT


def reveal_card(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    require_phase(state, "p2", "R-2.2")
    face_down = dict(planned(state, state["players"][seat]))
    if action["slot"] not in face_down:
        raise refuse("no_card_to_reveal", _("R-2.2: that slot holds no card planned this round face-down"))
    turn.emit("card_revealed", seat, slot=action["slot"], card=face_down[action["slot"]])


def _revealed_card(state: State, card_id: str, kind: str) -> dict:
    if card_id not in usable_cards(state):
        raise refuse("not_revealed", _("R-2.2, A-43: that card is not the card being resolved this turn"))
    found = card(state, card_id)
    if found["kind"] != kind:
        raise refuse(
            "not_a_volunteer" if kind == "VOLUNTEER" else "not_a_specialist",
            _("R-2.4, R-2.5: {card_id} is not a {kind}", card_id=card_id, kind=kind.lower()),
        )
    return found


def gather(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    require_phase(state, "p2", "R-2.4")
    volunteer = _revealed_card(state, action["cardId"], "VOLUNTEER")
    if "gather" in state["turn"].get("used", {}).get(action["cardId"], []):
        raise refuse("already_used", _("R-2.4: this volunteer has gathered already"))
    base, target = state["dice"][volunteer["colour"]], action["targetResource"]
    if not state["options"]["SHIFT_ONTO_OTHER_DIE"] and target != base and target in state["dice"].values():
        raise refuse("die_in_the_way", _("R-2.4(d), A-12: SHIFT_ONTO_OTHER_DIE is off"))
    shift = board_of(state["content"]).ring_distance(base, target)
    player = state["players"][seat]
    buy = action.get("buyTransport", 0)
    if player["transport"] + buy < shift:
        raise refuse(
            "not_enough_transport", _("R-2.4(b): the shift costs {shift} transport tokens", shift=shift)
        )
    if buy:
        buy_transport_tokens(turn, seat, buy)
    turn.emit(
        "gathered",
        seat,
        card=action["cardId"],
        base=base,
        resource=target,
        transport=shift,
        n=gainable(state, player, volunteer["gatherCount"]),
    )


def use_specialist_row(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    require_phase(state, "p2", "R-2.5")
    specialist = _revealed_card(state, action["cardId"], "SPECIALIST")
    row, alternative = action["rowIndex"], action.get("alternativeIndex", 0)
    if row >= len(specialist["actions"]) or alternative >= len(specialist["actions"][row]["alternatives"]):
        raise refuse("unknown_row", _("R-2.5: {card} has no such row or alternative", card=action["cardId"]))
    if str(row) in state["turn"].get("used", {}).get(action["cardId"], []):
        raise refuse("already_used", _("R-2.5: each row is used at most once per reveal"))
    cost = specialist["actions"][row]["alternatives"][alternative]["cost"]
    paid = payments.settle(cost, action.get("payment", "AUTO"), held(state["players"][seat]), "R-2.5")
    turn.emit("row_used", seat, card=action["cardId"], row=row, alternative=alternative, payment=paid)


def volunteer_entries(state: State, seat: int) -> list[Action]:
    player = state["players"][seat]
    out: list[Action] = [{"type": "REVEAL_CARD", "slot": slot} for slot, _ in planned(state, player)]
    for card_id in usable_cards(state):
        kind = card(state, card_id)["kind"]
        if kind == "VOLUNTEER":
            out += _gather_entries(state, player, card_id)
        if kind == "SPECIALIST":
            out += _row_entries(state, player, card_id)
    if not planned(state, player):
        out.append({"type": "END_TURN"})
    return out


def _gather_entries(state: State, player: dict, card_id: str) -> list[Action]:
    if "gather" in state["turn"].get("used", {}).get(card_id, []):
        return []
    board = board_of(state["content"])
    base = state["dice"][board.cards[card_id]["colour"]]
    out = []
    for target in RESOURCES:
        if (
            not state["options"]["SHIFT_ONTO_OTHER_DIE"]
            and target != base
            and target in state["dice"].values()
        ):
            continue
        buy = max(0, board.ring_distance(base, target) - player["transport"])
        if buy > transport_pool(state):
            continue
        out.append({"type": "GATHER", "cardId": card_id, "targetResource": target, "buyTransport": buy})
    return out


def _row_entries(state: State, player: dict, card_id: str) -> list[Action]:
    used = state["turn"].get("used", {}).get(card_id, [])
    out = []
    for row, choice in enumerate(card(state, card_id)["actions"]):
        if str(row) in used:
            continue
        for index, alternative in enumerate(choice["alternatives"]):
            entry = paying(
                {"type": "USE_SPECIALIST_ROW", "cardId": card_id, "rowIndex": row, "alternativeIndex": index},
                alternative["cost"],
                player,
            )
            if entry:
                out.append(entry)
    return out
