"""A platform's player's matches (``GET /v1/players/{player}/matches?status=``): the index of the seats each
player id holds, kept after every append that gives a seat a player, takes it from one or ends a match, and
its pages as rows of the matches' listing summaries."""

from __future__ import annotations

import json
from typing import Any

from service.application import entry_time
from service.application.stores import Stores
from service.domain import projections
from service.domain.lifecycle import Step
from service.store.player_matches import Cursor, Held

_SEATING = frozenset(("match_created", "seat_joined", "seat_replaced"))
"""The entries that give a seat a player id, or take it away (``projections.player_ids``)."""


def follow(stores: Stores, match_id: str, step: Step) -> None:
    """After ``step`` was appended (or created the match: it has no base): the seats its entries gave a player
    or took from one, and, when it ended the match, its players' seats moved to their finished matches. A
    match without a platform has no player ids, and an ordinary move changes none: they cost nothing here."""
    # its end is when its seed is revealed, in the same step (``ended_at``): no rule is asked whether it is over
    ended = step.state.ended_at is not None and (step.base is None or step.base.ended_at is None)
    if not ended and not any(entry.type in _SEATING for entry in step.entries):
        return
    platform = stores.repository.meta(match_id).platform
    if platform is None:
        return
    log = list(step.entries) if step.base is None else stores.repository.read(match_id)[1]
    before = projections.player_ids(log[: step.base.version]) if step.base is not None else {}
    after = projections.player_ids(log[: step.state.version])
    left = [(player, Held(match_id, seat)) for seat, player in before.items() if after.get(seat) != player]
    taken = [(player, Held(match_id, seat)) for seat, player in after.items() if before.get(seat) != player]
    at = step.state.ended_at if ended else step.state.updated_at
    assert at is not None, "a state folded from its log knows its times"
    stores.player_matches.change(
        platform,
        left,
        [] if ended else taken,
        [(player, Held(match_id, seat)) for seat, player in after.items()] if ended else [],
        int(entry_time.ms(at)),
    )


def listed(
    stores: Stores, platform: str, player: str, status: str, cursor: Cursor | None, limit: int
) -> tuple[list[dict[str, Any]], str | None]:
    """A page of the player's matches of ``status`` (``active``: not over; ``finished``), newest first: each
    the seat the player holds and the match as its listing row shows it; and the next page's cursor.

    A row whose match has ended meanwhile (a process stopped between an append and ``follow``) is moved to the
    finished ones and left out of the active ones; a row whose match is gone is dropped."""
    held, after = stores.player_matches.page(platform, player, status, cursor, limit)
    kept = stores.listings.summaries([h.match_id for h in held])
    now = entry_time.now()
    rows, ended, gone = [], [], []
    for seat, row in zip(held, kept):
        if row is None:
            gone.append(seat)
            continue
        match = json.loads(row.shown(now))
        if status == "active" and match["ended_at"] is not None:
            ended.append((seat, int(entry_time.ms(match["ended_at"]))))
            continue
        rows.append(
            {
                "match": seat.match_id,
                "game": match["game"],
                "seat": seat.seat,
                "status": match["status"],
                "version": match["version"],
                "to_act": match["to_act"],
                "created_at": match["created_at"],
                "updated_at": match["updated_at"],
                "ended_at": match["ended_at"],
            }
        )
    if ended or gone:
        stores.player_matches.mend(platform, player, ended, gone)
    return rows, None if after is None else str(after)
