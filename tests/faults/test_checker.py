"""The checker catches each kind of anomaly planted in a small real history, and finds none in the clean one.

The history is made as the harness makes it, without servers: two short matches played through the app on
fakeredis (one of them to its end and scored), each request recorded in the harness's shape."""

from __future__ import annotations

import copy
import itertools
import random
import uuid
from typing import Any

import pytest

from service.application.matches import Matches
from service.application.stores import Stores
from service.domain import ratings
from service.domain.chain import Recorded
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.faults import checker
from tests.faults.harness import final_of, served_ratings
from tests.helpers import bearer, run_jobs
from workers.projector import Projector


class Recorder:
    """Requests through a Flask test client, recorded as ``harness.Client.call`` records them."""

    def __init__(self, client: Any):
        self.client = client
        self.records: list[dict[str, Any]] = []
        self.clock = itertools.count()

    def call(
        self, op: str, method: str, path: str, match: str | None, token: str | None = None, body: Any = None
    ) -> dict[str, Any]:
        key = uuid.uuid4().hex if method == "POST" else None
        headers = {**(bearer(token) if token else {}), **({"Idempotency-Key": key} if key else {})}
        record: dict[str, Any] = {"t0": float(next(self.clock)), "client": 0, "op": op, "match": match}
        record.update(key=key, attempt=0, api=0)
        if body and "expected_version" in body:
            record["expected"] = body["expected_version"]
        answer = getattr(self.client, method.lower())(path, json=body, headers=headers)
        record.update(t1=float(next(self.clock)), status=answer.status_code)
        if isinstance(answer.json.get("version"), int):
            record["version"] = answer.json["version"]
        if op == "act" and answer.status_code == 201:
            record["events"] = answer.json["events"]
        if op == "create" and answer.status_code == 201:
            record["match"] = answer.json["id"]
        self.records.append(record)
        return answer.json

    def play(self, game: str, seats: Any, rng: random.Random, moves: int | None, key: str) -> str:
        body = {"game": game, "players": seats}
        created = self.call("create", "POST", "/v1/matches", None, key, body)
        match_id, tokens = created["id"], [seat["token"] for seat in created["seats"]]
        for _ in itertools.count() if moves is None else range(moves):
            match = self.call("get_match", "GET", f"/v1/matches/{match_id}", match_id)
            if match["status"] != "active":
                break
            seat = match["to_act"][0]
            legal = self.call("legal", "GET", f"/v1/matches/{match_id}/legal-actions", match_id, tokens[seat])
            body = {"expected_version": legal["version"], "action": rng.choice(legal["actions"])}
            self.call("act", "POST", f"/v1/matches/{match_id}/actions", match_id, tokens[seat], body)
        return match_id


@pytest.fixture(scope="module")
def played() -> tuple[list[dict[str, Any]], dict[str, Any], str, str]:
    """(history, final, a finished and scored match, a match still running) played on fakeredis."""
    import fakeredis

    from service.config import Settings
    from service.http.app import create_app
    from tests.conftest import TEST_SECRET

    settings = Settings(namespace=f"test-{uuid.uuid4().hex[:12]}", secret_key=TEST_SECRET, snapshot_every=4)
    redis_client = fakeredis.FakeRedis()
    client = create_app(settings, redis_client).test_client()
    platform, key = Platforms(redis_client, Keys(settings.namespace)).create("arena")
    recorder = Recorder(client)
    players = [{"name": "ann", "player": "u-ann"}, {"name": "bob", "player": "u-bob"}]
    finished = recorder.play("block-block", players, random.Random(1), None, key)
    running = recorder.play("blokus", players, random.Random(2), 6, key)
    recorder.call("analyse", "POST", f"/v1/matches/{finished}/analysis", finished, key, {})
    projector = Projector(Matches(redis_client, settings), redis_client, consumer="checker", block_ms=10)
    for _ in range(2):  # the game-over notice: its scoring job; the score's notice: its rating job
        while projector.step():
            pass
        run_jobs(redis_client, settings)  # and run, as a worker runs them (the analysis too)
    stores = Stores.connect(redis_client, settings)
    final = {
        "matches": {
            match_id: final_of(stores, match_id, shown, {k: shown[k] for k in ("status", "version")})
            for match_id in (finished, running)
            for shown in [client.get(f"/v1/matches/{match_id}").json]
        },
        "ratings": served_ratings(
            lambda path, params: client.get(path, query_string=params, headers=bearer(key)).json
        ),
    }
    final["rated"] = {pool: stores.players.rated_matches(platform, pool) for pool in final["ratings"]}
    final["matches"][finished]["analysis"] = client.get(f"/v1/matches/{finished}/analysis").json
    for match in final["matches"].values():
        match["delivered"] = delivered(match["log"])
    return recorder.records, final, finished, running


