"""Match options: the mode, the chapter, the pack, and every [DEF] and configurable reading of spec §7.

Keys are the spec's own config keys (``DICE_REROLL_POLICY``...), so a rules question and the option
that answers it have one name. ``mode``, ``chapter`` and ``animal_sets`` are setup choices (§2, S-10),
not ambiguities. ``complete`` checks what a JSON Schema cannot say (player counts per mode) and fills
in the defaults that depend on them.
"""

from __future__ import annotations

from typing import Any

from service.games.kit import enum_option
from service.games.protocol import InvalidOptions

ANIMALS = ("HORSE", "TIGER", "SHEEP", "DRAGON")
CLEANUP_STEPS = ("MARKET_DECAY", "REFILL", "SPOILAGE", "ONGOING_EFFECTS", "DISCARD_OBJECTIVES")


def _bool(default: bool | None, description: str) -> dict[str, Any]:
    return {
        "type": "boolean" if default is not None else ["boolean", "null"],
        "default": default,
        "description": description,
    }


def _int(
    default: int | None, minimum: int, maximum: int, description: str, nullable: bool = False
) -> dict[str, Any]:
    return {
        "type": ["integer", "null"] if nullable else "integer",
        "minimum": minimum,
        "maximum": maximum,
        "default": default,
        "description": description,
    }


