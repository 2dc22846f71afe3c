"""``/v1/matches/{id}/analysis``: asked for by anyone once the match has ended, once per match; what an
anonymous caller may leave in Redis by asking (service/http/analysis_routes.py)."""

from __future__ import annotations

import uuid

from tests.helpers import bearer
from tests.http.test_openapi_components_typed import fits


def _ended(client) -> str:
    created = client.post(
        "/v1/matches",
        json={"game": "blokus", "options": {"variant": "duo"}, "players": [{"name": "a"}, {"name": "b"}]},
    )
    assert created.status_code == 201, created.json
    match_id = created.json["id"]
    aborted = client.post(
        f"/v1/matches/{match_id}/abort",
        json={"reason": "enough"},
        headers=bearer(created.json["creator_token"]),
    )
    assert aborted.status_code == 200, aborted.json
    return match_id


def test_asking_again_with_new_keys_keeps_nothing_more_in_redis(client, fake_redis):
    # the request is once per match by itself: an answer kept per Idempotency-Key (a day, the whole analysis
    # once done) let anyone fill Redis with copies of it, a new key a request
    match_id = _ended(client)
    first = client.post(f"/v1/matches/{match_id}/analysis", headers={"Idempotency-Key": uuid.uuid4().hex})
    assert first.status_code == 202, first.json
    keys_then = set(fake_redis.keys())
    for _ in range(5):
        again = client.post(f"/v1/matches/{match_id}/analysis", headers={"Idempotency-Key": uuid.uuid4().hex})
        assert again.status_code == 202 and fits("Analysis", again.json)["job_id"] == first.json["job_id"]
    retried = client.post(f"/v1/matches/{match_id}/analysis", headers={"Idempotency-Key": "k" * 32})
    assert retried.status_code == 202 and retried.json["job_id"] == first.json["job_id"]
    assert set(fake_redis.keys()) - keys_then == set()
    assert not list(fake_redis.scan_iter(match="*:idempotency:*"))


def test_an_address_has_as_many_analyses_waiting_or_running_as_it_may(app, client, fake_redis, settings):
    # an analysis costs a worker seconds of search per match (Blokus: about 0.16 s an action), a few quick
    # moves or a random bots' match cost the asker next to nothing: without a bound, one client queued
    # analyses without end, and everyone's waited behind them
    from service.application.analysis import ANALYSES_PER_ADDRESS
    from tests.helpers import run_jobs

    ended = [_ended(client) for _ in range(ANALYSES_PER_ADDRESS + 1)]
    for match_id in ended[:-1]:
        assert client.post(f"/v1/matches/{match_id}/analysis").status_code == 202
    again = client.post(f"/v1/matches/{ended[0]}/analysis")  # one already asked for costs nothing more
    assert again.status_code == 202
    refused = client.post(f"/v1/matches/{ended[-1]}/analysis")
    assert refused.status_code == 429, refused.json
    assert fits("Error", refused.json)["error"] == "too_many_analyses"
    assert refused.json["limit"] == ANALYSES_PER_ADDRESS
    assert client.get(f"/v1/matches/{ended[-1]}/analysis").status_code == 404  # nothing was asked
    run_jobs(fake_redis, settings)  # the workers analyse them: done, they count no more
    assert client.get(f"/v1/matches/{ended[0]}/analysis").json["status"] == "done"
    assert client.post(f"/v1/matches/{ended[-1]}/analysis").status_code == 202


def _ask(client, match_id: str, address: str) -> int:
    """Ask for the match's analysis from ``address``: the answer's status."""
    return client.post(f"/v1/matches/{match_id}/analysis", environ_base={"REMOTE_ADDR": address}).status_code


def test_an_ipv6_client_s_analyses_are_bounded_by_its_64(client):
    # a host is given a whole /64: bounded by the address, one client had 2^64 bounds
    from service.application.analysis import ANALYSES_PER_ADDRESS

    ended = [_ended(client) for _ in range(ANALYSES_PER_ADDRESS + 1)]
    asked = [_ask(client, match_id, f"2001:db8:1:2::{n + 1:x}") for n, match_id in enumerate(ended)]
    assert asked == [202] * ANALYSES_PER_ADDRESS + [429]
    assert _ask(client, ended[-1], "2001:db8:1:3::1") == 202  # another /64


def test_an_ipv4_client_written_in_ipv6_has_the_bound_of_its_ipv4_address(client):
    from service.application.analysis import ANALYSES_PER_ADDRESS

    ended = [_ended(client) for _ in range(ANALYSES_PER_ADDRESS + 1)]
    written = ("192.0.2.7", "::ffff:192.0.2.7")
    asked = [_ask(client, match_id, written[n % 2]) for n, match_id in enumerate(ended)]
    assert asked == [202] * ANALYSES_PER_ADDRESS + [429]
