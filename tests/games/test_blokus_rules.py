"""Blokus, rule by rule: ``service/games/blokus/rules.md`` sections 1, 2, 3.1 and 4, and Appendix A.

Each test is named after the rule it checks; the spec's rule number is in the docstring.
"""

from __future__ import annotations

import pytest

from service.games.blokus import GAME
from service.games.blokus.geometry import ORIENTATIONS, PIECES, board
from service.games.protocol import IllegalAction, InvalidOptions, fold
from tests.games import blokus_moves
from tests.games.blokus_moves import place, play

BLUE, YELLOW, RED, GREEN = range(4)


def new_game(**options):
    return blokus_moves.new_game(4, **options)


def rejected(state, seat, cells, piece=None) -> str:
    with pytest.raises(IllegalAction) as refusal:
        place(state, seat, cells, piece)
    return refusal.value.reason


def with_cells(state, colour, cells, pieces_used=()):
    """A constructed position: ``cells`` given to ``colour`` directly, as if placed earlier."""
    b = board(20, 20)
    new = dict(state)
    new["cells"] = list(state["cells"])
    new["cells"][colour] |= b.mask(cells)
    new["pieces_left"] = [list(p) for p in state["pieces_left"]]
    new["pieces_left"][colour] = [p for p in new["pieces_left"][colour] if p not in pieces_used]
    return new


def opening(state=None):
    """Each colour places its monomino in its own corner."""
    state = state or new_game()
    for seat, corner in enumerate([(0, 0), (19, 0), (19, 19), (0, 19)]):
        state = place(state, seat, [corner])
    return state


# -- 1. Components and coordinates ----------------------------------------------------------


def test_board_is_20_by_20_with_x_across_and_y_down():
    """1.1: coordinates are (x, y), 0-based, x = column, y = row from the top."""
    view = GAME.view(place(new_game(), BLUE, [(0, 0), (1, 0)]), None)
    assert (view["width"], view["height"]) == (20, 20)
    assert view["board"][0][:3] == ["blue", "blue", None]  # row 0 holds x = 0 and x = 1
    assert view["board"][1][0] is None


def test_colours_play_in_order_blue_yellow_red_green():
    """1.2: play order blue, yellow, red, green, then blue again."""
    state = new_game()
    order = []
    for seat, corner in enumerate([(0, 0), (19, 0), (19, 19), (0, 19)]):
        order.append(GAME.view(state, None)["to_move"]["colour"])
        state = place(state, seat, [corner])
    order.append(GAME.view(state, None)["to_move"]["colour"])
    assert order == ["blue", "yellow", "red", "green", "blue"]


def test_each_colour_has_the_same_21_pieces_of_89_squares():
    """1.3"""
    assert [p.name for p in PIECES] == [
        "1",
        "2",
        "I3",
        "V3",
        "I4",
        "L4",
        "T4",
        "Z4",
        "O4",
        "I5",
        "L5",
        "Y5",
        "N5",
        "P5",
        "U5",
        "V5",
        "W5",
        "Z5",
        "T5",
        "F5",
        "X5",
    ]
    assert sum(p.size for p in PIECES) == 89
    assert [sorted(p.size for p in PIECES).count(n) for n in range(1, 6)] == [1, 1, 2, 5, 12]
    assert all(len(left) == 21 for left in new_game()["pieces_left"])


def test_91_orientations_and_30433_placements_on_the_board():
    """1.4: 91 distinct orientations; 30,433 on-board placements of one colour's set."""
    assert len(ORIENTATIONS) == 91
    b = board(20, 20)
    # with every square free and every square an attach square, the generator lists every placement
    assert len(b.placements(b.squares, b.squares, range(len(PIECES)))) == 30433


def test_start_corners_are_fixed_per_colour():
    """1.5: blue (0,0), yellow (19,0), red (19,19), green (0,19)."""
    assert [c["start"] for c in GAME.view(new_game(), None)["colours"]] == [
        [0, 0],
        [19, 0],
        [19, 19],
        [0, 19],
    ]
    opening()  # each colour may open on its own corner


# -- 2. Placement rules ------------------------------------------------------------------------


def test_piece_must_lie_wholly_on_the_board():
    """2.1: off the board."""
    assert rejected(new_game(), BLUE, [(-1, 0), (0, 0)]) == "off_board"
    assert rejected(new_game(), BLUE, [(0, 19), (0, 20)]) == "off_board"


