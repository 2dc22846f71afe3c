"""``matchlog serve`` as the README runs it: no REDIS_URL, a data folder, real HTTP on loopback.

A match is played to the end over HTTP, the worker scores it on its own, and after a restart on the
same folder the match is still there."""

from __future__ import annotations

import contextlib
import http.client as http_client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from service.cli import port_refusal
from service.store.embedded_redis import EmbeddedRedis

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Http:
    def __init__(self, port: int, data: str | None = None):
        self.base = f"http://127.0.0.1:{port}"
        self.data = data  # the serve's data folder (its embedded Redis, for ``matchlog keys create --data``)

    def __call__(self, method, path, body=None, token=None):
        """The answer's status and body. A 429 of the per-second limits (``Retry-After`` of a second or
        two) is waited out and the request sent again, as a client should: the tests play whole matches
        from one address as fast as the server answers, which may be over 200 reads a second."""
        for _ in range(20):
            status, answer, retry_after = self._once(method, path, body, token)
            if status != 429 or not 0 < retry_after <= 2:
                break
            time.sleep(retry_after)
        return status, answer

    def _once(self, method, path, body, token) -> tuple[int, dict, float]:
        request = urllib.request.Request(
            self.base + path, method=method, data=None if body is None else json.dumps(body).encode()
        )
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read()), 0.0
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read()), float(error.headers.get("Retry-After") or 0)

    def play(self, match_id, tokens, rng, actions=None) -> dict:
        """Random legal moves, each by the seat to act, to the end or for ``actions`` moves; the match after."""
        played = 0
        while actions is None or played < actions:
            _, match = self("GET", f"/v1/matches/{match_id}")
            if match["status"] == "finished":
                return match
            seat = match["to_act"][0]
            _, legal = self("GET", f"/v1/matches/{match_id}/legal-actions", token=tokens[seat])
            status, answer = self(
                "POST",
                f"/v1/matches/{match_id}/actions",
                {"expected_version": legal["version"], "action": rng.choice(legal["actions"])},
                token=tokens[seat],
            )
            assert status == 201, answer
            played += 1
        return self("GET", f"/v1/matches/{match_id}")[1]


