"""Background work isolated by kind and bounded by creator: a queue per kind, in an order of priority, the
older releases' queue still drained, and budgets of bot-only matches and of bot CPU."""

from __future__ import annotations

import dataclasses
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest
from rq import Queue, SimpleWorker
from rq.registry import ScheduledJobRegistry

from service.application.bot_budgets import BotBudget
from service.application.bots import Bots
from service.application.matches import Matches, NewMatch
from service.config import Settings
from service.domain import lifecycle
from service.games.bots import GreedyBot
from service.http.app import create_app
from service.store.jobqueue import (
    ANALYSES,
    BOT_MATCHES,
    BOTS,
    CLOCKS,
    DELIVERY_RETRIES,
    KINDS,
    SCORING,
    WEBHOOKS,
    JobQueue,
)
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.helpers import bearer
from workers.jobs import run_here

BOTS_ONLY = {
    "game": "blokus",
    "options": {"variant": "duo"},
    "players": [{"bot": "random"}, {"bot": "random"}],
}


def _origins(fake_redis, settings) -> dict[str, str]:
    """Every job of the deployment, by id, with the queue it is on."""
    from rq.job import Job

    found = {}
    for queue in JobQueue(fake_redis, Keys(settings.namespace)).queues():
        ids = queue.get_job_ids() + ScheduledJobRegistry(queue=queue).get_job_ids()
        for job_id in ids:
            found[job_id] = Job.fetch(job_id, connection=fake_redis).origin
    return found


def test_each_kind_of_work_goes_on_its_own_queue(fake_redis, settings):
    keys = Keys(settings.namespace)
    jobs = JobQueue(fake_redis, keys)
    jobs.enqueue_deadline("m" * 32, 3, 1_000)
    jobs.enqueue_scoring("m" * 32, 3)
    jobs.enqueue_rating("m" * 32)
    jobs.enqueue_bot_move("m" * 32, 1, 3)
    jobs.enqueue_bot_move("n" * 32, 0, 5, bots_only=True)
    jobs.enqueue_delivery("d" * 32, "h" * 16, "{}")
    jobs.enqueue_analysis("m" * 32, "analysis-m")
    rebuild = jobs.enqueue_rebuild("p", "pool", [])
    assert _origins(fake_redis, settings) == {
        f"clock-{'m' * 32}-v3-1000-0": keys.job_queue(CLOCKS),
        f"score-{'m' * 32}-v3": keys.job_queue(SCORING),
        f"rate-{'m' * 32}": keys.job_queue(SCORING),
        f"bot-{'m' * 32}-1-v3": keys.job_queue(BOTS),
        f"bot-{'n' * 32}-0-v5": keys.job_queue(BOT_MATCHES),
        f"hook-{'d' * 32}": keys.job_queue(WEBHOOKS),
        "analysis-m": keys.job_queue(ANALYSES),
        rebuild: keys.job_queue(ANALYSES),
    }


def test_a_rating_job_cut_off_by_an_outage_is_tried_again_later_not_at_once(
    fake_redis, settings, monkeypatch
):
    """A rating job that fails (its pool's node failing over) waits before its next try, its tries spread
    over about a minute as a delivery's are. Tried again at once, its three retries all fell within one
    failover of the fault harness: the game, held in its pool's queue and never queued with its result,
    stopped the pool for good (every later game of the pool waited for it)."""
    import redis
    from rq.job import Job

    import workers.jobs

    tries = []

    def cut_off(match_id: str, namespace: str) -> None:
        tries.append(match_id)
        raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:18498. Connection refused.")

    monkeypatch.setattr(workers.jobs, "rate_match", cut_off)
    jobs = JobQueue(fake_redis, Keys(settings.namespace))
    jobs.enqueue_rating("m-1")
    SimpleWorker(jobs.queues(), connection=fake_redis).work(burst=True)
    assert tries == ["m-1"], "not tried again at once"
    assert ScheduledJobRegistry(queue=jobs.queue(SCORING)).get_job_ids() == ["rate-m-1"]
    assert Job.fetch("rate-m-1", connection=fake_redis).retries_left == DELIVERY_RETRIES.max - 1


def test_a_worker_takes_the_kinds_in_their_order_of_priority_then_the_older_releases_queue(
    fake_redis, settings
):
    keys = Keys(settings.namespace)
    names = [q.name for q in JobQueue(fake_redis, keys).queues()]
    assert names == [keys.job_queue(kind) for kind in KINDS] + [keys.queue]
    assert KINDS.index(CLOCKS) < KINDS.index(SCORING) < KINDS.index(BOTS) < KINDS.index(BOT_MATCHES)
    assert [q.name for q in JobQueue(fake_redis, keys).queues((SCORING, CLOCKS))] == [
        keys.job_queue(CLOCKS),
        keys.job_queue(SCORING),
        keys.queue,
    ]


