"""What a reader is shown of a match's log: the entries as a seat may see them, and a signed checkpoint of
its head (what an auditor holding an exported log proves it against)."""

from __future__ import annotations

from typing import Any

from service.application import entry_time
from service.domain import projections
from service.domain.chain import canonical_json
from service.domain.errors import HiddenUntilRevealed
from service.domain.serverkey import ServerKey
from service.games.texts import catalogue
from service.store.repository import MatchRepository

_ = catalogue(__file__).gettext


def events(
    repository: MatchRepository,
    match_id: str,
    seat: int | None,
    after: int = 0,
    limit: int | None = None,
) -> tuple[int, list[dict[str, Any]]]:
    """The current version, and the log entries after ``after`` as ``seat`` may see them."""
    current, entries = repository.read(match_id, after=after, limit=limit)
    return current, projections.entries_view(repository.load(match_id), entries, seat)


def checkpoint(repository: MatchRepository, server_key: ServerKey, match_id: str) -> dict[str, Any]:
    """The match's version and head hash, signed with the server's key: an auditor holding an
    exported log proves with it that the log is the one this server holds."""
    state = repository.load(match_id)
    if projections.hashes_withheld(state):
        raise HiddenUntilRevealed(
            _(
                "this match's log was written before hidden data was sealed in its hash "
                "chain, so its hashes are shown once the seed is revealed, at the end"
            )
        )
    return signed_head(server_key, {"match": match_id, "version": state.version, "hash": state.head_hash})


def signed_head(server_key: ServerKey, signed: dict[str, Any]) -> dict[str, Any]:
    """A checkpoint: ``signed`` (a log's subject, its version and head hash) with the server's signature of
    it, as canonical JSON; a match's (``match``) or a tournament's (``tournament``)."""
    return {
        **signed,
        "signed_at": entry_time.now(),
        "algorithm": "Ed25519",
        "public_key": server_key.public_key,
        "signature": server_key.sign(canonical_json(signed)),
    }
