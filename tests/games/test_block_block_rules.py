"""BLOCK.BLOCK, rule by rule: ``service/games/block_block/rules.md`` sections 0 to 8 and Appendix A.

Each test is named after the rule it checks; the spec's rule or test number is in the docstring.
Appendix A's tests T-1..T-23 and the golden game are all here, under their numbers. "(inject)"
positions are built with the engine's test hook ``describe_placement`` + ``apply``, which places
pieces without the placement rules, with ``pack_strict_counts`` = false as the spec asks.

Where the spec and the rules sheet disagree, the sheet wins. No such disagreement was found: every
[RB] statement of the spec restates the sheet, and the spec's own choices ([DEF]) fill gaps the
sheet leaves (its pictures were lost). The one inconsistency the spec notes (7.5: "Brown x 11" and
"an extra 1x1x1 block for brown") is read as the sheet reads: the 11 include the extra block (T-1).
"""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest
from marshmallow import ValidationError

from service.games.block_block import GAME, geometry, placement
from service.games.block_block.engine import DEFAULT_PACK
from service.games.block_block.placement import tables
from service.games.protocol import IllegalAction, InvalidOptions, InvalidPack, fold

BROWN_SEAT, WHITE_SEAT = 0, 1
B, W = 0, 1  # colour indices


def new_game(**options):
    options.setdefault("first_player", 0)  # seat 0 plays brown
    return GAME.setup(GAME.resolve_options(options, 2), 2, seed="test")


def place_action(shape, rotation, x, y, **extra):
    return {"type": "place", "shape": shape, "rotation": rotation, "x": x, "y": y, **extra}


def place(state, seat, shape, rotation, x, y, **extra):
    return fold(GAME, state, GAME.play(state, seat, place_action(shape, rotation, x, y, **extra)))


def refusal(state, seat, shape, rotation, x, y, **extra) -> IllegalAction:
    with pytest.raises(IllegalAction) as caught:
        GAME.play(state, seat, place_action(shape, rotation, x, y, **extra))
    return caught.value


def rejected(state, seat, shape, rotation, x, y, **extra) -> str:
    return refusal(state, seat, shape, rotation, x, y, **extra).reason


def moves(state, *placements):
    """Play placements in turn, brown first: each is (shape, rotation, x, y)."""
    for shape, rotation, x, y in placements:
        seat = GAME.to_act(state)[0]
        state = place(state, seat, shape, rotation, x, y)
    return state


def inject(state, pieces=(), remaining=None, last_class=None, to_move=None):
    """The spec's test hook: ``pieces`` = (colour, shape, rotation, x, y) dropped onto the board
    without the placement rules; then the hands, last classes and the colour to move set directly."""
    for colour, shape, rotation, x, y in pieces:
        hands = [dict(h) for h in state["remaining"]]
        hands[colour][shape] = hands[colour].get(shape, 0) + 1  # the injected piece comes from nowhere
        state = dict(state, remaining=hands)
        data = placement.describe_placement(state, colour, shape, rotation, x, y)
        state = GAME.apply(state, {"type": "piece_placed", "seat": state["seats"][colour], "data": data})
    if remaining is not None:
        state = dict(state, remaining=[dict(remaining[0]), dict(remaining[1])])
    if last_class is not None:
        state = dict(state, last_class=list(last_class))
    if to_move is not None:
        state = dict(state, to_move=to_move)
    return state


def cubes_of(events):
    return sorted(tuple(c) for c in events[0]["data"]["cubes"])


def top(state, x, y):
    view = GAME.view(state, None)
    return view["tops"][y][x], view["heights"][y][x]


# -- 0. Players, coordinates -----------------------------------------------------------------------------


def test_exactly_two_players():
    """0.4.1, S-1: exactly two players."""
    assert GAME.info.counts() == [2]
    for players in (1, 3):
        with pytest.raises(InvalidOptions) as caught:
            GAME.resolve_options({}, players)
        assert caught.value.field == "players"


def test_first_player_takes_brown_and_moves_first():
    """0.4.2, S-2, S-6, R-0.1: the first player is brown and moves first; then the turns alternate."""
    state = new_game(first_player=1)
    assert state["seats"] == [1, 0]
    assert GAME.to_act(state) == [1]
    view = GAME.view(state, None)
    assert view["to_move"] == {"colour": "BROWN", "seat": 1}
    state = place(state, 1, "I1", 0, 0, 0)
    assert GAME.view(state, None)["to_move"] == {"colour": "WHITE", "seat": 0}
    state = place(state, 0, "I2", 0, 2, 0)
    assert GAME.to_act(state) == [1]


def test_first_player_is_drawn_from_the_seed_when_not_given():
    """S-2, A-15: "random" is decided by the match seed alone: the same seed, the same first player."""
    options = GAME.resolve_options({}, 2)
    assert options["first_player"] == "random"
    firsts = {seed: GAME.setup(options, 2, seed)["seats"][B] for seed in (f"seed-{i}" for i in range(40))}
    assert set(firsts.values()) == {0, 1}
    assert all(GAME.setup(options, 2, seed)["seats"][B] == first for seed, first in firsts.items())


def test_columns_are_solid_stacks_over_a_w_by_d_board():
    """0.5.1, 0.5.4, 0.5.5: heights count the cubes of each column, which always fill z = 0..h-1."""
    state = moves(new_game(), ("T4", 0, 1, 0), ("I1", 0, 0, 2), ("I4", 12, 1, 0))
    view = GAME.view(state, None)
    assert view["board"] == {"width": 4, "depth": 4, "max_height": None}
    assert view["heights"][0] == [0, 5, 1, 1]  # rows are y; (1, 0) holds the T4 cube and the upright I4
    occupied = {tuple(c) for p in state["placed"] for c in p["cubes"]}
    for y in range(4):
        for x in range(4):
            assert {(x, y, z) for z in range(view["heights"][y][x])} == {
                c for c in occupied if c[:2] == (x, y)
            }


# -- 1. Components, pieces, orientations ---------------------------------------------------------------------


def test_T1_setup_gives_brown_11_pieces_and_white_10():
    """T-1, 1.1, S-4, R-0.1: brown 11 pieces (28 cubes) including H, white 10 (27 cubes); brown to move.
    The sheet's "Brown x 11" includes the extra 1x1x1 block (spec 7.5)."""
    view = GAME.view(new_game(), None)
    brown, white = view["colours"]
    assert brown["pieces_left"] == 11 and brown["cubes_left"] == 28 and brown["remaining"]["H"] == 1
    assert white["pieces_left"] == 10 and white["cubes_left"] == 27 and "H" not in white["remaining"]
    assert brown["remaining"] == {"I1": 2, "I2": 2, "I3": 1, "I4": 1, "L3": 2, "O4": 1, "T4": 1, "H": 1}
    assert view["to_move"]["colour"] == "BROWN"


def test_default_set_is_10_pieces_of_7_shapes_per_colour():
    """1.3 [EXT]: the same 10 regular pieces of 7 shapes for both colours, 27 cubes."""
    sets = DEFAULT_PACK["sets"]
    regular = [(e["shapeId"], e["count"]) for e in sets["BROWN"] if not e["mustBeLast"]]
    assert regular == [(e["shapeId"], e["count"]) for e in sets["WHITE"]]
    assert sum(n for _, n in regular) == 10 and len(regular) == 7


