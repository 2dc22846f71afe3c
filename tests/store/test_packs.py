"""A content pack is held once per process: every state of every match on the same pack references one
frozen object (``packs.shared``), whether folded from the log, read from a snapshot or just created; it
cannot be changed through any of them, and the states encode (snapshots, replay) exactly as with a copy."""

from __future__ import annotations

import copy
import json
import random
from dataclasses import replace

import pytest

from service.application.matches import Matches, NewMatch
from service.domain import replay
from service.domain.immutable import FrozenDict
from service.store.snapshots import Snapshots


def _play(matches, match_id, rng, moves):
    for _ in range(moves):
        state = matches.load(match_id)
        seat = state.to_act()[0]
        matches.submit(match_id, seat, state.version, rng.choice(state.legal_actions(seat)))


@pytest.mark.parametrize("game_id", ["blackout-hong-kong", "chock-a-block"])
def test_states_of_matches_on_one_pack_share_one_pack_object(fake_redis, settings, game_id):
    made = Matches(fake_redis, settings)
    first, created, _ = made.create(NewMatch(game_id, ["ann", "bob"]))
    second, _, _ = made.create(NewMatch(game_id, ["cat", "dan"]))
    _play(made, second, random.Random(1), 20)  # past a snapshot (every 16 versions)
    fresh = Matches(fake_redis, settings)  # another process: folded from the log, or from a snapshot
    from_log, from_snapshot = fresh.load(first), fresh.load(second)
    pack = created.game["content"]
    assert isinstance(pack, FrozenDict)
    assert from_log.game["content"] is pack and from_snapshot.game["content"] is pack
    assert copy.deepcopy(from_log.game)["content"] is pack
    with pytest.raises(TypeError):
        pack[next(iter(pack))] = None


@pytest.mark.parametrize("game_id", ["blackout-hong-kong", "chock-a-block"])
def test_a_state_on_a_shared_pack_encodes_as_one_on_a_copy(fake_redis, settings, game_id):
    matches = Matches(fake_redis, settings)
    match_id, _, _ = matches.create(NewMatch(game_id, ["ann", "bob"]))
    _play(matches, match_id, random.Random(2), 5)
    state = matches.load(match_id)
    copied = replay.MatchState.from_json(json.loads(json.dumps(state.to_json())))
    assert type(copied.game["content"]) is dict and copied == state
    assert Snapshots.encoded([state]) == Snapshots.encoded([copied])
    _, entries = matches.repository.read(match_id)
    plain = [replace(entries[0], data=json.loads(json.dumps(entries[0].data))), *entries[1:]]
    secret = matches.repository.meta(match_id).secret
    assert replay.replay(plain, secret.seed, secret.salt) == state  # an auditor's copy folds the same


def test_an_answer_holding_a_shared_pack_keeps_its_entries_keys_in_order(fake_redis, settings):
    """The log's first entry carries the pack: its frozen parts are encoded as the dicts they read as, so the
    answer keeps every entry's keys in the order the POST's answer had (not the standard encoder's sorting)."""
    from service.http.app import create_app

    client = create_app(settings, fake_redis).test_client()
    created = client.post(
        "/v1/matches", json={"game": "block-block", "players": [{"name": "ann"}, {"name": "bob"}]}
    ).json
    match = client.get(f"/v1/matches/{created['id']}").json
    seat = match["to_act"][0]
    posted = client.post(
        f"/v1/matches/{created['id']}/actions",
        json={"expected_version": match["version"], "action": {"type": "resign"}},
        headers={"Authorization": f"Bearer {created['seats'][seat]['token']}"},
    ).json["events"]
    read = client.get(f"/v1/matches/{created['id']}/events?after=0").json["events"]
    assert [list(e["data"]) for e in read[-len(posted) :]] == [list(e["data"]) for e in posted]
    assert list(next(e["data"] for e in read if e["type"] == "seed_revealed")) == ["seed", "salt"]
