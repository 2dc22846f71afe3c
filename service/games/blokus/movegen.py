"""Blokus legal-move generation, compiled once per board size into straight-line Python.

``geometry.Board.placements_reference`` finds an orientation's legal anchors as
``OR(attach shifts) & AND(free shifts)`` over its squares, in loops over slot indices; in CPython
those loops, not the big-int operations, take most of the time. Two things remove most of it:

* Every orientation is a smaller shape plus one square (the 91 orientations of the standard set
  are exactly the polyominoes of 1 to 5 squares, so the smaller shape is always another
  orientation). Its "all squares free" board is then the smaller shape's board, shifted to the
  same anchor, AND one shifted free board, and its "covers an attach square" board likewise with
  OR: two big-int operations per orientation instead of two per square, shared by every piece.
* These derivations, and the loop that turns anchor bits into moves, are written out as Python
  source and compiled per board size, so at run time they are local variables and constants,
  with no loop over squares and no table indexing.

The result is the reference's list, element for element and in the same order.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

Cell = tuple[int, int]


class Oriented(Protocol):
    """One orientation of a piece, as ``source`` reads it (``geometry.Orientation``)."""

    @property
    def index(self) -> int: ...

    @property
    def piece(self) -> int: ...

    @property
    def cells(self) -> tuple[Cell, ...]: ...


@dataclass(frozen=True)
class Node:
    """The free/attach boards of one shape: ``parent``'s, shifted by ``offset``, plus ``cell``."""

    cells: tuple[Cell, ...]
    parent: int | None  # None: a single square
    cell: Cell
    offset: Cell  # where ``parent``'s normalised shape sits inside ``cells``


def _normalise(cells: Collection[Cell]) -> tuple[tuple[Cell, ...], Cell]:
    dx, dy = min(x for x, _ in cells), min(y for _, y in cells)
    return tuple(sorted((x - dx, y - dy) for x, y in cells)), (dx, dy)


def derivations(shapes: Sequence[tuple[Cell, ...]]) -> tuple[list[Node], list[int]]:
    """Nodes in an order where each parent comes first, and the node of each of ``shapes``.

    A shape prefers as parent a shape already known with no shift (one big-int shift fewer);
    a parent that is no orientation (possible only for a piece set other than the standard
    one) is made a node of its own."""
    nodes: list[Node] = []
    index: dict[tuple[Cell, ...], int] = {}
    wanted = set(shapes)

    def node(cells: tuple[Cell, ...]) -> int:
        if cells not in index:
            if len(cells) == 1:
                nodes.append(Node(cells, None, cells[0], (0, 0)))
            else:
                options = [(_normalise([c for c in cells if c != cell]), cell) for cell in cells]
                (sub, offset), cell = min(
                    options, key=lambda o: (o[0][0] not in index and o[0][0] not in wanted, o[0][1] != (0, 0))
                )
                nodes.append(Node(cells, node(sub), cell, offset))
            index[cells] = len(nodes) - 1
        return index[cells]

    for cells in sorted(shapes, key=len):
        node(cells)
    return nodes, [index[cells] for cells in shapes]


def _node_line(n: int, node: Node, stride: int) -> str:
    slot = node.cell[0] + node.cell[1] * stride
    if node.parent is None:
        return f"f{n} = F{slot}; t{n} = A{slot}"
    shift = node.offset[0] + node.offset[1] * stride
    fits, touches = f"f{node.parent}", f"t{node.parent}"
    if shift:
        fits, touches = f"({fits} >> {shift})", f"({touches} >> {shift})"
    return f"f{n} = {fits} & F{slot}; t{n} = {touches} | A{slot}"


def _emit_lines(o: int, n: int, moves: bool) -> list[str]:
    """The anchors of orientation ``o``: as moves, highest anchor first, or as one (o, anchors) pair."""
    if not moves:
        return [f"h = f{n} & t{n}", f"if h: add(({o}, h))"]
    return [
        f"h = f{n} & t{n}",
        "while h:",
        "    b = h.bit_length() - 1",
        f"    add((colour, {o}, b))",
        "    h ^= BIT[b]",
    ]


def source(orientations: Sequence[Oriented], pieces: int, stride: int, moves: bool) -> str:
    """A function of (free, attach, need[, colour]), ``need`` a bitmask of piece indices.

    ``moves``: it returns the move list of the needed pieces in ascending piece order (it adds
    them last piece first, highest anchor first, then reverses the list: taking the highest bit
    is one big-int operation cheaper than the lowest). Otherwise: the (orientation, anchors)
    pairs with any legal anchor, in ascending order."""
    nodes, node_of = derivations([o.cells for o in orientations])
    shared = {node.parent for node in nodes}
    slots = sorted({node.cell[0] + node.cell[1] * stride for node in nodes})
    lines = ["found = []; add = found.append", "F0 = free; A0 = attach"]
    lines += [f"F{s} = free >> {s}; A{s} = attach >> {s}" for s in slots if s]
    lines += [_node_line(n, node, stride) for n, node in enumerate(nodes) if n in shared]
    order = range(pieces - 1, -1, -1) if moves else range(pieces)
    for p in order:
        mine = [o.index for o in orientations if o.piece == p]
        lines.append(f"if need & {1 << p}:")
        body = [_node_line(node_of[o], nodes[node_of[o]], stride) for o in mine if node_of[o] not in shared]
        for o in reversed(mine) if moves else mine:
            body += _emit_lines(o, node_of[o], moves)
        lines += ["    " + line for line in body]
    lines += ["found.reverse()"] * moves + ["return found"]
    args = "free, attach, need, colour, BIT=BIT" if moves else "free, attach, need"  # BIT: a local is faster
    return f"def generate({args}):\n" + "\n".join("    " + line for line in lines) + "\n"


def compile_source(text: str, bits: int) -> Callable[..., Any]:
    namespace: dict[str, Any] = {"BIT": [1 << b for b in range(bits)]}
    exec(compile(text, "<blokus movegen>", "exec"), namespace)
    return namespace["generate"]


@functools.lru_cache(maxsize=4096)
def need_mask(pieces: tuple[int, ...]) -> int | None:
    """The bitmask of ``pieces``, or None unless strictly ascending (then only the generic
    order-following path gives the reference's order)."""
    if any(a >= b for a, b in itertools.pairwise(pieces)):
        return None
    mask = 0
    for p in pieces:
        mask |= 1 << p
    return mask
