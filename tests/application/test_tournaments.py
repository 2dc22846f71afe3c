"""The tournaments use case (service/application/tournaments.py) over fakeredis: a Swiss and a round robin
played through real matches (each ended by a concession), their results collected into the log, and the
finished log audited as ``matchlog replay`` audits it."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from service.application.matches import Created, Matches, NewMatch
from service.application.tournaments import ROUND_PAIRED_ANEW, NewTournament, Tournaments
from service.domain import tournaments as rules
from service.domain.errors import MatchIdTaken, NotFound, TournamentRefused, Unavailable
from service.domain.lifecycle import Step
from service.domain.tokens import token_hash
from service.games.protocol import InvalidOptions
from service.store.jobqueue import SCORING
from service.store.keys import Keys
from service.store.platforms import Platforms
from service.store.players import PlayerStore
from service.store.repository import MatchRepository, Meta
from service.store.webhooks import joined
from tests.http.test_openapi_components_typed import fits


@pytest.fixture
def tours(settings, fake_redis) -> Tournaments:
    return Tournaments.of(Matches(fake_redis, settings), PlayerStore(fake_redis, settings.namespace))


@pytest.fixture
def platform(settings, fake_redis) -> str:
    return Platforms(fake_redis, Keys(settings.namespace)).create("club")[0]


def new(platform: str, kind: str = "swiss", size: int = 2, rounds: int | None = 3, **extra) -> NewTournament:
    fields = {
        "platform": platform,
        "name": "Winter cup",
        "kind": kind,
        "game": "block-block" if size == 2 else "blokus",
        "options": {} if size in (2, 4) else {"variant": "three_player"},
        "players_per_match": size,
        "rounds": rounds,
        "rated": True,
        "bots_allowed": False,
        "max_players": 100,
    }
    return NewTournament(**{**fields, **extra})


def end_round(tours: Tournaments, state: rules.TournamentState) -> rules.TournamentState:
    """Every match of the current round ended: its last seat concedes until one is left in play."""
    assert state.current is not None
    for pairing in state.current.pairings:
        for seat in reversed(range(1, len(pairing.players))):
            tours.matches.concede(pairing.match, seat)
    return tours.record_results(state.id)


def test_a_swiss_is_played_to_its_end_and_audits(tours: Tournaments, platform: str) -> None:
    state = tours.create(new(platform))
    for i in range(5):
        state = tours.register(platform, state.id, f"u-{i}", f"Player {i}", None)
    for number in range(1, 4):
        state = tours.start_round(platform, state.id)
        assert state.current is not None and state.current.number == number
        assert len(state.current.pairings) == 2 and len(state.current.byes) == 1
        tokens = tours.tokens(state.id, number)
        assert len(tokens) == 2 and all(len(t) == 2 for t in tokens)
        state = end_round(tours, state)
    assert state.finished and state.seed is not None
    assert [s["place"] for s in state.standings] == [1, 2, 3, 4, 5]
    entries = tours.store.read(state.id)
    results = {}
    for entry in entries:
        if entry.type == "round_started":
            for m in entry.data["matches"]:
                results[m["match"]] = tours.matches.load(m["match"]).result["ranks"]
    report = rules.audit(entries, results=results)
    assert report.finished and report.results_checked == report.match_ids_checked == 6
    with pytest.raises(TournamentRefused) as over:
        tours.start_round(platform, state.id)
    assert over.value.reason == "tournament_over"


def test_a_round_robin_of_pods_of_three(tours: Tournaments, platform: str) -> None:
    state = tours.create(new(platform, "round_robin", 3, None))
    for i in range(4):
        state = tours.register(platform, state.id, f"u-{i}", None, None)
    while not state.finished:
        state = end_round(tours, tours.start_round(platform, state.id))
    assert len(state.played) == 4  # the 4 pods of three, one a round
    assert rules.audit(tours.store.read(state.id)).finished


def test_a_double_elimination_is_played_to_its_champion_and_audits(tours: Tournaments, platform: str) -> None:
    state = tours.create(new(platform, "double_elimination", 2, None))
    for i in range(4):
        state = tours.register(platform, state.id, f"u-{i}", None, None)
    rounds = 0
    while not state.finished:
        state = end_round(tours, tours.start_round(platform, state.id))
        rounds += 1
    # W1 (2 games); W2 and L1; L2; GF: the first seat wins every game, so the winners' champion takes GF
    assert rounds == 4 and [len(r.pairings) for r in state.played] == [2, 2, 1, 1]
    champion = rules.elimination.champion(rules.bracket(state))
    assert state.standings[0]["player"] == champion
    report = rules.audit(tours.store.read(state.id))
    assert report.finished and report.games == 6
    with pytest.raises(TournamentRefused) as over:
        tours.start_round(platform, state.id)
    assert over.value.reason == "tournament_over"


def test_an_arena_pairs_as_games_end_and_finishes_after_its_window(
    tours: Tournaments, platform: str, monkeypatch
) -> None:
    from service.application import tournaments as use_case

    clock = {"now": "2026-12-07T12:00:00"}
    monkeypatch.setattr(use_case, "now_at", lambda: clock["now"])
    state = tours.create(new(platform, "arena", 2, None, duration_minutes=10))
    for i in range(4):
        state = tours.register(platform, state.id, f"u-{i}", None, None)
    state = tours.start_round(platform, state.id)
    assert state.closes == "2026-12-07T12:10:00" and len(state.current.pairings) == 2
    first, second = state.current.pairings
    tours.matches.concede(first.match, 1)
    clock["now"] = "2026-12-07T12:03:00"
    state = tours.record_results(state.id)
    assert len(state.played) == 1 and first.match in state.finish_order  # its two players just met
    tours.matches.concede(second.match, 1)
    state = tours.record_results(state.id)
    assert len(state.played) == 2 and {frozenset(p.players) for p in state.current.pairings}.isdisjoint(
        {frozenset(first.players), frozenset(second.players)}
    )
    clock["now"] = "2026-12-07T12:10:00"
    with pytest.raises(TournamentRefused) as closed:
        tours.start_round(platform, state.id)
    assert closed.value.reason == "no_round_left"  # the window has closed: no more pairings
    state = end_round(tours, state)
    assert state.finished and len(state.played) == 2
    assert sum(int(s["points"]) for s in state.standings) == 2 * 4
    assert rules.audit(tours.store.read(state.id)).finished


def test_refusals(tours: Tournaments, platform: str) -> None:
    with pytest.raises(InvalidOptions):
        tours.create(new(platform, rounds=None))
    with pytest.raises(InvalidOptions):
        tours.create(new(platform, "round_robin", rounds=4))
    with pytest.raises(InvalidOptions):
        tours.create(new(platform, kind="arena"))
    with pytest.raises(InvalidOptions) as arena:
        tours.create(new(platform, "arena", 2, None))
    assert arena.value.field == "duration_minutes"
    with pytest.raises(InvalidOptions) as arena:
        tours.create(new(platform, "swiss", 2, 3, duration_minutes=5))
    assert arena.value.field == "duration_minutes"
    with pytest.raises(InvalidOptions) as knockout:
        tours.create(new(platform, "single_elimination", 3, None))
    assert knockout.value.field == "players_per_match"
    with pytest.raises(InvalidOptions) as knockout:
        tours.create(new(platform, "double_elimination", 2, 3))
    assert knockout.value.field == "rounds"
    state = tours.create(new(platform))
    with pytest.raises(NotFound):
        tours.owned("another", state.id)
    with pytest.raises(NotFound):
        tours.load("0" * 32)
    tours.register(platform, state.id, "u-1", None, None)
    with pytest.raises(TournamentRefused) as refused:
        tours.register(platform, state.id, "u-1", None, None)
    assert refused.value.reason == "already_registered"
    with pytest.raises(TournamentRefused) as refused:
        tours.register(platform, state.id, "b-1", None, "random")
    assert refused.value.reason == "bots_not_allowed"
    with pytest.raises(TournamentRefused) as refused:
        tours.start_round(platform, state.id)
    assert refused.value.reason == "too_few_players"
    with pytest.raises(TournamentRefused) as refused:
        tours.withdraw(platform, state.id, "u-9")
    assert refused.value.reason == "not_registered"


def test_bots_play_where_allowed(tours: Tournaments, platform: str) -> None:
    state = tours.create(new(platform, bots_allowed=True, rounds=1))
    tours.register(platform, state.id, "u-1", None, None)
    state = tours.register(platform, state.id, "bot-1", "Randy", "random")
    assert state.entrant("bot-1").bot == "random"
    state = tours.start_round(platform, state.id)
    match = tours.matches.load(state.current.pairings[0].match)
    assert "random" in match.bots


def test_a_process_carries_its_state_on_with_what_another_appended(tours: Tournaments, platform: str) -> None:
    other = Tournaments.of(tours.matches, tours.players)
    state = tours.create(new(platform))
    assert other.load(state.id).version == 1
    tours.register(platform, state.id, "u-1", None, None)
    assert [e.player for e in other.load(state.id).entrants] == ["u-1"]
    # a log that is not the one the kept state was folded from (here: rewritten) is folded whole
    log = tours.store.tkeys.log(state.id)
    tours.store.redis.delete(log)
    fresh = tours.create(new(platform))
    assert other.load(fresh.id).entrants == ()
    with pytest.raises(NotFound):
        other.load(state.id)


def test_the_platform_s_webhooks_hear_of_rounds_results_and_the_end(
    tours: Tournaments, platform: str
) -> None:
    events = ["tournament_round_started", "tournament_game_finished", "tournament_finished"]
    assert tours.matches.stores.webhooks.register(platform, "https://example.com/hooks", events, None)
    state = tours.create(new(platform, rounds=1))
    for i in range(3):
        state = tours.register(platform, state.id, f"u-{i}", None, None)
    state = end_round(tours, tours.start_round(platform, state.id))
    assert state.finished
    stores = tours.matches.stores
    bodies = []
    for job in stores.jobs.queue("webhooks").jobs:
        _, _, own, _, shared = job.args
        bodies.append(json.loads(joined(own, stores.webhooks.body(shared))))
    assert [b["event"] for b in bodies] == events
    started, finished_game, end = bodies
    assert started["round"] == 1 and started["matches"][0]["players"] == list(
        state.played[0].pairings[0].players
    )
    assert "token" not in json.dumps(started)
    assert finished_game["match"] == state.played[0].pairings[0].match and finished_game["ranks"] == [1, 2]
    assert end["seed"] == state.seed and end["standings"] == list(state.standings)
    assert [b["version"] for b in bodies] == sorted({b["version"] for b in bodies})
    for body, name in zip(bodies, ("RoundStarted", "GameFinished", "Finished"), strict=True):
        fits(f"Tournament{name}Delivery", body)


def failing_creation(monkeypatch: pytest.MonkeyPatch, at: int) -> list[str]:
    """``Matches.open_match`` fails at its ``at``-th call (the store gone); the ids of the matches stored."""
    asked: list[NewMatch] = []
    stored: list[str] = []
    real_open, real_add = Matches.open_match, MatchRepository.add

    def open_match(self: Matches, new: NewMatch) -> Created:
        asked.append(new)
        if len(asked) == at:
            raise Unavailable("the store went away")
        return real_open(self, new)

    def add(self: MatchRepository, match_id: str, meta: Meta, step: Step) -> None:
        stored.append(match_id)
        real_add(self, match_id, meta, step)

    monkeypatch.setattr(Matches, "open_match", open_match)
    monkeypatch.setattr(MatchRepository, "add", add)
    return stored


def failing_round_start(
    tours: Tournaments, platform: str, monkeypatch: pytest.MonkeyPatch, at: int
) -> tuple[rules.TournamentState, list[str]]:
    """A Swiss of eight whose first round's start failed at its ``at``-th match; the matches it stored."""
    state = tours.create(new(platform))
    for i in range(8):
        state = tours.register(platform, state.id, f"u-{i}", f"Player {i}", None)
    stored = failing_creation(monkeypatch, at)
    with pytest.raises(Unavailable):
        tours.start_round(platform, state.id)
    return state, stored


