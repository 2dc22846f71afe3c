"""The placement and its validation (spec 3.2, R-2.2 to R-2.8): which placements a colour has, and why one is refused.

A placement is a shape of the colour's hand, in one of its orientations, at an anchor of the board,
resting at the height where it stops when lowered (1.5.3). The legal list (AE-4), the loss check
(R-1.1) and the check of a submitted placement (in the order of spec 8.2) are all made here, from
the compiled tables of the match's shapes and board.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

from service.games.block_block import geometry
from service.games.block_block.geometry import Anchor, Orientation
from service.games.block_block.names import colour_word
from service.games.block_block.pack import COLOURS, shape_spec
from service.games.protocol import Action, IllegalAction, State
from service.games.texts import catalogue

_ = catalogue(__file__).gettext

Placement = tuple[str, str, Orientation, Anchor, int]
"""A legal placement as the engine lists it: shape id, class, orientation, anchor and the height it rests at."""

# -- compiled tables (a cache: always rebuildable from the state) ------------------------------------------


class Tables:
    """Every orientation of every shape of a match, and every on-board anchor of each, for its board."""

    def __init__(self, shapes: list[dict[str, Any]], width: int, depth: int, allow_reflection: bool):
        self.orientations: dict[str, tuple[Orientation, ...]] = {}
        self.by_rotation: dict[str, dict[int, Orientation]] = {}
        self.placeable: dict[str, tuple[tuple[Orientation, tuple[Anchor, ...]], ...]] = {}
        for shape in shapes:
            distinct, by_rotation = geometry.orientations(shape_spec(shape), allow_reflection)
            sid = shape["shapeId"]
            self.orientations[sid] = distinct
            self.by_rotation[sid] = by_rotation
            self.placeable[sid] = tuple((o, geometry.anchors(o, width, depth)) for o in distinct if o.solid)


_TABLES: dict[str, Tables] = {}
_TABLES_MAX = 64
_TABLES_LOCK = threading.Lock()


def tables(state: State) -> Tables:
    """The match's tables, built once per pack, board and reflection setting (``state["tables"]`` is
    their digest) and kept in a small memo: a cache of pure data, rebuilt from the state on a miss."""
    key = state["tables"]
    found = _TABLES.get(key)
    if found is None:
        found = Tables(state["shapes"], state["width"], state["depth"], state["rules"]["allow_reflection"])
        with _TABLES_LOCK:
            while len(_TABLES) >= _TABLES_MAX:
                _TABLES.pop(next(iter(_TABLES)))
            _TABLES[key] = found
    return found


def hand(state: State, colour: int) -> Iterator[tuple[str, str]]:
    """(shape id, class) of each shape the colour may place now: R-2.2 and R-2.3."""
    remaining = state["remaining"][colour]
    total = sum(remaining.values())
    last = state["must_be_last"][colour]
    classes = state["classes"]
    for shape in state["shapes"]:
        sid = shape["shapeId"]
        if remaining.get(sid, 0) > 0 and (sid not in last or total == 1):
            yield sid, classes[sid]


def candidates(state: State, colour: int) -> Iterator[Placement]:
    """Every placement satisfying R-2.2 to R-2.7 (before the R-2.8 ban), as
    (shape id, class, orientation, anchor, z); in pack order, then rotation id, then y, x."""
    t = tables(state)
    h = state["heights"]
    max_height = state["max_height"]
    rules = state["rules"]
    adjacency = rules["require_adjacency"] and state["move_no"] > 0
    top_piece = state["top_piece"]
    for sid, cls in hand(state, colour):
        for o, anchors in t.placeable[sid]:
            oh = o.height
            for a in anchors:
                cells = a.cells
                z = 0
                for i, low in cells:
                    d = h[i] - low
                    if d > z:
                        z = d
                if max_height is not None and z + oh > max_height:
                    continue
                ok = True
                rests = False
                for i, low in cells:
                    if h[i] != z + low:
                        ok = False
                        break
                    if top_piece[i] is not None and z + low > 0:
                        rests = True
                if not ok:
                    continue
                if adjacency and not touches(state, o, a.x, a.y, z):
                    continue
                if rests and stack_conflict(state, colour, sid, cls, o, cells, z, t) is not None:
                    continue
                yield sid, cls, o, a, z


def banned_class(state: State, colour: int) -> str | None:
    """R-2.8: the class of the opponent's most recent placement, when the ban is on."""
    if not state["rules"]["same_shape_ban"]:
        return None
    return state["last_class"][1 - colour]


