"""Seeds the documentation's sessions can print: the server's entropy for seeds and salts
(``service.domain.lifecycle``'s ``secrets``) replaced by a counted sequence, so the n-th match a server creates
gets the same seed in every run, and a page's bots, draws and rolls happen again as printed; match ids
(``service.application.matches``'s ``uuid``, and the seeks', challenges' and tournaments', which order their
matches' seats) are counted too (and a tournament's seed, which orders its pairings), so a match's feed
partition, and with it its keys' hash tag and its master on a Redis Cluster, are the same in every run. For tests
only: ``tests/test_doc_sessions.py`` installs it in its in-process server, and ``tests/doc_site`` (a
``sitecustomize`` put on the ``PYTHONPATH`` of the ``matchlog serve`` it starts) in that server's
processes."""

from __future__ import annotations

import hashlib
import itertools
import secrets
import uuid
from types import SimpleNamespace


def counted_secrets(start: int = 0) -> SimpleNamespace:
    """``secrets`` with ``token_hex`` counted: the same sequence of values in every run."""
    count = itertools.count(start)

    def token_hex(nbytes: int = 32) -> str:
        return hashlib.sha256(f"matchlog docs {next(count)}".encode()).hexdigest()[: 2 * nbytes]

    return SimpleNamespace(token_hex=token_hex, token_bytes=secrets.token_bytes)


def counted_uuid(start: int = 0) -> SimpleNamespace:
    """``uuid`` with ``uuid4`` counted: the same sequence of ids in every run."""
    count = itertools.count(start)

    def uuid4() -> uuid.UUID:
        return uuid.UUID(hex=hashlib.sha256(f"matchlog docs id {next(count)}".encode()).hexdigest()[:32])

    return SimpleNamespace(uuid4=uuid4)


def install() -> None:
    from service.application import analysis, challenges, matches, seeks, tournaments
    from service.domain import lifecycle

    lifecycle.secrets = counted_secrets()  # type: ignore[assignment]
    # a tournament's seed orders its equals, and so its pairings: counted apart, so matches' seeds stay as they were
    tournaments.secrets = counted_secrets(10**6)  # type: ignore[assignment]
    # one count: ids in the order made (a seek's and a challenge's order the seats of their match)
    ids = counted_uuid()
    matches.uuid = analysis.uuid = seeks.uuid = challenges.uuid = tournaments.uuid = ids  # type: ignore[assignment]
