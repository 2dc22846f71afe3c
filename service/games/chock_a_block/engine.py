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

from typing import Any

from service.games.chock_a_block import (
    building,
    choices,
    markets,
    scoring,
    seat_view,
    setup,
    steps,
)
from service.games.chock_a_block import (
    content as pack_data,
)
from service.games.chock_a_block import (
    options as opts,
)
from service.games.chock_a_block.actions import PARAMETERS, ChockABlockAction
from service.games.chock_a_block.sentences import sentence
from service.games.chock_a_block.svg import render_svg
from service.games.chock_a_block.words import WORDS
from service.games.kit import Analyst, Engine, Turn, applies
from service.games.protocol import (
    Action,
    Event,
    GameInfo,
    Packs,
    Refusal,
    SetupChance,
    State,
    turn_refusals,
)
from service.games.texts import N_

HUMAN_STEPS = ("place", "neighbours", "tokens")


class ChockABlock(Engine):
    analyst = Analyst()  # one step: the points each choice leaves the seat with
    words = WORDS
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
    action_parameters = PARAMETERS
    packs = Packs(
        load=pack_data.load_pack,
        default=pack_data.DEFAULT_PACK,
        folder=pack_data.PACKS_DIR,
        checked_by=tuple(pack_data.CHECK_DEFAULTS),
    )
    svg = staticmethod(render_svg)
    setup_chance = SetupChance(draws=setup.draws, drawn=setup.drawn, deal=setup.deal)  # all chance is setup's
    turn_rule = "R-0.4"
    refusals = {
        **turn_refusals("R-0.4", "E-1"),
        "unknown_action": Refusal("§3.5", N_("no such action type")),
        "wrong_step": Refusal("R-0.2, R-2.9", N_("the action belongs to another step of the turn")),
        "missing_parameter": Refusal(
            "§3.5", N_("the action lacks an integer it needs (a column, room, slot)")
        ),
        "unknown_feature": Refusal("S-10", N_("the excluded feature is not one of the game's features")),
        "not_in_hand": Refusal("R-1.1", N_("the card is not in the player's hand")),
        "unknown_face": Refusal("§1.3", N_("a card is placed FRONT or BACK up")),
        "misaligned": Refusal(
            "R-1.4, V-5", N_("a column for GRID buildings, a room_x for BUILDING_BLOCK ones")
        ),
        "no_floor_below": Refusal("R-1.2, V-5", N_("the stated row is not the one the card lands in")),
        "first_card_column": Refusal("R-1.4a, V-5", N_("a player's first card goes in column 0 (room_x 0)")),
        "height_limit": Refusal("R-1.4b, V-5", N_("the card would make the building too high")),
        "not_adjacent": Refusal("R-1.3, R-1.4c", N_("the card would not be next to the building")),
        "width_limit": Refusal("R-1.4c", N_("the card would make the building too wide")),
        "tile_not_in_market": Refusal(
            "R-2.3, A-19",
            N_("the tile is not in the neighbour market (or the pile top was named or is not allowed)"),
        ),
        "pile_empty": Refusal("A-19", N_("the tile pile is empty")),
        "unknown_source": Refusal(
            "R-2.3, R-4.2", N_("a neighbour comes from MARKET or PILE, a card from MARKET or DECK")
        ),
        "not_vacant": Refusal("R-2.3", N_("the room is not a vacant room of the player's building")),
        "group_not_qualifying": Refusal("R-2.3", N_("the room is not in a qualifying same-colour group")),
        "neighbour_mandatory": Refusal("R-2.3", N_("a neighbour must move in while a group qualifies")),
        "token_not_in_supply": Refusal("R-3.3a", N_("the token is not in the supply")),
        "no_open_icon": Refusal("R-3.3b, R-3.6", N_("the room shows no open icon of the token's feature")),
        "chain_too_short": Refusal("R-3.3c", N_("the open chain is shorter than the token's value")),
        "chain_not_grown": Refusal("A-25", N_("the chain did not grow this turn")),
        "no_draw": Refusal("R-4.1", N_("the draw does not apply this turn")),
        "slot_empty": Refusal("R-4.2", N_("the market slot holds no card")),
        "deck_draw_not_allowed": Refusal("A-27, A-41", N_("this match allows market draws only")),
        "deck_empty": Refusal("R-4.2", N_("the deck is empty")),
        "must_draw": Refusal("R-4.4", N_("the draw applies: the turn ends by drawing")),
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
        return setup.set_up(options, players, seed, content)

    # -- who acts ----------------------------------------------------------------------------------

    def to_act(self, state: State) -> list[int]:
        if state["step"] in HUMAN_STEPS or state["step"] == "choose_feature":
            return [state["active"]]
        return []

    def is_over(self, state: State) -> bool:
        return state["step"] == "over"

    # -- legal actions (section 8.2) and play: actions to events -------------------------------------

    def _legal_actions(self, state: State, seat: int) -> list[Action]:
        return choices.legal_actions(state, seat)

    def _play(self, turn: Turn, seat: int, action: Action) -> None:
        steps.take(turn, seat, action)

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

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return seat_view.view(state, seat, self.to_act(state), self.is_over(state))

    def seen_by(self, state: State, seat: int) -> State:
        """The state as ``seat`` could know it (for the analysis of a finished match): the cards it cannot
        see (the other hands, unless hands are open, and the deck) pooled, sorted and dealt back in the
        same sizes (which hand or the deck held a card is what it does not know), the tile pile sorted. Two
        states that look the same to the seat give the same state."""
        hidden = [] if seat_view.hands_open(state) else [i for i in range(len(state["seats"])) if i != seat]
        pool = iter(sorted([c for i in hidden for c in state["seats"][i]["hand"]] + list(state["deck"])))
        seats = list(state["seats"])
        for i in hidden:
            seats[i] = {**seats[i], "hand": [next(pool) for _ in seats[i]["hand"]]}
        return {**state, "seats": seats, "deck": list(pool), "tile_pile": sorted(state["tile_pile"])}

    def describe(self, event: Event, state: State | None = None) -> str:
        """The event as a short sentence in the rulebooks' words (``sentences``)."""
        return sentence(event, state) or super().describe(event, state)

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
