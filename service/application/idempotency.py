"""Idempotency keys: a retry of a request gets the first request's answer back, never a second effect.

A seat's command (an action, an undo, a concession) keeps its answer under the seat's key in the same append
as its entries (``seat_key``, ``remember``); a request with no seat (a create, a join, an abort, a seat
handed over) claims its key first and keeps whatever it answers (``once``)."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

from service.domain.errors import GuessableIdempotencyKey, IdempotencyKeyInProgress, IdempotencyKeyReused
from service.games.texts import catalogue
from service.store.events import PENDING, Remember
from service.store.keys import Keys
from service.store.repository import MatchRepository

_ = catalogue(__file__).gettext

ANYONE = "anyone"
"""The caller of a request that has none (an anonymous create, a join): its Idempotency-Key alone scopes it."""

ANONYMOUS_KEY_MIN = 21
"""The fewest characters of an Idempotency-Key that ``ANYONE`` sends. Such a key is the only secret between
a stranger and the first answer (a create's seat tokens, a join's token): a retry of an anonymous create or
join with the same key and body gets that answer back, and the body of a join (a public name) is easy to
guess. 21 characters take a nanoid, a ULID, ``secrets.token_urlsafe(16)``, 32 hex digits or a UUID."""

IDEMPOTENCY_PENDING_S = 60
"""How long a request's claim of its Idempotency-Key stands while it runs (a crashed request's claim lapses)."""
IDEMPOTENCY_WAIT_S = 5.0
"""How long a retry waits for the first request with its key to answer before 409 idempotency_key_in_progress."""


def fingerprint_of(request: Any) -> str:
    """The digest of what a retry must repeat (its endpoint's body, as JSON)."""
    return hashlib.sha256(json.dumps(request, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def replayed(stored: str, fingerprint: str) -> dict[str, Any]:
    """The answer kept for a retry, which must repeat the first request (IdempotencyKeyReused otherwise)."""
    record = json.loads(stored)
    if record["fingerprint"] != fingerprint:
        raise IdempotencyKeyReused()
    return record["answer"]


class Idempotency:
    def __init__(self, repository: MatchRepository, keys: Keys, ttl_s: int):
        """``ttl_s``: how long an answer is kept (``MATCHLOG_IDEMPOTENCY_TTL_S``)."""
        self.repository = repository
        self.keys = keys
        self.ttl_s = ttl_s

    def seat_key(
        self, match_id: str, seat: int, idempotency_key: str | None, request: list, holder: str | None = None
    ) -> tuple[str | None, str]:
        """The Redis key a seat's idempotency key is kept under, and the fingerprint of what a retry must
        repeat (needed only when there can be a retry). With ``holder`` (the digest of the seat's token that
        asks), the key is that holder's: a seat handed over shares no answers between its old and new
        holders, whatever keys they send."""
        if not idempotency_key:
            return None, ""
        scope = f"{seat}:{holder[:16]}" if holder else seat
        return self.keys.idempotency(match_id, scope, idempotency_key), fingerprint_of(request)

    def remember(self, idem_key: str | None, fingerprint: str, answer: dict[str, Any]) -> Remember | None:
        """What an append keeps under ``idem_key`` in the same step (nothing without a key)."""
        if not idem_key:
            return None
        return Remember(idem_key, json.dumps({"fingerprint": fingerprint, "answer": answer}), self.ttl_s)

    def once(
        self,
        match_id: str | None,
        endpoint: str,
        caller: str,
        idempotency_key: str | None,
        request: Any,
        run: Callable[[Callable[[dict[str, Any]], Remember | None]], dict[str, Any]],
    ) -> dict[str, Any]:
        """``run(remember)``'s answer, once per ``idempotency_key`` of ``caller`` at ``endpoint`` (of the match
        ``match_id``, if any): a retry with the same key and ``request`` gets the first answer back, one with
        another request IdempotencyKeyReused; one that comes while the first still runs waits for its answer
        (IdempotencyKeyInProgress after ``IDEMPOTENCY_WAIT_S``). The key is claimed (a pending marker, SET NX)
        before ``run``; ``remember(answer)`` is what an append keeps under it in the same step, and whatever
        ``run`` answers is kept after it too. A request that fails leaves no answer: a retry runs again.
        Answers (tokens among them) live only in Redis, for ``idempotency_ttl_s``."""
        if not idempotency_key:
            return run(lambda answer: None)
        if caller == ANYONE and len(idempotency_key) < ANONYMOUS_KEY_MIN:
            raise GuessableIdempotencyKey(
                _(
                    "without a token or platform key, the key alone guards the answer's tokens: "
                    "at least {least} random characters (a UUID)",
                    least=ANONYMOUS_KEY_MIN,
                )
            )
        digest = hashlib.sha256(idempotency_key.encode()).hexdigest()
        key = self.keys.scoped_idempotency(match_id, endpoint, caller, digest)
        fingerprint = fingerprint_of([endpoint, request])
        marker = PENDING + fingerprint
        waited_until = time.monotonic() + IDEMPOTENCY_WAIT_S
        while True:
            prior = self.repository.claim(key, marker, IDEMPOTENCY_PENDING_S)
            if prior is None:
                break
            if not prior.startswith(PENDING):
                return replayed(prior, fingerprint)
            if prior != marker:
                raise IdempotencyKeyReused()
            if time.monotonic() > waited_until:
                raise IdempotencyKeyInProgress(
                    _(
                        "a request with this Idempotency-Key is still running: "
                        "send it again in a moment for its answer"
                    )
                )
            time.sleep(0.05)
        try:
            answer = run(lambda answer: self.remember(key, fingerprint, answer))
        except BaseException:
            self.repository.release(key, marker)
            raise
        self.repository.keep(key, json.dumps({"fingerprint": fingerprint, "answer": answer}), self.ttl_s)
        return answer
