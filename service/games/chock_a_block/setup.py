"""Chock-a-Block's setup (section 2): the deal, the markets, the start seat and Autoblock's record.

Every shuffle and draw of chance is seeded from the match seed, one stream per purpose (deck, tiles,
start seat, excluded feature), so a seed always deals the same game.
"""

from __future__ import annotations

import random
from typing import Any

from service.games.chock_a_block import content as pack_data
from service.games.chock_a_block import options as opts
from service.games.protocol import InvalidOptions, State


def set_up(options: dict[str, Any], players: int, seed: str, content: Any = None) -> State:
    """The state before the first turn (section 2), dealt from ``seed``; ``content`` a pack or None."""
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
