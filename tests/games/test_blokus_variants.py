"""Blokus variants: two and three players (spec 3.2, 3.3), the solo puzzles (3.4, 3.5), Duo (5.1),
and the options that choose them."""

from __future__ import annotations

import pytest

from service.games.blokus import GAME
from service.games.blokus.engine import VARIANTS
from service.games.blokus.geometry import PIECE_BY_NAME
from service.games.protocol import IllegalAction, InvalidOptions, fold
from tests.games import blokus_moves
from tests.games.blokus_moves import new_game

BLUE, YELLOW, RED, GREEN = range(4)


def place(state, seat, cells, colour=None):
    return blokus_moves.place(state, seat, cells, colour=colour)


def to_move(state):
    view = GAME.view(state, None)
    return view["to_move"] and (view["to_move"]["colour"], view["to_move"]["seat"])


# -- options ---------------------------------------------------------------------------------------


def test_variant_defaults_to_the_player_count():
    assert [GAME.resolve_options({}, n)["variant"] for n in (1, 2, 3, 4)] == [
        "solo_all_pieces",
        "two_player",
        "three_player",
        "four_player",
    ]


def test_wrong_player_count_for_a_variant_names_players():
    with pytest.raises(InvalidOptions) as refusal:
        GAME.resolve_options({"variant": "duo"}, 4)
    assert refusal.value.field == "players"


def test_puzzle_options_are_checked():
    with pytest.raises(InvalidOptions) as refusal:
        GAME.resolve_options({"variant": "solo_rectangle", "scoring": "advanced"}, 1)
    assert refusal.value.field == "options.scoring"
    with pytest.raises(InvalidOptions) as refusal:
        GAME.resolve_options({"variant": "four_player", "puzzle_corner_contact": "optional"}, 4)
    assert refusal.value.field == "options.puzzle_corner_contact"


# -- 3.2 two players --------------------------------------------------------------------------------


def test_two_players_play_two_colours_each_on_diagonal_corners():
    """3.2: seat 0 blue and red, seat 1 yellow and green; play order stays blue, yellow, red, green."""
    state = new_game(2)
    turns = []
    for corner in [(0, 0), (19, 0), (19, 19), (0, 19)]:
        turns.append(to_move(state))
        state = place(state, GAME.to_act(state)[0], [corner])
    assert turns == [("blue", 0), ("yellow", 1), ("red", 0), ("green", 1)]
    assert GAME.to_act(state) == [0]


def test_two_player_legal_actions_follow_the_colour_to_move():
    state = place(new_game(2), 0, [(0, 0)])
    assert GAME.legal_actions(state, 0) == []
    assert {a["colour"] for a in GAME.legal_actions(state, 1)} == {"yellow"}
    with pytest.raises(IllegalAction) as refusal:
        place(state, 1, [(0, 19)], colour="green")
    assert refusal.value.reason == "wrong_colour"


def test_two_player_scores_sum_both_colours():
    """3.2: a player's score is the sum over their colours."""
    state = dict(
        new_game(2, scoring="advanced"),
        pieces_left=[[], ["I4", "L4"], ["1"], ["X5"]],
        last_piece=["1", "T4", "W5", "F5"],
        over=True,
        to_move=None,
    )
    result = GAME.scores(state)
    assert result["scores"] == [20 - 1, -8 - 5]
    assert result["ranks"] == [1, 2]


# -- 3.3 three players ---------------------------------------------------------------------------------


def test_three_players_share_green_in_rotation():
    """3.3: green's n-th placement is made by seat n mod 3; the state says who places it next."""
    state = new_game(3)
    assert GAME.view(state, None)["shared_colour"] == {"colour": "green", "next_seat": 0}
    green_seats = []
    moves = {
        BLUE: [[(0, 0)], [(1, 1), (2, 1)], [(3, 2), (4, 2), (5, 2)]],
        YELLOW: [[(19, 0)], [(18, 1), (17, 1)], [(16, 2), (15, 2), (14, 2)]],
        RED: [[(19, 19)], [(18, 18), (17, 18)], [(16, 17), (15, 17), (14, 17)]],
        GREEN: [[(0, 19)], [(1, 18), (1, 17)], [(2, 16), (2, 15), (2, 14)]],
    }
    pieces = {c: iter(m) for c, m in moves.items()}
    for _ in range(12):
        colour = state["to_move"]
        seat = GAME.to_act(state)[0]
        if colour == GREEN:
            green_seats.append(seat)
        state = place(state, seat, next(pieces[colour]))
    assert green_seats == [0, 1, 2]
    assert GAME.view(state, None)["shared_colour"]["next_seat"] == 0


