"""The fault harness's checker: a history of requests and answers and the final logs in, anomalies out.

Pure: no I/O, no clock. ``check(records, final)`` reads

- ``records``: the history (``harness.History``), one dict per request: ``op`` (``create``, ``act``,
  ``get_match``, ``legal``), ``client``, ``match``, ``key`` (a write's ``Idempotency-Key``), ``attempt``,
  ``t0``/``t1`` (seconds), ``status`` (None: no answer, the connection broke), ``expected`` (an action's
  ``expected_version``), ``version`` (the answer's), ``events`` (a 201 action's entries), ``retry_after``,
  ``resend`` (a write sent again after its answer, as a client that lost the answer would); plus a
  ``gave_up`` record for a write whose every attempt went unanswered or 503, and one per fault;
- ``final``: ``{"matches": {id: {"log": [entry dicts], "seed": [seed, salt] | None, "snapshots":
  {version: state JSON}, "shown": GET /v1/matches/{id}'s status, version, to_act and result, "listed":
  the platform's listing row's status and version, or None, "analysis": GET /v1/matches/{id}/analysis
  (absent or None: nobody asked)}}, "ratings": {pool: {player: {"mu", "sigma", "games"}}}}``, the ratings
  as the platform's leaderboards serve them (absent: not read),

and names every anomaly of ``KINDS``. Every write the client could not learn the outcome of (it gave up)
may or may not be in the log: both are correct.
"""

from __future__ import annotations

import bisect
import collections
import dataclasses
import json
from collections.abc import Iterable
from typing import Any

from service.domain import analysis, replay
from service.domain.chain import BrokenChain, Recorded, verify_chain
from service.domain.projections import listing_summary, status_of
from service.domain.ratings import RatedMatch, Rating, epoch_ms, pool_of_log, rated_match, replay_pool
from service.domain.replay import SHELL_EVENTS
from service.games import GAMES

KINDS = (
    "lost",
    "duplicated",
    "out_of_order",
    "failed_but_present",
    "idempotency_conflict",
    "broken_chain",
    "state_mismatch",
    "server_error",
    "stale_read",
    "projection_behind",
    "delivery_missing",
    "delivery_repeated",
    "delivery_order",
    "rating_mismatch",
    "analysis_mismatch",
)
"""Every kind of anomaly, as the report counts them:

- ``lost``: an entry a 201 acknowledged is not in the final log as acknowledged (or a created match is gone);
- ``duplicated``: a version twice in a log, or a match scored twice;
- ``out_of_order``: a log whose versions are not 1, 2, 3...; or a write acknowledged before another began
  whose entries come after that other's;
- ``failed_but_present``: entries in a log that no acknowledged write accounts for, where every write that
  could have made them was told it failed (a 4xx), or where no write could have;
- ``idempotency_conflict``: two different final answers (status, or entries) for one ``Idempotency-Key``;
- ``broken_chain``: a log whose hash chain does not verify;
- ``state_mismatch``: a stored snapshot, or the match the API shows, other than the fold of the log;
- ``server_error``: an answer 500 or above other than a 503 with ``Retry-After``;
- ``stale_read``: a read that showed a version the final log does not reach, or older than a write
  acknowledged before the read began;
- ``projection_behind``: after the faults stopped, a finished match not scored (and a pool's ratings served as
  far as its first such game: the games that ended after it wait for it), or a listing that does not show a
  match as its log has it;
- ``delivery_missing``: after the faults stopped, an entry the webhook wants never delivered to it;
- ``delivery_repeated``: one entry delivered to the webhook under two delivery ids (a retry keeps its id);
- ``delivery_order``: a delivery whose ``previous_version`` is not the version of the match's delivery
  before it (a receiver that puts them in order by it waits, or drops one as a retry);
- ``rating_mismatch``: after the faults stopped, a player's rating in a pool (mu, sigma, rated matches) as
  the leaderboards serve it other than the ratings rebuilt from the logs of the scored matches, in the
  order they ended (``service.domain.ratings``, as ``matchlog ratings rebuild`` does): a match rated twice,
  never, or out of its order; or a rating served that no log makes;
- ``analysis_mismatch``: an analysis served other than the analysis of the log up to the version it names
  (``service.domain.analysis``, pure), one of a version the log does not reach, or one that failed. (One
  asked for and not done once the faults stopped is ``projection_behind``.)

A delivery of an entry that no log keeps is a ``stale_read``.
"""

