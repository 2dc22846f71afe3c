"""A tournament's log: its entries, the fold that rebuilds it, and the audit that recomputes it.

A tournament is an event-sourced, hash-chained log like a match's (``service.domain.chain``), of these
entries (``seat`` is always None):

* ``tournament_created``: kind (``round_robin``, ``swiss``, ``single_elimination`` or
  ``double_elimination``), game, options, players per match, rounds (a
  Swiss's; a round robin has as many as its schedule), rated, bots allowed, the largest field, and the
  commitment to its seed: SHA-256 of the seed, which stays secret until ``tournament_finished`` reveals it;
* ``player_registered`` (player, name, rating, bot) and ``player_withdrew`` (player);
* ``round_started``: the round's number, its matches (each a match id and its players in seat order) and its
  byes (player and points); a knockout's also names each match's ``meeting`` of the bracket, the meetings
  decided without a game (``walkovers``: a withdrawn player's opponent goes through) and, in its first round,
  the bracket's ``seeds`` (the field in seed order, which the bracket follows from);
* an arena's ``round_started`` is a wave of pairings made while the window is open, at ``at`` (the first
  also says when the window ``closes``: ``duration_minutes`` after it opened), and its ``tournament_finished``
  says ``at`` too (once the window has closed and no game runs);
* ``game_finished``: a match of the round and each of its players' finishing rank (a forfeit is the absent
  player ranked last, as the match's result says);
* ``tournament_finished``: the seed and the final standings.

A tournament created with a ``schedule`` (in ``tournament_created``: ``starts_at``, when its first round
starts, and ``round_interval``, the seconds between a round's last result and the next round's start; either
may be absent) has its rounds started by the server when their time comes (``next_round_at``), and such a
round's ``round_started`` says so (``started_by: schedule``); a round without it was started by the organiser
(or, an arena's later wave, by the arena's own pairing). The audit checks that no round the schedule started
came before its time.

Nothing a tournament decides is chosen by anyone: every pairing and bye follows from the entries before it
and the seed (``next_round``), through the pure pairing core (``service.domain.pairing``), and the standings
from the results (``final_standings``). ``audit`` replays a log and recomputes each of them, refusing
(``TournamentForged``, with a reason) the first entry that differs. The rules are in
docs/reference/pairing.md.
"""

from __future__ import annotations

import calendar
import functools
import hashlib
import hmac
import json
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from service.domain.chain import Recorded, verify_chain
from service.domain.errors import BrokenChain, PairingRefused, TournamentForged, TournamentRefused
from service.domain.pairing import arena, elimination, round_robin, swiss
from service.domain.pairing.order import tiebreak_key
from service.domain.pairing.standings import Bye, Game, Outcome, Standing, standings

ELIMINATION = ("single_elimination", "double_elimination")
"""The knockouts: a seeded bracket of two-player meetings (``service.domain.pairing.elimination``)."""

KINDS = ("round_robin", "swiss", *ELIMINATION, "arena")
"""The kinds of tournament."""

MAX_ARENA_MINUTES = 1440
"""The longest an arena's window may be open: a day."""

MAX_ROUND_INTERVAL = 7 * 24 * 3600
"""The longest pause a schedule may put between a round's last result and the next round: a week."""

MAX_LEAD_DAYS = 90
"""How far ahead of its creation a tournament's first round may be scheduled."""

SCHEDULE = "schedule"
"""``round_started``'s ``started_by`` for a round the tournament's schedule started, not its organiser."""

TOURNAMENT_CHAIN = 2
"""``tournament_created``'s ``chain``: the version of this log's format. From 2 on, a round's match ids are
derived from the seed (``match_ids``), and the audit checks them; a log of chain 1 was written when they were
drawn at random (or, late in its life, already derived: the chain cannot tell), and is audited without them."""

DERIVED_IDS_CHAIN = 2
"""The first ``chain`` whose rounds' match ids the audit recomputes."""

MAX_PLAYERS = 1000
"""The largest field a tournament may have (a Swiss round of 1,000 pairs within a second)."""

MAX_ROUNDS = 50
"""The most rounds a Swiss may have."""

MAX_SCHEDULE = 2016
"""The most games a round robin may schedule: 64 players in pairs, 23 in pods of three, 16 of four, 14 of five."""

DUTCH_MAX = 24
"""The largest field a two-player Swiss round is paired for by the FIDE Dutch system; a larger field is
paired by score groups (``swiss.pods`` with pods of two), which stays within a second for 1,000 players
where the Dutch matching takes tens of seconds past a hundred."""

TYPES = (
    "tournament_created",
    "player_registered",
    "player_withdrew",
    "round_started",
    "game_finished",
    "tournament_finished",
)


