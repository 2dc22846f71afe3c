"""The four steps of a human's turn (R-0.2, §3.1 to §3.4): an action checked against its step, then its events.

Every check comes first and raises ``IllegalAction`` with the rule's reason; only then are the action's
events emitted on the ``Turn`` (each folded once), followed by the automatic steps it sets off.
"""

from __future__ import annotations

from service.games.chock_a_block import automatic, building, choices, seat_view
from service.games.kit import Turn
from service.games.protocol import Action, IllegalAction, State
from service.games.texts import catalogue

_ = catalogue(__file__).gettext


def take(turn: Turn, seat: int, action: Action) -> None:
    """The events of ``action`` by ``seat`` in its step, then every automatic step they set off."""
    handler = {
        "choose_excluded_feature": choose_excluded_feature,
        "place_card": place_card,
        "place_neighbour": place_neighbour,
        "end_neighbours": end_neighbours,
        "claim_token": claim_token,
        "draw_card": draw_card,
        "end_turn": end_turn,
    }.get(action.get("type", ""))  # no type is an unknown one
    if handler is None:
        raise IllegalAction("unknown_action", _("no action type {kind!r}", kind=action.get("type")))
    handler(turn, seat, action)  # every check first, then the action's events, each folded once
    automatic.settle(turn)


def in_step(state: State, *steps: str) -> None:
    if state["step"] not in steps:
        raise IllegalAction(
            "wrong_step",
            _(
                "this action belongs to step {steps}, but the turn is in step {step} (R-0.2, R-2.9)",
                steps="/".join(steps),
                step=state["step"],
            ),
        )


