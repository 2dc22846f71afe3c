"""The seek pool: open seeks paired by rating, with a window that widens while a player waits.

A ``Seek`` waits in the pool of what it asks for (``pool``: the caller's key for game, mode, options,
clock and rated, which must all be equal to meet) and for how many players (``players``, 2 to 5). Its
rating window at time ``now`` (milliseconds) is

    window = min(WINDOW_START + WINDOW_GROWTH * waited seconds, WINDOW_MAX)

(100 rating points at once, 20 more a second, at most 700 after 30 s). Seeks meet when every two of them
are within both their windows; where either is a bot, both seeks must allow bots (a bot's own seek too:
its platform says whether it may meet people who asked for bots), so a player is never paired with a bot
unless both sides allowed it.

Incremental: ``arrive`` files a seek on its shelf (its pool, its number of players, whether a bot seeks
and whether it allows bots), a list sorted by rating (a bisection), and at once looks for partners on the
shelves it may meet, between its rating minus and plus its window, the nearest first; only the seeks inside
that window on those shelves are read, so an arrival costs the neighbours it may meet, not the pool.
``tick`` expires the seeks older than ``EXPIRE_MS`` (reason ``no_opponent_in_time``) and gives every
other waiting seek, oldest first, another look with its widened window, until it has had one with its
widest: after that only a newcomer can meet it, and a newcomer looks for it on arrival, so the seeks nobody
can meet (a bot's where nobody allows bots) cost a tick nothing. Ties go to the older seek, then the
smaller id: the same arrivals and ticks give the same meetings.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Iterator
from dataclasses import dataclass, field

from service.domain.errors import PairingRefused

WINDOW_START = 100.0
WINDOW_GROWTH = 20.0  # rating points a second
WINDOW_MAX = 700.0
EXPIRE_MS = 10 * 60 * 1000


@dataclass(frozen=True)
class Seek:
    """A player's wish to play: who, at what rating, in which pool, for how many, since when."""

    id: str
    player: str
    rating: float
    pool: str
    created_ms: int
    players: int = 2
    bot: bool = False  # a bot seeks
    bots_allowed: bool = False  # this seek accepts bots among its opponents

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 5:
            raise PairingRefused("bad_seek", f"a seek is for 2 to 5 players, not {self.players}")

    def window(self, now_ms: int) -> float:
        """The rating distance this seek accepts at ``now_ms``."""
        waited = max(0, now_ms - self.created_ms) / 1000
        return min(WINDOW_START + WINDOW_GROWTH * waited, WINDOW_MAX)


@dataclass(frozen=True)
class Expired:
    """A seek the pool gave up on, and why."""

    seek: Seek
    reason: str = "no_opponent_in_time"


def suits(a: Seek, b: Seek, now_ms: int) -> bool:
    """Whether two seeks may meet: other players, within both windows, a bot only where both allow bots."""
    if a.player == b.player:
        return False
    if (a.bot or b.bot) and not (a.bots_allowed and b.bots_allowed):
        return False
    return abs(a.rating - b.rating) <= min(a.window(now_ms), b.window(now_ms))


Shelf = tuple[str, int, bool, bool]
"""Where a seek waits: its pool, its number of players, whether a bot seeks, whether it allows bots."""


def shelf_of(seek: Seek) -> Shelf:
    return (seek.pool, seek.players, seek.bot, seek.bots_allowed)


def shelves_met(seek: Seek) -> list[Shelf]:
    """The shelves whose seeks ``seek`` may meet: people who do not allow bots never see a bot's seek, so
    a pool crowded with bots' seeks costs them nothing."""
    pool, players = seek.pool, seek.players
    people = [(pool, players, False, False), (pool, players, False, True)]
    if seek.bot:
        return [(pool, players, False, True), (pool, players, True, True)] if seek.bots_allowed else []
    return [*people, (pool, players, True, True)] if seek.bots_allowed else people