WEBHOOK_LIMIT = 50
"""The most entry types one webhook may ask for."""


def _webhook_types() -> frozenset[str]:
    chosen = set(SHELL_EVENTS)
    for engine in sorted(GAMES.values(), key=lambda engine: len(engine.event_types)):
        chosen.update(sorted(set(engine.event_types) - chosen)[: WEBHOOK_LIMIT - len(chosen)])
    return frozenset(chosen)


WEBHOOK_TYPES = _webhook_types()
"""The entry types the harness's webhook asks for: the shell's and the games', the smallest games' first, up to
the limit (every one but some of Blackout's)."""

WORKER_TYPES = frozenset({"match_scored", "match_aborted", "timed_out"})
"""Entries the workers append, which no client's write accounts for."""


@dataclasses.dataclass(frozen=True)
class Anomaly:
    kind: str
    match: str | None
    detail: str


def check(records: list[dict[str, Any]], final: dict[str, Any]) -> list[Anomaly]:
    """Every anomaly of the history and the final logs (``KINDS``), in a stable order."""
    requests = [r for r in records if "op" in r and r["op"] != "gave_up"]
    gave_up = {r["key"] for r in records if r.get("op") == "gave_up"}
    matches = final.get("matches", {})
    found: list[Anomaly] = []
    found += server_errors(requests)
    found += idempotency_conflicts(requests)
    created = {r["match"] for r in requests if r["op"] == "create" and r.get("status") == 201}
    for match_id in sorted(created - set(matches)):
        found.append(Anomaly("lost", match_id, "the match was created (201) and is not in the store"))
    by_match: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for r in requests:
        if r.get("match"):
            by_match[r["match"]].append(r)
    for match_id in sorted(matches):
        found += check_match(match_id, matches[match_id], by_match.get(match_id, []), gave_up)
    found += ratings_agree(final)
    return found


def check_match(
    match_id: str, final: dict[str, Any], requests: list[dict[str, Any]], gave_up: set[str]
) -> list[Anomaly]:
    found: list[Anomaly] = []
    entries = [Recorded.from_dict(e) for e in final["log"]]
    if not entries:
        return [Anomaly("lost", match_id, "the match was created (201) and its log is empty")]
    versions = [e.version for e in entries]
    repeated = sorted(v for v, n in collections.Counter(versions).items() if n > 1)
    if repeated:
        found.append(Anomaly("duplicated", match_id, f"versions {repeated[:5]} more than once in the log"))
    if versions != list(range(1, len(versions) + 1)):
        found.append(Anomaly("out_of_order", match_id, f"the log's versions are not 1..n: {versions[:12]}"))
    scored = sum(e.type == "match_scored" for e in entries)
    if scored > 1:
        found.append(Anomaly("duplicated", match_id, f"scored {scored} times"))
    by_version = {e.version: e for e in entries}
    found += acknowledged_kept(match_id, requests, by_version)
    found += real_time_order(match_id, requests)
    found += unaccounted(match_id, requests, by_version, gave_up)
    found += stale_reads(match_id, requests, len(entries))
    try:
        verify_chain(entries)
    except BrokenChain as error:
        return [*found, Anomaly("broken_chain", match_id, str(error))]
    found += state_agrees(match_id, final, entries)
    found += deliveries(match_id, final, entries)
    found += analysis_agrees(match_id, final, entries)
    return found


def ratings_rebuilt(final: dict[str, Any]) -> dict[str, dict[str, Rating]]:
    """Every pool's ratings from the final logs: each scored match rated once, in the order they ended."""
    rated, _ = _pools(final)
    return {pool: replay_pool(matches) for pool, matches in sorted(rated.items())}


