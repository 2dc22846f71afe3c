"""Match options: the mode, the pack, Grand Autoblock and the spec's [DEF] config keys (7.11).

``OPTIONS_SCHEMA`` is what the server shows in the catalogue and checks at creation (unknown keys
are refused). The engine kit fills in the schema's defaults; ``complete`` then checks what a JSON
Schema cannot say (the player counts of each mode, options that only make sense together), fills in
the defaults that depend on them and returns the options the log records.

Keys of 7.11 with a single implemented reading are not options (they would have one allowed value):
``content_pack_id`` is ``pack``; ``room_feature_multiplicity`` SET, ``neighbour_scope`` ANY_GROUP,
``neighbour_exhausted`` LAPSE, ``empty_supply_draw`` SKIP, ``autoblock_empty_market`` SKIP,
``autoblock_seat`` END_OF_ROUND, ``bb_stuck_rule`` FINISHED and ``token_closes`` WHOLE_CHAIN are
fixed; ``token_values`` is fixed at [6, 8, 10] (the pack's tokens, check P-7).
"""

from __future__ import annotations

from typing import Any

from service.games.chock_a_block.content import DEFAULT_PACK, FEATURES
from service.games.kit import enum_option
from service.games.protocol import InvalidOptions

MODES = {
    # mode: (human counts, Autoblock plays) -- S-1
    "STANDARD": ((2, 3, 4, 5), False),
    "SOLO": ((1,), True),
    "AUTOBLOCK_EXTRA": ((2, 3, 4), True),
    "COOP": ((2, 3, 4), True),
}


def _bool(default: bool, description: str) -> dict[str, Any]:
    return {"type": "boolean", "default": default, "description": description}


def _int(
    default: int | None, minimum: int, maximum: int, description: str, nullable: bool = False
) -> dict[str, Any]:
    spec = {
        "type": ["integer", "null"] if nullable else "integer",
        "minimum": minimum,
        "maximum": maximum,
        "default": default,
        "description": description,
    }
    return spec


