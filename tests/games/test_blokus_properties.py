"""Blokus properties over random legal games of every variant (hypothesis chooses every move, so a
failure shrinks to a short game).

Checked after every action: no two pieces of one colour share an edge anywhere, every piece is
placed at most once, the board is exactly the union of the placed pieces, the scores follow from
the pieces left, and folding the events from the start gives the state reached live. On sampled
positions the move list equals a brute-force check of every placement.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.games.blokus import GAME
from service.games.blokus.engine import VARIANTS
from service.games.blokus.geometry import ORIENTATIONS, PIECE_BY_NAME, PIECES
from service.games.protocol import IllegalAction, fold
from tests.conftest import examples

PLAYERS = {name: variant.players for name, variant in VARIANTS.items()}


def new_game(variant):
    return GAME.setup(
        GAME.resolve_options({"variant": variant}, PLAYERS[variant]), PLAYERS[variant], seed="p"
    )


def edge_touch(a, b) -> bool:
    return any(abs(ax - bx) + abs(ay - by) == 1 for ax, ay in a for bx, by in b)


def check_invariants(state, placed):
    """``placed``: (colour, piece, cells) of every placement so far, from the events."""
    variant = VARIANTS[state["variant"]]
    view = GAME.view(state, None)
    expected = [[None] * variant.width for _ in range(variant.height)]
    for colour, _, cells in placed:
        for x, y in cells:
            assert expected[y][x] is None, "two pieces on one square"
            expected[y][x] = colour
    assert view["board"] == expected, "the board is the union of the placed pieces"
    for c, colour in enumerate(variant.colours):
        used = [piece for col, piece, _ in placed if col == colour]
        assert len(used) == len(set(used)), "each piece at most once"
        assert sorted(state["pieces_left"][c]) == sorted(p for p in variant.pieces if p not in used)
    for i, (colour, _, cells) in enumerate(placed):
        for other_colour, _, other in placed[i + 1 :]:
            if other_colour == colour:
                assert not edge_touch(cells, other), "no same-colour edge contact"
    left = [sum(PIECE_BY_NAME[p].size for p in pieces) for pieces in state["pieces_left"]]
    result = GAME.scores(dict(state, scoring="simple"))
    assert [c["squares_left"] for c in result["colours"]] == left
    if variant.puzzle:
        assert result["scores"] == [sum(left)]
    else:
        expected_scores = [0] * variant.players
        for c, seat in enumerate(variant.seat_of_colour):
            if seat is not None:
                expected_scores[seat] += left[c]
        assert result["scores"] == expected_scores


def brute_force_moves(state):
    """Every (colour, squares) the single-placement validator accepts, for the colours to place."""
    variant = VARIANTS[state["variant"]]
    legal = set()
    for colour in GAME.colours_to_place(state):
        for o in ORIENTATIONS:
            if PIECES[o.piece].name not in state["pieces_left"][colour]:
                continue
            width = max(x for x, _ in o.cells) + 1
            height = max(y for _, y in o.cells) + 1
            for ay in range(variant.height - height + 1):
                for ax in range(variant.width - width + 1):
                    cells = [(ax + x, ay + y) for x, y in o.cells]
                    try:
                        GAME.check_placement(state, colour, None, cells)
                    except IllegalAction:
                        continue
                    legal.add((variant.colours[colour], frozenset(cells)))
    return legal


def play_out(data, state, check=None):
    start, log, placed = state, [], []
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        actions = GAME.legal_actions(state, seat)
        assert actions, "whoever is to act has a move (a colour without one is skipped)"
        events = GAME.play(state, seat, data.draw(st.sampled_from(actions)))
        log += events
        state = fold(GAME, state, events)
        placed += [
            (e["data"]["colour"], e["data"]["piece"], [tuple(c) for c in e["data"]["cells"]])
            for e in events
            if e["type"] == "placed"
        ]
        if check:
            check(state, placed)
    return start, log, state


@pytest.mark.parametrize("variant", list(VARIANTS))
@settings(max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_games_keep_the_invariants_and_replay_equal(variant, data):
    start, log, state = play_out(data, new_game(variant), check_invariants)
    assert log[-1]["type"] == "game_over" and all(state["out"])
    assert fold(GAME, start, log) == state, "replaying the log gives the live state"


@pytest.mark.no_cover  # what it runs is covered by faster tests; traced, it took 3 times as long
@pytest.mark.parametrize("variant", list(VARIANTS))
@settings(max_examples=examples(5), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), plies=st.integers(min_value=0, max_value=60))
def test_move_list_equals_brute_force(variant, data, plies):
    state = new_game(variant)
    for _ in range(plies):
        if GAME.is_over(state):
            break
        seat = GAME.to_act(state)[0]
        state = fold(
            GAME, state, GAME.play(state, seat, data.draw(st.sampled_from(GAME.legal_actions(state, seat))))
        )
    if GAME.is_over(state):
        return
    listed = [
        (a["colour"], frozenset(tuple(c) for c in a["cells"]))
        for a in GAME.legal_actions(state, GAME.to_act(state)[0])
    ]
    assert len(listed) == len(set(listed)), "no placement listed twice"
    assert set(listed) == brute_force_moves(state)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_listed_action_can_be_posted_back(variant):
    """6.3: each legal action, as listed, is accepted by play."""
    state = new_game(variant)
    for action in GAME.legal_actions(state, 0):
        assert GAME.play(state, 0, action)[0]["type"] == "placed"