def test_shape_class_defaults_to_the_shape_id():
    """1.2.3, K-1: without a shapeClass in the pack, the class is the shape id."""
    state = new_game()
    assert {s: c for s, c in state["classes"].items() if s != "H"} == {
        s: s for s in state["classes"] if s != "H"
    }


def test_half_piece_has_the_class_of_the_single_cube_by_default():
    """1.2.3, A-04: GEOMETRIC (default) gives H the class I1; OWN keeps H."""
    assert new_game()["classes"]["H"] == "I1"
    assert new_game(half_piece_shape_class="OWN")["classes"]["H"] == "H"


def test_T2_orientation_classes_and_canonical_ids():
    """T-2, 1.4.4: I1 1, I2 3, I3 3, I4 3, L3 12, O4 3, T4 12, H 1, with the spec's canonical ids."""
    t = tables(new_game())
    counts = {sid: len(os) for sid, os in t.orientations.items()}
    assert counts == {"I1": 1, "I2": 3, "I3": 3, "I4": 3, "L3": 12, "O4": 3, "T4": 12, "H": 1}
    ids = {sid: [o.rotation for o in os] for sid, os in t.orientations.items()}
    assert ids["I2"] == [0, 8, 12]
    assert ids["O4"] == [0, 4, 16]
    assert ids["L3"] == [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19]
    assert ids["T4"] == [0, 1, 4, 5, 8, 10, 12, 14, 16, 17, 20, 21]
    for shape in DEFAULT_PACK["shapes"]:  # by cubes alone too (the default set's colours are symmetric)
        assert geometry.geometric_orientation_count(map(tuple, shape["cubes"])) == counts[shape["shapeId"]]


def test_rotation_table_is_the_spec_table():
    """1.4.2: 24 proper rotations, in the spec's order; the "local face on top" column agrees with
    the formulas; rotation 12 stands a bar along x upright."""
    assert len(geometry.ROTATION_TABLE) == 24
    assert geometry.ROTATION_TABLE[12] == ("y, z, x", "+X")
    for r in geometry.ROTATIONS[:24]:
        assert r.determinant == 1
        up = r.apply(geometry.FACE_VECTOR[r.top_face])
        assert up == (0, 0, 1)
    assert geometry.normalise(geometry.ROTATIONS[12].apply(c) for c in [(0, 0, 0), (1, 0, 0), (2, 0, 0)]) == (
        (0, 0, 0),
        (0, 0, 1),
        (0, 0, 2),
    )


def test_T3_placements_on_an_empty_board():
    """T-3, 1.3, 1.5: legal placements per shape on the empty 4 x 4 board, ignoring R-2.3."""
    expected = {"I1": 16, "I2": 40, "I3": 32, "I4": 24, "L3": 84, "O4": 33, "T4": 40, "H": 16}
    for shape, count in expected.items():
        state = inject(new_game(), remaining=[{shape: 1}, {}])
        assert len(GAME.legal_actions(state, BROWN_SEAT)) == count, shape


def test_T4_a_cube_over_empty_space_is_unsupported():
    """T-4, R-2.5: L3 rotation 4 on the empty board: (1,0,1) has nothing below it."""
    error = refusal(new_game(), BROWN_SEAT, "L3", 4, 0, 0)
    assert error.reason == "unsupported" and "R-2.5" in error.message and "[1, 0]" in error.message
    assert tables(new_game()).by_rotation["L3"][4].cubes == ((0, 0, 0), (0, 0, 1), (1, 0, 1))


def test_T5_a_cube_may_rest_on_an_earlier_cube():
    """T-5 (inject), R-2.5: with (1,0) at height 1, L3 rotation 4 at (0,0) rests at z = 0."""
    state = inject(
        new_game(pack_strict_counts=False), [(W, "I1", 0, 1, 0)], last_class=[None, None], to_move=B
    )
    events = GAME.play(state, BROWN_SEAT, place_action("L3", 4, 0, 0))
    assert events[0]["data"]["z"] == 0
    assert cubes_of(events) == [(0, 0, 0), (0, 0, 1), (1, 0, 1)]


def test_T6_drop_height_is_where_the_piece_stops():
    """T-6 (inject), 1.5.3, R-2.5: with (0,0) at height 1, O4 at (0,0) stops at z = 1; three of its
    cubes would float."""
    state = inject(
        new_game(pack_strict_counts=False), [(W, "I1", 0, 0, 0)], last_class=[None, None], to_move=B
    )
    assert placement.describe_placement(state, B, "O4", 0, 0, 0)["z"] == 1
    error = refusal(state, BROWN_SEAT, "O4", 0, 0, 0)
    assert error.reason == "unsupported"
    assert all(str(c) in error.message for c in ([1, 0], [0, 1], [1, 1]))


def test_T7_every_cube_lies_over_the_board():
    """T-7, R-2.4: I4 flat at x = 1 would reach x = 4."""
    error = refusal(new_game(), BROWN_SEAT, "I4", 0, 1, 0)
    assert error.reason == "out_of_board" and "R-2.4" in error.message
    assert rejected(new_game(), BROWN_SEAT, "I1", 0, -1, 0) == "out_of_board"
    assert rejected(new_game(), BROWN_SEAT, "I2", 8, 0, 3) == "out_of_board"  # along y from y = 3


def test_T8_expected_z_must_match_the_derived_height():
    """T-8, AE-1: after brown's L3 at (0,0), white's I1 at (0,0) rests at z = 1, not 0."""
    state = moves(new_game(), ("L3", 0, 0, 0))
    error = refusal(state, WHITE_SEAT, "I1", 0, 0, 0, z=0)
    assert error.reason == "z_mismatch" and "AE-1" in error.message
    events = GAME.play(state, WHITE_SEAT, place_action("I1", 0, 0, 0))
    assert events[0]["data"]["z"] == 1
    GAME.play(state, WHITE_SEAT, place_action("I1", 0, 0, 0, z=1))


def test_T9_the_canonical_rotation_id_is_recorded():
    """T-9, AE-2, 1.4.5: I1 rotation 17 is accepted and logged as rotation 0."""
    events = GAME.play(new_game(), BROWN_SEAT, place_action("I1", 17, 0, 0))
    assert events[0]["data"]["rotation"] == 0
    events = GAME.play(new_game(), BROWN_SEAT, place_action("I2", 3, 0, 0))  # (-x, -y, z): still along x
    assert events[0]["data"]["rotation"] == 0


def test_rotation_ids_outside_the_table_are_refused():
    """1.4.1, A-09: ids 24..47 (mirror images) only with allow_reflection."""
    error = refusal(new_game(), BROWN_SEAT, "I1", 30, 0, 0)
    assert error.reason == "no_such_rotation" and "allow_reflection" in error.message


def test_mirror_images_with_allow_reflection():
    """A-09: a flat shape's mirror image is one of its rotations, so the default set gains nothing;
    a chiral 3D shape gains its mirror orientations."""
    state = new_game(allow_reflection=True)
    events = GAME.play(state, BROWN_SEAT, place_action("L3", 24 + 5, 0, 0))
    assert events[0]["data"]["rotation"] < 24  # the mirror image equals a proper rotation
    assert {s: len(o) for s, o in tables(state).orientations.items()} == {
        s: len(o) for s, o in tables(new_game()).orientations.items()
    }
    chiral = geometry.ShapeSpec("S", ((0, 0, 0), (1, 0, 0), (1, 1, 0), (1, 1, 1)), (("OWNER",) * 6,) * 4)
    assert len(geometry.orientations(chiral)[0]) == 12
    assert len(geometry.orientations(chiral, allow_reflection=True)[0]) == 24


