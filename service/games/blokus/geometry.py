"""Blokus geometry on bitboards: the pieces, their orientations, and the board as one int.

Square ``(x, y)`` is bit ``x + y * stride``, where ``stride = width + 1``: each
row carries one guard column that is never a board square. Shifting a whole
board left or right by one then spills into a guard column instead of wrapping
onto the next row, and because a polyomino's columns form an unbroken range, a
piece sticking out on the right always covers the guard column. So "every square
of the piece is free" is one AND of shifted free-square boards, with no bounds
test per square.

Legal-move generation is table driven: for each of the few distinct square
offsets used by any orientation it shifts the free-square board and the
attach-square board once, and an orientation's legal anchors are then
``OR(attach shifts) & AND(free shifts)`` over its squares -- a handful of
big-int operations per orientation, whatever the number of pieces on the board.
``Board.placements_reference`` does this in loops; ``Board.placements`` derives
each orientation's boards from a smaller shape's, in code ``movegen`` writes out
and compiles per board size, and lists the same moves in the same order.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from itertools import compress
from pathlib import Path

from service.games.blokus import movegen

Cell = tuple[int, int]


@dataclass(frozen=True)
class Piece:
    index: int
    name: str
    size: int


@dataclass(frozen=True)
class Orientation:
    index: int
    piece: int
    cells: tuple[Cell, ...]  # sorted, normalised so the smallest x and y are 0


def _load_pieces() -> list[tuple[str, tuple[Cell, ...]]]:
    pack = json.loads((Path(__file__).with_name("pieces.json")).read_text(encoding="utf-8"))
    pieces = []
    for entry in pack["pieces"]:
        cells = tuple(
            (x, y) for y, row in enumerate(entry["shape"]) for x, mark in enumerate(row) if mark == "X"
        )
        if not cells:
            raise ValueError(f"blokus piece {entry['name']!r}: shape has no square")
        pieces.append((entry["name"], cells))
    return pieces


def _normalise(cells: Collection[Cell]) -> tuple[Cell, ...]:
    min_x = min(x for x, _ in cells)
    min_y = min(y for _, y in cells)
    return tuple(sorted((x - min_x, y - min_y) for x, y in cells))


def _orientations_of(cells: Collection[Cell]) -> list[tuple[Cell, ...]]:
    seen = set()
    for transpose in (False, True):
        for flip_x in (1, -1):
            for flip_y in (1, -1):
                moved = [((y, x) if transpose else (x, y)) for x, y in cells]
                seen.add(_normalise([(flip_x * x, flip_y * y) for x, y in moved]))
    return sorted(seen)


_PIECE_DATA = _load_pieces()
PIECES: tuple[Piece, ...] = tuple(Piece(i, name, len(cells)) for i, (name, cells) in enumerate(_PIECE_DATA))
PIECE_NAMES: tuple[str, ...] = tuple(p.name for p in PIECES)
PIECE_BY_NAME: dict[str, Piece] = {p.name: p for p in PIECES}
ORIENTATIONS: tuple[Orientation, ...] = tuple(
    Orientation(index, piece_index, cells)
    for index, (piece_index, cells) in enumerate(
        (i, oriented) for i, (_, cells) in enumerate(_PIECE_DATA) for oriented in _orientations_of(cells)
    )
)
SHAPES: dict[frozenset[Cell], int] = {frozenset(o.cells): o.index for o in ORIENTATIONS}


class Board:
    """The squares of a ``width`` x ``height`` board and every table the move generator needs."""

    def __init__(self, width: int, height: int):
        self.width = width
        self.height = height
        self.stride = stride = width + 1
        self.squares = sum(1 << (x + y * stride) for y in range(height) for x in range(width))
        shifts = [tuple(x + y * stride for x, y in o.cells) for o in ORIENTATIONS]
        self.slot_shifts = sorted({s for sh in shifts for s in sh})
        slot_of = {s: k for k, s in enumerate(self.slot_shifts)}
        self.masks = [sum(1 << s for s in sh) for sh in shifts]
        self._bytes = (self.squares.bit_length() + 7) // 8
        self._dense = self.squares.bit_length() <= 128
        self._byte_moves: dict[int, tuple] = {}
        # per piece: (orientation index, slot indices of its squares)
        self.by_piece = [
            [
                (o.index, tuple(slot_of[s] for s in shifts[o.index]))
                for o in ORIENTATIONS
                if o.piece == p.index
            ]
            for p in PIECES
        ]

    def bit(self, x: int, y: int) -> int:
        return 1 << (x + y * self.stride)

    def on_board(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def mask(self, cells: Iterable[Cell]) -> int:
        stride = self.stride
        m = 0
        for x, y in cells:
            m |= 1 << (x + y * stride)
        return m

    def cells(self, mask: int) -> list[Cell]:
        out = []
        stride = self.stride
        while mask:
            low = mask & -mask
            i = low.bit_length() - 1
            out.append((i % stride, i // stride))
            mask ^= low
        return out

    def placement_cells(self, orientation: int, anchor: int) -> list[list[int]]:
        ax, ay = anchor % self.stride, anchor // self.stride
        return [[ax + x, ay + y] for x, y in ORIENTATIONS[orientation].cells]

    def identify(self, cells: Collection[Cell]) -> tuple[int, int] | None:
        """(orientation, anchor) of a set of on-board squares, or None if they form no piece."""
        min_x = min(x for x, _ in cells)
        min_y = min(y for _, y in cells)
        o = SHAPES.get(frozenset((x - min_x, y - min_y) for x, y in cells))
        if o is None or len(ORIENTATIONS[o].cells) != len(cells):
            return None
        return o, min_x + min_y * self.stride

    # -- neighbourhoods (results are clipped to the board) --------------------

    def edge_neighbours(self, mask: int) -> int:
        s = self.stride
        return ((mask << 1) | (mask >> 1) | (mask << s) | (mask >> s)) & self.squares

    def corner_neighbours(self, mask: int) -> int:
        s = self.stride
        return ((mask << (s + 1)) | (mask << (s - 1)) | (mask >> (s - 1)) | (mask >> (s + 1))) & self.squares

    def free_for(self, own: int, occupied: int) -> int:
        """Squares a piece of the colour owning ``own`` may cover: empty and not edge-adjacent to its own."""
        return self.squares & ~(occupied | self.edge_neighbours(own))

    # -- move generation -------------------------------------------------------

    def _anchors(self, free: int, attach: int, pieces: Iterable[int]) -> Iterator[tuple[int, int]]:
        """Yield (orientation, anchors bitboard) for each orientation of ``pieces`` with a legal anchor."""
        shifts = self.slot_shifts
        free_at = [free >> s for s in shifts]
        attach_at = [attach >> s for s in shifts]
        by_piece = self.by_piece
        for p in pieces:
            for o, slots in by_piece[p]:
                hits = 0
                for k in slots:
                    hits |= attach_at[k]
                if not hits:
                    continue
                for k in slots:
                    hits &= free_at[k]
                    if not hits:
                        break
                if hits:
                    yield o, hits

    def placements(
        self, free: int, attach: int, pieces: Iterable[int], colour: int = 0
    ) -> list[tuple[int, int, int]]:
        """Every (colour, orientation, anchor) of ``pieces`` on ``free`` squares covering an ``attach`` square.

        The list of ``placements_reference``, element for element, by the generator ``movegen``
        compiles for this board. The common case -- pieces in ascending order, as the engine keeps
        them, on a board too big for the byte memo -- is one call that writes out the moves too."""
        if not attach:
            return []
        pieces = tuple(pieces)
        need = movegen.need_mask(pieces)
        if need is not None and not self._dense:
            return self._generate_moves(free, attach, need, colour)
        if need is None:  # any order, even repeats: follow it
            anchors = dict(self._generate_pairs(free, attach, sum(1 << p for p in set(pieces))))
            pairs = [(o, anchors[o]) for p in pieces for o, _ in self.by_piece[p] if o in anchors]
        else:
            pairs = self._generate_pairs(free, attach, need)
        if not self._dense:
            return [(colour, o, b) for o, hits in pairs for b in _bit_indices(hits)]
        return self._byte_memo_moves(pairs, colour)

    def _byte_memo_moves(self, pairs: Iterable[tuple[int, int]], colour: int) -> list[tuple[int, int, int]]:
        """The moves of (orientation, anchors) ``pairs``, a byte of anchors at a time from the memo
        ``placements_reference`` fills too; ``compress`` skips the empty bytes at C speed."""
        found: list[tuple[int, int, int]] = []
        memo, width = self._byte_moves, self._bytes
        offsets = range(width)
        for o, hits in pairs:
            key = (colour * len(ORIENTATIONS) + o) * width * 256
            row = hits.to_bytes(width, "little")
            for i in compress(offsets, row):
                moves = memo.get(key + i * 256 + row[i])
                if moves is None:
                    moves = memo[key + i * 256 + row[i]] = tuple(
                        (colour, o, 8 * i + bit) for bit in _BITS[row[i]]
                    )
                found += moves
        return found

    @functools.cached_property
    def _generate_moves(self) -> Callable[[int, int, int, int], list[tuple[int, int, int]]]:
        return movegen.compile_source(self.movegen_source(moves=True), self.squares.bit_length())

    @functools.cached_property
    def _generate_pairs(self) -> Callable[[int, int, int], list[tuple[int, int]]]:
        return movegen.compile_source(self.movegen_source(moves=False), self.squares.bit_length())

    def movegen_source(self, moves: bool) -> str:
        """The Python source of this board's compiled move generator (see ``movegen.source``)."""
        return movegen.source(ORIENTATIONS, len(PIECES), self.stride, moves)

    def placements_reference(
        self, free: int, attach: int, pieces: Iterable[int], colour: int = 0
    ) -> list[tuple[int, int, int]]:
        """``placements`` as it was before ``movegen``: kept so tests and the benchmark can check and
        time the compiled generator against it.

        The hot loop of every bot and of every legal-actions call, so ``_anchors`` is written out
        here rather than called. On small boards (the solo rectangle, where hundreds of anchors are
        legal at once) the moves come out a byte of anchors at a time, from a memo of the move tuples
        each (colour, orientation, byte position, byte value) stands for."""
        found: list[tuple[int, int, int]] = []
        if not attach:
            return found
        shifts = self.slot_shifts
        free_at = [free >> s for s in shifts]
        attach_at = [attach >> s for s in shifts]
        add, extend, by_piece = found.append, found.extend, self.by_piece
        dense, width, memo = self._dense, self._bytes, self._byte_moves
        for p in pieces:
            for o, slots in by_piece[p]:
                hits = 0
                for k in slots:
                    hits |= attach_at[k]
                if not hits:
                    continue
                for k in slots:
                    hits &= free_at[k]
                    if not hits:
                        break
                else:
                    if dense:
                        key = (colour * len(ORIENTATIONS) + o) * width * 256
                        for i, byte in enumerate(hits.to_bytes(width, "little")):
                            if byte:
                                moves = memo.get(key + i * 256 + byte)
                                if moves is None:
                                    moves = memo[key + i * 256 + byte] = tuple(
                                        (colour, o, 8 * i + bit) for bit in _BITS[byte]
                                    )
                                extend(moves)
                    else:
                        while hits:
                            low = hits & -hits
                            add((colour, o, low.bit_length() - 1))
                            hits ^= low
        return found

    def has_placement(self, free: int, attach: int, pieces: Iterable[int]) -> bool:
        return bool(attach) and next(self._anchors(free, attach, pieces), None) is not None


_BITS = [tuple(bit for bit in range(8) if byte >> bit & 1) for byte in range(256)]


def _bit_indices(bits: int) -> list[int]:
    found = []
    while bits:
        low = bits & -bits
        found.append(low.bit_length() - 1)
        bits ^= low
    return found


@functools.cache
def board(width: int, height: int) -> Board:
    return Board(width, height)
