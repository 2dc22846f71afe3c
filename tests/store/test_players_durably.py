"""The ratings projection's writes are made as durably as an append: with replicated durability one lost in
a failover, after its job had finished, left a pool's queue stopped at a match held and never rated, or a
match counted by nobody (what a 20-round fault run's ``rating_mismatch`` suggested)."""

from __future__ import annotations

from typing import Any

from service.domain.ratings import RatedMatch, Seat
from service.store.keys import Keys
from service.store.players import PlayerStore

POOL = "blokus:duo:2p"


def _match(match_id: str, ended_ms: int) -> RatedMatch:
    return RatedMatch(match_id, "blokus", POOL, ended_ms, 9, (Seat(0, "u-ann", 1), Seat(1, "u-bob", 2)))


def test_a_place_held_a_match_queued_applied_or_released_is_written_durably(fake_redis, settings):
    keys = Keys(settings.namespace)
    written: list[str] = []

    def durably(key: str, write: Any) -> Any:
        written.append(key)
        return write(fake_redis)

    store = PlayerStore(fake_redis, settings.namespace, durably)
    queue, applied = keys.rating_queue("arena", POOL), keys.rating_applied("arena", POOL)
    assert store.hold("arena", POOL, "m1", 1000) and written == [queue]
    store.enqueue("arena", _match("m2", 2000))
    assert [m.match_id for m, _, _ in store.process("arena", POOL)] == [], "m1, held, goes first"
    store.enqueue("arena", _match("m1", 1000))
    assert [m.match_id for m, _, _ in store.process("arena", POOL)] == ["m1", "m2"]
    assert written == [queue, queue, queue, applied, applied]
    store.hold("arena", POOL, "m3", 3000)
    store.release("arena", POOL, "m3", "aborted")
    assert written[-2:] == [queue, queue] and not fake_redis.zcard(queue)
    assert store.all_ratings("arena", POOL)["u-ann"].games == 2
