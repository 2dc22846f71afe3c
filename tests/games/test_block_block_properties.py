"""BLOCK.BLOCK properties over random legal games (hypothesis draws every move from the legal list,
so failures shrink to short games).

Checked along every game, from the events alone and without the engine's own bookkeeping: no two
cubes share a position, every cube stands on the board or on a cube (R-2.5), no piece sits exactly
on a piece of the same class and orientation (R-2.7), the half piece comes last (R-2.3). At the end,
an independent top-view count (written here from the cubes and a plain reading of E-2/E-3, not from
the engine's face colours) confirms the score and the winner; a game lost by R-1.1 is confirmed by
a brute-force search finding no placement; and folding the log from setup gives the live state.
On sampled positions the legal list equals a brute-force check of every placement. The rotation
table has 24 distinct proper rotations and the orientation tables deduplicate symmetric pieces.
"""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.games.block_block import GAME, geometry
from service.games.block_block.engine import DEFAULT_PACK
from service.games.protocol import IllegalAction, fold
from tests.conftest import examples

SIZES = {s["shapeId"]: len(s["cubes"]) for s in DEFAULT_PACK["shapes"]}


def new_game(**options):
    options.setdefault("first_player", 0)
    return GAME.setup(GAME.resolve_options(options, 2), 2, seed="prop")


def normalised(cubes):
    cubes = [tuple(c) for c in cubes]
    m = [min(c[i] for c in cubes) for i in range(3)]
    return frozenset((x - m[0], y - m[1], z - m[2]) for x, y, z in cubes)


def independent_top_colour(piece, cube) -> str:
    """E-2, E-3 read plainly: the half piece shows HALF; a 3- or 4-cube bar standing upright shows
    its end, in the opponent's colour, on its top cube; every other top shows the owner's colour."""
    owner = piece["colour"]
    if piece["shape"] == "H":
        return "HALF"
    cubes = [tuple(c) for c in piece["cubes"]]
    upright = len(cubes) in (3, 4) and len({c[:2] for c in cubes}) == 1
    if upright and tuple(cube) == max(cubes, key=lambda c: c[2]):
        return "WHITE" if owner == "BROWN" else "BROWN"
    return owner


def independent_count(pieces, width, depth, split=False):
    """The score seen from above, in half points, from the placed pieces alone."""
    highest = {}
    for piece in pieces:
        for cube in piece["cubes"]:
            x, y, z = cube
            if (x, y) not in highest or z > highest[(x, y)][0]:
                highest[(x, y)] = (z, independent_top_colour(piece, cube))
    tops = [colour for _, colour in highest.values()]
    brown = 2 * tops.count("BROWN") + tops.count("HALF")
    white = 2 * tops.count("WHITE") + (tops.count("HALF") if split else 0)
    heights = {
        (x, y): highest[(x, y)][0] + 1 if (x, y) in highest else 0 for x in range(width) for y in range(depth)
    }
    return brown, white, heights


def check_new_piece(occupied, placed, piece, rules):
    """R-2.4, R-2.5, R-2.7 from the cubes alone, for ``piece`` placed after ``placed``."""
    cubes = {tuple(c) for c in piece["cubes"]}
    assert not cubes & occupied, "no overlap (R-2.4)"
    for x, y, z in cubes:
        assert z == 0 or (x, y, z - 1) in occupied or (x, y, z - 1) in cubes, "no gap underneath (R-2.5)"
    bottoms = {(x, y, z) for x, y, z in cubes if (x, y, z - 1) not in cubes}
    for other in placed:
        if other["shape_class"] != piece["shape_class"]:
            continue
        if rules["same_shape_stack_owner_scope"] == "OPPONENT_ONLY" and other["colour"] == piece["colour"]:
            continue
        theirs = {tuple(c) for c in other["cubes"]}
        if normalised(theirs) != normalised(cubes):
            continue
        if rules["same_shape_stack_rule"] == "EXACT_COVER":
            same_footprint = {c[:2] for c in theirs} == {c[:2] for c in cubes}
            rests = all((x, y, z - 1) in theirs for x, y, z in bottoms)
            assert not (same_footprint and rests), "no identical stacking (R-2.7)"
        else:
            assert not any((x, y, z - 1) in theirs for x, y, z in bottoms), "no contact (R-2.7, ANY_CONTACT)"


def brute_force(state, colour):
    """Every (shape, cubes) the single-placement validator accepts, over all rotations and cells."""
    seat = state["seats"][colour]
    found = set()
    for shape in sorted(state["remaining"][colour]):
        for rotation in range(24):
            for y in range(-1, state["depth"]):
                for x in range(-1, state["width"]):
                    action = {"type": "place", "shape": shape, "rotation": rotation, "x": x, "y": y}
                    try:
                        events = GAME.play(state, seat, action)
                    except IllegalAction:
                        continue
                    found.add((shape, tuple(sorted(tuple(c) for c in events[0]["data"]["cubes"]))))
    return found