PROPERTIES: dict[str, Any] = {
    "mode": {
        "enum": ["SINGLE", "CAMPAIGN"],
        "description": "S-1. SINGLE: a stand-alone game, 2-4 players (1 with ALLOW_SOLO_SINGLE); CAMPAIGN: "
        "chapter 1 of the campaign, 1-4 players, with shared emergency plans (§6). Default: "
        "SINGLE for 2-4 players, CAMPAIGN (solo, §6.4) for 1.",
    },
    "chapter": {
        "enum": [1],
        "default": 1,
        "description": "C-1, C-12: the campaign chapter. Only chapter 1 has rules "
        "in the source (chapters 2-5 are content data, D-14).",
    },
    "CONTENT_PACK_ID": {
        "type": "string",
        "minLength": 1,
        "maxLength": 100,
        "default": "bhk-default-generated",
        "description": "A-01: the content pack (§1.10), by name. The default pack is generated, "
        "not the publisher's data.",
    },
    "animal_sets": {
        "type": ["array", "null"],
        "items": {"enum": list(ANIMALS)},
        "minItems": 1,
        "maxItems": 4,
        "uniqueItems": True,
        "default": None,
        "description": "S-10: each seat's player-card set, in seat order. Default: HORSE, TIGER, SHEEP, "
        "DRAGON.",
    },
    "START_SEAT": _int(
        None, 0, 3, "A-53, S-11: the start player. Default: drawn from the match seed.", nullable=True
    ),
    "CLEANUP_STEPS": {
        "type": "array",
        "items": {"enum": list(CLEANUP_STEPS)},
        "uniqueItems": True,
        "default": list(CLEANUP_STEPS),
        "description": "A-02: the reconstructed Phase 6 steps that run (R-6.1 to R-6.5).",
    },
    "SCORING_TABLE": {
        "type": ["array", "null"],
        "items": {"type": "integer", "minimum": 0, "maximum": 1000},
        "minItems": 1,
        "maxItems": 50,
        "default": None,
        "description": "A-07: the scoring table (VP for 1, 2, 3... locations or face-up tiles). "
        "Default: the pack's.",
    },
    "SCORING_TABLE_OVERFLOW": enum_option(
        ["CLAMP"], "CLAMP", "A-08: a count beyond the table scores its last entry."
    ),
    "STARTING_VOLUNTEERS_PER_PLAYER": _int(2, 0, 3, "A-09, S-8: starting volunteers dealt to each player."),
    "ALLOW_SOLO_SINGLE": _bool(
        False, "A-40: allow a 1-player SINGLE game (reserve 33, no chapter conditions)."
    ),
    "DICE_REROLL_POLICY": enum_option(
        ["REROLL_ALL_MATCHING", "KEEP_ONE_OF_EACH"],
        "REROLL_ALL_MATCHING",
        "A-11, R-1.3: on duplicate faces reroll every matching die, or keep one die of each duplicate group.",
    ),
    "SHIFT_ONTO_OTHER_DIE": _bool(
        True, "A-12, R-2.4(d): a volunteer may target a sector holding another die."
    ),
    "FREE_ACTIONS_WINDOW": enum_option(
        ["OWN_TURN_OR_PENDING"],
        "OWN_TURN_OR_PENDING",
        "A-36, R-0.4: free actions while the seat is to act (its turn, a pending decision, or planning).",
    ),
    "CARD_RESOLUTION": enum_option(
        ["STRICT", "INTERLEAVED"],
        "STRICT",
        "A-43, R-2.2: STRICT ends a card's resolution when the next card is revealed; "
        "INTERLEAVED keeps every card revealed this turn usable until END_TURN.",
    ),
    "PLAN_REVISABLE": _bool(True, "A-51, R-1.7: a plan may be resubmitted until every plan is in."),
    "SKIP_RULE": enum_option(
        ["ANY_INTERMEDIATE", "OTHER_COLOUR_ONLY"],
        "ANY_INTERMEDIATE",
        "A-13, R-3.12: any intermediate location may be passed over with transport, or only "
        "locations of another colour than the required one.",
    ),
    "PLACE_CUBE_DECLINABLE_WHEN_COSTLY": _bool(
        False, "A-15: a cube placement that would cost transport or VP may be declined."
    ),
    "SLOT_REQ_MODE": enum_option(
        ["CONTAINS", "EXACT"],
        "CONTAINS",
        "A-17, R-3.4: a slot requirement holds when one slot contains the colours, or holds exactly them.",
    ),
    "PATROL_REQ_TILES": enum_option(
        ["ANY_OWNED", "FACE_UP_ONLY"],
        "ANY_OWNED",
        "A-18: which owned patrol tiles count for a PATROL_TILES requirement.",
    ),
    "PATROL_REQ_CONSUMES": _bool(
        False, "A-18: tiles that meet a PATROL_TILES requirement go back to the box."
    ),
    "CRISIS_LINK_LETTER_MODE": enum_option(
        ["CARD", "ANY"], "CARD", "A-19, R-3.13: link the card's letter, or any letter pair."
    ),
    "CLOSE_OUT_TIMING": enum_option(
        ["IMMEDIATE_ONLY", "ANY_TIME_IN_TURN"],
        "IMMEDIATE_ONLY",
        "A-20, R-3.7: when a partly completed plan may be closed out.",
    ),
    "PASSIVE_ICON_SOURCES": enum_option(
        ["ALL_CHECK_AREA", "CRISIS_PLANS_ONLY"],
        "ALL_CHECK_AREA",
        "A-22, R-4.5: which check-mark-area cards add their search icons.",
    ),
    "PATROL_DECLINE_ENDS_TURN": _bool(
        True,
        "A-23, R-4.3: a decline ends the patrol (otherwise the player may "
        "choose another district; the declined one stays chosen).",
    ),
    "EXPLORATION_TOTAL_MODE": enum_option(
        ["FULL", "PARTY_ONLY"],
        "FULL",
        "A-24(i): the exploration challenge's 4 icons count the full total, or the party's icons only.",
    ),
    "EXPLORATION_INJURY": _bool(True, "A-24(iii): an exploration challenge injures a party card too."),
    "FOOD_WATER_CLEANUP": enum_option(
        ["DISCARD_ALL", "SELL_1HKD_EACH", "NONE"], "DISCARD_ALL", "A-03, R-6.3: food and water in Phase 6."
    ),
    "MARKET_DECAY_MODE": enum_option(
        ["RIGHTMOST_OF_EACH_ROW", "THIRD_COLUMN_ONLY"],
        "RIGHTMOST_OF_EACH_ROW",
        "A-04, R-6.1: which market cards decay.",
    ),
    "MARKET_SLIDE": _bool(False, "A-05, R-5.5: cards slide left after a purchase."),
    "EMERGENCY_PLAN_DISCARDABLE": _bool(
        False, "A-06, R-6.5: the emergency plan may be discarded in Phase 6."
    ),
    "AUTO_PASS": _bool(True, "A-29, R-5.2: a player who cannot buy passes automatically in Phase 5."),
    "P6_P7_SIMULTANEOUS": _bool(
        True,
        "A-47: Phase 6 discards and Phase 7 house choices are submitted by every "
        "seat at once and shown when all are in (otherwise in turn order, public).",
    ),
    "REFILL_ALLOW_EMPTY": _bool(False, "A-32, R-8.3: a refill may take an empty slot (0 cards)."),
    "LEADER_SHARES_PHASE8_LIMIT": _bool(
        False, "A-34: a leader activation uses up that action's Phase 8 use."
    ),
    "END_TRIGGER": enum_option(
        ["DECK_REACHES_ZERO", "DRAW_FROM_EMPTY"],
        "DECK_REACHES_ZERO",
        "A-30, E-1: the end triggers when the objective deck reaches 0 after a draw, or when "
        "a draw is tried from the empty deck.",
    ),
    "CUBES_LIMITED": _bool(True, "A-37: 25 cubes per player; gains are cut to the supply."),
    "TRANSPORT_POOL_LIMITED": _bool(False, "A-37: 24 transport tokens in all."),
    "GPS_POOL_LIMITED": _bool(False, "A-37: 12 GPS tokens in all."),
    "VIRTUAL_MARKERS": _bool(
        True,
        "A-38: a completion is recorded without a marker cube when the supply is empty "
        "(otherwise such a completion is refused).",
    ),
    "SELL_BATTERIES_AT_END": _bool(True, "A-39, E-5(A): batteries are sold with the other resources."),
    "SHARED_PLAN_BONUS": _bool(
        True, "A-41, C-8: a shared plan's bonus goes to each player who completes all of its objectives."
    ),
    "OWNED_FACEDOWN_TILE_VISIBILITY": enum_option(
        ["PUBLIC", "OWNER_ONLY"], "PUBLIC", "§8.4: who sees the front of a player's face-down tiles."
    ),
    "SOLO_MARKET_DECAY": _bool(
        None,
        "C-15(a), R-5.8 [EXT]: with 1 player, a Phase 5 without a purchase removes "
        "the rightmost card of the top row. Default: on in campaign solo.",
    ),
    "SOLO_FAIL_BELOW": _int(2, 0, 3, "C-15(b) [EXT]: a solo chapter fails below this many campaign points."),
    "RETRY_BONUS_HKD": _int(
        2, 0, 20, "C-15(c) [EXT]: extra starting HK$ per earlier attempt of the chapter."
    ),
    "CAMPAIGN_ATTEMPT": _int(1, 1, 20, "C-15(c) [EXT]: which attempt at this chapter this is (solo)."),
    "CAMPAIGN_MIN_VP": _int(
        None,
        -1000,
        1000,
        "C-11(ii), A-42: the chapter 1 VP threshold N (missing from the "
        "source). Default: unknown, reported as such.",
        nullable=True,
    ),
    "CAMPAIGN_FLOWER_THRESHOLDS": {
        "type": ["array", "null"],
        "items": {"type": "integer"},
        "maxItems": 3,
        "default": None,
        "description": "C-3, C-15 [EXT]: VP thresholds of a chapter's 1, 2 and 3 "
        "campaign points (flowers). Default: unknown.",
    },
}

