"""Hidden stays hidden on a real ``matchlog serve``: the brute force of the security review, tried
again through every way a running match is shown (``/events``, ``/log``, the live feed, the answer
to a move, ``/checkpoint``), as a spectator without a token and as an opponent.

The review recovered Chock-a-Block's private deck draws by hashing each card id of the pack (public
in ``match_created``) into the filtered entry until the shown hash came out, and Blackout: Hong Kong's
secret plans the same way. Here the attacker gets its best case: once the match is over, the test
learns each entry's true data and checks that no recipe computable without the match's salt
reproduces anything the viewer was shown while the match ran.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import random
import shutil
import tempfile

import pytest

from service.domain.chain import Recorded, verify_chain
from tests.domain.test_chain_hidden import attacker_recipes
from tests.integration.test_serve import free_port, start_serve, stop_serve
from tests.sse import Listener

pytestmark = pytest.mark.slow  # three matches played to the end on a real server


def sse(port: int, match_id: str, token: str | None = None) -> tuple[http.client.HTTPConnection, Listener]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request(
        "GET",
        f"/v1/matches/{match_id}/events/stream",
        headers={"Authorization": f"Bearer {token}"} if token else {},
    )
    response = connection.getresponse()
    assert response.status == 200
    return connection, Listener(iter(lambda: response.read1(65536) if not response.closed else b"", b""))


def read_log(http, match_id: str, token: str | None = None) -> list[dict]:
    entries, after = [], 0
    while True:
        status, page = http("GET", f"/v1/matches/{match_id}/events?after={after}&limit=1000", token=token)
        assert status == 200, page
        if not page["events"]:
            return entries
        entries += page["events"]
        after = entries[-1]["version"]


def play(http, match_id, tokens, rng, moves: int, answers: dict[int, list]) -> None:
    """Random legal moves by a seat to act (any of them, in a simultaneous step); each answer's
    entries as its seat was shown them, by seat."""
    for _ in range(moves):
        _, match = http("GET", f"/v1/matches/{match_id}")
        if match["status"] != "active":
            return
        seat = rng.choice(match["to_act"])
        _, legal = http("GET", f"/v1/matches/{match_id}/legal-actions", token=tokens[seat])
        status, answer = http(
            "POST",
            f"/v1/matches/{match_id}/actions",
            {"expected_version": legal["version"], "action": rng.choice(legal["actions"])},
            token=tokens[seat],
        )
        assert status == 201, answer
        answers.setdefault(seat, []).extend(answer["events"])


def play_drawing(client, match_id: str, tokens: list[str], draws: int = 2) -> None:
    """Moves by the seat to act through a Flask test client, drawing from the deck (privately) when it may,
    until ``draws`` private draws are in the log."""
    drawn = 0
    while drawn < draws:
        match = client.get(f"/v1/matches/{match_id}").json
        seat = match["to_act"][0]
        legal = client.get(
            f"/v1/matches/{match_id}/legal-actions", headers={"Authorization": f"Bearer {tokens[seat]}"}
        ).json
        action = next((a for a in legal["actions"] if a.get("source") == "DECK"), legal["actions"][0])
        answer = client.post(
            f"/v1/matches/{match_id}/actions",
            headers={"Authorization": f"Bearer {tokens[seat]}"},
            json={"expected_version": legal["version"], "action": action},
        )
        assert answer.status_code == 201, answer.json
        drawn += sum(
            1 for e in answer.json["events"] if e["type"] == "card_drawn" and e["data"].get("private")
        )


def brute_force(shown: list[dict], whole: dict[int, Recorded], checkpoint: dict | None = None) -> int:
    """Every recipe the attacker has, on every entry shown in part; the number of entries tried."""
    created_hash = whole[1].hash
    tried = 0
    exposed_hashes = {checkpoint["hash"]} if checkpoint else set()
    for entry in shown:
        truth = whole[entry["version"]]
        if entry["data"] == truth.data:
            continue
        exposed = {entry["hash"], entry.get("commitment")} | exposed_hashes
        prev = whole[truth.version - 1].hash
        for recipe, value in attacker_recipes(prev, truth, entry, created_hash).items():
            assert value not in exposed, f"v{truth.version} {truth.type}: {recipe} gives the hidden data away"
        tried += 1
    return tried


def test_no_spectator_or_opponent_recovers_hidden_data_on_a_real_server():
    folder = tempfile.mkdtemp(prefix="mlhid-", dir="/tmp")
    port = free_port()
    process, http = start_serve(folder, port)
    try:
        for game, players, moves in (("chock-a-block", 2, 16), ("blackout-hong-kong", 4, 40)):
            status, created = http(
                "POST", "/v1/matches", {"game": game, "players": [{"name": f"p{i}"} for i in range(players)]}
            )
            assert status == 201, created
            match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
            spectator_feed, spectator_events = sse(port, match_id)
            opponent_feed, opponent_events = sse(port, match_id, tokens[1])
            answers: dict[int, list] = {}
            play(http, match_id, tokens, random.Random(11), moves, answers)
            assert http("GET", f"/v1/matches/{match_id}")[1]["status"] == "active", "ended before the attack"
            status, checkpoint = http("GET", f"/v1/matches/{match_id}/checkpoint")
            assert status == 200, checkpoint
            running = {
                "spectator's /events": read_log(http, match_id),
                "opponent's /events": read_log(http, match_id, tokens[1]),
                "answers to seat 0's moves": answers.get(0, []),
            }
            version = checkpoint["version"]
            running["spectator's live feed"] = [
                e["data"]
                for e in spectator_events.until(lambda e, v=str(version): e.get("id") == v, timeout=20)
                if "data" in e
            ]
            running["opponent's live feed"] = [
                e["data"]
                for e in opponent_events.until(lambda e, v=str(version): e.get("id") == v, timeout=20)
                if "data" in e
            ]
            spectator_feed.close()
            opponent_feed.close()
            assert running["spectator's /events"][-1]["hash"] == checkpoint["hash"]
            for name, shown in running.items():
                if name.endswith("/events"):  # a whole log as a viewer sees it: its chain checks out
                    verify_chain([Recorded.from_dict(e) for e in shown])

            play(
                http, match_id, tokens, random.Random(12), 100_000, answers
            )  # to the end: the seed is revealed
            whole = {e["version"]: Recorded.from_dict(e) for e in read_log(http, match_id)}
            assert whole[max(whole)].type in ("seed_revealed", "match_scored")
            tried = {name: brute_force(shown, whole, checkpoint) for name, shown in running.items()}
            assert tried["spectator's /events"] and tried["opponent's /events"], (game, tried)
            assert tried["spectator's live feed"] == tried["spectator's /events"]
    finally:
        stop_serve(process)
        shutil.rmtree(folder, ignore_errors=True)


def test_the_review_s_brute_force_of_chock_a_block_draws_finds_nothing():
    """The review's own script: every card id of the pack, put in each private draw a spectator sees,
    hashed the way entries were hashed; it found every card before sealing. The candidates are
    checked to hold the true card, so a miss is the seal's doing, not a wrong guess."""
    folder = tempfile.mkdtemp(prefix="mlhid-", dir="/tmp")
    port = free_port()
    process, http = start_serve(folder, port)
    try:
        _status, created = http(
            "POST", "/v1/matches", {"game": "chock-a-block", "players": [{"name": "a"}, {"name": "b"}]}
        )
        match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
        play(http, match_id, tokens, random.Random(3), 16, {})
        shown = read_log(http, match_id)
        cards = sorted(shown[0]["data"]["content"]["cards"])
        draws = [e for e in shown if e["type"] == "card_drawn" and e["data"].get("private")]
        assert draws, "no private draw to attack"
        play(http, match_id, tokens, random.Random(4), 100_000, {})
        whole = {e["version"]: Recorded.from_dict(e) for e in read_log(http, match_id)}
        for draw in draws:
            prev = whole[draw["version"] - 1].hash
            truth = whole[draw["version"]].data
            candidates = [{**draw["data"], "card": card} for card in cards]
            assert truth in candidates
            found = [
                c
                for c in candidates
                if hashlib.sha256(
                    prev.encode()
                    + b"\n"
                    + json.dumps(
                        [draw["version"], draw["type"], draw["seat"], c, draw["at"]],
                        sort_keys=True,
                        separators=(",", ":"),
                        ensure_ascii=False,
                    ).encode()
                ).hexdigest()
                == draw["hash"]
            ]
            assert found == [], f"v{draw['version']}: the card drawn is {found[0]['card']}"
    finally:
        stop_serve(process)
        shutil.rmtree(folder, ignore_errors=True)