# -- 2. Setup and content packs -----------------------------------------------------------------------------


def test_default_pack_is_generated_not_the_publishers():
    """1.8.3, K-10: the shipped pack says it is generated; the view tells the UI."""
    assert DEFAULT_PACK["provenance"] == "GENERATED"
    assert GAME.packs.default == "bb-default-generated"
    view = GAME.view(new_game(), None)
    assert view["pack"]["id"] == "bb-default-generated" and view["pack"]["publisher_data"] is False


def test_options_have_defaults_for_every_config_key():
    """7.6: every config key has a default and a description; unknown keys are refused."""
    properties = GAME.options_schema["properties"]
    keys = {
        "pack",
        "pack_strict_counts",
        "board_size",
        "max_height",
        "use_half_piece",
        "half_piece_scoring",
        "half_piece_shape_class",
        "orientation_equivalence",
        "allow_reflection",
        "same_shape_stack_rule",
        "same_shape_stack_owner_scope",
        "same_shape_ban",
        "tie_break",
        "require_adjacency",
        "loss_check_timing",
        "first_player",
    }
    assert set(properties) == keys
    assert all("default" in p and p["description"] for p in properties.values())
    assert GAME.options_schema["additionalProperties"] is False
    resolved = GAME.resolve_options({}, 2)
    assert resolved["pack"] == "bb-default-generated" and resolved["same_shape_stack_rule"] == "EXACT_COVER"
    validator = jsonschema.Draft202012Validator(GAME.options_schema)
    assert validator.is_valid(resolved)
    for bad in (
        {"board_size": [0, 4]},
        {"board_size": [4]},
        {"max_height": 0},
        {"tie_break": "COIN"},
        {"colour": "red"},
        {"first_player": 2},
    ):
        assert not validator.is_valid(bad), bad


def test_board_size_and_max_height_options_override_the_pack():
    """S-3, A-01, A-03, 1.8.1: options override the pack's board and maxHeight; "pack" keeps them."""
    pack = copy.deepcopy(DEFAULT_PACK)
    pack["board"] = {"width": 5, "depth": 3}
    pack["maxHeight"] = 3
    options = GAME.resolve_options({"first_player": 0}, 2)
    state = GAME.setup(options, 2, "s", pack)
    assert (state["width"], state["depth"], state["max_height"]) == (5, 3, 3)
    options = GAME.resolve_options({"first_player": 0, "board_size": [6, 2], "max_height": None}, 2)
    state = GAME.setup(options, 2, "s", pack)
    assert (state["width"], state["depth"], state["max_height"]) == (6, 2, None)


def test_use_half_piece_false_removes_h():
    """S-4, A-06: without the half piece brown holds the same 10 pieces as white."""
    brown, white = GAME.view(new_game(use_half_piece=False), None)["colours"]
    assert brown["remaining"] == white["remaining"] and brown["pieces_left"] == 10


def test_pack_schema_errors_name_the_item_and_field():
    """1.8.1: a pack failing its schema is refused with the item and field at fault."""
    pack = json.loads(json.dumps({k: v for k, v in DEFAULT_PACK.items() if k != "checks"}))
    pack["shapes"][2]["faceColours"][0]["face"] = "+W"
    with pytest.raises(InvalidPack) as caught:
        GAME.packs.load(pack, {})
    assert caught.value.path == "shapes[2] (I3).faceColours[0].face"
    with pytest.raises(InvalidPack) as caught:
        GAME.packs.load({"packId": "x"}, {})
    assert caught.value.path == "pack"


def raw_pack():
    return json.loads(json.dumps({k: v for k, v in DEFAULT_PACK.items() if k != "checks"}))


@pytest.mark.parametrize(
    "change, path, rule",
    [
        (lambda p: p["shapes"][1].update(shapeId="I1"), "shapes[1] (I1).shapeId", "K-1"),
        (lambda p: p["shapes"][1].update(cubes=[[0, 0, 0], [0, 0, 0]]), "shapes[1] (I2).cubes[1]", "K-2"),
        (lambda p: p["shapes"][1].update(cubes=[[0, 0, 0], [2, 0, 0]]), "shapes[1] (I2).cubes", "K-2"),
        (lambda p: p["shapes"][1].update(cubes=[[1, 0, 0], [2, 0, 0]]), "shapes[1] (I2).cubes", "K-2"),
        (
            lambda p: p["shapes"][2]["faceColours"].append({"cube": 5, "face": "+Z", "colour": "OWNER"}),
            "shapes[2] (I3).faceColours[2].cube",
            "K-3",
        ),
        (
            lambda p: p["shapes"][2]["faceColours"][0].update(face="+X"),
            "shapes[2] (I3).faceColours[0].face",
            "K-3",
        ),
        (
            lambda p: p["shapes"][2]["faceColours"].append({"cube": 0, "face": "-X", "colour": "OWNER"}),
            "shapes[2] (I3).faceColours[2]",
            "K-3",
        ),
        (
            lambda p: p["sets"]["WHITE"].append({"shapeId": "Z9", "count": 1}),
            "sets.WHITE[7] (Z9).shapeId",
            "K-4",
        ),
        (
            lambda p: p["sets"]["WHITE"].append({"shapeId": "I1", "count": 1}),
            "sets.WHITE[7] (I1).shapeId",
            "K-4",
        ),
        (lambda p: p["sets"]["BROWN"][7].update(count=2), "sets.BROWN[7] (H).count", "K-5"),
        (lambda p: p["sets"]["BROWN"][2].update(mustBeLast=True), "sets.BROWN[7] (H).mustBeLast", "K-5"),
        (
            lambda p: p["shapes"][0].update(defaultFaceColour="HALF"),
            "shapes[0] (I1).defaultFaceColour",
            "K-6",
        ),
    ],
)
def test_pack_semantic_checks_name_the_item_and_field(change, path, rule):
    """1.8.2 K-1..K-6: errors, each naming the item and field."""
    pack = raw_pack()
    change(pack)
    with pytest.raises(InvalidPack) as caught:
        GAME.packs.load(pack, {})
    assert caught.value.path == path and rule in caught.value.message


def test_strict_counts_refuse_other_sets_and_colourings():
    """1.8.2 K-7, K-8 with pack_strict_counts: only with the option (default true) are they errors."""
    pack = raw_pack()
    pack["sets"]["WHITE"][0]["count"] = 3  # 11 white pieces
    pack["shapes"][1]["faceColours"] = [
        {"cube": 0, "face": "-X", "colour": "OPPONENT"}
    ]  # I2 with a coloured end
    loaded = GAME.packs.load(pack, {})
    assert any("K-7" in f and f.startswith("sets.WHITE") for f in loaded["checks"]["strict"])
    assert any("K-7" in f and f.startswith("sets.BROWN") for f in loaded["checks"]["strict"])
    assert any("K-8" in f and f.startswith("shapes[1] (I2).faceColours") for f in loaded["checks"]["strict"])
    with pytest.raises(InvalidOptions) as caught:
        GAME.setup(GAME.resolve_options({}, 2), 2, "s", loaded)
    assert caught.value.field == "options.pack" and "pack_strict_counts" in caught.value.message
    state = GAME.setup(GAME.resolve_options({"pack_strict_counts": False}, 2), 2, "s", loaded)
    assert state["remaining"][W]["I1"] == 3
    assert DEFAULT_PACK["checks"]["strict"] == []  # the default pack passes K-7 and K-8


