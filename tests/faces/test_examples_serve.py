"""The faces' examples against a real ``matchlog serve``: ``examples/mcts_player.py`` plays OpenSpiel's MCTS on
the OpenSpiel face as an ordinary seat against a server bot, to the end, with the server's own scores (issue
44, point 4); ``examples/open_data.py`` loads the server's open-data export into the OpenSpiel face, each log
replayed to the server's scores (point 6)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from service.games import GAMES
from tests.bench.api import free_port
from tests.integration.test_serve import start_serve, stop_serve

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[2]
RUN_BOUND_S = 600
"""A bound against a hang, not a measure."""


@pytest.fixture(scope="module")
def served():
    folder = tempfile.mkdtemp(prefix="mlx-", dir="/tmp")
    port = free_port()
    process, http = start_serve(folder, port)
    yield f"http://127.0.0.1:{port}", http
    stop_serve(process)
    shutil.rmtree(folder, ignore_errors=True)


def run_example(name: str, *args: str) -> str:
    """The example's output; it must succeed. Its ``service`` is this checkout's."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), *args],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=RUN_BOUND_S,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def scored(http, match_id: str) -> dict:
    deadline = time.monotonic() + RUN_BOUND_S
    while True:
        match = http("GET", f"/v1/matches/{match_id}")[1]
        if "result" in match:
            return match
        assert time.monotonic() < deadline, f"match {match_id} was never scored"
        time.sleep(0.2)


def test_mcts_on_the_openspiel_face_plays_a_seat_against_a_server_bot_to_the_end(served):
    base, http = served
    out = run_example(
        "mcts_player.py", base, "--game", "block-block", "--options", "{}", "--simulations", "3"
    )
    first, *rest = out.splitlines()
    match_id = first.split()[1].rstrip(":")
    match = scored(http, match_id)
    assert match["status"] == "finished" and match["to_act"] == []
    assert [p.get("bot") for p in match["players"]] == [None, "random"]
    log = http("GET", f"/v1/matches/{match_id}/events?limit=1000")[1]["events"]
    moved = {e["seat"] for e in log if e["type"] in GAMES["block-block"].event_types}
    by_bot = {e["seat"] for e in log if e["type"] == "acted_by"}
    assert by_bot == {1} and 0 in moved, "seat 0's moves are the example's, posted as a person's"
    assert rest == [
        f"finished at version {match['version']}: mcts (seat 0), random bot (seat 1)",
        f"scores: {match['result']['scores']}, ranks: {match['result']['ranks']}",
    ]


def test_the_open_data_export_loads_into_the_openspiel_face(served):
    base, http = served
    made = []
    for body in (
        {"game": "blokus", "options": {"variant": "duo"}},
        {"game": "chock-a-block"},
        {"game": "block-block"},
    ):
        status, created = http("POST", "/v1/matches", {**body, "players": [{"bot": "random"}] * 2})
        assert status == 201, created
        made.append(created["id"])
    matches = {match_id: scored(http, match_id) for match_id in made}
    out = run_example("open_data.py", base, "--limit", "20")
    lines = {line.split()[0]: line for line in out.splitlines()}
    for match_id, match in matches.items():
        assert lines[match_id].endswith(f"scores {match['result']['scores']} (the server's)"), lines[match_id]