def test_piece_must_cover_empty_squares_only():
    """2.1: on empty squares only."""
    state = opening()
    state = place(state, BLUE, [(1, 1), (2, 1)])  # blue touches its monomino at a corner
    state = place(state, YELLOW, [(18, 1), (18, 2)])
    state = place(state, RED, [(18, 18), (17, 18)])
    state = place(state, GREEN, [(1, 18), (1, 17)])
    assert rejected(state, BLUE, [(2, 1), (3, 1), (3, 2)]) == "overlap"  # its own square (2, 1)
    assert rejected(state, BLUE, [(18, 1), (17, 1), (16, 1)]) == "overlap"  # a yellow square


def test_first_piece_must_cover_own_start_corner():
    """2.2 and A1: a first piece elsewhere is refused with a reason naming the rule."""
    with pytest.raises(IllegalAction) as refusal:
        place(new_game(), BLUE, [(5, 5)])
    assert refusal.value.reason == "must_cover_start"
    assert "2.2" in refusal.value.message
    assert rejected(new_game(), BLUE, [(19, 0)]) == "must_cover_start"  # yellow's corner, not blue's
    place(new_game(), BLUE, [(0, 0), (1, 0), (2, 0)])  # covering (0,0) with any square is enough


def test_start_corners_any_free_option_accepts_any_empty_corner():
    """2.2 [DEF start_corners=any_free]"""
    state = new_game(start_corners="any_free")
    state = place(state, BLUE, [(19, 19)])
    assert rejected(state, YELLOW, [(19, 19), (18, 19)]) == "overlap"
    assert rejected(state, YELLOW, [(5, 5)]) == "must_cover_start"
    place(state, YELLOW, [(0, 0)])


def test_later_piece_must_touch_own_colour_corner_to_corner():
    """2.3"""
    state = opening()
    with pytest.raises(IllegalAction) as refusal:
        place(state, BLUE, [(3, 3), (4, 3)])
    assert refusal.value.reason == "corner_rule"
    place(state, BLUE, [(1, 1), (2, 1)])


def test_same_colour_pieces_never_share_an_edge():
    """2.4 and A2: edge contact refused, corner contact accepted."""
    state = opening()
    assert rejected(state, BLUE, [(1, 0), (1, 1)]) == "edge_contact"  # (1,0) touches (0,0) along an edge
    state = place(state, BLUE, [(1, 1), (1, 2)])  # touches (0,0) only at a corner
    assert GAME.view(state, None)["board"][1][1] == "blue"


def test_different_colours_may_share_edges():
    """2.5 and A3: blue touching yellow along an edge is accepted."""
    state = opening()
    state = place(state, BLUE, [(1, 1), (2, 1), (3, 1), (4, 1), (5, 1)])
    state = place(state, YELLOW, [(18, 1), (17, 1), (16, 1), (15, 1), (14, 1)])
    state = place(state, RED, [(18, 18), (17, 18)])
    state = place(state, GREEN, [(1, 18), (2, 18)])
    state = place(state, BLUE, [(6, 2), (7, 2), (8, 2), (9, 2)])
    state = place(
        state, YELLOW, [(13, 2), (12, 2), (11, 2), (10, 2)]
    )  # (10,2) shares an edge with blue (9,2)
    assert GAME.view(state, None)["board"][2][9:11] == ["blue", "yellow"]


def test_placed_pieces_never_move():
    """2.6: a later placement leaves every earlier square as it was."""
    state = opening()
    before = GAME.view(state, None)["board"]
    after = GAME.view(place(state, BLUE, [(1, 1), (2, 1)]), None)["board"]
    assert all(after[y][x] == before[y][x] for y in range(20) for x in range(20) if before[y][x])


def test_a_piece_is_played_once():
    """1.3/2.6: each colour's pieces are placed at most once."""
    state = opening()
    assert rejected(state, BLUE, [(1, 1)]) == "piece_used"


def test_piece_is_identified_from_its_squares_or_checked_against_its_name():
    """6.1: the piece may be omitted; a named piece must match the squares."""
    state = place(new_game(), BLUE, [(0, 0), (1, 0), (1, 1), (2, 1), (2, 2)])
    assert "W5" not in state["pieces_left"][BLUE]
    assert rejected(new_game(), BLUE, [(0, 0), (1, 0)], piece="I3") == "piece_mismatch"
    assert rejected(new_game(), BLUE, [(0, 0), (2, 0)]) == "not_a_piece"
    assert rejected(new_game(), BLUE, [(0, 0), (0, 0)]) == "not_a_piece"


def test_only_the_colour_to_move_may_place():
    """Turn order: another seat is refused with not_your_turn."""
    assert rejected(new_game(), YELLOW, [(19, 0)]) == "not_your_turn"


