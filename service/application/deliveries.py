"""Webhook deliveries: what each webhook of a match's platform is sent when an append brings the entry types it
asked for (or an event that is no entry, ``rating_changed``), enqueued as delivery jobs; and the platform's
delivery slots a job takes while it sends. The webhooks themselves, their registration and their delivery
log, are the store's (``service.store.webhooks``)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from service.application.stores import Stores
from service.domain import projections
from service.domain.chain import compact_encoder
from service.games import texts
from service.store.fences import Fence

_compact = compact_encoder(sort_keys=False)
"""A delivery body's text, and its parts'."""


class Deliveries:
    def __init__(self, stores: Stores):
        self.repository = stores.repository
        self.webhooks = stores.webhooks
        self.jobs = stores.jobs
        self.settings = stores.settings

    def deliver(
        self, match_id: str, version: int, types: tuple[str, ...], fence: Fence | None = None
    ) -> None:
        """Enqueue a delivery to each webhook of the match's platform that wants one of the entry types
        one append brought (up to ``version``): the entries as a spectator sees them. ``fence``: the lease of
        the match's feed partition the caller works under (LeaseLost once another worker holds it)."""
        platform = self.repository.meta(match_id).platform
        hooks = (
            [h for h in self.webhooks.of_platform(platform) if set(h["events"]) & set(types)]
            if platform
            else []
        )
        if not hooks:
            return
        _, entries = self.repository.read(match_id, after=version - len(types), until=version)
        state = self.repository.load(match_id, version)
        # the part of the body hooks asking for the same types in the same language share
        shared: dict[tuple[tuple[str, ...], str], str] = {}
        for hook in hooks:
            if hook["status"] != "enabled":
                continue
            delivery_id = f"{hook['id']}-{match_id}-v{version}"
            previous = self.webhooks.previous_version(
                hook["id"], match_id, version, fence
            )  # in version order: the feed's
            wanted = tuple(sorted(set(hook["events"]) & set(types)))
            lang = hook.get("language") or texts.SOURCE  # the texts in the language the hook asked for
            if (wanted, lang) not in shared:
                shown = [e for e in entries if e.type in wanted]
                with texts.speaking(lang):
                    seen = projections.entries_view(state, shown, None)
                shared[wanted, lang] = self.webhooks.keep_body(
                    _compact(
                        {
                            "game": state.engine.info.id,
                            "match": match_id,
                            "version": version,
                            "entries": seen,
                            "to_act": state.to_act(),  # after the append: what a receiver does next
                            "status": projections.status_of(state),
                        }
                    )
                )
            own = {"delivery": delivery_id, "webhook": hook["id"], "previous_version": previous}
            self.jobs.enqueue_delivery(delivery_id, hook["id"], _compact(own), shared[wanted, lang])

    def deliver_event(self, platform: str, event: str, delivery_id: str, body: dict[str, Any]) -> None:
        """Enqueue a delivery of an event that is no log entry (``rating_changed``) to each webhook of the
        platform that asked for it."""
        hooks = [
            h
            for h in self.webhooks.of_platform(platform)
            if event in h["events"] and h["status"] == "enabled"
        ]
        shared = self.webhooks.keep_body(_compact({"event": event, **body})) if hooks else None
        for hook in hooks:
            delivery = f"{hook['id']}-{delivery_id}"
            self.jobs.enqueue_delivery(
                delivery, hook["id"], _compact({"delivery": delivery, "webhook": hook["id"]}), shared
            )

    def slot(self, platform: str, holder: str) -> AbstractContextManager[bool]:
        """One of the platform's delivery slots, for as long as an attempt may take (``Webhooks.slot``)."""
        lease_s = self.settings.webhook_connect_s + self.settings.webhook_deadline_s + 5
        return self.webhooks.slot(platform, holder, self.settings.webhook_slots_per_platform, lease_s)
