"""OpenSpiel's MCTS bot, searching on matchlog's OpenSpiel face, plays a seat of a match on a running server over
the HTTP API, as any client does: it reads the other seats' moves from the match's events and posts its own.
Run it from a checkout with the ai extra (``pip install -e '.[ai]'``). Usage:

    python examples/mcts_player.py http://127.0.0.1:8000 [--game blokus] [--options '{"variant": "duo"}']
        [--opponent random] [--simulations 100] [--seed 1]
    python examples/mcts_player.py http://127.0.0.1:8000 --match MATCH_ID --token SEAT_TOKEN [--simulations 100]

The first creates a two-seat match, the MCTS player (``mcts``) in seat 0 and the server's bot ``--opponent``
in seat 1, with a seed it names (``seed_known_to_creator``: the face starts where the match does); the second
plays the seat of that token in a match someone made (against a person, say; ``--match-seed`` gives its seed
when its creator named one). Each
decision on the face is a token of the action (``service.faces.codec``), and MCTS searches each with
``--simulations`` simulations of one random rollout; a finished action is posted. The games it plays are
those without chance (Blokus, BLOCK.BLOCK): it searches on the face's state, which must be the server's (it
checks at the start), and in a game with chance the seed, which decides what comes, is the server's secret.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

# the checkout's own service package, whichever matchlog the interpreter has installed (if any)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from open_spiel.python.algorithms import mcts
from random_player import call  # the standard-library client beside this file: one HTTP call, one place

from service.faces import logs, openspiel
from service.faces.table import Table

POLL_S = 0.2
"""How long it waits before asking again whether the other seats have moved."""


def searcher(game: Any, simulations: int, seed: int) -> mcts.MCTSBot:
    rollouts = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    return mcts.MCTSBot(
        game,
        uct_c=2,
        max_simulations=simulations,
        evaluator=rollouts,
        random_state=np.random.RandomState(seed),
    )


def play(
    base: str, match_id: str, token: str, simulations: int, seed: int, match_seed: str | None
) -> dict[str, Any]:
    """Plays the token's seat to the end of the match (whose seed is ``match_seed``, if its creator knows
    it); returns the match as the server has it then."""
    match = call(base, "GET", f"/v1/matches/{match_id}")
    seat = call(base, "GET", f"/v1/matches/{match_id}/legal-actions", token=token)["seat"]
    table = Table.of_match(match["game"], match["options"], len(match["players"]))
    state = openspiel.game_of(table).new_initial_state()
    if match_seed is not None:
        state.deal(match_seed)
    served = call(base, "GET", f"/v1/matches/{match_id}/state?version=1", token=token)["state"]
    if json.loads(json.dumps(table.game.view(state.seating.state, seat))) != served:
        raise SystemExit(
            f"{match['game']} with these options is set up from its seed: give the match's (--match-seed)"
        )
    bot = searcher(state.get_game(), simulations, seed)
    known = 1
    while True:
        match = call(base, "GET", f"/v1/matches/{match_id}")
        # the events after the match: all that led to it, so that a match over is over on the face too
        answer = call(base, "GET", f"/v1/matches/{match_id}/events?after={known}&limit=1000", token=token)
        played = [e for e in answer["events"] if e["type"] in table.game.event_types]
        for other, action in logs.actions_of(table, state.seating.state, played)[0]:
            state.play(other, action)  # the other seats' moves, spelled into the face's tokens
        known = answer["version"]
        if match["status"] in ("finished", "aborted"):
            return scored(base, match_id, state.scores()["scores"] if state.is_terminal() else None)
        if seat not in match["to_act"] or match["version"] != known:
            time.sleep(POLL_S)
            continue
        if state.current_player() != seat:
            raise SystemExit(
                f"the face lost the match at version {known}: it has seat {state.current_player()} act"
            )
        before = len(state.seating.actions)
        while len(state.seating.actions) == before:  # the action's tokens, one search each
            state.apply_action(bot.step(state))
        _, action = state.seating.actions[-1]
        posted = call(
            base,
            "POST",
            f"/v1/matches/{match_id}/actions",
            {"expected_version": known, "action": action},
            token=token,
        )
        known = posted["version"]


def scored(base: str, match_id: str, searched: list[Any] | None, wait_s: float = 60) -> dict[str, Any]:
    """The match once the server's worker has recorded its result (or after ``wait_s``), which must be the
    face's where the game ended on it (not where a seat conceded): the same engine played the same moves."""
    deadline = time.monotonic() + wait_s
    while True:
        match = call(base, "GET", f"/v1/matches/{match_id}")
        if "result" in match or match["status"] == "aborted" or time.monotonic() > deadline:
            break
        time.sleep(POLL_S)
    if "result" in match and searched is not None and match["result"]["scores"] != searched:
        raise SystemExit(f"the server scored {match['result']['scores']}, the face {searched}")
    return match


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("server")
    parser.add_argument("--game", default="blokus")
    parser.add_argument("--options", default='{"variant": "duo"}', help="the match's options, as JSON")
    parser.add_argument("--opponent", default="random", help="the server bot in seat 1")
    parser.add_argument("--match", help="play a seat of this match instead of creating one...")
    parser.add_argument("--token", help="... the seat of this token")
    parser.add_argument("--match-seed", help="... whose seed is this (a match with seed_known_to_creator)")
    parser.add_argument("--simulations", type=int, default=100, help="MCTS simulations per decision")
    parser.add_argument("--seed", type=int, default=1, help="the search's random seed")
    args = parser.parse_args()
    base = args.server.rstrip("/")
    if args.match and args.token:
        match_id, token, match_seed = args.match, args.token, args.match_seed
    else:
        # the seed named, so that the face starts where the match does: a game's seed may set it up (which
        # seat has which colour in BLOCK.BLOCK) even where nothing is left to chance after
        match_seed = f"mcts-example-{args.seed}"
        created = call(
            base,
            "POST",
            "/v1/matches",
            {
                "game": args.game,
                "players": [{"name": "mcts"}, {"bot": args.opponent}],
                "options": json.loads(args.options),
                "seed": match_seed,
                "seed_known_to_creator": True,
                "public": False,
            },
        )
        match_id, token = created["id"], created["seats"][0]["token"]
        print(f"match {match_id}: mcts (seat 0) against the server's {args.opponent} bot (seat 1)")
    match = play(base, match_id, token, args.simulations, args.seed, match_seed)
    if match["status"] == "aborted":
        print(f"aborted at version {match['version']}")
        return
    scores = (match.get("result") or {}).get("scores")
    names = [p["name"] for p in match["players"]]
    print(
        f"finished at version {match['version']}: "
        + ", ".join(f"{n} (seat {i})" for i, n in enumerate(names))
    )
    print(f"scores: {scores}, ranks: {match['result']['ranks']}" if scores else "not scored yet")


if __name__ == "__main__":
    main()
