"""``/metrics``: Prometheus' text format, parsed as a scraper would, counting what the API does."""

from __future__ import annotations

import os
import subprocess
import sys

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


FORKED_COUNTS = """
import os, sys
from prometheus_client import CollectorRegistry, multiprocess
from service import metrics

metrics.appended("blokus", 2)  # the parent's own file, before the fork
child = os.fork()
if child == 0:
    metrics.appended("blokus", 3)  # the child's: a file of its own pid, not the parent's
    os._exit(0)
os.waitpid(child, 0)
metrics.appended("blokus", 5)
registry = CollectorRegistry()
multiprocess.MultiProcessCollector(registry)
total = registry.get_sample_value("matchlog_appended_entries_total", {"game": "blokus"})
files = sorted(name for name in os.listdir(os.environ["PROMETHEUS_MULTIPROC_DIR"]) if name.startswith("counter_"))
print(total, files == sorted([f"counter_{os.getpid()}.db", f"counter_{child}.db"]), metrics.process_id() == os.getpid())
"""


def test_multiprocess_counts_keep_each_forked_process_apart(tmp_path):
    """The process id prometheus_client files each value under is read once and again after a fork: a
    worker forked after the import counts in its own file, and the parent's counts stay whole."""
    run = subprocess.run(
        [sys.executable, "-c", FORKED_COUNTS],
        env={**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout.split() == ["10.0", "True", "True"], run.stderr
