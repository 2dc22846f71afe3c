"""``blokus-strong``: a shallow, selective search over the engine's bitboards.

Every legal placement is scored by a static evaluation of the position after it, from the bot's seat:
for each colour, the squares it has placed, plus a weight times its *corners* (the squares a later piece
of that colour could attach to: touching it corner to corner, empty, and not edge to edge with it), plus
a weight times its *reach* (the squares that colour could still cover within ``REACH_STEPS`` edge steps
of its corners, through squares it may use), the bot's colours counted for it and its opponents' against
it (a shared colour counts for no one). The best few placements by that score are then searched one
reply deeper: the colour that moves next answers with the placement that is best for its own seat, and
the placement whose worst answer leaves the bot best off is played. How many placements are searched
that way is fixed per level (``WIDTH``), so the bot does the same work, and makes the same choice,
whatever the machine: the search is an iteration budget, not a clock. Exact ties are broken by the
seeded generator the server passes in.

The bot reads ``SeatView.state`` (Blokus has neither hidden information nor chance) and calls the
engine's move generator only; it never plays through ``Blokus.play``.
"""

from __future__ import annotations

import random
from typing import Any, cast

from service.games.blokus.engine import VARIANTS, Blokus, Variant
from service.games.blokus.geometry import ORIENTATIONS, PIECE_BY_NAME, PIECES
from service.games.kit import Analyst, Engine
from service.games.protocol import Action

WIDTH = {1: 6, 2: 12, 3: 24}
"""Per level: how many of the best placements by static score get the reply search."""
CORNER_WEIGHT = 0.25
"""What one corner square (a place a later piece can attach) is worth, in placed squares."""
REACH_WEIGHT = 0.3
REACH_STEPS = 3
SIZES = tuple(len(o.cells) for o in ORIENTATIONS)


class BlokusStrongBot:
    """``choose(seat_view, rng)``: see the module docstring."""

    def __init__(self, width: dict[int, int] | None = None):
        self.width = dict(width or WIDTH)

    def choose(self, seat: Any, rng: random.Random) -> dict[str, Any]:
        state = seat.state
        actions = seat.legal_actions
        if state is None or len(actions) <= 1:
            return rng.choice(actions) if len(actions) > 1 else actions[0]
        engine = seat.rules
        moves = engine.all_placements(state)
        if not moves:  # only a voluntary pass is left
            return next((a for a in actions if a["type"] == "pass"), actions[0])
        variant = VARIANTS[state["variant"]]
        search = _Search(engine, state, variant, seat.seat)
        order = list(range(len(moves)))
        rng.shuffle(order)  # exact ties go to the seeded generator's order
        scored = [(search.value_after(moves[i]), k, i) for k, i in enumerate(order)]
        scored.sort(key=lambda t: (-t[0], t[1]))
        width = self.width.get(seat.level, self.width[max(self.width)])
        best_i, best_value = scored[0][2], None
        for _, _, i in scored[:width]:
            value = search.reply_value(moves[i])
            if best_value is None or value > best_value:
                best_i, best_value = i, value
        return _action(variant, moves[best_i])


def _action(variant: Variant, move: tuple[int, int, int]) -> dict[str, Any]:
    colour, orientation, anchor = move
    return {
        "type": "place",
        "colour": variant.colours[colour],
        "piece": PIECES[ORIENTATIONS[orientation].piece].name,
        "cells": variant.board.placement_cells(orientation, anchor),
    }


