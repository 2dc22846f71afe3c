"""The seek pool: windows that widen, bots only where allowed, pods (service/domain/pairing/seeks.py)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.errors import PairingRefused
from service.domain.pairing import seeks
from service.domain.pairing.seeks import Seek, SeekPool
from tests.conftest import examples


def seek(id_, rating, at=0, **kwargs):
    return Seek(
        id_,
        kwargs.pop("player", f"player-{id_}"),
        rating,
        kwargs.pop("pool", "blokus:classic:rated"),
        at,
        **kwargs,
    )


def test_the_window_widens_with_waiting_up_to_its_cap():
    s = seek("a", 1500)
    assert s.window(0) == seeks.WINDOW_START
    assert s.window(5_000) == seeks.WINDOW_START + 5 * seeks.WINDOW_GROWTH
    assert s.window(3_600_000) == seeks.WINDOW_MAX


def test_close_ratings_meet_at_once():
    pool = SeekPool()
    assert pool.arrive(seek("a", 1500), 0) is None
    met = pool.arrive(seek("b", 1580, 10), 10)
    assert met is not None and [s.id for s in met.seeks] == ["a", "b"] and len(pool) == 0


def test_far_ratings_meet_once_both_windows_reach():
    pool = SeekPool()
    pool.arrive(seek("a", 1500), 0)
    assert pool.arrive(seek("b", 1800, 0), 0) is None
    assert pool.tick(5_000) == ([], [])
    met, _ = pool.tick(10_000)
    assert [[s.id for s in m.seeks] for m in met] == [["a", "b"]]


def test_the_nearest_rating_is_taken_first_then_the_oldest():
    pool = SeekPool()
    pool.arrive(seek("older", 1420, 0), 0)
    pool.arrive(seek("nearer", 1570, 1), 1)
    met = pool.arrive(seek("me", 1510, 2), 2)
    assert met is not None and [s.id for s in met.seeks] == ["nearer", "me"]
    pool = SeekPool()
    pool.arrive(seek("old", 1440, 0), 0)
    pool.arrive(seek("new", 1560, 1), 1)
    met = pool.arrive(seek("me", 1500, 2), 2)
    assert met is not None and [s.id for s in met.seeks] == ["old", "me"]


def test_other_pools_never_meet():
    pool = SeekPool()
    pool.arrive(seek("a", 1500, pool="blokus:classic:rated"), 0)
    assert pool.arrive(seek("b", 1500, pool="blokus:classic:casual"), 0) is None


def test_a_player_is_never_paired_with_a_bot_unless_both_allowed_it():
    pool = SeekPool()
    pool.arrive(seek("human", 1500), 0)
    assert pool.arrive(seek("bot", 1500, bot=True, bots_allowed=True), 0) is None
    pool.arrive(seek("friendly", 1500, bots_allowed=True), 0)
    assert len(pool) == 1
    shy = SeekPool()
    shy.arrive(seek("human", 1500, bots_allowed=True), 0)
    assert shy.arrive(seek("bot", 1500, bot=True), 0) is None  # the bot's side did not allow bots
    assert not seeks.suits(seek("h", 1500), seek("b", 1500, bot=True, bots_allowed=True), 0)


def test_a_player_never_meets_itself():
    pool = SeekPool()
    pool.arrive(seek("a", 1500, player="same"), 0)
    assert pool.arrive(seek("b", 1500, player="same"), 0) is None


def test_a_pod_seek_waits_for_its_count_and_fits_every_window():
    pool = SeekPool()
    for i, rating in enumerate((1500, 1550, 1590)):
        assert pool.arrive(seek(f"s{i}", rating, players=4), 0) is None
    assert pool.arrive(seek("two", 1500), 0) is None  # another size: not a fourth
    met = pool.arrive(seek("s3", 1600, players=4), 0)
    assert met is not None and len(met.seeks) == 4


def test_seeks_not_paired_in_time_expire_with_a_reason():
    pool = SeekPool()
    pool.arrive(seek("a", 1500), 0)
    _, expired = pool.tick(seeks.EXPIRE_MS)
    assert [(e.seek.id, e.reason) for e in expired] == [("a", "no_opponent_in_time")] and len(pool) == 0


def test_a_cancelled_seek_leaves_the_pool():
    pool = SeekPool()
    pool.arrive(seek("a", 1500), 0)
    assert pool.cancel("a").id == "a" and pool.cancel("a") is None and len(pool) == 0


def test_bad_seeks_are_refused():
    with pytest.raises(PairingRefused) as refused:
        seek("a", 1500, players=6)
    assert refused.value.reason == "bad_seek"
    pool = SeekPool()
    pool.arrive(seek("a", 1500, players=3), 0)
    with pytest.raises(PairingRefused):
        pool.arrive(seek("a", 1500, players=3), 0)


arrivals = st.lists(
    st.tuples(
        st.integers(1000, 2000),
        st.integers(0, 2_000),
        st.booleans(),
        st.booleans(),
        st.sampled_from([2, 2, 3, 4]),
    ),
    max_size=60,
)


@settings(max_examples=examples(60), deadline=None)
@given(arrivals)
def test_every_meeting_is_within_windows_bots_allowed_and_each_seek_once_and_the_same_on_replay(events):
    def run():
        pool, now, log = SeekPool(), 0, []
        for i, (rating, gap, bot, allows, count) in enumerate(events):
            now += gap
            made = pool.arrive(Seek(f"s{i}", f"p{i % 7}", rating, "pool", now, count, bot, allows), now)
            met = [made] if made else []
            if i % 5 == 4:
                ticked, _ = pool.tick(now)
                met += ticked
            for meeting in met:
                for a in meeting.seeks:
                    for b in meeting.seeks:
                        if a is not b:
                            assert seeks.suits(a, b, now)
                log.append(tuple(s.id for s in meeting.seeks))
        return log

    log = run()
    ids = [i for m in log for i in m]
    assert len(ids) == len(set(ids))
    assert log == run()


def test_a_seek_at_its_widest_window_still_meets_a_newcomer():
    pool = SeekPool()
    pool.arrive(seek("a", 1500), 0)
    pool.arrive(seek("far", 2300), 0)
    assert pool.tick(40_000) == ([], []) and pool.tick(41_000) == ([], [])
    met = pool.arrive(seek("new", 1550, 41_500), 41_500)
    assert met is not None and [s.id for s in met.seeks] == ["a", "new"]


def test_a_restored_pool_waits_for_an_arrival_or_a_tick_to_pair():
    pool = SeekPool()
    pool.restore(seek("a", 1500))
    pool.restore(seek("b", 1550))
    assert len(pool) == 2  # filed, not paired: they were open side by side already
    met = pool.arrive(seek("c", 1520, 5), 5)
    assert met is not None and [s.id for s in met.seeks] == ["a", "c"]


def test_a_restored_settled_seek_is_left_out_of_ticks():
    pool = SeekPool()
    pool.restore(seek("a", 1000), settled=True)
    pool.restore(seek("b", 1600), settled=True)
    assert pool.tick(60_000) == ([], [])  # at their widest they meet: but only a newcomer looks again
    with pytest.raises(PairingRefused):
        pool.restore(seek("a", 1000))
