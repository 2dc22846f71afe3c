"""The per-address limits on a real ``matchlog serve``: a burst of reads gets 429 (the probes never), and
moves on the socket count in the address's write window as POSTs do."""

from __future__ import annotations

import json
import shutil
import tempfile
import urllib.error
import urllib.request

import pytest

from tests.bench.api import free_port
from tests.integration.test_moves_socket import connect, send
from tests.integration.test_serve import start_serve, stop_serve

pytestmark = pytest.mark.slow


@pytest.fixture
def served():
    folder = tempfile.mkdtemp(prefix="mll-", dir="/tmp")
    port = free_port()
    process, http = start_serve(
        folder,
        port,
        MATCHLOG_RATE_LIMIT_PER_ADDRESS="5/minute",  # per minute: the burst fits in it however loaded the machine
        MATCHLOG_RATE_LIMIT_READS_PER_ADDRESS="20/minute",
    )
    yield port, http
    stop_serve(process)
    shutil.rmtree(folder, ignore_errors=True)


def get(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_a_burst_of_reads_gets_429_and_the_probes_are_never_limited(served):
    port, _ = served  # start_serve read /v1/games once already
    answers = [get(port, "/v1/matches?status=finished") for _ in range(30)]
    statuses = [status for status, _, _ in answers]
    assert statuses.count(200) <= 19 and statuses[-1] == 429, statuses
    _, headers, body = answers[-1]
    assert json.loads(body)["error"] == "too_many_requests" and int(headers["Retry-After"]) >= 1
    assert all(get(port, "/healthz")[0] == 200 for _ in range(30))


def test_socket_moves_over_the_address_write_limit_are_refused(served):
    port, http = served
    _, created = http("POST", "/v1/matches", {"game": "blokus", "players": [{"name": n} for n in "abcd"]})
    socket = connect(port, created["id"], created["seats"][0]["token"])
    try:
        answers = [send(socket, {"expected_version": 9, "action": {}}) for _ in range(40)]
    finally:
        socket.close()
    refused = [a for a in answers if a["status"] == 429]
    assert len(refused) >= 30, [a["status"] for a in answers]  # 5 a minute, the create one of them
    assert refused[0]["error"] == "too_many_requests" and refused[0]["retry_after"] >= 1
