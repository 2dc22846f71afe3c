"""Tournaments' logs: whole tournaments of each kind played through the fold, and forged logs the audit refuses."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from service.domain import tournaments
from service.domain.chain import Recorded
from service.domain.errors import TournamentForged, TournamentRefused

SEED = "a-secret-seed"


class Log:
    """A tournament's log built as the server builds it: each entry admitted by the fold, then chained."""

    def __init__(
        self,
        kind: str,
        size: int = 2,
        rounds: int | None = None,
        seed: str = SEED,
        minutes: int | None = None,
        schedule: dict[str, Any] | None = None,
    ) -> None:
        self.seed = seed
        self.at = "2026-12-07T12:00:00"  # the time the next entry is appended at
        self.entries: list[Recorded] = []
        window: dict[str, Any] = {"duration_minutes": minutes} if minutes is not None else {}
        if schedule is not None:
            window["schedule"] = schedule
        self.append(
            "tournament_created",
            {
                **window,
                "chain": tournaments.TOURNAMENT_CHAIN,
                "tournament": "t-1",
                "platform": "p-1",
                "name": "Test cup",
                "kind": kind,
                "game": "blokus",
                "options": {},
                "players_per_match": size,
                "rounds": rounds,
                "rated": True,
                "bots_allowed": False,
                "max_players": tournaments.most_players(kind, size, 1000),
                "seed_commitment": tournaments.seed_commitment(seed),
            },
        )

    @property
    def state(self) -> tournaments.TournamentState:
        return tournaments.fold(self.entries)

    def append(self, type_: str, data: dict[str, Any]) -> None:
        entry = Recorded(len(self.entries) + 1, type_, None, data, self.at)
        if self.entries:
            tournaments.apply(self.state, entry)  # refused here as the server refuses it
        prev = self.entries[-1].hash if self.entries else None
        self.entries.append(entry.chained(prev))

    def register(self, count: int) -> None:
        for i in range(count):
            self.append(
                "player_registered",
                {"player": f"u-{i}", "name": f"Player {i}", "rating": 1500 + 10 * (i % 7), "bot": None},
            )

    def start_round(self, started_by: str | None = None) -> tournaments.swiss.Round:
        state = self.state
        paired = tournaments.next_round(state, self.seed)
        number = len(state.played) + 1
        ids = tournaments.match_ids(self.seed, "t-1", number, paired.pods)
        self.append("round_started", tournaments.round_started(number, paired, ids, started_by))
        return paired

    def finish_games(self, rng: random.Random) -> dict[str, list[int]]:
        state = self.state
        assert state.current is not None
        results = {}
        for pairing in state.current.pairings:
            ranks = [rng.randint(1, len(pairing.players)) for _ in pairing.players]
            results[pairing.match] = ranks
            self.append(
                "game_finished", {"round": state.current.number, "match": pairing.match, "ranks": ranks}
            )
        return results

    def play(self, rng: random.Random) -> dict[str, list[int]]:
        results: dict[str, list[int]] = {}
        while not tournaments.is_over(self.state, self.seed):
            self.start_round()
            results.update(self.finish_games(rng))
        self.append("tournament_finished", tournaments.finished_entry(self.state, self.seed))
        return results


def rechained(entries: list[Recorded]) -> list[Recorded]:
    """The entries with their hashes made again: a forger who rewrites the chain after changing an entry."""
    out: list[Recorded] = []
    for entry in entries:
        out.append(replace(entry, hash=None).chained(out[-1].hash if out else None))
    return out


def forged(entries: list[Recorded], version: int, data: dict[str, Any]) -> list[Recorded]:
    changed = [replace(e, data=data) if e.version == version else e for e in entries]
    return rechained(changed)


def first(entries: list[Recorded], type_: str, after: int = 0) -> Recorded:
    return next(e for e in entries if e.type == type_ and e.version > after)


