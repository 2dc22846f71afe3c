"""What pairing costs: ``python -m tests.bench.pairing``.

Times the pure pairing core (``service.domain.pairing``) on one core, as issue 43 asks (the tournaments'
logs and waves in CPU seconds, the rest in wall-clock seconds):

* a Swiss round of 1,000 players (``swiss.pods`` with pods of 2) and a round of pods of 4 for 1,000
  players, each the sixth round, after five rounds of random results (ranks shuffled, a tie now and then);
  the median of 3 runs of that round;
* caissify-pairings' FIDE Dutch (``swiss.dutch``): round 1 of 1,000 players, and round 2 of 30 (its
  iterated matching grows too fast for larger fields after the first round);
* 10,000 seeks arriving at 20 a second, then at 1,000 a second (simulated time) in 4 pools (2, 2, 3
  and 4 players; ratings normal around 1,500, sd 300; one seek in 10 a bot's, allowing bots, one
  person's in 4 allowing them), each paired as it arrives, with a ``tick`` every simulated second:
  the mean and worst cost of one arrival, of one tick, and the whole run;
* 1,000 arrivals into a pool already holding 10,000 open seeks they cannot meet (bots' seeks allowing no
  bots): what an arrival costs when its window is crowded;
* a tournament's log (``service.domain.tournaments``): a two-player Swiss of 1,000 players over 5 rounds
  (3,507 entries) folded whole, and audited as ``matchlog replay`` audits it (every round recomputed);
* a single and a double elimination of 1,000 players (``service.domain.pairing.elimination``): the first
  round seeded and paired (the bracket built), then, every meeting played with random results (one in 20
  drawn: the higher seed goes through), the log folded whole and audited;
* an arena of 1,000 players, a wave a minute, each wave paired when 500 players wait, until some 3,000
  games are played: the last wave's pairing, and the whole log folded and audited.

Prints the machine, a table and, last, one JSON line of the figures.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from service.domain import tournaments
from service.domain.chain import Recorded
from service.domain.pairing import swiss
from service.domain.pairing.seeks import Seek, SeekPool
from service.domain.pairing.standings import Game, Outcome
from tests.bench.common import Figure, json_figures, machine, table


def random_results(round_: swiss.Round, chance: random.Random) -> list[Outcome]:
    games: list[Outcome] = []
    for pod in round_.pods:
        ranks = list(range(1, len(pod) + 1))
        chance.shuffle(ranks)
        if chance.random() < 0.1:
            ranks = [min(r, 2) for r in ranks]
        games.append(Game(pod, tuple(ranks)))
    return [*games, *round_.byes]


def swiss_round_s(count: int, size: int, before: int) -> float:
    """Seconds for round ``before + 1`` of a Swiss of ``count`` players in pods of ``size`` (median of 3)."""
    chance = random.Random(count * 10 + size)
    field = [swiss.Entrant(f"p{i}", round(chance.gauss(1500, 300))) for i in range(count)]
    history: list[list[Outcome]] = []
    for _ in range(before):
        history.append(random_results(swiss.pods(field, history, size, "bench"), chance))
    times = []
    for _ in range(3):
        start = time.perf_counter()
        swiss.pods(field, history, size, "bench")
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def dutch_round_s(count: int, number: int) -> float:
    chance = random.Random(count)
    field = [swiss.Entrant(f"p{i}", round(chance.gauss(1500, 300))) for i in range(count)]
    history: list[list[Outcome]] = []
    for n in range(1, number):
        history.append(random_results(swiss.dutch(field, history, n, 9, "bench"), chance))
    start = time.perf_counter()
    swiss.dutch(field, history, number, 9, "bench")
    return time.perf_counter() - start


POOLS = [("duo", 2), ("two", 2), ("three", 3), ("four", 4)]


def seeks_as_they_arrive(count: int, per_second: int) -> dict[str, float]:
    chance = random.Random(43)
    pool = SeekPool()
    arrivals, ticks, met, expired, waits, most_open = [], [], 0, 0, [], 0
    now = 0
    next_tick = 1000
    whole = time.perf_counter()
    for i in range(count):
        now += 1000 // per_second
        while next_tick <= now:
            start = time.perf_counter()
            meetings, gone = pool.tick(next_tick)
            ticks.append(time.perf_counter() - start)
            met += len(meetings)
            expired += len(gone)
            waits += [next_tick - s.created_ms for m in meetings for s in m.seeks]
            next_tick += 1000
        name, players = POOLS[i % len(POOLS)]
        seek = Seek(
            f"s{i}",
            f"u{chance.randrange(count)}",
            round(chance.gauss(1500, 300)),
            name,
            now,
            players,
            bot=i % 10 == 0,
            bots_allowed=chance.random() < 0.25 or i % 10 == 0,
        )
        start = time.perf_counter()
        meeting = pool.arrive(seek, now)
        arrivals.append(time.perf_counter() - start)
        if meeting is not None:
            met += 1
            waits += [now - s.created_ms for s in meeting.seeks]
        most_open = max(most_open, len(pool))
    elapsed = time.perf_counter() - whole
    return {
        "seconds": elapsed,
        "arrival_mean_us": statistics.fmean(arrivals) * 1e6,
        "arrival_max_ms": max(arrivals) * 1e3,
        "tick_mean_ms": statistics.fmean(ticks) * 1e3,
        "tick_max_ms": max(ticks) * 1e3,
        "meetings": met,
        "expired": expired,
        "open_at_most": most_open,
        "open_at_end": len(pool),
        "wait_median_s": statistics.median(waits) / 1000,
    }


def arrival_among_open(count: int, arrivals: int) -> tuple[float, int]:
    """Mean seconds of an arrival into a pool already holding ``count`` open seeks it cannot meet (bots'
    seeks that allow no bots, ratings as above), and the meetings the arrivals made among themselves."""
    chance = random.Random(7)
    pool = SeekPool()
    for i in range(count):
        pool.arrive(Seek(f"b{i}", f"bot{i}", round(chance.gauss(1500, 300)), "deep", 0, 2, bot=True), 0)
    times, met = [], 0
    for i in range(arrivals):
        seek = Seek(f"h{i}", f"u{i}", round(chance.gauss(1500, 300)), "deep", 1000 + i, 2)
        start = time.perf_counter()
        met += pool.arrive(seek, 1000 + i) is not None
        times.append(time.perf_counter() - start)
    return statistics.fmean(times), met


class Log:
    """A tournament's log written as the service writes it: each entry chained and applied (so refused if
    the tournament could not take it)."""

    def __init__(self, created: dict) -> None:
        self.entries: list[Recorded] = []
        self.state = tournaments.created(created)
        self.add("tournament_created", created)

    def add(self, kind: str, data: dict) -> None:
        entry = Recorded(len(self.entries) + 1, kind, None, data, "2026-12-07T12:00:00")
        self.entries.append(entry.chained(self.entries[-1].hash if self.entries else None))
        if len(self.entries) > 1:
            self.state = tournaments.apply(self.state, self.entries[-1])

    def start(self, paired: swiss.Round) -> None:
        """Record ``paired`` as the next round (or wave), its matches' ids derived as the server derives them."""
        number = len(self.state.played) + 1
        ids = tournaments.match_ids(SEED, self.state.id, number, paired.pods)
        self.add("round_started", tournaments.round_started(number, paired, ids))


