"""Chock-a-Block content packs: the 64 cards, 40 neighbour tiles and 12 score tokens as data.

Spec section 1.9. A pack is a JSON document that must validate against ``pack_schema.json`` (the
schema of spec 1.9.1, kept out of ``packs/`` because every ``*.json`` there is an installable pack)
and pass the semantic checks of 1.9.2 (P-1 to P-12). ``load_pack`` returns the pack in the form the
engine plays with (``Content``, plain JSON data, recorded as is in ``match_created``):

    {"pack_id", "version", "provenance", "provenance_note", "colours": [{"id", "display_name", "rgb"}],
     "features": [...],
     "card_ids": [...], "cards": {id: {"FRONT": face, "BACK": face, "back_given": bool}},
     "tile_ids": [...], "tiles": {id: [feature, ...]},
     "token_ids": [...], "tokens": {id: {"feature", "value"}},
     "warnings": [...]}

where ``face = {"TL"|"TR"|"BL"|"BR": {"colour", "vacant", "features"}}``. Without an explicit back
the engine derives it as the left-right mirror of the front (1.3.3, ``card_back_mode`` MIRROR).

Every error is an ``InvalidPack`` whose ``path`` names the item by index and id and the field, for
example ``cards[12] (C13).front.TL.colour``.

Some checks depend on match options (``pack_strict_counts``, ``pack_require_features_on_occupied``,
``pack_tile_min_features``, ``card_back_mode``). ``load_pack(data, options)`` applies them with the
options given, or with the spec's defaults when there are none (the server loads a pack before it
sets a match up); ``check_for_options`` applies them again to a loaded pack at setup.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, NoReturn

import jsonschema

from service.games.kit import pack_path, shipped_pack
from service.games.protocol import InvalidOptions, InvalidPack

HERE = Path(__file__).resolve().parent
SCHEMA_PATH = HERE / "pack_schema.json"
PACKS_DIR = HERE / "packs"
DEFAULT_PACK = "cab-default-generated"

FEATURES = ("CAT", "UNDERWEAR", "FLOWER", "BIRD")  # 1.2.1
CORNERS = ("TL", "TR", "BL", "BR")
MIRROR = {"TL": "TR", "TR": "TL", "BL": "BR", "BR": "BL"}  # 1.3.3: back.TL = front.TR, ...
TOKEN_VALUES = (6, 8, 10)  # 1.5.1, A-26
STRICT_COUNTS = {"cards": 64, "neighbourTiles": 40, "scoreTokens": 12}  # P-6

# The options that change what a valid pack is, with the spec's defaults (7.11).
CHECK_DEFAULTS = {
    "pack_strict_counts": True,
    "pack_require_features_on_occupied": True,
    "pack_tile_min_features": 1,
    "card_back_mode": "MIRROR",
}


@functools.cache
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema())


def mirror(face: dict[str, Any]) -> dict[str, Any]:
    return {corner: face[MIRROR[corner]] for corner in CORNERS}


def _room(room: dict[str, Any]) -> dict[str, Any]:
    return {"colour": room["colour"], "vacant": room["vacant"], "features": list(room["features"])}


def _face(face: dict[str, Any]) -> dict[str, Any]:
    return {corner: _room(face[corner]) for corner in CORNERS}


def load_pack(data: Any, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Check ``data`` (a parsed pack document) and return it as ``Content``; InvalidPack otherwise."""
    checks = {**CHECK_DEFAULTS, **{k: v for k, v in (options or {}).items() if k in CHECK_DEFAULTS}}
    errors = sorted(
        _validator().iter_errors(data), key=lambda e: ([str(p) for p in e.absolute_path], e.message)
    )
    if errors:
        error = errors[0]
        raise InvalidPack(pack_path(data, list(error.absolute_path)), error.message)

    warnings: list[str] = []
    # P-1: unique ids
    for section in ("cards", "neighbourTiles", "scoreTokens"):
        seen: dict[str, int] = {}
        for i, item in enumerate(data[section]):
            if item["id"] in seen:
                raise InvalidPack(
                    f"{section}[{i}] ({item['id']}).id",
                    f"duplicate id: {section}[{seen[item['id']]}] has it too (P-1)",
                )
            seen[item["id"]] = i
    # P-5: the four features
    if sorted(data["features"]) != sorted(FEATURES):
        raise InvalidPack("features", f"must be exactly {list(FEATURES)} in any order (P-5)")
    colours = {c["id"] for c in data["colours"]}
    if len(colours) != len(data["colours"]):
        raise InvalidPack("colours", "colour ids must be unique (P-2)")
    # P-2, P-3, P-4, P-11 on every face
    for i, card in enumerate(data["cards"]):
        faces = [("front", card["front"])] + ([("back", card["back"])] if "back" in card else [])
        for face_name, face in faces:
            for corner in CORNERS:
                room = face[corner]
                where = f"cards[{i}] ({card['id']}).{face_name}.{corner}"
                if room["colour"] not in colours:
                    raise InvalidPack(f"{where}.colour", f"{room['colour']!r} is not in colours (P-2)")
                if room["vacant"] and room["features"]:
                    raise InvalidPack(f"{where}.features", "a vacant room shows no feature (P-3)")
                if (
                    checks["pack_require_features_on_occupied"]
                    and not room["vacant"]
                    and not room["features"]
                ):
                    raise InvalidPack(
                        f"{where}.features", "an occupied room shows at least one feature (P-4)"
                    )
        if "back" in card and checks["card_back_mode"] == "MIRROR":
            expected = mirror(card["front"])
            for corner in CORNERS:
                if _room(card["back"][corner]) != _room(expected[corner]):
                    raise InvalidPack(
                        f"cards[{i}] ({card['id']}).back.{corner}",
                        f"must equal front.{MIRROR[corner]}: the back is the mirror of the "
                        "front (P-11, card_back_mode MIRROR)",
                    )
        if checks["card_back_mode"] == "PACK_BACK" and "back" not in card:
            raise InvalidPack(
                f"cards[{i}] ({card['id']}).back",
                "every card needs a back with card_back_mode PACK_BACK (P-11)",
            )
    # P-6: counts
    if checks["pack_strict_counts"]:
        for section, count in STRICT_COUNTS.items():
            if len(data[section]) != count:
                raise InvalidPack(section, f"has {len(data[section])} items, a full pack has {count} (P-6)")
    # P-7: one token per (feature, value)
    pairs: dict[tuple[str, int], int] = {}
    for i, token in enumerate(data["scoreTokens"]):
        pair = (token["feature"], token["value"])
        where = f"scoreTokens[{i}] ({token['id']})"
        if pair in pairs:
            raise InvalidPack(
                f"{where}.value", f"scoreTokens[{pairs[pair]}] is also {pair[0]} {pair[1]} (P-7)"
            )
        if token["value"] not in TOKEN_VALUES:
            raise InvalidPack(f"{where}.value", f"token values are {list(TOKEN_VALUES)} (P-7)")
        pairs[pair] = i
    if checks["pack_strict_counts"]:
        missing = [f"{f}-{v}" for f in FEATURES for v in TOKEN_VALUES if (f, v) not in pairs]
        if missing:
            raise InvalidPack("scoreTokens", f"missing tokens for {missing} (P-7)")
    # P-12: icons per tile
    for i, tile in enumerate(data["neighbourTiles"]):
        if len(tile["features"]) < checks["pack_tile_min_features"]:
            raise InvalidPack(
                f"neighbourTiles[{i}] ({tile['id']}).features",
                f"a tile shows at least {checks['pack_tile_min_features']} feature(s) (P-12)",
            )
    # P-8, P-9: warnings only
    rooms = [card[f][c] for card in data["cards"] for f in ("front", "back") if f in card for c in CORNERS]
    if not any(r["vacant"] for r in rooms):
        warnings.append("P-8: the pack has no vacant room, so no neighbour can ever move in")
    used_colours = {r["colour"] for r in rooms}
    for colour in data["colours"]:
        if colour["id"] not in used_colours:
            warnings.append(f"P-9: colour {colour['id']} is used by no room")
    card_features = {f for r in rooms for f in r["features"]}
    tile_features = {f for t in data["neighbourTiles"] for f in t["features"]}
    for feature in FEATURES:
        if feature not in card_features:
            warnings.append(f"P-9: feature {feature} is on no card")
        if feature not in tile_features:
            warnings.append(f"P-9: feature {feature} is on no tile")

    cards = {}
    for card in data["cards"]:
        front = _face(card["front"])
        back = _face(card["back"]) if "back" in card else mirror(front)
        cards[card["id"]] = {"FRONT": front, "BACK": back, "back_given": "back" in card}
    return {
        "pack_id": data["packId"],
        "version": data["version"],
        "provenance": data["provenance"],
        "provenance_note": data.get("provenanceNote", ""),
        "colours": [
            {"id": c["id"], "display_name": c.get("displayName", c["id"]), "rgb": c.get("rgb")}
            for c in data["colours"]
        ],
        "features": list(data["features"]),
        "card_ids": [c["id"] for c in data["cards"]],
        "cards": cards,
        "tile_ids": [t["id"] for t in data["neighbourTiles"]],
        "tiles": {t["id"]: list(t["features"]) for t in data["neighbourTiles"]},
        "token_ids": [t["id"] for t in data["scoreTokens"]],
        "tokens": {t["id"]: {"feature": t["feature"], "value": t["value"]} for t in data["scoreTokens"]},
        "warnings": warnings,
    }


