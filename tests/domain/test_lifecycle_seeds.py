"""Seeds nobody can guess and nobody can read from Redis (issue: Hardening)."""

from __future__ import annotations

import hashlib

from service.domain import replay
from tests.helpers import PLAYERS, bearer, create


def created_entry(client, match_id):
    return client.get(f"/v1/matches/{match_id}/events").json["events"][0]


def test_a_client_seed_is_only_extra_entropy(client):
    """The same one-character seed twice gives two different matches: the server mixes in its own."""
    deals = []
    for _ in range(2):
        match_id, tokens = create(client, "chock-a-block", PLAYERS[:2], seed="7")
        deals.append(
            client.get(f"/v1/matches/{match_id}/state", headers=bearer(tokens[0])).json["state"]["players"][
                0
            ]["hand"]
        )
        data = created_entry(client, match_id)["data"]
        assert data["seed_commitment"] != hashlib.sha256(b"7").hexdigest()
        assert "seed_known_to_creator" not in data
        assert client.get(f"/v1/matches/{match_id}").json["seed_known_to_creator"] is False
    # 2 cards of 64 each time: equal hands twice would be a 1 in ~2,000 coincidence
    assert deals[0] != deals[1]


def test_a_deterministic_match_is_recorded_as_known_to_its_creator(client):
    hands = []
    for _ in range(2):
        match_id, tokens = create(
            client, "chock-a-block", PLAYERS[:2], seed="fixture", seed_known_to_creator=True
        )
        hands.append(
            client.get(f"/v1/matches/{match_id}/state", headers=bearer(tokens[0])).json["state"]["players"][
                0
            ]["hand"]
        )
        assert created_entry(client, match_id)["data"]["seed_known_to_creator"] is True
        assert client.get(f"/v1/matches/{match_id}").json["seed_known_to_creator"] is True
    assert hands[0] == hands[1]


def test_a_known_seed_needs_a_seed(client):
    response = client.post(
        "/v1/matches", json={"game": "blokus", "players": PLAYERS, "seed_known_to_creator": True}
    )
    assert response.status_code == 400 and "seed" in response.json["fields"]


def test_the_commitment_is_salted_and_the_reveal_checks_it(client):
    """The commitment cannot be brute-forced from a guessable seed: it hashes a 128-bit salt too."""
    match_id, tokens = create(client, "block-block", PLAYERS[:2], seed="20261123", seed_known_to_creator=True)
    commitment = created_entry(client, match_id)["data"]["seed_commitment"]
    assert commitment != hashlib.sha256(b"20261123").hexdigest()
    assert (
        client.post(
            f"/v1/matches/{match_id}/actions",
            headers=bearer(tokens[0]),
            json={"expected_version": 1, "action": {"type": "resign"}},
        ).status_code
        == 201
    )
    revealed = client.get(f"/v1/matches/{match_id}/events").json["events"][-1]
    assert revealed["type"] == "seed_revealed" and revealed["data"]["seed"] == "20261123"
    assert len(revealed["data"]["salt"]) == 32
    assert replay.seed_commitment("20261123", revealed["data"]["salt"]) == commitment


def test_no_seed_or_salt_in_clear_in_redis(client, fake_redis, settings):
    _match_id, _ = create(
        client, "chock-a-block", PLAYERS[:2], seed="a-very-findable-seed", seed_known_to_creator=True
    )
    everything = b""
    for key in fake_redis.scan_iter(match=f"{settings.namespace}:*"):
        kind = fake_redis.type(key)
        if kind == b"hash":
            everything += b"".join(k + v for k, v in fake_redis.hgetall(key).items())
        elif kind == b"stream":
            everything += b"".join(b"".join(k + v for k, v in f.items()) for _, f in fake_redis.xrange(key))
        elif kind == b"string":
            everything += fake_redis.get(key)
    assert everything and b"a-very-findable-seed" not in everything
    assert b'"seed"' not in everything


