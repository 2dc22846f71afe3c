"""The seeks use case (service/application/seeks.py) over fakeredis: pods of three met by one arrival, an
arrival while another process pairs left to the tick, a pool rebuilt from the store pairing as the pure one
would, and the platform's webhooks told ``seek_paired`` and ``seek_expired`` (no token in them)."""

from __future__ import annotations

import json
import time

import pytest

from service.application.matches import Matches
from service.application.seeks import SEEK_EXPIRED, SEEK_PAIRED, NewSeek, Seeks
from service.domain.errors import Unavailable
from service.domain.pairing.seeks import EXPIRE_MS
from service.domain.tokens import token_hash
from service.store.keys import Keys
from service.store.platforms import Platforms
from service.store.players import PlayerStore
from service.store.seeks import SeekStore
from service.store.webhooks import joined
from tests.http.test_openapi_components_typed import fits


@pytest.fixture
def seeks(settings, fake_redis):
    matches = Matches(fake_redis, settings)
    return Seeks(
        matches, PlayerStore(fake_redis, settings.namespace), SeekStore(fake_redis, matches.stores.keys)
    )


@pytest.fixture
def platform(settings, fake_redis):
    return Platforms(fake_redis, Keys(settings.namespace)).create("arena")[0]


def three(platform, player, **extra):
    return NewSeek(
        "blokus", 3, player, {"variant": "three_player"}, platform=platform, player=player, **extra
    )


def deliveries(seeks, fake_redis):
    """The bodies of the webhook deliveries enqueued, as a receiver would get them."""
    stores = seeks.matches.stores
    found = []
    for job in stores.jobs.queue("webhooks").jobs:
        _, _, own, _, shared = job.args
        found.append(json.loads(joined(own, stores.webhooks.body(shared))))
    return found


def test_a_pod_of_three_meets_when_the_third_arrives_and_each_seat_is_its_seek_s(seeks, platform):
    first, _ = seeks.post(three(platform, "u-1"))
    second, _ = seeks.post(three(platform, "u-2"))
    assert first["status"] == second["status"] == "open"
    third, owner = seeks.post(three(platform, "u-3"))
    assert owner is None and third["status"] == "paired"
    records = [seeks.get(s["id"]) for s in (first, second, third)]
    assert {r["match"] for r in records} == {third["match"]} and sorted(r["seat"] for r in records) == [
        0,
        1,
        2,
    ]
    state = seeks.matches.load(third["match"])
    for record in records:
        assert state.players[record["seat"]] == record["name"]
        held = seeks.matches.repository.meta(third["match"]).seat_hashes[record["seat"]]
        assert held == token_hash(seeks.token(record))


def test_an_arrival_while_another_process_pairs_waits_for_the_tick(seeks, platform, monkeypatch):
    monkeypatch.setattr("service.application.seeks.ARRIVAL_WAIT_S", 0.01)
    seeks.post(NewSeek("blokus", 2, "ann", {"variant": "duo"}, platform=platform, player="u-1"))
    with seeks.store.pairing(1) as held:  # another process's pairing, under way
        assert held
        late, _ = seeks.post(NewSeek("blokus", 2, "bob", {"variant": "duo"}, platform=platform, player="u-2"))
        assert late["status"] == "open"
        assert seeks.tick() == ([], [])  # the tick does nothing while it is held either
    started, expired = seeks.tick()
    assert len(started) == 1 and expired == []
    assert seeks.get(late["id"])["match"] == started[0]


def test_a_player_never_meets_itself(seeks, platform):
    mine, _ = seeks.post(NewSeek("blokus", 2, "ann", {"variant": "duo"}, platform=platform, player="u-1"))
    again, _ = seeks.post(NewSeek("blokus", 2, "ann", {}, platform=platform, player="u-1"))
    assert mine["status"] == again["status"] == "open"  # {} is duo's options too: the same pool
    assert seeks.tick(int(time.time() * 1000) + 60_000)[0] == []