@pytest.mark.parametrize(
    ("kind", "size", "players", "rounds"),
    [
        ("round_robin", 2, 6, None),
        ("round_robin", 2, 7, None),
        ("round_robin", 3, 6, None),
        ("round_robin", 4, 6, None),
        ("swiss", 2, 9, 4),
        ("swiss", 2, 30, 3),
        ("swiss", 3, 10, 3),
        ("swiss", 4, 13, 4),
        ("single_elimination", 2, 2, None),
        ("single_elimination", 2, 6, None),
        ("single_elimination", 2, 16, None),
        ("double_elimination", 2, 2, None),
        ("double_elimination", 2, 5, None),
        ("double_elimination", 2, 8, None),
    ],
)
def test_a_whole_tournament_audits(kind: str, size: int, players: int, rounds: int | None) -> None:
    log = Log(kind, size, rounds)
    log.register(players)
    results = log.play(random.Random(players))
    state = log.state
    assert state.finished and state.seed == SEED
    total = len(state.played)
    if kind == "swiss":
        assert total == rounds
    met = {frozenset(p.players) for r in state.played for p in r.pairings}
    if kind == "round_robin" and size == 2:
        assert len(met) == players * (players - 1) // 2
    report = tournaments.audit(log.entries, results=results)
    assert report.finished and report.seed_known and report.rounds == total
    assert report.results_checked == sum(len(r.pairings) for r in state.played)
    points = sum(Fraction(s["points"]) for s in state.standings)
    games = sum(Fraction(len(p.players) * (len(p.players) - 1), 2) for r in state.played for p in r.pairings)
    byes = sum(b.points for r in state.played for b in r.byes)
    assert points == games + byes


def test_withdrawal_and_late_entry_in_a_swiss() -> None:
    log = Log("swiss", 2, 3)
    log.register(8)
    rng = random.Random(3)
    log.start_round()
    log.finish_games(rng)
    log.append("player_withdrew", {"player": "u-3"})
    log.append("player_registered", {"player": "late", "name": "Late", "rating": 1400, "bot": None})
    paired = log.start_round()
    assert all("u-3" not in pod for pod in paired.pods)
    assert any("late" in pod for pod in paired.pods) or any(b.player == "late" for b in paired.byes)
    log.finish_games(rng)
    log.start_round()
    log.finish_games(rng)
    log.append("tournament_finished", tournaments.finished_entry(log.state, SEED))
    assert "u-3" in [s["player"] for s in log.state.standings]
    assert tournaments.audit(log.entries).finished


def test_a_withdrawn_players_games_are_not_played_in_a_round_robin() -> None:
    log = Log("round_robin", 2)
    log.register(4)
    log.start_round()
    log.finish_games(random.Random(1))
    log.append("player_withdrew", {"player": "u-0"})
    paired = log.start_round()
    assert len(paired.pods) == 1 and all("u-0" not in pod for pod in paired.pods)


def test_refusals_name_their_reason() -> None:
    log = Log("round_robin", 2)
    log.register(3)
    with pytest.raises(TournamentRefused) as refused:
        log.register(1)
    assert refused.value.reason == "already_registered"
    log.start_round()
    with pytest.raises(TournamentRefused) as refused:
        log.append("player_registered", {"player": "x", "name": "X", "rating": 1500, "bot": None})
    assert refused.value.reason == "registration_closed"
    with pytest.raises(TournamentRefused) as refused:
        log.start_round()
    assert refused.value.reason == "round_in_play"
    with pytest.raises(TournamentRefused) as refused:
        log.append("game_finished", {"round": 1, "match": "nope", "ranks": [1, 2]})
    assert refused.value.reason == "bad_result"
    bots = Log("swiss", 2, 3)
    with pytest.raises(TournamentRefused) as refused:
        bots.append("player_registered", {"player": "b", "name": "B", "rating": 1500, "bot": "random"})
    assert refused.value.reason == "bots_not_allowed"


def test_a_round_robin_is_bounded() -> None:
    assert tournaments.most_players("round_robin", 2, 1000) == 64
    assert tournaments.most_players("round_robin", 4, 1000) == 16
    assert tournaments.most_players("swiss", 4, 5000) == tournaments.MAX_PLAYERS


@pytest.fixture(scope="module")
def played() -> tuple[list[Recorded], dict[str, list[int]]]:
    log = Log("swiss", 2, 3)
    log.register(8)
    results = log.play(random.Random(8))
    return log.entries, results


def refused(entries: list[Recorded], **kwargs: Any) -> TournamentForged:
    with pytest.raises(TournamentForged) as forgery:
        tournaments.audit(entries, **kwargs)
    return forgery.value