def seed_commitment(seed: str) -> str:
    """What ``tournament_created`` commits to: SHA-256 of the seed."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def most_players(kind: str, size: int, asked: int) -> int:
    """The largest field a tournament of ``kind`` with matches of ``size`` may have, at most ``asked``."""
    if kind != "round_robin":
        return min(asked, MAX_PLAYERS)
    n = size
    while math.comb(n + 1, size) <= MAX_SCHEDULE:
        n += 1
    return min(asked, n)


@dataclass(frozen=True)
class Entrant:
    """A registered player: its name, the rating it is seeded by, the bot that plays it (None: a person)."""

    player: str
    name: str
    rating: float
    bot: str | None = None
    withdrawn: bool = False
    joined_round: int = 0  # rounds started before it registered: a late entry's


@dataclass(frozen=True)
class Pairing:
    """A match of a round: its id, its players in seat order and, once it finished, their ranks."""

    match: str
    players: tuple[str, ...]
    ranks: tuple[int, ...] | None = None
    meeting: str | None = None  # a knockout's: the bracket's meeting it decides


@dataclass(frozen=True)
class RoundPlayed:
    """A round as the log has it: its matches and byes."""

    number: int
    pairings: tuple[Pairing, ...]
    byes: tuple[Bye, ...] = ()
    walkovers: tuple[
        tuple[str, str], ...
    ] = ()  # a knockout's meetings decided without a game: (meeting, winner)

    @property
    def complete(self) -> bool:
        return all(p.ranks is not None for p in self.pairings)

    def outcomes(self) -> list[Outcome]:
        games: list[Outcome] = [Game(p.players, p.ranks) for p in self.pairings if p.ranks is not None]
        return [*games, *self.byes]


@dataclass(frozen=True)
class TournamentState:
    """A tournament as its log leaves it (``fold``)."""

    id: str
    kind: str
    game: str
    options: dict[str, Any]
    size: int
    rounds: int | None
    rated: bool
    bots_allowed: bool
    max_players: int
    commitment: str
    platform: str | None = None
    chain: int = 1  # the log's format (``TOURNAMENT_CHAIN``)
    name: str = ""
    entrants: tuple[Entrant, ...] = ()
    played: tuple[RoundPlayed, ...] = ()
    first_field: tuple[str, ...] = ()  # a round robin's field when its first round started
    seeds: tuple[str, ...] = ()  # a knockout's field in seed order, as its first round recorded it
    duration_minutes: int | None = None  # an arena's window
    knockout_draws: str = "higher_seed"  # a knockout's drawn meeting: the higher seed through, or "replay"
    closes: str | None = None  # when an arena's window closes (set by its first wave)
    starts_at: str | None = None  # the schedule's: when the first round starts by itself
    round_interval: int | None = None  # the schedule's: seconds from a round's last result to the next round
    round_done_at: str | None = None  # when the current round's last result came in (None: a game runs)
    last_at: str | None = None  # when an arena's last wave was paired
    finish_order: tuple[str, ...] = ()  # an arena's matches in the order their results came (its runs)
    seed: str | None = None
    standings: tuple[dict[str, Any], ...] = ()
    finished: bool = False
    version: int = 0
    head_hash: str | None = None

    def entrant(self, player: str) -> Entrant | None:
        return next((e for e in self.entrants if e.player == player), None)

    @property
    def in_field(self) -> list[Entrant]:
        """The players not withdrawn, in the order they registered."""
        return [e for e in self.entrants if not e.withdrawn]

    @property
    def current(self) -> RoundPlayed | None:
        return self.played[-1] if self.played else None

    def total_rounds(self) -> int | None:
        """The rounds the tournament plays: a Swiss's as created, a round robin's once its schedule is known
        (its first round started: the schedule's length follows from the field's size alone); a knockout's
        are not fixed (a withdrawal's walkovers, a double elimination's deciding final)."""
        if self.kind == "swiss":
            return self.rounds
        if self.kind in ELIMINATION or self.kind == "arena":  # until a champion; over a window
            return None
        if not self.first_field:
            return None
        return schedule_length(len(self.first_field), self.size)

    def match_of(self, match_id: str) -> Pairing | None:
        """The match, if it is of the current round (of any wave, in an arena)."""
        rounds = self.played if self.kind == "arena" else self.played[-1:]
        return next((p for r in rounds for p in r.pairings if p.match == match_id), None)

    def round_of(self, match_id: str) -> int | None:
        return next((r.number for r in self.played for p in r.pairings if p.match == match_id), None)

    @property
    def playing(self) -> set[str]:
        """The players in a game not finished."""
        return {player for r in self.played for p in r.pairings if p.ranks is None for player in p.players}


# -- the fold ---------------------------------------------------------------------------------------------------


def created(data: Mapping[str, Any], version: int = 1) -> TournamentState:
    return TournamentState(
        id=data["tournament"],
        kind=data["kind"],
        game=data["game"],
        options=dict(data["options"]),
        size=data["players_per_match"],
        rounds=data.get("rounds"),
        rated=data["rated"],
        bots_allowed=data["bots_allowed"],
        max_players=data["max_players"],
        commitment=data["seed_commitment"],
        platform=data.get("platform"),
        chain=data.get("chain", 1),
        name=data.get("name", ""),
        duration_minutes=data.get("duration_minutes"),
        knockout_draws=data.get("knockout_draws", "higher_seed"),
        starts_at=(data.get("schedule") or {}).get("starts_at"),
        round_interval=(data.get("schedule") or {}).get("round_interval"),
        version=version,
    )


def apply(state: TournamentState, entry: Recorded) -> TournamentState:
    """The state after ``entry``, which the state must be able to take (TournamentRefused otherwise)."""
    admissible(state, entry.type, entry.data)
    data = entry.data
    moved = replace(state, version=entry.version, head_hash=entry.hash)
    if entry.type == "player_registered":
        late = len(state.played)
        newcomer = Entrant(data["player"], data["name"], float(data["rating"]), data.get("bot"), False, late)
        return replace(moved, entrants=(*state.entrants, newcomer))
    if entry.type == "player_withdrew":
        entrants = tuple(
            replace(e, withdrawn=True) if e.player == data["player"] else e for e in state.entrants
        )
        return replace(moved, entrants=entrants)
    if entry.type == "round_started":
        pairings = tuple(
            Pairing(m["match"], tuple(m["players"]), meeting=m.get("meeting")) for m in data["matches"]
        )
        byes = tuple(Bye(b["player"], Fraction(b["points"])) for b in data["byes"])
        walkovers = tuple((w["meeting"], w["player"]) for w in data.get("walkovers", ()))
        first = state.first_field or tuple(e.player for e in state.in_field)
        return replace(
            moved,
            played=(*state.played, RoundPlayed(data["round"], pairings, byes, walkovers)),
            first_field=first,
            seeds=state.seeds or tuple(data.get("seeds", ())),
            closes=state.closes or data.get("closes"),
            last_at=data.get("at"),
            round_done_at=None if pairings else entry.at,  # byes and walkovers only: done as it starts
        )
    if entry.type == "game_finished":
        played = tuple(
            replace(
                r,
                pairings=tuple(
                    replace(p, ranks=tuple(data["ranks"])) if p.match == data["match"] else p
                    for p in r.pairings
                ),
            )
            if r.number == data["round"]
            else r
            for r in state.played
        )
        if state.kind != "arena":  # only an arena's runs depend on the order results came in
            done = entry.at if played and played[-1].complete else None
            return replace(moved, played=played, round_done_at=done)
        return replace(moved, played=played, finish_order=(*state.finish_order, data["match"]))
    if entry.type == "tournament_finished":
        return replace(moved, seed=data["seed"], standings=tuple(data["standings"]), finished=True)
    raise TournamentRefused("tournament_over", f"an entry of unknown type {entry.type!r}")


def admissible(state: TournamentState, kind: str, data: Mapping[str, Any]) -> None:
    """TournamentRefused (with its reason) when the tournament cannot take an entry of ``kind`` now."""
    if kind not in TYPES[1:]:
        raise TournamentRefused("tournament_over", f"no entry {kind!r} follows tournament_created")
    if state.finished:
        raise TournamentRefused("tournament_over", "the tournament has finished")
    if kind == "player_registered":
        if state.entrant(data["player"]) is not None:
            raise TournamentRefused("already_registered", f"{data['player']!r} is registered already")
        if state.kind not in ("swiss", "arena") and state.played:
            raise TournamentRefused("registration_closed", f"a {state.kind} takes no entries once started")
        if len(state.in_field) >= state.max_players:
            raise TournamentRefused("tournament_full", f"the tournament has {state.max_players} players")
        if data.get("bot") and not state.bots_allowed:
            raise TournamentRefused("bots_not_allowed", "the tournament does not let bots take part")
    elif kind == "player_withdrew":
        entrant = state.entrant(data["player"])
        if entrant is None or entrant.withdrawn:
            raise TournamentRefused("not_registered", f"{data['player']!r} is not in the tournament")
    elif kind in ("round_started", "tournament_finished") and state.kind == "arena":
        _arena_admissible(state, kind, data)
    elif kind in ("round_started", "tournament_finished"):
        current = state.current
        if current is not None and not current.complete:
            raise TournamentRefused("round_in_play", f"round {current.number} has games not finished")
        if kind == "round_started" and data["round"] != len(state.played) + 1:
            raise TournamentRefused(
                "round_in_play", f"round {data['round']} follows round {len(state.played)}"
            )
    elif kind == "game_finished":
        pairing = state.match_of(data["match"])
        number = state.round_of(data["match"]) if state.kind == "arena" else len(state.played)
        if pairing is None or data["round"] != number:
            raise TournamentRefused("bad_result", f"match {data['match']!r} is not of the current round")
        if pairing.ranks is not None:
            raise TournamentRefused("bad_result", f"match {data['match']!r} has its result already")
        ranks = data["ranks"]
        if len(ranks) != len(pairing.players) or not all(isinstance(r, int) and r >= 1 for r in ranks):
            raise TournamentRefused("bad_result", f"ranks {ranks} for players {list(pairing.players)}")


def _arena_admissible(state: TournamentState, kind: str, data: Mapping[str, Any]) -> None:
    at = data.get("at")
    if not isinstance(at, str) or (state.last_at is not None and at < state.last_at):
        raise TournamentRefused("bad_result", f"an arena's entry at {at!r} comes before {state.last_at!r}")
    if kind == "round_started":
        if data["round"] != len(state.played) + 1:
            raise TournamentRefused("round_in_play", f"wave {data['round']} follows wave {len(state.played)}")
        if state.closes is not None and at >= state.closes:
            raise TournamentRefused("no_round_left", f"the arena's window closed at {state.closes}")
        return
    if state.closes is None or at < state.closes:
        raise TournamentRefused("round_in_play", "the arena's window is open")
    if state.playing:
        raise TournamentRefused("round_in_play", "a game of the arena is not finished")


def fold(entries: Sequence[Recorded]) -> TournamentState:
    """The state a whole log leads to (its first entry ``tournament_created``)."""
    if not entries or entries[0].type != "tournament_created":
        raise TournamentRefused("tournament_over", "a tournament's log starts with tournament_created")
    state = replace(created(entries[0].data, entries[0].version), head_hash=entries[0].hash)
    for entry in entries[1:]:
        state = apply(state, entry)
    return state


# -- what the tournament decides ----------------------------------------------------------------------------


def seeded(entrants: Sequence[Entrant], seed: str) -> list[str]:
    """Players in seed order: rating, highest first, then the seeded order of equals."""
    return [e.player for e in sorted(entrants, key=lambda e: (-e.rating, tiebreak_key(seed, e.player)))]


def schedule(state: TournamentState, seed: str) -> list[list[tuple[str, ...]]]:
    """A round robin's rounds, fixed from its field when its first round starts (in seed order)."""
    players = state.first_field or tuple(e.player for e in state.in_field)
    by_player = {e.player: e for e in state.entrants}
    return _schedule(tuple(seeded([by_player[p] for p in players], seed)), state.size)


