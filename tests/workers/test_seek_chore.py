"""The workers' seek chore (workers/worker.py ``pair_seeks``): a tick a period until stopped, and one that
fails (Redis away, a bug met on one seek) does not end it."""

from __future__ import annotations

import threading

import redis

from workers import worker


class Ticks:
    """A seeks use case whose ticks fail twice, then count, and stop the chore at the fifth."""

    def __init__(self, stop: threading.Event):
        self.stop = stop
        self.calls = 0

    def tick(self) -> tuple[list[str], list[str]]:
        self.calls += 1
        if self.calls == 1:
            raise redis.exceptions.ConnectionError("away")
        if self.calls == 2:
            raise ValueError("a seek the tick could not read")
        if self.calls == 5:
            self.stop.set()
        return [], []


def test_the_seek_chore_ticks_until_stopped_through_failures(monkeypatch):
    monkeypatch.setattr(worker, "SEEK_TICK_S", 0.001)
    stop = threading.Event()
    ticks = Ticks(stop)
    chore = threading.Thread(target=worker.pair_seeks, args=(ticks, stop))
    chore.start()
    chore.join(timeout=60)
    assert not chore.is_alive() and ticks.calls == 5
