"""Results and standings: points by rank, Buchholz, Sonneborn-Berger, and the order they give.

A ``Game`` is any finished meeting, two players or a pod: its players in seat order and each one's finishing
rank (1 is best, equal ranks are a tie). A player scores one point for each opponent it finished ahead of
and half a point for each it tied with, so two players get the chess scores (1, ½, 0) and a pod of ``k``
shares ``k(k-1)/2`` points (a 4-player pod ranked 1, 2, 3, 4 scores 3, 2, 1, 0). A ``Bye`` gives its player
``points`` (1 by default: a full-point bye, as FIDE's pairing-allocated bye) and no opponents. A forfeit is
a game whose absent player is ranked last.

The standings order players by points, then these tie-breaks, each documented in docs/reference/pairing.md:

1. Buchholz: the sum of the final points of every opponent met (an opponent met in two pods counts twice);
2. Sonneborn-Berger: for every game, the final points of each opponent beaten, plus half those of each tied;
3. wins: games finished alone in first place;
4. the seeded order (``order.tiebreak_key``), so no two players are ever equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from service.domain.errors import PairingRefused
from service.domain.pairing.order import distinct, tiebreak_key


@dataclass(frozen=True)
class Game:
    """A finished meeting: ``players`` in seat order and each one's ``ranks`` (1 best, equal = tied)."""

    players: tuple[str, ...]
    ranks: tuple[int, ...]

    def __post_init__(self) -> None:
        distinct(self.players)
        if len(self.players) < 2 or len(self.ranks) != len(self.players) or min(self.ranks) < 1:
            raise PairingRefused("bad_result", f"ranks {self.ranks} for players {self.players}")

    def points(self) -> dict[str, Fraction]:
        """Each player's points: one per opponent finished ahead of, a half per opponent tied with."""
        return {
            player: sum(
                (
                    Fraction(1) if rank < other else Fraction(1, 2)
                    for j, other in enumerate(self.ranks)
                    if j != i and rank <= other
                ),
                Fraction(0),
            )
            for i, (player, rank) in enumerate(zip(self.players, self.ranks, strict=True))
        }


@dataclass(frozen=True)
class Bye:
    """A round a player sat out: ``points`` for it (1 a full-point bye, ½ a half-point bye, 0 none)."""

    player: str
    points: Fraction = Fraction(1)


Outcome = Game | Bye


@dataclass(frozen=True)
class Standing:
    """One line of the standings: the player, its place (1 first) and what ordered it."""

    place: int
    player: str
    points: Fraction
    buchholz: Fraction
    sonneborn_berger: Fraction
    wins: int
    games: int
    byes: int = 0
    opponents: tuple[str, ...] = field(default=(), repr=False)


def standings(players: Sequence[str], outcomes: Iterable[Outcome], seed: str) -> list[Standing]:
    """The standings of ``players`` after ``outcomes``, best first (every player gets a distinct place).

    A player in an outcome but not in ``players`` is refused (``unknown_player``); a withdrawn player stays
    in ``players`` with the points it made, as FIDE keeps it in the crosstable.
    """
    field_ = distinct(players)
    known = set(field_)
    points = {p: Fraction(0) for p in field_}
    opponents: dict[str, list[str]] = {p: [] for p in field_}
    beaten: dict[str, list[tuple[str, Fraction]]] = {p: [] for p in field_}
    wins = dict.fromkeys(field_, 0)
    games = dict.fromkeys(field_, 0)
    byes = dict.fromkeys(field_, 0)
    for outcome in outcomes:
        named = (outcome.player,) if isinstance(outcome, Bye) else outcome.players
        unknown = [p for p in named if p not in known]
        if unknown:
            raise PairingRefused("unknown_player", f"not in the field: {', '.join(unknown)}")
        if isinstance(outcome, Bye):
            points[outcome.player] += outcome.points
            byes[outcome.player] += 1
            continue
        for player, got in outcome.points().items():
            points[player] += got
            games[player] += 1
        for i, (player, rank) in enumerate(zip(outcome.players, outcome.ranks, strict=True)):
            others = [(q, r) for j, (q, r) in enumerate(zip(outcome.players, outcome.ranks)) if j != i]
            opponents[player].extend(q for q, _ in others)
            beaten[player].extend(
                (q, Fraction(1) if rank < r else Fraction(1, 2)) for q, r in others if rank <= r
            )
            if all(rank < r for _, r in others):
                wins[player] += 1
    buchholz = {p: sum((points[q] for q in opponents[p]), Fraction(0)) for p in field_}
    sonneborn = {p: sum((points[q] * share for q, share in beaten[p]), Fraction(0)) for p in field_}
    ordered = sorted(
        field_,
        key=lambda p: (-points[p], -buchholz[p], -sonneborn[p], -wins[p], tiebreak_key(seed, p)),
    )
    return [
        Standing(
            place,
            p,
            points[p],
            buchholz[p],
            sonneborn[p],
            wins[p],
            games[p],
            byes[p],
            tuple(opponents[p]),
        )
        for place, p in enumerate(ordered, start=1)
    ]