@functools.lru_cache(maxsize=8)  # a round robin's every round, and its audit's, reads the same schedule
def _schedule(order: tuple[str, ...], size: int) -> list[list[tuple[str, ...]]]:
    return round_robin.pairs(order) if size == 2 else round_robin.pods(order, size)


@functools.lru_cache(maxsize=64)
def schedule_length(count: int, size: int) -> int:
    """A round robin's number of rounds for ``count`` players: the schedule's shape follows from the count."""
    return len(_schedule(tuple(f"{i:04d}" for i in range(count)), size))


@dataclass(frozen=True)
class Decided(swiss.Round):
    """A knockout's round: its pods as ``swiss.Round``'s, and what the bracket adds to them."""

    meetings: tuple[str, ...] = ()  # each pod's meeting of the bracket
    walkovers: tuple[tuple[str, str], ...] = ()  # (meeting, who goes through) of meetings not played
    seeds: tuple[str, ...] = ()  # the field in seed order: in the first round only


@functools.lru_cache(maxsize=32)
def _bracket(kind: str, seeds: tuple[str, ...]) -> list[elimination.Meeting]:
    return elimination.single(seeds) if kind == "single_elimination" else elimination.double(seeds)


def meeting_winner(pairing: Pairing, seeds: Sequence[str]) -> str:
    """Who goes through a knockout's finished match: the player ranked first; a draw, the higher seed."""
    assert pairing.ranks is not None
    best = min(pairing.ranks)
    leaders = [p for p, r in zip(pairing.players, pairing.ranks, strict=True) if r == best]
    return min(leaders, key=list(seeds).index)


