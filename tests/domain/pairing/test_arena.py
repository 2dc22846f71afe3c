"""The arena: streak scoring and continuous pairing without immediate rematch (service/domain/pairing/arena.py)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.errors import PairingRefused
from service.domain.pairing import arena
from service.domain.pairing.standings import Game
from tests.conftest import examples


def lines(count):
    state = {}
    for i in range(count):
        state = arena.joined(state, f"p{i}", 1500 + 10 * i)
    return state


def test_a_win_is_two_points_a_draw_one_and_two_wins_in_a_row_set_a_player_on_fire():
    state = lines(3)
    state = arena.scored(state, Game(("p0", "p1"), (1, 2)))
    state = arena.scored(state, Game(("p0", "p2"), (1, 2)))
    assert state["p0"].points == 4 and state["p0"].on_fire
    state = arena.scored(state, Game(("p1", "p0"), (1, 1)))
    assert state["p0"].points == 6 and state["p1"].points == 1  # a draw on fire counts double
    assert not state["p0"].on_fire
    state = arena.scored(state, Game(("p0", "p1"), (1, 2)))
    assert state["p0"].points == 8


def test_no_immediate_rematch():
    state = arena.scored(lines(3), Game(("p0", "p1"), (1, 2)))
    assert arena.paired(state, ["p0", "p1"], "seed") == []
    state = arena.scored(state, Game(("p1", "p2"), (1, 2)))
    assert arena.paired(state, ["p0", "p1"], "seed") == []  # p0's last game is still against p1
    state = arena.scored(state, Game(("p0", "p2"), (1, 2)))
    assert {frozenset(g) for g in arena.paired(state, ["p0", "p1"], "seed")} == {frozenset(("p0", "p1"))}


def test_waiting_players_are_paired_by_rank_and_an_odd_one_waits():
    state = {**lines(4), "p9": arena.Line("p9", 1000, points=10)}
    assert arena.ranking(state, "seed") == ["p9", "p3", "p2", "p1", "p0"]
    games = arena.paired(state, list(state), "seed")
    assert [set(g) for g in games] == [{"p9", "p3"}, {"p2", "p1"}]


def test_a_withdrawn_player_is_not_paired_and_keeps_its_points():
    state = arena.scored(lines(3), Game(("p0", "p1"), (1, 2)))
    state = arena.withdrawn(state, "p0")
    assert state["p0"].points == 2
    with pytest.raises(PairingRefused) as refused:
        arena.paired(state, ["p0", "p2"], "seed")
    assert refused.value.reason == "unknown_player"
    assert not arena.joined(state, "p0", 0)["p0"].withdrawn


def test_an_arena_game_has_two_players():
    with pytest.raises(PairingRefused) as refused:
        arena.scored(lines(3), Game(("p0", "p1", "p2"), (1, 2, 3)))
    assert refused.value.reason == "bad_result"


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(2, 30), st.integers(1, 8), st.integers(0, 1000))
def test_an_arena_never_seats_a_player_twice_nor_against_its_last_opponent_and_replays_the_same(
    count, steps, chance
):
    def run():
        state, rng, log = lines(count), random.Random(chance), []
        for _ in range(steps):
            waiting = sorted(p for p in state if rng.random() < 0.8)
            games = arena.paired(state, waiting, "seed")
            log.append(games)
            seated = [p for g in games for p in g]
            assert len(seated) == len(set(seated)) and set(seated) <= set(waiting)
            for a, b in games:
                assert state[a].last_opponent != b
                state = arena.scored(state, Game((a, b), tuple(rng.choice([(1, 2), (2, 1), (1, 1)]))))
        return log, state

    assert run() == run()


def test_a_crowd_is_matched_a_block_at_a_time_and_still_pairs_everyone_it_can(monkeypatch):
    """Edmonds' blossom over 1,000 waiting players took 11 s of CPU (tests/bench/pairing.py): they are matched
    ``AT_ONCE`` at a time, the ones left at a block's end joining the next, so an even crowd with no rematch in
    the way is paired whole, every pair at most ``REACH`` places apart, each player once; a block's edge
    costs no one a game."""
    rng = random.Random(3)
    crowd = 5 * arena.AT_ONCE + 2
    state = lines(crowd)
    for i in range(0, crowd - 1, 2):  # everyone has played once, so places and last opponents vary
        state = arena.scored(state, Game((f"p{i}", f"p{i + 1}"), tuple(rng.sample((1, 2), 2))))
    waiting = list(state)
    import networkx as nx

    sizes, matching = [], nx.max_weight_matching
    monkeypatch.setattr(
        nx, "max_weight_matching", lambda graph, **kw: sizes.append(len(graph)) or matching(graph, **kw)
    )
    games = arena.paired(state, waiting, "crowd")
    assert len(sizes) == 6 and max(sizes) <= arena.AT_ONCE + arena.REACH, (
        sizes
    )  # never the whole crowd at once
    seated = [p for game in games for p in game]
    assert sorted(seated) == sorted(waiting)  # everyone once
    place = {p: i for i, p in enumerate(arena.ranking(state, "crowd"))}
    assert all(abs(place[a] - place[b]) <= arena.REACH for a, b in games)
    assert all(state[a].last_opponent != b for a, b in games)
    assert arena.paired(state, waiting, "crowd") == games  # the same again: replays agree
