"""Rate limits on writes, per seat token and per address, and on reads per address, in the match store's
Redis: a 429 in the error shape with ``Retry-After``; the probes are never limited."""

from __future__ import annotations

import dataclasses

from limits import RateLimitItem

from service.config import Settings
from service.http.app import create_app
from tests.helpers import act, bearer, create


def limited_client(settings, fake_redis, per_token=None, per_address=None, reads_per_address=None):
    app = create_app(
        dataclasses.replace(
            settings,
            rate_limit_per_token=per_token,
            rate_limit_per_address=per_address,
            rate_limit_reads_per_address=reads_per_address,
        ),
        fake_redis,
    )
    return app.test_client()


def test_writes_per_token_beyond_the_limit_get_429_with_retry_after(settings, fake_redis):
    client = limited_client(settings, fake_redis, per_token="3/minute")
    match_id, tokens = create(client, game="chock-a-block", players=[{"name": "a"}, {"name": "b"}])
    answers = [client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[0])) for _ in range(4)]
    assert [a.status_code for a in answers] == [202, 202, 202, 429]
    assert answers[-1].json["error"] == "too_many_requests" and int(answers[-1].headers["Retry-After"]) > 0
    assert (
        client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[1])).status_code == 202
    )  # own window
    assert all(
        client.get(f"/v1/matches/{match_id}", headers=bearer(tokens[0])).status_code == 200 for _ in range(5)
    )  # reads are not in the writes' windows
    assert not any(
        tokens[0].encode() in key for key in fake_redis.keys("*ratelimit*")
    )  # a digest, not the token


def test_retry_after_is_said_only_on_a_refusal_and_is_never_zero(settings, fake_redis):
    client = limited_client(settings, fake_redis, per_token="2/second")
    match_id, tokens = create(client, game="chock-a-block", players=[{"name": "a"}, {"name": "b"}])
    answers = [client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[0])) for _ in range(3)]
    assert [a.status_code for a in answers] == [202, 202, 429]
    assert "Retry-After" not in answers[0].headers and "X-RateLimit-Remaining" in answers[0].headers
    assert int(answers[-1].headers["Retry-After"]) >= 1  # a one-second window rounds down to 0 otherwise


def test_writes_per_address(settings, fake_redis):
    client = limited_client(settings, fake_redis, per_address="2/minute")
    created = [
        client.post("/v1/matches", json={"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]})
        for _ in range(3)
    ]
    assert [c.status_code for c in created] == [201, 201, 429]
    other = client.post(
        "/v1/matches",
        json={"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]},
        environ_base={"REMOTE_ADDR": "10.1.2.3"},
    )
    assert other.status_code == 201


def test_the_server_limits_by_default_and_off_turns_them_off():
    assert (
        Settings.from_env({"MATCHLOG_SECRET_KEY": "x" * 43}).rate_limit_per_token == "50/second;1500/minute"
    )
    off = Settings.from_env({"MATCHLOG_SECRET_KEY": "x" * 43, "MATCHLOG_RATE_LIMIT_PER_TOKEN": "off"})
    assert off.rate_limit_per_token is None and Settings().rate_limit_per_address is None


def test_an_action_over_the_limit_is_not_appended(settings, fake_redis):
    client = limited_client(settings, fake_redis, per_token="1/minute")
    match_id, tokens = create(client)
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json
    assert act(client, match_id, tokens[0], 1, {"type": "pass"}).status_code == 422  # counts as a write
    answer = act(client, match_id, tokens[0], 1, legal["actions"][0])
    assert answer.status_code == 429
    assert client.get(f"/v1/matches/{match_id}").json["version"] == 1


def test_a_limit_counts_every_write_together_whatever_the_endpoint(settings, fake_redis):
    """3/minute per address is three writes a minute, not three on each endpoint."""
    client = limited_client(settings, fake_redis, per_address="3/minute")
    match_id, tokens = create(client, game="chock-a-block", players=[{"name": "a"}, {"name": "b"}])  # one
    assert client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[0])).status_code == 202  # two
    assert (
        act(client, match_id, tokens[0], 1, {"type": "pass"}).status_code == 400
    )  # three (not a chock-a-block action)
    answers = [
        client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[0])),
        client.post("/v1/matches", json={"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}),
        act(client, match_id, tokens[1], 1, {"type": "pass"}),
    ]
    assert [a.status_code for a in answers] == [429, 429, 429]


def test_moves_on_the_socket_count_in_the_tokens_windows(settings, fake_redis):
    client = limited_client(settings, fake_redis, per_token="2/minute")
    limits = client.application.extensions["matchlog-limits"]
    match_id, tokens = create(client, game="chock-a-block", players=[{"name": "a"}, {"name": "b"}])
    assert client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[0])).status_code == 202
    assert limits.write_allowed("127.0.0.1", tokens[0]) == 0  # the second write: over the socket
    assert client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[0])).status_code == 429
    assert limits.write_allowed("127.0.0.1", tokens[0]) >= 1


