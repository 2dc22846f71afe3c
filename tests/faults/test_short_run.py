"""The fault harness's short run in CI: a real cluster, two API processes, two workers, a webhook and client
threads through 3 fault rounds of a fixed seed, and no anomaly of the logs, the answers or the states in the
history (``python -m tests.faults`` runs it longer)."""

from __future__ import annotations

import pytest

from tests.faults.checker import KINDS
from tests.faults.harness import Options, run, schedule

pytestmark = [pytest.mark.redis, pytest.mark.slow]

SEED = 9
"""Its rounds: a master killed and a worker killed at once, a master killed, a master paused past the node
timeout (where a WAIT cut short was a 500)."""

OPEN = ("delivery_order", "projection_behind", "delivery_missing")
"""Still open (docs/operations/faults.md#what-is-still-open): a webhook delivery's ``previous_version`` when
a worker's notices change hands, and the workers' catching up once the faults stop, which on a machine
busy with the rest of the suite may take longer than the run settles for (late, not wrong: the report's
figures count it; a pool's ratings that wait for a game not scored yet are behind too). Counted and
printed, not failed on; every other kind of the logs, the answers, the ratings and the analyses must be
none."""


def test_three_fault_rounds_leave_no_anomaly(tmp_path):
    assert schedule(3, SEED) == ["two_at_once", "kill_master", "pause_master"]
    summary = run(
        Options(rounds=3, seed=SEED, clients=4, folder=tmp_path, time_limit_s=60, settle_s=30), tell=print
    )
    assert summary["rounds"] == 3
    assert summary["operations"]["actions_acknowledged"] > 50, summary["operations"]
    print({kind: summary["anomalies"][kind] for kind in OPEN})
    found = {kind: n for kind, n in summary["anomalies"].items() if n and kind not in OPEN}
    assert not found, summary["anomaly_examples"]
    assert set(OPEN) < set(KINDS)
    assert not summary["client_errors"], summary["client_errors"]
