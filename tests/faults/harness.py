"""What the fault harness starts, drives and breaks, on loopback only.

- a ``LocalCluster`` (3 masters, 3 replicas, node timeout 1 s, AOF ``everysec``) for the matches, and an
  embedded Redis for the job queue (RQ cannot run on a cluster; no fault targets it);
- 2 API processes (``matchlog api``, one gunicorn worker each); the first reaches every node through a
  ``Proxy`` of its own (``tests.faults.api``), which a partition cuts;
- 2 rule workers (``matchlog worker``, every queue but the webhooks'), each in its own process group (a kill
  takes its job's children too), and a delivery worker (``--queues webhooks --no-rules``), as ``matchlog
  serve`` keeps deliveries from holding up scoring;
- client threads, each creating matches of every game in turn (with a platform key, so that they are
  listed, and seats of the platform's players, so that they are rated) and playing random legal actions to
  the end, as a careful client: a write that gets a 503 or a broken connection goes again with the same
  ``Idempotency-Key`` (through the other API process every other time), a bounded number of times; and
  asking for the analysis of every other match it finished;
- one fault per round, drawn from the seed (``FAULTS``), and a quiet spell after it.

Every request and answer goes to ``history.jsonl`` in the run's folder; when the rounds are over the
clients stop, the harness waits for the projections (bounded) and reads the final logs straight from the
cluster, with the analyses and the leaderboards the API serves, and ``checker.check`` reads it all.
Everything started is stopped on the way out, Ctrl-C included.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import queue
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service import processes
from service.application.stores import Stores
from service.config import Settings
from service.domain.errors import MatchNotFound
from service.domain.serverkey import new_secret
from service.games import GAMES as ENGINES
from service.store.embedded_redis import EmbeddedRedis
from service.store.jobqueue import KINDS, WEBHOOKS
from service.store.keys import Keys
from service.store.platforms import Platforms
from service.store.redis_client import connect
from tests.faults import checker
from tests.faults.proxy import Proxy
from tests.faults.receiver import Receiver
from tests.faults.web import NoAnswer, Web
from tests.redis_cluster import LocalCluster

ROOT = Path(__file__).resolve().parent.parent.parent

GAMES = {
    game_id: min(max(2, engine.info.min_players), engine.info.max_players)
    for game_id, engine in ENGINES.items()
}
"""Every game, with the seats its matches get (two where it may)."""

FAULTS = ("kill_master", "pause_master", "partition", "kill_worker", "restart_cluster", "two_at_once")
PAIRABLE = ("kill_master", "pause_master", "partition", "kill_worker")
"""What ``two_at_once`` draws two of (never two masters down at once: with 3 masters, one left cannot
elect a replica, and the cluster stays down until one is back; that is Redis's design, not a finding)."""

NODE_TIMEOUT_MS = 1000
PAUSE_S = 3.5
"""A paused master stays stopped this long: past the node timeout, long enough for its replica's election."""
PARTITION_S = 4.0
QUIET_S = 1.5
"""Load without a fault after each round."""
WRITE_ATTEMPTS = 30
"""How many times a write goes before the client gives up on it (its outcome then unknown to it)."""
RESEND = 0.1
"""How often a write with a final answer is sent once more with its key (through the other API process)."""
REQUEST_TIMEOUT = 10.0
PLAYERS = 8
"""The platform's players the clients seat (each match draws its seats' from them): their ratings interleave."""
SETTLE_S = 90.0
"""After the last round: how long the harness waits for the projections to catch up."""


@dataclasses.dataclass
class Options:
    rounds: int = 3
    seed: int = 1
    durability: str = "replicated"
    clients: int = 6
    folder: Path | None = None
    time_limit_s: float = 600.0
    keep: bool = False
    only: tuple[str, ...] = FAULTS
    settle_s: float = SETTLE_S


class History:
    """The run's history: one JSON object a line, written as it happens, and kept in memory."""

    def __init__(self, path: Path):
        self.path = path
        self._file = path.open("w")
        self._lock = threading.Lock()
        self.records: list[dict[str, Any]] = []
        self.began = time.monotonic()

    def now(self) -> float:
        return round(time.monotonic() - self.began, 4)

    def add(self, record: dict[str, Any]) -> None:
        with self._lock:
            self.records.append(record)
            self._file.write(json.dumps(record, separators=(",", ":")) + "\n")

    def close(self) -> None:
        with self._lock:
            self._file.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Stack:
    """The processes of a run: started by ``start``, every one stopped by ``stop`` (idempotent)."""

    def __init__(self, options: Options, folder: Path):
        self.options = options
        self.folder = folder
        self.secret = new_secret()
        self.namespace = "faults"
        self.cluster: LocalCluster | None = None
        self.jobs: EmbeddedRedis | None = None
        self.proxies: dict[int, Proxy] = {}
        self.apis: list[subprocess.Popen] = []
        self.api_ports: list[int] = []
        self.workers: list[subprocess.Popen | None] = [None, None]
        self.delivering: subprocess.Popen | None = None
        self._logs: list[Any] = []

    @property
    def settings(self) -> Settings:
        return Settings(
            namespace=self.namespace,
            durability=self.options.durability,
            secret_key=self.secret,
            rq_redis_url=self.jobs.url if self.jobs else None,
        )

    def env(self, **extra: str) -> dict[str, str]:
        assert self.jobs is not None
        return {
            **os.environ,
            "PYTHONPATH": str(ROOT),  # the processes run in the run's folder, on this checkout's code
            "RQ_REDIS_URL": self.jobs.url,
            "MATCHLOG_NAMESPACE": self.namespace,
            "MATCHLOG_SECRET_KEY": self.secret,
            "MATCHLOG_DURABILITY": self.options.durability,
            "MATCHLOG_RATE_LIMIT_PER_TOKEN": "off",
            "MATCHLOG_RATE_LIMIT_PER_ADDRESS": "off",
            "MATCHLOG_RATE_LIMIT_READS_PER_ADDRESS": "off",
            "MATCHLOG_CLAIM_IDLE_MS": "1000",
            "MATCHLOG_PARTITION_LEASE_MS": "2000",
            "MATCHLOG_SNAPSHOT_EVERY": "4",
            "MATCHLOG_WEBHOOKS_PRIVATE": "true",  # the receiver is on loopback
            "MATCHLOG_WEBHOOK_DISABLE_AFTER": "0",
            **extra,
        }

    def start(self) -> None:
        self.cluster = LocalCluster(node_timeout_ms=NODE_TIMEOUT_MS, base_dir=str(self.folder)).start()
        self.jobs = EmbeddedRedis(self.folder / "jobs").start()
        self.proxies = {port: Proxy(port).start() for port in self.cluster.nodes}
        first = self.cluster.master_ports()[0]
        for index in range(2):
            port = free_port()
            data = self.folder / f"api-{index}"
            data.mkdir()
            if index == 0:  # through the proxies
                url = f"redis+cluster://127.0.0.1:{self.proxies[first].port}"
                extra = {"FAULTS_REMAP": json.dumps({str(p): x.port for p, x in self.proxies.items()})}
                command = [sys.executable, "-m", "tests.faults.api", "--port", str(port)]
            else:
                url, extra = f"redis+cluster://127.0.0.1:{first}", {}
                command = [sys.executable, "-m", "service.cli", "api", "--port", str(port), "--workers", "1"]
            self.apis.append(
                self._spawn(command, f"api-{index}", REDIS_URL=url, MATCHLOG_DATA=str(data), **extra)
            )
            self.api_ports.append(port)
        for index in range(2):
            self.start_worker(index)
        assert self.cluster is not None
        (self.folder / "delivering").mkdir()
        self.delivering = self._spawn(
            [sys.executable, "-m", "service.cli", "worker", "--queues", WEBHOOKS, "--no-rules"],
            "delivering",
            REDIS_URL=self.cluster.startup_url,
            MATCHLOG_DATA=str(self.folder / "delivering"),
        )
        deadline = time.monotonic() + 90
        for port in self.api_ports:
            while not _answers(port, "/readyz"):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the API on port {port} is not ready; see {self.folder}")
                time.sleep(0.2)

    def _spawn(self, command: list[str], name: str, **env: str) -> subprocess.Popen:
        log = (self.folder / f"{name}.log").open("ab")
        self._logs.append(log)
        return processes.start(
            command,
            env=self.env(**env),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: a kill takes a job's children with it
            cwd=self.folder,
        )

    def start_worker(self, index: int) -> None:
        assert self.cluster is not None
        data = self.folder / f"worker-{index}"
        data.mkdir(exist_ok=True)
        self.workers[index] = self._spawn(
            [
                sys.executable,
                "-m",
                "service.cli",
                "worker",
                "--queues",
                ",".join(k for k in KINDS if k != WEBHOOKS),
            ],
            f"worker-{index}",
            REDIS_URL=self.cluster.startup_url,
            MATCHLOG_DATA=str(data),
        )

    def kill_worker(self, index: int) -> None:
        worker = self.workers[index]
        if worker is not None and worker.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()

    def stop(self) -> None:
        for proxy in self.proxies.values():
            proxy.heal()
        processes.stop(*self.apis, *self.workers, self.delivering, timeout=10)
        for proxy in self.proxies.values():
            proxy.stop()
        if self.cluster is not None:
            for node in self.cluster.nodes.values():  # a paused node takes no SIGKILL until resumed
                if node.alive():
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(node.process.pid, signal.SIGCONT)
            self.cluster.stop(remove=not self.options.keep)
        if self.jobs is not None:
            self.jobs.stop()
        for log in self._logs:
            log.close()


def _answers(port: int, path: str) -> bool:
    try:
        return Web(port, timeout=1).request("GET", path)[0] == 200
    except NoAnswer:
        return False


# -- clients ------------------------------------------------------------------------------------------


class Client(threading.Thread):
    """Plays matches of every game in turn, one at a time, as a careful client does."""

    def __init__(self, index: int, ports: list[int], platform_key: str, history: History, seed: int):
        super().__init__(daemon=True, name=f"client-{index}")
        self.index, self.ports, self.platform_key, self.history = index, ports, platform_key, history
        self.rng = random.Random(f"{seed}:{index}")
        self.web = [Web(port, timeout=REQUEST_TIMEOUT) for port in ports]
        self.stop = threading.Event()
        self.errors: list[str] = []

    def run(self) -> None:
        games = list(GAMES)
        played = 0
        while not self.stop.is_set():
            try:
                game = games[(self.index + played) % len(games)]
                played += 1
                created = self.create(game)
                if created is not None and self.play(*created) and played % 2:
                    # one finished match in two of each client's: its analysis, which the checker redoes
                    self.write(
                        "analyse", f"/v1/matches/{created[0]}/analysis", created[0], self.platform_key, {}
                    )
            except Exception as error:  # reported by the harness; a client bug, not the server's
                self.errors.append(repr(error))
                time.sleep(0.5)

    def close(self) -> None:
        for web in self.web:
            web.close()

    def call(
        self,
        op: str,
        method: str,
        path: str,
        match: str | None,
        attempt: int = 0,
        key: str | None = None,
        token: str | None = None,
        body: dict[str, Any] | None = None,
        resend: bool = False,
    ) -> tuple[int | None, dict[str, Any] | None, dict[str, str]]:
        """One request, recorded; (status or None on a broken connection, JSON body, headers)."""
        api = (self.index + attempt) % len(self.ports)
        headers = {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if key:
            headers["Idempotency-Key"] = key
        record: dict[str, Any] = {
            "t0": self.history.now(),
            "client": self.index,
            "op": op,
            "match": match,
            "key": key,
            "attempt": attempt,
            "api": api,
        }
        if resend:
            record["resend"] = True
        if body is not None and "expected_version" in body:
            record["expected"] = body["expected_version"]
        status: int | None = None
        answer: Any = None
        answer_headers: dict[str, str] = {}
        try:
            status, answer, answer_headers = self.web[api].request(method, path, body, headers)
        except NoAnswer as error:
            record["error"] = str(error)
        record.update(t1=self.history.now(), status=status)
        if isinstance(answer, dict):
            if "error" in answer:
                record["reason"] = answer["error"]
            if isinstance(answer.get("version"), int):
                record["version"] = answer["version"]
            if op == "act" and status == 201:
                record["events"] = answer.get("events", [])
            if op == "create" and status == 201:
                record["match"] = answer.get("id")
        if status is not None and status >= 500:
            record["retry_after"] = answer_headers.get("Retry-After")
        self.history.add(record)
        return status, answer, answer_headers

    def write(
        self, op: str, path: str, match: str | None, token: str | None, body: dict[str, Any]
    ) -> tuple[int | None, dict[str, Any] | None]:
        """A write retried with its key on 503 or a broken connection; (final status or None, body)."""
        key = uuid.uuid4().hex
        for attempt in range(WRITE_ATTEMPTS):
            status, answer, headers = self.call(op, "POST", path, match, attempt, key, token, body)
            if status is not None and status != 503 and status < 500:
                if self.rng.random() < RESEND:  # as a client that lost the answer: the same answer again
                    self.call(op, "POST", path, match, attempt + 1, key, token, body, resend=True)
                return status, answer
            if self.stop.is_set() and attempt >= 3:
                break
            wait = float(headers.get("Retry-After", 0) or 0) if status == 503 else 0.2
            time.sleep(min(max(wait, 0.1), 1.0) * (1 + self.rng.random()))
        self.history.add(
            {"t0": self.history.now(), "client": self.index, "op": "gave_up", "match": match, "key": key}
        )
        return None, None

    def read(self, op: str, path: str, match: str, token: str | None = None) -> dict[str, Any] | None:
        for attempt in range(WRITE_ATTEMPTS):
            status, answer, _ = self.call(op, "GET", path, match, attempt, token=token)
            if status == 200:
                return answer
            if status is not None and status < 500 and status != 429:
                return None
            if self.stop.is_set():
                return None
            time.sleep(0.2 * (1 + self.rng.random()))
        return None

    def create(self, game: str) -> tuple[str, list[str]] | None:
        players = [
            {"name": f"p{seat}", "player": f"u{player}"}
            for seat, player in enumerate(self.rng.sample(range(PLAYERS), GAMES[game]))
        ]  # platform players' seats: the match is rated once scored
        status, answer = self.write(
            "create", "/v1/matches", None, self.platform_key, {"game": game, "players": players}
        )
        if status != 201 or answer is None:
            return None
        return answer["id"], [seat["token"] for seat in answer["seats"]]

    def play(self, match_id: str, tokens: list[str]) -> bool:
        """Whether the match was played to its end."""
        while not self.stop.is_set():
            match = self.read("get_match", f"/v1/matches/{match_id}", match_id)
            if match is None:
                return False
            if match.get("status") != "active" or not match.get("to_act"):
                return match.get("status") == "finished"
            seat = match["to_act"][0]
            listing = self.read(
                "legal", f"/v1/matches/{match_id}/legal-actions", match_id, token=tokens[seat]
            )
            if listing is None or not listing.get("actions"):
                continue
            body = {"expected_version": listing["version"], "action": self.rng.choice(listing["actions"])}
            self.write("act", f"/v1/matches/{match_id}/actions", match_id, tokens[seat], body)
        return False


# -- faults -------------------------------------------------------------------------------------------


class Faults:
    """The faults, each run to its end (the node restarted, the partition healed) before it returns."""

    def __init__(self, stack: Stack, rng: random.Random, history: History):
        self.stack, self.rng, self.history = stack, rng, history
        assert stack.cluster is not None
        self.cluster = stack.cluster
        self._owner = threading.current_thread()
        self._starts: queue.Queue[tuple[Callable[[], None], threading.Event]] = queue.Queue()

    def _by_owner(self, start: Callable[[], None]) -> None:
        """Start a process in the thread that runs the rounds: a process started with
        ``processes.start`` is sent SIGTERM when the *thread* that started it ends (``PR_SET_PDEATHSIG``
        follows the thread), so a worker that ``two_at_once``'s thread restarted stopped with that thread,
        and the run went on with one rule worker."""
        if threading.current_thread() is self._owner:
            start()
            return
        done = threading.Event()
        self._starts.put((start, done))
        done.wait()

    def run(self, round_no: int, kind: str) -> dict[str, Any]:
        began = self.history.now()
        if kind == "two_at_once":
            first = self.rng.choice(PAIRABLE)
            second = self.rng.choice(
                [k for k in PAIRABLE if k != first and {first, k} != {"kill_master", "pause_master"}]
            )
            masters = self.rng.sample(self.cluster.master_ports(), 2)
            details: list[dict[str, Any]] = [{}, {}]
            threads = [
                threading.Thread(target=lambda i=i, k=k: details.__setitem__(i, self.one(k, masters[i])))
                for i, k in enumerate((first, second))
            ]
            for thread in threads:
                thread.start()
            while any(thread.is_alive() for thread in threads):  # what they start, started here
                with contextlib.suppress(queue.Empty):
                    start, done = self._starts.get(timeout=0.05)
                    try:
                        start()
                    finally:
                        done.set()
            for thread in threads:
                thread.join()
            detail: dict[str, Any] = {"kinds": [first, second], "each": details}
        else:
            detail = self.one(kind, self.rng.choice(self.cluster.master_ports()))
        record = {"fault": kind, "round": round_no, "t0": began, "t1": self.history.now(), **detail}
        self.history.add(record)
        return record

    def one(self, kind: str, master: int) -> dict[str, Any]:
        return getattr(self, kind)(master)

    def kill_master(self, port: int) -> dict[str, Any]:
        self.cluster.kill(port)
        promoted = self.cluster.wait_promoted(port, timeout=30)
        time.sleep(0.5)
        self.cluster.restart(port, timeout=60)
        return {"node": port, "promoted": promoted}

    def pause_master(self, port: int) -> dict[str, Any]:
        node = self.cluster.nodes[port]
        assert node.process is not None
        os.kill(node.process.pid, signal.SIGSTOP)
        try:
            time.sleep(PAUSE_S)
        finally:
            os.kill(node.process.pid, signal.SIGCONT)
        self.healthy()
        return {"node": port, "paused_s": PAUSE_S, "failed_over": port not in self.cluster.master_ports()}

    def partition(self, port: int) -> dict[str, Any]:
        proxy = self.stack.proxies[port]
        proxy.cut()
        try:
            time.sleep(PARTITION_S)
        finally:
            proxy.heal()
        return {"node": port, "api": 0, "cut_s": PARTITION_S}

    def kill_worker(self, _master: int) -> dict[str, Any]:
        index = self.rng.randrange(len(self.stack.workers))
        self.stack.kill_worker(index)
        time.sleep(0.5)
        self._by_owner(lambda: self.stack.start_worker(index))
        return {"worker": index}

    def restart_cluster(self, _master: int) -> dict[str, Any]:
        for node in self.cluster.nodes.values():
            node.kill()
        for port in self.cluster.nodes:
            node = self.cluster.nodes[port]
            node.process = subprocess.Popen(
                [self.cluster.binary, str(node.dir / "redis.conf")],
                cwd=node.dir,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        self.healthy()
        return {"nodes": len(self.cluster.nodes)}

    def healthy(self, timeout: float = 60.0) -> None:
        """Until every node is up, in one view, every master with an online replica."""
        cluster = self.cluster
        cluster._until(
            time.monotonic() + timeout,
            "the cluster healthy again",
            lambda: cluster._healthy() and cluster._views_agree(),
            interval=0.1,
        )


# -- the run ------------------------------------------------------------------------------------------


def schedule(rounds: int, seed: int, only: tuple[str, ...] = FAULTS) -> list[str]:
    """The faults of the run, one a round, from the seed: every kind (of ``only``) in turn shuffled, so
    that a short run has as many kinds as rounds."""
    rng = random.Random(seed)
    kinds: list[str] = []
    while len(kinds) < rounds:
        batch = list(only)
        rng.shuffle(batch)
        kinds += batch
    return kinds[:rounds]


def run(options: Options, tell: Any = None) -> dict[str, Any]:
    """One run of the harness; its summary (and the checker's anomalies). ``tell`` (default: print) is told
    of its progress, a line at a time."""
    began = time.monotonic()
    tell = tell or functools.partial(print, flush=True)

    def say(text: str) -> None:
        tell(f"{time.monotonic() - began:6.1f} s {text}")

    folder = options.folder or Path(tempfile.mkdtemp(prefix="matchlog-faults-", dir="/tmp"))
    folder.mkdir(parents=True, exist_ok=True)
    started_at = time.time()
    deadline = time.monotonic() + options.time_limit_s
    history = History(folder / "history.jsonl")
    stack = Stack(options, folder)
    clients: list[Client] = []
    receiver: Receiver | None = None
    previous = signal.getsignal(signal.SIGTERM)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, signal.default_int_handler)  # stopped as Ctrl-C stops it
    faults_run: list[dict[str, Any]] = []
    try:
        stack.start()
        say(f"cluster, 2 API processes, 3 workers up in {folder} ({options.durability})")
        store = connect(stack.cluster.startup_url) if stack.cluster else None
        assert store is not None
        platform, platform_key = Platforms(store, Keys(stack.namespace)).create("faults")
        receiver = Receiver(folder / "deliveries.jsonl").start()
        hook(stack.api_ports[1], platform_key, receiver.port)
        clients = [
            Client(i, stack.api_ports, platform_key, history, options.seed) for i in range(options.clients)
        ]
        for client in clients:
            client.start()
        time.sleep(QUIET_S * 2)
        faults = Faults(stack, random.Random(f"{options.seed}:targets"), history)
        for round_no, kind in enumerate(schedule(options.rounds, options.seed, options.only), start=1):
            if time.monotonic() > deadline:
                say(f"time limit reached after {round_no - 1} rounds")
                break
            record = faults.run(round_no, kind)
            faults_run.append(record)
            say(f"round {round_no} {kind} {_short(record)} ({record['t1'] - record['t0']:.1f} s)")
            time.sleep(QUIET_S)
        for client in clients:
            client.stop.set()
        for client in clients:
            client.join(timeout=60)
            client.close()
        say("clients stopped")
        faults.healthy()
        final = settle_and_collect(stack, history, (platform, platform_key), receiver, say, options.settle_s)
    finally:
        for client in clients:
            client.stop.set()
        if receiver is not None:
            receiver.stop()
        history.close()
        stack.stop()
        say("everything stopped")
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, previous)
    anomalies = checker.check(history.records, final)
    summary = {
        "seed": options.seed,
        "rounds": len(faults_run),
        "durability": options.durability,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started_at)),
        "seconds": round(time.time() - started_at, 1),
        "faults": checker.count_faults(history.records),
        "operations": checker.count_operations(history.records),
        "matches": len(final["matches"]),
        "matches_finished": sum(
            any(e["type"] == "seed_revealed" for e in m["log"]) for m in final["matches"].values()
        ),
        "anomalies": checker.count(anomalies),
        "anomaly_examples": [  # the first three of each kind
            dataclasses.asdict(a)
            for kind in checker.KINDS
            for a in [a for a in anomalies if a.kind == kind][:3]
        ],
        "client_errors": [e for c in clients for e in c.errors][:20],
        "folder": str(folder),
    }
    (folder / "summary.json").write_text(json.dumps(summary, indent=2))
    (folder / "anomalies.json").write_text(json.dumps([dataclasses.asdict(a) for a in anomalies], indent=1))
    if not options.keep and not anomalies and options.folder is None:
        shutil.rmtree(folder, ignore_errors=True)
    return summary


