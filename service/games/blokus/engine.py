"""Blokus: a perfect-information territory game without chance, on bitboards.

Rules: ``../shared/rules/blokus.md`` (the spec) after the Japanese rulebook.
Each colour places its 21 pieces one at a time; a colour's first piece covers
its start corner, every later one touches its own colour corner to corner and
never edge to edge. A colour that cannot place is out; the game ends when
every colour is out. The rule numbers of the spec are quoted where they are
enforced.

State (plain data, see ``setup``): one bitboard per colour (``cells``, see
``geometry``), the pieces each colour still holds, which colours are out and
which colour moves. Events: ``placed``, ``colour_out`` and ``game_over``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.games.blokus import geometry
from service.games.blokus.actions import BlokusAction
from service.games.blokus.geometry import PIECE_BY_NAME, PIECE_NAMES, PIECES, Board
from service.games.protocol import (
    Action,
    Event,
    GameInfo,
    IllegalAction,
    InvalidOptions,
    State,
    fold,
    ranks,
)


@dataclass(frozen=True)
class Variant:
    name: str
    width: int
    height: int
    colours: tuple[str, ...]
    starts: tuple[tuple[int, int], ...]  # one start square per colour (spec 1.5)
    players: int
    seat_of_colour: tuple[int, ...]  # who places each colour

    @property
    def board(self) -> Board:
        return geometry.board(self.width, self.height)


VARIANTS: dict[str, Variant] = {
    # spec 3.1: four players, one colour each, play order blue, yellow, red, green (1.2)
    "four_player": Variant(
        "four_player", 20, 20, ("blue", "yellow", "red", "green"),
        ((0, 0), (19, 0), (19, 19), (0, 19)), 4, (0, 1, 2, 3),
    ),
}

OPTIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "variant": {"enum": sorted(VARIANTS), "default": "four_player",
                    "description": "Which board and player count (spec section 3)."},
        "scoring": {"enum": ["simple", "advanced"], "default": "simple",
                    "description": "simple: squares left, fewest wins (spec 4.1); "
                                   "advanced: -1 per square left, +15 all placed, +20 if the last was the monomino (4.2)."},
        "start_corners": {"enum": ["fixed", "any_free"], "default": "fixed",
                          "description": "fixed: each colour starts in its own corner (spec 1.5, 2.2); "
                                         "any_free: a colour's first piece may cover any empty board corner."},
        "allow_voluntary_pass": {"type": "boolean", "default": False,
                                 "description": "Let a colour stop placing (it is then out for the rest of the game, spec 2.7)."},
    },
}


class Blokus:
    info = GameInfo(
        id="blokus",
        name="Blokus",
        min_players=4,
        max_players=4,
        hidden_information=False,
        chance=False,
        description="Place your 21 pieces corner to corner; never edge to edge with your own colour.",
    )
    options_schema = OPTIONS_SCHEMA
    action_schema = BlokusAction

    # -- setup -----------------------------------------------------------------

    def resolve_options(self, options: dict[str, Any], players: int) -> dict[str, Any]:
        resolved = {key: spec["default"] for key, spec in OPTIONS_SCHEMA["properties"].items()}
        resolved.update(options)
        variant = VARIANTS[resolved["variant"]]
        if players != variant.players:
            raise InvalidOptions(
                "players", f"the {variant.name} variant is for {variant.players} players, not {players}"
            )
        return resolved

    def setup(self, options: dict[str, Any], players: int, seed: str, content: Any = None) -> State:
        variant = VARIANTS[options["variant"]]
        n = len(variant.colours)
        return {
            "variant": variant.name,
            "scoring": options["scoring"],
            "start_corners": options["start_corners"],
            "allow_voluntary_pass": options["allow_voluntary_pass"],
            "cells": [0] * n,
            "pieces_left": [list(PIECE_NAMES) for _ in range(n)],
            "last_piece": [None] * n,
            "out": [False] * n,
            "to_move": 0,
            "placements": 0,
        }

    # -- who acts ----------------------------------------------------------------

    def to_act(self, state: State) -> list[int]:
        colour = state["to_move"]
        if colour is None:
            return []
        return [VARIANTS[state["variant"]].seat_of_colour[colour]]

    def is_over(self, state: State) -> bool:
        return state["to_move"] is None

    # -- the rules of placement ----------------------------------------------------

    def _attach_squares(self, state: State, colour: int, free: int) -> int:
        """Squares a new piece of ``colour`` must cover one of (spec 2.2, 2.3)."""
        variant = VARIANTS[state["variant"]]
        board = variant.board
        own = state["cells"][colour]
        if own:
            return board.corner_neighbours(own) & free
        if state["start_corners"] == "fixed":
            starts = [variant.starts[colour]]
        else:
            starts = [(0, 0), (board.width - 1, 0), (0, board.height - 1), (board.width - 1, board.height - 1)]
        return board.mask(starts) & free

    def _occupied(self, state: State) -> int:
        occupied = 0
        for cells in state["cells"]:
            occupied |= cells
        return occupied

    def placements(self, state: State, colour: int) -> list[tuple[int, int]]:
        """All legal (orientation, anchor) pairs of ``colour``: the engine's fast move list."""
        board = VARIANTS[state["variant"]].board
        free = board.free_for(state["cells"][colour], self._occupied(state))
        attach = self._attach_squares(state, colour, free)
        pieces = [PIECE_BY_NAME[name].index for name in state["pieces_left"][colour]]
        return board.placements(free, attach, pieces)

    def has_placement(self, state: State, colour: int) -> bool:
        board = VARIANTS[state["variant"]].board
        free = board.free_for(state["cells"][colour], self._occupied(state))
        attach = self._attach_squares(state, colour, free)
        pieces = [PIECE_BY_NAME[name].index for name in state["pieces_left"][colour]]
        return board.has_placement(free, attach, pieces)

    def check_placement(self, state: State, colour: int, piece: str | None, cells) -> tuple[str, int]:
        """The piece name and square mask of a placement, or IllegalAction naming the rule it breaks."""
        variant = VARIANTS[state["variant"]]
        board = variant.board
        cells = [tuple(c) for c in cells]
        if len(set(cells)) != len(cells):
            raise IllegalAction("not_a_piece", "a square is listed twice")
        for x, y in cells:
            if not board.on_board(x, y):
                raise IllegalAction(
                    "off_board", f"square ({x}, {y}) is off the {board.width}x{board.height} board (spec 2.1)"
                )
        found = board.identify(cells)
        if found is None:
            raise IllegalAction("not_a_piece", "these squares do not form any Blokus piece (spec 1.3)")
        name = PIECES[geometry.ORIENTATIONS[found[0]].piece].name
        if piece is not None and piece != name:
            raise IllegalAction("piece_mismatch", f"these squares form the {name} piece, not {piece}")
        if name not in state["pieces_left"][colour]:
            raise IllegalAction("piece_used", f"{variant.colours[colour]} has already placed its {name} piece")
        mask = board.mask(cells)
        own = state["cells"][colour]
        if mask & self._occupied(state):
            raise IllegalAction("overlap", "the piece would cover a square that is already taken (spec 2.1)")
        if not own:
            if not mask & self._attach_squares(state, colour, board.squares & ~self._occupied(state)):
                where = (
                    f"the {variant.colours[colour]} start corner {variant.starts[colour]}"
                    if state["start_corners"] == "fixed" else "an empty corner of the board"
                )
                raise IllegalAction("must_cover_start", f"a colour's first piece must cover {where} (spec 2.2)")
            return name, mask
        if mask & board.edge_neighbours(own):
            raise IllegalAction(
                "edge_contact", f"the piece would share an edge with another {variant.colours[colour]} piece (spec 2.4)"
            )
        if not mask & board.corner_neighbours(own):
            raise IllegalAction(
                "corner_rule",
                f"the piece must touch another {variant.colours[colour]} piece corner to corner (spec 2.3)",
            )
        return name, mask

    # -- actions to events ---------------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if seat not in self.to_act(state):
            return []
        colour = state["to_move"]
        board = VARIANTS[state["variant"]].board
        actions: list[Action] = [
            {
                "type": "place",
                "piece": PIECES[geometry.ORIENTATIONS[o].piece].name,
                "cells": [list(c) for c in board.placement_cells(o, anchor)],
            }
            for o, anchor in self.placements(state, colour)
        ]
        if state["allow_voluntary_pass"]:
            actions.append({"type": "pass"})
        return actions

    def play(self, state: State, seat: int, action: Action) -> list[Event]:
        if self.is_over(state):
            raise IllegalAction("game_over", "the game is over")
        if seat not in self.to_act(state):
            raise IllegalAction("not_your_turn", "it is not this seat's turn")
        variant = VARIANTS[state["variant"]]
        colour = state["to_move"]
        if action["type"] == "pass":
            if not state["allow_voluntary_pass"]:
                raise IllegalAction("pass_not_allowed", "there is no voluntary pass in this match (spec 2.7)")
            events = [self._out(variant, colour, "passed")]
        else:
            name, mask = self.check_placement(state, colour, action.get("piece"), action["cells"])
            cells = sorted(variant.board.cells(mask), key=lambda c: (c[1], c[0]))
            events = [{
                "type": "placed",
                "seat": seat,
                "data": {"colour": variant.colours[colour], "piece": name, "cells": [list(c) for c in cells]},
            }]
        return events + self._consequences(fold(self, state, events))

    def _consequences(self, state: State) -> list[Event]:
        """Colours skipped because they cannot place (spec 2.7), then the end (2.8)."""
        variant = VARIANTS[state["variant"]]
        events: list[Event] = []
        while state["to_move"] is not None and not self.has_placement(state, state["to_move"]):
            colour = state["to_move"]
            reason = "all_pieces_placed" if not state["pieces_left"][colour] else "no_legal_move"
            event = self._out(variant, colour, reason)
            events.append(event)
            state = self.apply(state, event)
        if state["to_move"] is None:
            events.append({"type": "game_over", "seat": None, "data": {"reason": "no_colour_can_place"}})
        return events

    @staticmethod
    def _out(variant: Variant, colour: int, reason: str) -> Event:
        return {
            "type": "colour_out",
            "seat": variant.seat_of_colour[colour],
            "data": {"colour": variant.colours[colour], "reason": reason},
        }

    # -- the fold --------------------------------------------------------------------------

    def apply(self, state: State, event: Event) -> State:
        variant = VARIANTS[state["variant"]]
        kind = event["type"]
        data = event["data"]
        if kind == "game_over":
            return state
        colour = variant.colours.index(data["colour"])
        new = dict(state)
        if kind == "placed":
            cells = list(state["cells"])
            cells[colour] |= variant.board.mask(tuple(c) for c in data["cells"])
            pieces_left = list(state["pieces_left"])
            pieces_left[colour] = [p for p in pieces_left[colour] if p != data["piece"]]
            last_piece = list(state["last_piece"])
            last_piece[colour] = data["piece"]
            new.update(cells=cells, pieces_left=pieces_left, last_piece=last_piece,
                       placements=state["placements"] + 1)
        elif kind == "colour_out":
            out = list(state["out"])
            out[colour] = True
            new["out"] = out
        else:
            raise ValueError(f"blokus: unknown event type {kind!r}")
        new["to_move"] = self._next_colour(new, colour)
        return new

    @staticmethod
    def _next_colour(state: State, after: int) -> int | None:
        n = len(state["out"])
        for step in range(1, n + 1):
            colour = (after + step) % n
            if not state["out"][colour]:
                return colour
        return None

    # -- what players see, and the end ---------------------------------------------------------

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        variant = VARIANTS[state["variant"]]
        board = variant.board
        grid: list[list[str | None]] = [[None] * board.width for _ in range(board.height)]
        for colour, mask in enumerate(state["cells"]):
            for x, y in board.cells(mask):
                grid[y][x] = variant.colours[colour]
        to_move = state["to_move"]
        return {
            "variant": variant.name,
            "scoring": state["scoring"],
            "width": board.width,
            "height": board.height,
            "board": grid,
            "colours": [
                {
                    "colour": name,
                    "seat": variant.seat_of_colour[c],
                    "start": list(variant.starts[c]),
                    "pieces_left": list(state["pieces_left"][c]),
                    "squares_left": _squares(state["pieces_left"][c]),
                    "out": state["out"][c],
                }
                for c, name in enumerate(variant.colours)
            ],
            "to_move": None if to_move is None else {
                "colour": variant.colours[to_move], "seat": variant.seat_of_colour[to_move]
            },
            "placements": state["placements"],
        }

    def event_view(self, event: Event, seat: int | None) -> Event:
        return event  # spec 6.2: nothing in Blokus is hidden

    def scores(self, state: State) -> dict[str, Any]:
        """Spec section 4: simple (squares left, fewest wins) or advanced (highest wins)."""
        variant = VARIANTS[state["variant"]]
        advanced = state["scoring"] == "advanced"
        per_colour = []
        for c, name in enumerate(variant.colours):
            left = _squares(state["pieces_left"][c])
            bonus = 0
            if advanced and not state["pieces_left"][c]:
                bonus = 20 if state["last_piece"][c] == "1" else 15
            per_colour.append({
                "colour": name,
                "seat": variant.seat_of_colour[c],
                "squares_left": left,
                "bonus": bonus,
                "score": (bonus - left) if advanced else left,
            })
        scores = [0] * variant.players
        for entry in per_colour:
            if entry["seat"] is not None:
                scores[entry["seat"]] += entry["score"]
        return {
            "scoring": state["scoring"],
            "scores": scores,
            "ranks": ranks(scores, higher_is_better=advanced),
            "colours": per_colour,
        }


def _squares(piece_names) -> int:
    return sum(PIECE_BY_NAME[name].size for name in piece_names)
