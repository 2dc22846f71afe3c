"""Blokus: a perfect-information territory game without chance, on bitboards.

Rules: ``service/games/blokus/rules.md`` (the spec) after the Japanese rulebook.
Each colour places its pieces one at a time; a colour's first piece covers its
start square, every later one touches its own colour corner to corner and never
edge to edge. A colour that cannot place is out; the game ends when every colour
is out. The spec's rule numbers are quoted where they are enforced.

Every variant of the spec is a row of ``VARIANTS``: four players (3.1), two
players with two colours each (3.2), three players with a shared fourth colour
(3.3), the two solo puzzles (3.4, 3.5) and Blokus Duo (5.1).

State (plain data, see ``setup``): one bitboard per colour (``cells``, see
``geometry``), the pieces each colour still holds, which colours are out, which
colour moves and whether the game is over. Events: ``placed``, ``colour_out``
and ``game_over``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, cast

from service.games.blokus import geometry, sgf
from service.games.blokus.actions import PARAMETERS, BlokusAction
from service.games.blokus.geometry import PIECE_BY_NAME, PIECE_NAMES, PIECES, Board, Cell
from service.games.blokus.names import colour_name
from service.games.blokus.svg import render_svg
from service.games.kit import Engine, Turn, applies
from service.games.protocol import (
    Action,
    Event,
    GameInfo,
    IllegalAction,
    InvalidOptions,
    RecordFormat,
    Refusal,
    State,
    ranks,
    turn_refusals,
)
from service.games.texts import N_, catalogue

_ = catalogue(__file__).gettext

FOUR_COLOURS = ("blue", "yellow", "red", "green")  # play order, spec 1.2
CORNERS_20 = ((0, 0), (19, 0), (19, 19), (0, 19))  # spec 1.5
PASS = ("pass",)  # the key of a voluntary pass (``Blokus.legal_action_keys``)


@dataclass(frozen=True)
class Variant:
    name: str
    description: str
    width: int
    height: int
    colours: tuple[str, ...]
    starts: tuple[Cell, ...] | None  # one start square per colour; None: a colour starts anywhere
    players: int
    seat_of_colour: tuple[int | None, ...]  # None: a shared colour, placed by the seats in rotation
    pieces: tuple[str, ...] = PIECE_NAMES
    free_order: bool = False  # any colour may be placed at any time, instead of colours taking turns
    puzzle: bool = False  # solo: the result is the squares left, not a ranking

    @functools.cached_property  # looked up twice per colour in every move generation
    def board(self) -> Board:
        return geometry.board(self.width, self.height)


class ColourScore(TypedDict):
    """One colour's line of the result (spec section 4)."""

    colour: str
    seat: int | None  # None: the shared colour, which counts for no one (spec 3.3)
    squares_left: int
    bonus: int
    score: int


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant(
            "four_player",
            "four players, one colour each (spec 3.1)",
            20,
            20,
            FOUR_COLOURS,
            CORNERS_20,
            4,
            (0, 1, 2, 3),
        ),
        Variant(
            "three_player",
            "three players; green is shared, its n-th piece placed by seat n mod 3 "
            "and its score counted for no one (spec 3.3)",
            20,
            20,
            FOUR_COLOURS,
            CORNERS_20,
            3,
            (0, 1, 2, None),
        ),
        Variant(
            "two_player",
            "two players on diagonal corners: seat 0 blue and red, seat 1 yellow and green (3.2)",
            20,
            20,
            FOUR_COLOURS,
            CORNERS_20,
            2,
            (0, 1, 0, 1),
        ),
        Variant(
            "solo_all_pieces",
            "solo puzzle 1: one player places all 84 pieces under the four-player rules (3.4)",
            20,
            20,
            FOUR_COLOURS,
            CORNERS_20,
            1,
            (0, 0, 0, 0),
            puzzle=True,
        ),
        Variant(
            "solo_rectangle",
            "solo puzzle 2: the 20 four-square pieces into an 8-row by 10-column "
            "rectangle, any colour at any time, starting anywhere (3.5)",
            10,
            8,
            FOUR_COLOURS,
            None,
            1,
            (0, 0, 0, 0),
            pieces=("I4", "L4", "T4", "Z4", "O4"),
            free_order=True,
            puzzle=True,
        ),
        Variant(
            "duo",
            "Blokus Duo: 14x14, two players, purple first, starts (4,4) and (9,9) (5.1)",
            14,
            14,
            ("purple", "orange"),
            ((4, 4), (9, 9)),
            2,
            (0, 1),
        ),
    )
}
VARIANT_FOR_PLAYERS = {4: "four_player", 3: "three_player", 2: "two_player", 1: "solo_all_pieces"}
OUT_BECAUSE = {"all_pieces_placed": N_("every piece placed"), "passed": N_("it passed (spec 2.7)")}
OPTIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "variant": {
            "enum": list(VARIANTS),
            "description": "Board and player count. Default by player count: 4 four_player, "
            "3 three_player, 2 two_player, 1 solo_all_pieces. "
            + "; ".join(f"{v.name}: {v.description}" for v in VARIANTS.values()),
        },
        "scoring": {
            "enum": ["simple", "advanced"],
            "default": "simple",
            "description": "simple: squares left, fewest wins (spec 4.1); advanced: -1 per square "
            "left, +15 all placed, +20 if the last was the monomino (4.2). The solo "
            "puzzles are scored by squares left.",
        },
        "start_corners": {
            "enum": ["fixed", "any_free"],
            "default": "fixed",
            "description": "fixed: each colour starts on its own square (spec 1.5, 2.2); any_free: "
            "a colour's first piece may cover any empty start square.",
        },
        "allow_voluntary_pass": {
            "type": "boolean",
            "default": False,
            "description": "Let a colour stop placing; it is then out for the rest of the game (spec 2.7).",
        },
        "puzzle_corner_contact": {
            "enum": ["required", "optional"],
            "default": "required",
            "description": "solo_rectangle only: whether each later piece of a colour must "
            "touch its colour corner to corner (spec 3.5).",
        },
    },
}