def _short(record: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in record.items() if k not in ("fault", "round", "t0", "t1")})


def hook(port: int, platform_key: str, receiver_port: int) -> None:
    """The platform's webhook for every entry type (``checker.WEBHOOK_TYPES``), to the receiver."""
    body = {"url": f"http://127.0.0.1:{receiver_port}/hook", "events": sorted(checker.WEBHOOK_TYPES)}
    web = Web(port)
    for _ in range(20):
        status, answer, _ = web.request(
            "POST", "/v1/webhooks", body, {"Authorization": f"Bearer {platform_key}"}
        )
        if status == 201:
            return
        time.sleep(0.5)
    raise RuntimeError(f"the webhook was not registered: {status} {answer}")


def settle_and_collect(
    stack: Stack,
    history: History,
    platform: tuple[str, str],
    receiver: Receiver,
    say: Any,
    settle_s: float,
) -> dict[str, Any]:
    """Wait (bounded) until every finished match is scored, listed and delivered as the log says, then read
    it all."""
    assert stack.cluster is not None
    store = connect(stack.cluster.startup_url)
    stores = Stores.connect(store, stack.settings)
    created = sorted(
        {r["match"] for r in history.records if r.get("op") == "create" and r.get("status") == 201}
    )
    web = Web(stack.api_ports[1])
    deadline = time.monotonic() + settle_s
    while True:
        final = collect(stores, web, platform, created)
        delivered = receiver.of_match()
        for match_id, match in final["matches"].items():
            match["delivered"] = delivered.get(match_id, [])
        lagging = checker.projections_behind(final)
        pools = checker.ratings_behind(final)
        if not (lagging or pools) or time.monotonic() > deadline:
            break
        time.sleep(2.0)
    web.close()
    if lagging:  # what the next one to look needs: where the feed and the jobs stand
        (stack.folder / "diagnostics.json").write_text(
            json.dumps(diagnostics(stack, stores, lagging), indent=1)
        )
    say(
        f"{len(created)} matches collected; projections behind: {len(lagging)}; rating pools behind: {len(pools)}"
    )
    return final


