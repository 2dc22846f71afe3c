"""Redis key names, in one place. Every structure asks here for its keys; nothing else spells one.

All keys of a deployment start with its namespace (``MATCHLOG_NAMESPACE``), so several deployments
or test runs share one Redis without seeing each other. A match's keys share the prefix
``<namespace>:match:<id>:``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Keys:
    namespace: str = "matchlog"

    def _match(self, match_id: str, part: str) -> str:
        return f"{self.namespace}:match:{match_id}:{part}"

    def log(self, match_id: str) -> str:
        """The match's event stream: the truth."""
        return self._match(match_id, "log")

    def meta(self, match_id: str) -> str:
        """What is fixed at creation and kept out of the log: the seed and the seat token hashes."""
        return self._match(match_id, "meta")

    def snapshots(self, match_id: str) -> str:
        """A hash of derived states by version: a cache of the fold."""
        return self._match(match_id, "snapshots")

    def idempotency(self, match_id: str, seat: int, key: str) -> str:
        """The first answer to a request sent with this ``Idempotency-Key``."""
        return self._match(match_id, f"idempotency:{seat}:{key}")

    def unused(self, match_id: str) -> str:
        """A key no one writes, standing in for an absent optional key of a script."""
        return self._match(match_id, "none")

    def pack(self, digest: str) -> str:
        """A content pack, by the SHA-256 of its canonical JSON: stored once for all its matches."""
        return f"{self.namespace}:pack:{digest}"

    @property
    def platforms(self) -> str:
        """Platform keys: SHA-256 of the key -> the platform (id, name)."""
        return f"{self.namespace}:platforms"

    def platform_matches(self, platform_id: str) -> str:
        """The matches a platform created, scored by creation time (ms)."""
        return f"{self.namespace}:platform:{platform_id}:matches"

    def webhook(self, hook_id: str) -> str:
        """A webhook: its platform, URL, entry types and sealed secret."""
        return f"{self.namespace}:webhook:{hook_id}"

    def webhook_deliveries(self, hook_id: str) -> str:
        """The latest delivery attempts of a webhook, newest first (the last 100)."""
        return f"{self.namespace}:webhook:{hook_id}:deliveries"

    def platform_webhooks(self, platform_id: str) -> str:
        return f"{self.namespace}:platform:{platform_id}:webhooks"

    @property
    def public_matches(self) -> str:
        """Matches anyone may find (``public``), scored by creation time (ms): the newest 10,000."""
        return f"{self.namespace}:public"

    @property
    def open_matches(self) -> str:
        """The lobby: matches with a seat still open, scored by creation time (ms)."""
        return f"{self.namespace}:open"

    @property
    def feed(self) -> str:
        """The notices of appends that the rule workers follow."""
        return f"{self.namespace}:feed"

    @property
    def queue(self) -> str:
        """The RQ queue's name (RQ derives its own keys from it)."""
        return self.namespace
