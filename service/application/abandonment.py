"""Matches nobody plays any more, ended: after ``MATCHLOG_ABANDON_AFTER_S`` with nothing appended, a match is
aborted as ``abandoned`` (scored as it stands, out of the open and active listings). The watch of when each
match was last appended to is the store's (``service.store.activity``); the match commands keep it up to
date (``Matches``), and the log's last entry, not the watch, decides."""

from __future__ import annotations

import time

from service.application.entry_time import ms
from service.application.matches import Matches
from service.application.stores import Stores
from service.domain.errors import MatchNotFound, MatchOver
from service.domain.replay import MatchState

ABANDONED = "abandoned"
"""The ``reason`` of the ``match_aborted`` a match idle for ``MATCHLOG_ABANDON_AFTER_S`` ends with."""


class Abandonment:
    def __init__(self, matches: Matches):
        self.matches = matches
        self.stores = matches.stores

    def end_abandoned(self, limit: int = 100) -> list[str]:
        """End the matches with nothing appended for ``abandon_after_s`` (0: never) as abandoned:
        ``match_aborted`` with reason ``abandoned``, scored as they stand, out of the open and active
        listings. Returns their ids (at most ``limit`` a call)."""
        after_s = self.stores.settings.abandon_after_s
        if after_s <= 0:
            return []
        cutoff_ms = time.time() * 1000 - after_s * 1000
        ended = []
        for match_id in self.stores.watch.idle_since(cutoff_ms, limit):

            def idle(
                state: MatchState, match_id: str = match_id
            ) -> bool:  # an append since the listing counts
                _, last = self.stores.repository.read(match_id, after=state.version - 1, until=state.version)
                return not last or ms(last[-1].at) <= cutoff_ms

            try:
                if self.matches.abort_while(match_id, ABANDONED, still=idle) is not None:
                    ended.append(match_id)
                    continue
            except (MatchOver, MatchNotFound):
                pass
            else:
                continue  # active again: its next append lists it anew
            self.stores.watch.forget(match_id)
        return ended


def watch_listed(stores: Stores, platforms: list[str]) -> None:
    """Put every listed match not over under the watch from its last entry, unless it is there already
    (``matchlog migrate``)."""
    for match_id in stores.listings.listed_ids(platforms):
        try:
            state = stores.repository.load(match_id)
        except MatchNotFound:
            continue
        if not state.finished:
            _, last = stores.repository.read(match_id, after=state.version - 1, until=state.version)
            stores.watch.active(match_id, ms(last[-1].at), first=True)
