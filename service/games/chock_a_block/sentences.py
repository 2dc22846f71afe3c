"""Chock-a-Block's entries as short sentences in the rulebooks' words (``Engine.describe``), made when read,
in the reader's language: "seat 1 placed block card 37, back up, in column 0, row 0".

Each sentence says what a seat saw (the event after ``event_view``): a deck draw another seat made names
no card. An event without a sentence here is said by the kit's default (its type and values)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.games.chock_a_block.names import card_name, colour_name, feature_name, tile_name, token_name
from service.games.protocol import Event, State
from service.games.texts import N_, catalogue

_ = catalogue(__file__).gettext

REASONS = {
    "no_qualifying_group": N_("no group of rooms qualifies"),
    "declined": N_("declined"),
    "no_card_in_hand": N_("no card in hand"),
    "no_legal_placement": N_("no legal placement"),
    "all_turns_played": N_("all turns played"),
    "last_turns": N_("last turns"),
    "supply_empty": N_("supply empty"),
}


def _reason(reason: Any) -> str:
    return _(REASONS[reason]) if reason in REASONS else str(reason).replace("_", " ")


def _who(event: Event) -> str:
    return _("seat {seat}", seat=event["seat"])


def _face(face: Any) -> str:
    return _("front up") if face == "FRONT" else _("back up")


def _card_placed(event: Event, data: dict[str, Any]) -> str:
    card, face = card_name(data["card"]), _face(data["face"])
    if data.get("column") is not None:
        return _(
            "{who} placed {card}, {face}, in column {column}, row {row}",
            who=_who(event),
            card=card,
            face=face,
            column=data["column"],
            row=data.get("row", 0),
        )
    return _(
        "{who} placed {card}, {face}, with its lower left room at ({x}, {y})",
        who=_who(event),
        card=card,
        face=face,
        x=data.get("room_x"),
        y=data.get("room_y"),
    )


def _tile_placed(event: Event, data: dict[str, Any]) -> str:
    values = {
        "who": _who(event),
        "tile": tile_name(data["tile"], data.get("features")),
        "x": data["x"],
        "y": data["y"],
        "colour": colour_name(data.get("colour")),
    }
    if data.get("source") == "PILE":
        return _("{who} placed {tile} from the pile on the {colour} room at ({x}, {y})", **values)
    return _("{who} placed {tile} on the {colour} room at ({x}, {y})", **values)


def _market_refilled(event: Event, data: dict[str, Any]) -> str:
    item, slot = data.get("item"), data.get("slot")
    if item is None:
        return _("slot {slot} of the market stays empty", slot=slot)
    if data.get("market") == "neighbour":
        return _("{tile} comes to slot {slot} of the neighbour market", tile=tile_name(item), slot=slot)
    return _("{card} comes to slot {slot} of the block market", card=card_name(item), slot=slot)


def _card_drawn(event: Event, data: dict[str, Any]) -> str:
    card = data.get("card")
    if data.get("source") == "MARKET":
        return _(
            "{who} drew {card} from slot {slot} of the block market",
            who=_who(event),
            card=card_name(data["card"]),  # a market card is face up: every seat saw it
            slot=data.get("slot"),
        )
    if card is None:
        return _("{who} drew a card from the deck", who=_who(event))
    return _("{who} drew {card} from the deck", who=_who(event), card=card_name(card))


def _turn_ended(event: Event, data: dict[str, Any]) -> str:
    if data.get("draw_skipped"):
        return _(
            "{who} ended the turn without drawing: {reason}",
            who=_who(event),
            reason=_reason(data["draw_skipped"]),
        )
    return _("{who} ended the turn", who=_who(event))


SENTENCES: dict[str, Callable[[Event, dict[str, Any]], str]] = {
    "excluded_feature_chosen": lambda e, d: _(
        "{who} chose {feature} as the feature left out", who=_who(e), feature=feature_name(d["feature"])
    ),
    "card_placed": _card_placed,
    "neighbour_tile_placed": _tile_placed,
    "market_refilled": _market_refilled,
    "neighbour_step_ended": lambda e, d: _(
        "{who} places no more neighbours: {reason}", who=_who(e), reason=_reason(d.get("reason"))
    ),
    "neighbour_obligation_lapsed": lambda e, d: _(
        "{who} places no neighbour: no neighbour tile is left", who=_who(e)
    ),
    "token_claimed": lambda e, d: _(
        "{who} claimed a {feature} token worth {value} points for the chain at ({x}, {y})",
        who=_who(e),
        feature=feature_name(d["feature"]),
        value=d["value"],
        x=d["x"],
        y=d["y"],
    ),
    "card_drawn": _card_drawn,
    "draw_card": lambda e, d: (
        _(  # a draw's listed action, said before its card is known (replay.action_text)
            "{who} draws from slot {slot} of the block market", who=_who(e), slot=d["slot"]
        )
        if d.get("source") == "MARKET"
        else _("{who} draws a card from the deck", who=_who(e))
    ),
    "turn_ended": _turn_ended,
    "player_finished": lambda e, d: _(
        "{who} has finished: {reason}", who=_who(e), reason=_reason(d.get("reason"))
    ),
    "autoblock_discarded": lambda e, d: _(
        "Autoblock discarded {card} from slot {slot}", card=card_name(d["card"]), slot=d["slot"]
    ),
    "autoblock_took_tile": lambda e, d: _(
        "Autoblock took {tile} from slot {slot}", tile=tile_name(d["tile"], d.get("features")), slot=d["slot"]
    ),
    "autoblock_turn": lambda e, d: _("Autoblock played its turn {turn}", turn=d["turn"]),
    "final_scoring": lambda e, d: (
        _(
            "final scoring: {scores}",
            scores=_(", ").join(
                _("seat {seat}: {points} points", seat=seat, points=points)
                for seat, points in enumerate(d["scores"])
            ),
        )
        if isinstance(d.get("scores"), list)
        else _("final scoring")
    ),
    "game_over": lambda e, d: _("game over: {reason}", reason=_reason(d.get("reason"))),
}


def _autoblock_token(event: Event, state: State | None) -> str:
    """Autoblock's token entries name a score token by its pack id: said by its feature and points where the
    match's pack is lent."""
    token = event["data"]["token"]
    content = state.get("content") if isinstance(state, dict) else None
    known = content["tokens"].get(token) if isinstance(content, dict) and "tokens" in content else None
    named = token_name(known["feature"], known["value"]) if known else _("token {token}", token=token)
    if event["type"] == "autoblock_token_returned":
        return _("Autoblock returned the {token}", token=named)
    return _("Autoblock took the {token}", token=named)


def sentence(event: Event, state: State | None = None) -> str | None:
    """The event as a sentence, or None for one without (the kit's default says it); ``state`` lends the
    match's pack (Autoblock's token entries name a token by its id)."""
    said = SENTENCES.get(event["type"])
    if said is None and event["type"] not in ("autoblock_token_returned", "autoblock_token_taken"):
        return None
    try:
        if said is None:
            return _autoblock_token(event, state)
        return said(event, event["data"])
    except (KeyError, TypeError):  # an event of an older log, without a value the sentence names
        return None