def test_the_audit_refuses_a_changed_entry_without_rechaining(
    played: tuple[list[Recorded], dict[str, list[int]]],
) -> None:
    entries, _ = played
    round_two = first(entries, "round_started", first(entries, "round_started").version)
    data = {**round_two.data, "matches": list(reversed(round_two.data["matches"]))}
    changed = [replace(e, data=data) if e.version == round_two.version else e for e in entries]
    assert refused(changed).reason == "broken_chain"


def test_the_audit_refuses_forged_pairings(played: tuple[list[Recorded], dict[str, list[int]]]) -> None:
    entries, _ = played
    round_two = first(entries, "round_started", first(entries, "round_started").version)
    matches = [dict(m) for m in round_two.data["matches"]]
    a, b = matches[0]["players"], matches[1]["players"]
    matches[0] = {**matches[0], "players": [a[0], b[1]]}
    matches[1] = {**matches[1], "players": [b[0], a[1]]}
    forgery = refused(forged(entries, round_two.version, {**round_two.data, "matches": matches}))
    assert (forgery.reason, forgery.version) == ("pairings", round_two.version)


def test_the_audit_refuses_swapped_seats(played: tuple[list[Recorded], dict[str, list[int]]]) -> None:
    entries, _ = played
    start = first(entries, "round_started")
    matches = [dict(m) for m in start.data["matches"]]
    matches[0] = {**matches[0], "players": list(reversed(matches[0]["players"]))}
    assert refused(forged(entries, start.version, {**start.data, "matches": matches})).reason == "pairings"


def substituted(entries: list[Recorded], old: str, new: str) -> list[Recorded]:
    """The log with match ``old`` named ``new`` wherever it is named (its round and its result), rechained."""
    text = [(e, json.dumps(e.data)) for e in entries]
    return rechained([replace(e, data=json.loads(t.replace(old, new))) if old in t else e for e, t in text])


def test_the_audit_refuses_a_match_id_the_seed_does_not_derive(
    played: tuple[list[Recorded], dict[str, list[int]]],
) -> None:
    """A round's match replaced by one created beforehand (its id not the one the seed derives), named in its
    round and its result alike: the pairings are the rules', the id is not."""
    entries, results = played
    assert tournaments.audit(entries, results=results).match_ids_checked == len(results)
    round_two = first(entries, "round_started", first(entries, "round_started").version)
    taken = round_two.data["matches"][1]["match"]
    forgery = refused(substituted(entries, taken, "0" * 32))
    assert (forgery.reason, forgery.version) == ("match_ids", round_two.version)
    assert taken in str(forgery) and "0" * 32 in str(forgery)


def test_a_log_from_before_derived_match_ids_still_audits(
    played: tuple[list[Recorded], dict[str, list[int]]],
) -> None:
    """A log of chain 1 (match ids drawn at random then) audits in full but for its ids; the same log saying
    chain 2 is refused."""
    entries, _ = played
    ids = [m["match"] for e in entries if e.type == "round_started" for m in e.data["matches"]]
    random_ids = entries
    for i, old in enumerate(ids):
        random_ids = substituted(random_ids, old, f"{i:032x}")
    created = random_ids[0]
    old_log = rechained([replace(created, data={**created.data, "chain": 1}), *random_ids[1:]])
    report = tournaments.audit(old_log)
    assert report.finished and report.rounds == 3 and report.match_ids_checked == 0
    assert refused(random_ids).reason == "match_ids"


def test_the_audit_refuses_a_forged_bye() -> None:
    log = Log("swiss", 2, 2)
    log.register(5)
    log.play(random.Random(5))
    start = first(log.entries, "round_started")
    bye = start.data["byes"][0]
    data = {**start.data, "byes": [{**bye, "points": "1/2"}]}
    assert refused(forged(log.entries, start.version, data)).reason == "byes"


def test_the_audit_refuses_a_forged_standing(played: tuple[list[Recorded], dict[str, list[int]]]) -> None:
    entries, _ = played
    end = entries[-1]
    rows = [dict(r) for r in end.data["standings"]]
    rows[0], rows[1] = {**rows[1], "place": 1}, {**rows[0], "place": 2}
    forgery = refused(forged(entries, end.version, {**end.data, "standings": rows}))
    assert (forgery.reason, forgery.version) == ("standings", end.version)
    rows = [dict(r) for r in end.data["standings"]]
    rows[-1]["points"] = "9"
    assert refused(forged(entries, end.version, {**end.data, "standings": rows})).reason == "standings"


