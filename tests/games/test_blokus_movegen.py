"""Blokus move generation: the compiled generator (``movegen``, behind ``Board.placements``) lists
exactly the moves of the reference one it replaced (``Board.placements_reference``), in the same
order, and ``has_placement`` agrees with it -- over random games of every variant and option, and
over arbitrary boards, attach squares and piece lists (in any order, with repeats)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.games.blokus import GAME, movegen
from service.games.blokus.engine import VARIANTS
from service.games.blokus.geometry import ORIENTATIONS, PIECES, Orientation, board
from tests.conftest import examples

OPTIONS = [{}, {"start_corners": "any_free"}, {"allow_voluntary_pass": True}]
CASES = [(name, options) for name in VARIANTS for options in OPTIONS]
CASES.append(("solo_rectangle", {"puzzle_corner_contact": "optional"}))


def reference(state, colour):
    b, free, attach, pieces = GAME._move_tables(state, colour, GAME._occupied(state))
    return b.placements_reference(free, attach, pieces, colour)


def random_positions(variant: str, options: dict, seed: int, games: int):
    """Every position of ``games`` seeded random games, the moves chosen from the reference list."""
    players = VARIANTS[variant].players
    rng = random.Random(seed)
    for _ in range(games):
        state = GAME.setup(GAME.resolve_options({"variant": variant, **options}, players), players, "movegen")
        while not GAME.is_over(state):
            yield state
            seat = GAME.to_act(state)[0]
            actions = [a for a in GAME.legal_actions(state, seat) if a["type"] == "place"]
            state = GAME.play(state, seat, rng.choice(actions)).states[-1]


@pytest.mark.parametrize("variant, options", CASES)
def test_random_games_list_the_reference_moves_in_its_order(variant, options):
    checked = 0
    for state in random_positions(variant, options, seed=len(variant) + len(options), games=3):
        assert GAME.all_placements(state) == GAME.all_placements_reference(state)
        for colour in range(len(VARIANTS[variant].colours)):  # the colours not to move too
            moves = GAME.placements(state, colour)
            assert moves == reference(state, colour)
            assert GAME.has_placement(state, colour) == bool(moves)
        checked += 1
    assert checked > 10


SIZES = sorted({(v.width, v.height) for v in VARIANTS.values()})


@st.composite
def tables(draw):
    """A board size, free and attach squares (attach within free, or not: the generator must not
    care), a colour and a list of pieces in any order, repeats allowed."""
    width, height = draw(st.sampled_from(SIZES))
    b = board(width, height)
    squares = [b.bit(x, y) for y in range(height) for x in range(width)]
    density = draw(st.sampled_from([0.2, 0.5, 0.8, 1.0]))
    rng = random.Random(draw(st.integers(0, 2**32)))
    free = sum(bit for bit in squares if rng.random() < density)
    attach = sum(bit for bit in squares if rng.random() < draw(st.sampled_from([0.02, 0.1, 1.0])))
    if draw(st.booleans()):
        attach &= free
    pieces = draw(
        st.one_of(
            st.sets(st.integers(0, len(PIECES) - 1)).map(sorted),
            st.lists(st.integers(0, len(PIECES) - 1), max_size=25),
        )
    )
    return b, free, attach, pieces, draw(st.integers(0, 3))


@pytest.mark.no_cover  # what it runs is covered by faster tests; traced, it took 3 times as long
@settings(max_examples=examples(300), deadline=None)
@given(tables())
def test_any_board_lists_the_reference_moves_in_its_order(case):
    b, free, attach, pieces, colour = case
    moves = b.placements(free, attach, pieces, colour)
    assert moves == b.placements_reference(free, attach, pieces, colour)
    assert b.has_placement(free, attach, pieces) == bool(moves)


def test_every_orientation_is_derived_from_another_with_one_square_more():
    """The standard set needs no shape beyond its own orientations (movegen's docstring)."""
    nodes, node_of = movegen.derivations([o.cells for o in ORIENTATIONS])
    assert len(nodes) == len(ORIENTATIONS) and sorted(node_of) == list(range(len(nodes)))


def test_a_piece_set_with_missing_sub_shapes_still_derives_exactly():
    """A hexomino and a pentomino with no smaller pieces: the generator makes its own sub-shapes."""
    shapes = [((0, 0), (1, 0), (2, 0), (0, 1), (2, 1), (1, 2)), ((0, 1), (1, 0), (1, 1), (1, 2), (2, 1))]
    orientations = [Orientation(i, i, cells) for i, cells in enumerate(shapes)]
    b = board(9, 7)
    generate = movegen.compile_source(
        movegen.source(orientations, 2, b.stride, moves=True), b.squares.bit_length()
    )
    rng = random.Random(7)
    for _ in range(50):
        free = sum(b.bit(x, y) for y in range(7) for x in range(9) if rng.random() < 0.8)
        attach = sum(b.bit(x, y) for y in range(7) for x in range(9) if rng.random() < 0.2)
        expected = []
        for o in orientations:
            for anchor in range(b.squares.bit_length()):
                squares = _placed(b, o, anchor)
                if squares and not squares & ~free and squares & attach:
                    expected.append((1, o.index, anchor))
        assert generate(free, attach, 0b11, 1) == expected


def _placed(b, o, anchor) -> int:
    """The squares of orientation ``o`` at ``anchor``, or 0 if any falls off the board."""
    ax, ay = anchor % b.stride, anchor // b.stride
    if any(not b.on_board(ax + x, ay + y) for x, y in o.cells):
        return 0
    return b.mask((ax + x, ay + y) for x, y in o.cells)
