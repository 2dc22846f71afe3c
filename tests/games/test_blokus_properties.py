"""Blokus properties over random legal games (hypothesis chooses every move, so failures shrink).

Checked after every action: no two pieces of one colour share an edge anywhere, every piece is
placed at most once, the board is exactly the union of the placed pieces, the scores follow from
the pieces left, and folding the events from the start gives the state reached live. On sampled
positions the generator's move list equals a brute-force check of every placement.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from service.games.blokus import GAME
from service.games.blokus.geometry import ORIENTATIONS, PIECE_BY_NAME, PIECES, board
from service.games.protocol import IllegalAction, fold

B = board(20, 20)
COLOURS = ["blue", "yellow", "red", "green"]


def edge_touch(a, b) -> bool:
    return any(abs(ax - bx) + abs(ay - by) == 1 for ax, ay in a for bx, by in b)


def check_invariants(state, placed):
    """``placed``: (colour, piece, cells) of every placement so far, from the events."""
    view = GAME.view(state, None)
    # the board is exactly the union of the placed pieces
    expected = [[None] * 20 for _ in range(20)]
    for colour, _, cells in placed:
        for x, y in cells:
            assert expected[y][x] is None, "two pieces on one square"
            expected[y][x] = colour
    assert view["board"] == expected
    # every piece at most once, and the pieces left are the others
    for c, colour in enumerate(COLOURS):
        used = [piece for col, piece, _ in placed if col == colour]
        assert len(used) == len(set(used))
        assert sorted(state["pieces_left"][c]) == sorted(p.name for p in PIECES if p.name not in used)
    # no same-colour edge contact anywhere
    for i, (colour, _, cells) in enumerate(placed):
        for other_colour, _, other in placed[i + 1:]:
            if other_colour == colour:
                assert not edge_touch(cells, other)
    # scores follow from the pieces left
    simple = [sum(PIECE_BY_NAME[p].size for p in left) for left in state["pieces_left"]]
    assert GAME.scores(dict(state, scoring="simple"))["scores"] == simple


def brute_force_moves(state, colour):
    """Every on-board placement the single-placement validator accepts."""
    legal = set()
    for o in ORIENTATIONS:
        if PIECES[o.piece].name not in state["pieces_left"][colour]:
            continue
        width = max(x for x, _ in o.cells) + 1
        height = max(y for _, y in o.cells) + 1
        for ay in range(20 - height + 1):
            for ax in range(20 - width + 1):
                cells = [(ax + x, ay + y) for x, y in o.cells]
                try:
                    GAME.check_placement(state, colour, None, cells)
                except IllegalAction:
                    continue
                legal.add(frozenset(cells))
    return legal


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_games_keep_the_invariants_and_replay_equal(data):
    state = GAME.setup(GAME.resolve_options({}, 4), 4, seed="prop")
    start = state
    log = []
    placed = []
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        actions = GAME.legal_actions(state, seat)
        assert actions, "a colour to move always has a move (else it would have been skipped)"
        action = data.draw(st.sampled_from(actions))
        events = GAME.play(state, seat, action)
        log += events
        state = fold(GAME, state, events)
        placed += [(e["data"]["colour"], e["data"]["piece"], [tuple(c) for c in e["data"]["cells"]])
                   for e in events if e["type"] == "placed"]
        check_invariants(state, placed)
    assert log[-1]["type"] == "game_over"
    assert all(state["out"])
    assert fold(GAME, start, log) == state  # replaying the log gives the live state


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.integers(min_value=0, max_value=70))
def test_move_list_equals_brute_force(data, plies):
    state = GAME.setup(GAME.resolve_options({}, 4), 4, seed="prop")
    for _ in range(plies):
        if GAME.is_over(state):
            break
        seat = GAME.to_act(state)[0]
        state = fold(GAME, state, GAME.play(state, seat, data.draw(st.sampled_from(GAME.legal_actions(state, seat)))))
    if GAME.is_over(state):
        return
    colour = state["to_move"]
    listed = [frozenset(tuple(c) for c in a["cells"]) for a in GAME.legal_actions(state, colour)]
    assert len(listed) == len(set(listed)), "no placement listed twice"
    assert set(listed) == brute_force_moves(state, colour)


def test_every_listed_action_can_be_posted_back():
    """6.3: each legal action, as listed, is accepted by play."""
    state = GAME.setup(GAME.resolve_options({}, 4), 4, seed="x")
    for action in GAME.legal_actions(state, 0):
        events = GAME.play(state, 0, action)
        assert events[0]["type"] == "placed"