def test_the_audit_refuses_a_result_its_match_did_not_have(
    played: tuple[list[Recorded], dict[str, list[int]]],
) -> None:
    entries, results = played
    game = first(entries, "game_finished")
    lied = {**results, game.data["match"]: list(reversed(game.data["ranks"])) + [0]}
    assert refused(entries, results=lied).reason == "result"
    # a result changed in the log itself: the standings it leads to no longer match the match's log either
    ranks = [2, 1] if game.data["ranks"] != [2, 1] else [1, 2]
    changed = forged(entries, game.version, {**game.data, "ranks": ranks})
    assert refused(changed, results=results).reason == "result"


def test_the_audit_refuses_a_seed_not_committed_to(
    played: tuple[list[Recorded], dict[str, list[int]]],
) -> None:
    entries, _ = played
    end = entries[-1]
    forgery = refused(forged(entries, end.version, {**end.data, "seed": "another-seed"}))
    assert forgery.reason == "seed_commitment"
    unfinished = entries[:-1]
    assert refused(unfinished, seed="another-seed").reason == "seed_commitment"
    assert tournaments.audit(unfinished, seed=SEED).seed_known


def test_the_audit_refuses_entries_out_of_order(played: tuple[list[Recorded], dict[str, list[int]]]) -> None:
    entries, _ = played
    start = first(entries, "round_started")
    moved = [*entries[: start.version - 2], entries[start.version - 1], entries[start.version - 2]]
    moved += entries[start.version :]
    assert refused(rechained(moved)).reason == "out_of_order"
    renumbered = [replace(e, version=i) for i, e in enumerate(moved, start=1)]
    assert refused(rechained(renumbered)).reason in ("out_of_order", "pairings")


def test_without_the_seed_an_unfinished_log_still_checks_its_order(
    played: tuple[list[Recorded], dict[str, list[int]]],
) -> None:
    entries, _ = played
    report = tournaments.audit(entries[:-1])
    assert not report.seed_known and not report.finished


# -- knockouts -------------------------------------------------------------------------------------------------


def knockout(kind: str, players: int, rng: random.Random) -> Log:
    log = Log(kind)
    log.register(players)
    log.play(rng)
    return log


@pytest.mark.parametrize("kind", tournaments.ELIMINATION)
def test_a_knockouts_standings_follow_the_bracket(kind: str) -> None:
    log = knockout(kind, 7, random.Random(7))
    state = log.state
    played = tournaments.bracket(state)
    champion = tournaments.elimination.champion(played)
    assert champion is not None and state.standings[0]["player"] == champion
    final = played[-1] if played[-1].players != (None, None) else played[-2]
    assert state.standings[1]["player"] == final.loser
    # seeded by rating, then the seed: the top-rated (1560, u-6) is seed 1 and gets the one bye
    assert state.seeds[0] == "u-6"
    first_round = state.played[0]
    assert len(first_round.pairings) == 3 and all(p.meeting.startswith("W1-") for p in first_round.pairings)
    assert all("u-6" not in p.players for p in first_round.pairings)
    assert len(state.seeds) == 7 and sorted(state.seeds) == sorted(e.player for e in state.entrants)


def test_a_drawn_meeting_sends_the_higher_seed_through() -> None:
    log = Log("single_elimination")
    log.register(2)
    log.start_round()
    state = log.state
    match = state.current.pairings[0]
    log.append("game_finished", {"round": 1, "match": match.match, "ranks": [1, 1]})
    assert tournaments.is_over(log.state, SEED)
    log.append("tournament_finished", tournaments.finished_entry(log.state, SEED))
    assert log.state.standings[0]["player"] == log.state.seeds[0]


def test_a_withdrawn_player_gives_its_opponent_a_walkover() -> None:
    log = Log("single_elimination")
    log.register(4)
    log.start_round()
    state = log.state
    first, second = state.current.pairings
    log.append("game_finished", {"round": 1, "match": first.match, "ranks": [1, 2]})
    log.append("game_finished", {"round": 1, "match": second.match, "ranks": [2, 1]})
    log.append("player_withdrew", {"player": first.players[0]})
    paired = log.start_round()
    assert isinstance(paired, tournaments.Decided)
    assert paired.pods == () and paired.walkovers == (("W2-1", second.players[1]),)
    assert tournaments.is_over(log.state, SEED)
    with pytest.raises(TournamentRefused) as refused:
        tournaments.next_round(log.state, SEED)
    assert refused.value.reason == "no_round_left"
    log.append("tournament_finished", tournaments.finished_entry(log.state, SEED))
    assert [s["player"] for s in log.state.standings[:2]] == [second.players[1], first.players[0]]
    assert tournaments.audit(log.entries).finished