def test_pieces_that_never_fit_are_warnings():
    """1.8.2 K-9: a regular shape that fits the effective board in no orientation is a warning."""
    assert DEFAULT_PACK["checks"]["warnings"] == []
    state = new_game(board_size=[2, 2], max_height=1)
    warned = " ".join(state["warnings"])
    assert all(s in warned for s in ("(I3)", "(I4)", "(T4)")) and "(O4)" not in warned and "K-9" in warned


# -- 3. Turns and placement ---------------------------------------------------------------------------------


def test_a_player_must_place_one_piece_and_cannot_pass():
    """R-0.2: the legal actions are placements only; a turn is one placement."""
    state = new_game()
    actions = GAME.legal_actions(state, BROWN_SEAT)
    assert actions and all(a["type"] == "place" for a in actions)
    assert GAME.legal_actions(state, WHITE_SEAT) == []
    with pytest.raises(ValidationError):
        GAME.action_schema().load({"type": "pass"})


def test_only_the_player_to_move_may_place():
    """R-0.1, 8.2 NOT_YOUR_TURN: checked first."""
    error = refusal(new_game(), WHITE_SEAT, "H", 0, 9, 9)
    assert error.reason == "not_your_turn"


def test_default_game_takes_21_turns():
    """R-0.3, E-1: brown plays moves 1, 3, ..., 21 (H last), white 2, ..., 20; then the game ends."""
    state = golden_game()
    assert state["move_no"] == 21
    assert [p["colour"] for p in state["placed"]] == ["BROWN", "WHITE"] * 10 + ["BROWN"]
    assert state["placed"][-1]["shape"] == "H"


def test_the_action_names_shape_rotation_and_cell_and_the_engine_derives_z():
    """R-2.1, 1.5.1: just shape, rotation and (x, y); the answer says z and the cubes."""
    state = moves(new_game(), ("O4", 0, 0, 0))
    events = GAME.play(state, WHITE_SEAT, place_action("I2", 12, 1, 1))
    assert events[0]["data"]["z"] == 1 and cubes_of(events) == [(1, 1, 1), (1, 1, 2)]


def test_a_player_places_only_pieces_they_still_hold():
    """R-2.2 NO_SUCH_PIECE: a used-up shape, a shape of the other set, an unknown shape."""
    state = moves(new_game(), ("I3", 0, 0, 0), ("I1", 0, 3, 3))
    error = refusal(state, BROWN_SEAT, "I3", 12, 3, 2)
    assert error.reason == "no_such_piece" and "R-2.2" in error.message
    assert rejected(new_game(), BROWN_SEAT, "X5", 0, 0, 0) == "no_such_piece"
    white_turn = moves(new_game(), ("I1", 0, 0, 0))
    assert rejected(white_turn, WHITE_SEAT, "H", 0, 3, 3) == "no_such_piece"  # white has no half piece


def test_T20_the_half_piece_must_be_placed_last():
    """T-20, R-2.3: brown holding H and other pieces may not place H; and H is never listed then."""
    error = refusal(new_game(), BROWN_SEAT, "H", 0, 0, 0)
    assert error.reason == "half_piece_not_last" and "R-2.3" in error.message
    assert not any(a["shape"] == "H" for a in GAME.legal_actions(new_game(), BROWN_SEAT))


def test_the_half_piece_is_placeable_once_it_is_the_last_piece():
    """R-2.3: with H as brown's only piece it is legal (move 21 of the golden game)."""
    state = inject(new_game(), remaining=[{"H": 1}, {"I1": 1}])
    assert {a["shape"] for a in GAME.legal_actions(state, BROWN_SEAT)} == {"H"}


def test_max_height_limits_every_cube():
    """R-2.4, A-03: with max_height 2, an upright I3 (3 high) is refused; two flat layers fit."""
    state = new_game(max_height=2)
    error = refusal(state, BROWN_SEAT, "I3", 12, 0, 0)
    assert error.reason == "over_max_height" and "R-2.4" in error.message
    state = moves(state, ("O4", 0, 0, 0))
    GAME.play(state, WHITE_SEAT, place_action("I2", 0, 0, 0))
    assert rejected(moves(state, ("I2", 0, 0, 0)), BROWN_SEAT, "I1", 0, 0, 0) == "over_max_height"


def test_a_piece_may_be_placed_anywhere_without_touching_others():
    """R-2.6, A-13 (default false): no adjacency rule."""
    state = moves(new_game(), ("I1", 0, 0, 0))
    events = GAME.play(state, WHITE_SEAT, place_action("I2", 0, 2, 3))
    assert events[0]["data"]["cubes"] == [[2, 3, 0], [3, 3, 0]]


def test_require_adjacency_option_wants_a_shared_face_from_move_2():
    """A-13 with require_adjacency: the second piece must share a face with an earlier piece."""
    state = moves(new_game(require_adjacency=True), ("I1", 0, 0, 0))
    error = refusal(state, WHITE_SEAT, "I2", 0, 2, 3)
    assert error.reason == "not_adjacent" and "R-2.6" in error.message
    GAME.play(state, WHITE_SEAT, place_action("I2", 0, 1, 0))  # beside it
    GAME.play(state, WHITE_SEAT, place_action("I2", 12, 0, 0))  # on top of it (I2 is not I1's class)
    listed = GAME.legal_actions(state, WHITE_SEAT)
    touching = {(1, 0, 0), (0, 1, 0), (0, 0, 1)}  # the positions sharing a face with the I1 at (0, 0, 0)
    assert listed and all(any(tuple(c) in touching for c in a["cubes"]) for a in listed)


def test_T16_no_exact_stacking_of_the_same_shape_and_orientation():
    """T-16, R-2.7: white's O4 exactly on brown's O4 (both r0) is refused."""
    state = moves(new_game(), ("O4", 0, 0, 0), ("I2", 8, 2, 0), ("I1", 0, 3, 3))
    assert placement.describe_placement(state, W, "O4", 0, 0, 0)["z"] == 1
    error = refusal(state, WHITE_SEAT, "O4", 0, 0, 0)
    assert error.reason == "same_shape_stack" and "R-2.7" in error.message


def test_T17_a_partial_overlap_is_allowed_unless_any_contact():
    """T-17, R-2.7, A-10: O4 at (1,0) rests on the O4 and the I2: accepted; refused with ANY_CONTACT."""
    opening = [("O4", 0, 0, 0), ("I2", 8, 2, 0), ("I1", 0, 3, 3)]
    state = moves(new_game(), *opening)
    events = GAME.play(state, WHITE_SEAT, place_action("O4", 0, 1, 0))
    assert events[0]["data"]["z"] == 1
    state = moves(new_game(same_shape_stack_rule="ANY_CONTACT"), *opening)
    assert rejected(state, WHITE_SEAT, "O4", 0, 1, 0) == "same_shape_stack"


