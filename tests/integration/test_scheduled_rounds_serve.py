"""Rounds started by a tournament's schedule on a real ``matchlog serve`` (its API, its worker's rule loop and
its embedded Redis): a Swiss whose first round is due a few seconds after it is created starts it with no call
of its organiser, and its second a pause after the first round's last result; the log says the schedule
started both, and audits."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from service.domain import tournaments as rules
from service.domain.chain import Recorded
from tests.http.test_openapi_components_typed import fits
from tests.integration.test_serve import Http, free_port, serve_env, start_serve, stop_serve

pytestmark = pytest.mark.slow

WAIT_S = 60  # a bound against a hang on a loaded machine, not a measure
SETTINGS = {"MATCHLOG_RATE_LIMIT_PER_TOKEN": "off", "MATCHLOG_RATE_LIMIT_READS_PER_ADDRESS": "off"}


def round_started(http: Http, url: str, key: str, number: int) -> dict[str, Any]:
    """The tournament as its organiser reads it once round ``number`` has started, which it never asks for."""
    deadline = time.monotonic() + WAIT_S
    while True:
        status, read = http("GET", url, token=key)
        assert status == 200, read
        if read["current_round"] is not None and read["current_round"]["number"] == number:
            return fits("Tournament", read)
        assert time.monotonic() < deadline, f"round {number} never started: {read}"
        time.sleep(0.2)


def test_a_scheduled_swiss_starts_its_rounds_by_itself() -> None:
    folder = tempfile.mkdtemp(prefix="mlt-", dir="/tmp")
    process, http = start_serve(folder, free_port(), **SETTINGS)
    try:
        made = subprocess.run(
            [sys.executable, "-m", "service.cli", "keys", "create", "club", "--data", folder],
            env=serve_env(**SETTINGS),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert made.returncode == 0, made.stdout + made.stderr
        key = json.loads(made.stdout.splitlines()[-1])["key"]
        starts = (datetime.now(UTC) + timedelta(seconds=3)).isoformat(timespec="seconds")
        body = {"name": "Cup", "kind": "swiss", "game": "block-block", "rounds": 2}
        status, tournament = http(
            "POST", "/v1/tournaments", {**body, "starts_at": starts, "round_interval": 1}, key
        )
        assert status == 201, tournament
        assert tournament["next_round_at"] == tournament["starts_at"]
        url = f"/v1/tournaments/{tournament['id']}"
        for player in ("u-ann", "u-bob", "u-cat", "u-dan"):  # late, a player enters the round after
            assert http("POST", f"{url}/players", {"player": player}, key)[0] == 201
        for number in (1, 2):
            read = round_started(http, url, key, number)
            assert read["next_round_at"] is None and read["current_round"]["matches"]  # its games run
            for match in read["current_round"]["matches"]:
                token = match["seats"][1]["token"]
                assert http("POST", f"/v1/matches/{match['match']}/concede", None, token)[0] == 201
        deadline = time.monotonic() + WAIT_S
        while (read := http("GET", url, token=key)[1])["status"] != "finished":
            assert time.monotonic() < deadline, read
            time.sleep(0.2)
        status, log = http("GET", f"{url}/log?limit=1000")
        entries = [Recorded.from_dict(e) for e in fits("TournamentLog", log)["entries"]]
        starts_by = [e.data.get("started_by") for e in entries if e.type == "round_started"]
        assert starts_by == ["schedule", "schedule"]
        assert rules.audit(entries).rounds == 2
    finally:
        stop_serve(process)
        shutil.rmtree(folder, ignore_errors=True)