def test_a_knockout_takes_no_late_entry() -> None:
    log = Log("double_elimination")
    log.register(3)
    log.start_round()
    with pytest.raises(TournamentRefused) as refused:
        log.append("player_registered", {"player": "x", "name": "X", "rating": 1500, "bot": None})
    assert refused.value.reason == "registration_closed"


@pytest.fixture(scope="module")
def bracket_log() -> list[Recorded]:
    return knockout("double_elimination", 6, random.Random(6)).entries


def test_the_audit_refuses_forged_seeds(bracket_log: list[Recorded]) -> None:
    start = first(bracket_log, "round_started")
    seeds = list(start.data["seeds"])
    seeds[0], seeds[-1] = seeds[-1], seeds[0]
    forgery = refused(forged(bracket_log, start.version, {**start.data, "seeds": seeds}))
    assert (forgery.reason, forgery.version) == ("bracket", start.version)


def test_the_audit_refuses_a_forged_meeting_or_walkover(bracket_log: list[Recorded]) -> None:
    start = first(bracket_log, "round_started")
    matches = [dict(m) for m in start.data["matches"]]
    matches[0]["meeting"], matches[1]["meeting"] = matches[1]["meeting"], matches[0]["meeting"]
    assert refused(forged(bracket_log, start.version, {**start.data, "matches": matches})).reason == "bracket"
    walked = {**start.data, "walkovers": [{"meeting": "W1-1", "player": matches[0]["players"][0]}]}
    assert refused(forged(bracket_log, start.version, walked)).reason == "bracket"


def test_the_audit_refuses_a_forged_knockout_pairing(bracket_log: list[Recorded]) -> None:
    second = first(bracket_log, "round_started", first(bracket_log, "round_started").version)
    matches = [dict(m) for m in second.data["matches"]]
    matches[0] = {**matches[0], "players": list(reversed(matches[0]["players"]))}
    forgery = refused(forged(bracket_log, second.version, {**second.data, "matches": matches}))
    assert (forgery.reason, forgery.version) == ("pairings", second.version)


def test_the_audit_refuses_a_knockout_finished_early_or_ranked_otherwise(bracket_log: list[Recorded]) -> None:
    end = bracket_log[-1]
    rows = [dict(r) for r in end.data["standings"]]
    rows[0]["player"], rows[1]["player"] = rows[1]["player"], rows[0]["player"]
    assert refused(forged(bracket_log, end.version, {**end.data, "standings": rows})).reason == "standings"
    early = [*bracket_log[:-3], replace(end, version=end.version - 2)]
    assert refused(rechained(early)).reason == "out_of_order"


# -- the arena -------------------------------------------------------------------------------------------------


def wave(log: Log, at: str) -> tournaments.swiss.Round:
    """The arena's waiting players paired at ``at`` (``12:03`` of the test's day), appended if any were."""
    state = log.state
    paired = tournaments.next_round(state, SEED, f"2026-12-07T{at}:00")
    number = len(state.played) + 1
    if paired.pods:
        ids = tournaments.match_ids(SEED, "t-1", number, paired.pods)
        log.append("round_started", tournaments.round_started(number, paired, ids))
    return paired


def result(log: Log, players: set[str], ranks: list[int]) -> None:
    state = log.state
    match = next(p for r in state.played for p in r.pairings if set(p.players) == players and p.ranks is None)
    log.append("game_finished", {"round": state.round_of(match.match), "match": match.match, "ranks": ranks})