def test_a_round_start_failing_midway_is_retried_without_orphans(
    tours: Tournaments, platform: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, stored = failing_round_start(tours, platform, monkeypatch, at=3)
    assert tours.load(state.id).current is None and len(stored) == 2
    state = tours.start_round(platform, state.id)
    assert state.current is not None
    ids = [p.match for p in state.current.pairings]
    assert ids[:2] == stored[:2] and sorted(stored) == sorted(ids)  # one match per pairing, none made twice
    assert [e.type for e in tours.store.read(state.id)].count("round_started") == 1
    for match_id, tokens in zip(ids, tours.tokens(state.id, 1), strict=True):
        hashes = tours.matches.repository.meta(match_id, fresh=True).seat_hashes
        assert hashes == tuple(token_hash(t) for t in tokens if t)  # the tokens handed out are the seats'
    assert tours.store.opening(state.id, 1) is None
    state = end_round(tours, state)
    assert state.played[0].complete


def test_a_round_paired_anew_on_retry_aborts_the_matches_it_no_longer_has(
    tours: Tournaments, platform: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, stored = failing_round_start(tours, platform, monkeypatch, at=2)
    first = stored[0]
    leaving = "u-" + str(tours.matches.load(first).players[0]).removeprefix("Player ")
    tours.withdraw(platform, state.id, leaving)  # the retry cannot pair the first try's first pod
    state = tours.start_round(platform, state.id)
    assert state.current is not None and first not in [p.match for p in state.current.pairings]
    assert tours.matches.load(first).aborted
    aborted = [e for e in tours.matches.repository.read(first)[1] if e.type == "match_aborted"]
    assert [e.data["reason"] for e in aborted] == [ROUND_PAIRED_ANEW]


def test_a_derived_match_id_is_created_once_and_never_taken_over(tours: Tournaments, platform: str) -> None:
    derived = rules.match_id("seed", "t" * 32, 1, 0, ["u-1", "u-2"])
    asked = NewMatch("block-block", ["A", "B"], platform=platform, match_id=derived, tokens=["ta", "tb"])
    made = tours.matches.open_match(asked)
    again = tours.matches.open_match(asked)
    assert again.match_id == made.match_id == derived and again.tokens == made.tokens == ["ta", "tb"]
    assert tours.matches.repository.version(derived) == made.state.version
    with pytest.raises(MatchIdTaken):
        tours.matches.open_match(replace(asked, tokens=["tc", "td"]))
    with pytest.raises(MatchIdTaken):
        tours.matches.open_match(replace(asked, platform=None))  # not this platform's match
    meta = tours.matches.repository.meta(derived, fresh=True)
    assert meta.seat_hashes == (token_hash("ta"), token_hash("tb"))


def test_the_standings_at_a_version_are_those_after_its_entry(tours: Tournaments, platform: str) -> None:
    state = tours.create(new(platform))
    for i in range(3):
        state = tours.register(platform, state.id, f"u-{i}", f"Player {i}", None)
    state = end_round(tours, tours.start_round(platform, state.id))
    entries = tours.store.read(state.id)
    for version in range(1, state.version + 1):
        wanted = rules.shown_standings(rules.fold(entries[:version]))
        assert tours.standings_at(state.id, version) == wanted, version
    assert tours.standings_at(state.id, 4) != tours.standings_at(state.id, state.version)  # a result counts


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The tournaments' clock, set by the test: ``clock["now"]``."""
    from service.application import tournaments as use_case

    now = {"now": "2026-12-07T12:00:00"}
    monkeypatch.setattr(use_case, "now_at", lambda: now["now"])
    return now


def round_jobs(tours: Tournaments) -> dict[str, float]:
    """The round starts waiting for their time, by job id: when each is due (seconds since the epoch)."""
    jobs = tours.matches.stores.jobs
    registry = ScheduledJobRegistry(queue=jobs.queue(SCORING))
    waiting = jobs.connection.zrange(registry.key, 0, -1, withscores=True)
    return {job_id.decode(): due for job_id, due in waiting}


def test_a_scheduled_swiss_starts_each_round_by_itself_as_the_organiser_would(
    tours: Tournaments, platform: str, clock: dict[str, str]
) -> None:
    state = tours.create(new(platform, rounds=2, starts_at="2026-12-07T12:10:00", round_interval=60))
    assert tours.store.read(state.id)[0].data["schedule"] == {
        "starts_at": "2026-12-07T12:10:00",
        "round_interval": 60,
    }
    for i in range(5):
        state = tours.register(platform, state.id, f"u-{i}", f"Player {i}", None)
    due = rules.epoch_s("2026-12-07T12:10:00")
    assert round_jobs(tours) == {f"round-{state.id}-r1-{due}-0": due}
    assert tours.start_due_round(state.id, 1) == "not yet" and tours.load(state.id).current is None
    clock["now"] = "2026-12-07T12:10:00"
    before = tours.load(state.id)
    assert tours.start_due_round(state.id, 1) == "started"
    seed = tours._seed(state.id)
    paired = rules.next_round(before, seed, clock["now"])
    ids = [rules.match_id(seed, state.id, 1, i, pod) for i, pod in enumerate(paired.pods)]
    entry = tours.store.read(state.id)[-1]
    assert entry.data == rules.round_started(1, paired, ids, rules.SCHEDULE)  # the organiser's, but who
    assert entry.data["started_by"] == "schedule" and entry.at == "2026-12-07T12:10:00"
    assert tours.start_due_round(state.id, 1) == "moved on"  # a second worker's job, or a retry
    with pytest.raises(TournamentRefused) as busy:
        tours.start_round(platform, state.id)
    assert busy.value.reason == "round_in_play"
    clock["now"] = "2026-12-07T12:20:00"
    state = end_round(tours, tours.load(state.id))
    assert rules.next_round_at(state) == "2026-12-07T12:21:00"  # a minute after the round's last result
    assert f"round-{state.id}-r2-{due + 660}-0" in round_jobs(tours)
    clock["now"] = "2026-12-07T12:21:00"
    assert tours.start_due_round(state.id, 2) == "started"
    state = end_round(tours, tours.load(state.id))
    assert state.finished and rules.next_round_at(state) is None
    report = rules.audit(tours.store.read(state.id))
    assert report.finished and report.rounds == 2


def test_the_organiser_may_start_a_scheduled_round_early(
    tours: Tournaments, platform: str, clock: dict[str, str]
) -> None:
    state = tours.create(new(platform, rounds=1, starts_at="2026-12-07T12:10:00"))
    for i in range(2):
        tours.register(platform, state.id, f"u-{i}", None, None)
    clock["now"] = "2026-12-07T12:05:00"
    state = tours.start_round(platform, state.id)
    assert "started_by" not in tours.store.read(state.id)[-1].data
    clock["now"] = "2026-12-07T12:10:00"
    assert tours.start_due_round(state.id, 1) == "moved on"
    assert [e.type for e in tours.store.read(state.id)].count("round_started") == 1


def test_a_round_due_with_too_few_players_starts_once_it_can_be_paired(
    tours: Tournaments, platform: str, clock: dict[str, str]
) -> None:
    state = tours.create(new(platform, rounds=1, starts_at="2026-12-07T12:10:00"))
    tours.register(platform, state.id, "u-0", None, None)
    clock["now"] = "2026-12-07T12:10:00"
    assert tours.start_due_round(state.id, 1) == "not started"
    assert tours.load(state.id).current is None
    (job_id,) = round_jobs(tours)
    Job.fetch(job_id, connection=tours.matches.stores.jobs.connection).delete()  # as RQ does once it ran
    tours.register(platform, state.id, "u-1", None, None)
    assert list(round_jobs(tours)) == [job_id]  # set again, its time passed: the rule loop runs it at once
    assert tours.start_due_round(state.id, 1) == "started"


def test_a_scheduled_start_failing_midway_is_retried_without_orphans(
    tours: Tournaments, platform: str, clock: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tours.create(new(platform, starts_at="2026-12-07T12:10:00"))
    for i in range(8):
        tours.register(platform, state.id, f"u-{i}", None, None)
    clock["now"] = "2026-12-07T12:10:00"
    stored = failing_creation(monkeypatch, 3)
    with pytest.raises(Unavailable):  # the job fails, and RQ retries it
        tours.start_due_round(state.id, 1)
    assert tours.start_due_round(state.id, 1) == "started"
    state = tours.load(state.id)
    assert sorted(stored) == sorted(p.match for p in state.current.pairings)  # each match made once
    assert [e.type for e in tours.store.read(state.id)].count("round_started") == 1


def test_bad_schedules_are_refused_with_the_field(
    tours: Tournaments, platform: str, clock: dict[str, str]
) -> None:
    for extra, field in (
        ({"starts_at": "2026-12-07T12:00:00"}, "starts_at"),  # now: not to come
        ({"starts_at": "2026-12-07 12:30"}, "starts_at"),
        ({"starts_at": "2027-03-08T12:00:01"}, "starts_at"),  # past 90 days ahead
        ({"round_interval": -1}, "round_interval"),
        ({"round_interval": 7 * 24 * 3600 + 1}, "round_interval"),
    ):
        with pytest.raises(InvalidOptions) as bad:
            tours.create(new(platform, **extra))
        assert bad.value.field == field, extra
    with pytest.raises(InvalidOptions) as arena:
        tours.create(new(platform, "arena", 2, None, duration_minutes=10, round_interval=60))
    assert arena.value.field == "round_interval"
    opens = tours.create(
        new(platform, "arena", 2, None, duration_minutes=10, starts_at="2026-12-07T12:10:00")
    )
    assert rules.next_round_at(opens) == "2026-12-07T12:10:00"


def test_a_scheduled_arena_opens_its_window_by_itself(
    tours: Tournaments, platform: str, clock: dict[str, str]
) -> None:
    state = tours.create(
        new(platform, "arena", 2, None, duration_minutes=10, starts_at="2026-12-07T12:10:00")
    )
    for i in range(2):
        tours.register(platform, state.id, f"u-{i}", None, None)
    clock["now"] = "2026-12-07T12:10:00"
    assert tours.start_due_round(state.id, 1) == "started"
    state = tours.load(state.id)
    assert state.closes == "2026-12-07T12:20:00" and len(state.current.pairings) == 1
    assert rules.next_round_at(state) is None  # later waves pair as games end, not by the schedule


def opened_arena(tours: Tournaments, platform: str, players: int) -> rules.TournamentState:
    """An arena of ``players`` whose ten minutes' window the organiser opens now."""
    state = tours.create(new(platform, "arena", 2, None, duration_minutes=10))
    for i in range(players):
        tours.register(platform, state.id, f"u-{i}", None, None)
    return tours.start_round(platform, state.id)


def test_an_arena_whose_games_ended_finishes_when_its_window_closes_with_no_read(
    tours: Tournaments, platform: str, clock: dict[str, str]
) -> None:
    state = opened_arena(tours, platform, 2)  # at 12:00, until 12:10
    closes = rules.epoch_s("2026-12-07T12:10:00")
    assert round_jobs(tours) == {f"close-{state.id}-{closes}-0": closes}
    job = Job.fetch(f"close-{state.id}-{closes}-0", connection=tours.matches.stores.jobs.connection)
    assert job.func.__name__ == "close_window" and job.args[0] == state.id  # the worker's job, importable
    clock["now"] = "2026-12-07T12:04:00"
    state = end_round(tours, state)  # as the scoring job takes the result in: the two just met, none paired
    assert not state.finished and not state.playing
    assert tours.close_window(state.id) == "not yet" and not tours.load(state.id).finished
    assert list(round_jobs(tours).values()) == [closes, closes]  # came early: set again for its time
    clock["now"] = "2026-12-07T12:10:00"
    before = tours.load(state.id)
    assert tours.close_window(state.id) == "finished"
    entry = tours.store.read(state.id)[-1]
    assert entry.type == "tournament_finished" and entry.at == "2026-12-07T12:10:00"
    assert entry.data == rules.finished_entry(before, tours._seed(state.id), clock["now"])  # as a read's
    assert tours.close_window(state.id) == "moved on"  # a second worker's job, the early one's, or a read
    assert tours.record_results(state.id).version == entry.version
    assert rules.audit(tours.store.read(state.id)).finished


def test_an_arena_with_games_running_at_its_close_stops_pairing_and_finishes_with_the_last(
    tours: Tournaments, platform: str, clock: dict[str, str]
) -> None:
    state = opened_arena(tours, platform, 4)
    first, second = state.current.pairings
    clock["now"] = "2026-12-07T12:10:00"
    tours.matches.concede(first.match, 1)
    assert tours.close_window(state.id) == "closed"
    state = tours.load(state.id)
    assert not state.finished and len(state.played) == 1 and first.match in state.finish_order  # none paired
    tours.matches.concede(second.match, 1)
    state = tours.record_results(state.id)  # what the scoring job of the last game does
    assert state.finished and tours.close_window(state.id) == "moved on"


def test_the_standings_at_a_version_the_process_passed_fold_nothing_again(
    tours: Tournaments, platform: str, settings, fake_redis, monkeypatch
) -> None:
    """A live feed's batch can end at an entry the tournament has already moved past (results arriving while it
    was sent): a thousand players' log took a fifth of a second to fold again to it, for each such entry."""
    state = tours.create(new(platform))
    elsewhere = Tournaments.of(Matches(fake_redis, settings), PlayerStore(fake_redis, settings.namespace))
    for i in range(3):  # appended by another process: this one passes through them on its next load
        elsewhere.register(platform, state.id, f"u-{i}", f"Player {i}", None)
    entries = tours.store.read(state.id)
    folds = []
    fold = rules.fold
    monkeypatch.setattr(rules, "fold", lambda entries: folds.append(len(entries)) or fold(entries))
    assert tours.load(state.id).version == 4
    for version in (2, 3):
        assert tours.standings_at(state.id, version) == rules.shown_standings(fold(entries[:version]))
    assert folds == []
