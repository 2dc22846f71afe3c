"""Platform keys: matches created with a key belong to its platform, which lists them (by game and
status, with a cursor), aborts one (an event; the seed revealed; nobody acts after), asks for scoring and
reads any seat's view for moderation, and can touch none of another platform's. Seats still act with
their own tokens; a platform never acts. Anonymous creation is a setting. ``matchlog keys create``."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time

import pytest

from service.http.app import create_app
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.helpers import act, bearer, full_log


def platform(fake_redis, settings, name="arena"):
    return Platforms(fake_redis, Keys(settings.namespace)).create(name)


def create_as(client, key, game="chock-a-block", players=3):
    answer = client.post(
        "/v1/matches",
        json={"game": game, "players": [{"name": f"p{i}"} for i in range(players)]},
        headers=bearer(key),
    )
    assert answer.status_code == 201, answer.json
    return answer.json


def test_a_platform_lists_its_own_matches_by_status_and_game(client, fake_redis, settings):
    _, key = platform(fake_redis, settings)
    _, other = platform(fake_redis, settings, "rival")
    mine = [create_as(client, key)["id"] for _ in range(3)] + [create_as(client, key, "blokus", 2)["id"]]
    create_as(client, other)
    listed = client.get("/v1/matches?limit=2", headers=bearer(key)).json
    assert [m["id"] for m in listed["matches"]] == mine[:2]
    rest = client.get(f"/v1/matches?limit=10&cursor={listed['next_cursor']}", headers=bearer(key)).json
    assert [m["id"] for m in rest["matches"]] == mine[2:] and rest["next_cursor"] is None
    assert [
        m["id"] for m in client.get("/v1/matches?game=blokus", headers=bearer(key)).json["matches"]
    ] == mine[3:]
    assert len(client.get("/v1/matches?status=active", headers=bearer(key)).json["matches"]) == 4
    assert client.get("/v1/matches?status=finished", headers=bearer(key)).json["matches"] == []
    assert client.get("/v1/matches", headers=bearer("mlk_nobody")).json["error"] == "unknown_platform_key"


def test_a_platform_reads_any_seats_view_of_its_matches_and_nothing_of_another(client, fake_redis, settings):
    _, key = platform(fake_redis, settings)
    _, other = platform(fake_redis, settings, "rival")
    created = create_as(client, key)
    match_id = created["id"]
    seat_view = client.get(f"/v1/matches/{match_id}/state?seat=1", headers=bearer(key)).json["state"]
    own_view = client.get(f"/v1/matches/{match_id}/state", headers=bearer(created["seats"][1]["token"])).json[
        "state"
    ]
    assert seat_view == own_view and seat_view["players"][1]["hand"] is not None
    spectator = client.get(f"/v1/matches/{match_id}/state", headers=bearer(key)).json["state"]
    assert spectator["players"][1]["hand"] is None
    to_act = client.get(f"/v1/matches/{match_id}").json["to_act"][0]
    legal = client.get(f"/v1/matches/{match_id}/legal-actions?seat={to_act}", headers=bearer(key)).json
    assert legal["seat"] == to_act and legal["actions"]
    assert client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(key)).status_code == 400
    assert client.get(f"/v1/matches/{match_id}/events?seat=9", headers=bearer(key)).status_code == 400
    for odd in ("%C2%B2", "abc", "-1", "1.0"):  # "²" passes str.isdigit() and fails int()
        assert client.get(f"/v1/matches/{match_id}/log?seat={odd}", headers=bearer(key)).status_code == 400, (
            odd
        )
    assert (
        client.get(f"/v1/matches/{match_id}/state?seat=1", headers=bearer(other)).json["error"]
        == "not_your_match"
    )
    assert client.post(f"/v1/matches/{match_id}/abort", json={}, headers=bearer(other)).status_code == 403
    refused = act(client, match_id, key, 1, legal["actions"][0])
    assert refused.status_code == 403 and refused.json["error"] == "platform_cannot_act"
    assert act(client, match_id, created["seats"][to_act]["token"], 1, legal["actions"][0]).status_code == 201


def test_a_platform_aborts_its_match_and_asks_for_scoring(client, fake_redis, settings):
    _, key = platform(fake_redis, settings)
    created = create_as(client, key, "blokus", 2)
    match_id, token = created["id"], created["seats"][0]["token"]
    aborted = client.post(
        f"/v1/matches/{match_id}/abort", json={"reason": "a player left"}, headers=bearer(key)
    )
    assert aborted.status_code == 200 and aborted.json["status"] == "aborted" and aborted.json["to_act"] == []
    log = full_log(client, match_id)
    assert [e["type"] for e in log[-2:]] == ["match_aborted", "seed_revealed"]
    assert log[-2]["data"] == {"reason": "a player left"}
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(token)).json
    blocked = act(client, match_id, token, aborted.json["version"], {"type": "pass"})
    assert blocked.status_code == 422 and blocked.json["reason"] == "match_aborted" and legal["actions"] == []
    assert (
        client.post(f"/v1/matches/{match_id}/abort", json={}, headers=bearer(key)).json["error"]
        == "match_over"
    )
    assert client.post(f"/v1/matches/{match_id}/score", headers=bearer(key)).status_code == 202
    assert client.post(f"/v1/matches/{match_id}/abort", json={}, headers=bearer(token)).status_code == 403
    listed = client.get("/v1/matches?status=aborted", headers=bearer(key)).json["matches"]
    assert [m["id"] for m in listed] == [match_id]


def test_what_only_a_platform_does_asks_for_its_key(client, fake_redis, settings):
    _, key = platform(fake_redis, settings)
    created = create_as(client, key, "blokus", 2)
    match_id, token = created["id"], created["seats"][0]["token"]
    for path, body in (("abort", {}), ("seats/1/replace", {"bot": "random"})):
        bare = client.post(f"/v1/matches/{match_id}/{path}", json=body)
        assert bare.status_code == 401 and bare.json["error"] == "platform_key_required", path
        seat = client.post(f"/v1/matches/{match_id}/{path}", json=body, headers=bearer(token))
        assert seat.status_code == 403 and seat.json["error"] == "platform_only", path
    assert client.get(f"/v1/matches/{match_id}").json["status"] == "active"


def test_a_seats_view_is_read_with_its_token_and_seat_n_never_quietly_ignored(client, fake_redis, settings):
    _, key = platform(fake_redis, settings)
    created = create_as(client, key)
    match_id, token = created["id"], created["seats"][0]["token"]
    own = client.get(f"/v1/matches/{match_id}/state?seat=0", headers=bearer(token))
    assert own.status_code == 200
    assert (
        own.json["state"] == client.get(f"/v1/matches/{match_id}/state", headers=bearer(token)).json["state"]
    )
    other = client.get(f"/v1/matches/{match_id}/state?seat=1", headers=bearer(token))
    assert (
        other.status_code == 403
        and other.json["error"] == "wrong_seat"
        and "?seat=1" in other.json["message"]
    )
    assert (
        client.get(f"/v1/matches/{match_id}/log?seat=00", headers=bearer(token)).status_code == 200
    )  # seat 0, as webargs reads it
    spectator = client.get(f"/v1/matches/{match_id}/events?seat=1")
    assert spectator.status_code == 401 and spectator.json["error"] == "missing_token"
    assert client.get(f"/v1/matches/{match_id}/state").status_code == 200  # a spectator without ?seat


def test_anonymous_creation_is_a_setting(settings, fake_redis):
    closed = create_app(dataclasses.replace(settings, anonymous_matches=False), fake_redis).test_client()
    body = {"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}
    assert closed.post("/v1/matches", json=body).json["error"] == "platform_key_required"
    _, key = platform(fake_redis, settings)
    assert closed.post("/v1/matches", json=body, headers=bearer(key)).status_code == 201


def test_keys_create_prints_a_key_once_and_stores_only_its_digest(real_redis, redis_url, settings):
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "MATCHLOG_NAMESPACE": settings.namespace,
        "MATCHLOG_SECRET_KEY": settings.secret_key,
    }
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "keys", "create", "discord-bot"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert printed["key"].startswith("mlk_") and printed["name"] == "discord-bot"
    stored = real_redis.hgetall(Keys(settings.namespace).platforms)
    assert len(stored) == 1 and printed["key"].encode() not in b"".join(list(stored) + list(stored.values()))
    assert Platforms(real_redis, Keys(settings.namespace)).of_key(printed["key"])["id"] == printed["platform"]


def test_a_platform_name_is_given_and_not_taken(fake_redis, settings):
    platforms = Platforms(fake_redis, Keys(settings.namespace))
    first, _ = platforms.create("arena")
    for blank in ("", "   "):
        with pytest.raises(ValueError, match="needs a name"):
            platforms.create(blank)
    with pytest.raises(ValueError, match=f"{first}.*choose another name"):
        platforms.create(" arena ")
    with pytest.raises(ValueError, match=f"{first}.*choose another name"):
        platforms.create("ARENA")  # the same name to whoever reads it
    for odd in ("x" * 65, "evil\x1b[31mred\nline"):  # the rule a player's name meets: players see it
        with pytest.raises(ValueError, match="a platform's name"):
            platforms.create(odd)
    assert len(fake_redis.hgetall(Keys(settings.namespace).platforms)) == 1


def test_a_leaked_key_is_rotated_and_the_platform_keeps_its_matches(client, fake_redis, settings):
    platforms = Platforms(fake_redis, Keys(settings.namespace))
    platform_id, old = platforms.create("arena")
    match_id = create_as(client, old)["id"]
    new = platforms.rotate(platform_id)
    assert client.get("/v1/matches", headers=bearer(old)).json["error"] == "unknown_platform_key"
    assert [m["id"] for m in client.get("/v1/matches", headers=bearer(new)).json["matches"]] == [match_id]
    assert [p["id"] for p in platforms.listed()] == [platform_id]
    revoked = platforms.revoke(platform_id)
    assert revoked["name"] == "arena" and platforms.listed() == []
    assert client.get("/v1/matches", headers=bearer(new)).json["error"] == "unknown_platform_key"
    assert client.get(f"/v1/matches/{match_id}").status_code == 200  # its matches play on
    revoked_read = client.get(
        f"/v1/matches/{match_id}", headers=bearer(new)
    )  # a client that sends its key along
    assert revoked_read.status_code == 401 and revoked_read.json["error"] == "unknown_platform_key"
    with pytest.raises(ValueError, match="no platform"):
        platforms.rotate(platform_id)


def test_an_aborted_matchs_open_seat_cannot_be_joined(client, fake_redis, settings):
    """An abort ends the match: a join afterwards would append after the end (and the seed's reveal)."""
    _, key = platform(fake_redis, settings)
    created = client.post(
        "/v1/matches",
        json={"game": "blokus", "public": True, "players": [{"name": "ann"}, {"open": True}]},
        headers=bearer(key),
    )
    match_id = created.json["id"]
    assert client.post(f"/v1/matches/{match_id}/abort", json={}, headers=bearer(key)).status_code == 200
    length = len(full_log(client, match_id))
    joined = client.post(f"/v1/matches/{match_id}/seats/1/join", json={"name": "bob"})
    assert joined.status_code == 409 and joined.json["error"] == "match_over", joined.json
    assert len(full_log(client, match_id)) == length


def test_a_revoked_platforms_webhooks_go_with_its_key(real_redis, redis_url, settings, capsys):
    """Nobody could remove them afterwards (the key that manages them is gone), and they would be delivered on."""
    from service import cli
    from service.domain.serverkey import ServerKey
    from service.store.webhooks import Webhooks

    platform_id, _ = Platforms(real_redis, Keys(settings.namespace)).create("arena")
    hooks = Webhooks(real_redis, Keys(settings.namespace), ServerKey(settings.secret_key))
    hooks.register(platform_id, "https://example.org/hook", ["placed"], None)
    cli.manage_keys(dataclasses.replace(settings, redis_url=redis_url), "revoke", platform_id)
    printed = json.loads(capsys.readouterr().out)
    assert printed["revoked"] is True and printed["webhooks_removed"] == 1
    assert hooks.of_platform(platform_id) == []


def test_a_key_rotated_with_grace_works_until_its_grace_ends_then_says_it_was_rotated(
    real_redis, redis_url, settings, capsys, monkeypatch
):
    """``matchlog keys rotate NAME --grace D``: both keys work while the platform's servers take the new
    one; then the old one is refused with a reason that says why. A revocation ends both at once."""
    from service import cli
    from service.http.app import create_app

    client = create_app(settings, real_redis).test_client()
    platforms = Platforms(real_redis, Keys(settings.namespace))
    platform_id, old = platforms.create("arena")
    match_id = create_as(client, old)["id"]
    with_url = dataclasses.replace(settings, redis_url=redis_url)
    cli.manage_keys(with_url, "rotate", platform_id, cli.duration("30m"))
    rotated = json.loads(capsys.readouterr().out)
    new = rotated["key"]
    assert "the old key works until" in rotated["note"]
    for key in (old, new):
        assert [m["id"] for m in client.get("/v1/matches", headers=bearer(key)).json["matches"]] == [match_id]
    cli.manage_keys(with_url, "list", None)
    listed = json.loads(capsys.readouterr().out)
    assert listed["platform"] == platform_id and len(listed["previous_keys_valid_until"]) == 1

    later = time.time() + 31 * 60  # the grace period is over
    monkeypatch.setattr("service.store.platforms.time.time", lambda: later)
    refused = client.get("/v1/matches", headers=bearer(old))
    assert refused.status_code == 401 and refused.json["error"] == "platform_key_rotated"
    assert "grace period ended" in refused.json["message"]
    assert client.get("/v1/matches", headers=bearer(new)).status_code == 200
    monkeypatch.undo()

    spare_id, spare = platforms.create("arena-2")
    kept = platforms.rotate(spare_id, grace_s=600)
    platforms.revoke(spare_id)  # revoke stays immediate, for the key in grace too
    for key in (spare, kept):
        assert client.get("/v1/matches", headers=bearer(key)).json["error"] == "unknown_platform_key"


def test_grace_durations_read_as_people_write_them():
    from service.cli import duration

    assert [duration(t) for t in ("90", "90s", "15m", "2h", "1d", "0.5h")] == [90, 90, 900, 7200, 86400, 1800]
    with pytest.raises(Exception, match="not a duration"):
        duration("soon")


def test_platforms_are_listed_oldest_first_even_within_one_second(fake_redis, settings, monkeypatch):
    platforms = Platforms(fake_redis, Keys(settings.namespace))
    monkeypatch.setattr(time, "time", lambda: 1_800_000_000.5)  # every key made in the same second
    made = [platforms.create(name)[0] for name in ("zeta", "arena", "club", "mid")]
    assert [p["id"] for p in platforms.listed()] == made


def test_a_failure_recorded_as_its_webhook_is_removed_leaves_no_webhook_behind(fake_redis, settings):
    from service.domain.serverkey import ServerKey
    from service.store.webhooks import Webhooks

    hooks = Webhooks(fake_redis, Keys(settings.namespace), ServerKey(settings.secret_key), disable_after=5)
    hook = hooks.register("p1", "https://example.org/hook", ["placed"], None)["id"]
    exists = fake_redis.exists

    def removed_meanwhile(*names):
        found = exists(*names)
        hooks.remove(hook, "p1")  # the platform's DELETE, between the worker's check and its count
        return found

    fake_redis.exists = removed_meanwhile
    hooks.record(hook, {"delivery": "d", "attempt": 7, "at": "now", "outcome": "timeout"}, last=True)
    fake_redis.exists = exists
    assert hooks.get(hook) is None  # gone, as the platform asked: not a webhook without a platform


def test_a_webhook_removed_while_its_platform_enables_it_is_not_found(fake_redis, settings, monkeypatch):
    from service.store.webhooks import Webhooks

    client = create_app(settings, fake_redis).test_client()
    _, key = Platforms(fake_redis, Keys(settings.namespace)).create("arena")
    hook = client.post(
        "/v1/webhooks", json={"url": "https://8.8.8.8/hook", "events": ["placed"]}, headers=bearer(key)
    ).json["id"]
    enable = Webhooks.enable

    def removed_meanwhile(self, hook_id):
        enable(self, hook_id)
        assert client.delete(f"/v1/webhooks/{hook_id}", headers=bearer(key)).status_code == 204

    monkeypatch.setattr(Webhooks, "enable", removed_meanwhile)
    enabled = client.patch(f"/v1/webhooks/{hook}", json={"status": "enabled"}, headers=bearer(key))
    assert enabled.status_code == 404 and enabled.json["error"] == "webhook_not_found"
