"""Benchmarks: ``python -m tests.bench [GAME] [--no-api] [--seconds S]``.

Not a test suite: nothing here is collected by pytest (no file starts with ``test_``). The engine
benchmarks of each game are registered in ``tests.bench.games.BENCHMARKS``; the API benchmark
(``tests.bench.api``) replays games precomputed with the engine against a real server.
"""