def diagnostics(stack: Stack, stores: Stores, lagging: list[str]) -> dict[str, Any]:
    """The feed's partitions (length, the projector group's pending and last read entry), their owners and
    the live rule workers, the job queues' lengths, and which partition each match behind is in."""
    keys, store = stores.keys, stores.repository.redis
    partitions = {}
    for partition in range(keys.partitions):
        feed = keys.feed(partition)
        try:
            groups = [
                {k: (v.decode() if isinstance(v, bytes) else v) for k, v in group.items()}
                for group in store.xinfo_groups(feed)
            ]
        except Exception as error:  # no stream, no group: that is the finding
            groups = [{"error": repr(error)}]
        partitions[partition] = {"length": store.xlen(feed), "groups": groups}
    decode = lambda value: value.decode() if isinstance(value, bytes) else value  # noqa: E731
    return {
        "behind": {m: keys.partition(m) for m in lagging},
        "partitions": partitions,
        "owners": {decode(k): decode(v) for k, v in store.hgetall(keys.feed_owners).items()},
        "members": [[decode(m), s] for m, s in store.zrange(keys.feed_members, 0, -1, withscores=True)],
        "queues": {q.name: q.count for q in stores.jobs.queues()},
        "workers_alive": [w is not None and w.poll() is None for w in [*stack.workers, stack.delivering]],
    }