def test_a_job_an_older_release_left_on_its_single_queue_still_runs(fake_redis, settings):
    """Jobs enqueued before the upgrade, on the one queue of then (and their retries, due later), run."""
    matches = Matches(fake_redis, settings)
    run_here(matches, fake_redis)
    match_id, state, _ = matches.create(
        NewMatch("blokus", ["random bot", "ann"], {"variant": "duo"}, bots=["random", None])
    )
    old = Queue(Keys(settings.namespace).queue, connection=fake_redis)
    old.enqueue("workers.jobs.bot_move", match_id, 0, state.version, settings.namespace, job_id="old-bot")
    old.enqueue_at(
        datetime.fromtimestamp(1_000, tz=UTC),
        "workers.jobs.check_clock",
        match_id,
        state.version,
        settings.namespace,
        job_id="old-clock",
    )
    jobs = JobQueue(fake_redis, Keys(settings.namespace))
    assert jobs.enqueue_overdue() == 1  # the rule loop moves a due job of the old queue too
    assert old.get_job_ids() == ["old-bot", "old-clock"]
    jobs.work_through((CLOCKS,))  # as `matchlog ratings rebuild --here` runs its jobs
    assert matches.load(match_id).version > state.version  # the bot moved


def test_a_bots_reply_to_a_person_goes_before_the_moves_of_matches_of_bots_only(fake_redis, settings):
    matches = Matches(fake_redis, settings)
    run_here(matches, fake_redis)
    bots_only, bots_state, _ = matches.create(
        NewMatch("blokus", ["random bot", "other bot"], {"variant": "duo"}, bots=["random", "random"])
    )
    reply, reply_state, _ = matches.create(
        NewMatch("blokus", ["random bot", "ann"], {"variant": "duo"}, bots=["random", None])
    )
    Bots(matches).to_move(bots_only, bots_state)  # asked for first
    Bots(matches).to_move(reply, reply_state)
    SimpleWorker(JobQueue(fake_redis, Keys(settings.namespace)).queues(), connection=fake_redis).work(
        burst=True, max_jobs=1
    )
    assert matches.load(reply).version > 1 and matches.load(bots_only).version == 1


@pytest.fixture
def capped(settings, fake_redis):
    settings = dataclasses.replace(settings, bot_matches_per_address=2, bot_matches_per_platform=1)
    return settings, create_app(settings, fake_redis).test_client()


def test_an_address_has_as_many_bot_only_matches_at_once_as_its_budget(capped):
    _, client = capped
    first, second = (client.post("/v1/matches", json=BOTS_ONLY).json for _ in range(2))
    refused = client.post("/v1/matches", json=BOTS_ONLY)
    assert refused.status_code == 429 and refused.json["error"] == "too_many_bot_matches", refused.json
    with_a_person = {**BOTS_ONLY, "players": [{"bot": "random"}, {"name": "ann"}]}
    assert client.post("/v1/matches", json=with_a_person).status_code == 201  # only bot-only matches count
    other = client.post("/v1/matches", json=BOTS_ONLY, environ_base={"REMOTE_ADDR": "192.0.2.9"})
    assert other.status_code == 201  # another address has a budget of its own
    ended = client.post(
        f"/v1/matches/{first['id']}/abort", json={"reason": "enough"}, headers=bearer(first["creator_token"])
    )
    assert ended.status_code == 200
    assert client.post("/v1/matches", json=BOTS_ONLY).status_code == 201  # one ended: room for one
    assert client.get(f"/v1/matches/{second['id']}").json["status"] == "active"  # nothing accepted is lost


def test_creates_sent_at_once_get_no_more_bot_only_matches_than_the_budget(settings, fake_redis):
    """Each create takes its place before it counts: eight at once cannot all pass a count none is in yet."""
    settings = dataclasses.replace(settings, bot_matches_per_address=2)
    app = create_app(settings, fake_redis)
    start = threading.Barrier(8)

    def create() -> int:
        client = app.test_client()
        start.wait()
        return client.post("/v1/matches", json=BOTS_ONLY).status_code

    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda _: create(), range(8)))
    assert statuses.count(201) <= 2 and statuses.count(429) >= 6, statuses
    assert set(statuses) <= {201, 429}


