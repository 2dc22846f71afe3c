"""Engine-level helpers shared by the game tests and benchmarks: a game with no server."""

from __future__ import annotations

import random
from collections.abc import Callable

from service.store import packs


def new_state(game, players: int, seed: str = "test", **options):
    """The state at version 1 of a match of ``game`` with these options (its default pack, if any)."""
    resolved = game.resolve_options(options, players)
    return game.setup(resolved, players, seed, packs.content_for(game, resolved))


def begun(game, seed: str, at: str = "2026-01-01T00:00:00.000Z"):
    """A match of ``game`` for its most players, default options, begun by the server's pure step
    (``lifecycle.begin``): that first step and the match's secret (``seed``, salt ``salt``)."""
    from service.domain import lifecycle

    players = max(game.info.counts())
    resolved = lifecycle.check_options(game.info.id, {}, players)
    secret = lifecycle.SeedSecret(seed, "salt")
    names = [f"p{i}" for i in range(players)]
    return lifecycle.begin(
        game.info.id, resolved, names, secret, at, packs.content_for(game, resolved)
    ), secret


def play(game, state, seat: int, action: dict):
    """The state after ``seat`` plays ``action`` (IllegalAction if the rules refuse it)."""
    played = game.play(state, seat, action)
    return played.states[-1] if played else state


def random_playout(
    game,
    state,
    rng: random.Random,
    on_move: Callable | None = None,
    max_moves: int | None = None,
    until: Callable | None = None,
):
    """Random legal moves by the seat to act until the game is over, ``max_moves`` are played or
    ``until(state)`` holds; returns the last state. ``on_move(state, seat, action, played)`` sees
    each move before the state moves on."""
    moves = 0
    while (
        not game.is_over(state) and (max_moves is None or moves < max_moves) and not (until and until(state))
    ):
        seat = game.to_act(state)[0]
        action = rng.choice(game.legal_actions(state, seat))
        played = game.play(state, seat, action)
        if on_move:
            on_move(state, seat, action, played)
        state = played.states[-1] if played else state
        moves += 1
    return state


def bot_match_log(game_id: str, bots: list[str], seed: str = "analysis", **options) -> list:
    """A whole log (``Recorded`` entries, ``seed_revealed`` included) of a match every seat of which a bot
    plays, made with the server's own pure steps (``service.domain.lifecycle``): no Redis, no API."""
    from service.domain import lifecycle, replay
    from service.games import GAMES

    game = GAMES[game_id]
    resolved = lifecycle.check_options(game_id, options, len(bots))
    secret = lifecycle.SeedSecret(seed, "salt-" + seed)
    at = "2026-11-27T12:00:00.000Z"
    step = lifecycle.begin(
        game_id,
        resolved,
        [f"{bot} bot" for bot in bots],
        secret,
        at,
        packs.content_for(game, resolved),
        bots=bots,
    )
    entries = list(step.entries)
    while not step.state.finished:
        seat = step.state.to_act()[0]
        action = lifecycle.bot_action(step.state, seat, secret)
        step = lifecycle.act(step.state, seat, action, secret, at, by=replay.by_bot(bots[seat]))
        entries += step.entries
    return entries