@pytest.fixture(scope="module")
def arena_log() -> Log:
    log = Log("arena", minutes=10)
    log.register(6)
    first = wave(log, "12:00")
    assert len(first.pods) == 3 and log.state.closes == "2026-12-07T12:10:00"
    a, b, c = (set(p) for p in first.pods)
    result(log, a, [1, 2])
    assert wave(log, "12:01").pods == ()  # the only two waiting met in their last game: no immediate rematch
    result(log, b, [1, 2])
    again = wave(log, "12:02")
    assert len(again.pods) == 2 and all(set(p) not in (a, b) for p in again.pods)
    with pytest.raises(TournamentRefused) as closed:
        tournaments.next_round(log.state, SEED, "2026-12-07T12:10:00")
    assert closed.value.reason == "no_round_left"
    for pod in again.pods:
        result(log, set(pod), [2, 1])
    assert not tournaments.is_over(log.state, SEED, "2026-12-07T12:11:00")  # c's game still runs
    result(log, c, [1, 1])
    state = log.state
    assert not tournaments.is_over(state, SEED, "2026-12-07T12:09:59")
    log.append("tournament_finished", tournaments.finished_entry(state, SEED, "2026-12-07T12:11:00"))
    return log


def test_an_arena_pairs_its_waiting_players_over_its_window_and_audits(arena_log: Log) -> None:
    state = arena_log.state
    assert (
        state.finished
        and len(state.played) == 2
        and state.finish_order[-1] == state.played[0].pairings[2].match
    )
    lines = tournaments.arena_lines(state)
    assert [s["points"] for s in state.standings] == sorted(
        (str(line.points) for line in lines.values()), key=int, reverse=True
    )
    assert sum(int(s["points"]) for s in state.standings) == 2 * 5  # five games, two points each
    report = tournaments.audit(arena_log.entries)
    assert report.finished and report.rounds == 2 and report.games == 5


def test_the_audit_refuses_a_forged_arena(arena_log: Log) -> None:
    entries = arena_log.entries
    second = first(entries, "round_started", first(entries, "round_started").version)
    opening = first(entries, "round_started")
    late = forged(entries, opening.version, {**opening.data, "closes": "2026-12-07T13:00:00"})
    assert refused(late).reason == "window"
    pods = [dict(m) for m in second.data["matches"]]
    pods[0], pods[1] = {**pods[0], "players": pods[1]["players"]}, {**pods[1], "players": pods[0]["players"]}
    assert refused(forged(entries, second.version, {**second.data, "matches": pods})).reason == "pairings"
    after_close = forged(entries, second.version, {**second.data, "at": "2026-12-07T12:10:00"})
    assert refused(after_close).reason == "out_of_order"
    end = entries[-1]
    early = forged(entries, end.version, {**end.data, "at": "2026-12-07T12:09:00"})
    assert refused(early).reason == "out_of_order"
    rows = [dict(r) for r in end.data["standings"]]
    rows[-1]["points"] = "40"
    assert refused(forged(entries, end.version, {**end.data, "standings": rows})).reason == "standings"


def test_an_arena_takes_late_entries_and_pairs_them() -> None:
    log = Log("arena", minutes=5)
    log.register(2)
    wave(log, "12:00")
    log.append("player_registered", {"player": "late", "name": "Late", "rating": 1500, "bot": None})
    log.append("player_registered", {"player": "later", "name": "Later", "rating": 1500, "bot": None})
    assert {frozenset(p) for p in wave(log, "12:01").pods} == {frozenset({"late", "later"})}


# -- withdrawing mid-match ---------------------------------------------------------------------------------------


def test_a_player_withdrawing_mid_match_keeps_its_result_in_a_swiss() -> None:
    log = Log("swiss", 2, 2)
    log.register(4)
    log.start_round()
    match = log.state.current.pairings[0]
    log.append("player_withdrew", {"player": match.players[0]})
    log.append("game_finished", {"round": 1, "match": match.match, "ranks": [1, 2]})
    for other in log.state.current.pairings[1:]:
        log.append("game_finished", {"round": 1, "match": other.match, "ranks": [1, 2]})
    paired = log.start_round()
    assert all(match.players[0] not in pod for pod in paired.pods)
    points = {s.player: s.points for s in tournaments.final_standings(log.state, SEED)}
    assert points[match.players[0]] == 1  # the game it was playing counted


