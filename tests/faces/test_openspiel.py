"""The OpenSpiel face (``service.faces.openspiel``): every game and mode registered with what the catalogue
declares, OpenSpiel's own consistency checks, serialisation, and observations that hold the seat's view and
nothing else."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import numpy as np
import pyspiel
import pytest

from service.faces import openspiel
from service.faces.table import (
    INFORMATION_STATE_BYTES,
    OBSERVATION_BYTES,
    Table,
    drawing,
    modes,
    packaged,
    player_counts,
)
from service.games import GAMES

MODES = [(game_id, mode) for game_id, game in packaged().items() for mode in modes(game)]
NAMES = [f"matchlog_{game_id.replace('-', '_')}_{mode}" for game_id, mode in MODES]


def fewest(name: str):
    """The game with its fewest seats: the shortest games."""
    return pyspiel.load_game(name, {"players": pyspiel.load_game(name).get_type().min_num_players})


def random_state(game, decisions: int, rng: random.Random):
    """A state after chance's draws and ``decisions`` random decisions of the seats (or at the end)."""
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(rng.choice(state.legal_actions()))
    for _ in range(decisions):
        if state.is_terminal():
            break
        if state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(game.num_players())])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_every_game_and_mode_is_registered():
    assert openspiel.NAMES == NAMES
    assert set(NAMES) <= set(pyspiel.registered_names())


@pytest.mark.parametrize(("game_id", "mode"), MODES, ids=NAMES)
def test_the_game_type_declares_what_the_catalogue_declares(game_id, mode):
    info, kind = (
        GAMES[game_id].info,
        pyspiel.load_game(f"matchlog_{game_id.replace('-', '_')}_{mode}").get_type(),
    )
    simultaneous = info.dynamics == "simultaneous"
    assert (kind.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS) == simultaneous
    assert (kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC) == info.chance
    imperfect = kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert imperfect == (info.hidden_information or simultaneous)
    counts = player_counts(GAMES[game_id], modes(GAMES[game_id])[mode])
    assert (kind.min_num_players, kind.max_num_players) == (min(counts), max(counts))
    expected = {
        ("chock-a-block", "coop"): pyspiel.GameType.Utility.IDENTICAL,
        ("blackout-hong-kong", "campaign"): pyspiel.GameType.Utility.GENERAL_SUM,
        ("blokus", "solo_all_pieces"): pyspiel.GameType.Utility.GENERAL_SUM,
        ("blokus", "solo_rectangle"): pyspiel.GameType.Utility.GENERAL_SUM,
        ("chock-a-block", "solo"): pyspiel.GameType.Utility.GENERAL_SUM,
    }
    assert kind.utility == expected.get((game_id, mode), pyspiel.GameType.Utility.ZERO_SUM)


@pytest.mark.parametrize(
    ("game_id", "mode", "players", "options", "names"),
    [
        ("chock-a-block", "standard", 3, {}, ["deck", "tiles", "start"]),
        (
            "chock-a-block",
            "autoblock_extra",
            2,
            {"autoblock_excluded_feature_choice": "RANDOM"},
            ["deck", "tiles", "start", "excluded"],
        ),
        ("chock-a-block", "solo", 1, {}, ["deck", "tiles"]),
        ("blackout-hong-kong", "single", 2, {}, ["tiles", "objectives", "volunteers", "emergency", "start"]),
        (
            "blackout-hong-kong",
            "campaign",
            3,
            {"START_SEAT": 1},
            ["tiles", "objectives", "volunteers", "emergency"],
        ),
    ],
)
def test_setup_is_drawn_one_item_at_a_time(game_id, mode, players, options, names):
    """Setup's chance (Chock-a-Block's deck, tile pile, start seat and excluded feature; Blackout's tiles,
    objective cards, volunteers, emergency plans and start seat) is drawn as chance decisions with their own
    probabilities (an item among those not drawn yet, all equally likely), and drawing what a seed draws
    deals that seed's game (Blackout's without the key of play's draws: those are chance decisions too)."""
    game = pyspiel.load_game(
        f"matchlog_{game_id.replace('-', '_')}_{mode}", {"players": players, "options": json.dumps(options)}
    )
    table, engine = game.table, GAMES[game_id]
    assert [draw.name for draw in table.setup_draws] == names
    assert game.max_chance_outcomes() == max(len(draw.items) for draw in table.setup_draws)
    seed = "drawn one by one"
    drawn = engine.setup_chance.drawn(table.resolved, players, table.content, seed)
    state = game.new_initial_state()
    decisions = 0
    for draw in table.setup_draws:
        items = drawn[draw.name][:-1] if draw.shuffle else [drawn[draw.name]]
        for k, item in enumerate(items):
            left = len(draw.items) - k if draw.shuffle else len(draw.items)
            assert state.is_chance_node()
            outcomes = state.chance_outcomes()
            assert len(outcomes) == left and {p for _, p in outcomes} == {1 / left}
            assert (
                state.action_to_string(pyspiel.PlayerId.CHANCE, draw.items.index(item))
                == f"{draw.name}: {item}"
            )
            state.apply_action(draw.items.index(item))
            decisions += 1
    assert not state.is_chance_node() and decisions == len(state.history())
    assert state.seating.state == table.deal_drawn({name: drawn[name] for name in names})
    assert (
        table.deal_drawn(drawn)
        == table.setup(seed)
        == engine.setup(table.resolved, players, seed, table.content)
    )


