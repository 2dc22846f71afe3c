"""A pool's games are rated in the order they ended, whatever order the rule workers handle their end
notices in: what the fault harness's ``rating_mismatch`` found when a game's end notice waited (its worker
killed) while a later game of the pool was scored and rated first."""

from __future__ import annotations

import random

import pytest

from service.application.matches import Matches
from service.domain import ratings
from service.domain.chain import Recorded
from service.domain.errors import NotReplicated
from service.http.app import create_app
from service.store.events import EventStore, FeedNotice
from service.store.keys import Keys
from service.store.platforms import Platforms
from service.store.players import PlayerStore
from tests.helpers import bearer, play_random_game, run_jobs
from workers.projector import GROUP, Projector

pytestmark = pytest.mark.redis

PLAYERS = [{"name": "ann", "player": "u-ann"}, {"name": "bob", "player": "u-bob"}]


def ended(match_id: str, log: list[Recorded]) -> tuple[int, str]:
    """Where a finished game stands in its pool's order, as its log says (``RatedMatch.order``)."""
    return next(ratings.epoch_ms(e.at) for e in log if e.type == "seed_revealed"), match_id


def test_games_are_rated_in_the_order_they_ended_when_their_notices_come_the_other_way(real_redis, settings):
    client = create_app(settings, real_redis).test_client()
    platform, key = Platforms(real_redis, Keys(settings.namespace)).create("arena")
    played = []
    for loser in (1, 0):  # one game after the other, of one pool (block-block, 2 seats): bob loses, then ann
        created = client.post(
            "/v1/matches", headers=bearer(key), json={"game": "block-block", "players": PLAYERS}
        )
        assert created.status_code == 201, created.json
        match_id, tokens = created.json["id"], [seat["token"] for seat in created.json["seats"]]
        play_random_game(client, match_id, tokens, random.Random(loser), max_actions=2)
        conceded = client.post(f"/v1/matches/{match_id}/concede", headers=bearer(tokens[loser]))
        assert conceded.status_code == 201, conceded.json
        assert client.get(f"/v1/matches/{match_id}").json["status"] == "finished"
        played.append(match_id)
    matches = Matches(real_redis, settings)
    logs = {match_id: matches.repository.read(match_id)[1] for match_id in played}
    first, later = sorted(played, key=lambda match_id: ended(match_id, logs[match_id]))

    projector = Projector(matches, real_redis, consumer="late", block_ms=10)
    projector.store.ensure_group(GROUP, range(settings.feed_partitions))
    backlog: list[FeedNotice] = []

    def handle_notices_of(match_id: str) -> None:
        """The match's notices, and the jobs they ask for (scoring, then rating), as a worker does them; the
        other match's notices wait."""
        for _ in range(2):  # the game's end: its scoring job; the score's notice: its rating job
            backlog.extend(
                projector.store.read_feed(GROUP, "late", range(settings.feed_partitions), 1000, 10)
            )
            for notice in [n for n in backlog if n.match_id == match_id]:
                projector.handle(notice)
                backlog.remove(notice)
            run_jobs(real_redis, settings)

    handle_notices_of(later)  # the earlier game's end notice waits, as behind a killed worker
    handle_notices_of(first)

    scored = {match_id: matches.repository.read(match_id)[1] for match_id in played}
    rated = [ratings.rated_match(match_id, scored[match_id])[0] for match_id in (first, later)]
    assert all(rated), "both games are scored and rated"
    rebuilt = ratings.replay_pool([m for m in rated if m is not None])  # as `matchlog ratings rebuild` does
    served = PlayerStore(real_redis, settings.namespace).all_ratings(platform, "block-block:2p")
    assert served == rebuilt
    assert {p: r.games for p, r in served.items()} == {"u-ann": 2, "u-bob": 2}
    in_notice_order: dict[str, ratings.Rating] = {}
    for match in reversed(rated):
        assert match is not None
        in_notice_order.update(ratings.rate(in_notice_order, match))
    assert served != in_notice_order, "the two games' order changes the ratings: the test can tell them apart"


