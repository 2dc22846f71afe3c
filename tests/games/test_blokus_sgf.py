"""Blokus game records in Pentobi's SGF dialect (spec 5.2): reading, writing and the round trip."""

from __future__ import annotations

import random

import pytest

from service.games.blokus import GAME, sgf
from service.games.blokus.engine import VARIANTS
from service.games.protocol import InvalidRecord, fold
from tests import engines

PENTOBI_STYLE = """(;GM[Blokus]CA[UTF-8]AP[Pentobi:22.1]DT[2026-01-02]P1[Ann]P2[Bob]P3[Cat]P4[Dan]
;1[a20,b20]
 ;2[t20,s20,r20]

;3[t1] ;4[a1,a2]
)"""


def test_squares_count_rows_from_the_bottom():
    """5.2: column letters from a at the left, row numbers from 1 at the BOTTOM."""
    options, _players, actions = GAME.record.parse("(;GM[Blokus];1[c18,a19,b19,c19,a20])")
    assert options == {"variant": "four_player"}
    assert actions[0]["cells"] == [[2, 2], [0, 1], [1, 1], [2, 1], [0, 0]]
    assert actions[0]["colour"] == "blue"


def test_reads_what_pentobi_writes():
    """A game-information node first, one node per move, whitespace between nodes."""
    _options, players, actions = GAME.record.parse(PENTOBI_STYLE)
    assert players == ["Ann", "Bob", "Cat", "Dan"]
    assert [a["colour"] for a in actions] == ["blue", "yellow", "red", "green"]
    assert actions[1]["cells"] == [[19, 0], [18, 0], [17, 0]]
    assert actions[3]["cells"] == [[0, 19], [0, 18]]


def test_game_names_choose_the_variant():
    for name, variant in [
        ("Blokus", "four_player"),
        ("Blokus Two-Player", "two_player"),
        ("Blokus Three-Player", "three_player"),
        ("Blokus Duo", "duo"),
    ]:
        assert GAME.record.parse(f"(;GM[{name}])")[0] == {"variant": variant}


def test_two_colour_games_use_b_and_w_and_pb_pw():
    _options, players, actions = GAME.record.parse("(;GM[Blokus Duo]PB[Pia]PW[Olu];B[e10];W[j5,j6])")
    assert players == ["Pia", "Olu"]
    assert [(a["colour"], a["cells"]) for a in actions] == [
        ("purple", [[4, 4]]),
        ("orange", [[9, 9], [9, 8]]),
    ]


def test_only_the_main_line_is_read():
    _, _, actions = GAME.record.parse("(;GM[Blokus];1[a20](;2[t20];3[t1])(;2[s20,t20]))")
    assert [a["cells"] for a in actions] == [[[0, 0]], [[19, 0]], [[19, 19]]]


def test_escaped_brackets_in_text_values():
    _, players, _ = GAME.record.parse(r"(;GM[Blokus]P1[A \] B]C[a comment with \] inside];1[a20])")
    assert players[0] == "A ] B"


@pytest.mark.parametrize(
    "record, complaint",
    [
        ("not sgf at all", "unreadable"),
        ("GM[Blokus]", "game tree"),
        ("(;GM[Go]SZ[19])", "not a Blokus game"),
        ("(;GM[Blokus];1[a20]", "unbalanced"),
        ("(;GM[Blokus];1[aa])", "not a square"),
        ("(;GM[Blokus];1[z9])", "off the 20x20 board"),
        ("(;GM[Blokus];1[u1])", "off the 20x20 board"),
        ("(;GM[Blokus];1[])", "no squares"),
        ("(;GM[Blokus];1[a20]2[t20])", "exactly one move"),
        ("(;GM[Blokus];A1[a20])", "setup properties"),
        ("(;GM[Blokus]AB[a1])", "setup properties"),
        ("(;GM[Blokus]MLV[hexagonal])", "not a Blokus variant"),
    ],
)
def test_unreadable_records_say_why(record, complaint):
    with pytest.raises(InvalidRecord, match=complaint):
        GAME.record.parse(record)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_export_then_import_gives_the_same_moves_and_scores(variant):
    players = VARIANTS[variant].players
    start = engines.new_state(GAME, players, "r", variant=variant)
    log = []
    state = engines.random_playout(
        GAME, start, random.Random(variant), on_move=lambda state, seat, action, events: log.extend(events)
    )
    names = [f"p{i}" for i in range(players)]
    text = GAME.record.export({"variant": variant}, names, log)
    options, read_names, actions = GAME.record.parse(text)
    assert options == {"variant": variant} and read_names == names
    replayed = start
    for action in actions:
        replayed = fold(GAME, replayed, GAME.play(replayed, GAME.to_act(replayed)[0], action))
    assert [a["cells"] for a in actions] == [e["data"]["cells"] for e in log if e["type"] == "placed"]
    assert replayed == state
    assert GAME.scores(replayed) == GAME.scores(state)


def test_solo_variants_are_marked_with_our_own_property():
    text = sgf.export(VARIANTS["solo_rectangle"], ["me"], [])
    assert "GM[Blokus]" in text and "MLV[solo_rectangle]" in text
