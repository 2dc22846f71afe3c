"""A match's log entries and their hash chain: pure data, no I/O (the Redis store is ``service.store.events``).

Each entry's ``hash`` is SHA-256 of the previous entry's hash, a newline and the entry's canonical
JSON, so that anyone holding the entries can check that none was changed, dropped or reordered.

Hidden information must not be recoverable from a hash. An entry whose ``data`` some viewer may not
see whole (a card drawn from the deck, a secret plan) is chained in its *sealed* form: its public
data (what a spectator sees) and ``commitment``, HMAC-SHA256 of the whole entry under the match's
commitment key. The key is derived from the match's secret salt and seed, sealed with them while the
match runs and revealed with them at its end, so that:

* while the match runs, every viewer can check the chain through what it is shown (the public data
  and the commitment), and a hash tells nobody more than a 256-bit keyed MAC does: guessing the
  hidden value needs the 128-bit salt first;
* once the seed is revealed, anyone can recompute every commitment from the whole entries and check
  that the public data is what the rules would show (``service.domain.replay.check_sealed``).

The commitment covers the version, so two equal hidden values (the same card drawn twice) never give
equal commitments. Logs written before sealing (no ``chain`` in ``match_created``) hash every entry
whole; they still verify, and their hashes are withheld from viewers until the seed is revealed.

From chain 3 on, ``match_created`` names its match (``match``, the id): the first hash covers it, and every
hash after it the first, so a log (and a checkpoint, which signs a hash) is of that match and no other.
Logs of chains 1 and 2 name none; they verify as they did.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from json.encoder import (  # type: ignore[attr-defined]
    c_make_encoder,
    encode_basestring,
    encode_basestring_ascii,
)
from typing import Any

from service.domain.errors import BrokenChain
from service.domain.immutable import replaced

SEALED_CHAIN = 2
"""``match_created``'s ``chain`` for logs whose hidden data is chained through commitments."""

MATCH_CHAIN = 3
"""``match_created``'s ``chain`` for sealed logs whose ``match_created`` also names the match (``match``): the
chain the server writes now."""


@dataclass(frozen=True)
class Recorded:
    """One log entry: an event as stored, with its version, the time it was appended and its place
    in the hash chain (``hash``; None in logs written before the chain). An entry with hidden data
    also has ``public_data`` (what a spectator sees of ``data``) and ``commitment``, and is chained
    through those (``canonical``)."""

    version: int
    type: str
    seat: int | None
    data: dict[str, Any]
    at: str
    hash: str | None = None
    public_data: dict[str, Any] | None = None
    commitment: str | None = None

    def as_dict(self) -> dict[str, Any]:
        body = {
            "version": self.version,
            "type": self.type,
            "seat": self.seat,
            "data": self.data,
            "at": self.at,
            "hash": self.hash,
        }
        if self.commitment is not None:
            body.update(public_data=self.public_data, commitment=self.commitment)
        return body

    def canonical(self) -> bytes:
        """The bytes the chain hashes: the entry without its hash, as sorted, compact UTF-8 JSON; for a
        sealed entry, its public data and commitment in place of its data. A content pack referenced by
        ``content_sha256`` is covered by that digest, not by its bytes: the pack is stored once for
        every match that plays with it."""
        if self.commitment is not None:
            return canonical_json(
                [self.version, self.type, self.seat, self.public_data, self.at, self.commitment]
            )
        return canonical_json([self.version, self.type, self.seat, self.without_content().data, self.at])

    def without_content(self) -> Recorded:
        """The entry as stored: a pack it references by digest is kept apart, once."""
        if "content_sha256" not in self.data or "content" not in self.data:
            return self
        return replace(self, data={k: v for k, v in self.data.items() if k != "content"})

    def sealed(self, key: bytes, public_data: dict[str, Any]) -> Recorded:
        """This entry committed to under ``key`` when ``public_data`` (what a spectator may see of it)
        is not the whole of its data; the entry unchanged otherwise."""
        if public_data == self.data:
            return self
        return replace(self, public_data=public_data, commitment=commitment(key, self))

    def chained(self, prev_hash: str | None) -> Recorded:
        """This entry with its hash: SHA-256 of the previous entry's hash and this entry's bytes."""
        digest = hashlib.sha256((prev_hash or "").encode("ascii") + b"\n" + self.canonical()).hexdigest()
        return replaced(self, hash=digest)

    def event(self) -> dict[str, Any]:
        """The event as an engine (and the append) sees it: without version and time."""
        return {"type": self.type, "seat": self.seat, "data": self.data}

    @classmethod
    def from_dict(cls, entry: dict[str, Any]) -> Recorded:
        return cls(
            entry["version"],
            entry["type"],
            entry["seat"],
            entry["data"],
            entry["at"],
            entry.get("hash"),
            entry.get("public_data"),
            entry.get("commitment"),
        )


