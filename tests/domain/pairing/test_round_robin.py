"""Round robins: every pair once by the circle method, every pod once (service/domain/pairing/round_robin.py)."""

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.errors import PairingRefused
from service.domain.pairing import round_robin
from tests.conftest import examples


def players(count):
    return [f"p{i}" for i in range(count)]


def test_every_pair_meets_exactly_once():
    for count in range(2, 15):
        met = Counter(frozenset(g) for r in round_robin.pairs(players(count)) for g in r)
        assert set(met) == {frozenset(p) for p in itertools.combinations(players(count), 2)}
        assert set(met.values()) == {1}


def test_a_round_robin_of_n_players_takes_n_minus_1_rounds_or_n_when_odd():
    assert len(round_robin.pairs(players(8))) == 7
    assert len(round_robin.pairs(players(7))) == 7


def test_odd_fields_give_each_player_one_bye():
    rounds = round_robin.pairs(players(7))
    sitting = Counter(p for r in rounds for p in set(players(7)) - {q for g in r for q in g})
    assert sitting == Counter(dict.fromkeys(players(7), 1))


def test_every_pod_meets_exactly_once():
    rounds = round_robin.pods(players(7), 4)
    met = Counter(frozenset(g) for r in rounds for g in r)
    assert set(met) == {frozenset(c) for c in itertools.combinations(players(7), 4)}
    assert set(met.values()) == {1}


def test_pods_are_of_three_to_five():
    for size in (2, 6):
        with pytest.raises(PairingRefused) as refused:
            round_robin.pods(players(8), size)
        assert refused.value.reason == "pod_size"


def test_too_few_players_are_refused():
    with pytest.raises(PairingRefused) as refused:
        round_robin.pairs(["a"])
    assert refused.value.reason == "too_few_players"
    with pytest.raises(PairingRefused):
        round_robin.pods(players(3), 4)


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(2, 22))
def test_pairs_no_player_twice_in_a_round_and_first_seats_within_one(count):
    rounds = round_robin.pairs(players(count))
    first, games = Counter(), Counter()
    for r in rounds:
        seated = [p for g in r for p in g]
        assert len(seated) == len(set(seated))
        for a, b in r:
            first[a] += 1
            games[a] += 1
            games[b] += 1
    for p in players(count):
        assert abs(2 * first[p] - games[p]) <= 1, (p, first[p], games[p])


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(3, 5).flatmap(lambda size: st.tuples(st.just(size), st.integers(size, size + 4))))
def test_pods_no_player_twice_in_a_round_and_seats_within_one(size_count):
    size, count = size_count
    rounds = round_robin.pods(players(count), size)
    seats = {p: Counter() for p in players(count)}
    for r in rounds:
        seated = [p for g in r for p in g]
        assert len(seated) == len(set(seated))
        for g in r:
            for s, p in enumerate(g):
                seats[p][s] += 1
    for p, counts in seats.items():
        taken = [counts[s] for s in range(size)]
        assert max(taken) - min(taken) <= 1, (p, taken)
