"""Stopping child processes: asked first (SIGTERM), killed only when they do not go in time."""

from __future__ import annotations

import subprocess
import time


def stop(*processes: subprocess.Popen | None, timeout: float = 10.0) -> None:
    """SIGTERM to every one still running, then wait for all of them until one shared deadline; what
    is left then is killed. A ``None`` (never started) is skipped."""
    running = [p for p in processes if p is not None and p.poll() is None]
    for process in running:
        process.terminate()
    deadline = time.monotonic() + timeout
    for process in running:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