def delivered(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a webhook for every entry type receives of a log, as the workers deliver it: a delivery per
    append (here: per entry), each naming the one before it; the first delivery twice, as a retry."""
    sent, previous = [], None
    for entry in log:
        sent.append(
            {"delivery": uuid.uuid4().hex, "version": entry["version"], "previous_version": previous}
            | {"versions": [entry["version"]]}
        )
        previous = entry["version"]
    return [sent[0], *sent]


def kinds(records: list[dict[str, Any]], final: dict[str, Any]) -> set[str]:
    return {anomaly.kind for anomaly in checker.check(records, final)}


def planted(played: tuple) -> tuple[list[dict[str, Any]], dict[str, Any], str, str]:
    records, final, finished, running = played
    return copy.deepcopy(records), copy.deepcopy(final), finished, running


def acts(records: list[dict[str, Any]], match_id: str) -> list[dict[str, Any]]:
    return [r for r in records if r["op"] == "act" and r["match"] == match_id and r["status"] == 201]


def test_a_clean_history_has_no_anomaly(played):
    records, final, finished, running = played
    assert set(final["ratings"]["block-block:2p"]) == {"u-ann", "u-bob"}, "the finished match is rated"
    assert final["matches"][finished]["analysis"]["status"] == "done"
    assert final["matches"][finished]["shown"]["status"] == "finished"
    assert final["matches"][finished]["shown"]["result"], "scored"
    assert final["matches"][running]["seed"], "a running match's seed comes from the store"
    assert final["matches"][running]["snapshots"], "snapshots are compared too"
    assert checker.check(records, final) == []
    assert not checker.projections_behind(final)


def test_an_acknowledged_entry_missing_is_lost(played):
    records, final, _, running = planted(played)
    final["matches"][running]["log"].pop()
    assert "lost" in kinds(records, final)


def test_an_acknowledged_entry_replaced_is_lost(played):
    records, final, _, running = planted(played)
    last = acts(records, running)[-1]["events"][-1]
    last["hash"] = "0" * 64  # the answer named another entry than the log keeps
    assert kinds(records, final) == {"lost"}


def test_a_created_match_gone_is_lost(played):
    records, final, _, running = planted(played)
    del final["matches"][running]
    assert kinds(records, final) == {"lost"}


def test_a_version_twice_is_duplicated(played):
    records, final, _, running = planted(played)
    log = final["matches"][running]["log"]
    log.append(copy.deepcopy(log[-1]))
    assert "duplicated" in kinds(records, final)


def test_a_match_scored_twice_is_duplicated(played):
    records, final, finished, _ = planted(played)
    log = final["matches"][finished]["log"]
    log.append({**copy.deepcopy(log[-1]), "version": len(log) + 1})
    assert "duplicated" in kinds(records, final)


def test_a_write_acknowledged_before_another_began_yet_after_it_is_out_of_order(played):
    records, final, _, running = planted(played)
    earlier, later = acts(records, running)[-2:]
    later["t0"], later["t1"] = earlier["t0"] - 2, earlier["t0"] - 1  # done before the other began
    assert "out_of_order" in kinds(records, final)


def test_a_log_with_a_gap_is_out_of_order(played):
    records, final, _, running = planted(played)
    final["matches"][running]["log"][-1]["version"] += 1
    assert "out_of_order" in kinds(records, final)


def test_an_entry_of_a_write_told_it_failed_is_failed_but_present(played):
    records, final, _, running = planted(played)
    told = acts(records, running)[-1]
    told.update(status=409, reason="version_conflict")
    del told["events"]
    assert "failed_but_present" in kinds(records, final)


def test_an_entry_of_a_write_whose_outcome_is_unknown_is_not_an_anomaly(played):
    records, final, _, running = planted(played)
    unknown = acts(records, running)[-1]
    unknown.update(status=None, error="ConnectionError")
    del unknown["events"]
    records.append(
        {"t0": unknown["t1"], "client": 0, "op": "gave_up", "match": running, "key": unknown["key"]}
    )
    assert kinds(records, final) == set()


def test_an_entry_no_write_made_is_failed_but_present(played):
    records, final, _, running = planted(played)
    for r in records:
        if r["match"] == running and r["op"] == "act" and r is acts(records, running)[-1]:
            records.remove(r)
            break
    assert "failed_but_present" in kinds(records, final)


def test_two_answers_for_one_key_are_an_idempotency_conflict(played):
    records, final, _, running = planted(played)
    first = acts(records, running)[-1]
    other = copy.deepcopy(first)
    other.update(resend=True, attempt=1, events=[{**first["events"][0], "version": 99}])
    records.append(other)
    assert kinds(records, final) == {"idempotency_conflict"}


def test_the_same_answer_again_for_one_key_is_no_conflict(played):
    records, final, _, running = planted(played)
    records.append({**copy.deepcopy(acts(records, running)[-1]), "resend": True, "attempt": 1})
    assert kinds(records, final) == set()


def test_an_entry_changed_breaks_the_chain(played):
    records, final, _, running = planted(played)
    final["matches"][running]["log"][2]["at"] = "2000-01-01T00:00:00.000Z"
    assert "broken_chain" in kinds(records, final)


def test_a_snapshot_other_than_the_fold_is_a_state_mismatch(played):
    records, final, _, running = planted(played)
    snapshots = final["matches"][running]["snapshots"]
    first, *rest = sorted(snapshots)
    snapshots[first] = snapshots[rest[0]] if rest else {**snapshots[first], "version": 99}
    assert "state_mismatch" in kinds(records, final)


def test_the_api_showing_another_state_is_a_state_mismatch(played):
    records, final, _, running = planted(played)
    final["matches"][running]["shown"]["to_act"] = [7]
    assert kinds(records, final) == {"state_mismatch"}


@pytest.mark.parametrize(("status", "retry_after"), [(500, None), (503, None), (502, "1")])
def test_a_500_or_a_503_without_retry_after_is_a_server_error(played, status, retry_after):
    records, final, _, running = planted(played)
    records.append(
        {"t0": 1e6, "t1": 1e6 + 1, "client": 0, "op": "act", "match": running, "key": "k", "attempt": 0}
        | {"status": status, "retry_after": retry_after, "expected": 999}
    )
    assert kinds(records, final) == {"server_error"}


def test_a_503_with_retry_after_is_no_anomaly(played):
    records, final, _, running = planted(played)
    records.append(
        {"t0": 1e6, "t1": 1e6 + 1, "client": 0, "op": "act", "match": running, "key": "k", "attempt": 0}
        | {"status": 503, "retry_after": "1", "expected": 999}
    )
    assert kinds(records, final) == set()


def test_a_read_of_a_version_the_log_does_not_reach_is_a_stale_read(played):
    records, final, _, running = planted(played)
    records.append(
        {"t0": 1e6, "t1": 1e6 + 1, "client": 0, "op": "get_match", "match": running}
        | {"status": 200, "version": 500}
    )
    assert kinds(records, final) == {"stale_read"}


def test_a_read_older_than_an_acknowledged_write_is_a_stale_read(played):
    records, final, _, running = planted(played)
    records.append(
        {"t0": 1e6, "t1": 1e6 + 1, "client": 0, "op": "legal", "match": running}
        | {"status": 200, "version": 1}
    )
    assert kinds(records, final) == {"stale_read"}


def test_a_finished_match_never_scored_is_a_projection_behind(played):
    records, final, finished, _ = planted(played)
    match = final["matches"][finished]
    match["log"] = [e for e in match["log"] if e["type"] != "match_scored"]
    match["shown"]["result"] = None
    match["shown"]["version"] -= 1
    match["listed"]["version"] -= 1
    match["snapshots"] = {v: s for v, s in match["snapshots"].items() if v <= len(match["log"])}
    match["delivered"] = [d for d in match["delivered"] if max(d["versions"]) <= len(match["log"])]
    final["ratings"], match["analysis"] = {}, None  # nor rated, nor analysed
    assert kinds(records, final) == {"projection_behind"}
    assert checker.projections_behind(final) == [finished]


@pytest.mark.parametrize("listed", [None, {"status": "active", "version": 1}])
def test_a_listing_behind_the_log_is_a_projection_behind(played, listed):
    records, final, _, running = planted(played)
    final["matches"][running]["listed"] = listed
    assert kinds(records, final) == {"projection_behind"}


def test_counts_name_every_kind(played):
    records = played[0]
    assert checker.count([]) == dict.fromkeys(checker.KINDS, 0)
    operations = checker.count_operations(records)
    assert operations["matches_created"] == 2 and operations["actions_acknowledged"] == len(
        [r for r in records if r["op"] == "act" and r["status"] == 201]
    )
    assert checker.count_faults([{"fault": "two_at_once", "kinds": ["partition", "kill_worker"]}]) == {
        "kill_worker (in two_at_once)": 1,
        "partition (in two_at_once)": 1,
        "two_at_once": 1,
    }


def test_an_entry_never_delivered_is_a_delivery_missing(played):
    records, final, _, running = planted(played)
    sent = final["matches"][running]["delivered"]
    sent[-1]["versions"] = []
    assert kinds(records, final) == {"delivery_missing"}
    assert checker.projections_behind(final) == [running]


def test_an_entry_delivered_under_two_ids_is_a_delivery_repeated(played):
    records, final, _, running = planted(played)
    sent = final["matches"][running]["delivered"]
    sent.append({**sent[-1], "delivery": "another"})
    assert "delivery_repeated" in kinds(records, final)


def test_a_delivery_naming_another_previous_one_is_a_delivery_order(played):
    records, final, _, running = planted(played)
    final["matches"][running]["delivered"][-1]["previous_version"] = 1
    assert kinds(records, final) == {"delivery_order"}


def test_a_delivery_of_an_entry_the_log_does_not_keep_is_a_stale_read(played):
    records, final, _, running = planted(played)
    sent = final["matches"][running]["delivered"]
    sent.append(
        {"delivery": "late", "version": 99, "previous_version": sent[-1]["version"], "versions": [99]}
    )
    assert kinds(records, final) == {"stale_read"}


def test_a_rating_other_than_the_logs_make_is_a_rating_mismatch(played):
    records, final, _, _ = planted(played)
    final["ratings"]["block-block:2p"]["u-ann"]["mu"] += 1e-9  # to the last digit
    assert kinds(records, final) == {"rating_mismatch"}
    assert checker.ratings_behind(final) == ["block-block:2p"]


def test_a_match_rated_twice_is_a_rating_mismatch(played):
    records, final, finished, _ = planted(played)
    log = [Recorded.from_dict(e) for e in final["matches"][finished]["log"]]
    match = ratings.rated_match(finished, log)[0]
    assert match is not None
    once = checker.ratings_rebuilt(final)["block-block:2p"]
    twice = {**once, **ratings.rate(once, match)}  # as if the rating job ran again on the ratings it left
    final["ratings"]["block-block:2p"] = {
        player: {"mu": r.mu, "sigma": r.sigma, "games": r.games} for player, r in twice.items()
    }
    assert kinds(records, final) == {"rating_mismatch"}


def test_a_rating_mismatch_names_the_match_rated_out_of_its_order(played):
    """A game of the pool that ended before the rated one, rated live after it: the anomaly names both, when
    they ended and their places in the pool's sequence (the store's record of each applied match)."""
    records, final, finished, _ = planted(played)
    log = final["matches"][finished]["log"]
    earlier = [{**e, "at": "2000-01-01T00:00:00.000Z"} if e["type"] == "seed_revealed" else e for e in log]
    created = earlier[0]["data"]
    ann, bob = created["players"][0]["player"], created["players"][1]["player"]
    created = {
        **created,
        "players": [{**created["players"][0], "player": bob}, {**created["players"][1], "player": ann}],
    }
    earlier[0] = {**earlier[0], "data": created}  # the other seats: the two orders rate them apart
    final["matches"]["m-earlier"] = {**final["matches"][finished], "log": earlier}
    live = final["rated"]["block-block:2p"]
    assert live[finished]["seq"] == 0, "the store records where each match was rated"
    late = ratings.rated_match("m-earlier", [Recorded.from_dict(e) for e in earlier])[0]
    assert late is not None
    live["m-earlier"] = {**late.to_json(), "seq": 1}
    served = checker.ratings_rebuilt({"matches": {finished: final["matches"][finished]}})["block-block:2p"]
    served.update(ratings.rate(served, late))  # rated after the game that ended after it
    final["ratings"]["block-block:2p"] = {
        p: {"mu": r.mu, "sigma": r.sigma, "games": r.games} for p, r in served.items()
    }
    found = [a for a in checker.check(records, final) if a.kind == "rating_mismatch"]
    assert found and all(
        f"{finished} (ended {ratings.epoch_ms(next(e['at'] for e in log if e['type'] == 'seed_revealed'))}) "
        f"rated before m-earlier (ended 946684800000): places 0 and 1" in a.detail
        for a in found
    ), found


@pytest.mark.parametrize("where", ["a player never rated", "a rated player missing", "a pool missing"])
def test_a_rating_served_without_its_match_or_missing_is_a_rating_mismatch(played, where):
    records, final, _, _ = planted(played)
    pool = final["ratings"]["block-block:2p"]
    if where == "a player never rated":
        pool["u-carol"] = dict(pool["u-ann"])
    elif where == "a rated player missing":
        del pool["u-bob"]
    else:
        del final["ratings"]["block-block:2p"]
    assert kinds(records, final) == {"rating_mismatch"}


@pytest.mark.parametrize("ended", ["before", "after"])
def test_a_pool_rated_up_to_a_game_not_scored_yet_is_behind_not_a_mismatch(played, ended):
    """The rated match's pool served as before it: behind when a game of the pool that ended before it is not
    scored yet (its place held, the match waits for it), a rating_mismatch when that game ended after it."""
    _, final, finished, _ = planted(played)
    log = final["matches"][finished]["log"]
    at = "2000-01-01T00:00:00.000Z" if ended == "before" else "2999-01-01T00:00:00.000Z"
    waiting = [
        {**e, "at": at} if e["type"] == "seed_revealed" else e for e in log if e["type"] != "match_scored"
    ]
    final["matches"]["w-not-scored"] = {"log": waiting}
    final["ratings"]["block-block:2p"] = {}
    found = checker.ratings_agree(final)
    if ended == "before":
        assert [a.kind for a in found] == ["projection_behind"]
        assert "w-not-scored" in found[0].detail
    else:
        assert {a.kind for a in found} == {"rating_mismatch"}
    assert checker.ratings_behind(final) == ["block-block:2p"], "the harness waits for it either way"


def test_an_analysis_other_than_the_logs_is_an_analysis_mismatch(played):
    records, final, finished, _ = planted(played)
    served = final["matches"][finished]["analysis"]["analysis"]
    served["moves"][0]["loss"] += 1.0
    assert kinds(records, final) == {"analysis_mismatch"}


@pytest.mark.parametrize("planted_as", ["past the log", "failed"])
def test_an_analysis_of_a_version_the_log_does_not_reach_or_failed_is_an_analysis_mismatch(
    played, planted_as
):
    records, final, finished, _ = planted(played)
    served = final["matches"][finished]["analysis"]
    if planted_as == "failed":
        served.update(status="failed", error="RuntimeError: a bug")
        del served["analysis"]
    else:
        served["analysis"]["version"] = len(final["matches"][finished]["log"]) + 1
    assert kinds(records, final) == {"analysis_mismatch"}


def test_an_analysis_never_done_is_a_projection_behind(played):
    records, final, finished, _ = planted(played)
    served = final["matches"][finished]["analysis"]
    served["status"] = "running"
    del served["analysis"]
    assert kinds(records, final) == {"projection_behind"}
    assert checker.projections_behind(final) == [finished]