def listed(state, colour):
    return {
        (a["shape"], tuple(sorted(tuple(c) for c in a["cubes"])))
        for a in GAME.legal_actions(state, state["seats"][colour])
    }


def play_out(data, state):
    """A random legal game to its end: the log, the placed pieces in order, the final state."""
    log = []
    placed = []
    occupied: set = set()
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        actions = GAME.legal_actions(state, seat)
        assert actions, "a player with no placement has already lost (R-1.1)"
        action = data.draw(st.sampled_from(actions))
        events = GAME.play(state, seat, action)
        assert events[0]["type"] == "piece_placed"
        piece = events[0]["data"]
        assert piece["cubes"] == action["cubes"] and piece["z"] == action["z"]
        check_new_piece(occupied, placed, piece, state["rules"])
        if piece["shape"] == "H":
            assert not state["remaining"][0].keys() - {"H"}, "the half piece goes last (R-2.3)"
        occupied |= {tuple(c) for c in piece["cubes"]}
        placed.append(piece)
        log += events
        state = fold(GAME, state, events)
    return log, placed, state


def check_end(start, log, placed, state):
    over = log[-1]
    assert over["type"] == "game_over" and state["result"] == over["data"]
    assert GAME.to_act(state) == [] and GAME.is_over(state)
    split = state["rules"]["half_piece_scoring"] == "SPLIT"
    brown, white, heights = independent_count(placed, state["width"], state["depth"], split)
    view = GAME.view(state, None)
    assert all(view["heights"][y][x] == h for (x, y), h in heights.items())
    result = GAME.scores(state)
    seats = state["seats"]
    assert result["scores"][seats[0]] * 2 == brown and result["scores"][seats[1]] * 2 == white
    if over["data"]["reason"] == "SCORE":
        assert not any(state["remaining"][0].values()) and not any(state["remaining"][1].values())
        if brown != white:
            assert over["data"]["winner"] == ("BROWN" if brown > white else "WHITE")
        else:
            assert (
                over["data"]["winner"]
                == {"DRAW": None, "FIRST_PLAYER": "BROWN", "SECOND_PLAYER": "WHITE"}[
                    state["rules"]["tie_break"]
                ]
            )
    else:
        assert over["data"]["reason"] == "NO_LEGAL_PLACEMENT" and log[-2]["type"] == "no_legal_placement"
        loser = 0 if log[-2]["data"]["colour"] == "BROWN" else 1
        assert over["data"]["winner"] == ("WHITE", "BROWN")[loser]
        before = fold(GAME, start, log[:-2])
        assert brute_force(before, loser) == set(), "the loser really had no placement (R-1.1)"
    winner = over["data"]["winner"]
    if winner is None:
        assert result["ranks"] == [1, 1]
    else:
        assert result["ranks"][seats[("BROWN", "WHITE").index(winner)]] == 1
    assert fold(GAME, start, log) == state, "replaying the log gives the live state"


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_default_games_end_with_a_result_the_top_view_confirms(data):
    start = new_game()
    log, placed, state = play_out(data, start)
    check_end(start, log, placed, state)
    if state["result"]["reason"] == "SCORE":  # E-5: H is last and always visible, so no tie
        assert state["placed"][-1]["shape"] == "H" and state["result"]["score"]["BROWN"] % 1 == 0.5
        assert state["result"]["winner"] is not None


OPTION_SETS = st.fixed_dictionaries(
    {
        "board_size": st.sampled_from(["pack", [2, 2], [3, 2], [3, 3], [5, 4]]),
        "max_height": st.sampled_from(["pack", None, 1, 2, 3]),
        "same_shape_stack_rule": st.sampled_from(["EXACT_COVER", "ANY_CONTACT"]),
        "same_shape_stack_owner_scope": st.sampled_from(["ANY", "OPPONENT_ONLY"]),
        "same_shape_ban": st.booleans(),
        "require_adjacency": st.booleans(),
        "use_half_piece": st.booleans(),
        "half_piece_scoring": st.sampled_from(["BROWN_HALF", "SPLIT"]),
        "half_piece_shape_class": st.sampled_from(["GEOMETRIC", "OWN"]),
        "tie_break": st.sampled_from(["DRAW", "FIRST_PLAYER", "SECOND_PLAYER"]),
        "first_player": st.sampled_from([0, 1]),
    }
)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), OPTION_SETS)
def test_random_games_under_any_options_end_properly(data, options):
    """Small boards and height limits end games by R-1.1; the loss is confirmed by brute force."""
    start = GAME.setup(GAME.resolve_options(options, 2), 2, seed="prop")
    log, placed, state = play_out(data, start)
    check_end(start, log, placed, state)
    assert state["result"]["reason"] in ("SCORE", "NO_LEGAL_PLACEMENT")


