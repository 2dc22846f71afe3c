"""Parity of the faces with the server (issue 44, point 3): every recorded log of ``tests/fixtures/logs`` and a
random server match of every game and mode replay through the OpenSpiel face and the PettingZoo face with
the server's legal set at every decision (the same actions, token by token) and the server's final scores.

The server's side is the log folded by ``service.domain.replay`` (the state at each version and its
``legal_actions``); the faces reach their states only through the tokens they offer. Which action a
seat took is found by playing the server's legal actions until one gives the log's next state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.domain import replay
from service.domain.chain import Recorded
from service.faces import openspiel, pettingzoo
from service.faces.codec import WAIT, continuations
from service.faces.table import Table, modes, packaged, player_counts
from service.games import GAMES
from tests.engines import bot_match_log

LOGS = sorted((Path(__file__).parents[1] / "fixtures" / "logs").glob("*.json"))
MODES = [(game_id, mode) for game_id, game in packaged().items() for mode in modes(game)]


def server_states(entries: list[Recorded]) -> list[replay.MatchState]:
    """The match at each version (index = version - 1), as the server folds it."""
    revealed = next(e for e in entries if e.type == "seed_revealed").data
    state = replay.start(entries[0], revealed["seed"], revealed.get("salt"))
    states = [state]
    for entry in entries[1:]:
        state = replay.advance(state, entry)
        states.append(state)
    return states


def replay_through_faces(entries: list[Recorded]) -> int:
    """Replays a log through both faces, checking parity at each decision; returns the actions replayed."""
    created = entries[0].data
    game_id, options, players = created["game"], created["options"], len(created["players"])
    game = GAMES[game_id]
    seed = next(e for e in entries if e.type == "seed_revealed").data["seed"]
    states = server_states(entries)
    table = Table.of_match(game_id, options, players)
    assert table.resolved == options

    spiel_game = openspiel.MatchlogGame(
        table.game_id, table.mode, {"players": players, "options": json.dumps(table.options)}
    )
    spiel = spiel_game.new_initial_state()
    spiel.deal(seed)
    env = pettingzoo.MatchlogEnv(table)
    env.reset(options={"match_seed": seed})
    wait = table.vocabulary.id_of(WAIT)

    version, actions = 1, 0
    while not game.is_over(states[version - 1].game):
        server = states[version - 1]
        if entries[version].type not in game.event_types:  # the shell's own entry (a seat joined...)
            version += 1
            continue
        for face in (spiel.seating, env.seating):
            assert face.state == server.game, f"the faces' state is not the server's at version {version}"
            assert face.acting() == sorted(s for s in server.to_act() if server.legal_actions(s))
        encoded = {
            seat: sorted({tuple(table.vocabulary.ids(a)) for a in server.legal_actions(seat)})
            for seat in server.to_act()
        }
        for seat, listed in encoded.items():
            assert spiel.seating.encoded(seat) == listed, (
                f"another legal set than the server's at version {version}"
            )

        seat, action, played = find_action(game, server, states, version, entries[version].seat)
        while True:
            server_tokens = continuations(encoded[seat], spiel.seating.spelled(seat))
            for face_tokens in (spiel.legal_actions(seat), env_tokens(env, seat, wait)):
                assert [t for t in face_tokens if t != wait] == server_tokens, (
                    f"another token set at version {version}"
                )
            token = spiel.seating.next_pick(seat, action)
            apply_spiel(spiel, seat, token, wait)
            env.step(token)
            if not spiel.seating.choices[seat]:  # the action is played
                break
        assert spiel.seating.actions[-1] == env.seating.actions[-1] == (seat, action)
        version += len(played)
        actions += 1
        for face in (spiel.seating, env.seating):
            assert face.state == states[version - 1].game

    final = states[-1]
    assert spiel.is_terminal() and env.terminations[env.agents[0]]
    for face in (spiel.seating, env.seating):
        assert face.scores() == game.scores(final.game)
        assert face.scores()["scores"] == replay.result(final)["scores"]
    return actions


def find_action(game, server, states, version: int, first_seat):
    """The seat and legal action whose play gives the log's next state, and its events."""
    seats = sorted(server.to_act(), key=lambda s: s != first_seat)
    for seat in seats:
        for action in server.legal_actions(seat):
            played = game.play(server.game, seat, action)
            after = version - 1 + len(played)
            if len(played) and after < len(states) and played.states[-1] == states[after].game:
                return seat, action, played
    raise AssertionError(f"no legal action gives the log's state at version {version + 1}")


def env_tokens(env, seat: int, wait: int) -> list[int]:
    while env.agent_selection != f"seat_{seat}":
        env.step(wait)
    return [int(t) for t in env.observe(f"seat_{seat}")["action_mask"].nonzero()[0]]


def apply_spiel(spiel, seat: int, token: int, wait: int) -> None:
    if spiel.current_player() == -2:  # pyspiel.PlayerId.SIMULTANEOUS: the others wait meanwhile
        spiel.apply_actions([token if s == seat else wait for s in range(spiel.num_players())])
    else:
        assert spiel.current_player() == seat
        spiel.apply_action(token)


@pytest.mark.parametrize("path", LOGS, ids=[p.stem for p in LOGS])
def test_a_recorded_log_replays_through_both_faces_with_the_servers_legal_sets_and_scores(path):
    entries = [Recorded.from_dict(e) for e in json.loads(path.read_text())["events"]]
    assert replay_through_faces(entries) > 0


@pytest.mark.slow
@pytest.mark.parametrize(("game_id", "mode"), MODES, ids=[f"{g}-{m}" for g, m in MODES])
def test_a_random_server_match_replays_through_both_faces_with_the_servers_legal_sets_and_scores(
    game_id, mode
):
    options = modes(GAMES[game_id])[mode]
    players = player_counts(GAMES[game_id], options)[0]  # the fewest seats: the shortest match
    entries = bot_match_log(game_id, ["random"] * players, seed=f"faces-{game_id}-{mode}", **options)
    assert replay_through_faces(entries) > 0
