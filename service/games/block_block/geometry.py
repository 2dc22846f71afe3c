"""BLOCK.BLOCK geometry: the 24 rotations of spec 1.4.2, oriented polycubes, and placement tables.

Everything here is pure and deterministic. The rotation table is copied from the spec (its ids are
part of the API), not regenerated; ``ROTATIONS`` parses it once. A shape is compiled into its
distinct orientations (``Orientation``), each knowing its cubes, the colour label of each cube's
upward face, its columns (for the drop rule of 1.5.3 and the support test of 1.5.4) and its keys
for "same orientation" (1.4.4, A-07). ``board_tables`` then lists, for one board size, every
on-board anchor of every orientation with the board cells and lowest heights it needs, so that
move generation is a few integer comparisons per candidate.

Coordinates: a cube is ``(x, y, z)``; a board cell ``(x, y)`` has index ``x + y * width``.
Face directions: ``+X -X +Y -Y +Z -Z`` (0.5.3). Face colour labels: ``OWNER``, ``OPPONENT``, ``HALF``
(1.2.2); they are resolved to ``BROWN``/``WHITE``/``HALF`` only when a piece is placed (AE-3).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

Cube = tuple[int, int, int]

FACES = ("+X", "-X", "+Y", "-Y", "+Z", "-Z")
FACE_VECTOR: dict[str, Cube] = {
    "+X": (1, 0, 0),
    "-X": (-1, 0, 0),
    "+Y": (0, 1, 0),
    "-Y": (0, -1, 0),
    "+Z": (0, 0, 1),
    "-Z": (0, 0, -1),
}
VECTOR_FACE: dict[Cube, str] = {v: k for k, v in FACE_VECTOR.items()}

# Spec 1.4.2, copied row by row: id -> (new (x, y, z) =, local face on top). Do not regenerate.
ROTATION_TABLE: tuple[tuple[str, str], ...] = (
    ("x, y, z", "+Z"),  # 0
    ("x, -y, -z", "-Z"),  # 1
    ("-x, y, -z", "-Z"),  # 2
    ("-x, -y, z", "+Z"),  # 3
    ("x, z, -y", "-Y"),  # 4
    ("x, -z, y", "+Y"),  # 5
    ("-x, z, y", "+Y"),  # 6
    ("-x, -z, -y", "-Y"),  # 7
    ("y, x, -z", "-Z"),  # 8
    ("y, -x, z", "+Z"),  # 9
    ("-y, x, z", "+Z"),  # 10
    ("-y, -x, -z", "-Z"),  # 11
    ("y, z, x", "+X"),  # 12
    ("y, -z, -x", "-X"),  # 13
    ("-y, z, -x", "-X"),  # 14
    ("-y, -z, x", "+X"),  # 15
    ("z, x, y", "+Y"),  # 16
    ("z, -x, -y", "-Y"),  # 17
    ("-z, x, -y", "-Y"),  # 18
    ("-z, -x, y", "+Y"),  # 19
    ("z, y, -x", "-X"),  # 20
    ("z, -y, x", "+X"),  # 21
    ("-z, y, x", "+X"),  # 22
    ("-z, -y, -x", "-X"),  # 23
)

PROPER_ROTATIONS = 24
"""Ids 0..23: the proper rotations of the table (1.4.1)."""
ALL_ROTATIONS = 48
"""Ids 24..47 exist only with ``allow_reflection`` (A-09): id ``24 + r`` mirrors the shape in x
(``x -> -x``) and then applies rotation ``r``. The spec's table has no ids for mirror images; these
are this engine's extension, used by no default."""


@dataclass(frozen=True)
class Rotation:
    """``new[i] = signs[i] * old[axes[i]]`` for i in x, y, z."""

    id: int
    axes: tuple[int, int, int]
    signs: tuple[int, int, int]
    top_face: str  # the local face that points up (+Z) afterwards

    def apply(self, v: Cube) -> Cube:
        a, s = self.axes, self.signs
        return (s[0] * v[a[0]], s[1] * v[a[1]], s[2] * v[a[2]])

    @property
    def determinant(self) -> int:
        parity = 1
        axes = list(self.axes)
        for i in range(3):  # parity of the permutation, by selection sort
            j = axes.index(i, i)
            if j != i:
                axes[i], axes[j] = axes[j], axes[i]
                parity = -parity
        return parity * self.signs[0] * self.signs[1] * self.signs[2]


def _parse(rid: int, formula: str, top: str) -> Rotation:
    axes, signs = [], []
    for term in formula.split(","):
        term = term.strip()
        signs.append(-1 if term.startswith("-") else 1)
        axes.append("xyz".index(term.lstrip("-")))
    (ax, ay, az), (sx, sy, sz) = axes, signs  # one term per new axis
    return Rotation(rid, (ax, ay, az), (sx, sy, sz), top)