def chain_version(created: Recorded) -> int:
    """The chain version of the log whose ``match_created`` is ``created``: 1 for logs from before sealing."""
    return created.data.get("chain", 1)


def bound_match(created: Recorded) -> str | None:
    """The match the log whose ``match_created`` is ``created`` is bound to by its chain; None for a log of a
    chain before ``MATCH_CHAIN``, which names no match."""
    return created.data.get("match") if chain_version(created) >= MATCH_CHAIN else None


C_ENCODER = sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] <= (3, 13)
"""Whether ``json.encoder.c_make_encoder`` (private: CPython's C encoder, built by ``JSONEncoder.iterencode``
from these nine arguments) is the one ``built_once`` was written for, in CPython 3.11 to 3.13; otherwise
``JSONEncoder.encode`` makes every text."""


def compact_encoder(sort_keys: bool) -> Callable[[Any], str]:
    """``json.dumps(value, sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False)``, the same text,
    by ``built_once``: ``json.dumps`` builds a ``JSONEncoder`` for any argument besides the defaults.
    ``tests/domain/test_chain_json.py`` checks it against ``json.dumps`` on random games of every game."""
    return built_once(json.JSONEncoder(sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False))


def built_once(reference: json.JSONEncoder) -> Callable[[Any], str]:
    """``reference.encode``, the same text, with its C encoder built once: ``JSONEncoder.encode`` builds it
    on every call. It keeps no cycle markers (a log entry or a log line is a tree: a cycle would end in
    RecursionError, not ValueError), so one encoder serves every thread at once."""
    if c_make_encoder is None or reference.indent is not None or not C_ENCODER:
        return reference.encode  # no C accelerator (or not the one this was written for); indented text
    encoder = c_make_encoder(
        None,
        reference.default,
        encode_basestring_ascii if reference.ensure_ascii else encode_basestring,
        None,
        reference.key_separator,
        reference.item_separator,
        reference.sort_keys,
        reference.skipkeys,
        reference.allow_nan,
    )
    return lambda value: "".join(encoder(value, 0))


_CANONICAL = compact_encoder(sort_keys=True)


def canonical_json(value: Any) -> bytes:
    return _CANONICAL(value).encode("utf-8")


@functools.lru_cache(maxsize=2)  # the second now, and the one before it
def utc_second(seconds: int) -> str:
    """A second since the epoch as ISO 8601 UTC without an offset (``2026-11-28T08:44:36``): the part of an
    entry's time, or a log line's, that changes once a second, formatted once a second rather than at every
    entry and every line."""
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds").removesuffix("+00:00")


@functools.lru_cache(maxsize=4096)  # one per match, asked at every move of it
def commitment_key(seed: str, salt: str) -> bytes:
    """The key a match's commitments are made with: secret exactly as long as its salt (128 random bits,
    never shown before ``seed_revealed``), and not the salted seed commitment of ``match_created``."""
    return hmac.new(
        salt.encode("utf-8"), b"matchlog commitments\n" + seed.encode("utf-8"), hashlib.sha256
    ).digest()


def commitment(key: bytes, entry: Recorded) -> str:
    """HMAC-SHA256 of the whole entry (version, type, seat, data) under the match's commitment key."""
    message = canonical_json([entry.version, entry.type, entry.seat, entry.without_content().data])
    return hmac.new(key, message, hashlib.sha256).hexdigest()


class BrokenSeal(BrokenChain):
    """A sealed entry whose commitment or public data is not what its whole data makes of it: the log
    was changed at it (or it is a viewer's copy, whose hidden data is not all there)."""

    def __init__(self, version: int, what: str):
        super().__init__(
            version,
            f"has a {what} that does not follow from its data: the log was changed at it, "
            "or this is a viewer's copy of it (export the log once the seed is revealed)",
        )


def verify_chain(entries: Iterable[Recorded], prev_hash: str | None = None) -> None:
    """Check each chained entry against the one before (``prev_hash``: the hash of the entry before
    the first). Entries of logs written before the chain have no hash and are not checked; the chain
    starts at the first entry that has one, and an entry without one after it breaks it (a hash
    dropped is a chain restarted by hand). Raises BrokenChain naming the first entry that breaks it."""
    for entry in entries:
        if entry.hash is None and prev_hash is None:
            continue
        if entry.hash is None or entry.chained(prev_hash).hash != entry.hash:
            raise BrokenChain(entry.version)
        prev_hash = entry.hash