def integer(action: Action, name: str) -> int:
    value = action.get(name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise IllegalAction(
            "missing_parameter", _("{kind} needs an integer {name!r}", kind=action.get("type"), name=name)
        )
    return value


def choose_excluded_feature(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    in_step(state, "choose_feature")
    feature = action.get("feature")
    if feature not in state["content"]["features"]:
        raise IllegalAction("unknown_feature", _("{feature!r} is not a feature", feature=feature))
    turn.emit("excluded_feature_chosen", seat, feature=feature)


def place_card(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    in_step(state, "place")
    player = state["seats"][seat]
    o = state["options"]
    card = action.get("card")
    if card not in player["hand"]:
        raise IllegalAction("not_in_hand", _("card {card!r} is not in your hand (R-1.1)", card=card))
    face = action.get("face")
    if face not in ("FRONT", "BACK"):
        raise IllegalAction("unknown_face", _("face is FRONT or BACK (1.3.6)"))
    placement = len(player["cards"]) + 1
    if state["rules"] == "GRID":
        if action.get("room_x") is not None or action.get("room_y") is not None:
            raise IllegalAction(
                "misaligned",
                _(
                    "GRID buildings take a card column, not a room_x: cards align with the "
                    "2x2 grid (R-1.4, 'not properly adjacent')"
                ),
            )
        column = integer(action, "column")
        row = building.grid_row(player["cards"], column, o["grid_max_columns"], o["grid_max_rows"])
        if action.get("row") is not None and o["strict_row_check"] and action["row"] != row:
            raise IllegalAction(
                "no_floor_below",
                _(
                    "a card in column {column} lands in row {row}, the lowest free level, "
                    "not row {asked} (R-1.2)",
                    column=column,
                    row=row,
                    asked=action["row"],
                ),
            )
        turn.emit("card_placed", seat, card=card, face=face, column=column, row=row, placement=placement)
        return
    if action.get("column") is not None or action.get("row") is not None:
        raise IllegalAction(
            "misaligned", _("BUILDING_BLOCK buildings take a room_x, not a card column (V-5)")
        )
    room_x = integer(action, "room_x")
    coords = [building.coord(k) for k in player["rooms"]]
    y0 = building.bb_landing(coords, room_x, o["bb_max_width_rooms"], o["bb_max_height_rooms"])
    if action.get("room_y") is not None and o["strict_row_check"] and action["room_y"] != y0:
        raise IllegalAction(
            "no_floor_below",
            _(
                "a card at room_x {room_x} drops to room_y {y0}, not {asked} (R-1.2, V-5)",
                room_x=room_x,
                y0=y0,
                asked=action["room_y"],
            ),
        )
    turn.emit("card_placed", seat, card=card, face=face, room_x=room_x, room_y=y0, placement=placement)


def place_neighbour(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    in_step(state, "neighbours")
    source = action.get("source") or "MARKET"
    if source == "PILE":
        if state["options"]["neighbour_tile_source"] != "MARKET_OR_PILE_TOP":
            raise IllegalAction("tile_not_in_market", _("neighbour tiles come from the market (A-19)"))
        if action.get("tile") is not None:
            raise IllegalAction("tile_not_in_market", _("the pile top is face down: name no tile"))
        if not state["tile_pile"]:
            raise IllegalAction("pile_empty", _("the tile pile is empty"))
        tile, slot = state["tile_pile"][0], None
    elif source == "MARKET":
        tile = action.get("tile")
        if tile is None or tile not in state["neighbour_market"]:
            raise IllegalAction(
                "tile_not_in_market", _("tile {tile!r} is not in the neighbour market (R-2.3)", tile=tile)
            )
        slot = state["neighbour_market"].index(tile)
    else:
        raise IllegalAction("unknown_source", _("source is MARKET or PILE"))
    x, y = integer(action, "x"), integer(action, "y")
    room = state["seats"][seat]["rooms"].get(building.key(x, y))
    if room is None or not room["vacant"]:
        raise IllegalAction(
            "not_vacant", _("room ({x}, {y}) is not a vacant room of your building (R-2.3)", x=x, y=y)
        )
    if not any([x, y] == list(c) for g in choices.qualifying(state, seat) for c in g["vacant"]):
        raise IllegalAction(
            "group_not_qualifying",
            _(
                "room ({x}, {y}) is not in a same-colour group of {least} or more rooms (R-2.3)",
                x=x,
                y=y,
                least=state["options"]["neighbour_group_min"],
            ),
        )
    turn.emit(
        "neighbour_tile_placed",
        seat,
        tile=tile,
        features=list(state["content"]["tiles"][tile]),
        source=source,
        slot=slot,
        x=x,
        y=y,
        colour=room["colour"],
    )
    if slot is not None:  # a market slot taken from is refilled at once
        automatic.refill(turn, "neighbour", slot, seat)


def end_neighbours(turn: Turn, seat: int, action: Action) -> None:
    in_step(turn.state, "neighbours")
    if turn.state["options"]["neighbour_mandatory"]:
        raise IllegalAction(
            "neighbour_mandatory", _("a neighbour must move in while a group qualifies (R-2.3)")
        )
    turn.emit("neighbour_step_ended", seat, reason="declined")


def claim_token(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    if state["options"]["token_claim_window"] == "ANY_TIME_IN_TURN":
        in_step(state, "neighbours", "tokens")
    else:
        in_step(state, "tokens")
    token = action.get("token")
    if token not in state["token_supply"]:
        raise IllegalAction(
            "token_not_in_supply", _("token {token!r} is not in the supply (R-3.3a)", token=token)
        )
    feature, value = (
        state["content"]["tokens"][token]["feature"],
        state["content"]["tokens"][token]["value"],
    )
    x, y = integer(action, "x"), integer(action, "y")
    chain = next((c for c in choices.chains(state, seat, feature) if (x, y) in c), None)
    if chain is None:
        raise IllegalAction(
            "no_open_icon",
            _("room ({x}, {y}) shows no open {feature} icon (R-3.3b, R-3.6)", x=x, y=y, feature=feature),
        )
    if len(chain) < value:
        raise IllegalAction(
            "chain_too_short",
            _(
                "the open {feature} chain through ({x}, {y}) has {icons} icons; {token} needs {value} (R-3.3c)",
                feature=feature,
                x=x,
                y=y,
                icons=len(chain),
                token=token,
                value=value,
            ),
        )
    if state["options"]["token_claim_requires_growth"]:
        fresh = set(state["seats"][seat]["fresh"])
        if not any(building.key(*c) in fresh for c in chain):
            raise IllegalAction("chain_not_grown", _("the chain did not grow this turn (A-25)"))
    turn.emit(
        "token_claimed",
        seat,
        token=token,
        feature=feature,
        value=value,
        x=x,
        y=y,
        chain=[list(c) for c in chain],
    )


def draw_card(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    in_step(state, "tokens")
    reason = choices.draw_skip_reason(state, seat)
    if reason is not None:
        raise IllegalAction(
            "no_draw",
            _("the draw does not apply this turn: last turns (R-4.1a, V-1)")
            if reason == "last_turns"
            else _("the draw does not apply this turn: deck and market are empty (A-30)"),
        )
    source = action.get("source")
    private = not seat_view.hands_open(state)
    placement = len(state["seats"][seat]["cards"])
    if source == "MARKET":
        slot = integer(action, "slot")
        if not 0 <= slot < len(state["block_market"]) or state["block_market"][slot] is None:
            raise IllegalAction("slot_empty", _("market slot {slot} holds no card (R-4.2)", slot=slot))
        card = state["block_market"][slot]
        turn.emit("card_drawn", seat, source="MARKET", slot=slot, card=card, private=False)
        automatic.refill(turn, "block", slot, seat)
        turn.emit("turn_ended", seat, placement=placement, drew=True, draw_skipped=None)
        return
    if source == "DECK":
        if not choices.deck_draw_allowed(state):
            raise IllegalAction(
                "deck_draw_not_allowed", _("this match allows market draws only (A-27, A-41)")
            )
        if not state["deck"]:
            raise IllegalAction("deck_empty", _("the deck is empty"))
        turn.emit("card_drawn", seat, source="DECK", card=state["deck"][0], private=private)
        turn.emit("turn_ended", seat, placement=placement, drew=True, draw_skipped=None)
        return
    raise IllegalAction("unknown_source", _("source is MARKET or DECK"))


def end_turn(turn: Turn, seat: int, action: Action) -> None:
    state = turn.state
    in_step(state, "tokens")
    reason = choices.draw_skip_reason(state, seat)
    if reason is None:
        raise IllegalAction("must_draw", _("the draw applies: end the turn by drawing a card (R-4.4)"))
    turn.emit(
        "turn_ended", seat, placement=len(state["seats"][seat]["cards"]), drew=False, draw_skipped=reason
    )
