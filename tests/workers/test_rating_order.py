"""A pool's games are rated in the order they ended, whatever order the rule workers handle their end
notices in: what the fault harness's ``rating_mismatch`` found when a game's end notice waited (its worker
killed) while a later game of the pool was scored and rated first."""

from __future__ import annotations

import random

import pytest

from service.application.matches import Matches
from service.domain import ratings
from service.domain.chain import Recorded
from service.http.app import create_app
from service.store.events import FeedNotice
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
