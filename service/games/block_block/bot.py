"""``block-block-strong``: alpha-beta search over the engine's own rules, on a node budget.

The bot reads ``SeatView.state`` (BLOCK.BLOCK has neither hidden information nor chance) and
searches the game tree with negamax and alpha-beta pruning, deepening one ply at a time until its
node budget for the level (``NODES``) would run out; the move of the deepest search that finished
is played. A node is a position after a placement, made with the engine's own ``placements``
(every rule, R-2.2 to R-2.8) and its own fold of ``piece_placed``, so the search plays exactly the
game the server does. Positions are scored, from the side to move, by the visible score
difference in half points (E-2) -- or exactly at the end: a win or loss (no legal placement, R-1.1,
or the final score with the match's tie-break rule) is worth more than any score. Children are
searched best static score first, which is what makes the pruning work. The budget counts nodes,
not seconds, so the same ``SeatView`` and seeded generator always give the same action; the
generator only orders moves of equal promise at the root.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any, cast

from service.games.block_block import placement
from service.games.block_block.engine import BlockBlock
from service.games.block_block.geometry import Orientation
from service.games.block_block.placement import Placement
from service.games.kit import Analyst, Engine
from service.games.protocol import Action

NODES = {1: 200_000, 2: 500_000, 3: 1_500_000}
"""Per level: the node budget of one move's search."""
WIN = 10_000
BROWN, WHITE = 0, 1
COLOURS = ("BROWN", "WHITE")


class _OutOfNodes(Exception):
    pass


class BlockBlockStrongBot:
    """``choose(seat_view, rng)``: see the module docstring."""

    def __init__(self, nodes: dict[int, int] | None = None):
        self.nodes = dict(nodes or NODES)

    def choose(self, seat: Any, rng: random.Random) -> dict[str, Any]:
        actions = seat.legal_actions
        state = seat.state
        if state is None or len(actions) <= 1:
            return rng.choice(actions) if len(actions) > 1 else actions[0]
        search = _Search(
            seat.rules,
            self.nodes.get(seat.level, self.nodes[max(self.nodes)]),
            state["rules"]["half_piece_scoring"] == "SPLIT",
        )
        move = search.best(state, rng)
        sid, o, a = move[0], move[2], move[3]
        for action in actions:
            if (action.get("shape"), action.get("rotation"), action.get("x"), action.get("y")) == (
                sid,
                o.rotation,
                a.x,
                a.y,
            ):
                return action
        return {"type": "place", "shape": sid, "rotation": o.rotation, "x": a.x, "y": a.y}


