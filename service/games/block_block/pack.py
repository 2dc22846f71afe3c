"""BLOCK.BLOCK piece-set packs (spec 1.8): the JSON Schema of 1.8.1 and the semantic checks of 1.8.2.

The rules sheet names only three block sizes and the designer never published the rest, so the
board, the shapes, their colouring and the sets are data: a pack. ``load_pack`` is pure: it checks a
parsed JSON document and returns the *loaded pack*, the plain dict that ``setup`` receives as
``content`` and that the server records in ``match_created``:

* the document with its defaults filled in (``shapeClass`` = ``shapeId`` (K-1), ``defaultFaceColour``
  = ``OWNER``, ``faceColours`` = [], ``mustBeLast`` = false, ``provenanceNote`` = "");
* ``checks``: ``strict``, the K-7/K-8 findings (errors only when a match sets ``pack_strict_counts``,
  which ``load_pack`` cannot see, so ``setup`` decides), and ``warnings``, the K-9 findings for the
  pack's own board (``setup`` repeats K-9 for the effective board of the match).

Errors of the schema and of K-1..K-6 raise ``InvalidPack`` whose path names the item and field, e.g.
``shapes[2] (I3).faceColours[0].face``.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema

from service.games.block_block import geometry
from service.games.kit import pack_path
from service.games.protocol import InvalidPack

SCHEMA: dict[str, Any] = json.loads(Path(__file__).with_name("packs_schema.json").read_text(encoding="utf-8"))
_VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

COLOURS = ("BROWN", "WHITE")
NAMED_BY = ("shapeId",)
"""What names a list item in a pack error path: shapes and set entries by their shapeId, and
nothing else (an item's stray ``id`` is itself the error, not its name)."""


def _sort_key(error: jsonschema.ValidationError) -> list:
    return [(0, p, "") if isinstance(p, int) else (1, 0, p) for p in error.absolute_path]


def shape_spec(shape: dict[str, Any]) -> geometry.ShapeSpec:
    """The geometry's view of a (loaded) pack shape: cubes and the label of every face."""
    labels = [[shape["defaultFaceColour"]] * len(geometry.FACES) for _ in shape["cubes"]]
    for entry in shape["faceColours"]:
        labels[entry["cube"]][geometry.FACES.index(entry["face"])] = entry["colour"]
    return geometry.ShapeSpec(
        shape["shapeId"], tuple(tuple(c) for c in shape["cubes"]), tuple(tuple(row) for row in labels)
    )


def fits(shape: dict[str, Any], width: int, depth: int, max_height: int | None) -> bool:
    """Whether the shape has an orientation that stands on an empty ``width`` x ``depth`` board
    under the height limit (K-9)."""
    distinct, _ = geometry.orientations(shape_spec(shape))
    return any(
        o.size[0] <= width
        and o.size[1] <= depth
        and (max_height is None or o.height <= max_height)
        and all(c.solid and c.low == 0 for c in o.columns)
        for o in distinct
    )


def fit_warnings(loaded: dict[str, Any], width: int, depth: int, max_height: int | None) -> list[str]:
    """K-9 (a warning): regular shapes that can never be placed on this board."""
    regular = {e["shapeId"] for colour in COLOURS for e in loaded["sets"][colour] if not e["mustBeLast"]}
    limit = "no height limit" if max_height is None else f"height limit {max_height}"
    return [
        f"shapes[{i}] ({s['shapeId']}): fits the {width} x {depth} board ({limit}) in no orientation "
        f"and can never be placed (K-9)"
        for i, s in enumerate(loaded["shapes"])
        if s["shapeId"] in regular and not fits(s, width, depth, max_height)
    ]


def load_pack(data: Any, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The loaded pack, or InvalidPack naming the item and field at fault (spec 1.8.1, 1.8.2). ``options``
    is unused: the checks that depend on them run in ``setup``, which has the options and the pack."""
    errors = sorted(_VALIDATOR.iter_errors(data), key=_sort_key)
    if errors:
        raise InvalidPack(
            pack_path(data, errors[0].absolute_path, NAMED_BY), f"{errors[0].message} (spec 1.8.1)"
        )
    pack = copy.deepcopy(data)
    pack.setdefault("provenanceNote", "")
    pack.setdefault("maxHeight", None)
    for shape in pack["shapes"]:
        shape.setdefault("shapeClass", shape["shapeId"])
        shape.setdefault("defaultFaceColour", "OWNER")
        shape.setdefault("faceColours", [])
    for colour in COLOURS:
        for entry in pack["sets"][colour]:
            entry.setdefault("mustBeLast", False)

    _check_shapes(data, pack)
    _check_sets(data, pack)
    pack["checks"] = {
        "strict": _strict_findings(data, pack),
        "warnings": fit_warnings(pack, pack["board"]["width"], pack["board"]["depth"], pack["maxHeight"]),
    }
    return pack


def _check_shapes(data: Any, pack: dict[str, Any]) -> None:
    seen: dict[str, int] = {}
    for i, shape in enumerate(pack["shapes"]):
        here = pack_path(data, ["shapes", i], NAMED_BY)
        # K-1: unique ids
        if shape["shapeId"] in seen:
            raise InvalidPack(
                f"{here}.shapeId", f"duplicate shapeId, first used by shapes[{seen[shape['shapeId']]}] (K-1)"
            )
        seen[shape["shapeId"]] = i
        # K-2: distinct, connected, normalised cubes
        cubes = [tuple(c) for c in shape["cubes"]]
        for j, cube in enumerate(cubes):
            if cube in cubes[:j]:
                raise InvalidPack(f"{here}.cubes[{j}]", f"cube {list(cube)} is listed twice (K-2)")
        if not geometry.connected(cubes):
            raise InvalidPack(f"{here}.cubes", "the cubes are not connected through shared faces (K-2)")
        for axis, name in enumerate("xyz"):
            if min(c[axis] for c in cubes) != 0:
                raise InvalidPack(f"{here}.cubes", f"not normalised: the smallest {name} must be 0 (K-2)")
        # K-3: existing cube, exterior face, one entry per (cube, face)
        faces_seen: set[tuple[int, str]] = set()
        for k, entry in enumerate(shape["faceColours"]):
            where = f"{here}.faceColours[{k}]"
            if entry["cube"] >= len(cubes):
                raise InvalidPack(
                    f"{where}.cube", f"no cube {entry['cube']}: the shape has {len(cubes)} (K-3)"
                )
            if not geometry.exterior(cubes, entry["cube"], entry["face"]):
                raise InvalidPack(
                    f"{where}.face",
                    f"face {entry['face']} of cube {entry['cube']} touches another cube of the "
                    f"shape; only exterior faces can be coloured (K-3)",
                )
            if (entry["cube"], entry["face"]) in faces_seen:
                raise InvalidPack(where, f"cube {entry['cube']} face {entry['face']} is coloured twice (K-3)")
            faces_seen.add((entry["cube"], entry["face"]))


def _check_sets(data: Any, pack: dict[str, Any]) -> None:
    ids = {s["shapeId"] for s in pack["shapes"]}
    last_shapes: set[str] = set()
    for colour in COLOURS:
        seen: set[str] = set()
        last = 0
        for k, entry in enumerate(pack["sets"][colour]):
            where = pack_path(data, ["sets", colour, k], NAMED_BY)
            # K-4: known shapes, once per set
            if entry["shapeId"] not in ids:
                raise InvalidPack(f"{where}.shapeId", f"no shape {entry['shapeId']!r} in shapes (K-4)")
            if entry["shapeId"] in seen:
                raise InvalidPack(
                    f"{where}.shapeId", f"shape {entry['shapeId']!r} appears twice in {colour} (K-4)"
                )
            seen.add(entry["shapeId"])
            # K-5: at most one mustBeLast entry, of count 1
            if entry["mustBeLast"]:
                last += 1
                last_shapes.add(entry["shapeId"])
                if last > 1:
                    raise InvalidPack(
                        f"{where}.mustBeLast", f"{colour} has more than one mustBeLast entry (K-5)"
                    )
                if entry["count"] != 1:
                    raise InvalidPack(f"{where}.count", "a mustBeLast entry must have count 1 (K-5)")
    # K-6: HALF faces only on a shape that is some set's mustBeLast piece
    for i, shape in enumerate(pack["shapes"]):
        if shape["shapeId"] in last_shapes:
            continue
        here = pack_path(data, ["shapes", i], NAMED_BY)
        if shape["defaultFaceColour"] == "HALF":
            raise InvalidPack(
                f"{here}.defaultFaceColour", "HALF faces are allowed only on a mustBeLast (half) piece (K-6)"
            )
        for k, entry in enumerate(shape["faceColours"]):
            if entry["colour"] == "HALF":
                raise InvalidPack(
                    f"{here}.faceColours[{k}].colour",
                    "HALF faces are allowed only on a mustBeLast (half) piece (K-6)",
                )


def _strict_findings(data: Any, pack: dict[str, Any]) -> list[str]:
    """K-7 and K-8: what ``pack_strict_counts`` = true refuses (spec 1.8.2)."""
    found: list[str] = []
    by_id = {s["shapeId"]: s for s in pack["shapes"]}
    index = {s["shapeId"]: i for i, s in enumerate(pack["shapes"])}
    white = pack["sets"]["WHITE"]
    brown = pack["sets"]["BROWN"]
    # K-7: white has 10 pieces of 7 classes; brown the same entries plus one mustBeLast 1-cube piece
    pieces = sum(e["count"] for e in white)
    if pieces != 10:
        found.append(f"sets.WHITE: {pieces} pieces, 10 expected (K-7)")
    classes = {by_id[e["shapeId"]]["shapeClass"] for e in white}
    if len(classes) != 7:
        found.append(f"sets.WHITE: {len(classes)} distinct shape classes, 7 expected (K-7)")
    for k, entry in enumerate(white):
        if entry["mustBeLast"]:
            found.append(
                f"{pack_path(data, ['sets', 'WHITE', k], NAMED_BY)}.mustBeLast: white has no half piece (K-7)"
            )
    regular = lambda entries: sorted((e["shapeId"], e["count"]) for e in entries if not e["mustBeLast"])  # noqa: E731
    if regular(brown) != regular(white):
        found.append("sets.BROWN: the regular entries differ from WHITE's (K-7)")
    halves = [e for e in brown if e["mustBeLast"]]
    if len(halves) != 1:
        found.append(f"sets.BROWN: {len(halves)} mustBeLast entries, exactly 1 expected (K-7)")
    elif len(by_id[halves[0]["shapeId"]]["cubes"]) != 1:
        found.append(
            f"sets.BROWN: the mustBeLast piece {halves[0]['shapeId']} has "
            f"{len(by_id[halves[0]['shapeId']]['cubes'])} cubes, 1 expected (K-7)"
        )
    # K-8: straight 3- and 4-cube lines have OPPONENT ends and OWNER elsewhere; other shapes all OWNER
    regular_ids = {e["shapeId"] for colour in COLOURS for e in pack["sets"][colour] if not e["mustBeLast"]}
    for shape_id in sorted(regular_ids, key=index.__getitem__):  # in the order of ``shapes`` (K-4: all there)
        shape = by_id[shape_id]
        spec = shape_spec(shape)
        expected = [["OWNER"] * len(geometry.FACES) for _ in spec.cubes]
        line = geometry.straight_line(spec.cubes) if len(spec.cubes) in (3, 4) else None
        if line is not None:
            low, high, axis = line
            expected[low][geometry.FACES.index("-" + "XYZ"[axis])] = "OPPONENT"
            expected[high][geometry.FACES.index("+" + "XYZ"[axis])] = "OPPONENT"
        for cube, (want, have) in enumerate(zip(expected, spec.faces)):
            exterior = [f for f in geometry.FACES if geometry.exterior(spec.cubes, cube, f)]
            wrong = [f for f in exterior if want[geometry.FACES.index(f)] != have[geometry.FACES.index(f)]]
            if wrong:
                rule = (
                    "a straight line of 3 or 4 cubes has OPPONENT on both end faces and OWNER elsewhere"
                    if line is not None
                    else "only straight lines of 3 or 4 cubes have coloured ends"
                )
                found.append(
                    f"{pack_path(data, ['shapes', index[shape_id]], NAMED_BY)}.faceColours: cube {cube} face "
                    f"{wrong[0]}: {rule} (K-8)"
                )
                break
    return found