OPTIONS_SCHEMA: dict[str, Any] = {"type": "object", "additionalProperties": False, "properties": PROPERTIES}


def complete(resolved: dict[str, Any], players: int, given: dict[str, Any]) -> dict[str, Any]:
    out = dict(resolved)
    if "mode" not in given:
        out["mode"] = "CAMPAIGN" if players == 1 else "SINGLE"
    if out["mode"] == "SINGLE" and players == 1 and not out["ALLOW_SOLO_SINGLE"]:
        raise InvalidOptions(
            "options.mode",
            "a SINGLE game needs 2-4 players (S-2, A-40); use CAMPAIGN for solo, or set ALLOW_SOLO_SINGLE",
        )
    animals = out["animal_sets"] or list(ANIMALS[:players])
    if len(animals) != players:
        raise InvalidOptions("options.animal_sets", f"name one animal set per seat ({players})")
    out["animal_sets"] = list(animals)
    if out["START_SEAT"] is not None and out["START_SEAT"] >= players:
        raise InvalidOptions("options.START_SEAT", f"no seat {out['START_SEAT']} among {players} players")
    if out["STARTING_VOLUNTEERS_PER_PLAYER"] * players > 8:
        raise InvalidOptions(
            "options.STARTING_VOLUNTEERS_PER_PLAYER", "the pool holds 8 starting volunteers (A-09)"
        )
    if out["SOLO_MARKET_DECAY"] is None:
        out["SOLO_MARKET_DECAY"] = players == 1 and out["mode"] == "CAMPAIGN"
    if out["CAMPAIGN_FLOWER_THRESHOLDS"] is not None and out["CAMPAIGN_FLOWER_THRESHOLDS"] != sorted(
        out["CAMPAIGN_FLOWER_THRESHOLDS"]
    ):
        raise InvalidOptions("options.CAMPAIGN_FLOWER_THRESHOLDS", "thresholds go from the lowest up")
    return out
