"""Knockout brackets: seeding, byes, single and double elimination (service/domain/pairing/elimination.py)."""

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.errors import PairingRefused
from service.domain.pairing import elimination
from tests.conftest import examples


def players(count):
    return [f"s{i}" for i in range(1, count + 1)]


def play_out(bracket, field, chance):
    winners = {}
    while True:
        played = elimination.progress(bracket, field, winners)
        ready = [p for p in played if p.to_play]
        if not ready:
            return played, winners
        for meeting in ready:
            winners[meeting.id] = chance.choice(meeting.players)


def test_seeds_fill_the_bracket_so_the_top_two_meet_only_in_the_final():
    assert elimination.seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    bracket = elimination.single(players(8))
    assert [(m.sides[0].of, m.sides[1].of) for m in bracket[:4]] == [(1, 8), (4, 5), (2, 7), (3, 6)]


def test_byes_go_to_the_top_seeds():
    played = elimination.progress(elimination.single(players(6)), players(6), {})
    byes = [p for p in played if p.decided and None in p.players]
    assert sorted(p.winner for p in byes) == ["s1", "s2"]


def test_the_favourite_wins_when_every_higher_seed_wins():
    field = players(8)
    rank = {p: i for i, p in enumerate(field)}
    bracket = elimination.single(field)
    winners = {}
    while ready := [p for p in elimination.progress(bracket, field, winners) if p.to_play]:
        for meeting in ready:
            winners[meeting.id] = min(meeting.players, key=rank.__getitem__)
    final = elimination.progress(bracket, field, winners)[-1]
    assert (
        set(final.players) == {"s1", "s2"}
        and elimination.champion(elimination.progress(bracket, field, winners)) == "s1"
    )


def test_double_elimination_gives_the_losers_bracket_winner_a_reset_final():
    field = players(4)
    bracket = elimination.double(field)
    assert [m.id for m in bracket[-2:]] == ["GF", "GF2"]
    winners = {"W1-1": "s1", "W1-2": "s2", "W2-1": "s1", "L1-1": "s3", "L2-1": "s2", "GF": "s2"}
    played = elimination.progress(bracket, field, winners)
    assert played[-1].to_play and set(played[-1].players) == {"s1", "s2"}
    assert elimination.champion(played) is None
    assert elimination.champion(elimination.progress(bracket, field, {**winners, "GF2": "s1"})) == "s1"


def test_no_reset_when_the_winners_bracket_champion_takes_the_grand_final():
    field = players(4)
    winners = {"W1-1": "s1", "W1-2": "s2", "W2-1": "s1", "L1-1": "s3", "L2-1": "s2", "GF": "s1"}
    played = elimination.progress(elimination.double(field), field, winners)
    assert not played[-1].to_play and elimination.champion(played) == "s1"


def test_a_winner_who_does_not_play_the_meeting_is_refused():
    field = players(4)
    for winners in ({"W1-1": "s2"}, {"W2-1": "s1"}):
        with pytest.raises(PairingRefused) as refused:
            elimination.progress(elimination.single(field), field, winners)
        assert refused.value.reason == "unknown_player"


def test_a_bracket_needs_two_players():
    with pytest.raises(PairingRefused) as refused:
        elimination.single(["alone"])
    assert refused.value.reason == "too_few_players"


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(2, 40), st.booleans(), st.integers(0, 10_000))
def test_everyone_but_the_champion_is_knocked_out_and_nobody_plays_twice_at_once(count, double, chance):
    field = players(count)
    bracket = (elimination.double if double else elimination.single)(field)
    played, _ = play_out(bracket, field, random.Random(chance))
    lives = 2 if double else 1
    losses = Counter(p.loser for p in played if p.loser is not None)
    champion = elimination.champion(played)
    assert [p for p in field if losses[p] < lives] == [champion]
    assert max(losses.values()) <= lives
    rounds = Counter()
    for p in played:
        for player in p.players:
            if player is not None and None not in p.players:
                rounds[player, p.id.split("-")[0]] += 1
    assert set(rounds.values()) <= {1}