def collect(stores: Stores, web: Web, platform: tuple[str, str], match_ids: list[str]) -> dict[str, Any]:
    """The final logs (from the cluster), the snapshots, the seeds, what the API says of each match, and the
    ratings it serves with the rated matches they were applied from (``platform``: its id and key)."""
    platform_id, platform_key = platform
    listed: dict[str, dict[str, Any]] = {}
    for game in GAMES:
        cursor: str | None = None
        for _ in range(100):  # pages of 100: bounded
            params: dict[str, Any] = {"game": game, "limit": 100}
            if cursor:
                params["cursor"] = cursor
            page = web.get("/v1/matches", params=params, headers={"Authorization": f"Bearer {platform_key}"})
            listed.update({row["id"]: row for row in page["matches"]})
            cursor = page.get("next_cursor")
            if not cursor:
                break
    matches = {}
    for match_id in match_ids:
        shown = web.get(f"/v1/matches/{match_id}")
        matches[match_id] = final_of(stores, match_id, shown, listed.get(match_id))
        if shown.get("status") == "finished":
            matches[match_id]["analysis"] = _analysis(web, match_id)
    auth = {"Authorization": f"Bearer {platform_key}"}
    ratings = served_ratings(lambda path, params: web.get(path, params=params, headers=auth))
    pools = set(ratings) | set(checker.ratings_rebuilt({"matches": matches}))  # served, or that the logs make
    rated = {pool: stores.players.rated_matches(platform_id, pool) for pool in sorted(pools)}
    return {"matches": matches, "ratings": ratings, "rated": rated}