def _pools(final: dict[str, Any]) -> tuple[dict[str, list[RatedMatch]], dict[str, tuple[int, str]]]:
    """Each pool's rated matches in the final logs, and where a pool waits: the place (``RatedMatch.order``)
    of its first game that ended and is not scored yet, which the games that ended after it wait for."""
    rated: dict[str, list[RatedMatch]] = collections.defaultdict(list)
    waiting: dict[str, tuple[int, str]] = {}
    for match_id, match in sorted(final.get("matches", {}).items()):
        entries = [Recorded.from_dict(e) for e in match["log"]]
        found = rated_match(match_id, entries)[0] if entries else None
        if found is not None:
            rated[found.pool].append(found)
        ended = [epoch_ms(e.at) for e in entries if e.type == "seed_revealed"]
        pool = pool_of_log(entries)
        if ended and pool is not None and not any(e.type == "match_scored" for e in entries):
            waiting[pool] = min(waiting.get(pool, (ended[0], match_id)), (ended[0], match_id))
    return rated, waiting


def ratings_agree(final: dict[str, Any]) -> list[Anomaly]:
    """The ratings the leaderboards serve are those the logs make (``rating_mismatch``), to the last digit:
    the live job and a rebuild fold the same logs through the same functions in the same order. A pool
    served as far as its first game not scored yet, the games after it waiting for it, is behind
    (``projection_behind``, as that game is), not wrong."""
    differ = _ratings_differ(final)
    rated, waiting = _pools(final)
    found = []
    for pool in sorted({pool for pool, _ in differ} & set(waiting)):
        before = [m for m in rated.get(pool, []) if m.order < waiting[pool]]
        so_far = {p: {"mu": r.mu, "sigma": r.sigma, "games": r.games} for p, r in replay_pool(before).items()}
        if final["ratings"].get(pool, {}) == so_far:
            waits = len(rated.get(pool, [])) - len(before)
            found.append(
                Anomaly(
                    "projection_behind",
                    None,
                    f"{pool}: rated up to its game {waiting[pool][1]}, ended and not scored yet; "
                    f"{waits} scored matches after it wait",
                )
            )
            differ = [(other, said) for other, said in differ if other != pool]
    how = {pool: rated_how(final, pool, rated.get(pool, [])) for pool in {pool for pool, _ in differ}}
    return found + [Anomaly("rating_mismatch", None, f"{detail}{how[pool]}") for pool, detail in differ]


def rated_how(final: dict[str, Any], pool: str, matches: list[RatedMatch]) -> str:
    """How the pool's matches were rated live (``final["rated"]``: each applied match as the store recorded
    it, with its place ``seq``) against the logs: a match rated with another end or version than its log's,
    rated and not in the logs, in the logs and not rated, and the first two rated in another order than they
    ended. Empty when the store was not read."""
    live = final.get("rated", {}).get(pool)
    if live is None:
        return ""
    logs = sorted(matches, key=lambda m: m.order)
    notes = []
    for match in logs:
        was = live.get(match.match_id)
        if was is not None and (was["ended_ms"], was["version"], was["seats"]) != (
            match.ended_ms,
            match.version,
            [list(seat) for seat in match.to_json()["seats"]],
        ):
            notes.append(
                f"{match.match_id} rated as ended at {was['ended_ms']} (version {was['version']}, seats "
                f"{was['seats']}), its log says {match.ended_ms} (version {match.version}, seats "
                f"{match.to_json()['seats']})"
            )
    missing = [m.match_id for m in logs if m.match_id not in live]
    unknown = sorted(set(live) - {m.match_id for m in logs})
    if missing:
        notes.append(f"not rated: {missing}")
    if unknown:
        notes.append(f"rated, and not in the logs: {unknown}")
    in_logs = [m.match_id for m in logs if m.match_id in live]
    applied = sorted((m for m in live if m in set(in_logs)), key=lambda m: live[m].get("seq", -1))
    ended = {m.match_id: m.ended_ms for m in logs}
    for theirs, ours in zip(applied, in_logs):
        if theirs != ours:
            notes.append(
                f"{theirs} (ended {ended[theirs]}) rated before {ours} (ended {ended[ours]}): places "
                f"{live[theirs].get('seq')} and {live[ours].get('seq')} in the pool's sequence"
            )
            break
    seqs = sorted(live[m].get("seq", -1) for m in live)
    if seqs != list(range(len(seqs))):
        notes.append(f"the pool's places taken: {seqs}")
    return f" [{'; '.join(notes)}]" if notes else " [rated live in the logs' order, each once, as logged]"