def drawn(pairing: Pairing) -> bool:
    """A finished match whose first place is shared."""
    assert pairing.ranks is not None
    return list(pairing.ranks).count(min(pairing.ranks)) > 1


KNOCKOUT_DRAWS = ("higher_seed", "replay")
"""What a knockout makes of a drawn meeting (``knockout_draws``): the higher seed goes through, or the meeting
is played again in the next round, seats swapped, up to ``MAX_REPLAYS`` times (then the higher seed)."""

MAX_REPLAYS = 2
"""The most times a drawn knockout meeting is played again."""


def replays(state: TournamentState) -> dict[str, int]:
    """A knockout's meetings drawn so far and played again (or to be), by meeting id: how many times."""
    drawn_so_far: dict[str, int] = {}
    if state.knockout_draws != "replay":
        return drawn_so_far
    for played in state.played:
        for pairing in played.pairings:
            if pairing.meeting is not None and pairing.ranks is not None and drawn(pairing):
                drawn_so_far[pairing.meeting] = drawn_so_far.get(pairing.meeting, 0) + 1
    return {m: n for m, n in drawn_so_far.items() if n <= MAX_REPLAYS}


def winners(state: TournamentState) -> dict[str, str]:
    """A knockout's decided meetings, by meeting id: who went through each (played or walked over). With
    ``knockout_draws: replay`` a drawn game decides nothing until its meeting has been played again
    ``MAX_REPLAYS`` times."""
    decided: dict[str, str] = {}
    seen_drawn: dict[str, int] = {}
    for played in state.played:
        for pairing in played.pairings:
            if pairing.meeting is None or pairing.ranks is None:
                continue
            if state.knockout_draws == "replay" and drawn(pairing):
                seen_drawn[pairing.meeting] = seen_drawn.get(pairing.meeting, 0) + 1
                if seen_drawn[pairing.meeting] <= MAX_REPLAYS:
                    continue  # played again
            decided[pairing.meeting] = meeting_winner(pairing, state.seeds)
        decided.update(played.walkovers)
    return decided


