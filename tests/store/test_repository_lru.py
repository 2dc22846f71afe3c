"""``repository.Lru``, the caches of a process's match states and metas: least recently used out first,
and shared by threads without a lock (each step one atomic call of ``OrderedDict``'s)."""

from __future__ import annotations

import threading

from service.store.repository import Lru


def test_the_least_recently_used_goes_first():
    lru = Lru(2)
    lru.put("a", 1)
    lru.put("b", 2)
    assert lru.get("a") == 1  # now b is the oldest
    lru.put("c", 3)
    assert (lru.get("a"), lru.get("b"), lru.get("c")) == (1, None, 3)
    lru.drop("a")
    assert lru.get("a") is None and lru.get("c") == 3


def test_threads_sharing_one_lru_never_fail_and_keep_it_within_size():
    lru = Lru(8)
    failures = []

    def churn(offset: int) -> None:
        try:
            for i in range(20_000):
                key = f"k{(i + offset) % 13}"
                if i % 3 == 0:
                    lru.put(key, i)
                elif i % 3 == 1:
                    value = lru.get(key)
                    assert value is None or isinstance(value, int)
                else:
                    lru.drop(key)
        except Exception as error:  # collected: an assertion in a thread would be lost
            failures.append(error)

    threads = [threading.Thread(target=churn, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(lru._items) <= 8


def test_a_byte_bounded_lru_evicts_the_least_recently_used_by_bytes_not_by_count():
    lru = Lru(100, max_bytes=10, weigh=lambda value, previous: len(value))
    lru.put("a", "xxxx")
    lru.put("b", "xxxx")
    assert lru.get("a") == "xxxx" and lru.bytes == 8  # now b is the oldest
    lru.put("c", "xxxx")  # 12 bytes: b goes, though 100 values would fit
    assert (lru.get("a"), lru.get("b"), lru.get("c")) == ("xxxx", None, "xxxx") and lru.bytes == 8
    lru.put("a", "x")  # a value put again counts its new weight only
    assert lru.bytes == 5
    lru.put("big", "x" * 50)  # bigger than the bound alone: kept, the others go
    assert lru.get("big") and lru.get("a") is None and lru.get("c") is None and lru.bytes == 50
    lru.drop("big")
    assert lru.bytes == 0


def test_the_state_cache_holds_at_most_its_bytes_of_states(fake_redis, settings):
    from dataclasses import replace

    from service.application.matches import Matches, NewMatch
    from service.store.repository import state_weight

    one = Matches(fake_redis, settings).create(NewMatch("blokus", ["ann", "bob"]))[1]
    bound = 3 * state_weight(one, None)
    matches = Matches(fake_redis, replace(settings, state_cache_bytes=bound))
    ids = [matches.create(NewMatch("blokus", ["ann", "bob"]))[0] for _ in range(10)]
    repository = matches.repository
    assert repository._heads.bytes <= bound
    assert [m for m in ids if repository.head(m) is not None] == ids[-3:]
