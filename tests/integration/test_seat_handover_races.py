"""A seat handed over twice at once, or handed to a bot by its clock while someone replaces it, ends with the
token of the holder the log names last and no other: the token changes in the same step as the entry that
hands the seat over (``EventStore.append``), so the log and the seat's token cannot disagree. Threads race on
a real Redis, each with a ``Matches`` of its own (as two API processes, or an API and a clock worker)."""

from __future__ import annotations

import threading
import time
from functools import partial

import pytest

from service.application.matches import Matches, NewMatch
from service.application.seats import Seats
from service.domain.tokens import token_hash

pytestmark = pytest.mark.redis

TRIALS = 30


def _race(*calls):
    """Run ``calls`` at once, each on a thread of its own let go by one barrier; their answers in order."""
    barrier = threading.Barrier(len(calls))
    answers: list = [None] * len(calls)

    def run(i, call):
        barrier.wait()
        try:
            answers[i] = call()
        except Exception as error:  # the assertion shows it
            answers[i] = error

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers


def _last_holder(matches: Matches, match_id: str, seat: int) -> dict:
    """The data of the last ``seat_replaced`` of ``seat`` in the log: who the log says plays it now."""
    entries = matches.repository.store.read(match_id)
    return next(e.data for e in reversed(entries) if e.type == "seat_replaced" and e.seat == seat)


def test_two_replacements_at_once_leave_the_token_of_the_one_the_log_names(real_redis, settings):
    here, there = Matches(real_redis, settings), Matches(real_redis, settings)
    for _ in range(TRIALS):
        match_id, _, _ = here.create(NewMatch("blokus", ["ann", "bob"], {}))
        answers = _race(
            partial(Seats(here).replace_seat, match_id, 1, name="carl"),
            partial(Seats(there).replace_seat, match_id, 1, name="dora"),
        )
        tokens = {answer["name"]: answer["token"] for answer in answers}  # both handed the seat over, in turn
        named = _last_holder(here, match_id, 1)["name"]
        assert here.repository.seat_digest(match_id, 1) == token_hash(tokens[named]), f"the log names {named}"


def test_a_timeout_to_a_bot_racing_a_replacement_leaves_the_seat_as_the_log_says(real_redis, settings):
    clock, there = Matches(real_redis, settings), Matches(real_redis, settings)
    for _ in range(TRIALS):
        match_id, state, (ann, _) = clock.create(
            NewMatch("blokus", ["ann", "bob"], {}, clock={"per_action_ms": 100, "on_timeout": "bot"})
        )
        clock.load(match_id)
        time.sleep(0.15)  # seat 0, to act, is out of time
        answers = _race(
            partial(clock.clocks.check, match_id, state.version),
            partial(Seats(there).replace_seat, match_id, 0, name="carl"),
        )
        assert not [a for a in answers if isinstance(a, Exception)], answers
        holder, digest = _last_holder(clock, match_id, 0), clock.repository.seat_digest(match_id, 0)
        if holder.get("bot"):  # the clock's handover came last: nobody's token acts for the bot
            assert digest not in (token_hash(ann), token_hash(answers[1]["token"])), "a token acts for a bot"
        else:
            assert holder["name"] == "carl" and digest == token_hash(answers[1]["token"]), holder