def is_content(value: Any) -> bool:
    """Whether ``value`` is a loaded pack (``Content``) rather than a pack document."""
    return isinstance(value, dict) and "card_ids" in value and "cards" in value


def check_for_options(content: dict[str, Any], options: dict[str, Any]) -> None:
    """The option-dependent checks of 1.9.2, on a loaded pack; InvalidOptions (``options.pack``)."""

    def fail(path: str, message: str) -> NoReturn:
        raise InvalidOptions(
            "options.pack", f"pack {content['pack_id']!r} does not fit these options: {path}: {message}"
        )

    for i, card_id in enumerate(content["card_ids"]):
        card = content["cards"][card_id]
        if options["card_back_mode"] == "PACK_BACK" and not card["back_given"]:
            fail(
                f"cards[{i}] ({card_id}).back", "every card needs a back with card_back_mode PACK_BACK (P-11)"
            )
        if (
            options["card_back_mode"] == "MIRROR"
            and card["back_given"]
            and card["BACK"] != mirror(card["FRONT"])
        ):
            fail(
                f"cards[{i}] ({card_id}).back", "is not the mirror of the front (P-11, card_back_mode MIRROR)"
            )
        if options["pack_require_features_on_occupied"]:
            for face in ("FRONT", "BACK"):
                for corner in CORNERS:
                    room = card[face][corner]
                    if not room["vacant"] and not room["features"]:
                        fail(
                            f"cards[{i}] ({card_id}).{face.lower()}.{corner}.features",
                            "an occupied room shows at least one feature (P-4)",
                        )
    for i, tile_id in enumerate(content["tile_ids"]):
        if len(content["tiles"][tile_id]) < options["pack_tile_min_features"]:
            fail(
                f"neighbourTiles[{i}] ({tile_id}).features",
                f"a tile shows at least {options['pack_tile_min_features']} feature(s) (P-12)",
            )
    if options["pack_strict_counts"]:
        counts = {
            "cards": len(content["card_ids"]),
            "neighbourTiles": len(content["tile_ids"]),
            "scoreTokens": len(content["token_ids"]),
        }
        for section, count in STRICT_COUNTS.items():
            if counts[section] != count:
                fail(section, f"has {counts[section]} items, a full pack has {count} (P-6)")


def default_content() -> dict[str, Any]:
    """The shipped default pack, loaded once (engine use without a server: tests, benchmarks)."""
    return shipped_pack(load_pack, PACKS_DIR, DEFAULT_PACK)
