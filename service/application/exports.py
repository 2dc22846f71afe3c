"""Open data: the finished public matches in bulk (``GET /v1/exports/matches``), a page at a time, each with its
log and, where its game has one, its game record.

Only what a spectator may read is exported: the matches of the public listing (a private match, or a
platform's unlisted one, is not there), and their logs as ``GET /v1/matches/{id}/log`` shows them to a
caller without a credential (``log_views``). A match is finished when its seed is revealed, in the same
append as its end, so its entries are shown whole, as they are to anyone then; hidden values that a game
showed nobody while it ran are in them, as they are in that log (``projections.entry_view``).

A finished match's log does not change (but for its result, appended once by the scoring job), so each
match's exported log and record are kept, encoded, per process for the version its listing row names."""

from __future__ import annotations

import json
from typing import Any

from service.application import listings, log_views, records
from service.store.listings import Listings
from service.store.repository import Lru, MatchNotFound, MatchRepository

KEPT = Lru(512, max_bytes=32 << 20, weigh=lambda value, previous: len(value))
"""The matches' exported logs and records, encoded: (namespace, match id, version) -> bytes."""


def page(
    repository: MatchRepository, listing: Listings, game_id: str | None, cursor: str | None, limit: int
) -> tuple[list[bytes], str | None]:
    """The finished public matches after ``cursor`` (by creation time, oldest first), of one game if given,
    each as its export's JSON (``exported``), and the cursor of the next page (None on the last). ``limit``
    is the caller's to bound (``schemas.EXPORT_LIMIT``)."""
    found, next_cursor = listings.listed(listing, None, game_id, "finished", cursor, limit)
    pages = []
    for row in found:
        try:
            pages.append(exported(repository, row))
        except MatchNotFound:  # removed since it was listed
            continue
    return pages, next_cursor


def exported(repository: MatchRepository, row: dict[str, Any]) -> bytes:
    """One match's export as JSON: ``{"match": its listing row, "log": [...], "record": ...}`` (no record for
    a game without a record format)."""
    key = (repository.keys.namespace, row["id"], row["version"])
    kept = KEPT.get(key)
    if kept is None:
        kept = _log_and_record(repository, row["id"], row["version"])
        KEPT.put(key, kept)
    return b'{"match":' + _encoded(row) + b"," + kept + b"}"


def _log_and_record(repository: MatchRepository, match_id: str, version: int) -> bytes:
    """``"log":[...],"record":...`` of the match at ``version``: the log as a spectator reads it, and the game
    record (``{"type": its MIME type, "text": ...}``; none for a game without a record format)."""
    _, log = log_views.events(repository, match_id, None, limit=version)
    state = repository.load(match_id)
    if state.engine.record is None:
        return b'"log":' + _encoded(log)
    _, entries = repository.read(match_id, until=version)
    record = {"type": state.engine.record.mime, "text": records.record_of(state, entries)}
    return b'"log":' + _encoded(log) + b',"record":' + _encoded(record)


def _encoded(value: Any) -> bytes:
    # as the log's export writes its lines (``feed_routes.get_log``)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
