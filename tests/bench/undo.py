"""What judging an undo request costs: ``python -m tests.bench.undo [matches]``.

A person plays random legal moves against bots, with ``undo: until_next_action``, through the pure steps
the server stores (``service.domain.lifecycle``, every state kept, so no Redis load is counted); before each of
its moves that it could still take back, it asks for an undo (``lifecycle.undo``, the answer thrown away).
Prints the CPU time of those requests per game (``time.process_time``: the machine may be shared), the
versions each would take back, and, as the last line, one JSON object with every figure."""

from __future__ import annotations

import contextlib
import json
import random
import sys
import time

from service.domain import lifecycle, replay
from service.games import GAMES
from service.games.protocol import IllegalAction
from service.store import packs
from tests.bench.common import Figure, json_figures, machine, table

AT = "2026-01-01T00:00:00.000Z"
CASES = [  # (key, game, bots per seat, options)
    ("chock_a_block_2p_greedy", "chock-a-block", [None, "greedy"], {"last_draw_placement": 0}),
    ("chock_a_block_4p_random", "chock-a-block", [None, "random", "random", "random"], {}),
    ("blackout_2p_random", "blackout-hong-kong", [None, "random"], {}),
    ("blackout_4p_random", "blackout-hong-kong", [None, "random", "random", "random"], {}),
    ("blokus_2p_random", "blokus", [None, "random"], {}),
]


def undo_requests(
    game_id: str, bots: list[str | None], options: dict, matches: int
) -> tuple[int, float, float]:
    """(requests judged, CPU seconds they took, versions they would take back) over ``matches`` matches."""
    game, requests, cpu, versions = GAMES[game_id], 0, 0.0, 0
    for number in range(matches):
        secret, rng = lifecycle.SeedSecret(f"bench-undo-{number}", "salt"), random.Random(number)
        resolved = lifecycle.check_options(game_id, options, len(bots))
        names = [f"p{i}" for i in range(len(bots))]
        content = packs.content_for(game, resolved)
        step = lifecycle.begin(
            game_id, resolved, names, secret, AT, content, bots=bots, undo="until_next_action"
        )
        states, state = {s.version: s for s in step.states}, step.state
        for _ in range(200):
            if state.finished:
                break
            seat = state.to_act()[0]
            if bots[seat]:
                action, by = lifecycle.bot_action(state, seat, secret), replay.by_bot(bots[seat])
            else:
                last = state.last_action
                if last is not None and last["seat"] == seat:
                    started = time.process_time()
                    with contextlib.suppress(IllegalAction):  # only its cost is wanted
                        lifecycle.undo(state, seat, AT, states.__getitem__)
                    cpu += time.process_time() - started
                    requests += 1
                    versions += state.version - last["before"]
                action, by = rng.choice(state.legal_actions(seat)), None
            moved = lifecycle.act(state, seat, action, secret, AT, by)
            states.update({s.version: s for s in moved.states})
            state = moved.state
    return requests, cpu, versions / max(requests, 1)


def main(matches: int) -> None:
    figures = machine()
    for key, game_id, bots, options in CASES:
        requests, cpu, versions = undo_requests(game_id, bots, options, matches)
        figures += [
            Figure(f"undo.{key}.requests", f"{key}: undo requests", requests),
            Figure(f"undo.{key}.cpu_ms", f"{key}: CPU per request", 1000 * cpu / max(requests, 1), "ms"),
            Figure(f"undo.{key}.versions", f"{key}: versions taken back", versions),
        ]
    print(table(figures))
    print(json.dumps(json_figures(figures)))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 6)