def bracket(state: TournamentState) -> list[elimination.Played]:
    """A knockout's bracket as far as its log goes (empty before its first round)."""
    if state.kind not in ELIMINATION or not state.seeds:
        return []
    return elimination.progress(_bracket(state.kind, state.seeds), state.seeds, winners(state))


def _knockout_round(state: TournamentState, seed: str) -> Decided:
    seeds = state.seeds or tuple(seeded(state.in_field, seed))
    if len(seeds) < 2:
        raise PairingRefused("too_few_players", "a bracket needs 2 players")
    meetings = _bracket(state.kind, seeds)
    decided = winners(state)
    withdrawn = {e.player for e in state.entrants if e.withdrawn}
    walkovers: list[tuple[str, str]] = []
    while True:
        ready = [p for p in elimination.progress(meetings, seeds, decided) if p.to_play]
        gone = [p for p in ready if withdrawn.intersection(p.players)]
        if not gone:
            break
        for meeting in gone:  # the one still in goes through; of two withdrawn, the higher seed
            players = [p for p in meeting.players if p is not None]
            staying = [p for p in players if p not in withdrawn] or players
            decided[meeting.id] = min(staying, key=seeds.index)
            walkovers.append((meeting.id, decided[meeting.id]))
    if not ready and not walkovers:
        raise TournamentRefused("no_round_left", "the bracket has its champion")
    again = replays(state)  # a replay swaps the seats of the game before it
    return Decided(
        tuple(
            (b, a) if again.get(p.id, 0) % 2 else (a, b)
            for p in ready
            for a, b in [p.players]
            if a is not None and b is not None
        ),
        meetings=tuple(p.id for p in ready),
        walkovers=tuple(walkovers),
        seeds=() if state.seeds else seeds,
    )


@dataclass(frozen=True)
class Wave(swiss.Round):
    """An arena's wave of pairings: its pods as ``swiss.Round``'s, when it was paired, and (the first) when
    the window closes."""

    at: str = ""
    closes: str | None = None


AT_FORMAT = "%Y-%m-%dT%H:%M:%S"
"""How a tournament's log writes its times: UTC, to the second."""


def later(at: str, seconds: int) -> str:
    """``at`` (``AT_FORMAT``) and ``seconds`` after it, in the same form."""
    return time.strftime(AT_FORMAT, time.gmtime(epoch_s(at) + seconds))


def epoch_s(at: str) -> int:
    """A log's time (``AT_FORMAT``) in seconds since the epoch: ValueError for another form."""
    return calendar.timegm(time.strptime(at, AT_FORMAT))


def next_round_at(state: TournamentState) -> str | None:
    """When the schedule starts the next round (``YYYY-MM-DDTHH:MM:SS``, UTC; it may have passed, the round
    not yet pairable): the first at ``starts_at``, a later one ``round_interval`` seconds after its
    predecessor's last result; None when the organiser starts it (no schedule for it), while a game of the
    round runs, once finished, and for an arena once its window has opened (it pairs by itself after)."""
    if state.finished:
        return None
    if not state.played:
        return state.starts_at
    if state.kind == "arena" or state.round_interval is None or state.round_done_at is None:
        return None
    return later(state.round_done_at, state.round_interval)


def arena_lines(state: TournamentState) -> dict[str, arena.Line]:
    """Each arena player's line (points, run, last opponent) after the results, in the order they came."""
    lines: dict[str, arena.Line] = {}
    for entrant in state.entrants:
        lines = arena.joined(lines, entrant.player, entrant.rating)
    games = {p.match: p for r in state.played for p in r.pairings}
    for match in state.finish_order:  # each finished: its ranks are known
        lines = arena.scored(lines, Game(games[match].players, games[match].ranks or ()))
    for entrant in state.entrants:
        if entrant.withdrawn:
            lines = arena.withdrawn(lines, entrant.player)
    return lines


def waiting(state: TournamentState) -> list[str]:
    """An arena's players waiting for a game: not withdrawn, not in a game not finished."""
    busy = state.playing
    return [e.player for e in state.in_field if e.player not in busy]


def _arena_wave(state: TournamentState, seed: str, now: str) -> Wave:
    assert state.duration_minutes is not None
    closes = state.closes or later(now, 60 * state.duration_minutes)
    admissible(state, "round_started", {"round": len(state.played) + 1, "at": now})
    if not state.played and len(state.in_field) < 2:
        raise PairingRefused("too_few_players", "an arena opens with 2 players")
    pairs = arena.paired(arena_lines(state), waiting(state), seed)
    return Wave(tuple(pairs), at=now, closes=None if state.closes else closes)