PROPERTIES: dict[str, Any] = {
    "mode": {
        "enum": list(MODES),
        "description": "S-1. STANDARD: 2-5 players (5 with the no-draw rule of the last turns, 6.1); "
        "SOLO: 1 player against Autoblock (6.3); AUTOBLOCK_EXTRA: 2-4 players and Autoblock as "
        "an extra competitor (6.4); COOP: 2-4 players together against Autoblock (6.5). "
        "Default: SOLO for 1 player, STANDARD otherwise.",
    },
    "building_rules": enum_option(
        ["GRID", "BUILDING_BLOCK"],
        "GRID",
        "S-2. GRID: the 4-high, 3-wide building; BUILDING_BLOCK: the variant of 6.2 "
        "(cards dropped at a room column, one shared room edge is enough).",
    ),
    "pack": {
        "type": "string",
        "minLength": 1,
        "maxLength": 100,
        "default": DEFAULT_PACK,
        "description": "The content pack (1.9, A-01): the name of a pack installed on the server. "
        "The default pack is generated, not the publisher's data.",
    },
    "grand_autoblock": _bool(
        False,
        "6.6, S-11: Grand Autoblock scores all four features (no excluded feature). "
        "Only with an Autoblock mode.",
    ),
    "excluded_feature": {
        "enum": [None, *FEATURES],
        "default": None,
        "description": "S-10: the feature normal Autoblock never scores, fixed at creation. "
        "If omitted (choice PLAYER), the start player chooses it with "
        "choose_excluded_feature before the first turn.",
    },
    "autoblock_excluded_feature_choice": enum_option(
        ["PLAYER", "RANDOM"],
        "PLAYER",
        "A-36: who fixes Autoblock's excluded feature: the players "
        "(excluded_feature, or the start player's first action) or the "
        "seeded random generator.",
    ),
    "start_seat": _int(
        None, 0, 4, "S-9, A-09: the start player's seat; drawn from the seed if omitted.", nullable=True
    ),
    # scoring (7.8)
    "open_chain_scope": enum_option(
        ["PER_CHAIN", "PER_FEATURE"],
        "PER_CHAIN",
        "A-32 (E-3): PER_CHAIN, every open chain of open_chain_min_size or more icons "
        "scores open_chain_points (KO text, and the 36-point example); PER_FEATURE, each "
        "feature with such a chain scores once (JA text).",
    ),
    "open_chain_points": _int(4, 0, 100, "A-32: points for an open chain (KO: 4; JA text: 2)."),
    "open_chain_min_size": _int(4, 1, 48, "A-32: the smallest open chain that scores."),
    "tie_break": enum_option(
        ["NEIGHBOURS_THEN_SHARED", "SHARED"],
        "NEIGHBOURS_THEN_SHARED",
        "A-33, E-7: ties go to the most neighbour tiles, then are shared; or are simply shared.",
    ),
    "leftover_card_points": _int(0, -10, 10, "A-34: points per card left in hand at the end."),
    # Autoblock (7.9)
    "autoblock_token_rule": enum_option(
        ["GREEDY_DESCENDING", "MAX_SUM"],
        "GREEDY_DESCENDING",
        "A-35, AE-8: how Autoblock picks tokens worth at most 2 points per icon.",
    ),
    "autoblock_tie_rule": enum_option(
        ["HUMAN_MUST_EXCEED", "NEIGHBOUR_TIEBREAK"],
        "HUMAN_MUST_EXCEED",
        "A-38, E-8: a human tied with Autoblock loses to it; or ties are broken by "
        "neighbours, Autoblock counting the tiles it took (SOLO and AUTOBLOCK_EXTRA).",
    ),
    "coop_win_condition": enum_option(
        ["ALL_EXCEED", "ANY_EXCEEDS", "SUM_EXCEEDS"],
        "ALL_EXCEED",
        "A-39, V-20: in COOP the players win if every one / any one / their sum "
        "scores strictly more than Autoblock.",
    ),
    "five_player_rule_counts_autoblock": _bool(
        False, "A-40: with 4 players and Autoblock, apply the 5-player draw rule (6.1)."
    ),
    "solo_deck_draw_allowed": _bool(True, "A-41, V-11: in SOLO the player may draw the deck's top card."),
    "column_markets_with_autoblock": _bool(
        True,
        "A-42, V-16: column markets in AUTOBLOCK_EXTRA and COOP (SOLO "
        "always uses them). Without: row markets, Autoblock takes the "
        "last occupied slot.",
    ),
    "autoblock_points_per_icon": _int(
        2, 0, 20, "A-44, AE-8: Autoblock's points per feature icon on its tiles."
    ),
    # setup and drawing (7.3, 7.7)
    "market_size": _int(4, 1, 8, "A-08, S-6: cards in the block market (KO also says 5 once)."),
    "neighbour_market_size": _int(5, 1, 8, "S-7: tiles in the neighbour market."),
    "draw_sources": enum_option(
        ["MARKET_OR_DECK", "MARKET_ONLY"], "MARKET_OR_DECK", "A-27, R-4.2: where a player may draw from."
    ),
    "last_draw_placement": _int(
        None,
        0,
        30,
        "A-28, R-4.1: the last placement after which a player of a 1-4 "
        "player game draws. Default: cards per player - 1 (11).",
        nullable=True,
    ),
    "five_player_last_draw_placement": _int(
        None, 0, 30, "A-29, V-1: the same with 5 players. Default: cards per player - 2 (10).", nullable=True
    ),
    "row_market_slide": _bool(
        False,
        "A-31: in row markets, slide the cards down and refill the first slot "
        "(as the column markets do) instead of refilling the emptied slot.",
    ),
    # placement (7.4)
    "grid_max_columns": _int(
        3, 1, 5, "A-11, 1.6.2: building width in cards. The game lasts columns x rows turns."
    ),
    "grid_max_rows": _int(4, 1, 6, "A-11, 1.6.2: building height in cards."),
    "strict_row_check": _bool(
        True,
        "A-12, R-1.2: a place_card row that is not the column's height is refused "
        "(false: the row is ignored).",
    ),
    "bb_max_width_rooms": _int(
        None, 2, 100, "A-13, V-5: BUILDING_BLOCK width limit in rooms (none by default).", nullable=True
    ),
    "bb_max_height_rooms": _int(
        None, 2, 100, "A-13, V-5: BUILDING_BLOCK height limit in rooms (none by default).", nullable=True
    ),
    # neighbours (7.5)
    "neighbour_mandatory": _bool(
        True,
        "A-15, R-2.3: a neighbour must move in while a group qualifies "
        "(false: the player may stop with end_neighbours).",
    ),
    "neighbour_group_min": _int(
        4, 1, 48, "A-18, 1.6.5: the smallest colour group that calls for a neighbour."
    ),
    "neighbour_tile_source": enum_option(
        ["MARKET", "MARKET_OR_PILE_TOP"],
        "MARKET",
        "A-19: where a neighbour tile comes from (the pile top is placed unseen).",
    ),
    "tiles_count_for_chains": _bool(True, "A-20, 1.4.3: the icons of a placed tile join feature chains."),
    "group_connectivity": enum_option(["N4", "N8"], "N4", "A-21: colour groups connect through edges [RB]."),
    "chain_connectivity": enum_option(
        ["N8", "N4"], "N8", "A-21: chains connect through edges and corners [RB]."
    ),
    # tokens (7.6)
    "closed_chain_absorbs_new_icons": _bool(
        False, "A-23, R-3.7: open icons connected to a closed chain are absorbed by it and can never score."
    ),
    "token_claim_window": enum_option(
        ["AFTER_NEIGHBOURS", "ANY_TIME_IN_TURN"],
        "AFTER_NEIGHBOURS",
        "A-24, R-3.11: tokens are claimed after the neighbours, or at any time in one's "
        "turn after the placement.",
    ),
    "token_claim_requires_growth": _bool(
        False, "A-25, R-3.4: a claimed chain must contain a room placed or covered this turn."
    ),
    "auto_advance": _bool(
        True, "R-4.5: end a turn by itself when no token can be claimed and no draw applies."
    ),
    "open_hands": _bool(False, "8.4: every hand is visible to everyone."),
    "coop_open_hands": _bool(False, "V-21: hands are visible to everyone in COOP."),
    # pack checks (1.9.2)
    "pack_strict_counts": _bool(
        True, "P-6, P-7: the pack must hold exactly 64 cards, 40 tiles and 12 tokens."
    ),
    "pack_require_features_on_occupied": _bool(True, "A-06, P-4: an occupied room shows a feature."),
    "pack_tile_min_features": _int(1, 0, 4, "A-04, P-12: the fewest icons a tile may show."),
    "card_back_mode": enum_option(
        ["MIRROR", "PACK_BACK"],
        "MIRROR",
        "A-07, 1.3.3: card backs are the mirror of the fronts, or given by the pack.",
    ),
}

OPTIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": PROPERTIES,
}


def complete(resolved: dict[str, Any], players: int, options: dict[str, Any]) -> dict[str, Any]:
    """``resolved`` (the schema's defaults and the client's ``options``) checked for what a JSON
    Schema cannot say, with the defaults that depend on others; or InvalidOptions naming the field."""
    # The server and the schema (additionalProperties) refuse these already; direct engine callers
    # (tests, benchmarks) get the same refusal here.
    unknown = sorted(set(options) - set(PROPERTIES))
    if unknown:
        raise InvalidOptions(
            f"options.{unknown[0]}", f"unknown option; Chock-a-Block has {sorted(PROPERTIES)}"
        )
    # In the schema's order, as logs have always recorded them; ``mode`` has no schema default (it
    # depends on the player count), so it starts as None like the other unset options.
    resolved = {**dict.fromkeys(PROPERTIES), **resolved}
    if resolved["mode"] is None:
        resolved["mode"] = "SOLO" if players == 1 else "STANDARD"
    mode = resolved["mode"]
    if mode not in MODES:
        raise InvalidOptions("options.mode", f"unknown mode {mode!r}; modes are {list(MODES)}")
    counts, autoblock = MODES[mode]
    if players not in counts:
        raise InvalidOptions(
            "players", f"{mode} is for {', '.join(map(str, counts))} player(s), not {players} (S-1)"
        )
    if not autoblock:
        for name in ("grand_autoblock", "excluded_feature"):
            if options.get(name):
                raise InvalidOptions(f"options.{name}", f"{mode} has no Autoblock")
    if resolved["excluded_feature"] is not None:
        if resolved["grand_autoblock"]:
            raise InvalidOptions("options.excluded_feature", "Grand Autoblock excludes no feature (S-11)")
        if resolved["autoblock_excluded_feature_choice"] == "RANDOM":
            raise InvalidOptions(
                "options.excluded_feature",
                "the excluded feature is drawn at random with autoblock_excluded_feature_choice RANDOM",
            )
    if resolved["start_seat"] is not None and resolved["start_seat"] >= players:
        raise InvalidOptions("options.start_seat", f"there are only {players} seats")
    if resolved["building_rules"] == "GRID":
        for name in ("bb_max_width_rooms", "bb_max_height_rooms"):
            if resolved[name] is not None:
                raise InvalidOptions(f"options.{name}", "only with building_rules BUILDING_BLOCK")
    cards = resolved["grid_max_columns"] * resolved["grid_max_rows"]
    if resolved["last_draw_placement"] is None:
        resolved["last_draw_placement"] = cards - 1
    if resolved["five_player_last_draw_placement"] is None:
        resolved["five_player_last_draw_placement"] = cards - 2
    return resolved