def test_a_colour_that_cannot_place_is_out_and_skipped_automatically():
    """2.7 and A6: the skip is an event of its own, so the log shows why the turn passed."""
    state = with_cells(new_game(), RED, [(19, 0)])  # red sits on yellow's start corner
    events = GAME.play(state, BLUE, {"type": "place", "cells": [[0, 0]]})
    assert [e["type"] for e in events] == ["placed", "colour_out"]
    assert events[1]["data"] == {"colour": "yellow", "reason": "no_legal_move"}
    state = fold(GAME, state, events)
    assert state["out"] == [False, True, False, False]
    assert GAME.to_act(state) == [RED]
    assert GAME.legal_actions(state, YELLOW) == []


def test_there_is_no_voluntary_pass_by_default():
    """2.7 [DEF allow_voluntary_pass=false]"""
    with pytest.raises(IllegalAction) as refusal:
        GAME.play(new_game(), BLUE, {"type": "pass"})
    assert refusal.value.reason == "pass_not_allowed"
    assert {"type": "pass"} not in GAME.legal_actions(new_game(), BLUE)


def test_voluntary_pass_option_takes_the_colour_out():
    """2.7 [DEF allow_voluntary_pass=true]: a pass ends the colour's game (it stops placing)."""
    state = new_game(allow_voluntary_pass=True)
    assert {"type": "pass"} in GAME.legal_actions(state, BLUE)
    events = GAME.play(state, BLUE, {"type": "pass"})
    assert GAME.describe(events[0]) == "blue is out: it passed (spec 2.7)"  # not "no legal move left"
    state = play(state, BLUE, {"type": "pass"})
    assert state["out"][BLUE] and GAME.to_act(state) == [YELLOW]


def test_game_ends_when_no_colour_can_place():
    """2.8 and A6: the last colour places its last piece; it is out, and the game is over."""
    state = with_cells(new_game(), GREEN, [(0, 19)], pieces_used=[p.name for p in PIECES if p.name != "1"])
    state = dict(state, out=[True, True, True, False], to_move=GREEN)
    events = GAME.play(state, GREEN, {"type": "place", "cells": [[1, 18]]})
    assert [e["type"] for e in events] == ["placed", "colour_out", "game_over"]
    assert events[1]["data"]["reason"] == "all_pieces_placed"
    state = fold(GAME, state, events)
    assert GAME.is_over(state) and GAME.to_act(state) == []
    with pytest.raises(IllegalAction) as refusal:
        GAME.play(state, GREEN, {"type": "pass"})
    assert refusal.value.reason == "game_over"


# -- 3.1 Four players -----------------------------------------------------------------------------


def test_four_players_one_colour_each():
    """3.1: seat n plays colour n."""
    assert [(c["colour"], c["seat"]) for c in GAME.view(new_game(), None)["colours"]] == [
        ("blue", 0),
        ("yellow", 1),
        ("red", 2),
        ("green", 3),
    ]
    with pytest.raises(InvalidOptions) as refusal:
        GAME.resolve_options({"variant": "four_player"}, 3)
    assert refusal.value.field == "players"


# -- 4. Scoring -------------------------------------------------------------------------------------


def end_position(scoring):
    """The rulebook's example (4.3): blue placed everything, the monomino last; yellow kept two
    4-square pieces; red one 3, four 4 and one 5; green one 3, three 4 and one 5."""
    state = new_game(scoring=scoring)
    left = [[], ["I4", "L4"], ["I3", "I4", "L4", "T4", "Z4", "I5"], ["V3", "I4", "L4", "T4", "L5"]]
    return dict(state, pieces_left=left, last_piece=["1", "X5", "F5", "W5"], out=[True] * 4, to_move=None)


def test_rulebook_advanced_scoring_example():
    """4.2, 4.3 and A4: +20, -8, -24, -20."""
    result = GAME.scores(end_position("advanced"))
    assert result["scores"] == [20, -8, -24, -20]
    assert result["ranks"] == [1, 2, 4, 3]
    assert [c["bonus"] for c in result["colours"]] == [20, 0, 0, 0]


def test_all_pieces_placed_with_a_larger_last_piece_scores_15():
    """4.2: +15 when everything is placed but the last piece was not the monomino."""
    state = dict(end_position("advanced"), last_piece=["X5", "X5", "F5", "W5"])
    assert GAME.scores(state)["scores"][0] == 15


def test_simple_scoring_counts_squares_left_and_fewest_wins():
    """4.1"""
    result = GAME.scores(end_position("simple"))
    assert result["scores"] == [0, 8, 24, 20]
    assert result["ranks"] == [1, 2, 4, 3]


def test_ties_share_places():
    """4.4"""
    state = dict(end_position("simple"), pieces_left=[["I4"], ["L4"], ["I5"], ["X5"]])
    assert GAME.scores(state)["ranks"] == [1, 1, 3, 3]