def test_a_game_with_chance_must_say_what_it_draws(monkeypatch):
    monkeypatch.setattr(type(GAMES["chock-a-block"]), "setup_chance", None)
    with pytest.raises(ValueError, match="does not say what it draws"):
        Table("chock-a-block", "standard", 2).start()


def server_picks(events: list[Any]) -> dict[str, Any]:
    """What each draw of play drew in a Blackout game, by the draw's name (``common.picked``), read from its
    events: each die of each roll of a round, each injury."""
    picks: dict[str, Any] = {}
    number = attempt = 0
    for event in events:
        data = event["data"]
        if event["type"] == "round_started":
            number, attempt = data["round"], 0
        elif event["type"] == "dice_rolled":
            picks.update(
                {f"dice:{number}:{attempt}:{colour}": data["faces"][colour] for colour in data["rerolled"]}
            )
            attempt += 1
        elif event["type"] == "injured":
            picks[f"injury:{number}:{event['seat']}"] = data["card"]
    return picks


def setup_outcome(table: Any, drawn: dict[str, Any], outcomes: list[int]) -> int:
    """The outcome of setup's chance decision now that draws what ``drawn`` drew (a seed's)."""
    done, draw, _ = drawing(table.setup_draws, outcomes)
    assert draw is not None
    before = sum(len(d.items) - 1 if d.shuffle else 1 for d in table.setup_draws if d.name in done)
    item = drawn[draw.name][len(outcomes) - before] if draw.shuffle else drawn[draw.name]
    return draw.items.index(item)


@pytest.mark.parametrize(("mode", "players"), [("single", 3), ("campaign", 2)])
def test_blackout_draws_each_roll_and_injury_as_a_chance_decision_where_it_happens(mode, players):
    """A random server game of Blackout, played again on the face with its setup drawn item by item and each
    draw of play (a die of a roll, an injury) a chance decision where the action that draws is played, each
    outcome with its probability: given the server's picks, the face makes the server's very events, and
    every draw the game made was a chance decision but those of one sure outcome (a party of one)."""
    seed = f"chance, {mode}"
    game = pyspiel.load_game(f"matchlog_blackout_hong_kong_{mode}", {"players": players})
    table, engine = game.table, GAMES["blackout-hong-kong"]
    rng, state, moves, events = random.Random(seed), table.setup(seed), [], []
    while not engine.is_over(state):
        seat = rng.choice(engine.to_act(state))
        action = rng.choice(engine.legal_actions(state, seat))
        played = engine.play(state, seat, action)
        moves.append((seat, action))
        events.extend(played)
        state = played.states[-1]
    picks = server_picks(events)
    drawn = engine.setup_chance.drawn(table.resolved, players, table.content, seed)

    face, asked, left = game.new_initial_state(), [], iter(moves)
    while not face.is_terminal():
        if not face.is_chance_node():
            face.play(*next(left))
            continue
        outcomes = face.chance_outcomes()
        assert len(outcomes) > 1 and all(p > 0 for _, p in outcomes)
        assert sum(p for _, p in outcomes) == pytest.approx(1)
        assert max(o for o, _ in outcomes) < game.max_chance_outcomes()
        pending = face.seating.pending
        if pending is None:
            face.apply_action(setup_outcome(table, drawn, face.seating.draws))
            continue
        draw = pending[2]
        if not asked:  # an action waiting for its draw serialises with it
            _, again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, face))
            assert again.chance_outcomes() == outcomes and again.seating.pending == pending
        asked.append(draw.name)
        weights = draw.weights or (1,) * len(draw.items)
        assert [p for _, p in outcomes] == pytest.approx([w / sum(weights) for w in weights])
        face.apply_action(draw.items.index(picks[draw.name]))
    assert next(left, None) is None
    assert face.seating.events == events
    assert face.seating.state["rng"] == picks  # every draw of play went through chance, as the server drew it
    assert {name.split(":")[0] for name in asked} == {"dice", "injury"}
    assert set(asked) >= {name for name in picks if name.startswith("dice")}