def test_T18_a_single_cube_on_a_single_cube():
    """T-18, R-2.7: I1 exactly on I1 is refused; I1 on an L3 is fine."""
    state = moves(new_game(), ("I1", 0, 0, 0), ("I2", 0, 2, 3), ("L3", 0, 2, 0))
    assert rejected(state, WHITE_SEAT, "I1", 0, 0, 0) == "same_shape_stack"
    events = GAME.play(state, WHITE_SEAT, place_action("I1", 0, 2, 0))
    assert events[0]["data"]["z"] == 1


def test_T19_upright_bar_on_upright_bar():
    """T-19, R-2.7, R-2.5: I3 upright on an upright I3 is refused; I3 flat on it is unsupported."""
    state = moves(new_game(), ("I3", 12, 0, 0), ("I1", 0, 3, 3), ("I2", 0, 2, 2))
    assert rejected(state, WHITE_SEAT, "I3", 12, 0, 0) == "same_shape_stack"
    assert rejected(state, WHITE_SEAT, "I3", 0, 0, 0) == "unsupported"


def test_same_shape_turned_another_way_may_stack():
    """R-2.7: the same shape in another orientation may sit on it (I2 flat across two upright I2s is
    another orientation; an upright I2 on an upright I2 is not)."""
    state = moves(new_game(), ("I2", 12, 0, 0), ("I1", 0, 3, 3), ("I2", 12, 1, 0))  # brown's two upright I2
    state = moves(state, ("I1", 0, 3, 2), ("L3", 0, 0, 2))  # brown's last shape is now L3: no ban on I2
    events = GAME.play(state, WHITE_SEAT, place_action("I2", 0, 0, 0))
    assert events[0]["data"]["z"] == 2
    assert rejected(state, WHITE_SEAT, "I2", 12, 0, 0) == "same_shape_stack"


def test_stacking_ban_applies_to_own_pieces_unless_opponent_only():
    """A-11: ANY (default) also forbids stacking on one's own piece; OPPONENT_ONLY allows it."""
    opening = [("I1", 0, 0, 0), ("I2", 0, 2, 3)]
    state = moves(new_game(), *opening)
    assert rejected(state, BROWN_SEAT, "I1", 0, 0, 0) == "same_shape_stack"
    state = moves(new_game(same_shape_stack_owner_scope="OPPONENT_ONLY"), *opening)
    GAME.play(state, BROWN_SEAT, place_action("I1", 0, 0, 0))
    state = moves(state, ("I3", 0, 0, 1))
    assert rejected(state, WHITE_SEAT, "I3", 0, 0, 1) == "same_shape_stack"  # the opponent's: still refused


def test_half_piece_counts_as_a_single_cube_for_stacking():
    """A-04, A-07: H (class I1) may not sit exactly on an I1; with OWN, or when colours count
    (GEOMETRY_AND_COLOURS: H's faces are HALF, an I1's OWNER), it may."""

    def position(**options):
        return inject(
            new_game(pack_strict_counts=False, **options),
            [(W, "I1", 0, 0, 0)],
            remaining=[{"H": 1}, {}],
            last_class=[None, "I1"],
            to_move=B,
        )

    assert rejected(position(), BROWN_SEAT, "H", 0, 0, 0) == "same_shape_stack"
    GAME.play(position(half_piece_shape_class="OWN"), BROWN_SEAT, place_action("H", 0, 0, 0))
    GAME.play(
        position(orientation_equivalence="GEOMETRY_AND_COLOURS"), BROWN_SEAT, place_action("H", 0, 0, 0)
    )


def test_T13_not_the_shape_the_opponent_just_placed():
    """T-13, R-2.8: after brown's I2, white's I2 is refused; white's I1 is accepted."""
    state = moves(new_game(), ("I2", 0, 0, 0))
    error = refusal(state, WHITE_SEAT, "I2", 0, 0, 3)
    assert error.reason == "same_shape_as_opponent" and "R-2.8" in error.message
    assert not any(a["shape"] == "I2" for a in GAME.legal_actions(state, WHITE_SEAT))
    GAME.play(state, WHITE_SEAT, place_action("I1", 0, 3, 3))
    assert GAME.view(state, None)["banned_class"] == {"class": "I2", "waived": False}


def t14_position(extra=None):
    pieces = [(W, "I2", 12, x, y) for y in range(4) for x in range(4) if (x + y) % 2 == 0]
    hand = {"I2": 1, "L3": 1, **(extra or {})}
    return inject(
        new_game(pack_strict_counts=False),
        pieces,
        remaining=[hand, {"I1": 2}],
        last_class=[None, "I2"],
        to_move=B,
    )


def test_T14_the_banned_shape_is_allowed_when_nothing_else_fits():
    """T-14 (inject), R-1.2, R-2.8: L3 fits nowhere; the 8 upright I2 on the empty cells are legal
    despite the ban."""
    state = t14_position()
    actions = GAME.legal_actions(state, BROWN_SEAT)
    assert {a["shape"] for a in actions} == {"I2"}
    assert sorted((a["x"], a["y"]) for a in actions) == sorted(
        (x, y) for y in range(4) for x in range(4) if (x + y) % 2 == 1
    )
    assert {a["rotation"] for a in actions} == {12}
    assert GAME.view(state, None)["banned_class"] == {"class": "I2", "waived": True}
    GAME.play(state, BROWN_SEAT, place_action("I2", 12, 0, 1))


def test_T15_the_ban_holds_while_another_shape_fits():
    """T-15 (inject), R-2.8: as T-14 with an I1 too: I1 has 16 placements, so I2 is refused."""
    state = t14_position({"I1": 1})
    actions = GAME.legal_actions(state, BROWN_SEAT)
    assert {a["shape"] for a in actions} == {"I1"} and len(actions) == 16
    assert rejected(state, BROWN_SEAT, "I2", 12, 0, 1) == "same_shape_as_opponent"


def test_the_ban_looks_only_at_the_opponents_latest_placement():
    """A-12: the ban lasts one turn; one's own last shape is not banned."""
    state = moves(new_game(), ("I2", 0, 0, 0), ("I1", 0, 3, 3))
    assert GAME.play(state, BROWN_SEAT, place_action("I2", 0, 0, 1))[0]["data"]["shape"] == "I2"  # its own
    state = moves(state, ("L3", 0, 0, 1))
    assert GAME.view(state, None)["banned_class"] == {"class": "L3", "waived": False}
    assert GAME.play(state, WHITE_SEAT, place_action("I2", 0, 2, 0))[0]["data"]["shape"] == "I2"


def test_same_shape_ban_option_off():
    """A-12 with same_shape_ban = false: the opponent's shape may be played at once."""
    state = moves(new_game(same_shape_ban=False), ("I2", 0, 0, 0))
    GAME.play(state, WHITE_SEAT, place_action("I2", 0, 0, 3))
    assert GAME.view(state, None)["banned_class"] is None


