"""``entry_time.now``, the time an entry records, formats its date and second once a second: the same text as
``datetime.now(UTC).isoformat(timespec="milliseconds")`` with ``Z``, which floors the clock's nanoseconds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from service.application import entry_time

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
LAST = int((datetime(2100, 1, 1, tzinfo=UTC) - EPOCH).total_seconds()) * 1_000_000_000


def reference(nanoseconds: int) -> str:
    at = EPOCH + timedelta(microseconds=nanoseconds // 1000)
    return at.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@given(st.integers(min_value=0, max_value=LAST) | st.sampled_from([0, 999_999_999, 1_000_000_000, LAST - 1]))
def test_now_is_the_isoformat_text_of_the_clock(nanoseconds):
    clock = entry_time.time.time_ns
    try:
        entry_time.time.time_ns = lambda: nanoseconds
        assert entry_time.now() == reference(nanoseconds)
    finally:
        entry_time.time.time_ns = clock


def test_now_follows_the_clock_across_seconds():
    before = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    said = entry_time.now()
    after = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    assert before <= said <= after and said.endswith("Z") and len(said) == len("2026-01-01T00:00:00.000Z")
