"""The PettingZoo face (``service.faces.pettingzoo``): every game and mode passes PettingZoo's ``api_test`` and
``seed_test``, with action masks."""

from __future__ import annotations

import pytest
from pettingzoo.test import api_test, seed_test

from service.faces import pettingzoo
from service.faces.table import modes, packaged, player_counts
from service.games import GAMES

MODES = [(game_id, mode) for game_id, game in packaged().items() for mode in modes(game)]


def fewest(game_id: str, mode: str) -> int:
    return player_counts(GAMES[game_id], modes(GAMES[game_id])[mode])[0]


@pytest.mark.no_cover  # what it runs is covered by faster tests; traced, it took 3 times as long
@pytest.mark.filterwarnings(
    "ignore:Observation"
)  # a dict of the view's bytes and the mask, as PettingZoo's own games
@pytest.mark.parametrize(("game_id", "mode"), MODES, ids=[f"{g}-{m}" for g, m in MODES])
def test_every_game_and_mode_passes_pettingzoos_api_and_seed_tests(game_id, mode):
    players = fewest(game_id, mode)
    api_test(pettingzoo.env(game_id, mode, players), num_cycles=40)
    seed_test(lambda: pettingzoo.env(game_id, mode, players), num_cycles=20)


def test_the_action_mask_is_the_seats_legal_tokens():
    env = pettingzoo.env("blokus", "duo", 2)
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    assert list(mask.nonzero()[0]) == env.seating.legal_tokens(0)
    assert not env.observe("seat_1")["action_mask"].any()


def test_a_whole_game_ends_with_the_ranks_rewards():
    env = pettingzoo.env("blokus", "solo_rectangle", 1)
    env.reset(seed=2)
    final = None
    for _ in env.agent_iter():
        observation, reward, terminated, _, _ = env.last()
        if terminated:
            final = reward
            env.step(None)
            continue
        env.step(int(observation["action_mask"].nonzero()[0][0]))
    assert env.seating.is_over and final == 1.0 == env.seating.returns()[0]


def test_blackout_draws_its_rolls_and_injuries_as_play_reaches_them_from_the_resets_seed():
    """The draws of play (``common.picked``) are the environment's to make, with the reset's seed: the same
    seed rolls the same dice, another seed others."""

    def drawn_in_play(seed: int) -> dict[str, str]:
        env = pettingzoo.env("blackout-hong-kong", "single", 2)
        env.reset(seed=seed)
        for _ in env.agent_iter(max_iter=400):
            observation, _, terminated, _, _ = env.last()
            # the last token: ``wait`` (the first) would let a planning seat wait for ever
            env.step(None if terminated else int(observation["action_mask"].nonzero()[0][-1]))
        return env.seating.state["rng"]

    first = drawn_in_play(1)
    assert [name for name in first if name.startswith("dice:2:")]  # round 2's roll at least
    assert drawn_in_play(1) == first != drawn_in_play(2)