def created_data(kind: str, count: int, **more: object) -> dict:
    return {
        "chain": tournaments.TOURNAMENT_CHAIN,
        "tournament": "bench",
        "name": "bench",
        "kind": kind,
        "game": "blokus",
        "options": {},
        "players_per_match": 2,
        "rated": True,
        "bots_allowed": False,
        "max_players": count,
        "seed_commitment": tournaments.seed_commitment(SEED),
        **more,
    }


SEED = "bench"


def registered(log: Log, count: int, chance: random.Random) -> None:
    for i in range(count):
        rating = round(chance.gauss(1500, 300))
        log.add("player_registered", {"player": f"p{i}", "name": f"p{i}", "rating": rating, "bot": None})


def played_out(log: Log, chance: random.Random, draws: float = 0.0) -> None:
    """Rounds paired and played with random results (a share ``draws`` drawn) until the tournament is over."""
    while not tournaments.is_over(log.state, SEED):
        log.start(tournaments.next_round(log.state, SEED))
        number = len(log.state.played)
        for pairing in log.state.played[-1].pairings:
            drawn = draws and chance.random() < draws
            ranks = [1, 1] if drawn else [1, 2] if chance.random() < 0.5 else [2, 1]
            log.add("game_finished", {"round": number, "match": pairing.match, "ranks": ranks})
    log.add("tournament_finished", tournaments.finished_entry(log.state, SEED))