def test_a_platform_has_as_many_bot_only_matches_at_once_as_its_budget(capped, fake_redis):
    settings, client = capped
    _, key = Platforms(fake_redis, Keys(settings.namespace)).create("arena")
    assert client.post("/v1/matches", json=BOTS_ONLY, headers=bearer(key)).status_code == 201
    refused = client.post("/v1/matches", json=BOTS_ONLY, headers=bearer(key))
    assert refused.status_code == 429 and refused.json["error"] == "too_many_bot_matches"
    assert client.post("/v1/matches", json=BOTS_ONLY).status_code == 201  # anonymous: the address's budget


PERSON_AND_GREEDY = {
    "game": "blokus",
    "options": {"variant": "duo"},
    "players": [{"name": "ann"}, {"bot": "greedy"}],
    "clock": {"per_action_s": 1},
    "on_timeout": "bot",
}


@pytest.fixture
def greedy_asked(monkeypatch) -> list[int]:
    """One entry each time a greedy bot weighs its moves (past a budget, its seat plays the random bot's)."""
    asked: list[int] = []
    choose = GreedyBot.choose

    def counted(self, *args, **kwargs):
        asked.append(1)
        return choose(self, *args, **kwargs)

    monkeypatch.setattr(GreedyBot, "choose", counted)
    return asked


def _bots_play(matches: Matches, match_id: str, moves: int) -> int:
    """The bots to act play, up to ``moves`` moves or until nobody but a person is to act: how many they did."""
    for played in range(moves):
        state = matches.load(match_id)
        seats = [seat for seat in state.to_act() if state.bot_of(seat)]
        if not seats:
            return played
        assert Bots(matches).move(match_id, seats[0], state.version) is not None
    return moves


def _left_to_bots(client, monkeypatch, how: str, key: str | None = None) -> dict:
    """A match of a person and a greedy bot (two, to concede), created by the platform of ``key`` (else
    anonymously) and left to bots only by ``how``: its creation's answer."""
    matches = client.application.extensions["matchlog"]
    headers = bearer(key) if key else {}
    if how == "concede":
        three = {**PERSON_AND_GREEDY, "options": {}, "players": [{"name": "ann"}] + [{"bot": "greedy"}] * 2}
        created = client.post("/v1/matches", json=three, headers=headers).json
        conceded = client.post(
            f"/v1/matches/{created['id']}/concede", headers=bearer(created["seats"][0]["token"])
        )
        assert conceded.status_code == 201, conceded.json
        return created
    created = client.post("/v1/matches", json=PERSON_AND_GREEDY, headers=headers).json
    if how == "timeout":  # the person is to act, and a minute later still is
        _bots_play(matches, created["id"], 1)
        state = matches.load(created["id"])
        later = datetime.fromtimestamp(time.time() + 60, tz=UTC).isoformat(timespec="milliseconds")
        monkeypatch.setattr("service.application.entry_time.now", lambda: later.replace("+00:00", "Z"))
        assert matches.clocks.check(created["id"], state.version) == "timed out"
    else:
        replaced = client.post(
            f"/v1/matches/{created['id']}/seats/0/replace", json={"bot": "random"}, headers=headers
        )
        assert replaced.status_code == 200, replaced.json
    state = matches.load(created["id"])
    assert (state.bot_of(0) or 0 in state.conceded) and not state.finished  # the person's seat: left
    return created


def _holds_a_place(client, key: str | None, cap: int) -> None:
    """The creator's budget has room for ``cap - 1`` more matches of bots only: one place is held."""
    headers = bearer(key) if key else {}
    for _ in range(cap - 1):
        assert client.post("/v1/matches", json=BOTS_ONLY, headers=headers).status_code == 201
    refused = client.post("/v1/matches", json=BOTS_ONLY, headers=headers)
    assert refused.status_code == 429 and refused.json["error"] == "too_many_bot_matches", refused.json


@pytest.mark.parametrize("how", ["timeout", "replace", "concede"])
def test_a_match_left_to_bots_past_its_creators_budget_counts_and_plays_the_random_bots_move(
    capped, fake_redis, monkeypatch, greedy_asked, how
):
    """The review's way around the budget: matches of a person and bots, left to the bots by a clock (or by
    the platform replacing the person, or by the person conceding) once the creator is at its cap."""
    settings, client = capped
    matches = client.application.extensions["matchlog"]
    key = Platforms(fake_redis, Keys(settings.namespace)).create("arena")[1] if how == "replace" else None
    cap = settings.bot_matches_per_platform if key else settings.bot_matches_per_address
    full = [
        client.post("/v1/matches", json=BOTS_ONLY, headers=bearer(key) if key else {}).json
        for _ in range(cap)
    ]
    left = _left_to_bots(client, monkeypatch, how, key)
    before = matches.load(left["id"]).version
    greedy_asked.clear()
    assert _bots_play(matches, left["id"], 6) == 6  # the greedy bots' seats among them
    assert greedy_asked == []  # each played the random bot's move
    assert matches.load(left["id"]).version > before and not matches.load(left["id"]).finished
    for earlier in full:  # the places it came after end: its own still counts
        ended = client.post(
            f"/v1/matches/{earlier['id']}/abort",
            json={"reason": "enough"},
            headers=bearer(key or earlier["creator_token"]),
        )
        assert ended.status_code == 200
    _holds_a_place(client, key, cap)