def placements(state: State, colour: int) -> list[Placement]:
    """The complete legal list (AE-4): R-2.2..R-2.7, then R-2.8 with its exception (R-1.2)."""
    found = list(candidates(state, colour))
    banned = banned_class(state, colour)
    if banned is not None:
        others = [p for p in found if p[1] != banned]
        if others:
            return others
    return found


def has_placement(state: State, colour: int) -> bool:
    """R-1.1: whether the colour has any legal placement (the ban never empties the list, R-1.2)."""
    return next(candidates(state, colour), None) is not None


def stack_conflict(
    state: State,
    colour: int,
    sid: str,
    cls: str,
    o: Orientation,
    cells: Sequence[tuple[int, int]],
    z: int,
    t: Tables | None = None,
) -> int | None:
    """R-2.7 (A-10, A-11): the index of the placed piece this placement would sit on in the same
    orientation, or None."""
    rules = state["rules"]
    top_piece = state["top_piece"]
    placed = state["placed"]
    colour_key = rules["orientation_equivalence"] == "GEOMETRY_AND_COLOURS"
    opponent_only = rules["same_shape_stack_owner_scope"] == "OPPONENT_ONLY"

    def same(q: int) -> bool:
        piece = placed[q]
        if piece["shape_class"] != cls:
            return False
        if opponent_only and piece["colour"] == COLOURS[colour]:
            return False
        other = (t or tables(state)).by_rotation[piece["shape"]][piece["rotation"]]
        return (other.colour_key == o.colour_key) if colour_key else (other.geometry_key == o.geometry_key)

    if rules["same_shape_stack_rule"] == "ANY_CONTACT":
        for i, low in cells:
            q = top_piece[i]
            if q is not None and z + low > 0 and same(q):
                return q
        return None
    # EXACT_COVER: every bottom cube rests on the same piece Q, whose footprint is P's
    q = top_piece[cells[0][0]]
    if q is None or placed[q]["shape_class"] != cls:
        return None
    for i, low in cells:
        if top_piece[i] != q or z + low == 0:
            return None
    width = state["width"]
    footprint = {c[0] + c[1] * width for c in placed[q]["cubes"]}
    if footprint != {i for i, _ in cells}:
        return None
    return q if same(q) else None


def touches(state: State, o: Orientation, x: int, y: int, z: int) -> bool:
    """A-13: some cube of the placement shares a face with an earlier cube."""
    h = state["heights"]
    width, depth = state["width"], state["depth"]
    for cx, cy, cz in o.cubes:
        ax, ay, az = x + cx, y + cy, z + cz
        if 0 < az <= h[ax + ay * width]:
            return True  # the position below holds an earlier cube: resting on it
        for nx, ny in ((ax + 1, ay), (ax - 1, ay), (ax, ay + 1), (ax, ay - 1)):
            if 0 <= nx < width and 0 <= ny < depth and az < h[nx + ny * width]:
                return True
    return False


def resolve(colour: int, label: str) -> str:
    """AE-3: OWNER -> the placer's colour, OPPONENT -> the other, HALF -> HALF."""
    if label == "OWNER":
        return COLOURS[colour]
    if label == "OPPONENT":
        return COLOURS[1 - colour]
    return "HALF"


