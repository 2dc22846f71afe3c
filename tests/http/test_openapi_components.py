"""``openapi.yaml`` is the contract: it must be what the app serves, and schemathesis, generating
requests from it, must find no server error and no answer that breaks it."""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import fakeredis
import schemathesis
import yaml
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import ignored_auth, positive_data_acceptance

from service.application.scoring import Scoring
from service.config import Settings
from service.games import GAMES
from service.http.app import create_app, spec
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.conftest import examples
from tests.helpers import beating_worker, create

CONTRACT = Path(__file__).resolve().parents[2] / "openapi.yaml"


def test_openapi_yaml_is_what_the_app_serves(app, client):
    """Regenerate with: matchlog openapi > openapi.yaml"""
    committed = yaml.safe_load(CONTRACT.read_text(encoding="utf-8"))
    assert committed == spec(app)
    assert client.get("/openapi.json").json == committed


def test_every_operation_has_a_short_unique_camel_case_operation_id():
    """Generated clients name their functions after it (``createMatch``, not ``post_v1_matches``)."""
    contract = yaml.safe_load(CONTRACT.read_text(encoding="utf-8"))
    methods = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
    ids = [
        (path, method, operation.get("operationId"))
        for path, item in contract["paths"].items()
        for method, operation in item.items()
        if method in methods
    ]
    assert [
        (path, method) for path, method, id_ in ids if not re.fullmatch(r"[a-z]+(?:[A-Z][a-z]+)*", id_ or "")
    ] == []
    names = [id_ for _, _, id_ in ids]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert all(len(name) <= 24 for name in names), [n for n in names if len(n) > 24]


# Game records (an SGF dialect...) are text: send each game's as schemathesis sends text/plain.
for _game in GAMES.values():
    if _game.record is not None:
        schemathesis.serializer.alias(_game.record.mime, "text/plain")

# One app for all generated cases (schemathesis's lazy-fixture loader does not work with pytest 9),
# on its own fakeredis, with a real match of every game in it.
CONTRACT_REDIS = fakeredis.FakeRedis()
# a live feed with nothing to deliver ends after a second (a generated stream of a running match, ever)
CONTRACT_APP = create_app(Settings(namespace="contract", sse_idle_s=1.0, sse_heartbeat_s=0.5), CONTRACT_REDIS)
CONTRACT_WORKER = beating_worker(
    CONTRACT_REDIS, Settings(namespace="contract")
)  # /readyz: 200, as in service
LIVE_MATCHES = [
    create(CONTRACT_APP.test_client(), game=game_id, players=[{"name": "a"}, {"name": "b"}])
    for game_id in GAMES
]


def _scored_match_of_each_game() -> list[str]:
    """A match of every game, aborted by its platform and scored: its live feed sends every entry, then
    ``end``, and ends."""
    _, key = Platforms(CONTRACT_REDIS, Keys("contract")).create("contract")
    client, app = CONTRACT_APP.test_client(), CONTRACT_APP.extensions["matchlog"]
    scored = []
    for game_id in GAMES:
        created = client.post(
            "/v1/matches",
            json={"game": game_id, "players": [{"name": "a"}, {"name": "b"}]},
            headers={"Authorization": f"Bearer {key}"},
        ).json
        assert (
            client.post(
                f"/v1/matches/{created['id']}/abort",
                json={"reason": "contract"},
                headers={"Authorization": f"Bearer {key}"},
            ).status_code
            == 200
        )
        Scoring(app.stores).record_result(created["id"])
        scored.append(created["id"])
    return scored


SCORED_MATCHES = _scored_match_of_each_game()
STREAM = "/v1/matches/{match_id}/events/stream"
schema = schemathesis.openapi.from_path(CONTRACT)
schema.app = CONTRACT_APP  # requests go to the WSGI app in-process, never to a network
schema.config.update(base_url="http://localhost")


@schema.parametrize()
@settings(max_examples=examples(40), deadline=None, suppress_health_check=list(HealthCheck))
def test_api_honours_its_contract(case):
    CONTRACT_WORKER.heartbeat()  # a live worker beats every few seconds; this one only when asked
    headers = {}
    # Most positive cases address a real match (of each game in turn) with the token of the seat to
    # act, so that generated bodies and queries reach the rules engines instead of stopping at 404.
    # The token goes in as an explicit header: schemathesis then also re-sends without it and with
    # a bad one, expecting 401/403.
    positive = case.meta is None or not case.meta.generation.mode.is_negative
    pick = zlib.crc32(repr((case.path_parameters, case.query, case.body)).encode()) % (len(LIVE_MATCHES) + 1)
    if positive and "match_id" in (case.path_parameters or {}) and pick:
        match_id, tokens = LIVE_MATCHES[pick - 1]
        match = CONTRACT_APP.test_client().get(f"/v1/matches/{match_id}").json
        case.path_parameters["match_id"] = match_id
        headers["Authorization"] = f"Bearer {tokens[(match['to_act'] or [0])[0]]}"
        if isinstance(case.body, dict) and "expected_version" in case.body:
            case.body["expected_version"] = match["version"]  # else nearly every action is a 409
    if positive and case.path == STREAM:  # a scored match's feed, which ends (a seat's or a spectator's)
        case.path_parameters["match_id"] = SCORED_MATCHES[pick % len(SCORED_MATCHES)]
        headers.pop("Authorization", None)
    # A request can fit the schema and still be refused for what a schema cannot say (the player
    # count of a game, a move the rules forbid): those get their documented 400 or 422, so the
    # "schema-valid data is accepted" check does not apply. Every other check does.
    response = case.call(headers=headers)
    if not positive and response.status_code in REQUEST_GUARDS:
        # a generated query long enough to pass the URL guard (8 KiB, the contract's description): refused
        # there, before any operation's own checks, with the guard's own code
        assert response.json()["error"] == REQUEST_GUARDS[response.status_code], response.text
        return
    case.validate_response(response, headers=headers, excluded_checks=[positive_data_acceptance])