class _Search:
    def __init__(self, engine: BlockBlock, budget: int, split: bool = False):
        self.engine = engine
        self.budget = budget
        self.used = 0
        self.fold = engine._piece_placed
        self.tops_of: dict[tuple[int, int], tuple[Orientation, tuple[tuple[int, str], ...]]] = {}
        half = 0 if split else 1  # SPLIT: a half face scores for both, so it changes no difference
        # the worth of each top colour in half points, for brown and for white (E-2)
        self.worth = [
            {"BROWN": 2, "WHITE": -2, "HALF": half, None: 0},
            {"BROWN": -2, "WHITE": 2, "HALF": -half, None: 0},
        ]

    # -- positions ----------------------------------------------------------------------------

    def child(self, state: dict[str, Any], move: Placement) -> dict[str, Any]:
        """The position after ``move`` by the colour to move (the engine's own event data and fold)."""
        self.used += 1
        if self.used > self.budget:
            raise _OutOfNodes
        sid, cls, o, a, z = move
        colour = state["to_move"]
        data = placement.piece_placed_data(colour, sid, cls, o, a.x, a.y, z, state["move_no"] + 1)
        after = dict(state)
        self.fold(after, data, None)
        return after

    @staticmethod
    def score(state: dict[str, Any], colour: int) -> int:
        """Visible score difference in half points, for ``colour`` (E-2)."""
        tops = state["tops"]
        brown, white, half = tops.count("BROWN"), tops.count("WHITE"), tops.count("HALF")
        split = state["rules"]["half_piece_scoring"] == "SPLIT"
        diff = 2 * brown + half - 2 * white - (half if split else 0)
        return diff if colour == BROWN else -diff

    def final(self, state: dict[str, Any]) -> int | None:
        """For the colour to move: the exact value once every piece is placed (R-3.4), else None."""
        if any(state["remaining"][BROWN].values()) or any(state["remaining"][WHITE].values()):
            return None
        colour = state["to_move"]
        diff = self.score(state, colour)
        if diff == 0:
            rule = state["rules"]["tie_break"]
            if rule == "DRAW":
                return 0
            winner = BROWN if rule == "FIRST_PLAYER" else WHITE
            return WIN if winner == colour else -WIN
        return (WIN if diff > 0 else -WIN) + diff

    def static(self, state: dict[str, Any]) -> int:
        """For the colour to move: exact at the end, else the visible score difference."""
        done = self.final(state)
        return self.score(state, state["to_move"]) if done is None else done

    # -- search --------------------------------------------------------------------------------

    def columns(self, o: Orientation, width: int) -> tuple[tuple[int, str], ...]:
        """(cell offset, face label) of the top cube of each column ``o`` covers."""
        key = (id(o), width)
        found = self.tops_of.get(key)
        if found is None:
            top: dict[tuple[int, int], tuple[int, str]] = {}
            for (cx, cy, cz), label in zip(o.cubes, o.tops):
                if (cx, cy) not in top or cz > top[(cx, cy)][0]:
                    top[(cx, cy)] = (cz, label)
            found = self.tops_of[key] = (
                o,
                tuple((cx + cy * width, label) for (cx, cy), (_, label) in top.items()),
            )
        return found[1]

    def quick(self, state: dict[str, Any], move: Placement, base: int, last: bool) -> int:
        """The mover's value after ``move`` without making the position: ``base`` (the mover's
        visible score difference now) plus what changes on top of the columns it covers; exact
        when it is the ``last`` placement of the game."""
        self.used += 1
        if self.used > self.budget:
            raise _OutOfNodes
        _, _, o, a, _ = move
        colour = state["to_move"]
        width = state["width"]
        tops = state["tops"]
        worth = self.worth[colour]
        at = a.x + a.y * width
        value = base
        for offset, label in self.columns(o, width):
            new = (
                COLOURS[colour]
                if label == "OWNER"
                else (COLOURS[1 - colour] if label == "OPPONENT" else "HALF")
            )
            value += worth[new] - worth[tops[at + offset]]
        if not last:
            return value
        if value == 0:
            rule = state["rules"]["tie_break"]
            return 0 if rule == "DRAW" else (WIN if (rule == "FIRST_PLAYER") == (colour == BROWN) else -WIN)
        return (WIN if value > 0 else -WIN) + value

    def ordered(self, state: dict[str, Any], moves: Iterable[Placement]) -> list[tuple[int, Placement]]:
        """(quick value for the mover, move), best for the mover first."""
        base = self.score(state, state["to_move"])
        last = sum(state["remaining"][BROWN].values()) + sum(state["remaining"][WHITE].values()) == 1
        scored = [(self.quick(state, move, base, last), move) for move in moves]
        scored.sort(key=lambda c: -c[0])
        return scored

    def negamax(self, state: dict[str, Any], depth: int, alpha: int, beta: int) -> int:
        done = self.final(state)
        if done is not None:
            return done
        moves = placement.placements(state, state["to_move"])
        if not moves:
            return -WIN - 100  # no legal placement, the colour to move loses at once
        if depth == 0:
            return self.score(state, state["to_move"])
        children = self.ordered(state, moves)
        if depth == 1:
            return children[0][0]
        best = -WIN * 2
        for _, move in children:
            value = -self.negamax(self.child(state, move), depth - 1, -beta, -alpha)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best

    def best(self, state: dict[str, Any], rng: random.Random) -> Placement:
        moves = placement.placements(state, state["to_move"])
        order = list(range(len(moves)))
        rng.shuffle(order)  # moves of equal promise: the seeded generator's order
        root = [(self.static_after(state, moves[i]), k, moves[i]) for k, i in enumerate(order)]
        root.sort(key=lambda r: (-r[0], r[1]))
        chosen = root[0][2]
        plies_left = sum(state["remaining"][BROWN].values()) + sum(state["remaining"][WHITE].values())
        depth = 2
        while depth <= plies_left:
            try:
                value, move, values = self.root_search(state, [r[2] for r in root], depth)
            except _OutOfNodes:
                break
            chosen = move
            # the next iteration searches the best moves of this one first
            rank = {id(m): -v for m, v in values}
            root.sort(key=lambda r: rank[id(r[2])])
            if abs(value) >= WIN:  # the result is decided either way: deeper search changes nothing
                break
            depth += 1
        return chosen

    def static_after(self, state: dict[str, Any], move: Placement) -> int:
        self.used -= 1  # the root's own children are not charged to the budget
        return -self.static(self.child(state, move))

    def root_search(
        self, state: dict[str, Any], moves: Sequence[Placement], depth: int
    ) -> tuple[int, Placement, list[tuple[Placement, int]]]:
        alpha, beta = -WIN * 2, WIN * 2
        best_value: int | None = None
        best_move = moves[0]
        values: list[tuple[Placement, int]] = []
        for move in moves:
            after = self.child(state, move)
            value = -self.negamax(after, depth - 1, -beta, -alpha)
            values.append((move, value if value > alpha or best_value is None else alpha - 1))
            if best_value is None or value > best_value:
                best_value, best_move = value, move
                alpha = max(alpha, value)
        assert best_value is not None, "moves is never empty (moves[0] above)"
        return best_value, best_move, values


BOT = BlockBlockStrongBot()


class SearchAnalyst(Analyst):
    """The analysis's values (``service.domain.analysis``): the strong bot's search two plies deep for every legal
    placement (the placement, then the opponent's best answer by the bot's quick value), exact where
    the game ends; in points (the search counts half points), a decided game worth ``WIN / 2`` and more."""

    method = "block-block-strong's search: every placement and the best answer to it (two plies)"

    def values(
        self, engine: Engine, state: dict[str, Any], seat: int, actions: list[Action], played: int
    ) -> list[float | None]:
        block_block = cast(BlockBlock, engine)  # this game's analyst, given this game's engine
        search = _Search(block_block, budget=10**12, split=state["rules"]["half_piece_scoring"] == "SPLIT")
        moves: dict[tuple[object, ...], Placement] = {
            (move[0], move[2].rotation, move[3].x, move[3].y): move
            for move in placement.placements(state, state["to_move"])
        }
        values: list[float | None] = []
        for action in actions:
            move = moves.get((action.get("shape"), action.get("rotation"), action.get("x"), action.get("y")))
            if move is None:
                values.append(None)
                continue
            values.append(-search.negamax(search.child(state, move), 1, -WIN * 2, WIN * 2) / 2)
        return values


ANALYST = SearchAnalyst()
