"""Swiss rounds: FIDE Dutch for two players (caissify-pairings), score groups with repair for pods.

Both take the field as it stands before the round (``Entrant``: a player and its rating; a withdrawn
player is simply left out, a late entry comes in with no games) and the rounds played so far (lists of
``standings.Game`` and ``standings.Bye``), and return the round to play: pods in seat order and byes.

``dutch``: the FIDE Dutch system (C.04.3) as caissify-pairings implements it (0 discrepancies against
bbpPairings over 70,000 rounds). Its inputs are worked out here from the rounds played, as its README
asks of a caller: scores, colours (the first seat is white), floats (up/down from the scores before each
round) and byes. Starting numbers follow rating, then the seeded order. Measured on the 2-core machine, its
iterated maximum-weight matching takes tens of seconds for a round of 100 players after the first, so it
serves fields of a few dozen; ``pods`` with ``size=2`` is the scalable Swiss for larger ones.

``pods``: for pods of 2 to 5, a documented algorithm:

1. order the field by points, then rating, then the seeded order (``order.tiebreak_key``);
2. split it into pods of ``size`` (or, with ``smallest`` below ``size``, as evenly as possible into pods
   of ``smallest`` to ``size``); players who cannot be seated get a bye: the lowest in the order among
   those with the fewest byes so far, worth 1 point for pairs (FIDE's pairing-allocated bye) and a pod's
   mean score, ``(size - 1) / 2``, for pods;
3. fill the pods greedily from the top: a pod opens with the best unseated player and takes, one at a
   time, the next unseated player in the order who has met nobody in the pod yet (or, if every one has,
   whoever has met the fewest of them); among the next three such players of equal points, the one whose
   least-taken seat (when it has one) clashes with fewest of the pod's own, so that colours can alternate;
4. repair: for each pod that still holds a rematch, from the bottom up, swap one of its players with one of
   another pod when that lowers the number of rematches of the two pods together and raises neither;
5. seat each pod: of its orders (``size!``), the one that gives each player the seat it has taken least
   (the highest count of a seat given, then the sum, lowest first), then keeps fewest players in the seat
   they had last round, then follows the order of step 1.

Everything follows from the inputs and the seed, so a replay of the tournament's log recomputes it.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from service.domain.errors import PairingRefused
from service.domain.pairing.order import distinct, tiebreak_key
from service.domain.pairing.standings import Bye, Outcome

Pod = tuple[str, ...]


@dataclass(frozen=True)
class Entrant:
    """A player in the field, with the rating it is ordered by."""

    player: str
    rating: float = 0.0


@dataclass(frozen=True)
class Round:
    """A round to play: pods in seat order (first seat first) and the players given a bye."""

    pods: tuple[Pod, ...]
    byes: tuple[Bye, ...] = ()


@dataclass
class _History:
    points: dict[str, Fraction]
    met: dict[str, Counter[str]]
    seats: dict[str, Counter[int]]
    last_seat: dict[str, int]
    byes: Counter[str]


def _history(players: Sequence[str], rounds: Sequence[Iterable[Outcome]]) -> _History:
    known = set(players)
    history = _History(
        points={p: Fraction(0) for p in players},
        met={p: Counter() for p in players},
        seats={p: Counter() for p in players},
        last_seat={},
        byes=Counter(),
    )
    for played in rounds:
        for outcome in played:
            if isinstance(outcome, Bye):
                if outcome.player in known:
                    history.points[outcome.player] += outcome.points
                    history.byes[outcome.player] += 1
                continue
            got = outcome.points()
            for seat, player in enumerate(outcome.players):
                if player not in known:
                    continue  # withdrawn: its opponents still met it, it no longer plays
                history.points[player] += got[player]
                history.seats[player][seat] += 1
                history.last_seat[player] = seat
                history.met[player].update(q for q in outcome.players if q != player)
    return history


def _ordered(entrants: Sequence[Entrant], history: _History, seed: str) -> list[str]:
    rating = {e.player: e.rating for e in entrants}
    return sorted(rating, key=lambda p: (-history.points[p], -rating[p], tiebreak_key(seed, p)))


def _field(entrants: Sequence[Entrant]) -> list[str]:
    return distinct(e.player for e in entrants)


def pod_sizes(count: int, size: int, smallest: int) -> list[int]:
    """How ``count`` players split into pods of ``smallest`` to ``size``, biggest first; the rest sit out."""
    if not (size == smallest == 2 or 3 <= smallest <= size <= 5):
        raise PairingRefused("pod_size", f"pods of {smallest} to {size}: a pod is of 2, or of 3 to 5")
    pods = -(-count // size)
    if pods and count // pods >= smallest:
        small, extra = divmod(count, pods)
        return [small + 1] * extra + [small] * (pods - extra)
    return [size] * (count // size)


def pods(
    entrants: Sequence[Entrant],
    rounds: Sequence[Iterable[Outcome]],
    size: int,
    seed: str,
    smallest: int | None = None,
) -> Round:
    """The next Swiss round of pods of ``size`` (``smallest`` to ``size``): see the module's steps."""
    players = _field(entrants)
    history = _history(players, rounds)
    order = _ordered(entrants, history, seed)
    sizes = pod_sizes(len(order), size, size if smallest is None else smallest)
    seated = sum(sizes)
    if seated == 0:
        raise PairingRefused("too_few_players", f"{len(order)} players cannot fill a pod of {size}")
    rank = {p: i for i, p in enumerate(order)}
    sitting_out = sorted(order, key=lambda p: (history.byes[p], -rank[p]))[: len(order) - seated]
    worth = Fraction(1) if size == 2 else Fraction(size - 1, 2)
    byes = tuple(Bye(p, worth) for p in sorted(sitting_out, key=rank.__getitem__))
    resting = set(sitting_out)
    unseated = [p for p in order if p not in resting]
    groups = _fill(unseated, sizes, history)
    _repair(groups, history.met)
    return Round(tuple(_seat(group, history, rank) for group in groups), byes)