def next_round(state: TournamentState, seed: str, now: str | None = None) -> swiss.Round:
    """The pairings and byes of the next round: TournamentRefused when none may start now, PairingRefused
    (``too_few_players``) when the field cannot be paired. An arena's next wave, paired at ``now``."""
    if state.kind == "arena":
        assert now is not None, "an arena's wave is paired at a time"
        return _arena_wave(state, seed, now)
    admissible(state, "round_started", {"round": len(state.played) + 1})
    number = len(state.played) + 1
    if state.kind in ELIMINATION:
        return _knockout_round(state, seed)
    total = state.total_rounds()
    if total is not None and number > total:
        raise TournamentRefused("no_round_left", f"all {total} rounds have been played")
    if state.kind == "round_robin":
        withdrawn = {e.player for e in state.entrants if e.withdrawn}
        if len(state.in_field) < state.size:
            raise PairingRefused("too_few_players", f"a pod of {state.size} needs {state.size} players")
        games = schedule(state, seed)[number - 1]
        # a game of a player who withdrew is not played: its opponents sit it out, with no points
        return swiss.Round(tuple(g for g in games if withdrawn.isdisjoint(g)))
    entrants = [swiss.Entrant(e.player, e.rating) for e in state.in_field]
    rounds = [r.outcomes() for r in state.played]
    if state.size == 2 and len(entrants) <= DUTCH_MAX:
        return swiss.dutch(entrants, rounds, number, total or number, seed)
    return swiss.pods(entrants, rounds, state.size, seed)


def match_id(seed: str, tournament: str, number: int, index: int, pod: Sequence[str]) -> str:
    """The id of the match a round's ``index``-th pod plays, the same on every try of the round's start.

    Keyed with the tournament's secret seed: nobody can know, or create first, a match id of a round before
    the round starts (the seed is revealed only once every match is over). The pod's players are part of it,
    so a round paired anew (a player registered between a failed start and its retry) gets other ids."""
    message = json.dumps(["match", tournament, number, index, list(pod)]).encode()
    return hmac.new(seed.encode(), message, hashlib.sha256).hexdigest()[:32]


def match_ids(seed: str, tournament: str, number: int, pods: Sequence[Sequence[str]]) -> list[str]:
    """The ids of the matches of round ``number``'s ``pods``, in order (``match_id``)."""
    return [match_id(seed, tournament, number, i, pod) for i, pod in enumerate(pods)]


def round_started(
    number: int, paired: swiss.Round, match_ids: Sequence[str], started_by: str | None = None
) -> dict[str, Any]:
    """The ``round_started`` entry's data for ``paired``, its matches created with ``match_ids`` (in order);
    ``started_by``: ``SCHEDULE`` for a round the schedule started (None: the organiser)."""
    data: dict[str, Any] = {
        "round": number,
        "matches": [{"match": m, "players": list(p)} for m, p in zip(match_ids, paired.pods, strict=True)],
        "byes": [{"player": b.player, "points": str(b.points)} for b in paired.byes],
    }
    if isinstance(paired, Decided):
        for match, meeting in zip(data["matches"], paired.meetings, strict=True):
            match["meeting"] = meeting
        data["walkovers"] = [{"meeting": m, "player": p} for m, p in paired.walkovers]
        if paired.seeds:
            data["seeds"] = list(paired.seeds)
    if isinstance(paired, Wave):
        data["at"] = paired.at
        if paired.closes is not None:
            data["closes"] = paired.closes
    if started_by is not None:
        data["started_by"] = started_by
    return data


def seating(state: TournamentState, players: Sequence[str]) -> list[dict[str, Any]]:
    """The seats a match of ``players`` (in seat order) has, as its ``match_created`` records them (less each
    seat's number): the entrant's name, its bot if one plays it, its player id in a rated tournament."""
    seats: list[dict[str, Any]] = []
    for player in players:
        entrant = state.entrant(player)
        if entrant is None:
            seats.append({"player": player, "not_registered": True})
            continue
        seat: dict[str, Any] = {"name": entrant.name}
        if entrant.bot:
            seat["bot"] = entrant.bot
        elif state.rated:
            seat["player"] = entrant.player
        seats.append(seat)
    return seats


def final_standings(state: TournamentState, seed: str) -> list[Standing]:
    """The standings after every result and bye of the log (a withdrawn player keeps its place)."""
    outcomes = [o for r in state.played for o in r.outcomes()]
    lines = standings([e.player for e in state.entrants], outcomes, seed)
    if state.kind == "arena":  # the arena's points (wins 2, draws 1, doubled on fire), rating, the seed
        scored = arena_lines(state)
        by_player = {s.player: s for s in lines}
        return [
            replace(by_player[p], place=place, points=Fraction(scored[p].points))
            for place, p in enumerate(arena.ranking(scored, seed), start=1)
        ]
    if state.kind not in ELIMINATION:
        return lines
    # a knockout ranks by how far each got: the later a player went out, the higher; those still in (the
    # champion, once known) first; players out in the same round of the bracket by the lines above
    meetings = _bracket(state.kind, state.seeds) if state.seeds else []
    stage_of: dict[str, int] = {}
    for meeting in meetings:
        stage_of.setdefault(meeting.id.split("-")[0], len(stage_of))
    lives = 1 if state.kind == "single_elimination" else 2
    losses: dict[str, int] = {}
    out_at: dict[str, int] = {}
    for played in bracket(state):
        if played.loser is not None:
            losses[played.loser] = losses.get(played.loser, 0) + 1
            if losses[played.loser] == lives:
                out_at[played.loser] = stage_of[played.id.split("-")[0]]
    ordered = sorted(lines, key=lambda s: (-out_at.get(s.player, len(stage_of)), s.place))
    return [replace(s, place=place) for place, s in enumerate(ordered, start=1)]


