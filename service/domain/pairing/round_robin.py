"""Round robin: every pair meets once (the circle method), or every pod of ``k`` players meets once.

Two players: the circle method (Berger's tables). The players, in seed order, sit round a circle with the
last one fixed (a bye, ``None``, makes the count even); each round turns the others one place. In round
``r`` (from 0) the fixed player takes the first seat when ``r`` is odd, and at each other table ``i``
(1 to n/2 - 1) the player on the circle's upper half takes the first seat when ``i`` is even. So a
player's first seats and second seats differ by at most one over the whole event, byes or not (checked for
every field up to 22 by a property test; the rule that alternates the other tables by round does not).

Pods of ``k`` (3 to 5): every ``k``-subset of the players meets once (``C(n, k)`` pods: 70 for 8 players in
fours), in lexicographic order of the seeds' positions. Each pod's seat order is the one, among its ``k!``
orders, that keeps each player's count of each seat lowest (the sum of the counts so far of the seats
given, then the order of the seeds): over a full round robin every seat count of a player is within one of
its others. Rounds are then filled first-fit: a pod goes to the first round where none of its players plays
yet, so no player meets twice in a round.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from service.domain.errors import PairingRefused
from service.domain.pairing.order import distinct

Pod = tuple[str, ...]
"""Players in seat order: the first seat first (white, the first player)."""


def pairs(players: Sequence[str]) -> list[list[Pod]]:
    """The rounds of a two-player round robin of ``players`` (in seed order); byes are left out."""
    field_: list[str | None] = list(distinct(players))
    if len(field_) < 2:
        raise PairingRefused("too_few_players", "a round robin needs 2 players")
    if len(field_) % 2:
        field_.append(None)
    n = len(field_)
    fixed, circle = field_[-1], field_[:-1]
    rounds = []
    for r in range(n - 1):
        turned = circle[r:] + circle[:r]
        games: list[Pod] = []
        first, other = (fixed, turned[0]) if r % 2 else (turned[0], fixed)
        if first is not None and other is not None:
            games.append((first, other))
        for i in range(1, n // 2):
            upper, lower = turned[i], turned[n - 1 - i]
            a, b = (upper, lower) if i % 2 == 0 else (lower, upper)
            if a is not None and b is not None:
                games.append((a, b))
        rounds.append(games)
    return rounds


def pods(players: Sequence[str], size: int) -> list[list[Pod]]:
    """The rounds of a round robin of every pod of ``size`` (3 to 5) among ``players`` (in seed order)."""
    field_ = distinct(players)
    if not 3 <= size <= 5:
        raise PairingRefused("pod_size", f"pods are of 3 to 5 players, not {size}")
    if len(field_) < size:
        raise PairingRefused("too_few_players", f"a pod of {size} needs {size} players")
    seats = {p: [0] * size for p in field_}
    position = {p: i for i, p in enumerate(field_)}
    rounds: list[list[Pod]] = []
    busy: list[set[str]] = []
    for group in itertools.combinations(field_, size):
        order = min(
            itertools.permutations(group),
            key=lambda o: (
                sorted((seats[p][s] for s, p in enumerate(o)), reverse=True),
                [position[p] for p in o],
            ),
        )
        for s, p in enumerate(order):
            seats[p][s] += 1
        for taken, games in zip(busy, rounds, strict=True):
            if taken.isdisjoint(order):
                taken.update(order)
                games.append(order)
                break
        else:
            busy.append(set(order))
            rounds.append([order])
    return rounds