def _analysis(web: Web, match_id: str) -> dict[str, Any] | None:
    """The match's analysis as the API serves it; None when nobody asked for it (404)."""
    for attempt in range(10):
        with contextlib.suppress(NoAnswer):
            status, answer, _ = web.request("GET", f"/v1/matches/{match_id}/analysis")
            if status in (200, 404):
                return answer if status == 200 else None
        time.sleep(0.2 * (attempt + 1))
    raise RuntimeError(f"GET /v1/matches/{match_id}/analysis: no answer")


def served_ratings(get: Any) -> dict[str, dict[str, dict[str, Any]]]:
    """Every rating the platform's leaderboards serve, by pool and player (``get(path, params)``: a GET's
    JSON body, with the platform's key)."""
    served: dict[str, dict[str, dict[str, Any]]] = {}
    for game in sorted(GAMES):
        for pool in get(f"/v1/leaderboards/{game}", {})["pools"]:
            rows: dict[str, dict[str, Any]] = {}
            cursor = None
            for _ in range(100):  # pages of 100: bounded
                params = {"pool": pool, "limit": 100, **({"cursor": cursor} if cursor else {})}
                page = get(f"/v1/leaderboards/{game}", params)
                rows.update(
                    {r["player"]: {k: r[k] for k in ("mu", "sigma", "games")} for r in page["players"]}
                )
                cursor = page.get("next_cursor")
                if not cursor:
                    break
            served[pool] = rows
    return served