def _ratings_differ(final: dict[str, Any]) -> list[tuple[str, str]]:
    """(pool, what differs) for each player whose served rating is not the one the logs make."""
    if "ratings" not in final:
        return []
    served: dict[str, dict[str, dict[str, Any]]] = final["ratings"]
    rebuilt = ratings_rebuilt(final)
    found = []
    for pool in sorted(set(served) | set(rebuilt)):
        theirs, ours = served.get(pool, {}), rebuilt.get(pool, {})
        for player in sorted(set(theirs) | set(ours)):
            shown, made = theirs.get(player), ours.get(player)
            if shown is None:
                assert made is not None
                detail = f"{pool}: {player} has {made.games} rated matches in the logs and no rating served"
            elif made is None:
                detail = f"{pool}: {player} is served a rating ({shown['games']} matches) that no log makes"
            elif (shown["mu"], shown["sigma"], shown["games"]) != (made.mu, made.sigma, made.games):
                detail = (
                    f"{pool}: {player} is served mu {shown['mu']!r}, sigma {shown['sigma']!r} after "
                    f"{shown['games']} matches; the logs make mu {made.mu!r}, sigma {made.sigma!r} after "
                    f"{made.games}"
                )
            else:
                continue
            found.append((pool, detail))
    return found


def analysis_agrees(match_id: str, final: dict[str, Any], entries: list[Recorded]) -> list[Anomaly]:
    """An analysis served is the analysis of the log up to the version it names (``analysis_mismatch``)."""
    served = final.get("analysis")
    if not served:
        return []
    if served["status"] in ("queued", "running"):
        return [
            Anomaly("projection_behind", match_id, f"its analysis was asked for and is {served['status']}")
        ]
    if served["status"] != "done":
        return [
            Anomaly("analysis_mismatch", match_id, f"its analysis {served['status']}: {served.get('error')}")
        ]
    result = served["analysis"]
    if result["version"] > len(entries):
        return [
            Anomaly(
                "analysis_mismatch",
                match_id,
                f"an analysis of version {result['version']}; the log ends at {len(entries)}",
            )
        ]
    made = json.loads(json.dumps(analysis.analyse(entries[: result["version"]])))
    differ = sorted(k for k in set(made) | set(result) if made.get(k) != result.get(k))
    if differ:
        return [
            Anomaly(
                "analysis_mismatch",
                match_id,
                f"the analysis of version {result['version']} served differs from the log's in {differ}",
            )
        ]
    return []


def _delivered(final: dict[str, Any]) -> dict[int, list[str]]:
    """Each entry version the webhook was sent, with the ids of the deliveries that carried it."""
    carried: dict[int, list[str]] = collections.defaultdict(list)
    for delivery in final.get("delivered") or []:
        for version in delivery["versions"]:
            if delivery["delivery"] not in carried[version]:
                carried[version].append(delivery["delivery"])
    return carried


def deliveries(match_id: str, final: dict[str, Any], entries: list[Recorded]) -> list[Anomaly]:
    """The webhook got each entry it wants once (retries of a delivery keep its id), in order, and none
    that the log does not keep. (A history without a webhook, ``delivered`` absent, has nothing to check.)"""
    if "delivered" not in final:
        return []
    found = []
    carried = _delivered(final)
    for version, ids in sorted(carried.items()):
        if len(ids) > 1:
            found.append(Anomaly("delivery_repeated", match_id, f"version {version} delivered as {ids}"))
    kept = {e.version for e in entries}
    wanted = {e.version for e in entries if e.type in WEBHOOK_TYPES}
    missing = sorted(wanted - set(carried))
    if missing:
        found.append(Anomaly("delivery_missing", match_id, f"versions {missing[:8]} never delivered"))
    shown = sorted(set(carried) - kept)
    if shown:
        found.append(Anomaly("stale_read", match_id, f"versions {shown[:8]} delivered, and not in the log"))
    unique = sorted({d["delivery"]: d for d in final["delivered"]}.values(), key=lambda d: d["version"])
    previous = None
    for delivery in unique:
        if delivery["previous_version"] != previous:
            found.append(
                Anomaly(
                    "delivery_order",
                    match_id,
                    f"the delivery of version {delivery['version']} names {delivery['previous_version']} "
                    f"before it; the one before it was {previous}",
                )
            )
        previous = delivery["version"]
    return found