def piece_placed_data(
    colour: int, sid: str, cls: str, o: Orientation, x: int, y: int, z: int, move_no: int
) -> dict[str, Any]:
    """The data of a ``piece_placed`` event (and of a legal action)."""
    return {
        "colour": COLOURS[colour],
        "shape": sid,
        "shape_class": cls,
        "rotation": o.rotation,
        "x": x,
        "y": y,
        "z": z,
        "cubes": [[x + cx, y + cy, z + cz] for cx, cy, cz in o.cubes],
        "top_colours": [resolve(colour, label) for label in o.tops],
        "move_no": move_no,
    }


def describe_placement(
    state: State, colour: int, shape: str, rotation: int, x: int, y: int
) -> dict[str, Any]:
    """The ``piece_placed`` data of a placement at its drop height (1.5.3), checking nothing but
    that the shape, rotation and board cells exist. Folding it with ``apply`` is the spec's test
    hook "(inject)": it builds a position without the placement rules."""
    o = tables(state).by_rotation[shape][rotation]
    width = state["width"]
    if x < 0 or y < 0 or x + o.size[0] > width or y + o.size[1] > state["depth"]:
        raise ValueError(f"{shape} rotation {rotation} at ({x}, {y}) is off the board")
    h = state["heights"]
    z = max(h[(x + c.dx) + (y + c.dy) * width] - c.low for c in o.columns)
    return piece_placed_data(colour, shape, state["classes"][shape], o, x, y, z, state["move_no"] + 1)


def check_placement(state: State, colour: int, action: Action) -> dict[str, Any]:
    """The ``piece_placed`` data of a placement, or IllegalAction naming the first rule it
    breaks, in the order of spec 8.2."""
    sid = action["shape"]
    remaining = state["remaining"][colour]
    name = colour_word(COLOURS[colour])
    if remaining.get(sid, 0) <= 0:
        held = _(", ").join(f"{s} x{n}" for s, n in remaining.items() if n) or _("nothing")
        raise IllegalAction(
            "no_such_piece",
            _(
                "{colour} has no {shape} piece left; it holds {held} (R-2.2)",
                colour=name,
                shape=sid,
                held=held,
            ),
        )
    if sid in state["must_be_last"][colour] and sum(remaining.values()) > 1:
        raise IllegalAction(
            "half_piece_not_last",
            _("the half piece {shape} must be {colour}'s very last piece (R-2.3)", shape=sid, colour=name),
        )
    t = tables(state)
    rotation = action["rotation"]
    o = t.by_rotation[sid].get(rotation)
    if o is None:
        raise IllegalAction(
            "no_such_rotation",
            _("rotation {rotation} is not one of the 24 rotations of spec 1.4.2", rotation=rotation)
            if rotation < geometry.PROPER_ROTATIONS or rotation >= geometry.ALL_ROTATIONS
            else _(
                "rotation {rotation} is not one of the 24 rotations of spec 1.4.2; mirror images (24..47) need "
                "allow_reflection (A-09)",
                rotation=rotation,
            ),
        )
    x, y = action["x"], action["y"]
    width, depth = state["width"], state["depth"]
    sx, sy, _height = o.size
    if x < 0 or y < 0 or x + sx > width or y + sy > depth:
        raise IllegalAction(
            "out_of_board",
            _(
                "{shape} rotation {rotation} at ({x}, {y}) covers cells x {x}..{x_end}, y {y}..{y_end}, outside "
                "the {width} x {depth} board (R-2.4)",
                shape=sid,
                rotation=rotation,
                x=x,
                y=y,
                x_end=x + sx - 1,
                y_end=y + sy - 1,
                width=width,
                depth=depth,
            ),
        )
    h = state["heights"]
    cells = [((x + c.dx) + (y + c.dy) * width, c.low) for c in o.columns]
    z = max(h[i] - low for i, low in cells)  # 1.5.3: where the piece stops when lowered
    if "z" in action and action["z"] != z:
        raise IllegalAction(
            "z_mismatch", _("the piece would rest at z = {z}, not z = {asked} (AE-1)", z=z, asked=action["z"])
        )
    cls = state["classes"][sid]
    data = piece_placed_data(colour, sid, cls, o, x, y, z, state["move_no"] + 1)
    check_description(action, data)
    max_height = state["max_height"]
    if max_height is not None and z + o.height > max_height:
        raise IllegalAction(
            "over_max_height",
            _(
                "the piece would reach height {height}, over the limit of {most} (R-2.4)",
                height=z + o.height,
                most=max_height,
            ),
        )
    if not o.solid:
        raise IllegalAction(
            "unsupported", _("this orientation has a hole under one of its own cubes (R-2.5)")
        )
    floating = [[x + c.dx, y + c.dy] for c, (i, low) in zip(o.columns, cells) if h[i] != z + low]
    if floating:
        raise IllegalAction(
            "unsupported",
            _(
                "at z = {z} the cubes over {cells} would have empty space underneath (R-2.5)",
                z=z,
                cells=floating,
            ),
        )
    if state["rules"]["require_adjacency"] and state["move_no"] > 0 and not touches(state, o, x, y, z):
        raise IllegalAction(
            "not_adjacent", _("the piece must share a face with an earlier piece (R-2.6, require_adjacency)")
        )
    q = stack_conflict(state, colour, sid, cls, o, cells, z)
    if q is not None:
        other = state["placed"][q]
        said = {
            "shape": sid,
            "colour": colour_word(other["colour"]),
            "other": other["shape"],
            "move": other["move_no"],
        }
        raise IllegalAction(
            "same_shape_stack",
            _(
                "{shape} would rest on {colour}'s {other} (move {move}), a piece of the same shape turned the "
                "same way (R-2.7)",
                **said,
            )
            if state["rules"]["same_shape_stack_rule"] == "ANY_CONTACT"
            else _(
                "{shape} would sit exactly on {colour}'s {other} (move {move}), a piece of the same shape turned "
                "the same way (R-2.7)",
                **said,
            ),
        )
    banned = banned_class(state, colour)
    if cls == banned and any(p[1] != banned for p in candidates(state, colour)):
        raise IllegalAction(
            "same_shape_as_opponent",
            _(
                "{other} has just placed a {shape}; {colour} may place that shape only when no other piece fits "
                "(R-2.8)",
                other=colour_word(COLOURS[1 - colour]),
                shape=banned,
                colour=name,
            ),
        )
    return data


