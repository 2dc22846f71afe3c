"""The harness's webhook receiver, a process of its own (the harness's threads must not keep it from answering
within a delivery's deadline): on loopback, it answers every delivery 200 and appends what each said (its
delivery id, match, version, previous version and entries' versions) to a JSON-lines file, bounded.

    python -m tests.faults.receiver OUT      # prints its port, then serves until terminated
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from service import processes

MAX_BODY = 1 << 20
MAX_KEPT = 500_000


class Receiver:
    """The receiver's process, seen from the harness."""

    def __init__(self, out: Path):
        self.out = out
        self.process: subprocess.Popen | None = None
        self.port = 0

    def start(self) -> Receiver:
        self.out.touch()
        self.process = processes.start(
            [sys.executable, "-m", "tests.faults.receiver", str(self.out)], stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        self.port = int(self.process.stdout.readline())
        return self

    @property
    def deliveries(self) -> list[dict[str, Any]]:
        with self.out.open() as lines:
            return [
                json.loads(line) for line in lines if line.endswith("\n")
            ]  # a line being written: next time

    def of_match(self) -> dict[str, list[dict[str, Any]]]:
        found: dict[str, list[dict[str, Any]]] = {}
        for delivery in self.deliveries:
            found.setdefault(delivery["match"], []).append(delivery)
        return found

    def stop(self) -> None:
        processes.stop(self.process)


def serve(out: Path) -> None:
    lock = threading.Lock()
    kept = [0]
    sink = out.open("a", buffering=1)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 < length <= MAX_BODY:
                self.send_response(413)
                self.end_headers()
                return
            body = json.loads(self.rfile.read(length))
            self.send_response(200)
            self.end_headers()
            line = json.dumps(
                {
                    "delivery": self.headers.get("Matchlog-Delivery"),
                    "match": body.get("match"),
                    "version": body.get("version"),
                    "previous_version": body.get("previous_version"),
                    "versions": [e.get("version") for e in body.get("entries") or []],
                },
                separators=(",", ":"),
            )
            with lock:
                if kept[0] < MAX_KEPT:
                    kept[0] += 1
                    sink.write(line + "\n")

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
