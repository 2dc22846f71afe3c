"""``GET /v1/matches/{id}`` shows each seat's platform player id to the match's platform and its seats only:
another platform, and anyone without a credential, read the names alone."""

from __future__ import annotations

from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.helpers import bearer


def test_player_ids_are_shown_to_the_platform_and_the_seats_only(client, settings, fake_redis):
    platforms = Platforms(fake_redis, Keys(settings.namespace))
    _, key = platforms.create("arena")
    _, other = platforms.create("elsewhere")
    created = client.post(
        "/v1/matches",
        headers=bearer(key),
        json={
            "game": "blokus",
            "options": {"variant": "duo"},
            "players": [{"name": "ann", "player": "u-1"}, {"open": True}],
        },
    )
    assert created.status_code == 201, created.json
    match_id, ann = created.json["id"], created.json["seats"][0]["token"]
    joined = client.post(
        f"/v1/matches/{match_id}/seats/1/join", headers=bearer(key), json={"name": "bob", "player": "u-2"}
    )
    assert joined.status_code == 201, joined.json
    bob = joined.json["token"]
    shown = [{"seat": 0, "name": "ann", "player": "u-1"}, {"seat": 1, "name": "bob", "player": "u-2"}]
    for credential in (key, ann, bob):
        answer = client.get(f"/v1/matches/{match_id}", headers=bearer(credential))
        assert answer.status_code == 200 and answer.json["players"] == shown
    names = [{"seat": 0, "name": "ann"}, {"seat": 1, "name": "bob"}]
    assert client.get(f"/v1/matches/{match_id}").json["players"] == names
    assert client.get(f"/v1/matches/{match_id}", headers=bearer(other)).json["players"] == names
    replaced = client.post(
        f"/v1/matches/{match_id}/seats/1/replace", headers=bearer(key), json={"name": "cat", "player": "u-3"}
    )
    assert replaced.status_code == 200, replaced.json
    assert client.get(f"/v1/matches/{match_id}", headers=bearer(key)).json["players"][1] == {
        "seat": 1,
        "name": "cat",
        "player": "u-3",
    }
