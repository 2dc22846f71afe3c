"""Child processes: started so that they go with their parent, stopped by asking first (SIGTERM) and
killing only when they do not go in time."""

from __future__ import annotations

import ctypes
import signal
import subprocess
import sys
import time
from typing import Any

PR_SET_PDEATHSIG = 1


def start(command: list[str], **options: Any) -> subprocess.Popen:
    """``Popen(command)``, told by the kernel (Linux) to stop when its parent dies, however it dies: a
    parent killed with SIGKILL would otherwise leave it running, holding the port its next start needs.
    The parent is the *thread* that calls this: started from a thread that ends, the child gets SIGTERM then."""
    return subprocess.Popen(
        command, preexec_fn=_die_with_parent if sys.platform == "linux" else None, **options
    )


def _die_with_parent() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


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