def test_behind_trusted_proxies_the_limit_counts_the_client_not_the_proxy(settings, fake_redis):
    app = create_app(
        dataclasses.replace(settings, rate_limit_per_address="1/minute", trusted_proxies=1), fake_redis
    )
    client = app.test_client()
    body = {"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}
    proxy = {"REMOTE_ADDR": "10.0.0.1"}
    for client_address in ("203.0.113.7", "203.0.113.8"):  # two clients through one proxy
        answer = client.post(
            "/v1/matches", json=body, environ_base=proxy, headers={"X-Forwarded-For": client_address}
        )
        assert answer.status_code == 201, answer.json
    again = client.post(
        "/v1/matches", json=body, environ_base=proxy, headers={"X-Forwarded-For": "203.0.113.7"}
    )
    assert again.status_code == 429
    # without trusted proxies the header is not believed: one address, the proxy's
    untrusting = limited_client(settings, fake_redis, per_address="1/minute")
    answers = [
        untrusting.post(
            "/v1/matches",
            json=body,
            environ_base={"REMOTE_ADDR": "10.0.0.2"},
            headers={"X-Forwarded-For": address},
        )
        for address in ("198.51.100.1", "198.51.100.2")
    ]
    assert [a.status_code for a in answers] == [201, 429]


def test_reads_per_address_beyond_the_limit_get_429_and_the_probes_never(settings, fake_redis):
    client = limited_client(settings, fake_redis, per_address="2/minute", reads_per_address="3/minute")
    match_id, _ = create(client)  # a write: not in the reads' window
    answers = [client.get(f"/v1/matches/{match_id}") for _ in range(3)] + [client.get("/v1/matches")]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert answers[-1].json["error"] == "too_many_requests" and int(answers[-1].headers["Retry-After"]) >= 1
    assert all(client.get(probe).status_code != 429 for probe in ("/healthz", "/readyz", "/metrics") * 3)
    assert (
        client.get("/v1/games", environ_base={"REMOTE_ADDR": "10.1.2.3"}).status_code == 200
    )  # its own window
    assert create(client)  # the writes' window is apart


def test_reads_are_limited_by_default_on_a_server():
    settings = Settings.from_env({"MATCHLOG_SECRET_KEY": "x" * 43})
    assert settings.rate_limit_reads_per_address == "200/second"
    off = Settings.from_env({"MATCHLOG_SECRET_KEY": "x" * 43, "MATCHLOG_RATE_LIMIT_READS_PER_ADDRESS": "off"})
    assert off.rate_limit_reads_per_address is None


def test_moves_on_the_socket_count_in_the_addresss_write_window(settings, fake_redis):
    client = limited_client(settings, fake_redis, per_address="2/minute")
    limits = client.application.extensions["matchlog-limits"]
    match_id, tokens = create(client, game="chock-a-block", players=[{"name": "a"}, {"name": "b"}])  # one
    assert limits.write_allowed("127.0.0.1", tokens[0]) == 0  # two, over the socket
    assert client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[1])).status_code == 429
    assert limits.write_allowed("127.0.0.1", tokens[1]) >= 1
    assert limits.write_allowed("10.1.2.3", tokens[1]) == 0  # another address: its own window


def test_a_limited_answer_shows_the_shortest_window_and_a_refusal_the_one_it_broke(settings, fake_redis):
    """As flask-limiter said them: the window a refusal went over, else the first of those counted (shortest
    first); the refusal's message names it."""
    client = limited_client(settings, fake_redis, per_token="2/second;3/minute", per_address="500/second")
    match_id, tokens = create(client, game="chock-a-block", players=[{"name": "a"}, {"name": "b"}])
    first = client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[0]))
    assert first.headers["X-RateLimit-Limit"] == "500" and first.headers["X-RateLimit-Remaining"] == "498"
    assert int(first.headers["X-RateLimit-Reset"]) > 0
    second = client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[0]))
    third = client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[0]))
    assert (second.status_code, third.status_code) == (202, 429)
    assert third.json == {"error": "too_many_requests", "message": "2 per 1 second"}
    assert third.headers["X-RateLimit-Limit"] == "2" and third.headers["X-RateLimit-Remaining"] == "0"
    assert int(third.headers["Retry-After"]) >= 1