def test_validation_order_reports_the_first_failing_check():
    """8.2: NOT_YOUR_TURN, NO_SUCH_PIECE, HALF_PIECE_NOT_LAST, OUT_OF_BOARD, Z_MISMATCH,
    OVER_MAX_HEIGHT, UNSUPPORTED, SAME_SHAPE_STACK, SAME_SHAPE_AS_OPPONENT, in that order."""
    state = new_game(max_height=2)
    assert rejected(state, WHITE_SEAT, "X9", 0, 99, 0) == "not_your_turn"
    assert rejected(state, BROWN_SEAT, "X9", 0, 99, 0) == "no_such_piece"
    assert rejected(state, BROWN_SEAT, "H", 0, 99, 0) == "half_piece_not_last"
    assert rejected(state, BROWN_SEAT, "I3", 12, 99, 0, z=5) == "out_of_board"
    assert rejected(state, BROWN_SEAT, "I3", 12, 0, 0, z=5) == "z_mismatch"
    assert rejected(state, BROWN_SEAT, "I3", 12, 0, 0) == "over_max_height"
    assert rejected(state, BROWN_SEAT, "L3", 4, 0, 0, z=1) == "z_mismatch"  # before unsupported
    # white's I2 exactly on brown's I2 breaks: stacking is reported first
    assert rejected(moves(new_game(), ("I2", 0, 0, 0)), WHITE_SEAT, "I2", 0, 0, 0) == "same_shape_stack"


def test_stated_cubes_and_colours_must_be_what_the_engine_derives():
    """AE-1, AE-3: an action may state the cubes and top colours; they are checked."""
    action = GAME.legal_actions(new_game(), BROWN_SEAT)[0]
    GAME.play(new_game(), BROWN_SEAT, dict(action, cubes=list(reversed(action["cubes"]))))
    wrong = dict(action, cubes=[[c[0], c[1], c[2] + 1] for c in action["cubes"]])
    error = refusal(
        new_game(),
        BROWN_SEAT,
        action["shape"],
        action["rotation"],
        action["x"],
        action["y"],
        cubes=wrong["cubes"],
    )
    assert error.reason == "placement_mismatch"
    upright = place_action("I3", 12, 0, 0, top_colours=["BROWN", "BROWN", "BROWN"])
    with pytest.raises(IllegalAction) as caught:
        GAME.play(new_game(), BROWN_SEAT, upright)
    assert caught.value.reason == "placement_mismatch"


def test_placement_effects():
    """R-3.1, R-3.2, R-3.3: the piece leaves the hand, its cubes and top colours are recorded, the
    last class is set, the move number grows and the turn passes."""
    before = new_game()
    events = GAME.play(before, BROWN_SEAT, place_action("I3", 12, 1, 1))
    assert [e["type"] for e in events] == ["piece_placed"]
    data = events[0]["data"]
    assert data == {
        "colour": "BROWN",
        "shape": "I3",
        "shape_class": "I3",
        "rotation": 12,
        "x": 1,
        "y": 1,
        "z": 0,
        "cubes": [[1, 1, 0], [1, 1, 1], [1, 1, 2]],
        "top_colours": ["BROWN", "BROWN", "WHITE"],
        "move_no": 1,
    }
    after = fold(GAME, before, events)
    assert after["remaining"][B].get("I3", 0) == 0 and after["remaining"][B]["I1"] == 2
    assert after["last_class"] == ["I3", None] and after["move_no"] == 1
    assert GAME.to_act(after) == [WHITE_SEAT]
    assert top(after, 1, 1) == ("WHITE", 3)


def test_play_and_apply_never_mutate_their_input():
    """The engine contract: states are values."""
    state = moves(new_game(), ("O4", 0, 0, 0))
    frozen = copy.deepcopy(state)
    events = GAME.play(state, WHITE_SEAT, place_action("I2", 12, 0, 0))
    fold(GAME, state, events)
    GAME.legal_actions(state, WHITE_SEAT)
    GAME.view(state, None)
    GAME.scores(state)
    assert state == frozen
    json.dumps(fold(GAME, state, events))  # and stay JSON


# -- 3.1 / 5. Loss, end and scoring ---------------------------------------------------------------------------


def test_T21_a_player_with_no_legal_placement_loses_at_once():
    """T-21, R-1.1, AE-5: on a full 2 x 2 board of height 1, white's turn starts with no placement."""
    state = new_game(board_size=[2, 2], max_height=1)
    events = GAME.play(state, BROWN_SEAT, place_action("O4", 0, 0, 0))
    assert [e["type"] for e in events] == ["piece_placed", "no_legal_placement", "game_over"]
    assert events[1]["data"]["colour"] == "WHITE" and events[1]["seat"] == WHITE_SEAT
    over = events[2]["data"]
    assert over["winner"] == "BROWN" and over["reason"] == "NO_LEGAL_PLACEMENT" and over["winner_seat"] == 0
    state = fold(GAME, state, events)
    assert GAME.is_over(state) and GAME.to_act(state) == []
    assert GAME.legal_actions(state, WHITE_SEAT) == []
    assert rejected(state, WHITE_SEAT, "I1", 0, 0, 0) == "game_over"


def test_T22_brown_holding_only_the_half_piece_on_a_full_board_loses():
    """T-22 (inject), R-1.1: a 1 x 1 board of height 1 holding a white I1; brown holds only H."""
    state = new_game(board_size=[1, 1], max_height=1, pack_strict_counts=False)
    state = inject(state, remaining=[{"H": 1}, {"I1": 1}], to_move=W)
    events = GAME.play(state, WHITE_SEAT, place_action("I1", 0, 0, 0))  # white fills the only cell
    assert [e["type"] for e in events] == ["piece_placed", "no_legal_placement", "game_over"]
    assert events[1]["data"]["colour"] == "BROWN"
    assert events[2]["data"]["winner"] == "WHITE" and events[2]["data"]["reason"] == "NO_LEGAL_PLACEMENT"


def test_the_loss_by_no_placement_ignores_the_visible_score():
    """E-6: the opponent wins whatever the visible score; the score is still reported."""
    state = new_game(board_size=[3, 1], max_height=1, pack_strict_counts=False)
    state = inject(
        state,
        [(B, "I1", 0, 0, 0), (B, "I1", 0, 1, 0)],
        remaining=[{"I2": 1}, {"I1": 1}],
        last_class=[None, None],
        to_move=W,
    )
    state = fold(GAME, state, GAME.play(state, WHITE_SEAT, place_action("I1", 0, 2, 0)))
    assert state["result"]["winner"] == "WHITE" and state["result"]["score"] == {"BROWN": 2, "WHITE": 1}
    result = GAME.scores(state)
    assert (
        result["scores"] == [2, 1] and result["ranks"] == [2, 1] and result["reason"] == "NO_LEGAL_PLACEMENT"
    )


def test_loss_check_on_request_defers_the_same_outcome():
    """A-16 ON_REQUEST: no loss event as the turn starts; the player's next placement ends the game
    with the same result."""
    state = new_game(board_size=[2, 2], max_height=1, loss_check_timing="ON_REQUEST")
    events = GAME.play(state, BROWN_SEAT, place_action("O4", 0, 0, 0))
    assert [e["type"] for e in events] == ["piece_placed"]
    state = fold(GAME, state, events)
    assert GAME.to_act(state) == [WHITE_SEAT] and GAME.legal_actions(state, WHITE_SEAT) == []
    events = GAME.play(state, WHITE_SEAT, place_action("I1", 0, 0, 0))
    assert [e["type"] for e in events] == ["no_legal_placement", "game_over"]
    assert events[1]["data"]["winner"] == "BROWN" and events[1]["data"]["reason"] == "NO_LEGAL_PLACEMENT"