@settings(max_examples=examples(8), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.integers(min_value=0, max_value=20), st.sampled_from(["EXACT_COVER", "ANY_CONTACT"]))
def test_legal_list_equals_brute_force(data, plies, stack_rule):
    """AE-4: the generator's list is exactly what the validator accepts, each placement once."""
    state = new_game(same_shape_stack_rule=stack_rule)
    for _ in range(plies):
        if GAME.is_over(state):
            break
        seat = GAME.to_act(state)[0]
        state = fold(
            GAME, state, GAME.play(state, seat, data.draw(st.sampled_from(GAME.legal_actions(state, seat))))
        )
    if GAME.is_over(state):
        assert GAME.legal_actions(state, 0) == [] == GAME.legal_actions(state, 1)
        return
    colour = state["to_move"]
    actions = GAME.legal_actions(state, state["seats"][colour])
    assert len(actions) == len(listed(state, colour)), "no placement listed twice"
    assert listed(state, colour) == brute_force(state, colour)


# -- the orientation tables --------------------------------------------------------------------------------


def matrix(rotation):
    return tuple(tuple(rotation.apply(e)) for e in ((1, 0, 0), (0, 1, 0), (0, 0, 1)))


def test_rotation_table_has_the_24_proper_rotations():
    """1.4.1, 1.4.2: 24 distinct rotations of determinant +1, closed under composition: all of them."""
    proper = geometry.ROTATIONS[:24]
    matrices = {matrix(r) for r in proper}
    assert len(matrices) == 24 and all(r.determinant == 1 for r in proper)
    everything = {
        tuple(tuple(sign[i] * (1 if perm[i] == j else 0) for j in range(3)) for i in range(3))
        for perm in itertools.permutations(range(3))
        for sign in itertools.product((1, -1), repeat=3)
    }
    assert len(everything) == 48
    by_matrix = {matrix(r): r for r in proper}
    for a in proper:
        for b in proper:  # a after b is in the table
            composed = tuple(tuple(a.apply(b.apply(e))) for e in ((1, 0, 0), (0, 1, 0), (0, 0, 1)))
            assert composed in by_matrix
    mirrors = geometry.ROTATIONS[24:]
    assert {matrix(r) for r in mirrors} | matrices == everything
    assert all(r.determinant == -1 for r in mirrors)


@st.composite
def polycubes(draw):
    """A random connected polycube of 1 to 6 cubes, normalised."""
    cubes = {(0, 0, 0)}
    for _ in range(draw(st.integers(min_value=0, max_value=5))):
        x, y, z = draw(st.sampled_from(sorted(cubes)))
        dx, dy, dz = draw(st.sampled_from(list(geometry.FACE_VECTOR.values())))
        cubes.add((x + dx, y + dy, z + dz))
    return geometry.normalise(cubes)


@settings(max_examples=examples(60), deadline=None)
@given(polycubes())
def test_orientation_tables_deduplicate_symmetric_shapes(cubes):
    """1.4.3, 1.4.4: the distinct orientations are the distinct normalised images under the 24
    rotations (a number dividing 24); each rotation id maps to its image; the canonical id is the
    smallest id giving it."""
    shape = geometry.ShapeSpec("S", cubes, (("OWNER",) * 6,) * len(cubes))
    distinct, by_rotation = geometry.orientations(shape)
    images = {r.id: geometry.normalise(r.apply(c) for c in cubes) for r in geometry.ROTATIONS[:24]}
    assert len(distinct) == len(set(images.values())) == geometry.geometric_orientation_count(cubes)
    assert 24 % len(distinct) == 0
    assert sorted(by_rotation) == list(range(24))
    for rid, o in by_rotation.items():
        assert o.cubes == images[rid]
        assert o.rotation == min(r for r, image in images.items() if image == images[rid])


def test_symmetric_pieces_have_few_orientations():
    """1.3, 1.4.4: a single cube has 1 orientation, a bar 3, a 2 x 2 square 3, a 2 x 2 x 2 cube 1."""
    counts = {
        "single": ((0, 0, 0),),
        "bar": ((0, 0, 0), (1, 0, 0), (2, 0, 0)),
        "square": ((0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)),
        "cube": tuple(itertools.product((0, 1), (0, 1), (0, 1))),
    }
    assert {k: geometry.geometric_orientation_count(v) for k, v in counts.items()} == {
        "single": 1,
        "bar": 3,
        "square": 3,
        "cube": 1,
    }