@pytest.mark.parametrize("how", ["timeout", "replace"])
def test_a_match_left_to_bots_within_its_creators_budget_counts_and_plays_as_made(
    capped, fake_redis, monkeypatch, greedy_asked, how
):
    settings, client = capped
    matches = client.application.extensions["matchlog"]
    key = Platforms(fake_redis, Keys(settings.namespace)).create("arena")[1] if how == "replace" else None
    cap = settings.bot_matches_per_platform if key else settings.bot_matches_per_address
    left = _left_to_bots(client, monkeypatch, how, key)
    greedy_asked.clear()
    assert _bots_play(matches, left["id"], 4) == 4
    assert greedy_asked  # the greedy bot weighed its moves
    _holds_a_place(client, key, cap)


def test_a_match_left_to_bots_frees_its_place_when_it_ends(settings, fake_redis, monkeypatch):
    settings = dataclasses.replace(settings, bot_matches_per_address=1)
    client = create_app(settings, fake_redis).test_client()
    matches = client.application.extensions["matchlog"]
    left = _left_to_bots(client, monkeypatch, "timeout")
    assert client.post("/v1/matches", json=BOTS_ONLY).status_code == 429  # from the handover on, its place
    assert _bots_play(matches, left["id"], 2) == 2
    ended = client.post(
        f"/v1/matches/{left['id']}/abort", json={"reason": "enough"}, headers=bearer(left["creator_token"])
    )
    assert ended.status_code == 200
    assert client.post("/v1/matches", json=BOTS_ONLY).status_code == 201


def test_a_match_left_to_bots_without_its_place_takes_it_at_its_bots_next_move(
    settings, fake_redis, monkeypatch, greedy_asked
):
    """The process that appended the handover stopped before placing the match: its bots' move places it."""
    settings = dataclasses.replace(settings, bot_matches_per_address=1)
    client = create_app(settings, fake_redis).test_client()
    matches = client.application.extensions["matchlog"]
    full = client.post("/v1/matches", json=BOTS_ONLY).json
    with monkeypatch.context() as stopped:
        stopped.setattr(BotBudget, "left_to_bots", lambda self, match_id: None)
        left = _left_to_bots(client, monkeypatch, "timeout")
    greedy_asked.clear()
    assert _bots_play(matches, left["id"], 4) == 4
    assert greedy_asked == []  # placed past the cap
    client.post(
        f"/v1/matches/{full['id']}/abort", json={"reason": "enough"}, headers=bearer(full["creator_token"])
    )
    assert client.post("/v1/matches", json=BOTS_ONLY).status_code == 429  # and counted


def test_a_count_reads_past_a_long_run_of_ended_matches_and_lets_them_go(fake_redis, settings):
    """The earlier places are read in steps of ``cap + COUNTED_AT_ONCE``: ended ones first, running ones after."""
    from service.store.budgets import COUNTED_AT_ONCE, BotBudgets

    keys = Keys(settings.namespace)
    budgets = BotBudgets(fake_redis, keys)
    ended = [f"ended-{n}" for n in range(2 * COUNTED_AT_ONCE + 5)]
    fake_redis.rpush(keys.bot_matches("address:x"), *ended)  # none of them is watched: all over
    assert budgets.place("address:x", "first", 2) and budgets.place("address:x", "second", 2)
    assert not budgets.place("address:x", "third", 2)  # two running before it, past a long run of ended ones
    assert fake_redis.lrange(keys.bot_matches("address:x"), 0, -1) == [b"first", b"second", b"third"]
    assert budgets.of_match("third") == (0.0, False) and budgets.of_match("first") == (0.0, True)