def test_a_first_player_who_cannot_place_at_all_has_lost_at_setup():
    """R-1.1 at the very first turn (a custom pack: brown's only piece never fits): the initial state
    is already over, white winning, since setup returns a state and not events."""
    pack = {
        "packId": "stuck",
        "version": "1",
        "provenance": "TEST_FIXTURE",
        "board": {"width": 1, "depth": 1},
        "shapes": [
            {"shapeId": "I1", "cubes": [[0, 0, 0]]},
            {"shapeId": "O4", "cubes": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]},
        ],
        "sets": {"BROWN": [{"shapeId": "O4", "count": 1}], "WHITE": [{"shapeId": "I1", "count": 1}]},
    }
    loaded = GAME.packs.load(pack, {})
    assert any("(O4)" in w and "K-9" in w for w in loaded["checks"]["warnings"])
    state = GAME.setup(
        GAME.resolve_options({"pack_strict_counts": False, "first_player": 0}, 2), 2, "s", loaded
    )
    assert GAME.is_over(state) and GAME.to_act(state) == []
    assert state["result"]["winner"] == "WHITE" and state["result"]["reason"] == "NO_LEGAL_PLACEMENT"


def test_a_player_out_of_pieces_while_the_opponent_holds_some_has_no_placement():
    """3.4, R-1.1: the spec's state machine sends every turn through the loss check (only a custom
    pack with unequal sets gets there)."""
    state = inject(new_game(pack_strict_counts=False), remaining=[{"I1": 2}, {"I1": 1}], to_move=W)
    events = GAME.play(state, WHITE_SEAT, place_action("I1", 0, 0, 0))
    assert [e["type"] for e in events] == ["piece_placed"]  # brown still has pieces: on with the game
    state = fold(GAME, state, events)
    state = fold(GAME, state, GAME.play(state, BROWN_SEAT, place_action("I1", 0, 1, 0)))
    assert state["result"]["winner"] == "BROWN" and state["result"]["reason"] == "NO_LEGAL_PLACEMENT"


def test_T10_an_upright_bar_shows_the_opponents_colour():
    """T-10, E-3: brown's upright I3 shows WHITE on top: brown 0, white 1."""
    state = moves(new_game(), ("I3", 12, 0, 0))
    assert [tuple(c) for c in state["placed"][0]["cubes"]] == [(0, 0, 0), (0, 0, 1), (0, 0, 2)]
    assert top(state, 0, 0) == ("WHITE", 3)
    assert [c["visible_score"] for c in GAME.view(state, None)["colours"]] == [0, 1]


def test_T11_a_flat_bar_shows_its_owners_colour():
    """T-11, E-3: brown's flat I3 shows BROWN on its three cells: brown 3."""
    state = moves(new_game(), ("I3", 0, 0, 0))
    assert [top(state, x, 0)[0] for x in range(3)] == ["BROWN"] * 3
    assert GAME.scores(state)["scores"] == [3, 0]


def test_T12_whites_upright_bar_shows_brown():
    """T-12, E-3: white's upright I4 on an empty cell shows BROWN."""
    state = moves(new_game(), ("I1", 0, 0, 0), ("I4", 12, 3, 3))
    assert top(state, 3, 3) == ("BROWN", 4)


def test_T23_a_tie_is_a_draw_unless_a_tie_break_is_set():
    """T-23 (inject), E-5, A-14: without the half piece, 8 brown and 8 white top faces: a draw; with
    SECOND_PLAYER white wins, with FIRST_PLAYER brown."""

    def finished(**options):
        state = new_game(use_half_piece=False, pack_strict_counts=False, **options)
        cells = [(x, y) for y in range(4) for x in range(4)]
        pieces = [(B if i % 2 == 0 else W, "I1", 0, x, y) for i, (x, y) in enumerate(cells[:-1])]
        state = inject(state, pieces, remaining=[{}, {"I1": 1}], last_class=["I1", None], to_move=W)
        events = GAME.play(state, WHITE_SEAT, place_action("I1", 0, 3, 3))
        assert [e["type"] for e in events] == ["piece_placed", "game_over"]
        return fold(GAME, state, events)

    draw = finished()
    assert draw["result"]["score"] == {"BROWN": 8, "WHITE": 8}
    assert draw["result"]["winner"] is None and draw["result"]["tie_break"] == "DRAW"
    assert GAME.scores(draw)["ranks"] == [1, 1]
    assert finished(tie_break="SECOND_PLAYER")["result"]["winner"] == "WHITE"
    assert GAME.scores(finished(tie_break="SECOND_PLAYER"))["ranks"] == [2, 1]
    assert finished(tie_break="FIRST_PLAYER")["result"]["winner"] == "BROWN"


def test_resignation_ends_the_game_for_the_opponent():
    """E-7: RESIGN, by either player at any time, outside the rules."""
    state = new_game()
    events = GAME.play(state, WHITE_SEAT, {"type": "resign"})  # not white's turn: still allowed
    assert [e["type"] for e in events] == ["resigned", "game_over"]
    assert events[1]["data"]["winner"] == "BROWN" and events[1]["data"]["reason"] == "RESIGNED"
    state = fold(GAME, state, events)
    assert GAME.is_over(state) and GAME.scores(state)["ranks"] == [1, 2]


# -- A.6 The golden game ------------------------------------------------------------------------------------

GOLDEN = [  # (player, shape, r, x, y, z, cubes), spec Appendix A.6
    ("BROWN", "T4", 0, 1, 0, 0, [(1, 0, 0), (2, 0, 0), (2, 1, 0), (3, 0, 0)]),
    ("WHITE", "I1", 0, 0, 2, 0, [(0, 2, 0)]),
    ("BROWN", "I4", 12, 1, 0, 1, [(1, 0, 1), (1, 0, 2), (1, 0, 3), (1, 0, 4)]),
    ("WHITE", "T4", 14, 0, 2, 0, [(0, 2, 1), (1, 2, 0), (1, 2, 1), (1, 2, 2)]),
    ("BROWN", "I3", 12, 0, 3, 0, [(0, 3, 0), (0, 3, 1), (0, 3, 2)]),
    ("WHITE", "O4", 0, 2, 2, 0, [(2, 2, 0), (2, 3, 0), (3, 2, 0), (3, 3, 0)]),
    ("BROWN", "L3", 5, 0, 1, 0, [(0, 1, 0), (0, 1, 1), (1, 1, 0)]),
    ("WHITE", "I4", 12, 3, 0, 1, [(3, 0, 1), (3, 0, 2), (3, 0, 3), (3, 0, 4)]),
    ("BROWN", "L3", 16, 0, 1, 2, [(0, 1, 2), (0, 1, 3), (0, 2, 2)]),
    ("WHITE", "I2", 12, 1, 3, 0, [(1, 3, 0), (1, 3, 1)]),
    ("BROWN", "O4", 4, 0, 2, 3, [(0, 2, 3), (0, 2, 4), (1, 2, 3), (1, 2, 4)]),
    ("WHITE", "I1", 0, 2, 3, 1, [(2, 3, 1)]),
    ("BROWN", "I2", 12, 0, 3, 3, [(0, 3, 3), (0, 3, 4)]),
    ("WHITE", "L3", 7, 2, 1, 0, [(2, 1, 1), (3, 1, 0), (3, 1, 1)]),
    ("BROWN", "I1", 0, 2, 0, 1, [(2, 0, 1)]),
    ("WHITE", "I2", 12, 0, 0, 0, [(0, 0, 0), (0, 0, 1)]),
    ("BROWN", "I1", 0, 0, 0, 2, [(0, 0, 2)]),
    ("WHITE", "I3", 12, 2, 2, 1, [(2, 2, 1), (2, 2, 2), (2, 2, 3)]),
    ("BROWN", "I2", 8, 2, 0, 2, [(2, 0, 2), (2, 1, 2)]),
    ("WHITE", "L3", 19, 2, 0, 3, [(2, 0, 3), (2, 1, 3), (2, 1, 4)]),
    ("BROWN", "H", 0, 2, 0, 4, [(2, 0, 4)]),
]