def check_description(action: Action, data: dict[str, Any]) -> None:
    """AE-1: an action that also states the cubes (and their top colours) must state what the
    engine derives. Cubes may come in any order; ``top_colours`` follow the action's cube order."""
    if "cubes" in action:
        cubes = [list(c) for c in action["cubes"]]
        if sorted(cubes) != data["cubes"]:
            raise IllegalAction(
                "placement_mismatch",
                _(
                    "the piece would occupy {derived}, not {cubes} (AE-1, 1.5.1)",
                    derived=data["cubes"],
                    cubes=cubes,
                ),
            )
        if "top_colours" in action:
            if len(action["top_colours"]) != len(cubes):
                raise IllegalAction(
                    "placement_mismatch", _("top_colours must name one colour per cube (AE-3)")
                )
            stated = dict(zip(map(tuple, cubes), action["top_colours"]))
            derived = dict(zip(map(tuple, data["cubes"]), data["top_colours"]))
            if stated != derived:
                raise IllegalAction(
                    "placement_mismatch",
                    _(
                        "the cubes {cubes} would show {tops} on top (AE-3)",
                        cubes=data["cubes"],
                        tops=data["top_colours"],
                    ),
                )
    elif "top_colours" in action and list(action["top_colours"]) != data["top_colours"]:
        raise IllegalAction(
            "placement_mismatch",
            _(
                "the cubes {cubes} would show {tops} on top (AE-3)",
                cubes=data["cubes"],
                tops=data["top_colours"],
            ),
        )
