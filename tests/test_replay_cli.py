"""``matchlog replay``: an auditor holding only an exported log re-runs the match and re-scores it."""

from __future__ import annotations

import json
import random

import pytest

from service.cli import main
from tests.helpers import create, play_random_game, run_jobs


@pytest.fixture
def finished_log(client, fake_redis, settings, tmp_path):
    match_id, tokens = create(client)
    play_random_game(client, match_id, tokens, random.Random(4))
    client.post(f"/v1/matches/{match_id}/score")
    run_jobs(fake_redis, settings)
    return client.get(f"/v1/matches/{match_id}/events?limit=1000").json


def run(capsys, tmp_path, log, *extra):
    path = tmp_path / "events.json"
    path.write_text(json.dumps(log))
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(path), *extra])
    captured = capsys.readouterr()
    return exit_.value.code, captured.out, captured.err


def test_replay_confirms_seed_and_recorded_result(finished_log, capsys, tmp_path):
    assert finished_log["events"][-1]["type"] == "match_scored"
    code, out, _ = run(capsys, tmp_path, finished_log)
    report = json.loads(out)
    assert code == 0
    assert report["status"] == "finished" and report["seed_verified"] and report["recorded_result_matches"]
    assert report["scores"]["scores"] == finished_log["events"][-1]["data"]["scores"]


def test_replay_flags_a_tampered_result(finished_log, capsys, tmp_path):
    finished_log["events"][-1]["data"]["scores"][0] += 1
    code, out, _ = run(capsys, tmp_path, finished_log)
    assert code == 1 and json.loads(out)["recorded_result_matches"] is False


def test_replay_refuses_a_seed_that_breaks_the_commitment(finished_log, capsys, tmp_path):
    code, _, err = run(capsys, tmp_path, finished_log, "--seed", "not-the-seed")
    assert code == 2 and "commitment" in err