def standing_rows(lines: Sequence[Standing]) -> list[dict[str, Any]]:
    """Standings as the log and the API keep them: points as exact fractions in text (``"3/2"``)."""
    return [
        {
            "place": s.place,
            "player": s.player,
            "points": str(s.points),
            "buchholz": str(s.buchholz),
            "sonneborn_berger": str(s.sonneborn_berger),
            "wins": s.wins,
            "games": s.games,
            "byes": s.byes,
        }
        for s in lines
    ]


def shown_standings(state: TournamentState) -> list[dict[str, Any]]:
    """The standings as anyone may see them: final once finished (as the log records them); before,
    provisional, ties past the tie-breaks ordered by the commitment, which tells nothing of the seed."""
    if state.finished:
        return list(state.standings)
    return standing_rows(final_standings(state, state.commitment))


PUSHED = {
    "round_started": "tournament_round_started",
    "game_finished": "tournament_game_finished",
    "tournament_finished": "tournament_finished",
}
"""The webhook event each of these entries is pushed as, to the tournament's platform."""


def pushed(entry: Recorded, standings_now: list[dict[str, Any]], tournament: str) -> dict[str, Any]:
    """The body of the webhook delivery of ``entry`` (one of ``PUSHED``): what it says, and the standings
    after the append that brought it."""
    data = entry.data
    body: dict[str, Any] = {"tournament": tournament, "version": entry.version}
    if entry.type == "round_started":
        body.update(
            round=data["round"],
            matches=[{"match": m["match"], "players": m["players"]} for m in data["matches"]],
        )
    elif entry.type == "game_finished":
        body.update(round=data["round"], match=data["match"], ranks=data["ranks"])
    else:
        body.update(seed=data["seed"])
    return {**body, "standings": standings_now}


def is_over(state: TournamentState, seed: str, now: str | None = None) -> bool:
    """Whether every round has been played and every game of the last one finished (an arena: its window
    has closed by ``now`` and no game runs)."""
    if state.kind == "arena":
        return state.closes is not None and now is not None and now >= state.closes and not state.playing
    current = state.current
    if state.kind in ELIMINATION:
        played = bracket(state)
        return (
            bool(played)
            and elimination.champion(played) is not None
            and current is not None
            and current.complete
        )
    total = state.total_rounds()
    return total is not None and len(state.played) >= total and (current is None or current.complete)


def finished_entry(state: TournamentState, seed: str, now: str | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"seed": seed, "standings": standing_rows(final_standings(state, seed))}
    if state.kind == "arena":
        data["at"] = now
    return data


# -- the audit ------------------------------------------------------------------------------------------------


@dataclass
class Audit:
    """What ``audit`` checked: entries, rounds and games recomputed, and whether the seed was known."""

    entries: int = 0
    rounds: int = 0
    games: int = 0
    results_checked: int = 0
    seats_checked: int = 0
    match_ids_checked: int = 0
    seed_known: bool = False
    finished: bool = False
    matches: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "entries": self.entries,
            "rounds": self.rounds,
            "games": self.games,
            "results_checked": self.results_checked,
            "seats_checked": self.seats_checked,
            "match_ids_checked": self.match_ids_checked,
            "seed_known": self.seed_known,
            "finished": self.finished,
        }


def audit(
    entries: Sequence[Recorded],
    seed: str | None = None,
    results: Mapping[str, Sequence[int]] | None = None,
    seats: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
) -> Audit:
    """Replay a tournament's log and recompute everything it decided; TournamentForged at the first entry
    that differs. ``seed``: the seed, when the log does not reveal it yet (else the revealed one is used, and a
    ``seed`` given must equal it); without either, only the chain, the order and the results are checked.
    ``results``: the ranks each match's own log ends with (``matchlog replay`` reads them), compared with
    the ``game_finished`` entries. ``seats``: who each match's own log seats (its ``match_created``'s
    ``players``, each seat's ``name`` and, where it has them, ``player`` and ``bot``), compared with the
    round's pairing (``seating``)."""
    try:
        verify_chain(entries)
    except BrokenChain as broken:
        raise TournamentForged(broken.version, "broken_chain", str(broken)) from broken
    for expected, entry in enumerate(entries, start=1):
        if entry.version != expected:
            raise TournamentForged(entry.version, "out_of_order", f"is entry number {expected} of the log")
    if not entries or entries[0].type != "tournament_created":
        raise TournamentForged(1, "out_of_order", "a tournament's log starts with tournament_created")
    revealed = next((e.data.get("seed") for e in entries if e.type == "tournament_finished"), None)
    state = created(entries[0].data)
    if revealed is not None:
        if seed_commitment(revealed) != state.commitment:
            last = entries[-1].version
            raise TournamentForged(last, "seed_commitment", "the revealed seed is not the one committed to")
        if seed is not None and seed != revealed:
            raise TournamentForged(
                entries[-1].version, "seed_commitment", "the seed given is not the revealed one"
            )
        seed = revealed
    elif seed is not None and seed_commitment(seed) != state.commitment:
        raise TournamentForged(1, "seed_commitment", "the seed given is not the one committed to")
    report = Audit(entries=len(entries), seed_known=seed is not None)
    seen: set[str] = set()
    for entry in entries[1:]:
        _check(state, entry, seed, results, seats, report, seen)
        try:
            state = apply(state, entry)
        except TournamentRefused as refused:
            raise TournamentForged(entry.version, "out_of_order", str(refused)) from refused
    report.finished = state.finished
    report.matches = sorted(seen)
    return report