def server_errors(requests: Iterable[dict[str, Any]]) -> list[Anomaly]:
    found = []
    for r in requests:
        status = r.get("status")
        if status is None or status < 500:
            continue
        if status == 503 and r.get("retry_after"):
            continue
        found.append(
            Anomaly(
                "server_error", r.get("match"), f"{r['op']} answered {status} {r.get('reason')} at {r['t1']}"
            )
        )
    return found


def _answer(r: dict[str, Any]) -> str:
    """What a final answer says, for comparing two answers to one key (the entries' versions and hashes)."""
    events = [(e.get("version"), e.get("hash")) for e in r.get("events") or []]
    return json.dumps([r["status"], r.get("match") if r["op"] == "create" else None, events])


def _final(r: dict[str, Any]) -> bool:
    status = r.get("status")
    return status is not None and status < 500 and status not in (429,)


def idempotency_conflicts(requests: Iterable[dict[str, Any]]) -> list[Anomaly]:
    answers: dict[str, set[str]] = collections.defaultdict(set)
    first: dict[str, dict[str, Any]] = {}
    for r in requests:
        if r.get("key") and _final(r):
            answers[r["key"]].add(_answer(r))
            first.setdefault(r["key"], r)
    return [
        Anomaly("idempotency_conflict", first[key].get("match"), f"key {key}: {sorted(seen)}")
        for key, seen in sorted(answers.items())
        if len(seen) > 1
    ]


def _acked(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in requests if r["op"] == "act" and r.get("status") == 201 and not r.get("resend")]


def acknowledged_kept(
    match_id: str, requests: list[dict[str, Any]], by_version: dict[int, Recorded]
) -> list[Anomaly]:
    found = []
    for r in _acked(requests):
        for event in r.get("events") or []:
            kept = by_version.get(event["version"])
            if kept is None:
                found.append(Anomaly("lost", match_id, f"acknowledged version {event['version']} is missing"))
            elif (event.get("hash") and kept.hash != event["hash"]) or (kept.type, kept.seat) != (
                event["type"],
                event["seat"],
            ):
                found.append(
                    Anomaly(
                        "lost",
                        match_id,
                        f"acknowledged version {event['version']} ({event['type']}) is now another entry "
                        f"({kept.type})",
                    )
                )
    return found


def real_time_order(match_id: str, requests: list[dict[str, Any]]) -> list[Anomaly]:
    """A write acknowledged before another write began comes before it in the log."""
    invoked: dict[str, float] = {}
    for r in requests:
        if r["op"] == "act" and r.get("key"):
            invoked[r["key"]] = min(invoked.get(r["key"], r["t0"]), r["t0"])
    writes = []
    for r in _acked(requests):
        versions = [e["version"] for e in r.get("events") or []]
        if versions:
            writes.append((invoked.get(r["key"], r["t0"]), r["t1"], min(versions), max(versions), r["key"]))
    done = sorted((t1, high, key) for _, t1, _, high, key in writes)
    ends = [t1 for t1, _, _ in done]
    found = []
    highest_before = []  # the highest version of the writes done by each end, in the order of ends
    best: tuple[int, str] = (0, "")
    for _, high, key in done:
        best = max(best, (high, key))
        highest_before.append(best)
    for began, _, low, _, key in writes:
        index = bisect.bisect_left(ends, began) - 1
        if index >= 0 and highest_before[index][0] >= low:
            found.append(
                Anomaly(
                    "out_of_order",
                    match_id,
                    f"write {key} began after write {highest_before[index][1]} was acknowledged with version "
                    f"{highest_before[index][0]}, yet got version {low}",
                )
            )
    return found