def _export_sgf(options: dict[str, Any], players: list[str], events: list[Event]) -> str:
    return sgf.export(VARIANTS[options["variant"]], players, events)


def _parse_sgf(text: str) -> tuple[dict[str, Any], list[str], list[Action]]:
    return sgf.parse(text, VARIANTS)


class Blokus(Engine):
    """The rules above on the engine kit. Nothing in Blokus is hidden (spec 6.2), so the kit's
    ``event_view``, which shows every event to every seat, is the game's."""

    info = GameInfo(
        id="blokus",
        name="Blokus",
        min_players=1,
        max_players=4,
        hidden_information=False,
        chance=False,
        description="Place your pieces corner to corner, never edge to edge with your own colour. "
        "Variants for 1 to 4 players, the solo puzzles and Blokus Duo.",
        dynamics="sequential",  # 1.2: one colour at a time, in play order
        utility="competitive",  # 4.1, 4.2: ranked by score; 3.3's shared colour scores for nobody
    )
    options_schema = OPTIONS_SCHEMA
    action_schema = BlokusAction
    action_parameters = PARAMETERS
    svg = staticmethod(render_svg)
    refusals = {
        **turn_refusals("spec 1.2", "spec 2.8"),
        "wrong_colour": Refusal(
            "spec 1.2", N_("the named colour is not in this variant, not the colour to move, or out")
        ),
        "colour_required": Refusal(
            "spec 3.5", N_("any colour may move (solo_rectangle): the action must name one")
        ),
        "off_board": Refusal("spec 2.1", N_("a square of the piece is off the board")),
        "not_a_piece": Refusal("spec 1.3", N_("the squares (each listed once) do not form a Blokus piece")),
        "piece_mismatch": Refusal("spec 6.1", N_("the squares form another piece than the one named")),
        "piece_used": Refusal("spec 1.3", N_("the colour has already placed that piece, or never had it")),
        "overlap": Refusal("spec 2.1", N_("the piece would cover a square already taken")),
        "must_cover_start": Refusal("spec 2.2", N_("a colour's first piece must cover its start square")),
        "corner_rule": Refusal("spec 2.3", N_("a later piece must touch its colour corner to corner")),
        "edge_contact": Refusal("spec 2.4", N_("the piece would share an edge with a piece of its colour")),
        "pass_not_allowed": Refusal("spec 2.7", N_("there is no voluntary pass in this match")),
    }
    record = RecordFormat(
        mime=sgf.MIME,
        export=_export_sgf,
        parse=_parse_sgf,
        description="Pentobi's SGF dialect of Blokus (spec 5.2); solo variants carry MLV[...].",
        example="(;GM[Blokus]CA[UTF-8];1[a20,b20];2[t20])",
    )

    # -- setup -----------------------------------------------------------------

    def complete_options(
        self, resolved: dict[str, Any], players: int, given: dict[str, Any]
    ) -> dict[str, Any]:
        name = given.get("variant", VARIANT_FOR_PLAYERS.get(players, "four_player"))
        variant = VARIANTS[name]
        if players != variant.players:
            raise InvalidOptions(
                "players",
                f"the {name} variant is for {variant.players} "
                f"player{'s' * (variant.players > 1)}, not {players}",
            )
        if variant.puzzle and given.get("scoring") == "advanced":
            raise InvalidOptions(
                "options.scoring", "the solo puzzles are scored by the squares left (spec 3.4, 3.5)"
            )
        if "puzzle_corner_contact" in given and not variant.free_order:
            raise InvalidOptions(
                "options.puzzle_corner_contact", "only the solo_rectangle variant has this option"
            )
        return {**resolved, "variant": name}

    def setup(self, options: dict[str, Any], players: int, seed: str, content: Any = None) -> State:
        variant = VARIANTS[options["variant"]]
        n = len(variant.colours)
        return {
            "variant": variant.name,
            "scoring": options["scoring"],
            "start_corners": options["start_corners"],
            "allow_voluntary_pass": options["allow_voluntary_pass"],
            "corner_contact": options["puzzle_corner_contact"] == "required",
            "cells": [0] * n,
            "pieces_left": [list(variant.pieces) for _ in range(n)],
            "last_piece": [None] * n,
            "out": [False] * n,
            "to_move": None if variant.free_order else 0,
            "over": False,
            "placements": 0,
        }

    # -- who acts ----------------------------------------------------------------

    @staticmethod
    def seat_for(state: State, colour: int) -> int:
        """The seat that places ``colour`` now; a shared colour rotates over the seats (spec 3.3)."""
        variant = VARIANTS[state["variant"]]
        seat = variant.seat_of_colour[colour]
        if seat is None:
            return (len(variant.pieces) - len(state["pieces_left"][colour])) % variant.players
        return seat

    def to_act(self, state: State) -> list[int]:
        if state["over"]:
            return []
        if state["to_move"] is None:  # free order: the solo player places any colour
            return [0]
        return [self.seat_for(state, state["to_move"])]

    def is_over(self, state: State) -> bool:
        return state["over"]

    def colours_to_place(self, state: State) -> list[int]:
        """The colours the player to act may place now."""
        if state["over"]:
            return []
        if state["to_move"] is None:
            return [c for c, out in enumerate(state["out"]) if not out]
        return [state["to_move"]]

    # -- the rules of placement ----------------------------------------------------

    def _attach_squares(self, state: State, colour: int, free: int) -> int:
        """Squares a new piece of ``colour`` must cover one of (spec 2.2, 2.3, 3.5)."""
        variant = VARIANTS[state["variant"]]
        board = variant.board
        own = state["cells"][colour]
        if own:
            return board.corner_neighbours(own) & free if state["corner_contact"] else free
        if variant.starts is None:
            return free  # spec 3.5: start anywhere
        starts = variant.starts if state["start_corners"] == "any_free" else [variant.starts[colour]]
        return board.mask(starts) & free

    @staticmethod
    def _occupied(state: State) -> int:
        occupied = 0
        for cells in state["cells"]:
            occupied |= cells
        return occupied

    def _move_tables(
        self, state: State, colour: int, occupied: int
    ) -> tuple[Board, int, int, tuple[int, ...]]:
        board = VARIANTS[state["variant"]].board
        free = board.free_for(state["cells"][colour], occupied)
        attach = self._attach_squares(state, colour, free)
        return board, free, attach, _piece_indices(tuple(state["pieces_left"][colour]))

    def placements(self, state: State, colour: int) -> list[tuple[int, int, int]]:
        """Every legal (colour, orientation, anchor) of ``colour``: the engine's fast move list."""
        board, free, attach, pieces = self._move_tables(state, colour, self._occupied(state))
        return board.placements(free, attach, pieces, colour)

    def all_placements(self, state: State) -> list[tuple[int, int, int]]:
        """Every legal (colour, orientation, anchor) for the player to act: the full move list."""
        return self._all_placements(state, Board.placements)

    def all_placements_reference(self, state: State) -> list[tuple[int, int, int]]:
        """``all_placements`` by ``Board.placements_reference``, the generator the compiled one
        replaced: the tests check, and the benchmark times, the one against the other."""
        return self._all_placements(state, Board.placements_reference)

    def _all_placements(
        self,
        state: State,
        generate: Callable[[Board, int, int, tuple[int, ...], int], list[tuple[int, int, int]]],
    ) -> list[tuple[int, int, int]]:
        occupied = self._occupied(state)
        moves: list[tuple[int, int, int]] = []
        for colour in self.colours_to_place(state):
            board, free, attach, pieces = self._move_tables(state, colour, occupied)
            moves += generate(board, free, attach, pieces, colour)
        return moves

    def has_placement(self, state: State, colour: int) -> bool:
        board, free, attach, pieces = self._move_tables(state, colour, self._occupied(state))
        return board.has_placement(free, attach, pieces)

    def check_placement(
        self, state: State, colour: int, piece: str | None, cells: Iterable[Sequence[int]]
    ) -> tuple[str, int]:
        """The piece name and square mask of a placement, or IllegalAction naming the rule it breaks."""
        variant = VARIANTS[state["variant"]]
        board = variant.board
        name_of_colour = variant.colours[colour]
        squares = cast(list[Cell], [tuple(c) for c in cells])  # pairs: the action's schema checks them
        if len(set(squares)) != len(squares):
            raise IllegalAction("not_a_piece", _("a square is listed twice"))
        for x, y in squares:
            if not board.on_board(x, y):
                raise IllegalAction(
                    "off_board",
                    _(
                        "square ({x}, {y}) is off the {width}x{height} board (spec 2.1)",
                        x=x,
                        y=y,
                        width=board.width,
                        height=board.height,
                    ),
                )
        found = board.identify(squares)
        if found is None:
            raise IllegalAction("not_a_piece", _("these squares do not form any Blokus piece (spec 1.3)"))
        name = PIECES[geometry.ORIENTATIONS[found[0]].piece].name
        if piece is not None and piece != name:
            raise IllegalAction(
                "piece_mismatch",
                _("these squares form the {name} piece, not {piece}", name=name, piece=piece),
            )
        if name not in state["pieces_left"][colour]:
            held = (
                _(
                    "{colour} has already placed its {name} piece",
                    colour=colour_name(name_of_colour),
                    name=name,
                )
                if name in variant.pieces
                else _(
                    "{colour} does not have its {name} piece", colour=colour_name(name_of_colour), name=name
                )
            )
            raise IllegalAction("piece_used", held)
        mask = board.mask(squares)
        occupied = self._occupied(state)
        if mask & occupied:
            raise IllegalAction(
                "overlap", _("the piece would cover a square that is already taken (spec 2.1)")
            )
        own = state["cells"][colour]
        if not own:
            if not mask & self._attach_squares(state, colour, board.squares & ~occupied):
                where = (
                    _(
                        "the {colour} start square {square}",
                        colour=colour_name(name_of_colour),
                        square=variant.starts[colour],
                    )
                    if state["start_corners"] == "fixed" and variant.starts is not None
                    else _("an empty start square")
                )
                raise IllegalAction(
                    "must_cover_start", _("a colour's first piece must cover {where} (spec 2.2)", where=where)
                )
            return name, mask
        if mask & board.edge_neighbours(own):
            raise IllegalAction(
                "edge_contact",
                _(
                    "the piece would share an edge with another {colour} piece (spec 2.4)",
                    colour=colour_name(name_of_colour),
                ),
            )
        if state["corner_contact"] and not mask & board.corner_neighbours(own):
            raise IllegalAction(
                "corner_rule",
                _(
                    "the piece must touch another {colour} piece corner to corner (spec 2.3)",
                    colour=colour_name(name_of_colour),
                ),
            )
        return name, mask

    # -- actions to events ---------------------------------------------------------------

    def _legal_actions(self, state: State, seat: int) -> list[Action]:
        variant, keys = self.legal_action_keys(state, seat)
        listed = _placement_action  # ``keyed_action`` without a call per action: bots list at every move
        return [listed(variant, *key) if key is not PASS else {"type": "pass"} for key in keys]

    def legal_action_keys(self, state: State, seat: int) -> tuple[str, list[tuple]]:
        """``legal_actions`` as keys, in its order: a placement's (colour, orientation, anchor), or ``PASS``,
        in the family of the match's variant (``keyed_action``). A key stands for the same action for ever,
        so whoever makes something costly of an action (the API's JSON) can make it once per key: an early
        four-player position lists hundreds, each the same as the last time it was legal."""
        name = state["variant"]
        if self.is_over(state) or seat not in self.to_act(state):
            return name, []
        keys: list[tuple] = self.all_placements(state)  # a new list, ours to extend
        if state["allow_voluntary_pass"] and not VARIANTS[name].free_order:
            keys.append(PASS)
        return name, keys

    @staticmethod
    def keyed_action(variant: str, key: tuple) -> Action:
        """The action of a key of ``legal_action_keys``: a placement's is shared (``_placement_action``)."""
        return _placement_action(variant, *key) if key != PASS else {"type": "pass"}

    def _colour_of(self, state: State, action: Action) -> int:
        variant = VARIANTS[state["variant"]]
        named = action.get("colour")
        if named is not None and named not in variant.colours:
            raise IllegalAction(
                "wrong_colour",
                _(
                    "there is no {colour} in the {variant} variant",
                    colour=colour_name(named),
                    variant=variant.name,
                ),
            )
        if state["to_move"] is None:  # free order
            if named is None:
                raise IllegalAction(
                    "colour_required", _("say which colour to place: any colour may move (spec 3.5)")
                )
            colour = variant.colours.index(named)
            if state["out"][colour]:
                raise IllegalAction(
                    "wrong_colour", _("{colour} can place no more pieces", colour=colour_name(named))
                )
            return colour
        colour = state["to_move"]
        if named is not None and named != variant.colours[colour]:
            raise IllegalAction(
                "wrong_colour",
                _(
                    "it is {colour}'s turn, not {named}'s",
                    colour=colour_name(variant.colours[colour]),
                    named=colour_name(named),
                ),
            )
        return colour

    def _play(self, turn: Turn, seat: int, action: Action) -> None:
        state = turn.state
        variant = VARIANTS[state["variant"]]
        if action["type"] == "pass":
            if not state["allow_voluntary_pass"] or variant.free_order:
                raise IllegalAction(
                    "pass_not_allowed", _("there is no voluntary pass in this match (spec 2.7)")
                )
            turn.add(self._out(state, self._colour_of(state, action), "passed"))
        else:
            colour = self._colour_of(state, action)
            name, mask = self.check_placement(state, colour, action.get("piece"), action["cells"])
            cells = sorted(variant.board.cells(mask), key=lambda c: (c[1], c[0]))
            turn.emit(
                "placed", seat, colour=variant.colours[colour], piece=name, cells=[list(c) for c in cells]
            )
        self._consequences(turn)

    def _consequences(self, turn: Turn) -> None:
        """Colours that can no longer place go out, skipped automatically (spec 2.7); then the end (2.8)."""

        def out(colour: int) -> None:
            reason = "all_pieces_placed" if not turn.state["pieces_left"][colour] else "no_legal_move"
            turn.add(self._out(turn.state, colour, reason))

        if turn.state["to_move"] is None:  # free order: every colour may move, so check them all now
            for colour in [c for c, gone in enumerate(turn.state["out"]) if not gone]:
                if not self.has_placement(turn.state, colour):
                    out(colour)
        else:
            while turn.state["to_move"] is not None and not self.has_placement(
                turn.state, turn.state["to_move"]
            ):
                out(turn.state["to_move"])
        if all(turn.state["out"]):
            turn.emit("game_over", None, reason="no_colour_can_place")

    def _out(self, state: State, colour: int, reason: str) -> Event:
        variant = VARIANTS[state["variant"]]
        return {
            "type": "colour_out",
            "seat": self.seat_for(state, colour),
            "data": {"colour": variant.colours[colour], "reason": reason},
        }

    # -- the fold --------------------------------------------------------------------------

    @applies("game_over")
    def _game_over(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state.update(over=True, to_move=None)

    @applies("placed")
    def _placed(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        variant = VARIANTS[state["variant"]]
        colour = variant.colours.index(data["colour"])
        cells = list(state["cells"])
        cells[colour] |= variant.board.mask(tuple(c) for c in data["cells"])
        pieces_left = list(state["pieces_left"])
        pieces_left[colour] = [p for p in pieces_left[colour] if p != data["piece"]]
        last_piece = list(state["last_piece"])
        last_piece[colour] = data["piece"]
        state.update(
            cells=cells, pieces_left=pieces_left, last_piece=last_piece, placements=state["placements"] + 1
        )
        if state["to_move"] is not None:
            state["to_move"] = self._next_colour(state, colour)

    @applies("colour_out")
    def _colour_out(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        colour = VARIANTS[state["variant"]].colours.index(data["colour"])
        out = list(state["out"])
        out[colour] = True
        state["out"] = out
        if state["to_move"] == colour:  # the colour to move went out: the turn passes on
            state["to_move"] = self._next_colour(state, colour)

    @staticmethod
    def _next_colour(state: State, after: int) -> int | None:
        n = len(state["out"])
        for step in range(1, n + 1):
            colour = (after + step) % n
            if not state["out"][colour]:
                return colour
        return None

    timeout_actions = {"pass": {"type": "pass"}}

    def timeouts(self, options: dict[str, Any]) -> dict[str, Action]:
        passing = options["allow_voluntary_pass"] and not VARIANTS[options["variant"]].free_order  # spec 2.7
        return self.timeout_actions if passing else {}

    # -- what players see, and the end ---------------------------------------------------------

    def describe(self, event: Event, state: State | None = None) -> str:
        data = event["data"]
        if event["type"] == "placed":  # squares as the action gives them: (x, y) from the top-left corner
            return _(
                "{colour} placed {piece} on {squares}",
                colour=colour_name(data["colour"]),
                piece=data["piece"],
                squares=" ".join(f"({x}, {y})" for x, y in data["cells"]),
            )
        if event["type"] == "colour_out":
            return _(
                "{colour} is out: {why}",
                colour=colour_name(data["colour"]),
                why=_(OUT_BECAUSE.get(data["reason"], N_("no legal move left"))),
            )
        if event["type"] == "game_over":
            return _("game over: no colour can place a piece")
        return super().describe(event, state)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        variant = VARIANTS[state["variant"]]
        board = variant.board
        grid: list[list[str | None]] = [[None] * board.width for _ in range(board.height)]
        for colour, mask in enumerate(state["cells"]):
            for x, y in board.cells(mask):
                grid[y][x] = variant.colours[colour]
        to_move = state["to_move"]
        view = {
            "variant": variant.name,
            "scoring": "squares_left" if variant.puzzle else state["scoring"],
            "width": board.width,
            "height": board.height,
            "board": grid,
            "colours": [
                {
                    "colour": name,
                    "seat": variant.seat_of_colour[c],
                    "start": list(variant.starts[c]) if variant.starts else None,
                    "pieces_left": list(state["pieces_left"][c]),
                    "squares_left": _squares(state["pieces_left"][c]),
                    "out": state["out"][c],
                }
                for c, name in enumerate(variant.colours)
            ],
            "to_move": None
            if to_move is None
            else {"colour": variant.colours[to_move], "seat": self.seat_for(state, to_move)},
            "free_order": variant.free_order,
            "over": state["over"],
            "placements": state["placements"],
        }
        shared = [c for c, seat_of in enumerate(variant.seat_of_colour) if seat_of is None]
        if shared:  # spec 3.3: say who places the shared colour next
            view["shared_colour"] = {
                "colour": variant.colours[shared[0]],
                "next_seat": self.seat_for(state, shared[0]),
            }
        return view

    def scores(self, state: State) -> dict[str, Any]:
        """Spec section 4 (simple: squares left, fewest wins; advanced: highest wins); the solo
        puzzles report the squares left and whether the puzzle is solved (3.4, 3.5)."""
        variant = VARIANTS[state["variant"]]
        advanced = state["scoring"] == "advanced" and not variant.puzzle
        per_colour: list[ColourScore] = []
        for c, name in enumerate(variant.colours):
            left = _squares(state["pieces_left"][c])
            bonus = 0
            if advanced and not state["pieces_left"][c]:
                bonus = 20 if state["last_piece"][c] == "1" else 15
            per_colour.append(
                {
                    "colour": name,
                    "seat": variant.seat_of_colour[c],
                    "squares_left": left,
                    "bonus": bonus,
                    "score": (bonus - left) if advanced else left,
                }
            )
        scores = [0] * variant.players
        for entry in per_colour:
            if entry["seat"] is not None:  # a shared colour counts for no one (spec 3.3)
                scores[entry["seat"]] += entry["score"]
        result = {
            "scoring": "squares_left" if variant.puzzle else state["scoring"],
            "scores": scores,
            "ranks": ranks(scores, higher_is_better=advanced),
            "colours": per_colour,
        }
        if variant.puzzle:
            result["solved"] = scores[0] == 0
        return result


@functools.lru_cache(maxsize=4096)
def _piece_indices(names: tuple[str, ...]) -> tuple[int, ...]:
    return tuple(PIECE_BY_NAME[name].index for name in names)


def _squares(piece_names: Iterable[str]) -> int:
    return sum(PIECE_BY_NAME[name].size for name in piece_names)


@functools.lru_cache(maxsize=1 << 16)
def _placement_action(variant: str, colour: int, orientation: int, anchor: int) -> Action:
    """The action object of one placement, made once per process and shared by every list it is in (read
    it, never change it): building them anew cost ten times the move generation."""
    v = VARIANTS[variant]
    return {
        "type": "place",
        "colour": v.colours[colour],
        "piece": PIECES[geometry.ORIENTATIONS[orientation].piece].name,
        "cells": v.board.placement_cells(orientation, anchor),
    }