def _mirrored(rotation: Rotation) -> Rotation:
    """``rotation`` after the mirror ``x -> -x``: the sign of whichever output reads old x flips."""
    sx, sy, sz = (-s if a == 0 else s for a, s in zip(rotation.axes, rotation.signs))
    mirrored = Rotation(PROPER_ROTATIONS + rotation.id, rotation.axes, (sx, sy, sz), "")
    return Rotation(mirrored.id, mirrored.axes, mirrored.signs, _top_face(mirrored))


def _top_face(rotation: Rotation) -> str:
    """The local face that the rotation turns to +Z (derived; the table states it for 0..23)."""
    for face, vector in FACE_VECTOR.items():
        if rotation.apply(vector) == (0, 0, 1):
            return face
    raise AssertionError("a rotation always sends some axis to +Z")


_PROPER = tuple(_parse(i, formula, top) for i, (formula, top) in enumerate(ROTATION_TABLE))
ROTATIONS: tuple[Rotation, ...] = _PROPER + tuple(_mirrored(r) for r in _PROPER)
"""All 48 ids; 0..23 are the spec's table."""


def normalise(cubes: Iterable[Cube]) -> tuple[Cube, ...]:
    """Translate so that the minimum x, y and z are 0 (1.2.1); sorted."""
    cubes = list(cubes)
    mx = min(c[0] for c in cubes)
    my = min(c[1] for c in cubes)
    mz = min(c[2] for c in cubes)
    return tuple(sorted((x - mx, y - my, z - mz) for x, y, z in cubes))


def connected(cubes: Iterable[Cube]) -> bool:
    """Whether the cubes form one piece through shared faces (K-2)."""
    cubes = set(cubes)
    if not cubes:
        return False
    start = next(iter(cubes))
    seen = {start}
    todo = [start]
    while todo:
        x, y, z = todo.pop()
        for dx, dy, dz in FACE_VECTOR.values():
            n = (x + dx, y + dy, z + dz)
            if n in cubes and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(cubes)


def exterior(cubes: Iterable[Cube], index: int, face: str) -> bool:
    """Whether face ``face`` of cube ``index`` is on the outside of the shape (K-3)."""
    cubes = list(cubes)
    x, y, z = cubes[index]
    dx, dy, dz = FACE_VECTOR[face]
    return (x + dx, y + dy, z + dz) not in set(cubes)


def same_geometry_under_rotation(a: Iterable[Cube], b: Iterable[Cube]) -> bool:
    """Whether some proper rotation turns shape ``a`` into shape ``b`` (A-04: H is "an I1")."""
    target = normalise(b)
    a = list(a)
    return any(normalise(r.apply(c) for c in a) == target for r in _PROPER)


def straight_line(cubes: Iterable[Cube]) -> tuple[int, int, int] | None:
    """For cubes in one straight row along an axis: (index of the low end, index of the high end,
    the axis); None for any other shape. Used by K-8."""
    cubes = list(cubes)
    for axis in range(3):
        others = {tuple(c[i] for i in range(3) if i != axis) for c in cubes}
        values = sorted(c[axis] for c in cubes)
        if len(others) == 1 and values == list(range(values[0], values[0] + len(cubes))):
            low = min(range(len(cubes)), key=lambda i: cubes[i][axis])
            high = max(range(len(cubes)), key=lambda i: cubes[i][axis])
            return low, high, axis
    return None


# -- shapes and their orientations ------------------------------------------------------------------


@dataclass(frozen=True)
class ShapeSpec:
    """What the geometry needs of a pack shape: its cubes and the colour label of every face."""

    shape_id: str
    cubes: tuple[Cube, ...]
    faces: tuple[tuple[str, ...], ...]  # per cube, the label of each face in FACES order


@dataclass(frozen=True)
class Column:
    dx: int
    dy: int
    low: int  # m(c) of 1.5.3: the lowest cz of the oriented shape over this cell
    high: int  # the highest cz + 1
    solid: bool  # the cubes over this cell form one unbroken vertical run (1.5.4)


