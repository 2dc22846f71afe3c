"""Reading Server-Sent Events in tests: parse a stream into events, from a Flask test response or a socket."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterable, Iterator


def parse(chunks: Iterable[bytes]) -> Iterator[dict]:
    """Events as ``{"id", "event", "data"}`` (``data`` parsed as JSON); comments as ``{"comment": text}``."""
    buffer = b""
    for chunk in chunks:
        buffer += chunk
        while b"\n\n" in buffer:
            block, buffer = buffer.split(b"\n\n", 1)
            event: dict = {}
            for line in block.decode().split("\n"):
                if line.startswith(":"):
                    event["comment"] = line[1:].strip()
                elif ":" in line:
                    field, _, value = line.partition(":")
                    event[field] = value[1:] if value.startswith(" ") else value
            if "data" in event:
                event["data"] = json.loads(event["data"])
            if event:
                yield event


class Listener:
    """Collects a stream's events in a thread, so a test can act and then wait for what arrives."""

    def __init__(self, chunks: Iterable[bytes]):
        self.events: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._read, args=(chunks,), daemon=True)
        self._thread.start()

    def _read(self, chunks):
        try:
            for event in parse(chunks):
                self.events.put(event)
        except Exception as error:  # the stream closed under us
            self.events.put({"closed": repr(error)})
        self.events.put({"closed": "end of stream"})

    def until(self, accept, timeout: float = 5.0) -> list[dict]:
        """Every event up to and including the first that ``accept`` takes."""
        seen = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                event = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            seen.append(event)
            if accept(event):
                return seen
        raise AssertionError(f"nothing accepted within {timeout} s; got {seen}")