class _Search:
    def __init__(self, engine: Blokus, state: dict[str, Any], variant: Variant, seat: int):
        self.engine = engine
        self.state = state
        self.variant = variant
        self.board = variant.board
        self.seat = seat
        self.n = len(variant.colours)
        self.total = sum(PIECE_BY_NAME[name].size for name in variant.pieces)
        self.left = [sum(PIECE_BY_NAME[name].size for name in pieces) for pieces in state["pieces_left"]]
        self.owner = [
            engine.seat_for(state, c) if variant.seat_of_colour[c] is not None else None
            for c in range(self.n)
        ]
        self.corner_contact = state["corner_contact"]
        board = self.board
        if variant.starts is None:
            self.starts = [board.squares] * self.n
        elif state["start_corners"] == "any_free":
            self.starts = [board.mask(variant.starts)] * self.n
        else:
            self.starts = [board.bit(*variant.starts[c]) for c in range(self.n)]

    def weights(self, seat: int) -> list[float]:
        """How much each colour counts for ``seat``: +1 its own, minus its share of each opponent's."""
        opponents = {o for o in self.owner if o is not None and o != seat}
        against = -1.0 / len(opponents) if opponents else 0.0
        return [0.0 if o is None else (1.0 if o == seat else against) for o in self.owner]

    def colour_values(self, cells: list[int], left: list[int], out: list[bool]) -> list[float]:
        board = self.board
        occupied = 0
        for mask in cells:
            occupied |= mask
        empty = board.squares & ~occupied
        values: list[float] = []
        for c in range(self.n):
            placed = self.total - left[c]
            if out[c] or not left[c]:
                values.append(placed)
                continue
            own = cells[c]
            if own:
                free = empty & ~board.edge_neighbours(own)
                attach = board.corner_neighbours(own) & free if self.corner_contact else free
            else:
                attach = self.starts[c] & empty
                free = empty
            value = placed + CORNER_WEIGHT * attach.bit_count()
            if REACH_WEIGHT:
                reach = attach
                for _ in range(REACH_STEPS):
                    reach |= board.edge_neighbours(reach) & free
                value += REACH_WEIGHT * reach.bit_count()
            values.append(value)
        return values

    def _after(
        self, cells: list[int], left: list[int], move: tuple[int, int, int]
    ) -> tuple[list[int], list[int]]:
        colour, o, anchor = move
        cells = list(cells)
        cells[colour] |= self.board.masks[o] << anchor
        left = list(left)
        left[colour] -= SIZES[o]
        return cells, left

    def value_after(
        self,
        move: tuple[int, int, int],
        seat: int | None = None,
        cells: list[int] | None = None,
        left: list[int] | None = None,
    ) -> float:
        """The static value, for ``seat`` (the bot's by default), of the position after ``move``."""
        cells, left = self._after(
            self.state["cells"] if cells is None else cells, self.left if left is None else left, move
        )
        values = self.colour_values(cells, left, self.state["out"])
        return sum(w * v for w, v in zip(self.weights(self.seat if seat is None else seat), values))

    def reply_value(self, move: tuple[int, int, int]) -> float:
        """The bot's value after ``move`` and the answer that is best for the seat that moves next."""
        state = self.state
        cells, left = self._after(state["cells"], self.left, move)
        colour = move[0]
        pieces_left = list(state["pieces_left"])
        name = PIECES[ORIENTATIONS[move[1]].piece].name
        pieces_left[colour] = [p for p in pieces_left[colour] if p != name]
        out = state["out"]
        if state["to_move"] is None:  # free order: the solo player moves again, with every colour
            nxt = None
            reply_seat = self.seat
        else:
            nxt = next(
                (
                    (colour + step) % self.n
                    for step in range(1, self.n + 1)
                    if not out[(colour + step) % self.n]
                ),
                None,
            )
            if nxt is None:
                return self.value_after(move)
            reply_seat = self.engine.seat_for({**state, "pieces_left": pieces_left}, nxt)
        after = {**state, "cells": cells, "pieces_left": pieces_left, "to_move": nxt}
        replies = self.engine.all_placements(after)
        if not replies:
            return self.value_after(move)
        mine = self.weights(self.seat)
        theirs = mine if reply_seat == self.seat else self.weights(reply_seat)
        best_theirs, best_mine = None, 0.0
        for reply in replies:
            c2, l2 = self._after(cells, left, reply)
            values = self.colour_values(c2, l2, out)
            value = sum(w * v for w, v in zip(theirs, values))
            if best_theirs is None or value > best_theirs:
                best_theirs = value
                best_mine = sum(w * v for w, v in zip(mine, values))
        return best_mine


BOT = BlokusStrongBot()


class SearchAnalyst(Analyst):
    """The analysis's values (``service.domain.analysis``): the strong bot's search at level 1, from the seat that
    played. Every placement gets the static value; the ``WIDTH[1]`` best by it and the played one get the
    reply search, and the best of those is the best found. In squares, the unit of the static value."""

    method = (
        f"blokus-strong's search: static value of every placement, one reply deeper for the best {WIDTH[1]}"
    )

    def values(
        self, engine: Engine, state: dict[str, Any], seat: int, actions: list[Action], played: int
    ) -> list[float | None]:
        blokus = cast(Blokus, engine)  # this game's analyst, given this game's engine
        moves = blokus.all_placements(state)
        variant = VARIANTS[state["variant"]]
        search = _Search(blokus, state, variant, seat)
        by_action = {_key(_action(variant, move)): move for move in moves}
        found = [by_action.get(_key(action)) for action in actions]
        static = [None if m is None else search.value_after(m) for m in found]
        valued = {i: v for i, v in enumerate(static) if v is not None}
        ranked = sorted(valued, key=lambda i: (-valued[i], i))
        values: list[float | None] = [None] * len(actions)
        for i in {*ranked[: WIDTH[1]], played}:
            move = found[i]
            if move is not None:
                values[i] = search.reply_value(move)
            else:  # a pass: the position as it stands, for the seat
                values[i] = sum(
                    w * v
                    for w, v in zip(
                        search.weights(seat), search.colour_values(state["cells"], search.left, state["out"])
                    )
                )
        return values


def _key(action: dict[str, Any]) -> tuple:
    return (action.get("colour"), action.get("piece"), tuple(sorted(map(tuple, action.get("cells", ())))))


ANALYST = SearchAnalyst()