def _fill(unseated: list[str], sizes: list[int], history: _History) -> list[list[str]]:
    met, want = history.met, {p: _wanted_seat(history, p, max(sizes)) for p in unseated}
    groups = []
    left = list(unseated)
    for size in sizes:
        group = [left.pop(0)]
        while len(group) < size:
            best_i, best_cost = 0, None
            fresh: list[int] = []
            for i, candidate in enumerate(left):
                cost = sum(met[candidate][q] for q in group)
                if cost == 0:
                    if fresh and history.points[candidate] != history.points[left[fresh[0]]]:
                        break
                    fresh.append(i)
                    if len(fresh) == LOOKAHEAD:
                        break
                elif not fresh and (best_cost is None or cost < best_cost):
                    best_i, best_cost = i, cost
            if fresh:
                clashes = [
                    sum(want[left[i]] is not None and want[left[i]] == want[q] for q in group) for i in fresh
                ]
                best_i = fresh[clashes.index(min(clashes))]
            group.append(left.pop(best_i))
        groups.append(group)
    return groups


LOOKAHEAD = 3
"""How many fresh opponents of equal points step 3 weighs for the seat they want."""


def _wanted_seat(history: _History, player: str, size: int) -> int | None:
    """The one seat the player has taken least, or None when several tie."""
    counts = [history.seats[player][s] for s in range(size)]
    least = min(counts)
    return counts.index(least) if counts.count(least) == 1 else None


def _rematches(group: Sequence[str], met: dict[str, Counter[str]]) -> int:
    return sum(met[a][b] for a, b in itertools.combinations(group, 2))


def _repair(groups: list[list[str]], met: dict[str, Counter[str]]) -> None:
    for g in range(len(groups) - 1, -1, -1):
        while (before := _rematches(groups[g], met)) > 0:
            if not _swap_one(groups, g, before, met):
                break