def serve_env(**extra_env) -> dict[str, str]:
    """The environment ``matchlog`` runs in as a newcomer runs it: no Redis, no namespace and no secret key
    given (it is made in the data folder), and ``extra_env``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("REDIS_URL", "MATCHLOG_NAMESPACE", "MATCHLOG_SECRET_KEY")
    }
    env.update(extra_env)
    return env


def start_serve(folder, port, *options, **extra_env):
    """A ``matchlog serve`` on ``port`` with its data in ``folder``, its command's ``options`` (``--workers``...)
    and ``extra_env``; its process and an ``Http`` to it once it answers."""
    env = serve_env(**extra_env)
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--data", folder, *options],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    http = Http(port, str(folder))
    # a bound against a hang, not a measure: on a loaded machine a serve took 40 s to answer
    deadline = time.monotonic() + 120
    while True:
        try:
            if http("GET", "/v1/games")[0] == 200:
                return process, http
        except OSError:  # not listening yet, or too busy to answer within the request's timeout
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            # stopped as a test stops it, so that its API, workers and Redis go too: killed alone, they
            # were left running for the rest of the suite
            stop_serve(process)
            raise AssertionError("matchlog serve did not come up")
        time.sleep(0.1)


def stop_serve(process):
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise


def test_serve_plays_scores_and_keeps_matches_across_restarts():
    folder = tempfile.mkdtemp(prefix="mls-", dir="/tmp")
    port = free_port()
    process, http = start_serve(folder, port)
    try:
        status, created = http(
            "POST", "/v1/matches", {"game": "blokus", "players": [{"name": n} for n in "abcd"]}
        )
        assert status == 201
        match_id, tokens = created["id"], [s["token"] for s in created["seats"]]
        match = http.play(match_id, tokens, random.Random(5))
        deadline = time.monotonic() + 60
        while "result" not in match:  # the worker scores the match by itself
            assert time.monotonic() < deadline, "the match was never scored"
            time.sleep(0.2)
            _, match = http("GET", f"/v1/matches/{match_id}")
        assert match["result"]["final"] is True
    finally:
        stop_serve(process)
    assert not EmbeddedRedis(folder).answers(), "serve stops the Redis it started"

    process, http = start_serve(folder, port)
    try:
        status, again = http("GET", f"/v1/matches/{match_id}")
        assert status == 200 and again == match
        assert os.stat(os.path.join(folder, "server.key")).st_mode & 0o077 == 0, "the key is its owner's only"
        # gunicorn's own limits are lifted: an over-long URL gets the API's 414, in its error shape
        status, body = http("GET", "/v1/games?x=" + "a" * 9000)
        assert status == 414 and body["error"] == "uri_too_long"
        # headers: gunicorn's own limits (it read 0 as 8190 bytes a field; 100 fields) lie above the API's 431
        for headers in ({"X-Long": "a" * 20_000}, {f"X-{i}": "b" for i in range(100)}):
            request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/games", headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=10) as answered:
                    status, body = answered.status, json.loads(answered.read())
            except urllib.error.HTTPError as error:
                status, body = error.code, json.loads(error.read())
            assert (status, isinstance(body, list) or body["error"]) in (
                (431, "request_header_fields_too_large"),
                (200, True),
            ), (status, body)
            assert (status == 431) == ("X-Long" in headers)
        for count in (
            200,
            300,
            5000,
        ):  # over the API's 128 fields, and over what gunicorn refused (200) in HTML
            raw = socket.create_connection(("127.0.0.1", port), timeout=10)
            raw.sendall(
                b"GET /v1/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                + b"".join(b"X-%d: y\r\n" % i for i in range(count))
                + b"\r\n"
            )
            answer = b""
            while chunk := raw.recv(65536):
                answer += chunk
            raw.close()
            head, _, body = answer.partition(b"\r\n\r\n")
            assert (
                head.startswith(b"HTTP/1.1 431")
                and json.loads(body)["error"] == "request_header_fields_too_large"
            )
        # a chunked body over the limit is a 413 too, not a cut-short body refused as broken JSON
        exact = json.dumps({"game": "blokus", "players": [{"name": "a"}, {"name": "b"}], "pad": ""}).encode()
        exact = exact.replace(b'"pad": ""', b'"pad": "' + b"x" * (65536 - len(exact)) + b'"')
        connection = http_client.HTTPConnection("127.0.0.1", port, timeout=10)  # exactly the limit, chunked
        connection.request(
            "POST",
            "/v1/matches",
            body=iter([exact]),
            encode_chunked=True,
            headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
        )
        answered = connection.getresponse()
        assert len(exact) == 65536 and json.loads(answered.read())["fields"] == {"pad": ["Unknown field."]}
        connection.close()
        big = [b'{"game": "blokus", "pad": "', b"x" * 70_000, b'"}']
        for chunked, (status, code) in (
            (True, (413, "request_entity_too_large")),
            (False, (400, "invalid_request")),
        ):
            connection = http_client.HTTPConnection(
                "127.0.0.1", port, timeout=10
            )  # unchunked: not the body it says
            connection.request(
                "POST",
                "/v1/matches",
                body=iter(big),
                encode_chunked=chunked,
                headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
            )
            answered = connection.getresponse()
            assert (answered.status, json.loads(answered.read())["error"]) == (status, code)
            connection.close()
        assert http("GET", "/healthz") == (200, {"status": "ok"})
        deadline = time.monotonic() + 60
        while (ready := http("GET", "/readyz"))[0] != 200:  # ready once serve's worker has beaten
            assert time.monotonic() < deadline, ready
            time.sleep(0.2)
        assert ready[1]["redis"] is True and ready[1]["workers"] >= 1
        # two gunicorn workers count on their own; a scrape adds them up (prometheus multiprocess mode)
        for _ in range(40):
            assert http("GET", "/v1/signing-key")[0] == 200
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as scraped:
            families = text_string_to_metric_families(scraped.read().decode())
            counts = {
                tuple(sorted(s.labels.items())): s.value
                for f in families
                for s in f.samples
                if s.name == "matchlog_requests_total"
            }
        assert counts[(("method", "GET"), ("route", "/v1/signing-key"), ("status", "200"))] == 40
        # the embedded Redis dies: serve starts it again from its append-only file, and all carries on
        redis_pid = redis.Redis(unix_socket_path=os.path.join(folder, "redis.sock")).info("server")[
            "process_id"
        ]
        os.kill(redis_pid, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while http("GET", "/readyz")[0] != 200:
            assert time.monotonic() < deadline, "serve never brought its Redis back"
            time.sleep(0.2)
        assert http("GET", f"/v1/matches/{match_id}") == (200, match)
        status, created = http("POST", "/v1/matches", {"game": "blokus", "players": [{"bot": "random"}] * 2})
        deadline = time.monotonic() + 60
        while http("GET", f"/v1/matches/{created['id']}")[1]["status"] != "finished":  # the worker carried on
            assert time.monotonic() < deadline, "the worker did not carry on after Redis came back"
            time.sleep(0.2)
    finally:
        stop_serve(process)
        shutil.rmtree(folder, ignore_errors=True)


def test_serve_on_a_busy_port_exits_at_once_with_one_line():
    folder = tempfile.mkdtemp(prefix="mls-", dir="/tmp")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--data", folder],
            capture_output=True,
            text=True,
            timeout=60,
        )
    shutil.rmtree(folder, ignore_errors=True)
    assert done.returncode != 0 and time.monotonic() - started < 30
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"cannot serve on 127.0.0.1:{port}" in lines[0] and "in use" in lines[0]
    assert not EmbeddedRedis(folder).answers(), "nothing was started"


def test_serve_killed_outright_takes_its_api_and_worker_with_it():
    """SIGKILL (the OOM killer, say) gives serve no chance to stop its children: the kernel does (Linux's
    parent-death signal), so the port is free for the next start."""
    folder = tempfile.mkdtemp(prefix="mls-", dir="/tmp")
    port = free_port()
    process, http = start_serve(folder, port)
    try:
        process.kill()
        process.wait(timeout=10)
        deadline = time.monotonic() + 30
        while port_refusal("127.0.0.1", port):
            assert time.monotonic() < deadline, "serve's API outlived it"
            time.sleep(0.2)
        assert EmbeddedRedis(folder).answers()  # its Redis outlived it (its own session, its data safe)
        process, http = start_serve(folder, port)  # the same folder: that Redis is joined, and adopted
        assert http("GET", "/v1/games")[0] == 200
        orphan = int(Path(folder, "redis.pid").read_text())
        os.kill(orphan, signal.SIGKILL)  # the adopted Redis dies in turn: serve starts it again, as its own
        deadline = time.monotonic() + 30
        while (
            http("POST", "/v1/matches", {"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]})[0]
            != 201
        ):
            assert time.monotonic() < deadline, "serve did not start the adopted Redis again"
            time.sleep(0.5)
        assert int(Path(folder, "redis.pid").read_text()) != orphan
        stop_serve(process)
        assert not EmbeddedRedis(folder).answers(), "the serve that adopted the orphaned Redis stops it"
        assert not os.path.exists(os.path.join(folder, "serve.pid"))
    finally:
        if process.poll() is None:
            stop_serve(process)
        with contextlib.suppress(redis.exceptions.RedisError):
            redis.Redis(unix_socket_path=os.path.join(folder, "redis.sock")).shutdown(nosave=True)
        shutil.rmtree(folder, ignore_errors=True)


def test_a_second_serve_on_a_folder_in_use_is_refused():
    """Two serves on one folder would share its Redis, and the first to stop would stop it under the other."""
    folder = tempfile.mkdtemp(prefix="mls-", dir="/tmp")
    process, http = start_serve(folder, free_port())
    try:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("REDIS_URL", "MATCHLOG_NAMESPACE", "MATCHLOG_SECRET_KEY")
        }
        second = subprocess.run(
            [sys.executable, "-m", "service.cli", "serve", "--port", str(free_port()), "--data", folder],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 1 and f"another matchlog serve (pid {process.pid})" in second.stderr, (
            second.stderr
        )
        assert http("GET", "/v1/games")[0] == 200  # the first serves on
    finally:
        stop_serve(process)
        shutil.rmtree(folder, ignore_errors=True)


def _mode(folder, *name):
    return os.stat(os.path.join(folder, *name)).st_mode & 0o777


def test_the_data_folder_and_the_append_only_file_are_the_servers_user_s_only():
    """The append-only file holds every hand and plan in clear: no other local user may read it, nor the
    folder; a folder left readable by an older version is closed again on start."""
    folder = tempfile.mkdtemp(prefix="mls-", dir="/tmp")
    os.chmod(folder, 0o755)  # as a plain mkdir under umask 022 makes it
    port = free_port()
    old_umask = os.umask(0o022)  # serve's children inherit a permissive umask: the fix must not rely on it
    try:
        process, http = start_serve(folder, port)
    finally:
        os.umask(old_umask)
    try:
        assert (
            http("POST", "/v1/matches", {"game": "blokus", "players": [{"name": "a"}, {"name": "b"}]})[0]
            == 201
        )
        assert _mode(folder) == 0o700
        for name in ("appendonly.aof", "redis.log", "redis.conf", "redis.pid", "serve.pid", "server.key"):
            assert _mode(folder, name) == 0o600, name
        stop_serve(process)
        os.chmod(folder, 0o755)  # what a server from before left behind
        os.chmod(os.path.join(folder, "appendonly.aof"), 0o644)
        process, http = start_serve(folder, port)
        assert _mode(folder) == 0o700 and _mode(folder, "appendonly.aof") == 0o600
    finally:
        if process.poll() is None:
            stop_serve(process)
        shutil.rmtree(folder, ignore_errors=True)
