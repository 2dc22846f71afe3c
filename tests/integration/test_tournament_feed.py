"""A tournament's live feed on a real API (gunicorn, one gevent worker, the real Redis): a spectator follows a
Swiss from registration to its end, each entry with the standings after what it was sent at once, then the
end; a reconnect gets exactly what it missed; the feed shares the process's cap on held streams with the
matches' feeds."""

from __future__ import annotations

import http.client
import json

import pytest

from service.store.keys import Keys
from service.store.platforms import Platforms
from service.store.redis_client import connect
from tests.bench.api import HOST, Servers
from tests.http.test_openapi_components_typed import fits
from tests.integration.test_stream_credentials import HangUp, call
from tests.sse import Listener

pytestmark = pytest.mark.slow

PER_ADDRESS = 3
WAIT_S = 30  # a bound against a hang on a loaded machine, not a measure


@pytest.fixture(scope="module")
def api(redis_url):
    env = {"MATCHLOG_SSE_HEARTBEAT_S": "600", "MATCHLOG_SSE_IDLE_S": "600"}
    servers = Servers(1, redis_url, env={**env, "MATCHLOG_SSE_PER_ADDRESS": str(PER_ADDRESS)})
    key = Platforms(connect(servers.url), Keys(servers.namespace)).create("club")[1]
    yield servers.port, key
    servers.close()


def follow(port: int, path: str, headers: dict[str, str] | None = None, source: str = HOST):
    """A held stream from ``source``; the refusal (status, body) instead when it is refused."""
    connection = http.client.HTTPConnection(HOST, port, timeout=60, source_address=(source, 0))
    connection.request("GET", path, headers=headers or {})
    hang_up = HangUp(connection.sock)
    answer = connection.getresponse()
    if answer.status != 200:
        refusal = answer.status, json.loads(answer.read())
        connection.close()
        return refusal
    assert answer.getheader("Content-Type", "").startswith("text/event-stream")
    return hang_up, Listener(iter(answer.readline, b""))


def entries_until(listener: Listener, version: int) -> list[dict]:
    """The entry events up to ``version``, each one's data checked against the contract."""
    got = [e for e in listener.until(lambda e: e.get("id") == str(version), WAIT_S) if "data" in e]
    for event in got:
        fits("TournamentFeedEntry", event["data"])
    return got


def test_a_spectator_follows_a_swiss_to_its_end_with_the_standings(api) -> None:
    port, key = api
    status, made = call(
        port,
        "POST",
        "/v1/tournaments",
        {"name": "Cup", "kind": "swiss", "game": "block-block", "rounds": 2},
        key,
    )
    assert status == 201, made
    url = f"/v1/tournaments/{made['id']}"
    assert follow(port, "/v1/tournaments/" + "0" * 32 + "/events/stream")[0] == 404
    for player in ("u-ann", "u-bob", "u-cat"):
        assert call(port, "POST", f"{url}/players", {"player": player}, key)[0] == 201
    hang_up, spectator = follow(port, f"{url}/events/stream")
    backlog = entries_until(spectator, 4)
    assert [e["data"]["entry"]["type"] for e in backlog] == ["tournament_created"] + ["player_registered"] * 3
    assert [e["data"]["standings"] is None for e in backlog] == [True, True, True, False]  # the last one sent
    assert sorted(row["player"] for row in backlog[-1]["data"]["standings"]) == ["u-ann", "u-bob", "u-cat"]

    version = 4
    for number in (1, 2):
        status, started = call(port, "POST", f"{url}/rounds", None, key)
        assert status == 201, started
        version += 1
        pushed = entries_until(spectator, version)[-1]["data"]
        assert pushed["entry"]["type"] == "round_started" and pushed["entry"]["data"]["round"] == number
        assert pushed["standings"] == started["standings"]  # as GET shows them, after the entry
        for game in started["current_round"]["matches"]:
            token = game["seats"][1]["token"]
            assert call(port, "POST", f"/v1/matches/{game['match']}/concede", None, token)[0] == 201
        status, now = call(port, "GET", url, None, key)  # the platform's read takes the results in
        assert status == 200
        version = now["version"]
        last = entries_until(spectator, version)[-1]["data"]
        assert last["standings"] == now["standings"]
    assert now["status"] == "finished" and last["entry"]["type"] == "tournament_finished"
    ended = spectator.until(lambda e: e.get("event") == "end" or "closed" in e, WAIT_S)[-1]
    assert ended == {"event": "end", "id": str(version), "data": {}}
    assert "closed" in spectator.until(lambda e: "closed" in e, WAIT_S)[-1]
    hang_up.close()

    # a reconnect gets what it missed, from Last-Event-ID (over ?after=), and the end
    hang_up, again = follow(port, f"{url}/events/stream?after=1", {"Last-Event-ID": str(version - 1)})
    missed = entries_until(again, version)
    assert [e["id"] for e in missed] == [str(version)] and missed[0]["data"]["standings"] == now["standings"]
    assert again.until(lambda e: e.get("event") == "end", WAIT_S)[-1]["id"] == str(version)
    hang_up.close()
    hang_up, late = follow(port, f"{url}/events/stream?after={version}")  # at the end already: only the end
    assert [e for e in late.until(lambda e: e.get("event") == "end", WAIT_S) if "data" in e] == [
        {"event": "end", "id": str(version), "data": {}}
    ]
    hang_up.close()
    bad = follow(port, f"{url}/events/stream", {"Last-Event-ID": "x1"})
    assert bad[0] == 400 and bad[1]["error"] == "invalid_request"


def test_the_tournament_feed_counts_in_the_address_s_cap_on_streams(api) -> None:
    port, key = api
    apart = "127.0.0.7"  # an address of its own: the other test's streams are not counted with these
    status, made = call(
        port,
        "POST",
        "/v1/tournaments",
        {"name": "Cap", "kind": "swiss", "game": "block-block", "rounds": 1},
        key,
    )
    assert status == 201, made
    held = []
    for _ in range(PER_ADDRESS):
        opened = follow(port, f"/v1/tournaments/{made['id']}/events/stream", source=apart)
        assert not isinstance(opened[0], int), opened
        held.append(opened)
        opened[1].until(lambda e: e.get("id") == "1", WAIT_S)  # the stream holds its slot now
    status, match = call(
        port, "POST", "/v1/matches", {"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}
    )
    assert status == 201, match
    refused = follow(port, f"/v1/matches/{match['id']}/events/stream", source=apart)  # a match's: same cap
    assert refused[0] == 429 and refused[1]["error"] == "too_many_streams"
    for hang_up, _listener in held:
        hang_up.close()
