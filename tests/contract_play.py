"""Random matches of every game and mode played through the HTTP API, every answer handed to ``seen(kind,
answer)``: what tests/http/test_openapi_components_typed.py validates against openapi.yaml (and what drafted the games'
contract schemas). Kinds: create, match, state, legal_actions, accepted, events, log, feed, webhook, job."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from service.application.deliveries import Deliveries
from service.store.keys import Keys
from service.store.platforms import Platforms
from service.store.webhooks import joined
from tests.helpers import bearer, run_jobs

MODES: list[tuple[str, int, dict[str, Any]]] = [
    ("blokus", 4, {}),
    ("blokus", 3, {}),
    ("blokus", 2, {"scoring": "advanced"}),
    ("blokus", 2, {"variant": "duo"}),
    ("blokus", 1, {"variant": "solo_rectangle"}),
    ("blokus", 1, {}),
    ("block-block", 2, {}),
    ("block-block", 2, {"half_piece_scoring": "SPLIT"}),
    ("chock-a-block", 2, {}),
    ("chock-a-block", 5, {}),
    ("chock-a-block", 1, {}),
    ("chock-a-block", 3, {"mode": "AUTOBLOCK_EXTRA"}),
    ("chock-a-block", 2, {"mode": "COOP"}),
    ("chock-a-block", 2, {"building_rules": "BUILDING_BLOCK"}),
    ("blackout-hong-kong", 2, {}),
    ("blackout-hong-kong", 4, {}),
    ("blackout-hong-kong", 1, {}),
    ("blackout-hong-kong", 3, {"mode": "CAMPAIGN"}),
]
"""(game, players, options): every mode of every game."""

Seen = Callable[[str, Any], None]


def sse_entries(text: str) -> list[dict[str, Any]]:
    return [
        json.loads(line[len("data: ") :])
        for line in text.splitlines()
        if line.startswith("data: ") and line != "data: {}"
    ]


def play(
    app,
    fake_redis,
    settings,
    game: str,
    players: int,
    options: dict[str, Any],
    seed: int,
    seen: Seen,
    max_actions: int = 400,
    views_every: int = 5,
) -> None:
    """One match, to its end (or ``max_actions``), then scored; answers as every seat and a spectator."""
    rng = random.Random(seed)
    client = app.test_client()
    _, key = Platforms(fake_redis, Keys(settings.namespace)).create(f"p{seed}")
    platform = bearer(key)
    all_types = sorted({t for g in client.get("/v1/games").json for t in g["entry_types"]})
    for start in range(0, len(all_types), 50):  # every entry type of every game, 50 a webhook
        hook = client.post(
            "/v1/webhooks",
            headers=platform,
            json={"url": f"http://127.0.0.1:9/hook{start}", "events": all_types[start : start + 50]},
        )
        assert hook.status_code == 201, hook.json
    clocked = rng.random() < 0.3
    body: dict[str, Any] = {
        "game": game,
        "players": [{"name": f"p{i}"} for i in range(players)],
        "options": options,
        "undo": rng.choice(["none", "until_next_action", "with_consent"]),
    }
    if players > 1 and rng.random() < 0.5:
        body["players"][-1] = {"open": True}
    if clocked:
        body["clock"] = {"per_action_s": 3600}
    created = client.post("/v1/matches", headers=platform, json=body)
    assert created.status_code == 201, created.json
    seen("create", created.json)
    match_id = created.json["id"]
    tokens = {s["seat"]: s.get("token") for s in created.json["seats"]}
    if None in tokens.values():
        seat = next(s for s, t in tokens.items() if t is None)
        joined = client.post(f"/v1/matches/{match_id}/seats/{seat}/join", json={"name": "late"})
        assert joined.status_code == 201, joined.json
        tokens[seat] = joined.json["token"]
    viewers = [*(bearer(t) for t in tokens.values()), {}]

    def look(version: int | None = None) -> None:
        for headers in viewers:
            answer = client.get(
                f"/v1/matches/{match_id}/state" + (f"?version={version}" if version else ""), headers=headers
            )
            assert answer.status_code == 200, answer.json
            seen("state", answer.json)

    acted = 0
    while acted < max_actions:
        match = client.get(f"/v1/matches/{match_id}").json
        seen("match", match)
        if match["status"] != "active":
            break
        if acted % views_every == 0:
            look()
        seat = rng.choice(match["to_act"])
        for other in match["to_act"]:
            listing = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[other]))
            seen("legal_actions", listing.json)
            if other == seat:
                legal = listing.json
        answer = client.post(
            f"/v1/matches/{match_id}/actions",
            headers=bearer(tokens[seat]),
            json={"expected_version": legal["version"], "action": rng.choice(legal["actions"])},
        )
        assert answer.status_code == 201, answer.json
        seen("accepted", answer.json)
        acted += 1
        if match["undo"] != "none" and rng.random() < 0.05:
            undo = client.post(f"/v1/matches/{match_id}/undo", headers=bearer(tokens[seat]))
            if undo.status_code == 201:
                seen("accepted", undo.json)
                pending = client.get(f"/v1/matches/{match_id}").json
                seen("match", pending)
                for other, token in tokens.items():
                    if "undo_request" in pending and other != seat:
                        reply = client.post(
                            f"/v1/matches/{match_id}/undo/{rng.choice(['accept', 'refuse'])}",
                            headers=bearer(token),
                        )
                        if reply.status_code == 201:
                            seen("accepted", reply.json)
    look()
    look(version=max(1, client.get(f"/v1/matches/{match_id}").json["version"] // 2))
    token = tokens[0]
    if client.get(f"/v1/matches/{match_id}").json["status"] == "active":
        if rng.random() < 0.5:  # not over: a provisional result, then the match is aborted
            seen("job", _score(client, fake_redis, settings, match_id, token))
        aborted = client.post(f"/v1/matches/{match_id}/abort", headers=platform, json={"reason": "enough"})
        assert aborted.status_code == 200, aborted.json
        seen("match", aborted.json)
    seen("job", _score(client, fake_redis, settings, match_id, token))
    seen("match", client.get(f"/v1/matches/{match_id}").json)
    for headers in viewers:
        after = 0
        while True:
            page = client.get(f"/v1/matches/{match_id}/events?after={after}&limit=1000", headers=headers)
            seen("events", page.json)
            if not page.json["events"]:
                break
            after = page.json["events"][-1]["version"]
        log = client.get(f"/v1/matches/{match_id}/log", headers=headers)
        for line in log.get_data(as_text=True).splitlines():
            seen("log", json.loads(line))
        feed = client.get(f"/v1/matches/{match_id}/events/stream", headers=headers)
        for entry in sse_entries(feed.get_data(as_text=True)):
            seen("feed", entry)
    seen("match", client.get(f"/v1/matches/{match_id}", headers=platform).json)
    # what the projector delivers to the webhooks (capture_webhooks catches them): an entry of each type
    # and some more, each as its own append
    entries = [
        json.loads(line)
        for line in client.get(f"/v1/matches/{match_id}/log").get_data(as_text=True).splitlines()
    ]
    firsts = {entry["type"]: entry for entry in entries}
    for entry in [*firsts.values(), *rng.sample(entries, min(20, len(entries)))]:
        Deliveries(app.extensions["matchlog"].stores).deliver(match_id, entry["version"], (entry["type"],))
    listed = client.get("/v1/matches", headers=platform)
    seen("lobby", listed.json)


def _score(client, fake_redis, settings, match_id, token):
    answer = client.post(f"/v1/matches/{match_id}/score", headers=bearer(token))
    assert answer.status_code == 202, answer.json
    run_jobs(fake_redis, settings)
    job = client.get(f"/v1/jobs/{answer.json['job_id']}", headers=bearer(token))
    assert job.status_code == 200 and job.json["status"] == "finished", job.json
    return job.json


def capture_webhooks(app, seen: Seen) -> None:
    """Hand every webhook body the app enqueues to ``seen`` (nothing is posted anywhere: the app needs
    webhooks_private for the loopback URLs)."""
    matches = app.extensions["matchlog"]

    def enqueue(delivery_id, hook_id, body, shared=None):
        seen("webhook", json.loads(joined(body, matches.stores.webhooks.body(shared)) if shared else body))

    matches.stores.jobs.enqueue_delivery = enqueue  # the queue the app delivers through, caught before RQ
