"""Chock-a-Block's setup (section 2): the deal, the markets, the start seat and Autoblock's record.

Every chance of the game is drawn here (``draws``), each from the match seed with a stream of its own
(deck, tiles, start seat, excluded feature: ``drawn``), so a seed always deals the same game; ``deal``
sets the game up with what was drawn, which lets the AI faces draw one card at a time.
"""

from __future__ import annotations

import random
from typing import Any

from service.games.chock_a_block import content as pack_data
from service.games.chock_a_block import options as opts
from service.games.protocol import Draw, InvalidOptions, State


def set_up(options: dict[str, Any], players: int, seed: str, content: Any = None) -> State:
    """The state before the first turn (section 2), dealt from ``seed``; ``content`` a pack or None."""
    content = _checked(options, players, content)
    return deal(options, players, content, drawn(options, players, content, seed))


def _checked(options: dict[str, Any], players: int, content: Any) -> Any:
    """The pack to deal (the default one for None), checked against the options and the seats."""
    if content is None:
        content = pack_data.default_content()
    elif not pack_data.is_content(content):
        content = pack_data.load_pack(content, options)
    pack_data.check_for_options(content, options)
    if len(content["card_ids"]) < 2 * players + 1:
        raise InvalidOptions("options.pack", f"pack {content['pack_id']!r} has too few cards to deal")
    return content


def draws(options: dict[str, Any], players: int, content: Any = None) -> list[Draw]:
    """The setup's chance: the deck's order (S-4), the tile pile's (S-7), the start seat when no option
    names it (S-9) and Autoblock's excluded feature when it is drawn (S-10)."""
    content = _checked(options, players, content)
    out = [Draw("deck", tuple(content["card_ids"]), True), Draw("tiles", tuple(content["tile_ids"]), True)]
    if options["mode"] != "SOLO" and options["start_seat"] is None:
        out.append(Draw("start", tuple(range(players)), False))
    if (
        opts.MODES[options["mode"]][1]
        and not options["grand_autoblock"]
        and options["autoblock_excluded_feature_choice"] == "RANDOM"
    ):
        out.append(Draw("excluded", tuple(content["features"]), False))
    return out


def drawn(options: dict[str, Any], players: int, content: Any, seed: str) -> dict[str, Any]:
    """What ``seed`` draws: each draw from a generator of its own (``<seed>:chock-a-block:<name>``)."""
    result: dict[str, Any] = {}
    for draw in draws(options, players, content):
        rng = random.Random(f"{seed}:chock-a-block:{draw.name}")
        if draw.shuffle:
            items = list(draw.items)
            rng.shuffle(items)
            result[draw.name] = items
        else:
            result[draw.name] = rng.choice(draw.items)
    return result


def deal(options: dict[str, Any], players: int, content: Any, drawn: dict[str, Any]) -> State:
    """The state before the first turn (section 2), set up with what was drawn (``draws``)."""
    content = _checked(options, players, content)
    mode = options["mode"]
    with_autoblock = opts.MODES[mode][1]
    deck = list(drawn["deck"])  # S-4
    hands = []
    for _ in range(players):  # S-5
        hands.append(deck[:2])
        deck = deck[2:]
    market_size = options["market_size"]
    block_market = deck[:market_size] + [None] * max(0, market_size - len(deck))  # S-6
    deck = deck[market_size:]
    tiles = list(drawn["tiles"])  # S-7
    size = options["neighbour_market_size"]
    neighbour_market = tiles[:size] + [None] * max(0, size - len(tiles))
    tiles = tiles[size:]

    if mode == "SOLO":
        start = 0
    elif options["start_seat"] is not None:
        start = options["start_seat"]
    else:
        start = drawn["start"]  # S-9
    order = [(start + i) % players for i in range(players)]

    ab: dict[str, Any] | None = None  # the Autoblock's own state, in a match with it
    step = "place"
    if with_autoblock:
        excluded = None
        if not options["grand_autoblock"]:
            excluded = options["excluded_feature"]
            if options["autoblock_excluded_feature_choice"] == "RANDOM":
                excluded = drawn["excluded"]
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
