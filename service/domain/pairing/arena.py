"""The arena: players pair continuously over a time window, as lichess's arenas do, as a pure step.

The arena's state is each player's line (``Line``: points, current run of wins, last opponent, whether it
has withdrawn). Two steps change it, each a pure function of the state and its input, so replaying the
arena's log through them gives the same pairings and points:

* ``scored``: a finished game adds points, two a win, one a draw, nothing a loss, doubled for a player
  on fire (who won its last two games or more: a run of wins of 2 or more before this game); any result
  but a win ends the run;
* ``paired``: the players waiting now (the caller says who: those not in a game) are ranked by points,
  then rating, then the seeded order, and paired by maximum-weight matching (networkx, Edmonds' blossom,
  maximum cardinality first): an edge joins two players at most ``REACH`` places apart, weighs more the
  closer their places and ratings are, and more the higher they stand (so that, of an odd count, the one
  left over is the lowest that can be), and two players who met in their last game get no edge (no
  immediate rematch). Whoever is left waits for the next step.

The first seat goes to whichever of the two has had it less (then the lower-ranked), so seats balance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from service.domain.errors import PairingRefused
from service.domain.pairing.order import distinct, tiebreak_key
from service.domain.pairing.standings import Game

REACH = 12
"""How many places apart two waiting players may be and still be paired."""

AT_ONCE = 64
"""The waiting players are matched a block of this many at a time, top first, the few left over at a
block's end joining the next: Edmonds' blossom costs about the cube of the players, so one matching of
1,000 waiting took 11 s of CPU (``python -m tests.bench.pairing``), blocks of 64 take a fraction of
that; an edge joins players at most ``REACH`` places apart anyway, so only pairs across a block's edge
are lost, and an arena of at most ``AT_ONCE`` waiting is matched whole."""


@dataclass(frozen=True)
class Line:
    """One player's line in the arena."""

    player: str
    rating: float = 0.0
    points: int = 0
    run: int = 0  # wins in a row, up to the last game
    last_opponent: str | None = None
    first_seats: int = 0
    games: int = 0
    withdrawn: bool = False

    @property
    def on_fire(self) -> bool:
        return self.run >= 2


Arena = Mapping[str, Line]


def joined(arena: Arena, player: str, rating: float) -> dict[str, Line]:
    """The arena with ``player`` in it (a late entry starts at 0 points; a withdrawn player comes back)."""
    lines = dict(arena)
    lines[player] = replace(lines[player], withdrawn=False) if player in lines else Line(player, rating)
    return lines


def withdrawn(arena: Arena, player: str) -> dict[str, Line]:
    """The arena with ``player`` out of the pairings; its points stay in the standings."""
    if player not in arena:
        raise PairingRefused("unknown_player", f"{player} is not in the arena")
    return {**arena, player: replace(arena[player], withdrawn=True)}


def scored(arena: Arena, game: Game) -> dict[str, Line]:
    """The arena after ``game``: two points a win and one a draw, doubled on fire; a win extends the run."""
    if len(game.players) != 2:
        raise PairingRefused("bad_result", f"an arena game has 2 players: {game.players}")
    missing = [p for p in game.players if p not in arena]
    if missing:
        raise PairingRefused("unknown_player", f"not in the arena: {', '.join(missing)}")
    lines = dict(arena)
    got = game.points()
    for seat, (player, other) in enumerate((game.players, game.players[::-1])):
        line = lines[player]
        points = int(2 * got[player]) * (2 if line.on_fire else 1)
        won = got[player] == 1
        lines[player] = replace(
            line,
            points=line.points + points,
            run=line.run + 1 if won else 0,
            last_opponent=other,
            first_seats=line.first_seats + (seat == 0),
            games=line.games + 1,
        )
    return lines


def ranking(arena: Arena, seed: str) -> list[str]:
    """The arena's standings: points, then rating, then the seeded order."""
    return sorted(arena, key=lambda p: (-arena[p].points, -arena[p].rating, tiebreak_key(seed, p)))


def paired(arena: Arena, waiting: Sequence[str], seed: str) -> list[tuple[str, str]]:
    """The games to start now among ``waiting``, first seat first, top of the standings first."""
    for player in distinct(waiting):
        if player not in arena or arena[player].withdrawn:
            raise PairingRefused("unknown_player", f"{player} is not playing in the arena")
    place = {p: i for i, p in enumerate(ranking(arena, seed))}
    ranked = sorted(waiting, key=place.__getitem__)
    matching: list[tuple[str, str]] = []
    carried: list[int] = []  # left over at a block's end, near enough to meet the next block's top
    for start in range(0, len(ranked), AT_ONCE):
        block = carried + list(range(start, min(start + AT_ONCE, len(ranked))))
        pairs = _matched(arena, ranked, place, block)
        matching += [(ranked[i], ranked[j]) for i, j in pairs]
        met = {i for pair in pairs for i in pair}
        carried = [i for i in block if i not in met and i + REACH >= start + AT_ONCE]
    games = []
    for a, b in matching:
        first, second = sorted((a, b), key=lambda p: (arena[p].first_seats, -place[p]))
        games.append((first, second))
    return sorted(games, key=lambda g: min(place[g[0]], place[g[1]]))


def _matched(
    arena: Arena, ranked: Sequence[str], place: Mapping[str, int], block: Sequence[int]
) -> list[tuple[int, int]]:
    """The maximum-weight matching of the waiting players at the positions ``block`` in ``ranked``
    (maximum cardinality first): an edge joins two at most ``REACH`` positions apart, weighs more the
    closer their places and ratings and the higher they stand, and two who met in their last game get none."""
    import networkx as nx  # imported here: a second's start, paid only by the arena

    graph = nx.Graph()
    graph.add_nodes_from(block)
    for k, i in enumerate(block):
        a = ranked[i]
        for j in block[k + 1 :]:
            if j - i > REACH:
                break
            b = ranked[j]
            if arena[a].last_opponent == b or arena[b].last_opponent == a:
                continue
            apart = abs(place[a] - place[b])
            gap = min(int(abs(arena[a].rating - arena[b].rating)), 1000)
            standing = 2_000 * (2 * len(ranked) - i - j)  # so the one left over is the lowest
            graph.add_edge(i, j, weight=1_000_000_000 + standing - 1_000 * apart - gap)
    return [(min(i, j), max(i, j)) for i, j in nx.max_weight_matching(graph, maxcardinality=True)]