def tournament_log(count: int, rounds: int) -> list[Recorded]:
    """The log of a two-player Swiss of ``count`` players over ``rounds`` rounds, random results, finished."""
    chance = random.Random(count)
    log = Log(created_data("swiss", count, rounds=rounds))
    registered(log, count, chance)
    played_out(log, chance)
    return log.entries


def knockout(kind: str, count: int) -> tuple[float, list[Recorded]]:
    """A knockout of ``count`` players: the seconds to seed and pair its first round (its bracket built
    afresh), and its whole log, every meeting played with random results."""
    chance = random.Random(count)
    log = Log(created_data(kind, count))
    registered(log, count, chance)
    tournaments._bracket.cache_clear()  # the first round builds the bracket: time that too
    first_s = timed(lambda: tournaments.next_round(log.state, SEED))
    played_out(log, chance, draws=0.05)
    tournaments._bracket.cache_clear()  # an audit (matchlog replay) starts with no bracket built
    return first_s, log.entries


def arena_log(count: int, waiting: int, games: int) -> tuple[list[float], list[Recorded]]:
    """An arena of ``count`` players, a wave a minute: before each wave, games finish (random results)
    until ``waiting`` players wait; after about ``games`` games the window closes and the games in play
    end. The seconds of each wave's pairing (``next_round``; the first has all ``count`` waiting) and the log."""
    chance = random.Random(count)
    log = Log(created_data("arena", count, duration_minutes=tournaments.MAX_ARENA_MINUTES))
    registered(log, count, chance)
    minute, waves = 0, []

    def now() -> str:
        return tournaments.later("2026-12-07T12:00:00", 60 * minute)

    def finish(pairing: tournaments.Pairing) -> None:
        ranks = [1, 1] if chance.random() < 0.1 else chance.choice([[1, 2], [2, 1]])
        number = log.state.round_of(pairing.match)
        log.add("game_finished", {"round": number, "match": pairing.match, "ranks": ranks})

    while len(log.state.finish_order) < games:
        running = [p for r in log.state.played for p in r.pairings if p.ranks is None]
        chance.shuffle(running)
        while running and len(tournaments.waiting(log.state)) < waiting:
            finish(running.pop())
        start = time.process_time()
        paired = tournaments.next_round(log.state, SEED, now())
        waves.append(time.process_time() - start)
        log.start(paired)
        minute += 1
    for pairing in [p for r in log.state.played for p in r.pairings if p.ranks is None]:
        finish(pairing)
    minute = tournaments.MAX_ARENA_MINUTES
    log.add("tournament_finished", tournaments.finished_entry(log.state, SEED, now()))
    return waves, log.entries


def timed(work: Callable[[], object]) -> float:
    """The CPU seconds ``work`` takes: on a shared machine, what it costs rather than how long it waited."""
    start = time.process_time()
    work()
    return time.process_time() - start


def knockout_figures(count: int) -> list[Figure]:
    figures = []
    for kind in tournaments.ELIMINATION:
        first_s, log = knockout(kind, count)
        key, name = f"tournament.{kind}_{count}", kind.replace("_", " ")
        figures += [
            Figure(f"{key}.first_round_s", f"a {name} of {count:,}: round 1 seeded and paired", first_s, "s"),
            Figure(f"{key}.entries", "  its log, played out: entries", len(log)),
            Figure(f"{key}.rounds", "  rounds", len(tournaments.fold(log).played)),
            Figure(f"{key}.fold_s", "  folded whole", timed(partial(tournaments.fold, log)), "s"),
            Figure(
                f"{key}.audit_s", "  audited (matchlog replay)", timed(partial(tournaments.audit, log)), "s"
            ),
        ]
    return figures


