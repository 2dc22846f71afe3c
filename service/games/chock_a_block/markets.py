"""The block market and the neighbour market: taking from a slot and refilling it.

A market is a list of slots holding an id or None, fed by a face-down source (the deck or the tile
pile, index 0 = top). Two refill rules:

* ``ROW`` (AE-3): the top of the source goes into the emptied slot; nothing moves.
* ``COLUMN`` (AE-4, every game with Autoblock): slot 0 is the top. The items above the emptied
  slot slide down one place, keeping their order, and the top of the source goes into slot 0.
  Occupied slots therefore always form a bottom-aligned run.

In both, an empty source leaves the slot empty (A-30, A-43). These functions are pure.
"""

from __future__ import annotations

from typing import Any


def refill(market: list[Any], source: list[Any], slot: int, slide: bool) -> tuple[list[Any], list[Any], Any]:
    """(market, source, item placed) after slot ``slot`` was emptied."""
    market = list(market)
    item = source[0] if source else None
    if slide:
        market[1 : slot + 1] = market[0:slot]
        market[0] = item
    else:
        market[slot] = item
    return market, source[1:], item


def bottom_slot(market: list[Any]) -> int | None:
    """The slot Autoblock takes from (AE-7): the highest-numbered occupied slot."""
    for slot in range(len(market) - 1, -1, -1):
        if market[slot] is not None:
            return slot
    return None


def occupied(market: list[Any]) -> list[int]:
    return [slot for slot, item in enumerate(market) if item is not None]
