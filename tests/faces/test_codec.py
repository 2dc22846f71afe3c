"""The faces' action codec: canonical tokens, and a fixed number for each token of a game and mode."""

from __future__ import annotations

import pytest

from service.faces.codec import INT_RANGE, MARKS, WAIT, Vocabulary, continuations, tokens
from service.faces.table import Table, modes, player_counts
from service.games import GAMES


def test_an_action_has_the_same_tokens_whatever_its_keys_order_type_first():
    one = {"cells": [[0, 1]], "type": "place", "piece": "1"}
    other = {"piece": "1", "type": "place", "cells": [[0, 1]]}
    assert tokens(one) == tokens(other)
    assert tokens(one)[:3] == [("mark", "{"), ("str", "type"), ("str", "place")]


def test_the_choices_a_listing_adds_for_people_are_not_part_of_an_action():
    assert tokens({"type": "PASS", "choices": {"count": [1, 2]}}) == tokens({"type": "PASS"})


def test_a_value_without_a_token_is_refused():
    with pytest.raises(ValueError, match="no token"):
        tokens({"type": "x", "ratio": 0.5})


def test_token_numbers_are_fixed_marks_wait_null_booleans_integers_then_strings_sorted():
    vocabulary = Vocabulary(("a", "b"))
    assert [vocabulary.token(i) for i in range(4)] == [("mark", m) for m in MARKS]
    assert vocabulary.id_of(WAIT) == 4
    assert vocabulary.id_of(("int", -INT_RANGE)) == 8
    assert vocabulary.id_of(("str", "a")) == len(vocabulary) - 2
    assert all(vocabulary.id_of(vocabulary.token(i)) == i for i in range(len(vocabulary)))
    assert vocabulary.text(vocabulary.id_of(("str", "a"))) == '"a"' and vocabulary.text(6) == "false"


def test_a_modes_vocabulary_is_the_same_for_every_player_count():
    table = Table("chock-a-block", "standard", 2)
    assert Table("chock-a-block", "standard", 5).vocabulary is table.vocabulary


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_first_legal_action_of_every_mode_is_spelled_by_the_vocabulary(game_id):
    for mode in modes(GAMES[game_id]):
        seating = Table(game_id, mode, player_counts(GAMES[game_id], modes(GAMES[game_id])[mode])[0]).start()
        if seating.is_chance:
            seating.deal("codec")
        for seat in seating.acting():
            for ids, action in seating.listed(seat):
                assert [seating.table.vocabulary.token(i) for i in ids] == tokens(action)


def test_continuations_are_the_next_tokens_of_the_actions_a_prefix_begins():
    encoded = sorted([(0, 5, 7, 1), (0, 5, 8, 1), (0, 6, 1)])
    assert continuations(encoded, [0]) == [5, 6]
    assert continuations(encoded, [0, 5]) == [7, 8]
    assert continuations(encoded, [0, 6, 1]) == []
