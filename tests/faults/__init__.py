"""The fault harness: real processes on loopback, clients playing every game, faults on a schedule drawn
from a seed, every request and answer recorded, and the history checked (``checker``).

    python -m tests.faults --rounds 10 --seed 7 [--durability replicated|local]

See ``harness`` for what it starts and ``docs/operations/faults.md`` for what it found.
"""
