"""Points by rank, the tie-breaks and the order they give (service/domain/pairing/standings.py)."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.errors import PairingRefused
from service.domain.pairing.standings import Bye, Game, standings
from tests.conftest import examples


def test_two_players_score_one_half_and_nothing():
    assert Game(("a", "b"), (1, 2)).points() == {"a": 1, "b": 0}
    assert Game(("a", "b"), (1, 1)).points() == {"a": Fraction(1, 2), "b": Fraction(1, 2)}


def test_a_pod_scores_one_point_per_opponent_beaten_and_half_per_tie():
    assert Game(("a", "b", "c", "d"), (1, 2, 3, 4)).points() == {"a": 3, "b": 2, "c": 1, "d": 0}
    assert Game(("a", "b", "c"), (1, 1, 3)).points() == {"a": Fraction(3, 2), "b": Fraction(3, 2), "c": 0}


def test_buchholz_is_the_sum_of_the_opponents_points():
    games = [
        Game(("a", "b"), (1, 2)),
        Game(("c", "d"), (1, 2)),
        Game(("a", "c"), (1, 2)),
        Game(("b", "d"), (1, 1)),
    ]
    table = {s.player: s for s in standings(["a", "b", "c", "d"], games, "seed")}
    assert table["a"].points == 2 and table["c"].points == 1
    assert table["a"].buchholz == table["b"].points + table["c"].points == Fraction(3, 2)
    assert table["d"].buchholz == table["c"].points + table["b"].points


def test_sonneborn_berger_counts_beaten_opponents_whole_and_tied_ones_half():
    games = [Game(("a", "b"), (1, 2)), Game(("a", "c"), (1, 1)), Game(("b", "c"), (1, 2))]
    table = {s.player: s for s in standings(["a", "b", "c"], games, "seed")}
    # a: 1.5, b: 1, c: 0.5; a beat b (1) and drew with c (0.5 / 2)
    assert table["a"].sonneborn_berger == 1 + Fraction(1, 4)


def test_a_tie_on_points_goes_to_buchholz_then_the_seeded_order():
    games = [Game(("a", "b"), (1, 2)), Game(("c", "d"), (1, 2)), Game(("c", "a"), (1, 2))]
    order = [s.player for s in standings(["a", "b", "c", "d"], games, "seed")]
    assert order[0] == "c"
    same = standings(["x", "y"], [], "seed")
    assert [s.place for s in same] == [1, 2]
    assert {tuple(s.player for s in standings(["x", "y"], [], str(seed))) for seed in range(20)} == {
        ("x", "y"),
        ("y", "x"),
    }


def test_a_bye_gives_its_points_and_no_opponent():
    table = {s.player: s for s in standings(["a", "b"], [Bye("a"), Bye("b", Fraction(1, 2))], "s")}
    assert table["a"].points == 1 and table["a"].byes == 1 and table["a"].opponents == ()
    assert table["b"].points == Fraction(1, 2)


def test_a_result_naming_a_player_outside_the_field_is_refused():
    with pytest.raises(PairingRefused) as refused:
        standings(["a"], [Game(("a", "z"), (1, 2))], "s")
    assert refused.value.reason == "unknown_player"


def test_a_result_whose_ranks_do_not_fit_its_players_is_refused():
    for players, ranks in ((("a", "b"), (1,)), (("a",), (1,)), (("a", "b"), (0, 1))):
        with pytest.raises(PairingRefused) as refused:
            Game(players, ranks)
        assert refused.value.reason == "bad_result"
    with pytest.raises(PairingRefused) as refused:
        Game(("a", "a"), (1, 2))
    assert refused.value.reason == "duplicate_player"


@st.composite
def tournaments(draw):
    count = draw(st.integers(2, 12))
    players = [f"p{i}" for i in range(count)]
    games = []
    for _ in range(draw(st.integers(0, 15))):
        size = draw(st.integers(2, min(5, count)))
        pod = draw(st.permutations(players))[:size]
        ranks = draw(st.lists(st.integers(1, size), min_size=size, max_size=size))
        games.append(Game(tuple(pod), tuple(ranks)))
    return players, games


@settings(max_examples=examples(100), deadline=None)
@given(tournaments(), st.text(max_size=8))
def test_standings_sum_to_the_points_the_games_gave(tournament, seed):
    players, games = tournament
    table = standings(players, games, seed)
    assert sum(s.points for s in table) == sum(
        Fraction(len(g.players) * (len(g.players) - 1), 2) for g in games
    )
    assert [s.place for s in table] == list(range(1, len(players) + 1))
    assert sorted(s.player for s in table) == sorted(players)
    keys = [(-s.points, -s.buchholz, -s.sonneborn_berger, -s.wins) for s in table]
    assert keys == sorted(keys)
    assert table == standings(players, games, seed)
