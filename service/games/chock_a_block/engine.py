"""Chock-a-Block: a pure rules engine (spec ``service/games/chock_a_block/rules.md``, rulebooks KO and JA).

Each player builds an apartment block of 12 cards (4 high, 3 wide), one card a turn. A turn has four
steps (R-0.2), each a decision of the same seat, so ``to_act`` stays on that seat until the turn ends:

1. ``place_card``: one of the two hand cards, on either face, in a legal column (§3.1);
2. ``place_neighbour``: while a same-colour group of 4+ rooms holds a vacant room, a neighbour
   tile from the market goes on one of its vacant rooms, in the order the player chooses (§3.2);
3. ``claim_token``: any number of score tokens for open chains of icons long enough (§3.3);
4. ``draw_card`` from the market or the deck, which ends the turn; or ``end_turn`` when the
   draw does not apply (§3.4).

Automatic steps are events too: market refills, the end of a step, Autoblock's turn (AE-7, AE-8),
final scoring and the end. Modes (S-1): STANDARD (2-5 players), SOLO (1 + Autoblock), AUTOBLOCK_EXTRA
and COOP (2-4 + Autoblock); building rules GRID or BUILDING_BLOCK (6.2). Content (cards, tiles,
tokens) comes from a pack (``content``); options from ``options``.

State (plain JSON data; see ``setup``): the resolved options, the pack, the deck, markets, tile pile,
token supply and discard, one record per seat (hand, placed cards, rooms, tokens, neighbour count),
Autoblock's record, and where the game stands (``round``, ``active`` seat, ``step``).

Hidden information has one gate: ``view`` shows a seat its own hand and everyone else hand sizes,
never the deck or tile-pile order; ``event_view`` hides the card of a deck draw from everyone but
the drawer. Legal actions are computed for the asking seat only.

Event types: ``excluded_feature_chosen``, ``card_placed``, ``neighbour_tile_placed``,
``market_refilled``, ``neighbour_step_ended``, ``neighbour_obligation_lapsed``, ``token_claimed``,
``card_drawn``, ``turn_ended``, ``player_finished``, ``autoblock_discarded``, ``autoblock_took_tile``,
``autoblock_token_returned``, ``autoblock_token_taken``, ``autoblock_turn``, ``final_scoring``,
``game_over``.

Reasons an action is refused (``IllegalAction.reason``, stable API codes; the message names the rule):
``game_over``, ``not_your_turn``, ``wrong_step`` (an action of another step, R-0.2, R-2.9),
``unknown_action``, ``missing_parameter``, ``unknown_feature``, ``unknown_face``, ``unknown_source``;
placing: ``not_in_hand``, ``first_card_column``, ``not_adjacent``, ``height_limit``, ``width_limit``,
``no_floor_below``, ``misaligned``; neighbours: ``tile_not_in_market``, ``pile_empty``, ``not_vacant``,
``group_not_qualifying``, ``neighbour_mandatory``; tokens: ``token_not_in_supply``, ``no_open_icon``,
``chain_too_short``, ``chain_not_grown``; drawing: ``no_draw``, ``must_draw``, ``slot_empty``,
``deck_empty``, ``deck_draw_not_allowed``.
"""

from __future__ import annotations

import random
from typing import Any

from service.games.chock_a_block import (
    autoblock,
    building,
    markets,
    scoring,
)
from service.games.chock_a_block import (
    content as pack_data,
)
from service.games.chock_a_block import (
    options as opts,
)
from service.games.chock_a_block.actions import ChockABlockAction
from service.games.chock_a_block.svg import render_svg
from service.games.kit import Analyst, Engine, Turn, applies
from service.games.protocol import (
    Action,
    Event,
    GameInfo,
    IllegalAction,
    InvalidOptions,
    Packs,
    Refusal,
    State,
    turn_refusals,
)

HUMAN_STEPS = ("place", "neighbours", "tokens")