def final_of(
    stores: Stores, match_id: str, shown: dict[str, Any], listed: dict[str, Any] | None
) -> dict[str, Any]:
    """What the checker reads of one match (``checker``'s ``final``): its log (``match_created`` with its
    content pack in place, as the chain covers it), its seed while the store keeps it sealed, its
    snapshots, and what the API showed of it (``shown``: ``GET /v1/matches/{id}``; ``listed``: its row)."""
    try:
        _, log = stores.repository.read(match_id)
        meta = stores.repository.meta(match_id, fresh=True)
    except MatchNotFound:
        return {"log": [], "seed": None, "snapshots": {}, "shown": {}, "listed": None}
    raw = stores.repository.redis.hgetall(stores.keys.snapshots(match_id))
    return {
        "log": [e.as_dict() for e in log],
        "seed": [meta.secret.seed, meta.secret.salt] if meta.secret else None,
        "snapshots": {int(v): _snapshot_state(b) for v, b in raw.items()},
        "shown": {k: shown.get(k) for k in ("status", "version", "to_act", "result")},
        "listed": {k: listed.get(k) for k in ("status", "version")} if listed is not None else None,
    }


def _snapshot_state(raw: bytes) -> dict[str, Any]:
    from service.store import snapshots as snapshots_format

    return snapshots_format.decode(raw)["state"]
