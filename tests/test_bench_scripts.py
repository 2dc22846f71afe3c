"""The API benchmark's scripts are real matches: created with their seed, every scripted action is
accepted at exactly the version the script expects (so the benchmark measures accepted actions)."""

from __future__ import annotations

import http.client
import json
import random

import pytest

from service.games import GAMES
from tests.bench.games import BENCHMARKS
from tests.helpers import act


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_scripted_match_replays_over_http(client, game_id):
    body, script = BENCHMARKS[game_id].scripted_match(random.Random(game_id))
    created = client.post("/v1/matches", json=body)
    assert created.status_code == 201, created.json
    match_id, tokens = created.json["id"], [s["token"] for s in created.json["seats"]]
    version = 1
    for seat, action, after in script:
        answer = act(client, match_id, tokens[seat], version, action)
        assert answer.status_code == 201 and answer.json["version"] == after, answer.json
        version = after
    assert client.get(f"/v1/matches/{match_id}").json["status"] == "finished"


def test_the_bare_stack_appends_once_per_version(fake_redis, monkeypatch):
    """``tests.bench.bare`` (what ``tests.bench.throughput`` compares matchlog with) answers the API's
    URLs the way the benchmark's client expects, and refuses a stale version as matchlog would."""
    from tests.bench import bare
    from tests.bench.throughput import renumbered

    monkeypatch.setattr("service.store.redis_client.connect", lambda url: fake_redis)
    client = bare.create_app("redis://unused").test_client()
    body, script = BENCHMARKS["blokus"].scripted_match(random.Random(1))
    created = client.post("/v1/matches", json=body)
    assert created.status_code == 201 and len(created.json["seats"]) == len(body["players"])
    match_id = created.json["id"]
    version = 1
    for _, action, after in renumbered(script)[:5]:
        assert client.get(f"/v1/matches/{match_id}/legal-actions").json["version"] == version
        answer = client.post(
            f"/v1/matches/{match_id}/actions", json={"expected_version": version, "action": action}
        )
        assert answer.status_code == 201 and answer.json["version"] == after
        version = after
    stale = client.post(
        f"/v1/matches/{match_id}/actions", json={"expected_version": 1, "action": script[0][1]}
    )
    assert stale.status_code == 409


@pytest.mark.slow
def test_the_bare_moves_socket_appends_once_per_version():
    """The bare stack's moves socket, served as the benchmark serves it (gunicorn, a real Redis: at
    ``REDIS_URL`` or embedded): one version-checked append per message, a stale version refused."""
    import websocket

    from tests.bench.api import HOST, Servers
    from tests.bench.throughput import renumbered

    servers = Servers(1, module="tests.bench.bare")
    try:
        conn = http.client.HTTPConnection(HOST, servers.port, timeout=10)
        body, script = BENCHMARKS["blokus"].scripted_match(random.Random(2))
        conn.request("POST", "/v1/matches", json.dumps(body), {"Content-Type": "application/json"})
        match_id = json.loads(conn.getresponse().read())["id"]
        conn.close()
        socket = websocket.create_connection(
            f"ws://{HOST}:{servers.port}/v1/matches/{match_id}/moves", timeout=10
        )
        version = 1
        for _, action, after in renumbered(script)[:5]:
            socket.send(json.dumps({"expected_version": version, "action": action}))
            assert json.loads(socket.recv()) == {"status": 201, "version": after}
            version = after
        socket.send(json.dumps({"expected_version": 1, "action": script[0][1]}))
        assert json.loads(socket.recv()) == {"status": 409, "error": "version_conflict"}
        socket.close()
    finally:
        servers.close()


def test_the_peer_bench_pins_its_node_side_exactly():
    """``tests.bench.peer`` compares with one boardgame.io: every package its Node side names is an
    exact version, and the lock file (what ``npm ci`` installs) holds those very versions."""
    import re
    from pathlib import Path

    folder = Path(__file__).parent / "bench" / "peer"
    package = json.loads((folder / "package.json").read_text())
    lock = json.loads((folder / "package-lock.json").read_text())["packages"]
    named = {**package["dependencies"], **package.get("overrides", {})}
    assert {"boardgame.io", "socket.io-client", "redis"} <= set(package["dependencies"])
    for name, version in named.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), (name, version)
    assert lock[""]["dependencies"] == package["dependencies"]
    for name, version in package["dependencies"].items():
        assert lock[f"node_modules/{name}"]["version"] == version, name
    for name, version in package.get("overrides", {}).items():
        installed = [p["version"] for path, p in lock.items() if path.endswith(f"node_modules/{name}")]
        assert installed and set(installed) == {version}, (name, installed)


