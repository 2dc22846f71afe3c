"""Players meet: the pure decisions of seek pools and tournaments (issue 43).

Plain data in, plain data out, no clock, no Redis and no global randomness: every function here is a
decision a tournament's or a pool's log can be replayed through (``matchlog replay``), so given the same
inputs and the same seed it gives the same pairings, brackets and standings on every machine. Where a
choice between equals is needed the order comes from ``order.tiebreak_key`` (SHA-256 of the seed and the
player id), never from ``random``. The algorithms are described in docs/reference/pairing.md.
"""
