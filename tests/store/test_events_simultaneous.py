"""Simultaneous turns without artificial conflicts: in a step where several seats act at once
(Blackout: Hong Kong's planning), each seat chooses at the version it read, and every seat's action
is accepted although the others' land first, because none of them changes what that seat may do
(``Matches._unconcerned``). A stale version is still refused where it matters: in a sequential step,
or once the step has moved on."""

from __future__ import annotations

import random
import threading

from service.domain import replay
from service.domain.chain import Recorded
from service.domain.serverkey import ServerKey
from service.store.keys import Keys
from service.store.repository import MatchRepository
from tests.helpers import act, bearer, create, full_log

PLAYERS = [{"name": n} for n in ("ann", "bob", "cat", "dan")]


def planning_step(client, match_id, tokens, rng):
    """Play the seat to act until a step with several seats to act at once; the match then."""
    for _ in range(500):
        match = client.get(f"/v1/matches/{match_id}").json
        assert match["status"] == "active"
        if len(match["to_act"]) > 1:
            return match
        seat = match["to_act"][0]
        legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json
        assert (
            act(client, match_id, tokens[seat], legal["version"], rng.choice(legal["actions"])).status_code
            == 201
        )
    raise AssertionError("no simultaneous step in 500 actions")


def test_seats_planning_at_the_same_instant_are_all_accepted_once(real_app):
    client = real_app.test_client()
    rng = random.Random(2)
    match_id, tokens = create(client, game="blackout-hong-kong", players=PLAYERS)
    rounds = 0
    for _ in range(4):  # several planning steps of one match, each with every seat at once
        match = planning_step(client, match_id, tokens, rng)
        version, seats = match["version"], match["to_act"]
        chosen = {
            seat: rng.choice(
                client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json[
                    "actions"
                ]
            )
            for seat in seats
        }
        start = threading.Barrier(len(seats))
        answers = {}

        def plan(seat, start=start, answers=answers, version=version, chosen=chosen):
            own = real_app.test_client()
            start.wait()
            answers[seat] = act(own, match_id, tokens[seat], version, chosen[seat])

        threads = [threading.Thread(target=plan, args=(seat,)) for seat in seats]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert {seat: answer.status_code for seat, answer in answers.items()} == dict.fromkeys(seats, 201), {
            seat: answer.json for seat, answer in answers.items()
        }
        log = full_log(client, match_id)[version:]
        # every seat's action is in the log once: each answer's first entry is its own, all different
        firsts = [answers[seat].json["events"][0] for seat in seats]
        assert sorted(e["seat"] for e in firsts) == sorted(seats)
        assert len({e["version"] for e in firsts}) == len(seats)
        assert all(log[e["version"] - version - 1]["type"] == e["type"] for e in firsts)
        rounds += 1
    assert rounds == 4


def test_the_log_of_simultaneous_plans_replays_to_the_served_state(real_app, real_redis, settings):
    client = real_app.test_client()
    rng = random.Random(5)
    match_id, tokens = create(client, game="blackout-hong-kong", players=PLAYERS)
    match = planning_step(client, match_id, tokens, rng)
    version = match["version"]
    start = threading.Barrier(len(match["to_act"]))

    def plan(seat):
        own = real_app.test_client()
        action = rng.choice(
            own.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json["actions"]
        )
        start.wait()
        assert act(own, match_id, tokens[seat], version, action).status_code == 201

    threads = [threading.Thread(target=plan, args=(seat,)) for seat in match["to_act"]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    repository = MatchRepository(
        real_redis,
        Keys(settings.namespace, settings.feed_partitions),
        settings.snapshot_every,
        ServerKey(settings.secret_key),
    )  # the sealed seed, unsealed
    secret = repository.meta(match_id).secret
    entries = [Recorded.from_dict(e) for e in full_log(client, match_id, None)]
    whole = repository.read(match_id)[1]
    folded = replay.fold(replay.start(whole[0], secret.seed, secret.salt), whole[1:])
    served = real_app.extensions["matchlog"].load(match_id)
    assert folded.game == served.game and folded.version == served.version == len(entries)


def test_a_stale_version_is_still_refused_in_a_sequential_step(real_client):
    match_id, tokens = create(real_client, game="blokus", players=PLAYERS[:2])
    legal = real_client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json
    assert act(real_client, match_id, tokens[0], 1, legal["actions"][0]).status_code == 201
    legal = real_client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[1])).json
    stale = act(real_client, match_id, tokens[1], 1, legal["actions"][0])
    assert stale.status_code == 409 and stale.json["error"] == "version_conflict"