def _swap_one(groups: list[list[str]], g: int, before: int, met: dict[str, Counter[str]]) -> bool:
    """Swap one player of pod ``g`` with one of the nearest pod that lowers their rematches: done or not."""
    nearest = sorted((h for h in range(len(groups)) if h != g), key=lambda h: (abs(h - g), h))
    for h in nearest:
        other_before = _rematches(groups[h], met)
        for i, j in itertools.product(range(len(groups[g])), range(len(groups[h]))):
            mine, theirs = list(groups[g]), list(groups[h])
            mine[i], theirs[j] = theirs[j], mine[i]
            after, other_after = _rematches(mine, met), _rematches(theirs, met)
            if (
                after <= before
                and other_after <= other_before
                and after + other_after < before + other_before
            ):
                groups[g], groups[h] = mine, theirs
                return True
    return False


def _seat(group: Sequence[str], history: _History, rank: dict[str, int]) -> Pod:
    def cost(order: tuple[str, ...]) -> tuple[int, int, int, list[int]]:
        counts = [history.seats[p][s] for s, p in enumerate(order)]
        repeats = sum(history.last_seat.get(p) == s for s, p in enumerate(order))
        return (max(counts), sum(counts), repeats, [rank[p] for p in order])

    return min(itertools.permutations(group), key=cost)


def dutch(
    entrants: Sequence[Entrant],
    rounds: Sequence[Iterable[Outcome]],
    round_number: int,
    total_rounds: int,
    seed: str,
) -> Round:
    """The next round of a two-player Swiss by the FIDE Dutch system (caissify-pairings)."""
    from caissify_pairings import generate_pairings  # imported here: it loads networkx, a second's start

    players = _field(entrants)
    if len(players) < 2:
        raise PairingRefused("too_few_players", "a Swiss round needs 2 players")
    rating = {e.player: e.rating for e in entrants}
    starting = sorted(players, key=lambda p: (-rating[p], tiebreak_key(seed, p)))
    number = {p: i + 1 for i, p in enumerate(starting)}
    known = set(players)
    score = {p: Fraction(0) for p in players}
    colours: dict[str, list[str]] = {p: [] for p in players}
    floats: dict[str, list[str]] = {p: [] for p in players}
    byes = Counter[str]()
    previous: set[tuple[int, int]] = set()
    for played in rounds:
        before = dict(score)
        sat: set[str] = set()
        for outcome in played:
            if isinstance(outcome, Bye):
                if outcome.player in known:
                    score[outcome.player] += outcome.points
                    byes[outcome.player] += 1
                continue
            if len(outcome.players) != 2:
                raise PairingRefused("bad_result", f"a Dutch Swiss game has 2 players: {outcome.players}")
            white, black = outcome.players
            for player, got in outcome.points().items():
                if player in known:
                    score[player] += got
            if white in known and black in known:
                previous.add((number[white], number[black]))
            for player, colour, other in ((white, "white", black), (black, "black", white)):
                if player in known:
                    sat.add(player)
                    colours[player].append(colour)
                    theirs, mine = before.get(other, Fraction(0)), before[player]
                    floats[player].append("down" if mine > theirs else "up" if mine < theirs else "none")
        for player in known - sat:
            colours[player].append("none")
            floats[player].append("none")
    table = [
        {
            "id": number[p],
            "name": p,
            "score": float(score[p]),
            "rating": rating[p],
            "starting_number": number[p],
            "color_hist": colours[p],
            "float_history": floats[p],
            "bye_count": byes[p],
        }
        for p in starting
    ]
    rows = generate_pairings("dutch", table, previous, round_number, total_rounds)
    by_number = {v: k for k, v in number.items()}
    games = tuple(
        (by_number[row["white_id"]], by_number[row["black_id"]]) for row in rows if not row.get("bye")
    )
    given = tuple(Bye(by_number[row["white_id"]]) for row in rows if row.get("bye"))
    return Round(games, given)