class ChockABlock(Engine):
    analyst = Analyst()  # one step: the points each choice leaves the seat with
    info = GameInfo(
        id="chock-a-block",
        name="Chock-a-Block",
        min_players=1,
        max_players=5,
        hidden_information=True,
        chance=True,
        description="Build a colourful apartment block card by card: chain cats, underwear, flowers and birds "
        "for score tokens, fill same-colour groups with neighbours. 2-5 players, solo or co-op "
        "against the Autoblock automa.",
        dynamics="sequential",  # one turn at a time, in turn order
        utility="competitive",
        utility_by_option={"mode": {"COOP": "cooperative"}},  # V-20: the humans win or lose together
    )
    options_schema = opts.OPTIONS_SCHEMA
    action_schema = ChockABlockAction
    packs = Packs(
        load=pack_data.load_pack,
        default=pack_data.DEFAULT_PACK,
        folder=pack_data.PACKS_DIR,
        checked_by=tuple(pack_data.CHECK_DEFAULTS),
    )
    svg = staticmethod(render_svg)
    turn_rule = "R-0.4"
    refusals = {
        **turn_refusals("R-0.4", "E-1"),
        "unknown_action": Refusal("§3.5", "no such action type"),
        "wrong_step": Refusal("R-0.2, R-2.9", "the action belongs to another step of the turn"),
        "missing_parameter": Refusal("§3.5", "the action lacks an integer it needs (a column, room, slot)"),
        "unknown_feature": Refusal("S-10", "the excluded feature is not one of the game's features"),
        "not_in_hand": Refusal("R-1.1", "the card is not in the player's hand"),
        "unknown_face": Refusal("§1.3", "a card is placed FRONT or BACK up"),
        "misaligned": Refusal("R-1.4, V-5", "a column for GRID buildings, a room_x for BUILDING_BLOCK ones"),
        "no_floor_below": Refusal("R-1.2, V-5", "the stated row is not the one the card lands in"),
        "first_card_column": Refusal("R-1.4a, V-5", "a player's first card goes in column 0 (room_x 0)"),
        "height_limit": Refusal("R-1.4b, V-5", "the card would make the building too high"),
        "not_adjacent": Refusal("R-1.3, R-1.4c", "the card would not be next to the building"),
        "width_limit": Refusal("R-1.4c", "the card would make the building too wide"),
        "tile_not_in_market": Refusal(
            "R-2.3, A-19",
            "the tile is not in the neighbour market (or the pile top was named or is not allowed)",
        ),
        "pile_empty": Refusal("A-19", "the tile pile is empty"),
        "unknown_source": Refusal(
            "R-2.3, R-4.2", "a neighbour comes from MARKET or PILE, a card from MARKET or DECK"
        ),
        "not_vacant": Refusal("R-2.3", "the room is not a vacant room of the player's building"),
        "group_not_qualifying": Refusal("R-2.3", "the room is not in a qualifying same-colour group"),
        "neighbour_mandatory": Refusal("R-2.3", "a neighbour must move in while a group qualifies"),
        "token_not_in_supply": Refusal("R-3.3a", "the token is not in the supply"),
        "no_open_icon": Refusal("R-3.3b, R-3.6", "the room shows no open icon of the token's feature"),
        "chain_too_short": Refusal("R-3.3c", "the open chain is shorter than the token's value"),
        "chain_not_grown": Refusal("A-25", "the chain did not grow this turn"),
        "no_draw": Refusal("R-4.1", "the draw does not apply this turn"),
        "slot_empty": Refusal("R-4.2", "the market slot holds no card"),
        "deck_draw_not_allowed": Refusal("A-27, A-41", "this match allows market draws only"),
        "deck_empty": Refusal("R-4.2", "the deck is empty"),
        "must_draw": Refusal("R-4.4", "the draw applies: the turn ends by drawing"),
    }
    # a card or tile turned up from a face-down pile: someone has seen what was hidden
    irreversible = frozenset({"card_drawn", "market_refilled", "autoblock_took_tile", "autoblock_turn"})

    def reveals(self, event: Event) -> bool:
        """A neighbour placed from the pile (A-19) turns its face-down top tile up: the event says
        ``source`` PILE, while one from the face-up market showed nothing new."""
        return super().reveals(event) or (
            event["type"] == "neighbour_tile_placed" and event["data"].get("source") == "PILE"
        )

    # -- options -------------------------------------------------------------------------------

    def complete_options(
        self, resolved: dict[str, Any], players: int, given: dict[str, Any]
    ) -> dict[str, Any]:
        return opts.complete(resolved, players, given)

    # -- setup (section 2) ---------------------------------------------------------------------

    def setup(self, options: dict[str, Any], players: int, seed: str, content: Any = None) -> State:
        if content is None:
            content = pack_data.default_content()
        elif not pack_data.is_content(content):
            content = pack_data.load_pack(content, options)
        pack_data.check_for_options(content, options)
        mode = options["mode"]
        with_autoblock = opts.MODES[mode][1]
        if len(content["card_ids"]) < 2 * players + 1:
            raise InvalidOptions("options.pack", f"pack {content['pack_id']!r} has too few cards to deal")

        deck = list(content["card_ids"])
        random.Random(f"{seed}:chock-a-block:deck").shuffle(deck)  # S-4
        hands = []
        for _ in range(players):  # S-5
            hands.append(deck[:2])
            deck = deck[2:]
        market_size = options["market_size"]
        block_market = deck[:market_size] + [None] * max(0, market_size - len(deck))  # S-6
        deck = deck[market_size:]
        tiles = list(content["tile_ids"])
        random.Random(f"{seed}:chock-a-block:tiles").shuffle(tiles)  # S-7
        size = options["neighbour_market_size"]
        neighbour_market = tiles[:size] + [None] * max(0, size - len(tiles))
        tiles = tiles[size:]

        if mode == "SOLO":
            start = 0
        elif options["start_seat"] is not None:
            start = options["start_seat"]
        else:
            start = random.Random(f"{seed}:chock-a-block:start").randrange(players)  # S-9
        order = [(start + i) % players for i in range(players)]

        ab: dict[str, Any] | None = None  # the Autoblock's own state, in a match with it
        step = "place"
        if with_autoblock:
            excluded = None
            if not options["grand_autoblock"]:
                excluded = options["excluded_feature"]
                if options["autoblock_excluded_feature_choice"] == "RANDOM":
                    excluded = random.Random(f"{seed}:chock-a-block:excluded").choice(content["features"])
                elif excluded is None:
                    step = "choose_feature"  # S-10: the start player chooses first
            ab = {
                "level": "GRAND" if options["grand_autoblock"] else "NORMAL",
                "excluded": excluded,
                "tiles": [],
                "tokens": [],
                "turns": 0,
            }
        column = with_autoblock and (mode == "SOLO" or options["column_markets_with_autoblock"])
        return {
            "options": options,
            "content": content,
            "mode": mode,
            "rules": options["building_rules"],
            "players": players,
            "order": order,
            "start_seat": start,
            "rounds": options["grid_max_columns"] * options["grid_max_rows"],
            "round": 1,
            "active": start,
            "step": step,
            "layout": "COLUMN" if column else "ROW",
            "slide": bool(column or options["row_market_slide"]),
            "deck": deck,
            "block_market": block_market,
            "tile_pile": tiles,
            "neighbour_market": neighbour_market,
            "token_supply": list(content["token_ids"]),  # S-8
            "discard": [],
            "seats": [
                {
                    "hand": hand,
                    "cards": [],
                    "rooms": {},
                    "tokens": [],
                    "neighbours": 0,
                    "finished": False,
                    "fresh": [],
                }
                for hand in hands
            ],
            "autoblock": ab,
        }

    # -- who acts ----------------------------------------------------------------------------------

    def to_act(self, state: State) -> list[int]:
        if state["step"] in HUMAN_STEPS or state["step"] == "choose_feature":
            return [state["active"]]
        return []

    def is_over(self, state: State) -> bool:
        return state["step"] == "over"

    # -- derived facts -------------------------------------------------------------------------------

    @staticmethod
    def _qualifying(state: State, seat: int) -> list[dict[str, Any]]:
        o = state["options"]
        return building.qualifying_groups(
            state["seats"][seat]["rooms"], o["neighbour_group_min"], o["group_connectivity"]
        )

    @staticmethod
    def _chains(state: State, seat: int, feature: str) -> list[list[tuple[int, int]]]:
        o = state["options"]
        return building.chains(
            state["seats"][seat]["rooms"],
            feature,
            o["chain_connectivity"],
            o["closed_chain_absorbs_new_icons"],
        )

    @staticmethod
    def _tile_available(state: State) -> bool:
        return any(t is not None for t in state["neighbour_market"]) or (
            state["options"]["neighbour_tile_source"] == "MARKET_OR_PILE_TOP" and bool(state["tile_pile"])
        )

    @staticmethod
    def _deck_draw_allowed(state: State) -> bool:
        o = state["options"]
        if o["draw_sources"] == "MARKET_ONLY":
            return False
        return not (state["mode"] == "SOLO" and not o["solo_deck_draw_allowed"])

    def last_draw_placement(self, state: State) -> int:
        """L of R-4.1: 10 with 5 players (V-1), 11 otherwise (A-28)."""
        o = state["options"]
        counted = state["players"] + (
            1 if state["autoblock"] and o["five_player_rule_counts_autoblock"] else 0
        )
        return o["five_player_last_draw_placement"] if counted >= 5 else o["last_draw_placement"]

    def draw_skip_reason(self, state: State, seat: int) -> str | None:
        """None if the draw applies this turn (R-4.1), else why not."""
        if len(state["seats"][seat]["cards"]) > self.last_draw_placement(state):
            return "last_turns"
        if not self._draw_actions(state):
            return "supply_empty"
        return None

    def _draw_actions(self, state: State) -> list[Action]:
        out: list[Action] = [
            {"type": "draw_card", "source": "MARKET", "slot": slot}
            for slot in markets.occupied(state["block_market"])
        ]
        if state["deck"] and self._deck_draw_allowed(state):
            out.append({"type": "draw_card", "source": "DECK"})
        return out

    def _claims(self, state: State, seat: int) -> list[Action]:
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
                chains_of[feature] = self._chains(state, seat, feature)
            for chain in chains_of[feature]:
                if len(chain) >= value and (not growth or any(building.key(*c) in fresh for c in chain)):
                    out.append({"type": "claim_token", "token": token, "x": chain[0][0], "y": chain[0][1]})
        return out

    def _placements(self, state: State, seat: int) -> list[dict[str, Any]]:
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

    def _legal_actions(self, state: State, seat: int) -> list[Action]:
        step = state["step"]
        if step == "choose_feature":
            return [{"type": "choose_excluded_feature", "feature": f} for f in state["content"]["features"]]
        player = state["seats"][seat]
        if step == "place":
            spots = self._placements(state, seat)
            return [
                {"type": "place_card", "card": card, "face": face, **spot}
                for card in player["hand"]
                for face in ("FRONT", "BACK")
                for spot in spots
            ]
        actions: list[Action] = []
        if step == "neighbours":
            targets = sorted(
                {tuple(c) for g in self._qualifying(state, seat) for c in g["vacant"]},
                key=lambda c: (c[1], c[0]),
            )
            tiles = [t for t in state["neighbour_market"] if t is not None]
            actions += [
                {"type": "place_neighbour", "tile": t, "x": x, "y": y} for t in tiles for x, y in targets
            ]
            if state["options"]["neighbour_tile_source"] == "MARKET_OR_PILE_TOP" and state["tile_pile"]:
                actions += [{"type": "place_neighbour", "source": "PILE", "x": x, "y": y} for x, y in targets]
            if not state["options"]["neighbour_mandatory"]:
                actions.append({"type": "end_neighbours"})
            if state["options"]["token_claim_window"] == "ANY_TIME_IN_TURN":
                actions += self._claims(state, seat)
            return actions
        # step == "tokens"
        actions += self._claims(state, seat)
        if self.draw_skip_reason(state, seat) is None:
            actions += self._draw_actions(state)
        else:
            actions.append({"type": "end_turn"})
        return actions

    # -- play: actions to events ------------------------------------------------------------------------

    def _play(self, turn: Turn, seat: int, action: Action) -> None:
        handler = {
            "choose_excluded_feature": self._play_choose,
            "place_card": self._play_place,
            "place_neighbour": self._play_neighbour,
            "end_neighbours": self._play_end_neighbours,
            "claim_token": self._play_claim,
            "draw_card": self._play_draw,
            "end_turn": self._play_end_turn,
        }.get(action.get("type", ""))  # no type is an unknown one
        if handler is None:
            raise IllegalAction("unknown_action", f"no action type {action.get('type')!r}")
        handler(turn, seat, action)  # every check first, then the action's events, each folded once
        self._automatic(turn)

    @staticmethod
    def _step(state: State, *steps: str) -> None:
        if state["step"] not in steps:
            raise IllegalAction(
                "wrong_step",
                f"this action belongs to step {'/'.join(steps)}, but the turn is in "
                f"step {state['step']} (R-0.2, R-2.9)",
            )

    @staticmethod
    def _int(action: Action, name: str) -> int:
        value = action.get(name)
        if not isinstance(value, int) or isinstance(value, bool):
            raise IllegalAction("missing_parameter", f"{action.get('type')} needs an integer {name!r}")
        return value

    def _play_choose(self, turn: Turn, seat: int, action: Action) -> None:
        state = turn.state
        self._step(state, "choose_feature")
        feature = action.get("feature")
        if feature not in state["content"]["features"]:
            raise IllegalAction("unknown_feature", f"{feature!r} is not a feature")
        turn.emit("excluded_feature_chosen", seat, feature=feature)

    def _play_place(self, turn: Turn, seat: int, action: Action) -> None:
        state = turn.state
        self._step(state, "place")
        player = state["seats"][seat]
        o = state["options"]
        card = action.get("card")
        if card not in player["hand"]:
            raise IllegalAction("not_in_hand", f"card {card!r} is not in your hand (R-1.1)")
        face = action.get("face")
        if face not in ("FRONT", "BACK"):
            raise IllegalAction("unknown_face", "face is FRONT or BACK (1.3.6)")
        placement = len(player["cards"]) + 1
        if state["rules"] == "GRID":
            if action.get("room_x") is not None or action.get("room_y") is not None:
                raise IllegalAction(
                    "misaligned",
                    "GRID buildings take a card column, not a room_x: cards align "
                    "with the 2x2 grid (R-1.4, 'not properly adjacent')",
                )
            column = self._int(action, "column")
            row = building.grid_row(player["cards"], column, o["grid_max_columns"], o["grid_max_rows"])
            if action.get("row") is not None and o["strict_row_check"] and action["row"] != row:
                raise IllegalAction(
                    "no_floor_below",
                    f"a card in column {column} lands in row {row}, the lowest "
                    f"free level, not row {action['row']} (R-1.2)",
                )
            turn.emit("card_placed", seat, card=card, face=face, column=column, row=row, placement=placement)
            return
        if action.get("column") is not None or action.get("row") is not None:
            raise IllegalAction(
                "misaligned", "BUILDING_BLOCK buildings take a room_x, not a card column (V-5)"
            )
        room_x = self._int(action, "room_x")
        coords = [building.coord(k) for k in player["rooms"]]
        y0 = building.bb_landing(coords, room_x, o["bb_max_width_rooms"], o["bb_max_height_rooms"])
        if action.get("room_y") is not None and o["strict_row_check"] and action["room_y"] != y0:
            raise IllegalAction(
                "no_floor_below",
                f"a card at room_x {room_x} drops to room_y {y0}, not {action['room_y']} (R-1.2, V-5)",
            )
        turn.emit("card_placed", seat, card=card, face=face, room_x=room_x, room_y=y0, placement=placement)

    def _play_neighbour(self, turn: Turn, seat: int, action: Action) -> None:
        state = turn.state
        self._step(state, "neighbours")
        source = action.get("source") or "MARKET"
        if source == "PILE":
            if state["options"]["neighbour_tile_source"] != "MARKET_OR_PILE_TOP":
                raise IllegalAction("tile_not_in_market", "neighbour tiles come from the market (A-19)")
            if action.get("tile") is not None:
                raise IllegalAction("tile_not_in_market", "the pile top is face down: name no tile")
            if not state["tile_pile"]:
                raise IllegalAction("pile_empty", "the tile pile is empty")
            tile, slot = state["tile_pile"][0], None
        elif source == "MARKET":
            tile = action.get("tile")
            if tile is None or tile not in state["neighbour_market"]:
                raise IllegalAction(
                    "tile_not_in_market", f"tile {tile!r} is not in the neighbour market (R-2.3)"
                )
            slot = state["neighbour_market"].index(tile)
        else:
            raise IllegalAction("unknown_source", "source is MARKET or PILE")
        x, y = self._int(action, "x"), self._int(action, "y")
        room = state["seats"][seat]["rooms"].get(building.key(x, y))
        if room is None or not room["vacant"]:
            raise IllegalAction(
                "not_vacant", f"room ({x}, {y}) is not a vacant room of your building (R-2.3)"
            )
        if not any([x, y] == list(c) for g in self._qualifying(state, seat) for c in g["vacant"]):
            raise IllegalAction(
                "group_not_qualifying",
                f"room ({x}, {y}) is not in a same-colour group of {state['options']['neighbour_group_min']}"
                " or more rooms (R-2.3)",
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
            self._refill(turn, "neighbour", slot, seat)

    @staticmethod
    def _refill(turn: Turn, market: str, slot: int, seat: int | None) -> None:
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

    def _play_end_neighbours(self, turn: Turn, seat: int, action: Action) -> None:
        self._step(turn.state, "neighbours")
        if turn.state["options"]["neighbour_mandatory"]:
            raise IllegalAction(
                "neighbour_mandatory", "a neighbour must move in while a group qualifies (R-2.3)"
            )
        turn.emit("neighbour_step_ended", seat, reason="declined")

    def _play_claim(self, turn: Turn, seat: int, action: Action) -> None:
        state = turn.state
        if state["options"]["token_claim_window"] == "ANY_TIME_IN_TURN":
            self._step(state, "neighbours", "tokens")
        else:
            self._step(state, "tokens")
        token = action.get("token")
        if token not in state["token_supply"]:
            raise IllegalAction("token_not_in_supply", f"token {token!r} is not in the supply (R-3.3a)")
        feature, value = (
            state["content"]["tokens"][token]["feature"],
            state["content"]["tokens"][token]["value"],
        )
        x, y = self._int(action, "x"), self._int(action, "y")
        chain = next((c for c in self._chains(state, seat, feature) if (x, y) in c), None)
        if chain is None:
            raise IllegalAction(
                "no_open_icon", f"room ({x}, {y}) shows no open {feature} icon (R-3.3b, R-3.6)"
            )
        if len(chain) < value:
            raise IllegalAction(
                "chain_too_short",
                f"the open {feature} chain through ({x}, {y}) has {len(chain)} "
                f"icons; {token} needs {value} (R-3.3c)",
            )
        if state["options"]["token_claim_requires_growth"]:
            fresh = set(state["seats"][seat]["fresh"])
            if not any(building.key(*c) in fresh for c in chain):
                raise IllegalAction("chain_not_grown", "the chain did not grow this turn (A-25)")
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

    def _play_draw(self, turn: Turn, seat: int, action: Action) -> None:
        state = turn.state
        self._step(state, "tokens")
        reason = self.draw_skip_reason(state, seat)
        if reason is not None:
            raise IllegalAction(
                "no_draw",
                "the draw does not apply this turn: "
                + (
                    "last turns (R-4.1a, V-1)"
                    if reason == "last_turns"
                    else "deck and market are empty (A-30)"
                ),
            )
        source = action.get("source")
        private = not self._hands_open(state)
        placement = len(state["seats"][seat]["cards"])
        if source == "MARKET":
            slot = self._int(action, "slot")
            if not 0 <= slot < len(state["block_market"]) or state["block_market"][slot] is None:
                raise IllegalAction("slot_empty", f"market slot {slot} holds no card (R-4.2)")
            card = state["block_market"][slot]
            turn.emit("card_drawn", seat, source="MARKET", slot=slot, card=card, private=False)
            self._refill(turn, "block", slot, seat)
            turn.emit("turn_ended", seat, placement=placement, drew=True, draw_skipped=None)
            return
        if source == "DECK":
            if not self._deck_draw_allowed(state):
                raise IllegalAction(
                    "deck_draw_not_allowed", "this match allows market draws only (A-27, A-41)"
                )
            if not state["deck"]:
                raise IllegalAction("deck_empty", "the deck is empty")
            turn.emit("card_drawn", seat, source="DECK", card=state["deck"][0], private=private)
            turn.emit("turn_ended", seat, placement=placement, drew=True, draw_skipped=None)
            return
        raise IllegalAction("unknown_source", "source is MARKET or DECK")

    def _play_end_turn(self, turn: Turn, seat: int, action: Action) -> None:
        state = turn.state
        self._step(state, "tokens")
        reason = self.draw_skip_reason(state, seat)
        if reason is None:
            raise IllegalAction("must_draw", "the draw applies: end the turn by drawing a card (R-4.4)")
        turn.emit(
            "turn_ended", seat, placement=len(state["seats"][seat]["cards"]), drew=False, draw_skipped=reason
        )

    # -- automatic steps -------------------------------------------------------------------------------

    def _automatic(self, turn: Turn) -> None:
        """Every consequence that needs no decision, up to the next decision or the end."""
        while self._next_automatic(turn):
            pass

    def _next_automatic(self, turn: Turn) -> bool:
        """Emit the next automatic step of ``turn.state``, if there is one; whether there was."""
        state = turn.state
        step = state["step"]
        seat = state["active"]
        if step == "place":
            player = state["seats"][seat]
            if not player["hand"]:
                turn.emit("player_finished", seat, reason="no_card_in_hand")
            elif not self._placements(state, seat):
                turn.emit("player_finished", seat, reason="no_legal_placement")  # V-8, A-14
            else:
                return False
            return True
        if step == "neighbours":
            groups = self._qualifying(state, seat)
            if not groups:
                turn.emit("neighbour_step_ended", seat, reason="no_qualifying_group")
            elif not self._tile_available(state):
                turn.emit(
                    "neighbour_obligation_lapsed",
                    seat,
                    groups=[[list(c) for c in g["rooms"]] for g in groups],
                )
            else:
                return False
            return True
        if step == "tokens":
            if not state["options"]["auto_advance"] or self._claims(state, seat):
                return False
            reason = self.draw_skip_reason(state, seat)
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
            self._autoblock_turn(turn)
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

    def _autoblock_turn(self, turn: Turn) -> None:
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
            self._refill(turn, "block", slot, None)
        if tile_slot is not None:
            self._refill(turn, "neighbour", tile_slot, None)
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

    # -- apply: the fold ---------------------------------------------------------------------------------

    @applies("excluded_feature_chosen")
    def _excluded_feature_chosen(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state["autoblock"] = {**state["autoblock"], "excluded": data["feature"]}
        state["step"] = "place"

    @applies("card_placed")
    def _card_placed(self, state: State, data: dict[str, Any], seat: int) -> None:
        player = self._player(state, seat)
        player["hand"] = [c for c in player["hand"] if c != data["card"]]
        face = state["content"]["cards"][data["card"]][data["face"]]
        if "column" in data:
            x0, y0 = 2 * data["column"], 2 * data["row"]
            placed = {
                "card": data["card"],
                "face": data["face"],
                "column": data["column"],
                "row": data["row"],
            }
        else:
            x0, y0 = data["room_x"], data["room_y"]
            placed = {"card": data["card"], "face": data["face"], "room_x": x0, "room_y": y0}
        player["cards"] = player["cards"] + [{**placed, "placement": data["placement"]}]
        rooms = dict(player["rooms"])
        fresh = []
        for (x, y), corner, room in building.card_rooms(face, x0, y0):
            k = building.key(x, y)
            rooms[k] = {
                "card": data["card"],
                "corner": corner,
                "colour": room["colour"],
                "vacant": room["vacant"],
                "features": list(room["features"]),
                "tile": None,
                "closed": [],
            }
            fresh.append(k)
        player["rooms"] = rooms
        player["fresh"] = fresh
        state["step"] = "neighbours"

    @applies("neighbour_tile_placed")
    def _neighbour_tile_placed(self, state: State, data: dict[str, Any], seat: int) -> None:
        player = self._player(state, seat)
        k = building.key(data["x"], data["y"])
        rooms = dict(player["rooms"])
        counts = state["options"]["tiles_count_for_chains"]
        rooms[k] = {
            **rooms[k],
            "colour": None,
            "vacant": False,
            "tile": data["tile"],
            "features": list(data["features"]) if counts else [],
        }  # 1.4.3
        player["rooms"] = rooms
        player["neighbours"] += 1
        player["fresh"] = player["fresh"] + [k]
        if data["source"] == "PILE":
            state["tile_pile"] = state["tile_pile"][1:]
        else:
            market = list(state["neighbour_market"])
            market[data["slot"]] = None
            state["neighbour_market"] = market

    @applies("market_refilled")
    def _market_refilled(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        name, source = (
            ("block_market", "deck") if data["market"] == "block" else ("neighbour_market", "tile_pile")
        )
        state[name], state[source], item = markets.refill(
            state[name], state[source], data["slot"], data["slide"]
        )
        if data.get("item", item) != item:
            raise ValueError(f"chock-a-block: market_refilled says {data['item']!r}, the state has {item!r}")

    @applies("neighbour_step_ended", "neighbour_obligation_lapsed")
    def _neighbour_step_over(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state["step"] = "tokens"

    @applies("token_claimed")
    def _token_claimed(self, state: State, data: dict[str, Any], seat: int) -> None:
        player = self._player(state, seat)
        state["token_supply"] = [t for t in state["token_supply"] if t != data["token"]]
        player["tokens"] = player["tokens"] + [
            {
                "token": data["token"],
                "feature": data["feature"],
                "value": data["value"],
                "chain": data["chain"],
                "placement": len(player["cards"]),
            }
        ]
        rooms = dict(player["rooms"])
        for x, y in data["chain"]:  # every icon of the chain closes
            k = building.key(x, y)
            rooms[k] = {**rooms[k], "closed": rooms[k]["closed"] + [data["feature"]]}
        player["rooms"] = rooms

    @applies("card_drawn")
    def _card_drawn(self, state: State, data: dict[str, Any], seat: int) -> None:
        player = self._player(state, seat)
        if data["source"] == "MARKET":
            card = state["block_market"][data["slot"]]
            market = list(state["block_market"])
            market[data["slot"]] = None
            state["block_market"] = market
        else:
            # The deck order is in the state (it comes from the seed), so a log whose deck draws were
            # filtered for another viewer still replays once the seed is revealed.
            card = state["deck"][0]
            state["deck"] = state["deck"][1:]
        if data.get("card", card) != card:
            raise ValueError(f"chock-a-block: card_drawn says {data['card']!r}, the state has {card!r}")
        player["hand"] = player["hand"] + [card]

    @applies("turn_ended")
    def _turn_ended(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        self._advance(state, seat)

    @applies("player_finished")
    def _player_finished(self, state: State, data: dict[str, Any], seat: int) -> None:
        self._player(state, seat)["finished"] = True
        self._advance(state, seat)

    @applies("autoblock_discarded")
    def _autoblock_discarded(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        market = list(state["block_market"])
        market[data["slot"]] = None
        state["block_market"] = market
        state["discard"] = state["discard"] + [data["card"]]

    @applies("autoblock_took_tile")
    def _autoblock_took_tile(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        market = list(state["neighbour_market"])
        market[data["slot"]] = None
        state["neighbour_market"] = market
        state["autoblock"] = {**state["autoblock"], "tiles": state["autoblock"]["tiles"] + [data["tile"]]}

    @applies("autoblock_token_returned")
    def _autoblock_token_returned(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state["autoblock"] = {
            **state["autoblock"],
            "tokens": [t for t in state["autoblock"]["tokens"] if t != data["token"]],
        }
        state["token_supply"] = [
            t for t in state["content"]["token_ids"] if t in state["token_supply"] or t == data["token"]
        ]

    @applies("autoblock_token_taken")
    def _autoblock_token_taken(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state["autoblock"] = {**state["autoblock"], "tokens": state["autoblock"]["tokens"] + [data["token"]]}
        state["token_supply"] = [t for t in state["token_supply"] if t != data["token"]]

    @applies("autoblock_turn")
    def _autoblock_turn_done(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state["autoblock"] = {**state["autoblock"], "turns": state["autoblock"]["turns"] + 1}
        self._advance(state, None)

    @applies("final_scoring")
    def _final_scoring(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        pass  # the result is announced; game_over ends the game

    @applies("game_over")
    def _game_over(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state["step"] = "over"
        state["active"] = None

    @staticmethod
    def _player(new: State, seat: int) -> dict[str, Any]:
        """A copy of ``seat``'s record, put in place in ``new`` (whose seat list is copied)."""
        seats = list(new["seats"])
        player = dict(seats[seat])
        seats[seat] = player
        new["seats"] = seats
        return player

    @staticmethod
    def _advance(new: State, after: int | None) -> None:
        """The next human of the round, else Autoblock's turn (R-0.1, AE-6), else the next round, else the
        final scoring (AE-10). Players who are finished (V-8) are skipped."""
        order = new["order"]
        start = order.index(after) + 1 if after is not None else len(order)
        while True:
            for seat in order[start:]:
                if not new["seats"][seat]["finished"]:
                    new["active"], new["step"] = seat, "place"
                    return
            ab = new["autoblock"]
            if ab is not None and ab["turns"] < new["round"]:
                new["active"], new["step"] = None, "autoblock"
                return
            if new["round"] >= new["rounds"]:
                new["active"], new["step"] = None, "scoring"
                return
            new["round"] += 1
            start = 0

    # -- what a seat may see (8.4) ----------------------------------------------------------------------

    @staticmethod
    def _hands_open(state: State) -> bool:
        o = state["options"]
        return o["open_hands"] or (state["mode"] == "COOP" and o["coop_open_hands"])

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        content = state["content"]
        o = state["options"]
        open_hands = self._hands_open(state)
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
                "note": (
                    "generated data, not the publisher's (P-10)"
                    if content["provenance"] in ("GENERATED", "TEST_FIXTURE")
                    else ""
                ),
            },
            "colours": [dict(c) for c in content["colours"]],
            "features": list(content["features"]),
            "round": state["round"],
            "rounds": state["rounds"],
            "start_seat": state["start_seat"],
            "order": list(state["order"]),
            "active": state["active"],
            "step": state["step"],
            "to_act": self.to_act(state),
            "draw": (
                None
                if state["step"] != "tokens"
                else {
                    "applies": self.draw_skip_reason(state, state["active"]) is None,
                    "skip_reason": self.draw_skip_reason(state, state["active"]),
                    "deck_allowed": self._deck_draw_allowed(state),
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
            "tile_features": {
                t: list(content["tiles"][t]) for t in state["neighbour_market"] if t is not None
            },
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
            "over": self.is_over(state),
            "result": result if self.is_over(state) else None,
        }

    def seen_by(self, state: State, seat: int) -> State:
        """The state as ``seat`` could know it (for the analysis of a finished match): the cards it cannot
        see (the other hands, unless hands are open, and the deck) pooled, sorted and dealt back in the
        same sizes (which hand or the deck held a card is what it does not know), the tile pile sorted. Two
        states that look the same to the seat give the same state."""
        hidden = [] if self._hands_open(state) else [i for i in range(len(state["seats"])) if i != seat]
        pool = iter(sorted([c for i in hidden for c in state["seats"][i]["hand"]] + list(state["deck"])))
        seats = list(state["seats"])
        for i in hidden:
            seats[i] = {**seats[i], "hand": [next(pool) for _ in seats[i]["hand"]]}
        return {**state, "seats": seats, "deck": list(pool), "tile_pile": sorted(state["tile_pile"])}

    def event_view(self, event: Event, seat: int | None) -> Event:
        """A deck draw shows its card to the drawer only (8.4); every other event is public."""
        data = event["data"]
        if event["type"] == "card_drawn" and data.get("private") and seat != event["seat"]:
            return {
                "type": event["type"],
                "seat": event["seat"],
                "data": {"source": data["source"], "private": True},
            }
        return event

    # -- the end ---------------------------------------------------------------------------------------

    def scores(self, state: State) -> dict[str, Any]:
        """Section 5 (see ``scoring``): ``scores`` and ``ranks`` per seat, ``outcome`` and ``breakdown``."""
        return scoring.result(state)
