"""``python -m tests.bench.webhooks``: what a stalled receiver costs, and what one append's deliveries keep.

On a real Redis (``REDIS_URL``, else an embedded one in a temporary folder), in the default configuration
(``MATCHLOG_WEBHOOKS_PRIVATE`` aside, for the loopback receivers):

- how long one delivery attempt holds its delivery slot (a worker) against a loopback receiver that
  accepts and never answers, one that answers a byte every 0.2 s (it gives up after 30 s: the cap of this
  figure), and one whose listen queue is full (the connection never completes): the delivery job's wall
  and CPU time, one attempt each;
- the bytes in Redis (``MEMORY USAGE``) of the deliveries one ``match_created`` of a four-player Blackout
  match enqueues to 10 webhooks: the RQ jobs and the bodies they need.

Prints a table and, last, one JSON line.
"""

from __future__ import annotations

import dataclasses
import json
import os
import resource
import secrets
import socket
import tempfile
import threading
import time
import uuid
from pathlib import Path

from rq import SimpleWorker

from service.application.matches import Matches, NewMatch
from service.config import Settings
from service.store.jobqueue import WEBHOOKS, JobQueue
from service.store.keys import Keys
from service.store.platforms import Platforms
from service.store.redis_client import connect
from tests.bench.common import Figure, json_figures, machine, table
from workers.jobs import run_here
from workers.projector import Projector

DRIP_FOR_S = 30.0


def _silent(connection: socket.socket, closed: threading.Event) -> None:
    closed.wait()


def _drip(connection: socket.socket, closed: threading.Event) -> None:
    ends = time.monotonic() + DRIP_FOR_S
    try:
        for byte in b"HTTP/1.1 200 " + b"O" * 100_000:  # a status line that never ends
            if closed.wait(0.2) or time.monotonic() > ends:
                break
            connection.send(bytes([byte]))
    except OSError:
        pass
    connection.close()


class Peer:
    """A loopback listener: ``behave`` with each connection; None: a full listen queue, never accepted."""

    def __init__(self, behave=None):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(0)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/hook"
        self.closed = threading.Event()
        self.held: list[socket.socket] = []
        if behave is None:  # fill the queue, so that the next connection's handshake is never answered
            for _ in range(8):
                filler = socket.socket()
                filler.setblocking(False)
                filler.connect_ex(self.listener.getsockname())
                self.held.append(filler)
            return

        def serve() -> None:
            while not self.closed.is_set():
                try:
                    connection, _ = self.listener.accept()
                except OSError:
                    return
                self.held.append(connection)
                threading.Thread(target=behave, args=(connection, self.closed), daemon=True).start()

        threading.Thread(target=serve, daemon=True).start()

    def close(self) -> None:
        self.closed.set()
        self.listener.close()
        for held in self.held:
            held.close()


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(url: str) -> list[Figure]:
    redis_client = connect(url)
    settings = dataclasses.replace(
        Settings.from_env({}),
        namespace=f"webhooks-{uuid.uuid4().hex[:8]}",
        webhooks_private=True,
        secret_key=secrets.token_urlsafe(32),
    )
    matches = Matches(redis_client, settings)
    run_here(matches, redis_client)
    jobs = JobQueue(redis_client, Keys(settings.namespace))
    deliveries = jobs.queue(WEBHOOKS)
    platforms = Platforms(redis_client, Keys(settings.namespace))
    platform = platforms.of_key(platforms.create("bench")[1])["id"]
    figures: list[Figure] = []
    try:
        for label, behave in (("silent", _silent), ("drip", _drip), ("backlog", None)):
            peer = Peer(behave)
            hook = matches.stores.webhooks.register(platform, peer.url, ["placed"], None)["id"]
            deliveries.enqueue(
                "workers.jobs.deliver_webhook", hook, f"bench-{label}", "{}", settings.namespace
            )
            started, cpu = time.monotonic(), _cpu()
            SimpleWorker([deliveries], connection=redis_client).work(burst=True)
            wall, cpu = time.monotonic() - started, _cpu() - cpu
            peer.close()
            matches.stores.webhooks.remove(hook, platform)
            figures.append(
                Figure(
                    f"webhooks.slot_held_s.{label}",
                    f"one attempt, {label} receiver: slot held",
                    wall,
                    "s (wall)",
                )
            )
            figures.append(Figure(f"webhooks.cpu_s.{label}", f"one attempt, {label} receiver: CPU", cpu, "s"))
        hooks = [
            matches.stores.webhooks.register(platform, f"http://127.0.0.1:9/{n}", ["match_created"], None)[
                "id"
            ]
            for n in range(10)
        ]
        matches.create(NewMatch("blackout-hong-kong", [f"p{i}" for i in range(4)], {}, platform=platform))
        projector = Projector(matches, redis_client, consumer="bench", block_ms=10)
        while projector.step():
            pass
        job_keys = [k for hook in hooks for k in redis_client.scan_iter(match=f"rq:job:hook-{hook}-*")]
        body_keys = list(redis_client.scan_iter(match=f"{settings.namespace}:webhook-body:*"))
        sizes = [redis_client.memory_usage(k, samples=0) or 0 for k in job_keys + body_keys]
        figures.append(
            Figure("webhooks.match_created_jobs", "match_created to 10 webhooks: jobs", len(job_keys), "jobs")
        )
        figures.append(
            Figure(
                "webhooks.match_created_kb",
                "match_created to 10 webhooks: in Redis",
                sum(sizes) / 1024,
                "KB (jobs and bodies)",
            )
        )
    finally:
        for key in redis_client.scan_iter(match=f"{settings.namespace}:*"):
            redis_client.delete(key)
        for key in redis_client.scan_iter(match=f"rq:*{settings.namespace}*"):
            redis_client.delete(key)
        for key in redis_client.scan_iter(match="rq:job:hook-*"):
            redis_client.delete(key)
    return figures


def main() -> int:
    for f in machine():
        print(f"{f.label}: {f.value}")
    print()
    url, embedded = os.environ.get("REDIS_URL"), None
    if not url:
        from service.store.embedded_redis import EmbeddedRedis

        embedded = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="mlw-", dir="/tmp"))).start()
        url = embedded.url
    try:
        figures = measure(url)
    finally:
        if embedded is not None:
            embedded.stop()
    print(table(figures))
    print(json.dumps(json_figures(figures)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