@pytest.mark.parametrize("name", [n for n, (g, _) in zip(NAMES, MODES, strict=True) if GAMES[g].info.chance])
def test_every_chance_decision_offers_outcomes_whose_probabilities_sum_to_one(name):
    game = fewest(name)
    state, rng = game.new_initial_state(), random.Random(name)
    chances = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert outcomes and sum(p for _, p in outcomes) == pytest.approx(1)
            assert len({o for o, _ in outcomes}) == len(outcomes) and all(0 < p <= 1 for _, p in outcomes)
            state.apply_action(rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0])
            chances += 1
        elif state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(game.num_players())])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert chances >= sum(len(d.items) - 1 if d.shuffle else 1 for d in game.table.setup_draws)


@pytest.mark.no_cover  # what it runs is covered by faster tests; traced, it took 3 times as long
@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_openspiels_random_simulation_checks_pass(name):
    """One game each (OpenSpiel's own generator, the same game every run), serialised and deserialised at
    its first 10 decisions and every power of two."""
    pyspiel.random_sim_test(fewest(name), num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("name", NAMES)
def test_a_state_serialises_and_deserialises_to_itself(name):
    game = fewest(name)
    state = random_state(game, 60, random.Random(name))
    text = pyspiel.serialize_game_and_state(game, state)
    loaded, again = pyspiel.deserialize_game_and_state(text)
    assert again.history() == state.history() and str(again) == str(state)
    assert again.current_player() == state.current_player()
    if not state.is_terminal() and not state.is_simultaneous_node():
        assert again.legal_actions() == state.legal_actions()
    # the state pickles without its engine and pack: deserialised, it plays the loaded game's own table
    assert again.seating.table is loaded.table is game.table
    assert again.seating.table.game is GAMES[game.table.game_id]
    for seat in range(game.num_players()):
        assert again.observation_string(seat) == state.observation_string(seat)


@pytest.mark.parametrize("name", [n for n in NAMES if "blokus" not in n and "block_block" not in n])
def test_observations_hold_the_seats_view_and_nothing_else(name):
    """What the server would show the seat (``view``, and its log through ``event_view``), its own unfinished
    choice, and no one else's: the games with hidden information."""
    game = fewest(name)
    state = random_state(game, 80, random.Random(name))
    engine, seating = state.table.game, state.seating
    for seat in range(game.num_players()):
        seen = json.loads(state.observation_string(seat))
        assert seen == {"view": engine.view(seating.state, seat), "choice": seating.choices[seat]}
        recalled = json.loads(state.information_state_string(seat))
        assert recalled["events"] == [engine.event_view(e, seat) for e in seating.events]
        tensor = np.asarray(state.observation_tensor(seat))
        text = bytes(np.rint(tensor * 255).astype(np.uint8)).rstrip(b"\0")
        assert json.loads(text) == seen


def test_returns_follow_the_ranks_at_the_end():
    game = pyspiel.load_game("matchlog_blokus_duo")
    state = random_state(game, 10_000, random.Random(3))
    ranks = state.scores()["ranks"]
    assert state.is_terminal() and sum(state.returns()) == 0
    assert (state.returns()[0] > state.returns()[1]) == (ranks[0] < ranks[1])


@pytest.mark.parametrize("name", NAMES)
def test_every_game_gives_an_information_state_tensor_of_one_shape(name):
    """OpenSpiel's learners read ``information_state_tensor``: every game and mode gives it, the same shape
    from the first decision to the end; with hidden information, it is the information state's string."""
    game = fewest(name)
    assert game.get_type().provides_information_state_tensor
    shape = game.information_state_tensor_shape()
    hidden = GAMES[game.table.game_id].info.hidden_information
    assert shape == [INFORMATION_STATE_BYTES if hidden else OBSERVATION_BYTES]
    for decisions in (0, 60):
        state = random_state(game, decisions, random.Random(name))
        for seat in range(game.num_players()):
            tensor = np.asarray(state.information_state_tensor(seat))
            assert tensor.shape == tuple(shape)
            text = bytes(np.rint(tensor * 255).astype(np.uint8)).rstrip(b"\0").decode()
            assert text == (
                state.information_state_string(seat) if hidden else state.observation_string(seat)
            )


def _play_alike(states: list[Any], rng: random.Random, decisions: int) -> None:
    """The same decisions on every state, drawn from the first's legal ones (which must be every state's)."""
    for _ in range(decisions):
        first = states[0]
        if first.is_terminal():
            return
        if first.is_simultaneous_node():
            seats = range(first.num_players())
            assert all(s.legal_actions(p) == first.legal_actions(p) for s in states for p in seats)
            joint = [rng.choice(first.legal_actions(p)) for p in seats]
            for s in states:
                s.apply_actions(joint)
        else:
            assert all(s.legal_actions() == first.legal_actions() for s in states)
            action = rng.choice(first.legal_actions())
            for s in states:
                s.apply_action(action)


def _swap(state: Any, first: tuple[Any, ...], second: tuple[Any, ...]) -> Any:
    """A copy of an engine's state with the values at two paths (keys and indices) swapped."""
    swapped = copy.deepcopy(state)

    def slot(path: tuple[Any, ...]) -> tuple[Any, Any]:
        *inner, last = path
        holder = swapped
        for key in inner:
            holder = holder[key]
        return holder, last

    (a, i), (b, j) = slot(first), slot(second)
    a[i], b[j] = b[j], a[i]
    return swapped


def _tensors(state: Any) -> list[np.ndarray]:
    return [np.asarray(state.information_state_tensor(seat)) for seat in range(state.num_players())]


Paths = tuple[tuple[Any, ...], tuple[Any, ...]]
SWAPS: dict[str, tuple[Paths, Paths, list[bool]]] = {
    # a swap nobody sees (the deck's last two cards, drawn last), then one that only the seats marked see
    "matchlog_chock_a_block_standard": (
        (("deck", -1), ("deck", -2)),
        (("seats", 1, "hand", 0), ("deck", -1)),  # seat 1's own hand
        [False, True],
    ),
    "matchlog_blackout_hong_kong_single": (
        (("deck", -1), ("deck", -2)),
        (("market", 0, 0), ("deck", -1)),  # a deck card into the market, which every seat sees
        [True, True],
    ),
}


@pytest.mark.parametrize("name", sorted(SWAPS))
def test_the_information_state_holds_only_what_the_seat_saw(name):
    """Two histories that differ only in cards a seat cannot see give it the same information state; when
    what it sees differs, so does its information state."""
    hidden, seen, seeing = SWAPS[name]
    game = pyspiel.load_game(name, {"players": 2})
    states = [game.new_initial_state(), game.new_initial_state()]
    for state in states:
        state.deal("information-state")
    engine = states[0].seating.state
    states[1].seating.engine = _swap(engine, *hidden)
    assert states[1].seating.state != engine
    _play_alike(states, random.Random(name), 60)
    assert len(states[0].seating.actions) > 3
    after = [states[0].seating.state, states[1].seating.state]
    assert [after[0]["deck"][-2:], after[1]["deck"][-2:]] == [engine["deck"][-2:], engine["deck"][-2:][::-1]]
    assert all(np.array_equal(a, b) for a, b in zip(_tensors(states[0]), _tensors(states[1]), strict=True))
    assert [states[0].information_state_string(p) for p in range(2)] == [
        states[1].information_state_string(p) for p in range(2)
    ]

    changed = states[0].clone()
    changed.seating.engine = _swap(after[0], *seen)
    before, now = _tensors(states[0]), _tensors(changed)
    assert [not np.array_equal(a, b) for a, b in zip(before, now, strict=True)] == seeing