def test_a_knockout_player_withdrawing_mid_match_who_wins_it_gives_a_walkover_next() -> None:
    log = Log("single_elimination")
    log.register(4)
    log.start_round()
    first, second = log.state.current.pairings
    log.append("player_withdrew", {"player": first.players[0]})
    log.append("game_finished", {"round": 1, "match": first.match, "ranks": [1, 2]})
    log.append("game_finished", {"round": 1, "match": second.match, "ranks": [1, 2]})
    paired = log.start_round()
    assert isinstance(paired, tournaments.Decided)
    assert paired.pods == () and paired.walkovers == (("W2-1", second.players[0]),)
    log.append("tournament_finished", tournaments.finished_entry(log.state, SEED))
    assert [s["player"] for s in log.state.standings[:2]] == [second.players[0], first.players[0]]
    assert tournaments.audit(log.entries).finished


def test_an_arena_player_withdrawing_mid_game_is_not_paired_after_it() -> None:
    log = Log("arena", minutes=10)
    log.register(4)
    first, second = (set(p) for p in wave(log, "12:00").pods)
    leaving = sorted(first)[0]
    log.append("player_withdrew", {"player": leaving})
    result(log, first, [1, 2])
    result(log, second, [1, 2])
    assert leaving not in {p for pod in wave(log, "12:01").pods for p in pod}
    assert tournaments.arena_lines(log.state)[leaving].games == 1


def test_the_audit_checks_who_each_match_seats_against_its_pairing() -> None:
    """Unrated, with a bot: a match's seats are the entrants' names, the bot's own, and no player ids."""
    log = Log("swiss", 2, 1)
    created = log.entries[0]
    data = {**created.data, "rated": False, "bots_allowed": True}
    log.entries[0] = Recorded(1, created.type, None, data, created.at).chained(None)
    log.register(3)
    log.append("player_registered", {"player": "b", "name": "Botty", "rating": 1500, "bot": "random"})
    log.start_round()
    names = {"u-0": "Player 0", "u-1": "Player 1", "u-2": "Player 2", "b": "Botty"}
    pairings = log.state.played[0].pairings
    seats = {
        p.match: [
            {"seat": i, "name": names[player], **({"bot": "random"} if player == "b" else {})}
            for i, player in enumerate(p.players)
        ]
        for p in pairings
    }
    assert tournaments.audit(log.entries, SEED, seats=seats).seats_checked == 2
    bot_match = next(p.match for p in pairings if "b" in p.players)
    person_match = next(p.match for p in pairings if "b" not in p.players)
    forgeries = [
        {**seats, bot_match: [{k: v for k, v in s.items() if k != "bot"} for s in seats[bot_match]]},
        {**seats, person_match: [{**s, "player": "u-0"} for s in seats[person_match]]},
        {**seats, person_match: list(reversed(seats[person_match]))},
        {**seats, person_match: seats[person_match][:1]},
    ]
    for forged in forgeries:
        with pytest.raises(TournamentForged) as refused:
            tournaments.audit(log.entries, SEED, seats=forged)
        assert refused.value.reason == "seats"


def draws_knockout(draws: str | None) -> Log:
    """A single elimination of four whose drawn meetings go as ``draws`` says (None: as before the option)."""
    log = Log("single_elimination", 2)
    created = log.entries[0]
    data = {**created.data, **({"knockout_draws": draws} if draws else {})}
    log.entries[0] = Recorded(1, created.type, None, data, created.at).chained(None)
    log.register(4)
    return log


def ranked(log: Log, pairing: tournaments.Pairing, ranks: list[int]) -> None:
    log.append("game_finished", {"round": len(log.state.played), "match": pairing.match, "ranks": ranks})


def test_a_drawn_knockout_meeting_is_played_again_seats_swapped_then_the_higher_seed_goes() -> None:
    log = draws_knockout("replay")
    log.start_round()
    semi, other = log.state.played[0].pairings
    ranked(log, semi, [1, 1])
    ranked(log, other, [1, 2])
    for replay in (1, 2):  # drawn, played again with the seats swapped, drawn again, played once more
        log.start_round()
        (again,) = log.state.played[-1].pairings
        assert again.meeting == semi.meeting
        assert again.players == (semi.players[::-1] if replay % 2 else semi.players)
        ranked(log, again, [1, 1])
    log.start_round()  # the third draw: the higher seed goes through to the final
    (final,) = log.state.played[-1].pairings
    higher = min(semi.players, key=log.state.seeds.index)
    assert set(final.players) == {higher, other.players[0]}
    ranked(log, final, [1, 2])
    log.append("tournament_finished", tournaments.finished_entry(log.state, SEED))
    assert tournaments.audit(log.entries).finished
    replayed_once = [e for e in log.entries if e.type == "round_started"][1]
    forged = rechained(
        [
            *log.entries[: replayed_once.version - 1],
            Recorded(
                replayed_once.version,
                "round_started",
                None,
                {
                    **replayed_once.data,
                    "matches": [{**replayed_once.data["matches"][0], "players": list(semi.players)}],
                },
                replayed_once.at,
            ),
            *log.entries[replayed_once.version :],
        ]
    )
    with pytest.raises(TournamentForged) as refused:  # the replay's seats not swapped
        tournaments.audit(forged)
    assert refused.value.reason == "pairings"


