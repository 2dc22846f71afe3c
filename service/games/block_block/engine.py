"""BLOCK.BLOCK: three-dimensional stacking for two players, as a pure state machine.

Rules: ``service/games/block_block/rules.md`` (the spec) after the bilingual rules sheet
(``003_f7e545c0f489a591.txt``). Brown (the first player) and white place polycube
pieces in turn on a small board, in any of the 24 rotations, with no gap under any cube; a player
may not place the shape the opponent has just placed unless nothing else fits, no piece may sit
exactly on a piece of the same shape turned the same way, and brown's half piece goes last. A
player with no legal placement loses at once; otherwise, when every piece is placed, the colour
seen on top of each cell scores (the half piece 0.5) and the higher score wins. Rule numbers of the
spec are quoted where they are enforced, and every [DEF] reading has its config key (spec 7.6).

The piece set is data (spec 1.8): a pack, loaded and checked by ``pack.load_pack``; the shipped
``bb-default-generated`` is the spec's reasoned default, not the publisher's set.

State (plain data; see ``setup``): the board as per-cell lists (height, top colour, which piece is
on top), every placed piece, each colour's remaining pieces and last shape class, who moves, and
the result. Events: ``piece_placed``, ``no_legal_placement``, ``resigned`` and ``game_over``;
nothing is hidden (spec 8.3), so every event is public.

Error codes (``IllegalAction.reason``) are the spec's codes of 8.2 in the API's lower case, checked
in the spec's order: ``not_your_turn``, ``no_such_piece`` (R-2.2), ``half_piece_not_last`` (R-2.3),
``no_such_rotation`` (1.4.2; ids 24..47 need ``allow_reflection``), ``out_of_board`` (R-2.4),
``z_mismatch`` (AE-1), ``placement_mismatch`` (AE-1: the action's ``cubes``/``top_colours`` differ
from the derived ones), ``over_max_height`` (R-2.4), ``unsupported`` (R-2.5), ``not_adjacent``
(R-2.6 with ``require_adjacency``), ``same_shape_stack`` (R-2.7), ``same_shape_as_opponent``
(R-2.8); and ``game_over`` once the game has ended.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from service.games.block_block import geometry, placement
from service.games.block_block.actions import PARAMETERS, BlockBlockAction
from service.games.block_block.names import colour_word, end_reason
from service.games.block_block.pack import COLOURS, fit_warnings, load_pack
from service.games.block_block.svg import render_svg
from service.games.kit import Engine, Turn, applies, enum_option
from service.games.protocol import (
    Action,
    Event,
    GameInfo,
    IllegalAction,
    InvalidOptions,
    Packs,
    Refusal,
    State,
    ranks,
    turn_refusals,
)
from service.games.texts import N_, catalogue

_ = catalogue(__file__).gettext

BROWN, WHITE = 0, 1

DEFAULT_PACK_NAME = "bb-default-generated"
DEFAULT_PACK: dict[str, Any] = load_pack(
    json.loads((Path(__file__).parent / "packs" / f"{DEFAULT_PACK_NAME}.json").read_text(encoding="utf-8"))
)
"""The shipped default pack, loaded once at import (spec 1.8.3)."""


MAX_BOARD_SIDE = 8
"""The largest board side a new match may ask for (the rules leave the size open, A-01, and default to
4 x 4): the legal-actions answer grows with the board, to at most 1,389 placements (about 230 KB of
JSON) at 8 x 8 where 32 x 32 gave 26,253 (4.5 MB). Matches created with a bigger board still replay:
the options are checked only at creation."""

OPTIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "pack": {
            "type": "string",
            "pattern": "^[a-z0-9][a-z0-9._-]*$",
            "default": DEFAULT_PACK_NAME,
            "description": "The piece-set pack (spec key content_pack_id, A-02). The default "
            "bb-default-generated is the spec's reasoned guess (1.3), not the publisher's set.",
        },
        "pack_strict_counts": {
            "type": "boolean",
            "default": True,
            "description": "Refuse a pack that breaks K-7 (10 pieces of 7 shapes, brown "
            "plus one 1-cube half piece) or K-8 (only 3- and 4-cube bars "
            "have opponent-coloured ends) (spec 1.8.2).",
        },
        "board_size": {
            "anyOf": [
                {"const": "pack"},
                {
                    "type": "array",
                    "items": {"type": "integer", "minimum": 1, "maximum": MAX_BOARD_SIDE},
                    "minItems": 2,
                    "maxItems": 2,
                },
            ],
            "default": "pack",
            "description": "[width, depth] of the board, overriding the pack's; \"pack\": the pack's "
            "board (4 x 4 in the default pack) (A-01, D-1).",
        },
        "max_height": {
            "anyOf": [{"const": "pack"}, {"type": "null"}, {"type": "integer", "minimum": 1, "maximum": 64}],
            "default": "pack",
            "description": 'Height limit: no cube at z >= max_height (R-2.4); null: no limit; "pack": '
            "the pack's maxHeight (none in the default pack) (A-03, D-4).",
        },
        "use_half_piece": {
            "type": "boolean",
            "default": True,
            "description": "Brown's extra 1x1x1 half piece is used (S-4, A-06).",
        },
        "half_piece_scoring": enum_option(
            ["BROWN_HALF", "SPLIT"],
            "BROWN_HALF",
            "A visible half-piece face scores 0.5 for brown (BROWN_HALF) or 0.5 for "
            "each player (SPLIT) (E-2, A-05).",
        ),
        "half_piece_shape_class": enum_option(
            ["GEOMETRIC", "OWN"],
            "GEOMETRIC",
            "The half piece's shape class for R-2.7/R-2.8: that of the regular "
            "shape with the same cubes (I1) (GEOMETRIC), or its own (OWN) (A-04).",
        ),
        "orientation_equivalence": enum_option(
            ["GEOMETRY", "GEOMETRY_AND_COLOURS"],
            "GEOMETRY",
            '"Same orientation" in R-2.7 compares the cubes only, or the cubes '
            "and the face colour labels (A-07).",
        ),
        "allow_reflection": {
            "type": "boolean",
            "default": False,
            "description": "Also allow mirror images (rotation ids 24..47 = mirror x, then "
            "rotation id - 24); only proper rotations by default (1.4.1, A-09).",
        },
        "same_shape_stack_rule": enum_option(
            ["EXACT_COVER", "ANY_CONTACT"],
            "EXACT_COVER",
            "R-2.7: a piece may not sit exactly on a piece of the same class and "
            "orientation (EXACT_COVER), or not rest on one at all (ANY_CONTACT) (A-10).",
        ),
        "same_shape_stack_owner_scope": enum_option(
            ["ANY", "OPPONENT_ONLY"],
            "ANY",
            "R-2.7 applies to pieces of both colours (ANY) or only to the opponent's (OPPONENT_ONLY) (A-11).",
        ),
        "same_shape_ban": {
            "type": "boolean",
            "default": True,
            "description": "R-2.8: not the shape class the opponent has just placed, unless "
            "nothing else fits (A-12).",
        },
        "tie_break": enum_option(
            ["DRAW", "FIRST_PLAYER", "SECOND_PLAYER"],
            "DRAW",
            "Equal scores: a draw, or brown (FIRST_PLAYER) or white (SECOND_PLAYER) wins (E-5, A-14).",
        ),
        "require_adjacency": {
            "type": "boolean",
            "default": False,
            "description": "From the second placement on, a piece must share a face with an "
            "earlier piece (R-2.6, A-13).",
        },
        "loss_check_timing": enum_option(
            ["START_OF_TURN", "ON_REQUEST"],
            "START_OF_TURN",
            "When a player with no legal placement loses (R-1.1, A-16): as their turn "
            "starts, or (ON_REQUEST) when they next submit a placement; their legal "
            "actions are then empty, and any placement ends the game.",
        ),
        "first_player": {
            "enum": ["random", 0, 1],
            "default": "random",
            "description": 'The seat that plays brown and moves first; "random": drawn from the '
            "match seed (S-2, A-15).",
        },
    },
}

RULE_KEYS = (
    "half_piece_scoring",
    "orientation_equivalence",
    "allow_reflection",
    "same_shape_stack_rule",
    "same_shape_stack_owner_scope",
    "same_shape_ban",
    "tie_break",
    "require_adjacency",
    "loss_check_timing",
    "use_half_piece",
    "half_piece_shape_class",
    "pack_strict_counts",
)


def _halves(n: int) -> int | float:
    """A score kept in half points, as a number: 17 -> 8.5, 14 -> 7."""
    return n // 2 if n % 2 == 0 else n / 2


class BlockBlock(Engine):
    info = GameInfo(
        id="block-block",
        name="BLOCK.BLOCK",
        min_players=2,
        max_players=2,
        hidden_information=False,
        chance=False,
        description="Stack polycubes in 3D, no gaps underneath; the colours seen from above score. "
        "Piece set: a generated default, not the publisher's.",
        dynamics="sequential",  # R-0.1: the players alternate
        utility="competitive",  # E-4: the higher score wins
    )
    options_schema = OPTIONS_SCHEMA
    action_schema = BlockBlockAction
    action_parameters = PARAMETERS
    # Spec 1.8: schema and checks K-1..K-6 (InvalidPack), K-7/K-8 findings and K-9 warnings kept; the
    # option-dependent checks run in ``setup``, which has the options and the pack.
    packs = Packs(
        load=load_pack,
        default=DEFAULT_PACK_NAME,
        folder=Path(__file__).parent / "packs",
        checked_by=(),
    )
    svg = staticmethod(render_svg)  # the top view and an isometric view
    turn_rule = "R-0.1: the players alternate, brown first"
    over_rule = "R-1.1, R-3.4"
    out_of_turn = frozenset({"resign"})  # E-7: outside the rules; either player, at any time
    refusals = {
        **turn_refusals("R-0.1, E-7", "R-1.1, R-3.4"),  # E-7: only a player of the match may resign
        "no_such_piece": Refusal("R-2.2", N_("the colour has no piece of that shape left")),
        "half_piece_not_last": Refusal("R-2.3", N_("a half piece must be the colour's very last piece")),
        "no_such_rotation": Refusal(
            "spec 1.4.2, A-09", N_("not one of the 24 rotations (mirror images need allow_reflection)")
        ),
        "out_of_board": Refusal("R-2.4", N_("the piece would cover cells outside the board")),
        "z_mismatch": Refusal("AE-1", N_("the stated z is not where the piece comes to rest")),
        "placement_mismatch": Refusal(
            "AE-1, AE-3", N_("the stated cubes or top colours are not the ones the placement gives")
        ),
        "over_max_height": Refusal("R-2.4", N_("the piece would reach over the height limit")),
        "unsupported": Refusal("R-2.5", N_("a cube of the piece would have empty space underneath")),
        "not_adjacent": Refusal(
            "R-2.6", N_("the piece must share a face with an earlier piece (require_adjacency)")
        ),
        "same_shape_stack": Refusal(
            "R-2.7", N_("the piece would rest on a piece of the same shape turned the same way")
        ),
        "same_shape_as_opponent": Refusal(
            "R-2.8", N_("the shape the opponent has just placed, while another piece fits")
        ),
    }
    timeout_actions = {"forfeit": {"type": "resign"}}

    # -- content and options -------------------------------------------------------------------------

    def complete_options(
        self, resolved: dict[str, Any], players: int, given: dict[str, Any]
    ) -> dict[str, Any]:
        if players != 2:
            raise InvalidOptions("players", f"BLOCK.BLOCK is for exactly 2 players, not {players} (S-1)")
        size = resolved["board_size"]
        if size != "pack" and (
            not isinstance(size, list)
            or len(size) != 2
            or not all(isinstance(v, int) and 1 <= v <= MAX_BOARD_SIDE for v in size)
        ):
            raise InvalidOptions(
                "options.board_size", f'must be "pack" or [width, depth], each 1 to {MAX_BOARD_SIDE} (A-01)'
            )
        height = resolved["max_height"]
        if height not in ("pack", None) and not (isinstance(height, int) and height >= 1):
            raise InvalidOptions("options.max_height", 'must be "pack", null or an integer >= 1 (A-03)')
        if resolved["first_player"] not in ("random", 0, 1) or isinstance(resolved["first_player"], bool):
            raise InvalidOptions("options.first_player", 'must be "random", 0 or 1 (A-15)')
        return resolved

    def setup(self, options: dict[str, Any], players: int, seed: str, content: Any = None) -> State:
        """Spec section 2: the pack loaded and applied (S-3), the sets handed out (S-4), an empty
        board (S-5), brown to move (S-6). ``content`` is the loaded pack; None means the shipped
        default (only when the ``pack`` option names it)."""
        if content is None:
            if options["pack"] != DEFAULT_PACK_NAME:
                raise InvalidOptions("options.pack", f"pack {options['pack']!r} was not supplied to setup")
            content = DEFAULT_PACK
        elif "checks" not in content:  # a raw pack document rather than a loaded one
            content = load_pack(content)
        if options["pack_strict_counts"] and content["checks"]["strict"]:
            raise InvalidOptions(
                "options.pack",
                f"pack {content['packId']!r} breaks the strict piece counts "
                f"(set pack_strict_counts to false to use it): " + "; ".join(content["checks"]["strict"]),
            )
        width, depth = (
            (content["board"]["width"], content["board"]["depth"])
            if options["board_size"] == "pack"
            else tuple(options["board_size"])
        )
        max_height = content["maxHeight"] if options["max_height"] == "pack" else options["max_height"]

        # S-4, A-06: without the half piece, the mustBeLast entry leaves the set (brown's H by default)
        sets = {
            colour: [e for e in content["sets"][colour] if options["use_half_piece"] or not e["mustBeLast"]]
            for colour in COLOURS
        }
        shapes = content["shapes"]
        classes = {s["shapeId"]: s["shapeClass"] for s in shapes}
        if options["half_piece_shape_class"] == "GEOMETRIC":  # A-04: the half piece is "an I1"
            regular = [
                s
                for s in shapes
                if any(
                    e["shapeId"] == s["shapeId"] and not e["mustBeLast"]
                    for colour in COLOURS
                    for e in content["sets"][colour]
                )
            ]
            for colour in COLOURS:
                for entry in content["sets"][colour]:
                    if entry["mustBeLast"]:
                        half = next(s for s in shapes if s["shapeId"] == entry["shapeId"])
                        twin = next(
                            (
                                s
                                for s in regular
                                if len(s["cubes"]) == len(half["cubes"])
                                and geometry.same_geometry_under_rotation(s["cubes"], half["cubes"])
                            ),
                            None,
                        )
                        if twin is not None:
                            classes[half["shapeId"]] = twin["shapeClass"]
        rules = {key: options[key] for key in RULE_KEYS}
        digest = hashlib.sha256(
            json.dumps(
                {
                    "shapes": [
                        [s["shapeId"], s["cubes"], s["defaultFaceColour"], s["faceColours"]] for s in shapes
                    ],
                    "board": [width, depth],
                    "reflection": options["allow_reflection"],
                },
                sort_keys=True,
            ).encode()
        ).hexdigest()[:32]

        if options["first_player"] == "random":  # S-2: drawn from the match seed, nothing else
            brown_seat = hashlib.sha256(f"block-block:first-player:{seed}".encode()).digest()[0] & 1
        else:
            brown_seat = options["first_player"]
        cells = width * depth
        state: State = {
            "pack": {
                "id": content["packId"],
                "version": content["version"],
                "provenance": content["provenance"],
                "note": content["provenanceNote"],
            },
            "rules": rules,
            "width": width,
            "depth": depth,
            "max_height": max_height,
            "shapes": shapes,
            "classes": classes,
            "tables": digest,
            "seats": [brown_seat, 1 - brown_seat],
            "remaining": [{e["shapeId"]: e["count"] for e in sets[colour]} for colour in COLOURS],
            "must_be_last": [[e["shapeId"] for e in sets[colour] if e["mustBeLast"]] for colour in COLOURS],
            "last_class": [None, None],
            "to_move": BROWN,
            "move_no": 0,
            "placed": [],
            "heights": [0] * cells,
            "tops": [None] * cells,
            "top_piece": [None] * cells,
            "result": None,
            "warnings": fit_warnings(content, width, depth, max_height),
        }
        if rules["loss_check_timing"] == "START_OF_TURN" and not placement.has_placement(state, BROWN):
            # R-1.1 at the very first turn (only a custom pack on a tiny board can cause it). setup
            # returns a state, not events, so the result is part of the initial state.
            state["result"] = self._result(state, WHITE, "NO_LEGAL_PLACEMENT")
            state["to_move"] = None
        return state

    # -- who acts ------------------------------------------------------------------------------------

    def to_act(self, state: State) -> list[int]:
        colour = state["to_move"]
        return [] if colour is None else [state["seats"][colour]]

    def is_over(self, state: State) -> bool:
        return state["result"] is not None

    # -- actions to events -------------------------------------------------------------------------------

    def _legal_actions(self, state: State, seat: int) -> list[Action]:
        """Every legal placement (AE-4), each with the cubes it occupies, the resting height z and the
        colours its cubes show on top (spec 8.1). Posting one back unchanged is accepted. Resigning
        is always possible but is outside the rules (E-7) and is not listed."""
        colour = state["to_move"]
        move_no = state["move_no"] + 1
        actions = []
        for sid, cls, o, a, z in placement.placements(state, colour):
            data = placement.piece_placed_data(colour, sid, cls, o, a.x, a.y, z, move_no)
            actions.append(
                {
                    "type": "place",
                    "shape": sid,
                    "rotation": o.rotation,
                    "x": a.x,
                    "y": a.y,
                    "z": z,
                    "cubes": data["cubes"],
                    "top_colours": data["top_colours"],
                }
            )
        return actions

    def _play(self, turn: Turn, seat: int, action: Action) -> None:
        if action["type"] == "resign":
            self._resign(turn, seat)
            return
        state = turn.state
        colour = state["to_move"]
        if state["rules"]["loss_check_timing"] == "ON_REQUEST" and not placement.has_placement(state, colour):
            self._loss(turn, colour)  # A-16: the deferred loss check (R-1.1)
            return
        turn.emit("piece_placed", seat, **placement.check_placement(state, colour, action))
        self._consequences(turn)

    def _resign(self, turn: Turn, seat: int) -> None:
        """E-7: outside the rules, either player at any time; the opponent wins."""
        seats = turn.state["seats"]
        if seat not in seats:  # resign is out_of_turn, so the kit's turn check never saw this seat
            raise IllegalAction("not_your_turn", _("only a player of this match may resign (E-7)"))
        colour = seats.index(seat)
        turn.emit("resigned", seat, colour=COLOURS[colour])
        turn.add(self._game_over(turn.state, 1 - colour, "RESIGNED"))

    def _consequences(self, turn: Turn) -> None:
        """After a placement: the end and scoring when no pieces are left (R-3.4, AE-6), else the
        next player's loss check (R-1.1, AE-5)."""
        state = turn.state
        if not any(state["remaining"][BROWN].values()) and not any(state["remaining"][WHITE].values()):
            turn.add(self._game_over(state, None, "SCORE"))
            return
        colour = state["to_move"]
        # A player with no piece left while the opponent still has some has no legal placement
        # either: the spec's state machine (3.4) sends every turn through the loss check. Only a
        # custom pack with unequal sets can get there.
        if state["rules"]["loss_check_timing"] == "START_OF_TURN" and not placement.has_placement(
            state, colour
        ):
            self._loss(turn, colour)

    def _loss(self, turn: Turn, colour: int) -> None:
        """R-1.1, E-6: the colour to move has no legal placement and loses at once."""
        state = turn.state
        turn.emit(
            "no_legal_placement", state["seats"][colour], colour=COLOURS[colour], move_no=state["move_no"] + 1
        )
        turn.add(self._game_over(turn.state, 1 - colour, "NO_LEGAL_PLACEMENT"))

    def _game_over(self, state: State, winner: int | None, reason: str) -> Event:
        return {"type": "game_over", "seat": None, "data": self._result(state, winner, reason)}

    def _result(self, state: State, winner: int | None, reason: str) -> dict[str, Any]:
        """E-4..E-8: the winner (None for a draw), the reason and the visible score, cell by cell."""
        visible = self.visible(state)
        tie_break = None
        if reason == "SCORE":
            brown, white = visible["halves"]
            if brown != white:
                winner = BROWN if brown > white else WHITE
            else:
                tie_break = state["rules"]["tie_break"]
                winner = {"DRAW": None, "FIRST_PLAYER": BROWN, "SECOND_PLAYER": WHITE}[tie_break]
        return {
            "winner": None if winner is None else COLOURS[winner],
            "winner_seat": None if winner is None else state["seats"][winner],
            "reason": reason,
            "tie_break": tie_break,
            "score": {"BROWN": visible["score"][0], "WHITE": visible["score"][1]},
            "heights": self._rows(state, state["heights"]),
            "tops": self._rows(state, state["tops"]),
        }

    # -- the fold --------------------------------------------------------------------------------------

    @applies("piece_placed")
    def _piece_placed(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        colour = COLOURS.index(data["colour"])
        width = state["width"]
        index = len(state["placed"])
        heights, tops, top_piece = list(state["heights"]), list(state["tops"]), list(state["top_piece"])
        for (x, y, z), top in zip(data["cubes"], data["top_colours"]):
            i = x + y * width
            if z + 1 >= heights[i]:
                heights[i], tops[i], top_piece[i] = z + 1, top, index
        remaining = list(state["remaining"])
        hand = dict(remaining[colour])
        hand[data["shape"]] -= 1
        if not hand[data["shape"]]:
            del hand[data["shape"]]
        remaining[colour] = hand
        last_class = list(state["last_class"])
        last_class[colour] = data["shape_class"]
        state.update(
            heights=heights,
            tops=tops,
            top_piece=top_piece,
            remaining=remaining,
            last_class=last_class,
            placed=state["placed"] + [data],
            move_no=state["move_no"] + 1,
            to_move=1 - colour,
        )

    @applies("no_legal_placement", "resigned")
    def _announced(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        pass  # the game_over that follows carries the result

    @applies("game_over")
    def _over(self, state: State, data: dict[str, Any], seat: int | None) -> None:
        state.update(result=data, to_move=None)

    # -- what players see, and the end -----------------------------------------------------------------

    def _rows(self, state: State, flat: list) -> list[list]:
        """A per-cell list as rows: ``rows[y][x]``."""
        width = state["width"]
        return [flat[y * width : (y + 1) * width] for y in range(state["depth"])]

    def visible(self, state: State) -> dict[str, Any]:
        """E-2, E-3: what is seen from above. Counts per colour of top faces, the half faces, and
        the score (in ``halves``: half points, to stay exact)."""
        tops = state["tops"]
        brown, white, half = tops.count("BROWN"), tops.count("WHITE"), tops.count("HALF")
        split = state["rules"]["half_piece_scoring"] == "SPLIT"
        halves = (2 * brown + half, 2 * white + (half if split else 0))
        return {
            "cells": {"BROWN": brown, "WHITE": white, "HALF": half},
            "halves": halves,
            "score": [_halves(halves[0]), _halves(halves[1])],
        }

    def describe(self, event: Event, state: State | None = None) -> str:
        data = event["data"]
        if event["type"] == "piece_placed":
            return _(
                "{colour} placed {shape} at ({x}, {y}, {z})",
                colour=colour_word(data["colour"]),
                shape=data["shape"],
                x=data["x"],
                y=data["y"],
                z=data["z"],
            )
        if event["type"] == "game_over" and data.get("winner"):
            return _(
                "game over: {colour} wins ({reason})",
                colour=colour_word(data["winner"]),
                reason=end_reason(data["reason"]),
            )
        if event["type"] == "game_over" and data.get("reason") == "SCORE" and data.get("tie_break") == "DRAW":
            return _("game over: reason score, tie break draw")
        if event["type"] == "no_legal_placement" and isinstance(data.get("move_no"), int):
            return _(
                "seat {seat} no legal placement: colour {colour}, move no {move}",
                seat=event["seat"],
                colour=colour_word(data["colour"]),
                move=data["move_no"],
            )
        if event["type"] == "resigned":
            return _(
                "seat {seat} resigned: colour {colour}",
                seat=event["seat"],
                colour=colour_word(data["colour"]),
            )
        return super().describe(event, state)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        colour = state["to_move"]
        visible = self.visible(state)
        banned = None
        if colour is not None:
            banned_class = placement.banned_class(state, colour)
            if banned_class is not None:
                waived = not any(p[1] != banned_class for p in placement.candidates(state, colour))
                banned = {"class": banned_class, "waived": waived}
        sizes = {s["shapeId"]: len(s["cubes"]) for s in state["shapes"]}
        return {
            "status": "FINISHED" if self.is_over(state) else "IN_PROGRESS",
            "pack": {
                **state["pack"],
                "publisher_data": state["pack"]["provenance"] in ("PUBLISHER", "TRANSCRIBED"),
            },
            "board": {"width": state["width"], "depth": state["depth"], "max_height": state["max_height"]},
            "heights": self._rows(state, state["heights"]),
            "tops": self._rows(state, state["tops"]),
            "colours": [
                {
                    "colour": COLOURS[c],
                    "seat": state["seats"][c],
                    "remaining": dict(state["remaining"][c]),
                    "pieces_left": sum(state["remaining"][c].values()),
                    "cubes_left": sum(n * sizes[s] for s, n in state["remaining"][c].items()),
                    "must_be_last": list(state["must_be_last"][c]),
                    "last_class": state["last_class"][c],
                    "visible_cells": visible["cells"][COLOURS[c]],
                    "visible_score": visible["score"][c],
                }
                for c in (BROWN, WHITE)
            ],
            "half_cells": visible["cells"]["HALF"],
            "to_move": None
            if colour is None
            else {"colour": COLOURS[colour], "seat": state["seats"][colour]},
            "move_no": state["move_no"],
            "banned_class": banned,
            "last_placement": state["placed"][-1] if state["placed"] else None,
            "placed": list(state["placed"]),
            "rules": dict(state["rules"]),
            "result": state["result"],
            "warnings": list(state["warnings"]),
        }

    def scores(self, state: State) -> dict[str, Any]:
        """``scores``: the visible score per seat (E-2), always reported; ``ranks``: from the result
        once the game is over (a player with no legal placement, or who resigned, ranks last whatever
        the visible score, E-6), from the visible score before."""
        visible = self.visible(state)
        seats = state["seats"]
        scores: list[float] = [0, 0]
        for c in (BROWN, WHITE):
            scores[seats[c]] = visible["score"][c]
        result = state["result"]
        if result is None:
            order = [visible["halves"][seats.index(s)] for s in (0, 1)]
        else:
            order = [1 if result["winner_seat"] == s else 0 for s in (0, 1)]
        split = state["rules"]["half_piece_scoring"] == "SPLIT"
        return {
            "scores": scores,
            "ranks": ranks(order, higher_is_better=True),
            "winner": None if result is None else result["winner"],
            "reason": None if result is None else result["reason"],
            "colours": [
                {
                    "colour": COLOURS[c],
                    "seat": seats[c],
                    "visible_cells": visible["cells"][COLOURS[c]],
                    "half_cells": visible["cells"]["HALF"] if (c == BROWN or split) else 0,
                    "half_points": _halves(visible["cells"]["HALF"]) if (c == BROWN or split) else 0,
                    "score": visible["score"][c],
                }
                for c in (BROWN, WHITE)
            ],
            "half_piece_scoring": state["rules"]["half_piece_scoring"],
        }
