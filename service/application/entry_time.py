"""The time an entry records, read in one place: a test that sets the clock sets it here."""

from __future__ import annotations

import time
from datetime import datetime

from service.domain.chain import utc_second


def now() -> str:
    """The time now, as entries record it: ``datetime.now(UTC).isoformat(timespec="milliseconds")`` with
    ``Z`` (and the same digits: both floor the clock's nanoseconds), its date and second formatted once a
    second instead of at every move."""
    seconds, nanoseconds = divmod(time.time_ns(), 1_000_000_000)
    return f"{utc_second(seconds)}.{nanoseconds // 1_000_000:03d}Z"


def ms(at: str) -> float:
    """An entry's time (ISO 8601, Z) in ms since the epoch."""
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() * 1000