def test_the_windows_are_flask_limiters_keys(settings, fake_redis):
    """A server of the release before counted in the same windows: a rolling upgrade keeps the counts."""
    client = limited_client(settings, fake_redis, per_address="5/minute")
    create(client)
    assert fake_redis.keys("*ratelimit*") == [
        f"LIMITS:LIMITER/{settings.namespace}:ratelimit/address:127.0.0.1/writes/5/1/minute".encode()
    ]


def test_an_ipv6_client_s_writes_and_reads_are_counted_by_its_64(settings, fake_redis):
    """A host is given a whole /64: counted by the address, one client had 2^64 windows, and no limit at all
    (the bot budgets, seeks and analyses already counted it by its /64)."""
    client = limited_client(settings, fake_redis, per_address="2/minute", reads_per_address="2/minute")
    body = {"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}

    def write(address: str) -> int:
        return client.post("/v1/matches", json=body, environ_base={"REMOTE_ADDR": address}).status_code

    def read(address: str) -> int:
        return client.get("/v1/games", environ_base={"REMOTE_ADDR": address}).status_code

    assert [write(f"2001:db8:1:2::{n}") for n in (1, 2, 3)] == [201, 201, 429]
    assert write("2001:db8:1:3::1") == 201  # another /64: its own window
    assert [read(f"2001:db8:1:2::{n}") for n in (4, 5, 6)] == [200, 200, 429]
    assert read("2001:db8:1:3::2") == 200


def test_an_ipv4_client_written_in_ipv6_counts_in_its_ipv4_window(settings, fake_redis):
    client = limited_client(settings, fake_redis, per_address="2/minute", reads_per_address="2/minute")
    body = {"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]}
    written = [
        client.post("/v1/matches", json=body, environ_base={"REMOTE_ADDR": address}).status_code
        for address in ("192.0.2.7", "::ffff:192.0.2.7", "192.0.2.7")
    ]
    assert written == [201, 201, 429]
    read = [
        client.get("/v1/games", environ_base={"REMOTE_ADDR": address}).status_code
        for address in ("::ffff:192.0.2.7", "192.0.2.7", "::ffff:192.0.2.7")
    ]
    assert read == [200, 200, 429]


def test_moves_on_the_socket_count_in_the_window_of_the_address_s_64(settings, fake_redis):
    client = limited_client(settings, fake_redis, per_address="2/minute")
    limits = client.application.extensions["matchlog-limits"]
    _, tokens = create(client, game="chock-a-block", players=[{"name": "a"}, {"name": "b"}])
    assert limits.write_allowed("2001:db8:1:2::1", tokens[0]) == 0
    assert limits.write_allowed("2001:db8:1:2::2", tokens[1]) == 0
    assert limits.write_allowed("2001:db8:1:2::3", tokens[1]) >= 1  # the same /64: its window is full
    assert limits.write_allowed("2001:db8:1:3::1", tokens[1]) == 0  # another /64
    assert limits.write_allowed("::ffff:127.0.0.1", tokens[1]) == 0  # as 127.0.0.1: its create, and this
    assert limits.write_allowed("127.0.0.1", tokens[1]) >= 1


def test_a_clients_windows_are_named_once_and_counted_at_every_request(settings, fake_redis, monkeypatch):
    """The windows' keys of a client (its address, its token) are worked out at its first request only; every
    request is still counted in them."""
    client = limited_client(settings, fake_redis, per_token="50/second;1500/minute", per_address="500/second")
    match_id, tokens = create(client, game="chock-a-block", players=[{"name": "a"}, {"name": "b"}])
    named = []
    key_for = RateLimitItem.key_for
    monkeypatch.setattr(
        RateLimitItem,
        "key_for",
        lambda item, *identifiers: named.append(identifiers) or key_for(item, *identifiers),
    )
    answers = [client.post(f"/v1/matches/{match_id}/score", headers=bearer(tokens[0])) for _ in range(3)]
    assert [a.headers["X-RateLimit-Remaining"] for a in answers] == [
        "498",
        "497",
        "496",
    ]  # the address: the creation was one
    assert len(named) == 3  # the token's two windows and the address's, once
