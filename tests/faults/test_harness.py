"""The harness's own machinery, without a cluster: what a fault restarts stays up after the fault's thread."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from types import SimpleNamespace
from typing import Any

import pytest

from service import processes
from tests.faults import harness


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux's")
def test_a_worker_restarted_in_two_faults_at_once_outlives_their_threads(monkeypatch):
    """``two_at_once`` runs its two faults in threads; a worker that ``kill_worker`` started again from one
    was sent SIGTERM when that thread ended (the parent-death signal follows the thread), and the run went
    on with one rule worker (found in a 20-round run's ``diagnostics.json``)."""
    started: list[subprocess.Popen] = []

    class Stack:
        cluster = SimpleNamespace(master_ports=lambda: [7000, 7001])
        workers = [None]

        def kill_worker(self, index: int) -> None:
            pass

        def start_worker(self, index: int) -> None:
            started.append(processes.start([sys.executable, "-c", "import time; time.sleep(60)"]))

    monkeypatch.setattr(harness, "PAIRABLE", ("kill_worker", "partition"))
    monkeypatch.setattr(harness.Faults, "partition", lambda self, port: {"node": port})
    history = SimpleNamespace(now=time.monotonic, add=lambda record: None)
    faults = harness.Faults(Stack(), random.Random(1), history)  # type: ignore[arg-type]
    record: dict[str, Any] = faults.run(1, "two_at_once")
    try:
        assert record["kinds"] == ["kill_worker", "partition"] or record["kinds"] == [
            "partition",
            "kill_worker",
        ]
        [worker] = started
        with pytest.raises(subprocess.TimeoutExpired):
            worker.wait(timeout=3)  # still running, its fault's thread long gone
    finally:
        processes.stop(*started, timeout=5)
