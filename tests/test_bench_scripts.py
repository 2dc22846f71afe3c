"""The API benchmark's scripts are real matches: created with their seed, every scripted action is
accepted at exactly the version the script expects (so the benchmark measures accepted actions)."""

from __future__ import annotations

import random

import pytest

from service.games import GAMES
from tests.bench.games import BENCHMARKS
from tests.helpers import act


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_scripted_match_replays_over_http(client, game_id):
    body, script = BENCHMARKS[game_id].scripted_match(random.Random(game_id))
    created = client.post("/v1/matches", json=body)
    assert created.status_code == 201, created.json
    match_id, tokens = created.json["id"], [s["token"] for s in created.json["seats"]]
    version = 1
    for seat, action, after in script:
        answer = act(client, match_id, tokens[seat], version, action)
        assert answer.status_code == 201 and answer.json["version"] == after, answer.json
        version = after
    assert client.get(f"/v1/matches/{match_id}").json["status"] == "finished"
