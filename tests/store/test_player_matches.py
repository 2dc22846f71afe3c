"""``PlayerMatches`` on a real Redis: pages newest first that a cursor walks to every seat exactly once,
seats of one time (a player in both seats, matches taken in one millisecond) included; one platform's player
is not another's; a player's finished matches keep the newest ``RECENT_KEPT``."""

from __future__ import annotations

import random

from service.store import player_matches
from service.store.keys import Keys
from service.store.player_matches import Cursor, Held, PlayerMatches


def _walk(store: PlayerMatches, platform: str, player: str, status: str, limit: int) -> list[Held]:
    shown, cursor = [], None
    while True:
        page, cursor = store.page(platform, player, status, cursor, limit)
        assert len(page) <= limit
        shown += page
        if cursor is None:
            return shown
        cursor = Cursor.parse(str(cursor))  # as a client sends it back


def test_a_cursor_walks_every_seat_once_newest_first_through_ties(real_redis, settings):
    store = PlayerMatches(real_redis, Keys(settings.namespace))
    rng = random.Random("ties")
    taken = {
        Held(f"m{i:03d}", seat): rng.choice([1000, 1000, 2000, 3000]) for i in range(40) for seat in (0, 1)
    }
    for held, at_ms in taken.items():
        store.change("arena", [], [("u-1", held)], [], at_ms)
    for limit in (1, 3, 7, 100):
        shown = _walk(store, "arena", "u-1", "active", limit)
        assert sorted(shown) == sorted(taken) and len(shown) == len(taken)
        assert [taken[h] for h in shown] == sorted(taken.values(), reverse=True)


def test_a_platforms_player_is_not_another_platforms(real_redis, settings):
    store = PlayerMatches(real_redis, Keys(settings.namespace))
    store.change("arena", [], [("u-1", Held("m1", 0))], [], 1000)
    assert store.page("elsewhere", "u-1", "active", None, 20) == ([], None)
    assert store.page("arena", "u-1", "active", None, 20) == ([Held("m1", 0)], None)


def test_an_end_moves_the_seats_and_keeps_the_newest_finished(real_redis, settings, monkeypatch):
    monkeypatch.setattr(player_matches, "RECENT_KEPT", 3)
    store = PlayerMatches(real_redis, Keys(settings.namespace))
    for i in range(5):
        store.change("arena", [], [("u-1", Held(f"m{i}", 0))], [], 1000 + i)
        store.change("arena", [], [], [("u-1", Held(f"m{i}", 0))], 2000 + i)
    assert store.page("arena", "u-1", "active", None, 20) == ([], None)
    assert store.page("arena", "u-1", "finished", None, 20)[0] == [Held(f"m{i}", 0) for i in (4, 3, 2)]