def arena_figures(count: int, waiting: int, games: int) -> list[Figure]:
    waves, log = arena_log(count, waiting, games)
    state = tournaments.fold(log)
    key = f"tournament.arena_{count}"
    return [
        Figure(f"{key}.first_wave_s", f"an arena of {count:,}: its first wave, all waiting", waves[0], "s"),
        Figure(f"{key}.wave_s", f"  a later wave, {waiting:,} waiting (the last)", waves[-1], "s"),
        Figure(f"{key}.entries", "  its log: entries", len(log)),
        Figure(f"{key}.waves", "  waves", len(state.played)),
        Figure(f"{key}.games", "  games", len(state.finish_order)),
        Figure(f"{key}.fold_s", "  folded whole", timed(lambda: tournaments.fold(log)), "s"),
        Figure(f"{key}.audit_s", "  audited (matchlog replay)", timed(lambda: tournaments.audit(log)), "s"),
    ]


def main() -> None:
    figures = machine()
    swiss_2 = swiss_round_s(1000, 2, 5)
    swiss_4 = swiss_round_s(1000, 4, 5)
    figures += [
        Figure("swiss.pairs_1000_round6_s", "Swiss round 6, 1,000 players, pairs", swiss_2, "s"),
        Figure("swiss.pods4_1000_round6_s", "Swiss round 6, 1,000 players, pods of 4", swiss_4, "s"),
        Figure(
            "swiss.dutch_1000_round1_s",
            "FIDE Dutch (caissify) round 1, 1,000 players",
            dutch_round_s(1000, 1),
            "s",
        ),
        Figure(
            "swiss.dutch_30_round2_s", "FIDE Dutch (caissify) round 2, 30 players", dutch_round_s(30, 2), "s"
        ),
    ]
    for per_second in (20, 1000):
        seeks = seeks_as_they_arrive(10_000, per_second)
        at = f"{per_second:,} a second"
        key = f"seeks.{per_second}_per_s"
        figures += [
            Figure(f"{key}.total_s", f"10,000 seeks at {at}, whole run", seeks["seconds"], "s"),
            Figure(f"{key}.arrival_mean_us", f"  ({at}) one arrival, mean", seeks["arrival_mean_us"], "µs"),
            Figure(f"{key}.arrival_max_ms", f"  ({at}) one arrival, worst", seeks["arrival_max_ms"], "ms"),
            Figure(f"{key}.tick_mean_ms", f"  ({at}) one tick, mean", seeks["tick_mean_ms"], "ms"),
            Figure(f"{key}.tick_max_ms", f"  ({at}) one tick, worst", seeks["tick_max_ms"], "ms"),
            Figure(f"{key}.meetings", f"  ({at}) meetings made", int(seeks["meetings"])),
            Figure(f"{key}.expired", f"  ({at}) seeks expired", int(seeks["expired"])),
            Figure(f"{key}.open_at_most", f"  ({at}) open seeks, at most", int(seeks["open_at_most"])),
            Figure(
                f"{key}.wait_median_s", f"  ({at}) wait before a meeting, median", seeks["wait_median_s"], "s"
            ),
        ]
    deep, deep_met = arrival_among_open(10_000, 1_000)
    figures += [
        Figure(
            "seeks.deep.arrival_mean_us",
            "an arrival among 10,000 open seeks it cannot meet",
            deep * 1e6,
            "µs",
        ),
        Figure("seeks.deep.meetings", "  meetings of 1,000 such arrivals", deep_met),
    ]
    log = tournament_log(1000, 5)
    figures += [
        Figure("tournament.swiss_1000x5.entries", "a Swiss log, 1,000 players, 5 rounds: entries", len(log)),
        Figure("tournament.swiss_1000x5.fold_s", "  folded whole", timed(lambda: tournaments.fold(log)), "s"),
        Figure(
            "tournament.swiss_1000x5.audit_s",
            "  audited (matchlog replay)",
            timed(lambda: tournaments.audit(log)),
            "s",
        ),
    ]
    figures += knockout_figures(1000)
    figures += arena_figures(1000, 500, 3000)
    print(table(figures))
    print(json.dumps(json_figures(figures)))


if __name__ == "__main__":
    main()