def test_an_ipv6_client_has_one_budget_per_64(capped):
    """A host (or a home) is given a /64: by the address it would have 2^64 budgets."""
    _, client = capped

    def create(address: str):
        return client.post("/v1/matches", json=BOTS_ONLY, environ_base={"REMOTE_ADDR": address})

    assert [create(f"2001:db8:1:2::{n}").status_code for n in (1, 2, 3)] == [201, 201, 429]
    assert create("2001:db8:1:2:ffff:ffff:ffff:ffff").status_code == 429
    assert create("2001:db8:1:3::1").status_code == 201  # the next /64 is another client
    assert [create(address).status_code for address in ("192.0.2.7", "::ffff:192.0.2.7")] == [201, 201]
    assert create("192.0.2.7").status_code == 429  # the IPv4 client, written in IPv6 or not, has one budget


def test_bots_past_their_matchs_cpu_budget_play_the_random_bots_move(fake_redis, settings, monkeypatch):
    settings = dataclasses.replace(settings, bot_cpu_per_match_s=5.0)
    matches = Matches(fake_redis, settings)
    match_id, state, _ = matches.create(
        NewMatch("blokus", ["greedy bot", "other bot"], {"variant": "duo"}, bots=["greedy", "greedy"])
    )
    fake_redis.set(Keys(settings.namespace).bot_cpu(match_id), 5.0)  # its bots have thought for 5 s already

    def never(*_):
        raise AssertionError("a match past its budget asked the greedy bot")

    monkeypatch.setattr(GreedyBot, "choose", never)
    assert Bots(matches).move(match_id, 0, state.version) is not None
    assert matches.load(match_id).version > state.version


def test_a_bots_move_past_its_cpu_budget_is_the_random_bots_move(fake_redis, settings):
    matches = Matches(fake_redis, settings)
    match_id, state, _ = matches.create(
        NewMatch("blokus", ["greedy bot", "ann"], {"variant": "duo"}, bots=["greedy", None])
    )
    secret = matches.secret(match_id)
    asked = []
    hurried = lifecycle.bot_action(state, 0, secret, out_of_thought=lambda: asked.append(1) or True)
    assert asked == [1]  # it stopped weighing moves at the first one
    assert hurried == lifecycle.bot_action(state, 0, secret, cheapest=True)


def test_serve_gives_every_kind_a_worker_and_runs_the_rule_loop_once():
    from service.cli import queue_kinds, serve_workers

    workers = serve_workers(Settings())
    taken = [queue_kinds(arguments[1]) for arguments in workers.values()]
    assert sorted({kind for kinds in taken for kind in kinds}) == sorted(KINDS)
    assert [("--no-rules" not in arguments) for arguments in workers.values()].count(True) == 1
    assert taken[0] == (CLOCKS, SCORING)  # the rule loop's process: deadlines first, and the only one


def test_serve_starts_one_delivery_worker_more_than_a_platforms_slots():
    """A platform whose every receiver stalls holds its slots; the process left delivers everyone else's."""
    from service.cli import queue_kinds, serve_workers

    for slots, expected in ((1, 2), (2, 3), (3, 4), (9, 4), (0, 1)):
        workers = serve_workers(dataclasses.replace(Settings(), webhook_slots_per_platform=slots))
        assert sum(queue_kinds(arguments[1]) == (WEBHOOKS,) for arguments in workers.values()) == expected


def test_a_worker_is_told_its_queues_by_kind():
    import argparse

    from service.cli import queue_kinds

    assert queue_kinds("webhooks, analyses") == (WEBHOOKS, ANALYSES)
    with pytest.raises(argparse.ArgumentTypeError, match="clocks, scoring"):
        queue_kinds("clock")


def test_a_clock_deadline_is_due_at_its_millisecond_not_at_the_next_whole_second(fake_redis, settings):
    jobs = JobQueue(fake_redis, Keys(settings.namespace))
    jobs.enqueue_deadline("m" * 32, 3, 4_102_444_800_250)
    registry = ScheduledJobRegistry(queue=jobs.queue(CLOCKS))
    assert registry.get_jobs_to_schedule(4_102_444_800.7) == []  # type: ignore[arg-type]
    due = registry.get_jobs_to_schedule(4_102_444_800.8)  # type: ignore[arg-type]
    assert due == [f"clock-{'m' * 32}-v3-4102444800250-0"]  # half a second after, not at the next whole one


def test_serve_tells_when_its_api_answers():
    """``matchlog serve`` starts the job-only workers once its API answers (``_answers``)."""
    import http.server
    import threading

    from service.cli import _answers

    class Healthy(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200 if self.path == "/healthz" else 404)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Healthy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        assert _answers("0.0.0.0", port)
    finally:
        server.shutdown()
        server.server_close()
    assert not _answers("127.0.0.1", port)  # nobody there any more
