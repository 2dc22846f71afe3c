"""``python -m tests.bench.request_head [MIB]``: what an oversized or slow request head costs the API.

One ``matchlog api`` (gunicorn, two gevent workers, the default settings) on a real Redis (``REDIS_URL``,
else an embedded one). Sent on loopback, one at a time: a request line of MIB MiB (default 8), a header
block of MIB MiB (fields of 1 KiB), four connections sending heads of MIB + 2 MiB one after another while
``GET /v1/signing-key`` is timed on another connection, and a head that arrives a byte a second. For each:
what the server answered, the wall time until it answered or closed, the API workers' CPU
(``/proc/<pid>/schedstat``; a worker gunicorn killed meanwhile is counted, and its CPU is missing) and how
much of the head the client could send; and the workers' peak memory. Prints a table and, last, one JSON
line.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import sys
import threading
import time

from tests.bench.api import HOST, Servers
from tests.bench.common import Figure, json_figures, machine, table

MIB = 1024 * 1024
SLOW_WAIT = 60.0  # seconds a byte-a-second head is watched before it counts as never closed


def cpu_ns(pids: list[int]) -> int:
    """CPU the processes ran, in nanoseconds (``schedstat``: finer than ``stat``'s 10 ms ticks)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/schedstat", encoding="ascii") as f:
                total += int(f.read().split()[0])
        except (OSError, IndexError, ValueError):
            pass
    return total


def peak_kib(pids: list[int]) -> int:
    """The largest peak resident size (VmHWM) among the processes, in KiB."""
    peak = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except OSError:
            pass
    return peak


class Sent:
    """One connection sending ``head`` as fast as the server takes it, while its answer is read."""

    def __init__(self, port: int, head: bytes, pace: float = 0.0, chunk: int = 64 * 1024):
        self.sock = socket.create_connection((HOST, port), timeout=300)
        self.head, self.pace, self.chunk = head, pace, chunk
        self.sent = 0
        self.started = time.perf_counter()
        self.sender = threading.Thread(target=self._send, daemon=True)
        self.sender.start()

    def _send(self) -> None:
        try:
            for at in range(0, len(self.head), self.chunk):
                self.sock.sendall(self.head[at : at + self.chunk])
                self.sent = at + len(self.head[at : at + self.chunk])
                if self.pace:
                    time.sleep(self.pace)
        except OSError:  # refused: the server closed the connection
            pass

    def answer(self, wait: float) -> tuple[str, float]:
        """The status line the server answered (or how it closed) and the seconds until then."""
        self.sock.settimeout(wait)
        got = b""
        try:
            while b"\r\n" not in got:
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                got += chunk
        except TimeoutError:
            return "not closed", time.perf_counter() - self.started
        except OSError as error:
            return f"reset ({error.__class__.__name__})", time.perf_counter() - self.started
        finally:
            elapsed = time.perf_counter() - self.started
        line = got.split(b"\r\n", 1)[0].decode("latin-1")
        return (line[9:] if line else "closed, no answer"), elapsed

    def close(self) -> None:
        self.sender.join(timeout=5)
        if self.sender.is_alive():  # still pacing its bytes: end its send
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)
            self.sender.join()
        self.sock.close()


def long_line(size: int) -> bytes:
    return b"GET /v1/games?x=" + b"a" * size + b" HTTP/1.1\r\nHost: bench\r\n\r\n"