def test_the_peer_bench_ratio_is_matchlog_over_boardgameio():
    """The peer bench's rates are moves over measured time across rounds, and its ratio is matchlog's
    rate over boardgame.io's: a side that made twice the moves in the same time is 2.0 x."""
    from types import SimpleNamespace

    from tests.bench.peer import _figures

    def side(moves: int, cpu_pct: float) -> dict:
        return {
            "latencies": [0.004] * (moves - 1) + [0.1],
            "errors": {},
            "elapsed": 5.0,
            "rate": moves / 5.0,
            "server_cpu_pct": cpu_pct,
            "client_cpu_pct": 10.0,
            "redis_cpu_pct": 5.0,
            "machine_busy_pct": 150.0,
            "cores": 2,
            "moves_per_match": 62.0,
            "setup_pct": 20.0,
            "moves": moves + 50,  # the warm-up's too
            "stored": moves + 50,
        }

    runs = {"bgio": [side(1000, 50.0), side(1000, 50.0)], "matchlog": [side(2000, 100.0), side(2000, 100.0)]}
    figures = {
        f.key: f.value for f in _figures(runs, SimpleNamespace(version="7"), 8, 2, 2, 5.0, False, 60.0)
    }
    assert figures["peer.bgio.per_s"] == 200 and figures["peer.matchlog.per_s"] == 400
    assert figures["peer.ratio"] == 2.0
    assert figures["peer.cpu_per_move_ratio"] == 1.0  # twice the CPU for twice the moves
    assert figures["peer.bgio.server_ms_per_move"] == 2.5  # half a core over 200 moves/s
    assert figures["peer.bgio.p99_ms"] == 4.0 and figures["peer.matchlog.p50_ms"] == 4.0
    assert figures["peer.bgio.stored"] == "2100 / 2100"


@pytest.mark.slow
def test_the_first_move_bench_plays_from_the_front_page_and_weighs_the_pages(capsys):
    """``tests.bench.first_move`` makes a real first move from ``/`` by pointing (its ``POST`` answered
    201) and prints its figures, the JSON line last."""
    from tests.bench import first_move
    from tests.browser.conftest import CHROMIUM

    if CHROMIUM is None:
        pytest.skip("no Chromium on this machine: install Debian's chromium package")
    assert first_move.main(["1"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["first_move.runs"] == 1 and figures["first_move.clicks"] >= 7
    assert 0 < figures["first_move.seconds"] < 120
    for page in ("front", "play", "cold_play"):
        assert figures[f"first_move.{page}_bytes"] > 10_000 and figures[f"first_move.{page}_requests"] > 5


def test_the_pairing_bench_plays_knockouts_and_an_arena_out():
    """``tests.bench.pairing``'s knockouts and arena, tiny: each log is one the service could have written
    (every entry applied as it was added), finished, and passes the audit ``matchlog replay`` runs."""
    from service.domain import tournaments
    from tests.bench import pairing

    for kind in tournaments.ELIMINATION:
        _, log = pairing.knockout(kind, 13)
        games = sum(e.type == "game_finished" for e in log)
        assert games == 12 if kind == "single_elimination" else games in (24, 25)
        assert tournaments.audit(log).finished and tournaments.fold(log).finished
    _, log = pairing.arena_log(20, 10, 40)
    report = tournaments.audit(log)
    assert report.finished and report.games >= 40 and report.rounds > 2
    figures = {f.key: f.value for f in pairing.knockout_figures(5) + pairing.arena_figures(8, 4, 10)}
    assert figures["tournament.single_elimination_5.entries"] == 1 + 5 + 3 + 4 + 1
    assert int(figures["tournament.arena_8.games"]) >= 10
