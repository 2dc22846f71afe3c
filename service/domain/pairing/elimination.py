"""Knockout brackets: single and double elimination, seeded, with byes to the top seeds.

A bracket is a list of ``Meeting``s, each fed by two ``Source``s: a seed, or the winner or the loser of an
earlier meeting; it is made once from the number of players and never changes, so the log need only
record who won each meeting, and ``progress`` recomputes everything else.

Seeding: the players come in seed order (best first) and fill a bracket of the next power of two, ``S``,
in the standard order (1 v S, then S/2+1 v S/2 ... so that seeds 1 and 2 can only meet in the final:
``seed_order``). Seeds past the field are byes, so the top seeds get them. A meeting one of whose sides is
nobody (a bye, or the loser of a bye) is not played: the other side goes through.

Double elimination: the winners' bracket W1..Wm (m = log2 S); the losers' bracket L1..L(2m-2), where L1
pairs the losers of W1 and each later pair of rounds first meets the survivors with the losers of the next
winners' round (in reversed order on even rounds, to put off rematches), then halves them; a grand final
``GF`` of the two brackets' winners and, if the losers' bracket's winner takes it, a deciding ``GF2``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from service.domain.errors import PairingRefused
from service.domain.pairing.order import distinct


@dataclass(frozen=True)
class Source:
    """Where a side of a meeting comes from: ``seed`` (1-based), or the ``winner``/``loser`` of a meeting."""

    kind: str
    of: int | str


@dataclass(frozen=True)
class Meeting:
    """One meeting of a bracket: its id (``W1-1``, ``L2-3``, ``GF``), its two sides, whether it is a reset."""

    id: str
    sides: tuple[Source, Source]
    reset: bool = False


@dataclass(frozen=True)
class Played:
    """A meeting as far as the results go: its players (None: nobody), and who won and lost, when known."""

    id: str
    players: tuple[str | None, str | None]
    winner: str | None
    loser: str | None
    decided: bool

    @property
    def to_play(self) -> bool:
        return not self.decided and None not in self.players


def seed_order(size: int) -> list[int]:
    """The seeds of a bracket of ``size`` (a power of two) in the order they fill it: 1, 8, 4, 5, 2, 7, 3, 6."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


def _size(players: Sequence[str]) -> int:
    if len(distinct(players)) < 2:
        raise PairingRefused("too_few_players", "a bracket needs 2 players")
    size = 2
    while size < len(players):
        size *= 2
    return size


def _winners_bracket(size: int) -> list[Meeting]:
    order = seed_order(size)
    meetings = [
        Meeting(f"W1-{i + 1}", (Source("seed", order[2 * i]), Source("seed", order[2 * i + 1])))
        for i in range(size // 2)
    ]
    r, count = 2, size // 4
    while count >= 1:
        meetings += [
            Meeting(
                f"W{r}-{i}",
                (Source("winner", f"W{r - 1}-{2 * i - 1}"), Source("winner", f"W{r - 1}-{2 * i}")),
            )
            for i in range(1, count + 1)
        ]
        r, count = r + 1, count // 2
    return meetings


def single(players: Sequence[str]) -> list[Meeting]:
    """The meetings of a single-elimination bracket for ``players`` in seed order; the last is the final."""
    return _winners_bracket(_size(players))


def double(players: Sequence[str]) -> list[Meeting]:
    """The meetings of a double-elimination bracket; the last two are the grand final and its reset."""
    size = _size(players)
    rounds = size.bit_length() - 1
    meetings = _winners_bracket(size)
    if rounds == 1:
        champion_of_losers = Source("loser", "W1-1")
    else:
        meetings += [
            Meeting(f"L1-{i}", (Source("loser", f"W1-{2 * i - 1}"), Source("loser", f"W1-{2 * i}")))
            for i in range(1, size // 4 + 1)
        ]
        for k in range(2, rounds + 1):
            count = size // 2**k
            drop = [f"W{k}-{count - i + 1 if k % 2 == 0 else i}" for i in range(1, count + 1)]
            meetings += [
                Meeting(
                    f"L{2 * k - 2}-{i}",
                    (Source("winner", f"L{2 * k - 3}-{i}"), Source("loser", drop[i - 1])),
                )
                for i in range(1, count + 1)
            ]
            if k < rounds:
                meetings += [
                    Meeting(
                        f"L{2 * k - 1}-{i}",
                        (
                            Source("winner", f"L{2 * k - 2}-{2 * i - 1}"),
                            Source("winner", f"L{2 * k - 2}-{2 * i}"),
                        ),
                    )
                    for i in range(1, count // 2 + 1)
                ]
        champion_of_losers = Source("winner", f"L{2 * rounds - 2}-1")
    final = Meeting("GF", (Source("winner", f"W{rounds}-1"), champion_of_losers))
    reset = Meeting("GF2", (Source("winner", "GF"), Source("loser", "GF")), reset=True)
    return [*meetings, final, reset]


def progress(bracket: Sequence[Meeting], players: Sequence[str], winners: Mapping[str, str]) -> list[Played]:
    """Each meeting of ``bracket`` given ``players`` (seed order) and the recorded ``winners`` by meeting id.

    Byes go through by themselves; a winner recorded for a meeting who is not one of its players, or for a
    meeting not yet ready, is refused (``unknown_player``).
    """
    field_ = distinct(players)
    done: dict[str, Played] = {}
    for meeting in bracket:
        sides: list[str | None] = []
        waiting = False
        for source in meeting.sides:
            if source.kind == "seed":
                index = int(source.of) - 1
                sides.append(field_[index] if index < len(field_) else None)
                continue
            before = done[str(source.of)]
            waiting = waiting or not before.decided
            sides.append(before.winner if source.kind == "winner" else before.loser)
        if meeting.reset and not waiting and sides[0] == done["GF"].players[0]:
            sides = [None, None]  # the winners' bracket's champion took the grand final: no reset
        a, b = sides
        named = winners.get(meeting.id)
        if waiting:
            played = Played(meeting.id, (None, None), None, None, False)
        elif a is None or b is None:
            played = Played(meeting.id, (a, b), a if b is None else b, None, True)
        elif named is not None and named in (a, b):
            played = Played(meeting.id, (a, b), named, b if named == a else a, True)
        else:
            played = Played(meeting.id, (a, b), None, None, False)
        if named is not None and not (played.winner == named and None not in played.players):
            raise PairingRefused("unknown_player", f"{named} does not play {meeting.id}, or not yet")
        done[meeting.id] = played
    return list(done.values())


def champion(played: Sequence[Played]) -> str | None:
    """The bracket's winner, once its last meeting that is played at all is decided (else None)."""
    last = played[-1]
    if last.id == "GF2" and last.decided and last.players == (None, None):
        return played[-2].winner
    return last.winner if last.decided else None