def test_three_player_shared_colour_scores_for_no_one():
    """3.3 and A5: green's squares are not added to anyone."""
    state = dict(
        new_game(3, scoring="advanced"),
        pieces_left=[[], ["I4"], ["I5"], []],
        last_piece=["1", "1", "1", "1"],
        over=True,
        to_move=None,
    )
    result = GAME.scores(state)
    assert result["scores"] == [20, -4, -5]
    assert len(result["scores"]) == 3
    assert result["colours"][GREEN]["seat"] is None and result["colours"][GREEN]["score"] == 20


# -- 3.4 solo puzzle 1 -------------------------------------------------------------------------------------


def test_solo_all_pieces_one_player_places_every_colour():
    """3.4: one person plays all four colours under the four-player rules."""
    state = new_game(1)
    for corner in [(0, 0), (19, 0), (19, 19), (0, 19)]:
        assert GAME.to_act(state) == [0]
        state = place(state, 0, [corner])
    assert state["placements"] == 4 and to_move(state) == ("blue", 0)


def test_solo_result_is_the_squares_left():
    """3.4: the result is the number of squares left (0 = solved)."""
    state = dict(new_game(1), pieces_left=[["I5"], [], ["1"], []], over=True, to_move=None)
    assert GAME.scores(state)["scores"] == [6] and GAME.scores(state)["solved"] is False
    solved = dict(state, pieces_left=[[], [], [], []])
    assert GAME.scores(solved)["solved"] is True and GAME.scores(solved)["scores"] == [0]


# -- 3.5 solo puzzle 2 ---------------------------------------------------------------------------------------


def test_solo_rectangle_uses_the_five_four_square_pieces_of_each_colour_on_8_by_10():
    """3.5: 20 pieces, 80 squares, 8 rows by 10 columns."""
    state = new_game(1, variant="solo_rectangle")
    view = GAME.view(state, None)
    assert (view["width"], view["height"]) == (10, 8)
    assert all(c["pieces_left"] == ["I4", "L4", "T4", "Z4", "O4"] for c in view["colours"])
    assert sum(c["squares_left"] for c in view["colours"]) == 80


def test_solo_rectangle_any_colour_any_time_starting_anywhere():
    """3.5: any colour may be placed at any time; a colour's first piece goes anywhere."""
    state = new_game(1, variant="solo_rectangle")
    assert {a["colour"] for a in GAME.legal_actions(state, 0)} == {"blue", "yellow", "red", "green"}
    state = place(state, 0, [(4, 3), (5, 3), (4, 4), (5, 4)], colour="red")
    state = place(state, 0, [(6, 3), (6, 4), (6, 5), (6, 6)], colour="blue")
    assert GAME.view(state, None)["board"][3][4:7] == ["red", "red", "blue"]
    with pytest.raises(IllegalAction) as refusal:
        GAME.play(state, 0, {"type": "place", "cells": [[0, 0], [1, 0], [2, 0], [3, 0]]})
    assert refusal.value.reason == "colour_required"


def test_solo_rectangle_same_colour_touches_only_at_corners():
    """3.5: same-colour pieces never share an edge; each later one touches its colour at a corner."""
    state = place(new_game(1, variant="solo_rectangle"), 0, [(0, 0), (1, 0), (0, 1), (1, 1)], colour="red")
    for cells, reason in [
        ([(2, 0), (3, 0), (4, 0), (5, 0)], "edge_contact"),
        ([(5, 5), (6, 5), (7, 5), (8, 5)], "corner_rule"),
    ]:
        with pytest.raises(IllegalAction) as refusal:
            place(state, 0, cells, colour="red")
        assert refusal.value.reason == reason
    place(state, 0, [(2, 2), (3, 2), (4, 2), (5, 2)], colour="red")
    loose = place(
        new_game(1, variant="solo_rectangle", puzzle_corner_contact="optional"),
        0,
        [(0, 0), (1, 0), (0, 1), (1, 1)],
        colour="red",
    )
    place(loose, 0, [(5, 5), (6, 5), (7, 5), (8, 5)], colour="red")  # optional: no corner needed