def test_a_game_whose_end_only_a_retry_was_told_of_keeps_its_place(real_redis, settings, monkeypatch):
    """The request that appends a game's end may fail after the append, before it holds the game's place
    (no replica confirmed the append in time: ``503 not_replicated``; or the pool's node cut off). Its
    retry with the same Idempotency-Key gets the first answer back, and holds the place then: a game of the
    pool that ended later and is scored first waits for it. What the fault harness's ``rating_mismatch``
    was: each game rated after a later one had had its end answered 503, then 201 on the retry; on the
    code before, the retry's answer held nothing, and the later game was rated first."""
    client = create_app(settings, real_redis).test_client()
    platform, key = Platforms(real_redis, Keys(settings.namespace)).create("arena")
    append = EventStore.append
    unconfirmed: list[str] = []

    def append_unconfirmed(store, match_id, *args, **kwargs):
        """The first append of a game's end: made, and answered as no replica confirming it."""
        done = append(store, match_id, *args, **kwargs)
        if not unconfirmed and any(entry.type == "seed_revealed" for entry in args[2]):
            unconfirmed.append(match_id)
            raise NotReplicated("no replica confirmed within 0 ms")
        return done

    monkeypatch.setattr(EventStore, "append", append_unconfirmed)
    played = []
    for loser in (1, 0):  # one game after the other, of one pool (block-block, 2 seats)
        created = client.post(
            "/v1/matches", headers=bearer(key), json={"game": "block-block", "players": PLAYERS}
        )
        assert created.status_code == 201, created.json
        match_id, tokens = created.json["id"], [seat["token"] for seat in created.json["seats"]]
        play_random_game(client, match_id, tokens, random.Random(loser), max_actions=2)
        headers = {**bearer(tokens[loser]), "Idempotency-Key": f"concede-{match_id}"}
        conceded = client.post(f"/v1/matches/{match_id}/concede", headers=headers)
        if not played:  # the first game's end: appended, answered 503; the retry learns it was appended
            assert conceded.status_code == 503 and conceded.json["error"] == "not_replicated", conceded.json
            conceded = client.post(f"/v1/matches/{match_id}/concede", headers=headers)
        assert conceded.status_code == 201, conceded.json
        played.append(match_id)
    assert unconfirmed == played[:1]
    matches = Matches(real_redis, settings)
    logs = {match_id: matches.repository.read(match_id)[1] for match_id in played}
    assert sorted(played, key=lambda match_id: ended(match_id, logs[match_id])) == played

    projector = Projector(matches, real_redis, consumer="late", block_ms=10)
    projector.store.ensure_group(GROUP, range(settings.feed_partitions))
    notices = projector.store.read_feed(GROUP, "late", range(settings.feed_partitions), 1000, 10)
    for match_id in reversed(played):  # the later game first: the earlier one's worker is late
        for _ in range(2):  # the game's end: its scoring job; the score's notice: its rating job
            for notice in [n for n in notices if n.match_id == match_id]:
                projector.handle(notice)
                notices.remove(notice)
            run_jobs(real_redis, settings)
            notices += projector.store.read_feed(GROUP, "late", range(settings.feed_partitions), 1000, 10)
        if match_id == played[1]:
            served = PlayerStore(real_redis, settings.namespace).all_ratings(platform, "block-block:2p")
            assert served == {}, "the later game waits for the earlier one, held by the retry"

    rated = [ratings.rated_match(m, matches.repository.read(m)[1])[0] for m in played]
    assert all(rated), "both games are scored and rated"
    rebuilt = ratings.replay_pool([m for m in rated if m is not None])
    served = PlayerStore(real_redis, settings.namespace).all_ratings(platform, "block-block:2p")
    assert served == rebuilt