GOLDEN_BOARD = [  # rows from y = 3 down to y = 0: (top colour, height)
    [("BROWN", 5), ("WHITE", 2), ("WHITE", 2), ("WHITE", 1)],
    [("BROWN", 5), ("BROWN", 5), ("BROWN", 4), ("WHITE", 1)],
    [("BROWN", 4), ("BROWN", 1), ("WHITE", 5), ("WHITE", 2)],
    [("BROWN", 3), ("WHITE", 5), ("HALF", 5), ("BROWN", 5)],
]


def golden_game(**options):
    state = new_game(**options)
    log = []
    for number, (player, shape, r, x, y, z, cubes) in enumerate(GOLDEN, start=1):
        seat = BROWN_SEAT if player == "BROWN" else WHITE_SEAT
        assert GAME.to_act(state) == [seat], number
        listed = [
            a
            for a in GAME.legal_actions(state, seat)
            if (a["shape"], a["rotation"], a["x"], a["y"]) == (shape, r, x, y)
        ]
        assert len(listed) == 1, f"move {number} is in the legal list"
        events = GAME.play(state, seat, place_action(shape, r, x, y))
        data = events[0]["data"]
        assert (data["colour"], data["rotation"], data["z"]) == (player, r, z), number
        assert sorted(tuple(c) for c in data["cubes"]) == cubes, number
        assert listed[0]["z"] == z and listed[0]["cubes"] == data["cubes"]
        log += events
        state = fold(GAME, state, events)
    return state


def test_golden_game_plays_all_21_moves_at_the_expected_heights():
    """A.6: every move legal (R-2.2..R-2.8), each at the expected z with the expected cubes."""
    state = golden_game()
    assert GAME.is_over(state) and GAME.to_act(state) == []


def test_golden_game_final_board_and_colour_checks():
    """A.6 expected final board; (1,0) and (3,0) upright I4s and (2,2) upright I3 show the opponent's
    colour; (0,3) brown's I2 on brown's upright I3 shows BROWN."""
    view = GAME.view(golden_game(), None)
    for row, y in zip(GOLDEN_BOARD, (3, 2, 1, 0)):
        assert [(view["tops"][y][x], view["heights"][y][x]) for x in range(4)] == row, y
    assert view["tops"][0][1] == "WHITE" and view["tops"][0][3] == "BROWN"
    assert view["tops"][2][2] == "BROWN" and view["tops"][3][0] == "BROWN"


def test_golden_game_result_brown_8_5_white_7():
    """A.6, E-2, E-4, E-5, AE-6: brown 8 + 0.5 = 8.5, white 7: brown wins on score."""
    state = golden_game()
    assert state["result"]["winner"] == "BROWN" and state["result"]["reason"] == "SCORE"
    assert state["result"]["score"] == {"BROWN": 8.5, "WHITE": 7}
    # E-8: the game_over data gives each cell's top colour and height
    assert [
        list(zip(state["result"]["tops"][y], state["result"]["heights"][y])) for y in (3, 2, 1, 0)
    ] == GOLDEN_BOARD
    result = GAME.scores(state)
    assert result["scores"] == [8.5, 7] and result["ranks"] == [1, 2]
    brown, white = result["colours"]
    assert (brown["visible_cells"], brown["half_cells"], brown["half_points"]) == (8, 1, 0.5)
    assert (white["visible_cells"], white["half_points"]) == (7, 0)


def test_golden_game_with_split_half_point():
    """A.6, A-05: with half_piece_scoring SPLIT it is 8.5 against 7.5, brown still wins."""
    state = golden_game(half_piece_scoring="SPLIT")
    assert state["result"]["score"] == {"BROWN": 8.5, "WHITE": 7.5}
    assert state["result"]["winner"] == "BROWN"


def test_golden_game_replays_from_its_log_and_survives_json():
    """The log alone rebuilds the state (folding from setup), and states are JSON values."""
    state = new_game()
    log = []
    for player, shape, r, x, y, _, _ in GOLDEN:
        events = GAME.play(
            state, BROWN_SEAT if player == "BROWN" else WHITE_SEAT, place_action(shape, r, x, y)
        )
        log += json.loads(json.dumps(events))
        state = fold(GAME, state, events)
    assert fold(GAME, new_game(), log) == state
    assert json.loads(json.dumps(state)) == state


# -- 8. What players see ------------------------------------------------------------------------------------


def test_view_shows_heights_tops_hands_and_turn():
    """1.6, 1.7, 8.1: the height map, the top colour per cell, both hands, the last shape played."""
    state = moves(new_game(), ("I3", 12, 0, 0))
    view = GAME.view(state, WHITE_SEAT)
    assert view["heights"][0][:2] == [3, 0] and view["tops"][0][:2] == ["WHITE", None]
    assert "I3" not in view["colours"][0]["remaining"] and view["colours"][1]["remaining"]["I3"] == 1
    assert view["last_placement"]["shape"] == "I3" and view["colours"][0]["last_class"] == "I3"
    assert view["to_move"] == {"colour": "WHITE", "seat": 1} and view["status"] == "IN_PROGRESS"
    assert view == GAME.view(state, None) == GAME.view(state, BROWN_SEAT)  # 8.3: nothing hidden


def test_events_are_shown_unchanged():
    """8.3: no hidden information; event_view is the identity."""
    events = GAME.play(new_game(), BROWN_SEAT, place_action("I1", 0, 0, 0))
    assert all(GAME.event_view(e, seat) == e for e in events for seat in (0, 1, None))


def test_legal_actions_give_cubes_height_and_colours_and_can_be_posted_back():
    """8.1, AE-4: each listed placement has its cubes, z and top colours, and is accepted unchanged."""
    state = moves(new_game(), ("T4", 0, 1, 0), ("I1", 0, 0, 2))
    for action in GAME.legal_actions(state, BROWN_SEAT):
        assert set(action) == {"type", "shape", "rotation", "x", "y", "z", "cubes", "top_colours"}
        events = GAME.play(state, BROWN_SEAT, action)
        assert events[0]["data"]["cubes"] == action["cubes"] and events[0]["data"]["z"] == action["z"]
        assert GAME.action_schema().load(action) == action


def test_svg_draws_the_top_view_and_an_isometric_view():
    """The picture: valid standalone SVG with one top-view cell per board cell and one isometric
    top face per placed cube."""
    state = golden_game()
    text = GAME.svg(GAME.view(state, None))
    root = ET.fromstring(text)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    top_view = root.find(f"{ns}g[@id='top-view']")
    assert len(top_view.findall(f"{ns}rect")) == 16
    iso = root.find(f"{ns}g[@id='isometric-view']")
    assert len(iso.findall(f"{ns}polygon")) == 1 + 3 * 55  # the floor, then three faces per cube
    assert "brown wins" in text
    ET.fromstring(GAME.svg(GAME.view(new_game(board_size=[1, 1]), None)))  # an empty board too