REQUEST_GUARDS = {414: "uri_too_long", 431: "request_header_fields_too_large"}
"""What every request may meet before its operation does (``service.http.middleware.guards``; the contract's
description)."""


def _to_act_token(match_id: str, tokens: dict[int, str]) -> str:
    """The token of the first seat to act (the first seat's when none is), as a client would choose."""
    to_act = CONTRACT_APP.test_client().get(f"/v1/matches/{match_id}").json["to_act"]
    return tokens.get((to_act or [min(tokens)])[0], tokens[min(tokens)])


REACHED: set[tuple[str, str, int]] = set()  # (method, path, status) of calls on matches the run created


class MatchWorkflows(schema.as_state_machine()):  # type: ignore[misc]  # a class schemathesis makes
    """Stateful: create a match, then follow the document's links (state, legal actions, actions,
    events, log, checkpoint, score) with its id, acting with the token of the seat to act,
    so that generated sequences reach deep into live matches instead of stopping at 404."""

    tokens: dict

    def setup(self):
        self.tokens = {}

    def before_call(self, case):
        super().before_call(case)
        # Most generated match bodies break a rule no schema states (a game's player count, its
        # options): half of them become two named players, default options, so that chains go on.
        body = case.body
        if (
            case.path == "/v1/matches"
            and case.method == "POST"
            and isinstance(body, dict)
            and body.get("game") in GAMES
            and zlib.crc32(repr(body).encode()) % 2
        ):
            case.body = {"game": body["game"], "players": [{"name": "a"}, {"name": "b"}]}

    def after_call(self, response, case):
        super().after_call(response, case)
        if case.path_parameters and case.path_parameters.get("match_id") in self.tokens:
            REACHED.add((case.method, case.path, response.status_code))
        if case.path == "/v1/matches" and case.method == "POST" and response.status_code == 201:
            body = response.json()
            tokens = {
                seat["seat"]: seat["token"] for seat in body["seats"] if "token" in seat
            }  # open seats: none
            if tokens:
                self.tokens[body["id"]] = tokens

    def get_call_kwargs(self, case):
        if case.meta is not None and case.meta.generation.mode.is_negative:
            return {}  # a negative case keeps the headers it was generated with
        match_id = (case.path_parameters or {}).get("match_id")
        token = _to_act_token(match_id, self.tokens[match_id]) if match_id in self.tokens else None
        return {"headers": {"Authorization": f"Bearer {token}"}} if token else {}

    def validate_response(self, response, case, additional_checks=None, **kwargs):
        # as in the stateless test: a schema-valid request may still break a rule (400/422); and the
        # seat token is this test's own, not a generated one (the stateless test checks bad tokens)
        case.validate_response(response, excluded_checks=[positive_data_acceptance, ignored_auth])


TestMatchWorkflows = MatchWorkflows.TestCase
TestMatchWorkflows.settings = settings(
    max_examples=examples(25), stateful_step_count=8, deadline=None, suppress_health_check=list(HealthCheck)
)


def test_stateful_workflows_reach_live_matches():
    """Links carry a created match's id on to its state and legal actions, and a listing's first
    action to the actions endpoint, so sequences reach the rules engines, not only 404s."""
    REACHED.clear()

    def reads():  # the match, its state, legal actions, events, log, checkpoint...
        return {path for method, path, status in REACHED if method == "GET" and status == 200}

    def writes():  # moves, undos, scoring... that reached a live match, not only its doorstep
        return {status for method, path, status in REACHED if method == "POST"} - {401, 403, 404}

    # About one run in four wanders (measured: 11 of 15 runs reached both alone); the runs add up, and the
    # loop stops at the first that suffices (usually the first or second). Each run draws afresh: where
    # the CI variable is set Hypothesis loads its "ci" profile, which derandomizes, and there every run
    # was the same one (30 of them reached only the match and its checkpoint, in CI and with CI=true here).
    for _ in range(30):
        MatchWorkflows.run(
            settings=settings(
                max_examples=examples(50),
                stateful_step_count=10,
                deadline=None,
                derandomize=False,
                suppress_health_check=list(HealthCheck),
            )
        )
        if len(reads()) >= 3 and writes():
            break
    assert len(reads()) >= 3, sorted(REACHED)
    assert writes(), sorted(REACHED)