def _outcomes(requests: list[dict[str, Any]], gave_up: set[str]) -> dict[str, str]:
    """Each action write's outcome as its client learnt it: ``acked``, ``failed`` (a 4xx) or ``unknown``."""
    outcome: dict[str, str] = {}
    for r in requests:
        if r["op"] != "act" or not r.get("key") or r.get("resend"):
            continue
        if r.get("status") == 201:
            outcome[r["key"]] = "acked"
        elif _final(r) and outcome.get(r["key"]) != "acked":
            outcome[r["key"]] = "failed"
    for key in gave_up:
        outcome.setdefault(key, "unknown")
    return outcome


def unaccounted(
    match_id: str, requests: list[dict[str, Any]], by_version: dict[int, Recorded], gave_up: set[str]
) -> list[Anomaly]:
    """Entries that no acknowledged write names: each run of them must start where a write whose outcome
    its client never learnt expected it to."""
    covered = {1}  # match_created, acknowledged by the create's 201
    for r in _acked(requests):
        covered.update(e["version"] for e in r.get("events") or [])
    outcome = _outcomes(requests, gave_up)
    expecting: dict[int, set[str]] = collections.defaultdict(set)
    for r in requests:
        if r["op"] == "act" and r.get("key") and "expected" in r:
            expecting[r["expected"]].add(r["key"])
    found = []
    previous_uncovered = False
    for version in sorted(by_version):
        entry = by_version[version]
        uncovered = version not in covered and entry.type not in WORKER_TYPES
        if uncovered and not previous_uncovered:
            told = {outcome.get(key, "failed") for key in expecting.get(version - 1, ())}
            if not told:
                found.append(
                    Anomaly(
                        "failed_but_present", match_id, f"version {version} ({entry.type}): no write made it"
                    )
                )
            elif told <= {"failed"}:
                found.append(
                    Anomaly(
                        "failed_but_present",
                        match_id,
                        f"version {version} ({entry.type}) is in the log; its write was told it failed",
                    )
                )
        previous_uncovered = uncovered
    return found


def stale_reads(match_id: str, requests: list[dict[str, Any]], length: int) -> list[Anomaly]:
    found = []
    acked = sorted(
        (r["t1"], max(e["version"] for e in r["events"])) for r in _acked(requests) if r.get("events")
    )
    ends = [t for t, _ in acked]
    highest = []
    best = 0
    for _, version in acked:
        best = max(best, version)
        highest.append(best)
    for r in requests:
        if r["op"] not in ("get_match", "legal") or r.get("status") != 200 or "version" not in r:
            continue
        if r["version"] > length:
            found.append(
                Anomaly(
                    "stale_read", match_id, f"a read showed version {r['version']}; the log ends at {length}"
                )
            )
            continue
        index = bisect.bisect_left(ends, r["t0"]) - 1
        if index >= 0 and r["version"] < highest[index]:
            found.append(
                Anomaly(
                    "stale_read",
                    match_id,
                    f"a read at {r['t0']} showed version {r['version']}, after version {highest[index]} "
                    "was acknowledged",
                )
            )
    return found


def fold(final: dict[str, Any], entries: list[Recorded]) -> tuple[replay.MatchState, dict[int, Any]]:
    """The log folded (with the seed the store keeps, or the one the log reveals), and its states at
    every version a snapshot was stored for."""
    seed, salt = final["seed"] if final.get("seed") else (None, None)
    whole = replay.replay(entries, seed, salt)  # checks the chain and the sealed entries
    if seed is None:
        revealed = next(e for e in entries if e.type == "seed_revealed")
        seed, salt = revealed.data["seed"], revealed.data.get("salt")
    wanted = {int(v) for v in final.get("snapshots", {})}
    states = {}
    state = replay.start(entries[0], seed, salt)
    if 1 in wanted:
        states[1] = state
    for entry in entries[1:]:
        state = replay.fold(state, [entry])
        if entry.version in wanted:
            states[entry.version] = state
    return whole, states