RECTANGLE_BUT_A_HOLE = [
    "BBBBYYYYRR",
    "RRRRGGGGBB",
    "BBBBYYYYRR",
    "RRRRYYYYBB",
    "YYYYRRRRGG",
    "GGGGBBBBYY",  # green (3, 5) touches the hole below at a corner only
    "BBBB..RRGG",
    "YYYY..RRGG",
]


def nearly_full_rectangle(green_left):
    """A constructed solo_rectangle position: 76 squares coloured as if placed, a 2x2 hole at
    (4..5, 6..7) that green's O4 may fill, every other colour done."""
    letters = {"B": BLUE, "Y": YELLOW, "R": RED, "G": GREEN}
    cells = [0, 0, 0, 0]
    for y, row in enumerate(RECTANGLE_BUT_A_HOLE):
        for x, letter in enumerate(row):
            if letter in letters:
                cells[letters[letter]] |= 1 << (x + y * 11)  # stride = width + 1
    return dict(
        new_game(1, variant="solo_rectangle"),
        cells=cells,
        pieces_left=[[], [], [], green_left],
        out=[True, True, True, False],
        placements=19,
    )


HOLE = {"type": "place", "colour": "green", "cells": [[4, 6], [5, 6], [4, 7], [5, 7]]}


def test_solo_rectangle_is_solved_when_all_80_squares_are_filled():
    """3.5: the last piece fills the rectangle; every colour is done, the game ends, solved."""
    state = nearly_full_rectangle(["O4"])
    events = GAME.play(state, 0, HOLE)
    assert [e["type"] for e in events] == ["placed", "colour_out", "game_over"]
    assert events[1]["data"]["reason"] == "all_pieces_placed"
    state = fold(GAME, state, events)
    assert GAME.is_over(state)
    assert GAME.scores(state)["solved"] is True and GAME.scores(state)["scores"] == [0]
    assert all(cell for row in GAME.view(state, None)["board"] for cell in row)


def test_solo_rectangle_ends_when_no_colour_can_place():
    """3.5/2.8: stuck is an end too, with the squares left as the result."""
    state = nearly_full_rectangle(["I4", "O4"])
    events = GAME.play(state, 0, HOLE)
    assert [e["type"] for e in events] == ["placed", "colour_out", "game_over"]
    assert events[1]["data"] == {"colour": "green", "reason": "no_legal_move"}
    result = GAME.scores(fold(GAME, state, events))
    assert result["scores"] == [4] and result["solved"] is False


# -- 5.1 Duo -------------------------------------------------------------------------------------------------------


def test_duo_is_14_by_14_purple_first_from_4_4_and_orange_from_9_9():
    """5.1"""
    state = new_game(2, variant="duo")
    view = GAME.view(state, None)
    assert (view["width"], view["height"]) == (14, 14)
    assert [(c["colour"], c["start"], c["seat"]) for c in view["colours"]] == [
        ("purple", [4, 4], 0),
        ("orange", [9, 9], 1),
    ]
    assert to_move(state) == ("purple", 0)
    with pytest.raises(IllegalAction) as refusal:
        place(state, 0, [(0, 0)])
    assert refusal.value.reason == "must_cover_start"
    state = place(state, 0, [(4, 4), (5, 4)])
    state = place(state, 1, [(9, 9)])
    assert to_move(state) == ("purple", 0)
    assert len(GAME.legal_actions(GAME.setup(GAME.resolve_options({"variant": "duo"}, 2), 2, "x"), 0)) > 0


def test_duo_scoring_uses_the_same_rules():
    state = dict(
        new_game(2, variant="duo"), pieces_left=[["X5"], []], last_piece=["F5", "1"], over=True, to_move=None
    )
    assert GAME.scores(state)["scores"] == [PIECE_BY_NAME["X5"].size, 0]
    assert GAME.scores(state)["ranks"] == [2, 1]


def test_every_variant_is_listed_in_the_options_schema():
    assert GAME.options_schema["properties"]["variant"]["enum"] == list(VARIANTS)
