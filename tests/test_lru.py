"""``repository.Lru``, the caches of a process's match states and metas: least recently used out first,
and shared by threads without a lock (each step one atomic call of ``OrderedDict``'s)."""

from __future__ import annotations

import threading

from service.repository import Lru


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