def state_agrees(match_id: str, final: dict[str, Any], entries: list[Recorded]) -> list[Anomaly]:
    try:
        whole, states = fold(final, entries)
    except Exception as error:  # a log that does not fold is itself the finding
        return [Anomaly("state_mismatch", match_id, f"the log does not fold: {error!r}")]
    found = []
    for version, stored in sorted(final.get("snapshots", {}).items(), key=lambda item: int(item[0])):
        folded = states.get(int(version))
        if folded is None:
            found.append(
                Anomaly("state_mismatch", match_id, f"a snapshot at version {version}, past the log")
            )
        elif replay.MatchState.from_json(stored) != folded:
            found.append(
                Anomaly("state_mismatch", match_id, f"the snapshot at version {version} is not the fold")
            )
    summary = listing_summary(whole)
    shown = final.get("shown") or {}
    for field in ("status", "version", "to_act", "result"):
        if field in shown and shown[field] != summary.get(field):
            kind = "projection_behind" if field == "result" else "state_mismatch"
            found.append(
                Anomaly(
                    kind,
                    match_id,
                    f"the API shows {field} {shown[field]!r}; the log's is {summary.get(field)!r}",
                )
            )
    listed = final.get("listed")
    if listed is None:
        found.append(Anomaly("projection_behind", match_id, "the platform's listing does not have it"))
    else:
        for field in ("status", "version"):
            if listed.get(field) != summary.get(field):
                found.append(
                    Anomaly(
                        "projection_behind",
                        match_id,
                        f"the listing shows {field} {listed.get(field)!r}; the log's is {summary.get(field)!r}",
                    )
                )
    if status_of(whole) == "finished" and whole.result is None:
        found.append(Anomaly("projection_behind", match_id, "finished and never scored"))
    return found


def projections_behind(final: dict[str, Any]) -> list[str]:
    """The matches whose projections have not caught up yet (what the harness waits on before checking):
    a finished match not scored, a listing or the API's answer not at the log's version and status."""
    behind = []
    for match_id, match in final["matches"].items():
        entries = [Recorded.from_dict(e) for e in match["log"]]
        if not entries:
            continue
        types = {e.type for e in entries}
        over = "seed_revealed" in types
        listed, shown = match.get("listed") or {}, match.get("shown") or {}
        wanted = {e.version for e in entries if e.type in WEBHOOK_TYPES}
        if (
            (over and "match_scored" not in types)
            or (match.get("analysis") or {}).get("status") in ("queued", "running")
            or ("delivered" in match and not wanted <= set(_delivered(match)))
            or listed.get("version") != len(entries)
            or shown.get("version") != len(entries)
        ):
            behind.append(match_id)
    return behind


def ratings_behind(final: dict[str, Any]) -> list[str]:
    """The pools whose served ratings are not yet those the logs make (what the harness waits on too)."""
    return sorted({pool for pool, _ in _ratings_differ(final)})


def count(anomalies: Iterable[Anomaly]) -> dict[str, int]:
    """Anomalies by kind, every kind listed (0 included)."""
    counted = collections.Counter(a.kind for a in anomalies)
    return {kind: counted.get(kind, 0) for kind in KINDS}


def count_faults(records: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Faults injected by kind (a ``two_at_once`` counts once as itself and once for each of its two)."""
    counted: collections.Counter[str] = collections.Counter()
    for r in records:
        if "fault" in r:
            counted[r["fault"]] += 1
            for kind in r.get("kinds", []):
                counted[f"{kind} (in two_at_once)"] += 1
    return dict(sorted(counted.items()))


def count_operations(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Requests by operation and status, the writes acknowledged, and those the clients gave up on."""
    requests = [r for r in records if "op" in r]
    statuses: collections.Counter[str] = collections.Counter()
    for r in requests:
        if r["op"] != "gave_up":
            statuses[str(r.get("status") if r.get("status") is not None else "no answer")] += 1
    acked = [r for r in requests if r["op"] == "act" and r.get("status") == 201 and not r.get("resend")]
    return {
        "requests": sum(statuses.values()),
        "by_status": dict(sorted(statuses.items())),
        "actions_acknowledged": len(acked),
        "entries_acknowledged": sum(len(r.get("events") or []) for r in acked),
        "writes_given_up": sum(r["op"] == "gave_up" for r in requests),
        "matches_created": len(
            {r["match"] for r in requests if r["op"] == "create" and r.get("status") == 201}
        ),
    }
