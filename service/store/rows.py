"""A listing's rows as the answer's bytes: each append keeps its match's row encoded as ``GET /v1/matches``
sends it (``MatchSchema``'s compiled dump, then orjson, as the listing's answer was made before), so that a
page joins the rows' bytes and neither decodes nor encodes them.

The record (``Keys.summary``) is four lines: ``<version> <status> <game> <encoding>`` (what the listing checks
and filters on without reading the row, and ``ENCODING``: a record of another is made again), the row's bytes up
to where its clock goes, the clock as the state keeps it (empty without one), and the rest of the row. A row's
clock is shown as it stands when the page is asked (``views.listed``), so only the clock is encoded then. JSON
text holds no raw newline, so the lines split cleanly. Nothing in a row depends on who asks (a platform and the
public see the same rows).

A page (``Page``) is its rows joined by commas, cut where a row's clock goes: on one Redis, the listing's
script joins the records itself (``listings.PAGE``), so that a page of 200 costs this process about what one
of 20 does."""

from __future__ import annotations

import itertools
import json
from typing import Any, NamedTuple

import orjson

from service.domain import clocks
from service.http import fastload, schemas

ENCODING = "r2"
"""What a record's row holds: ``r2``, a match's times; a record without it (from before they were listed) or with
another is read as none, and made again from the match's state."""

_SCHEMA = schemas.MatchSchema()
_DUMP = fastload.compiled_dump(_SCHEMA)
_FIELDS = list(_SCHEMA.dump_fields)
AFTER_CLOCK = tuple(_FIELDS[_FIELDS.index("clock") + 1 :])
"""The row's fields that come after its clock (the dump writes fields in the schema's order)."""

_OPTIONS = (
    orjson.OPT_NON_STR_KEYS
)  # the answers' own (``guards.GuardedJSON``), less what plain JSON never needs


class Row(NamedTuple):
    """A match's record, read: the version it is of, the status and game it shows, and its row's parts."""

    version: int
    status: str
    game: str
    head: bytes
    clock: bytes
    tail: bytes

    def shown(self, at: str) -> bytes:
        """The row as the answer carries it, its clock as it stands at ``at``."""
        return page([self]).shown(at)


class Page(NamedTuple):
    """A page's rows, joined by commas as the answer carries them, but for their clocks: ``parts`` is the text up
    to the first row's clock, that clock as the state keeps it, the text up to the next clock, and so on, then
    the text after the last (one part where no row has a clock)."""

    rows: int
    parts: list[bytes]

    def shown(self, at: str) -> bytes:
        """The rows as the answer carries them, their clocks as they stand at ``at``."""
        parts = self.parts
        if len(parts) == 1:
            return parts[0]
        shown = [parts[0]]
        for i in range(1, len(parts), 2):
            shown += (b',"clock":', encoded(clocks.shown(json.loads(parts[i]), at)), parts[i + 1])
        return b"".join(shown)


def page(found: list[Row]) -> Page:
    """The page of the rows ``found``."""
    return _page([row.head for row in found], [row.clock for row in found], [row.tail for row in found])


def joined(records: list[bytes]) -> Page:
    """The page of ``records`` (``record``'s), each known to be four lines (``listings.PAGE`` checks them):
    split and joined by bytes methods over the whole page, so that a row costs no Python step of its own."""
    lines = b"\n".join(records).split(b"\n")
    return _page(lines[1::4], lines[2::4], lines[3::4])


def _page(heads: list[bytes], clocks: list[bytes], tails: list[bytes]) -> Page:
    whole = list(map(bytes.__add__, heads, tails))  # each row but for its clock
    if not any(clocks):
        return Page(len(whole), [b",".join(whole)])
    parts: list[bytes] = []
    before: list[bytes] = []  # the end of the row whose clock comes last so far
    start = 0
    for i in itertools.compress(range(len(clocks)), clocks):
        parts += (b",".join([*before, *whole[start:i], heads[i]]), clocks[i])
        before, start = [tails[i]], i + 1
    parts.append(b",".join([*before, *whole[start:]]))
    return Page(len(whole), parts)


def encoded(value: Any) -> bytes:
    """A part of an answer as orjson writes it (the standard encoder where orjson refuses a value: an integer
    over 64 bits, which the answer as a whole would then have been written with)."""
    try:
        return orjson.dumps(value, option=_OPTIONS)
    except TypeError:
        return json.dumps(value, separators=(",", ":")).encode()


def _row(row: dict[str, Any]) -> bytes:
    dumped = _DUMP(row) if _DUMP is not None else None
    return encoded(_SCHEMA.dump(row) if dumped is None else dumped)


def record(match_id: str, kept: dict[str, Any]) -> bytes:
    """The record of a match's ``views.listing_summary`` (plain JSON values)."""
    row = {"id": match_id, **kept}
    clock = row.pop("clock", None)
    whole = _row(row)
    after = {name: row[name] for name in AFTER_CLOCK if name in row}
    tail = b"," + _row(after)[1:] if after else b"}"
    head = whole[: len(whole) - len(tail)]
    header = f"{kept['version']} {kept['status']} {kept['game']} {ENCODING}".encode()
    return b"\n".join([header, head, b"" if clock is None else encoded(clock), tail])


def read(raw: bytes) -> Row | None:
    """A record as ``record`` writes it; None for anything else (a summary of the earlier encoding)."""
    try:
        header, head, clock, tail = raw.split(b"\n")
        version, status, game, encoding = header.split(b" ")
        if encoding != ENCODING.encode():
            return None
        return Row(int(version), status.decode(), game.decode(), head, clock, tail)
    except ValueError:
        return None