@dataclass
class _Shelf:
    keys: list[tuple[float, int, str]] = field(default_factory=list)  # (rating, created, id), sorted
    seeks: dict[str, Seek] = field(default_factory=dict)

    def add(self, seek: Seek) -> None:
        bisect.insort(self.keys, (seek.rating, seek.created_ms, seek.id))
        self.seeks[seek.id] = seek

    def remove(self, seek: Seek) -> None:
        key = (seek.rating, seek.created_ms, seek.id)
        del self.keys[bisect.bisect_left(self.keys, key)]
        del self.seeks[seek.id]

    def near(self, seek: Seek, reach: float) -> Iterator[tuple[float, int, str, Seek]]:
        """The other seeks within ``reach`` of ``seek``'s rating, nearest first (then oldest, smaller id)."""
        keys, rating = self.keys, seek.rating
        at = bisect.bisect_left(keys, (rating, seek.created_ms, seek.id))
        below, above = at - 1, at
        while True:
            down = keys[below] if below >= 0 and rating - keys[below][0] <= reach else None
            up = keys[above] if above < len(keys) and keys[above][0] - rating <= reach else None
            if down is None and up is None:
                return
            if up is not None and up[2] == seek.id:
                above += 1
                continue
            near_down = None if down is None else (rating - down[0], down[1], down[2])
            near_up = None if up is None else (up[0] - rating, up[1], up[2])
            if near_up is None or (near_down is not None and near_down <= near_up):
                assert near_down is not None
                below -= 1
                yield (*near_down, self.seeks[near_down[2]])
            else:
                above += 1
                yield (*near_up, self.seeks[near_up[2]])


@dataclass(frozen=True)
class Meeting:
    """Seeks that meet: a match to start, its seeks oldest first."""

    pool: str
    seeks: tuple[Seek, ...]


class SeekPool:
    """Every open seek, by shelf; ``arrive``, ``cancel`` and ``tick`` are its only changes."""

    def __init__(self) -> None:
        self._shelves: dict[Shelf, _Shelf] = {}
        self._open: dict[str, Seek] = {}
        self._settled: set[str] = set()  # seeks already looked at with their widest window

    def __len__(self) -> int:
        return len(self._open)

    def open(self) -> list[Seek]:
        """The open seeks, oldest first."""
        return sorted(self._open.values(), key=lambda s: (s.created_ms, s.id))

    def arrive(self, seek: Seek, now_ms: int) -> Meeting | None:
        """File ``seek`` and pair it at once if it can be; the meeting it makes, if any."""
        if seek.id in self._open:
            raise PairingRefused("bad_seek", f"seek {seek.id} is already open")
        self._shelves.setdefault(shelf_of(seek), _Shelf()).add(seek)
        self._open[seek.id] = seek
        return self._try(seek, now_ms)

    def restore(self, seek: Seek, settled: bool = False) -> None:
        """File a seek that was open already, without looking for partners: a pool rebuilt from where its
        seeks are kept (``settled``: it has had its look with its widest window), so that a rebuilt pool
        pairs as the one that never stopped would."""
        if seek.id in self._open:
            raise PairingRefused("bad_seek", f"seek {seek.id} is already open")
        self._shelves.setdefault(shelf_of(seek), _Shelf()).add(seek)
        self._open[seek.id] = seek
        if settled:
            self._settled.add(seek.id)

    def cancel(self, seek_id: str) -> Seek | None:
        """Take a seek out; the seek, or None if it was not open."""
        seek = self._open.get(seek_id)
        if seek is not None:
            self._remove(seek)
        return seek

    def tick(self, now_ms: int) -> tuple[list[Meeting], list[Expired]]:
        """Expire the seeks too old, then give every other one, oldest first, a look with its window now."""
        expired = [Expired(s) for s in self.open() if now_ms - s.created_ms >= EXPIRE_MS]
        for gone in expired:
            self._remove(gone.seek)
        meetings = []
        for seek in self.open():
            if seek.id in self._open and seek.id not in self._settled:
                met = self._try(seek, now_ms)
                if met is not None:
                    meetings.append(met)
                elif seek.window(now_ms) >= WINDOW_MAX:
                    self._settled.add(seek.id)
        return meetings, expired

    def _remove(self, seek: Seek) -> None:
        self._shelves[shelf_of(seek)].remove(seek)
        del self._open[seek.id]
        self._settled.discard(seek.id)

    def _try(self, seek: Seek, now_ms: int) -> Meeting | None:
        reach = seek.window(now_ms)
        shelves = [self._shelves[s] for s in shelves_met(seek) if s in self._shelves]
        group = [seek]
        for *_, other in heapq.merge(*(shelf.near(seek, reach) for shelf in shelves)):
            if all(suits(other, member, now_ms) for member in group):
                group.append(other)
                if len(group) == seek.players:
                    for member in group:
                        self._remove(member)
                    return Meeting(seek.pool, tuple(sorted(group, key=lambda s: (s.created_ms, s.id))))
        return None