def test_a_sealed_seed_opens_only_with_the_servers_key_and_for_its_match():
    from service.domain.serverkey import ServerKey, WrongServerKey, new_secret

    key, other = ServerKey(new_secret()), ServerKey(new_secret())
    sealed = key.seal(b"seed", b"match-a")
    assert key.open(sealed, b"match-a") == b"seed"
    for opener, context in ((other, b"match-a"), (key, b"match-b")):
        try:
            opener.open(sealed, context)
        except WrongServerKey:
            continue
        raise AssertionError("a sealed seed opened with the wrong key or for the wrong match")


def test_a_known_seed_is_refused_with_a_seat_left_open(client):
    """Whoever joined would sit down to a deal the creator computed offline (the lobby lists it)."""
    response = client.post(
        "/v1/matches",
        json={
            "game": "chock-a-block",
            "players": [{"name": "ann"}, {"open": True}],
            "seed": "rigged",
            "seed_known_to_creator": True,
        },
    )
    assert response.status_code == 422, response.json
    assert (
        response.json["error"] == "seed_known_to_creator_refused" and response.json["reason"] == "open_seat"
    )
    assert "seed_known_to_creator" in response.json["fields"]
    assert client.get("/v1/matches?status=open").json["matches"] == []


def test_a_known_seed_is_refused_in_a_public_match(client):
    response = client.post(
        "/v1/matches",
        json={
            "game": "chock-a-block",
            "players": PLAYERS[:2],
            "public": True,
            "seed": "rigged",
            "seed_known_to_creator": True,
        },
    )
    assert response.status_code == 422, response.json
    assert response.json["error"] == "seed_known_to_creator_refused" and response.json["reason"] == "public"


def test_a_deterministic_match_is_not_listed(client):
    """Filled at creation it is allowed (a test, a replayed deal), and reachable by its id only."""
    match_id, _ = create(client, "chock-a-block", PLAYERS[:2], seed="fixture", seed_known_to_creator=True)
    assert client.get(f"/v1/matches/{match_id}").status_code == 200
    assert match_id not in [m["id"] for m in client.get("/v1/matches").json["matches"]]


PLAYED_UNDER_A_HASH_SEED = """
import hashlib, json, random
from service.games import GAMES
from service.games.bots import bots_of
from tests.engines import bot_match_log, new_state, random_playout

digest = hashlib.sha256()
for game_id, game in GAMES.items():
    players = min(game.info.counts(), key=lambda n: abs(n - 3))
    bots = sorted(bots_of(game))
    log = bot_match_log(game_id, [bots[i % len(bots)] for i in range(players)], seed="hash seeds")
    digest.update(json.dumps([(e.type, e.data) for e in log], sort_keys=True).encode())
    listed = []  # the legal actions in the order listed: a client's "first action" must not move either
    random_playout(
        game, new_state(game, players, seed="hash seeds"), random.Random(1), max_moves=60,
        on_move=lambda state, seat, action, played: listed.append(game.legal_actions(state, seat)),
    )
    digest.update(json.dumps(listed).encode())
print(digest.hexdigest())
"""


def test_a_seeded_match_plays_the_same_under_every_hash_seed():
    """Python salts the hashes of strings per process: a set of ids iterated in an engine or a bot would
    make a bot's move or the order of the listed actions differ between two server processes (found once as
    a test passing under one ``PYTHONHASHSEED`` and failing under another). Every game, its bots mixed,
    played in three processes with three hash seeds, must give the same log and the same listings."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    digests = {
        subprocess.run(
            [sys.executable, "-c", PLAYED_UNDER_A_HASH_SEED],
            cwd=root,
            # untraced (no COVERAGE_PROCESS_CONFIG): the engines' coverage is the other tests'; traced, the three
            # plays took 115 s of a CI run instead of some 15
            env={
                **{k: v for k, v in os.environ.items() if k != "COVERAGE_PROCESS_CONFIG"},
                "PYTHONHASHSEED": hash_seed,
                "PYTHONPATH": str(root),
            },
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
        ).stdout.strip()
        for hash_seed in ("0", "1", "2")
    }
    assert len(digests) == 1 and len(next(iter(digests))) == 64, digests