def long_headers(size: int) -> bytes:
    field = b"X-Pad-%06d: " + b"b" * 1000 + b"\r\n"
    fields = b"".join(field % i for i in range(size // len(field % 0)))
    return b"GET /v1/games HTTP/1.1\r\nHost: bench\r\n" + fields + b"\r\n"


def _one(servers: Servers, name: str, label: str, head: bytes, pace: float = 0.0, chunk: int = 64 * 1024):
    pids = servers.api_worker_pids()
    before = cpu_ns(pids)
    sent = Sent(servers.port, head, pace, chunk)
    answered, seconds = sent.answer(SLOW_WAIT if pace else 300)
    sent.close()
    time.sleep(0.2)  # the worker's last reads and its close
    return [
        Figure(f"{name}.answer", f"{label}: answer", answered),
        Figure(
            f"{name}.workers_killed",
            f"{label}: API workers killed meanwhile",
            _gone(servers, pids),
            "workers",
        ),
        Figure(f"{name}.wall_s", f"{label}: wall time until answered or closed", seconds, "s"),
        Figure(f"{name}.worker_cpu_ms", f"{label}: API workers' CPU", (cpu_ns(pids) - before) / 1e6, "ms"),
        Figure(
            f"{name}.sent_kib",
            f"{label}: head the client could send (into the socket buffers too)",
            sent.sent // 1024,
            "KiB",
        ),
    ]


def _gone(servers: Servers, pids: list[int]) -> int:
    """How many of ``pids`` are no longer API workers (gunicorn's master kills one silent for 30 s; its CPU
    is then missing from the figures)."""
    return len(set(pids) - set(servers.api_worker_pids()))


def _signing_key_ms(port: int) -> float:
    connection = http.client.HTTPConnection(HOST, port, timeout=300)
    begin = time.perf_counter()
    connection.request("GET", "/v1/signing-key")
    answer = connection.getresponse()
    answer.read()
    connection.close()
    assert answer.status == 200, answer.status
    return (time.perf_counter() - begin) * 1000


def _crowd(servers: Servers, size: int) -> list[Figure]:
    """``GET /v1/signing-key`` (the slowest of five in a row) while four connections send heads of ``size``,
    each sending the next as soon as the last is answered."""
    pids = servers.api_worker_pids()
    idle = max(_signing_key_ms(servers.port) for _ in range(5))
    done = threading.Event()
    refused: list[str] = []

    def attack() -> None:
        while not done.is_set():
            sent = Sent(servers.port, long_line(size))
            refused.append(sent.answer(300)[0])
            sent.close()

    before = cpu_ns(pids)
    started = time.perf_counter()
    attackers = [threading.Thread(target=attack, daemon=True) for _ in range(4)]
    for attacker in attackers:
        attacker.start()
    time.sleep(0.3)  # the heads are arriving
    loaded = max(_signing_key_ms(servers.port) for _ in range(5))
    done.set()
    for attacker in attackers:
        attacker.join()
    seconds = time.perf_counter() - started
    time.sleep(0.2)
    return [
        Figure("crowd.signing_key_ms_idle", "GET /v1/signing-key, slowest of 5, nothing else", idle, "ms"),
        Figure(
            "crowd.signing_key_ms_loaded",
            f"GET /v1/signing-key, slowest of 5, 4 connections sending {size // MIB} MiB heads",
            loaded,
            "ms",
        ),
        Figure("crowd.heads", "heads of the 4 connections answered meanwhile", len(refused), "heads"),
        Figure("crowd.answers", "their answers", ", ".join(sorted(set(refused)))),
        Figure("crowd.seconds", "the 4 connections' time, until their last head was answered", seconds, "s"),
        Figure("crowd.worker_cpu_ms", "their heads: API workers' CPU", (cpu_ns(pids) - before) / 1e6, "ms"),
        Figure("crowd.workers_killed", "API workers killed meanwhile", _gone(servers, pids), "workers"),
    ]


def measure(size_mib: int = 8) -> list[Figure]:
    servers = Servers(api_workers=2)
    try:
        pids = servers.api_worker_pids()
        for _ in range(5):
            _signing_key_ms(servers.port)
        rss_before = peak_kib(pids) / 1024
        before = cpu_ns(pids)
        for _ in range(100):
            _signing_key_ms(servers.port)
        small = (cpu_ns(pids) - before) / 100 / 1e9
        figures = [
            Figure("small.worker_cpu_ms", "a GET /v1/signing-key: API workers' CPU", small * 1000, "ms")
        ]
        figures += _one(servers, "line", f"request line of {size_mib} MiB", long_line(size_mib * MIB))
        figures += _one(servers, "headers", f"header block of {size_mib} MiB", long_headers(size_mib * MIB))
        figures += _crowd(servers, (size_mib + 2) * MIB)
        slow = b"GET /v1/games HTTP/1.1\r\nHost: bench\r\nX-Slow: " + b"c" * 200
        figures += _one(servers, "slow", "a head at a byte a second", slow, pace=1.0, chunk=1)
        figures += [
            Figure(
                "workers.peak_rss_mib_before", "API workers' peak resident size, before", rss_before, "MiB"
            ),
            Figure(
                "workers.peak_rss_mib", "API workers' peak resident size, after", peak_kib(pids) / 1024, "MiB"
            ),
        ]
        return figures
    finally:
        servers.close()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    size = int(argv[0]) if argv else 8
    about = machine()
    for f in about:
        print(f"{f.label}: {f.value}")
    figures = measure(size)
    print(table(figures))
    print(json.dumps(json_figures(about + figures), separators=(", ", ": ")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