def test_the_platform_s_webhooks_hear_of_pairings_and_expiries_without_tokens(seeks, platform, fake_redis):
    hook = seeks.matches.stores.webhooks.register(
        platform, "https://example.com/hooks", [SEEK_PAIRED, SEEK_EXPIRED], None
    )
    assert hook
    a, _ = seeks.post(NewSeek("blokus", 2, "ann", {"variant": "duo"}, platform=platform, player="u-1"))
    b, _ = seeks.post(NewSeek("blokus", 2, "bob", {"variant": "duo"}, platform=platform, player="u-2"))
    lonely, _ = seeks.post(three(platform, "u-3"))
    assert seeks.tick(lonely["created_ms"] + EXPIRE_MS)[1] == [lonely["id"]]
    paired, expired = deliveries(seeks, fake_redis)
    assert paired["event"] == SEEK_PAIRED and paired["match"] == b["match"]
    assert sorted((s["seek"], s["player"]) for s in paired["seeks"]) == sorted(
        [(a["id"], "u-1"), (b["id"], "u-2")]
    )
    assert expired["event"] == SEEK_EXPIRED and expired["seek"] == lonely["id"]
    assert expired["reason"] == "no_opponent_in_time"
    assert "token" not in json.dumps(paired)
    fits("SeekPairedDelivery", paired)
    fits("SeekExpiredDelivery", expired)


def test_a_seek_whose_record_has_gone_does_not_hold_its_player_s_bound(seeks, platform, fake_redis):
    """Kept a day: a seek no tick expired (no worker ran) goes with its record, not with its bound."""
    for variant, players in (("duo", 2), ("three_player", 3), ("four_player", 4)):
        made, _ = seeks.post(
            NewSeek("blokus", players, "ann", {"variant": variant}, platform=platform, player="u-1")
        )
    fake_redis.delete(seeks.store.keys.seek(made["id"]))
    again, _ = seeks.post(
        NewSeek("blokus", 4, "ann", {"variant": "four_player"}, platform=platform, player="u-1")
    )
    assert again["status"] == "open"


def test_seeks_whose_records_have_gone_leave_every_index_and_the_platform_s_bound(
    seeks, platform, fake_redis, monkeypatch
):
    """Their ids stayed in the platform's listing, the open seeks and their pools for ever: counted in the
    platform's bound (SEEKS_PER_TENANT), a day without a tick left a platform that could never seek again."""
    from service.application import seeks as seeks_module

    monkeypatch.setattr(seeks_module, "SEEKS_PER_TENANT", 2)
    gone = [
        seeks.post(NewSeek("blokus", 2, "ann", {"variant": v}, platform=platform, player=f"u-{i}"))[0]
        for i, v in enumerate(("duo", "two_player"))
    ]
    for record in gone:
        fake_redis.delete(seeks.store.keys.seek(record["id"]))
    made, _ = seeks.post(NewSeek("blokus", 2, "bob", {"variant": "duo"}, platform=platform, player="u-9"))
    assert made["status"] == "open"
    assert [row["id"] for row in seeks.listed(platform, None, 10)[0]] == [made["id"]]
    seeks.tick()
    keys = seeks.store.keys
    indexes = [keys.open_seeks, keys.listed_seeks(platform), keys.seek_pool(made["pool"])]
    held = {member.decode() for index in indexes for member in fake_redis.zrange(index, 0, -1)}
    assert held == {made["id"]}  # the duo pool's gone id left as the arrival read it
    untouched = keys.seek_pool(gone[1]["pool"])  # nobody seeks there: it goes, gone id and all, within a day
    assert 0 < fake_redis.ttl(untouched) <= 24 * 3600


def test_a_cancel_never_races_a_pairing(seeks, platform, monkeypatch):
    """A cancel waits for the pairing lock; one it cannot get is a retry later, never a write beside it."""
    monkeypatch.setattr("service.application.seeks.ARRIVAL_WAIT_S", 0.01)
    mine, _ = seeks.post(NewSeek("blokus", 2, "ann", {"variant": "duo"}, platform=platform, player="u-1"))
    with seeks.store.pairing(1), pytest.raises(Unavailable):
        seeks.cancel(mine["id"])
    assert seeks.get(mine["id"])["status"] == "open"
    assert seeks.cancel(mine["id"])["status"] == "cancelled"
