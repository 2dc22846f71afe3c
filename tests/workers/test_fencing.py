"""Two rule workers on one match: a worker stalled in a notice's work past its lease (its ``WAIT``s on a
loaded cluster) while another takes the partition writes nothing more there. Each lease taken comes with a
newer fencing token, and the writes of a notice's work (the order of a webhook's deliveries, the notice's
acknowledgement) refuse an older one (``service.store.fences``), on a real Redis."""

from __future__ import annotations

import dataclasses

import pytest

from service.application.matches import Matches
from service.domain.errors import LeaseLost
from service.http.app import create_app
from service.store.events import EventStore
from service.store.fences import Fence, Fences
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.helpers import act, bearer, full_log
from workers.projector import GROUP, Projector

pytestmark = pytest.mark.redis


def _placements(client, match_id, tokens, count):
    for _ in range(count):
        seat = client.get(f"/v1/matches/{match_id}").json["to_act"][0]
        legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json
        assert act(client, match_id, tokens[seat], legal["version"], legal["actions"][0]).status_code == 201


def test_a_worker_whose_lease_lapsed_mid_notice_writes_nothing_more(real_redis, settings, monkeypatch):
    """The stale worker's delivery record is refused and it drops its batch; the heir did the work, each
    delivery naming the one before it."""
    settings = dataclasses.replace(
        settings, webhooks_private=True, claim_idle_ms=60_000, partition_lease_ms=60_000
    )
    keys = Keys(settings.namespace, settings.feed_partitions)
    client = create_app(settings, real_redis).test_client()
    _, key = Platforms(real_redis, keys).create("arena")
    hook = client.post(
        "/v1/webhooks", json={"url": "http://127.0.0.1:9/hooks", "events": ["placed"]}, headers=bearer(key)
    ).json["id"]
    match = client.post(
        "/v1/matches", json={"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}, headers=bearer(key)
    ).json
    match_id, tokens = match["id"], [seat["token"] for seat in match["seats"]]
    stale = Projector(Matches(real_redis, settings), real_redis, consumer="stale", block_ms=10)
    heir = Projector(Matches(real_redis, settings), real_redis, consumer="heir", block_ms=10)
    assert stale.step() == 1  # it holds every partition, and the match's creation is done
    _placements(client, match_id, tokens, 2)  # the stale worker's next batch
    partition = keys.partition(match_id)
    stale_fence = stale.leases.fence(partition)
    deliver = stale.deliveries.deliver
    refused: list[int] = []
    lapsed: list[int] = []

    def stalled(match_id: str, version: int, types: tuple[str, ...], fence: Fence | None = None) -> None:
        if not lapsed:  # stalled here past its lease: the other worker takes the partitions meanwhile
            lapsed.append(version)
            real_redis.zadd(keys.feed_members, {"stale": 0})
            real_redis.hset(keys.feed_owners, mapping=dict.fromkeys(range(keys.partitions), "stale|0"))
            _placements(client, match_id, tokens, 1)
            while heir.step():  # the batch left pending, then the newer placement
                pass
        try:
            deliver(match_id, version, types, fence)
        except LeaseLost:
            refused.append(version)
            raise

    monkeypatch.setattr(stale.deliveries, "deliver", stalled)
    stale.step()
    versions = [e["version"] for e in full_log(client, match_id) if e["type"] == "placed"]
    assert len(versions) == 3
    assert refused == versions[:1], "the stale worker's record of its first notice refused"
    assert partition not in stale.leases.owned(), "it reads that partition no more"
    heir_fence = heir.leases.fence(partition)
    assert stale_fence and heir_fence and heir_fence.token > stale_fence.token
    order = {
        k.decode(): v.decode() for k, v in real_redis.hgetall(keys.webhook_order(hook, match_id)).items()
    }
    assert order == {
        "last": str(versions[-1]),
        **{f"v{v}": str(before) if before else "" for v, before in zip(versions, [None, *versions[:-1]])},
    }, "each delivery names the one before it"
    assert heir.store.feed_pending(GROUP) == 0, (
        "the heir finished every notice; the stale one acknowledged none"
    )


def test_an_acknowledgement_under_an_older_lease_is_refused(real_redis, settings, real_client):
    """The worker that lost a partition cannot acknowledge a notice the heir holds pending (a game's end
    waiting for its score): the notice would be lost if the heir's work failed."""
    store = EventStore.of(real_redis, settings)
    fences = Fences(real_redis, store.keys)
    response = real_client.post(
        "/v1/matches", json={"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}
    )
    partition = store.partition(response.json["id"])
    store.ensure_group(GROUP, [partition])
    [notice] = store.read_feed(GROUP, "heir", [partition], count=10, block_ms=10)
    older, newer = Fence(partition, 7), Fence(partition, 8)
    assert fences.show(older) and fences.show(newer) and not fences.show(older)
    with pytest.raises(LeaseLost):
        store.ack(GROUP, notice, older)
    assert store.feed_pending(GROUP) == 1, "still pending, the heir's"
    store.ack(GROUP, notice, newer)
    assert store.feed_pending(GROUP) == 0