@pytest.mark.parametrize("draws", [None, "higher_seed"])
def test_a_drawn_knockout_meeting_sends_the_higher_seed_through_by_default(draws: str | None) -> None:
    log = draws_knockout(draws)
    log.start_round()
    semi, other = log.state.played[0].pairings
    ranked(log, semi, [1, 1])
    ranked(log, other, [1, 2])
    log.start_round()
    (final,) = log.state.played[-1].pairings
    assert min(semi.players, key=log.state.seeds.index) in final.players


def scheduled(interval: int | None = 300) -> Log:
    """A Swiss of four over two rounds whose first round is due at 13:00, and each next ``interval`` seconds
    after its predecessor's last result."""
    log = Log("swiss", rounds=2, schedule={"starts_at": "2026-12-07T13:00:00", "round_interval": interval})
    log.register(4)
    return log


def test_the_schedule_says_when_each_round_starts() -> None:
    log = scheduled()
    assert tournaments.next_round_at(log.state) == "2026-12-07T13:00:00"
    log.at = "2026-12-07T13:00:00"
    log.start_round(tournaments.SCHEDULE)
    assert tournaments.next_round_at(log.state) is None  # its games run
    state = log.state
    log.at = "2026-12-07T13:20:00"
    log.append("game_finished", {"round": 1, "match": state.current.pairings[0].match, "ranks": [1, 2]})
    assert tournaments.next_round_at(log.state) is None  # one game still runs
    log.at = "2026-12-07T13:21:40"
    log.append("game_finished", {"round": 1, "match": state.current.pairings[1].match, "ranks": [2, 1]})
    assert tournaments.next_round_at(log.state) == "2026-12-07T13:26:40"  # 300 s after the last result
    log.at = "2026-12-07T13:26:40"
    log.start_round(tournaments.SCHEDULE)
    log.finish_games(random.Random(1))
    log.append("tournament_finished", tournaments.finished_entry(log.state, SEED))
    assert tournaments.next_round_at(log.state) is None
    report = tournaments.audit(log.entries)
    assert report.finished and report.rounds == 2
    without = scheduled(None)
    without.at = "2026-12-07T13:00:00"
    without.start_round()
    without.finish_games(random.Random(1))
    assert tournaments.next_round_at(without.state) is None  # the organiser starts the later rounds


def test_the_organiser_may_start_a_scheduled_round_early() -> None:
    log = scheduled()
    log.at = "2026-12-07T12:30:00"
    log.start_round()
    assert tournaments.audit(log.entries).rounds == 1


def test_the_audit_refuses_a_round_the_schedule_did_not_have_due() -> None:
    log = scheduled()
    log.at = "2026-12-07T13:00:00"
    log.start_round(tournaments.SCHEDULE)
    log.at = "2026-12-07T13:20:00"
    log.finish_games(random.Random(1))
    log.at = "2026-12-07T13:25:00"
    log.start_round(tournaments.SCHEDULE)
    entries = log.entries
    second = first(entries, "round_started", first(entries, "round_started").version)
    early = rechained([replace(e, at="2026-12-07T13:24:59") if e == second else e for e in entries])
    assert refused(early).reason == "schedule"
    created = entries[0]
    unscheduled = {k: v for k, v in created.data.items() if k != "schedule"}
    assert refused(forged(entries, created.version, unscheduled)).reason == "schedule"
    garbled = {**created.data, "schedule": {"starts_at": "2026-12-07T13:00:00", "round_interval": "soon"}}
    assert refused(forged(entries, created.version, garbled)).reason == "schedule"  # not a crash
    someone = forged(entries, second.version, {**second.data, "started_by": "someone"})
    assert refused(someone).reason == "schedule"
