"""A seat handed to someone else (``POST .../seats/{seat}/replace``) stops taking writes from its old token at
once in every process, and takes its new holder's at once: a process's copy of the seats' tokens may be up to
2 s old (``META_FRESH_S``), so the append itself checks that the token is still the seat's, and a token the
copy does not know is looked up in Redis before it is refused."""

from __future__ import annotations

from service.application.seats import Seats
from service.http.app import create_app
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.helpers import act, bearer


def _replaced_elsewhere(settings, fake_redis):
    """A Blokus match for two on a platform, read by a second process (which keeps its copy of the seats'
    tokens), then seat 1 handed to carl by the first: (the second process, match id, ann's, bob's old and
    carl's new token, the version)."""
    here, elsewhere = (create_app(settings, fake_redis).test_client() for _ in range(2))  # two API processes
    _, key = Platforms(fake_redis, Keys(settings.namespace)).create("arena")
    created = here.post(
        "/v1/matches",
        headers=bearer(key),
        json={"game": "blokus", "players": [{"name": "ann"}, {"name": "bob"}]},
    ).json
    match_id, (ann, bob) = created["id"], [s["token"] for s in created["seats"]]
    assert elsewhere.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(bob)).status_code == 200
    assert (
        act(
            elsewhere, match_id, ann, created["version"], {"type": "place", "piece": "1", "cells": [[0, 0]]}
        ).status_code
        == 201
    )
    replaced = here.post(
        f"/v1/matches/{match_id}/seats/1/replace", headers=bearer(key), json={"name": "carl"}
    )
    assert replaced.status_code == 200, replaced.json
    return elsewhere, match_id, ann, bob, replaced.json["token"], replaced.json["version"]


def test_a_replaced_seats_old_token_cannot_act_in_a_process_that_still_trusts_it(settings, fake_redis):
    elsewhere, match_id, _, bob, _, version = _replaced_elsewhere(settings, fake_redis)
    move = {"type": "place", "piece": "1", "cells": [[19, 0]]}
    for path, answer in [
        ("actions", act(elsewhere, match_id, bob, version, move)),
        ("concede", elsewhere.post(f"/v1/matches/{match_id}/concede", headers=bearer(bob))),
    ]:
        assert (answer.status_code, answer.json["error"]) == (403, "wrong_token"), (path, answer.json)
    assert elsewhere.get(f"/v1/matches/{match_id}").json["version"] == version  # nothing appended
    assert act(elsewhere, match_id, bob, version, move).json["error"] == "wrong_token"  # and it stays so


def test_a_seats_new_holder_acts_at_once_in_a_process_that_knew_the_old_token(settings, fake_redis):
    elsewhere, match_id, _, _, carl, version = _replaced_elsewhere(settings, fake_redis)
    move = act(elsewhere, match_id, carl, version, {"type": "place", "piece": "1", "cells": [[19, 0]]})
    assert move.status_code == 201, move.json
    assert elsewhere.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(carl)).status_code == 200


def test_old_and_new_holders_share_no_answers_whatever_keys_they_send(settings, fake_redis):
    elsewhere, match_id, _, bob, carl, version = _replaced_elsewhere(settings, fake_redis)
    key = {"Idempotency-Key": "move-3"}  # a key a client makes from the version: both holders would send it
    move = {"type": "place", "piece": "1", "cells": [[19, 0]]}
    first = act(elsewhere, match_id, carl, version, move, **key)
    assert first.status_code == 201, first.json
    stolen = act(
        elsewhere, match_id, bob, version, move, **key
    )  # the old token, in a process still trusting it
    assert (stolen.status_code, stolen.json["error"]) == (403, "wrong_token"), stolen.json


def test_a_match_whose_seat_tokens_are_stored_as_hex_digits_still_takes_its_seats_moves(settings, fake_redis):
    """Matches created before seat digests were stored as 32 raw bytes hold 64 hex digits: the append's
    check of the acting token takes either."""
    here = create_app(settings, fake_redis).test_client()
    created = here.post(
        "/v1/matches", json={"game": "blokus", "players": [{"name": "ann"}, {"name": "bob"}]}
    ).json
    meta = Keys(settings.namespace).meta(created["id"])
    for field, digest in fake_redis.hgetall(meta).items():
        if field.startswith(b"seat:"):
            fake_redis.hset(meta, field, digest.hex())
    later = create_app(settings, fake_redis).test_client()  # a process with no copy of the old fields
    move = act(
        later,
        created["id"],
        created["seats"][0]["token"],
        created["version"],
        {"type": "place", "piece": "1", "cells": [[0, 0]]},
    )
    assert move.status_code == 201, move.json


def _first_save_after(matches, first):
    """Make ``matches``' next append run ``first`` just before it (another process's handover getting in)."""
    save = matches.repository.save

    def late(*args, **kwargs):
        matches.repository.save = save
        first()
        return save(*args, **kwargs)

    matches.repository.save = late


def test_a_replacement_that_loses_its_append_to_another_leaves_the_token_of_the_last_one(
    settings, fake_redis
):
    from service.application.matches import Matches, NewMatch
    from service.domain.tokens import token_hash

    here, there = Matches(fake_redis, settings), Matches(fake_redis, settings)
    match_id, _, _ = here.create(NewMatch("blokus", ["ann", "bob"], {}))
    dora: dict = {}
    _first_save_after(here, lambda: dora.update(Seats(there).replace_seat(match_id, 1, name="dora")))
    carl = Seats(here).replace_seat(
        match_id, 1, name="carl"
    )  # decided first, appended second (after a retry)
    last = [e for e in here.repository.store.read(match_id) if e.type == "seat_replaced"][-1]
    assert (last.data["name"], dora["name"]) == ("carl", "dora")
    assert here.repository.seat_digest(match_id, 1) == token_hash(carl["token"])


def test_a_replacement_racing_a_timeout_to_a_bot_leaves_the_token_of_the_last_handover(settings, fake_redis):
    import time

    from service.application.matches import Matches, NewMatch
    from service.domain.tokens import token_hash

    clock, there = Matches(fake_redis, settings), Matches(fake_redis, settings)
    match_id, state, _ = clock.create(
        NewMatch("blokus", ["ann", "bob"], {}, clock={"per_action_ms": 50, "on_timeout": "bot"})
    )
    time.sleep(0.1)  # seat 0 is out of time
    _first_save_after(there, lambda: clock.clocks.check(match_id, state.version))
    carl = Seats(there).replace_seat(
        match_id, 0, name="carl"
    )  # the clock's timeout gets in before its append
    types = [e.type for e in clock.repository.store.read(match_id)]
    assert types[-3:] == ["timed_out", "seat_replaced", "seat_replaced"]  # to the bot, then to carl
    assert clock.repository.seat_digest(match_id, 0) == token_hash(carl["token"])