@dataclass(frozen=True)
class Orientation:
    """One distinct orientation of a shape (1.4.3): distinct by cubes *and* face colours, so that
    an orientation says exactly what a placement shows. ``rotation`` is the smallest id producing
    it; for every shape whose colouring is symmetric (all shapes of any pack passing K-8, so the
    default pack) it is the canonical id of 1.4.4."""

    shape_id: str
    rotation: int
    rotations: tuple[int, ...]
    cubes: tuple[Cube, ...]  # normalised, sorted
    tops: tuple[str, ...]  # the label of each cube's upward face, aligned with ``cubes``
    geometry_key: tuple[Cube, ...]  # same orientation under GEOMETRY (1.4.4)
    colour_key: tuple  # same orientation under GEOMETRY_AND_COLOURS
    columns: tuple[Column, ...]
    size: tuple[int, int, int]  # extent in x, y, z

    @property
    def solid(self) -> bool:
        """False when some column has a hole: such an orientation can never be supported (R-2.5)."""
        return all(c.solid for c in self.columns)

    @property
    def height(self) -> int:
        return self.size[2]


def orient(shape: ShapeSpec, rotation: Rotation) -> tuple[tuple[Cube, ...], tuple[str, ...], tuple]:
    """Cubes (normalised, sorted), their top labels, and each cube's six face labels in world
    directions (the colour key), for ``shape`` turned by ``rotation`` (1.4.3)."""
    moved = [rotation.apply(c) for c in shape.cubes]
    mx = min(c[0] for c in moved)
    my = min(c[1] for c in moved)
    mz = min(c[2] for c in moved)
    # world direction -> the local face that now points that way
    local_of = {VECTOR_FACE[rotation.apply(FACE_VECTOR[f])]: f for f in FACES}
    rows = []
    for (x, y, z), labels in zip(moved, shape.faces):
        by_face = dict(zip(FACES, labels))
        world = tuple(by_face[local_of[f]] for f in FACES)
        rows.append(((x - mx, y - my, z - mz), world))
    rows.sort()
    cubes = tuple(pos for pos, _ in rows)
    tops = tuple(world[FACES.index("+Z")] for _, world in rows)
    return cubes, tops, tuple(rows)


def _columns(cubes: tuple[Cube, ...]) -> tuple[Column, ...]:
    by_cell: dict[tuple[int, int], list[int]] = {}
    for x, y, z in cubes:
        by_cell.setdefault((x, y), []).append(z)
    columns = []
    for (dx, dy), zs in sorted(by_cell.items(), key=lambda item: (item[0][1], item[0][0])):
        low, high = min(zs), max(zs) + 1
        columns.append(Column(dx, dy, low, high, high - low == len(zs)))
    return tuple(columns)


@functools.lru_cache(maxsize=1024)
def orientations(
    shape: ShapeSpec, allow_reflection: bool = False
) -> tuple[tuple[Orientation, ...], dict[int, Orientation]]:
    """The distinct orientations of ``shape`` (ordered by smallest rotation id) and the
    orientation every allowed rotation id gives. Cached: callers must not change the dict."""
    limit = ALL_ROTATIONS if allow_reflection else PROPER_ROTATIONS
    found: dict[tuple, list[int]] = {}
    data: dict[tuple, tuple] = {}
    for rotation in ROTATIONS[:limit]:
        cubes, tops, key = orient(shape, rotation)
        found.setdefault(key, []).append(rotation.id)
        data.setdefault(key, (cubes, tops))
    distinct = []
    by_rotation: dict[int, Orientation] = {}
    for key, ids in sorted(found.items(), key=lambda item: item[1][0]):
        cubes, tops = data[key]
        o = Orientation(
            shape_id=shape.shape_id,
            rotation=ids[0],
            rotations=tuple(ids),
            cubes=cubes,
            tops=tops,
            geometry_key=cubes,
            colour_key=key,
            columns=_columns(cubes),
            size=tuple(max(c[i] for c in cubes) + 1 for i in range(3)),
        )
        distinct.append(o)
        for rid in ids:
            by_rotation[rid] = o
    return tuple(distinct), by_rotation


def geometric_orientation_count(cubes: Iterable[Cube]) -> int:
    """The number of distinct orientations by cubes alone (1.4.4): the "distinct orientations"
    column of 1.3."""
    cubes = list(cubes)
    return len({normalise(r.apply(c) for c in cubes) for r in _PROPER})


# -- one board size ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Anchor:
    """An on-board position of an orientation: corner ``(x, y)`` and, per footprint cell, the cell
    index with the column's lowest cz (``low``)."""

    x: int
    y: int
    cells: tuple[tuple[int, int], ...]  # (cell index, low)


def anchors(o: Orientation, width: int, depth: int) -> tuple[Anchor, ...]:
    """Every ``(x, y)`` at which the whole footprint of ``o`` is on a ``width`` x ``depth`` board."""
    sx, sy, _ = o.size
    out = []
    for y in range(depth - sy + 1):
        for x in range(width - sx + 1):
            out.append(Anchor(x, y, tuple(((x + c.dx) + (y + c.dy) * width, c.low) for c in o.columns)))
    return tuple(out)
