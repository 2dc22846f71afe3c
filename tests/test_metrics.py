"""``/metrics``: Prometheus' text format, parsed as a scraper would, counting what the API does."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from tests.helpers import act, bearer, create


def scrape(client) -> dict[tuple[str, tuple], float]:
    answer = client.get("/metrics")
    assert answer.status_code == 200 and answer.mimetype == "text/plain"
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(answer.get_data(as_text=True))
        for sample in family.samples
    }


def value(samples, name, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_requests_appends_conflicts_and_illegal_actions_are_counted(client):
    before = scrape(client)
    match_id, tokens = create(client)
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[0])).json
    assert act(client, match_id, tokens[0], 1, legal["actions"][0]).status_code == 201
    second = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[1])).json["actions"][0]
    assert act(client, match_id, tokens[1], 1, second).status_code == 409
    refused = act(client, match_id, tokens[1], 2, legal["actions"][0])  # the first seat's move, again
    assert refused.status_code == 422
    after = scrape(client)
    route = "/v1/matches/<match_id>/actions"
    assert (
        value(after, "matchlog_requests_total", route=route, method="POST", status="201")
        - value(before, "matchlog_requests_total", route=route, method="POST", status="201")
        == 1
    )
    assert (
        value(after, "matchlog_appended_entries_total", game="blokus")
        - value(before, "matchlog_appended_entries_total", game="blokus")
        >= 1
    )
    assert (
        value(after, "matchlog_version_conflicts_total") - value(before, "matchlog_version_conflicts_total")
        == 1
    )
    reason = refused.json["reason"]
    assert (
        value(after, "matchlog_illegal_actions_total", reason=reason)
        - value(before, "matchlog_illegal_actions_total", reason=reason)
        == 1
    )
    assert value(after, "matchlog_request_seconds_count", route=route) > value(
        before, "matchlog_request_seconds_count", route=route
    )


def test_an_unknown_url_is_one_label_not_one_per_url(client):
    before = scrape(client)
    for i in range(3):
        client.get(f"/no/such/page/{i}")
    after = scrape(client)
    assert (
        value(after, "matchlog_requests_total", route="unmatched", method="GET", status="404")
        - value(before, "matchlog_requests_total", route="unmatched", method="GET", status="404")
        == 3
    )


def test_an_answer_counts_on_its_labelled_series_found_once():
    """``observe_request`` keeps each answer's series: they are ``labels``' own, so every count lands where a
    lookup per answer put it."""
    from service import metrics

    for route, label in (("/v1/kept/<x>", "/v1/kept/<x>"), (None, "unmatched")):
        counted = metrics.REQUESTS.labels(label, "GET", "200")
        timed = metrics.LATENCY.labels(label)
        before = (counted._value.get(), timed._sum.get())
        for _ in range(2):
            metrics.observe_request(route, "GET", 200, 0.5)
        assert metrics._answers[route, "GET", 200] == (counted, timed)
        assert (counted._value.get(), timed._sum.get()) == (before[0] + 2, before[1] + 1.0)


def test_a_made_up_method_is_one_label_not_one_per_method(client):
    from service import metrics

    before = scrape(client)
    for method in ("ZZZA", "ZZZB", "ZZZC"):
        assert client.open("/v1/games", method=method).status_code == 405
    after = scrape(client)
    route = "unmatched"  # no rule takes the method
    assert (
        value(after, "matchlog_requests_total", route=route, method="other", status="405")
        - value(before, "matchlog_requests_total", route=route, method="other", status="405")
        == 3
    )
    assert not any(dict(labels).get("method", "").startswith("ZZZ") for _, labels in after)
    assert not any(method.startswith("ZZZ") for _, method, _ in metrics._answers)