def _check_schedule(state: TournamentState, entry: Recorded) -> None:
    """A round the log says the schedule started: the schedule had it due, and not after the entry's time."""
    started_by = entry.data.get("started_by")
    if started_by is None:
        return
    try:
        due = next_round_at(state)
    except (ValueError, TypeError):  # a schedule or a time not in the log's form: no time to hold it to
        due = None
    if started_by != SCHEDULE or due is None or entry.at < due:
        raise TournamentForged(
            entry.version,
            "schedule",
            f"round {entry.data['round']} at {entry.at} says {started_by!r} started it, the schedule has it "
            f"due at {due}",
        )


def _check(
    state: TournamentState,
    entry: Recorded,
    seed: str | None,
    results: Mapping[str, Sequence[int]] | None,
    seats: Mapping[str, Sequence[Mapping[str, Any]]] | None,
    report: Audit,
    seen: set[str],
) -> None:
    data, version = entry.data, entry.version
    if entry.type == "round_started":
        report.rounds += 1
        ids = [m["match"] for m in data["matches"]]
        if len(set(ids)) != len(ids) or seen.intersection(ids):
            raise TournamentForged(version, "pairings", "a match id is used twice")
        seen.update(ids)
        report.games += len(ids)
        _check_schedule(state, entry)
        for match in data["matches"]:
            if seats is not None and match["match"] in seats:
                report.seats_checked += 1
                sat = [{k: v for k, v in seat.items() if k != "seat"} for seat in seats[match["match"]]]
                if sat != seating(state, match["players"]):
                    raise TournamentForged(
                        version,
                        "seats",
                        f"match {match['match']} seats {sat}, round {data['round']} pairs {match['players']}",
                    )
        if seed is None:
            return
        try:
            paired = next_round(state, seed, data.get("at") if state.kind == "arena" else None)
        except (TournamentRefused, PairingRefused) as refused:
            raise TournamentForged(
                version, "out_of_order", f"no round could start here: {refused}"
            ) from refused
        recorded = [tuple(m["players"]) for m in data["matches"]]
        if recorded != list(paired.pods):
            raise TournamentForged(
                version,
                "pairings",
                f"round {data['round']} pairs {recorded}, the rules pair {list(paired.pods)}",
            )
        if state.chain >= DERIVED_IDS_CHAIN:
            derived = match_ids(seed, state.id, data["round"], paired.pods)
            for given, wanted_id in zip(ids, derived, strict=True):
                if given != wanted_id:
                    raise TournamentForged(
                        version,
                        "match_ids",
                        f"round {data['round']} names match {given}, the seed derives {wanted_id}",
                    )
            report.match_ids_checked += len(ids)
        wanted_entry = round_started(data["round"], paired, ids)
        for key in ("seeds", "walkovers", "at", "closes"):
            if data.get(key) != wanted_entry.get(key):
                raise TournamentForged(
                    version,
                    "window" if key in ("at", "closes") else "bracket",
                    f"round {data['round']} gives {key} {data.get(key)}, the rules {wanted_entry.get(key)}",
                )
        if data["matches"] != wanted_entry["matches"]:
            raise TournamentForged(
                version, "bracket", f"round {data['round']}'s matches are not the bracket's meetings"
            )
        byes = [(b["player"], b["points"]) for b in data["byes"]]
        wanted = [(b.player, str(b.points)) for b in paired.byes]
        if byes != wanted:
            raise TournamentForged(
                version, "byes", f"round {data['round']} gives byes {byes}, the rules {wanted}"
            )
    elif entry.type == "game_finished" and results is not None and data["match"] in results:
        report.results_checked += 1
        if list(results[data["match"]]) != list(data["ranks"]):
            raise TournamentForged(
                version,
                "result",
                f"match {data['match']} ended with ranks {list(results[data['match']])}, "
                f"the tournament records {data['ranks']}",
            )
    elif entry.type == "tournament_finished" and seed is not None:
        if not is_over(state, seed, data.get("at")):
            raise TournamentForged(version, "out_of_order", "the tournament finished before its last round")
        wanted_rows = standing_rows(final_standings(state, seed))
        if list(data["standings"]) != wanted_rows:
            raise TournamentForged(
                version, "standings", "the standings are not what the results make of them"
            )
