"""The contract reads well in Swagger UI and in a generated client: its prose is Markdown, as OpenAPI
says descriptions are (no reStructuredText double backticks, no ``<placeholder>`` a renderer takes for an
HTML tag); what many operations share is written once; and every request body has an example that the
server accepts as it is."""

from __future__ import annotations

import json
import re
import socket
from collections import Counter
from collections.abc import Iterator
from typing import Any

from service.http.app import spec
from service.store.keys import Keys
from service.store.platforms import Platforms


def prose(node: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """Every description and summary of the document, with where it is."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("description", "summary") and isinstance(value, str):
                yield f"{where}/{key}", value
            else:
                yield from prose(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from prose(item, f"{where}/{index}")


METHODS = ("get", "put", "post", "delete", "patch")


def test_descriptions_are_markdown(app):
    served = list(prose(spec(app)))
    assert served
    assert [where for where, text in served if "``" in text] == []
    # outside code spans, <word> is an HTML tag to a Markdown renderer (Swagger UI drops it)
    tags = [(where, text) for where, text in served if re.search(r"<[A-Za-z]", re.sub(r"`[^`]*`", "", text))]
    assert tags == []


def test_shared_error_answers_and_headers_are_written_once(app):
    """An error answer that several operations give, and a header parameter, is a reference to the
    contract's components, not a copy per operation (the Idempotency-Key's paragraph was written 13 times)."""
    contract = spec(app)
    written: Counter[str] = Counter()
    headers = []
    for item in contract["paths"].values():
        for operation in (o for m, o in item.items() if m in METHODS):
            for status, answer in operation["responses"].items():
                if status >= "4" and "$ref" not in answer:
                    written[json.dumps(answer, sort_keys=True)] += 1
            headers += [p for p in operation.get("parameters", []) if p.get("in") == "header"]
    assert [answer for answer, times in written.items() if times > 1] == []
    assert headers == []  # each a $ref: components/parameters holds the header itself
    assert contract["components"]["parameters"]["IdempotencyKey"]["in"] == "header"
    assert len(contract["components"]["responses"]) > 5


def request_bodies(contract: dict[str, Any]) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """Every request body the contract declares: its path, method, media type and what it says of it."""
    for path, item in contract["paths"].items():
        for method, operation in item.items():
            if method in METHODS and "requestBody" in operation:
                for media, body in operation["requestBody"]["content"].items():
                    yield path, method, media, body


def test_every_request_body_has_an_example(app):
    bodies = list(request_bodies(spec(app)))
    assert len(bodies) >= 7  # create (JSON and a record), abort, join, replace, action, webhooks
    assert [body[:3] for body in bodies if "example" not in body[3] and "examples" not in body[3]] == []


def public_dns(monkeypatch):
    """The sandbox resolves no names: example.com (a webhook example's host) as a resolver would answer."""
    resolve = socket.getaddrinfo

    def getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "example.com":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", port))]
        return resolve(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_every_request_body_example_is_accepted_as_it_is(app, client, fake_redis, settings, monkeypatch):
    """What Swagger UI's "Try it out" sends by default: each example, posted unchanged to a real app, to a
    match made for it (with an open seat for a join) and with the credential the operation asks for."""
    public_dns(monkeypatch)
    contract = spec(app)
    _, key = Platforms(fake_redis, Keys(settings.namespace)).create("examples")
    platform = {"Authorization": f"Bearer {key}"}
    create = contract["paths"]["/v1/matches"]["post"]["requestBody"]["content"]["application/json"]["example"]
    hook = contract["paths"]["/v1/webhooks"]["post"]["requestBody"]["content"]["application/json"]["example"]

    def prepared(path: str, operation: dict[str, Any]) -> tuple[str, dict[str, str]]:
        """The path with a fresh match's (or webhook's) ids in it, and the operation's credential."""
        body = (
            {"game": "blokus", "players": [{"name": "alice"}, {"open": True}]} if "/join" in path else create
        )
        created = client.post("/v1/matches", json=body, headers=platform).json
        seat = next(s["seat"] for s in created["seats"] if s.get("open")) if "/join" in path else 0
        # a webhook (a platform has at most 10) and a challenge only for the paths that name one
        hook_id = (
            client.post("/v1/webhooks", json=hook, headers=platform).json["id"] if "{hook_id}" in path else ""
        )
        challenge = {
            "game": "blokus",
            "challenger": "u-1",
            "challenged": ["u-2"],
        }  # whom the examples answer for
        challenge_id = (
            client.post("/v1/challenges", json=challenge, headers=platform).json["id"]
            if "{challenge_id}" in path
            else ""
        )
        tournament = {"name": "Examples", "kind": "swiss", "game": "block-block", "rounds": 1}
        tournament_id = (
            client.post("/v1/tournaments", json=tournament, headers=platform).json["id"]
            if "{tournament_id}" in path
            else ""
        )
        url = path.format(
            match_id=created["id"],
            seat=seat,
            hook_id=hook_id,
            challenge_id=challenge_id,
            tournament_id=tournament_id,
        )
        schemes = {scheme for requirement in operation.get("security", [{}]) for scheme in requirement}
        if "seatToken" in schemes:
            to_act = client.get(f"/v1/matches/{created['id']}").json["to_act"][0]
            return url, {"Authorization": f"Bearer {created['seats'][to_act]['token']}"}
        return url, platform if "platformKey" in schemes else {}

    sent = []
    for path, method, media, body in request_bodies(contract):
        operation = contract["paths"][path][method]
        shown = [body["example"]] if "example" in body else [e["value"] for e in body["examples"].values()]
        for example in shown:
            url, headers = prepared(path, operation)
            if media == "application/json":
                answer = client.open(url, method=method.upper(), json=example, headers=headers)
            else:
                answer = client.open(
                    url, method=method.upper(), data=example, content_type=media, headers=headers
                )
            assert 200 <= answer.status_code < 300, (method, path, media, example, answer.json)
            sent.append((method, path))
    assert ("post", "/v1/matches/{match_id}/actions") in sent


def test_the_contract_is_served_compact(app, client):
    """/openapi.json as every JSON answer is written, without the indentation that doubled its bytes."""
    served = client.get("/openapi.json")
    assert served.status_code == 200 and served.mimetype == "application/json"
    assert b"\n " not in served.get_data()
    assert served.json == spec(app)
