"""The listings of matches as a client pages through them (``GET /v1/matches``), and their index."""

from __future__ import annotations

import json
from typing import Any

from service.application import abandonment, entry_time
from service.application.stores import Stores
from service.store.listings import Listings


def listed_rows(
    listings: Listings,
    platform: str | None,
    game_id: str | None,
    status: str | None,
    cursor: str | None,
    limit: int,
    newest_first: bool = False,
) -> tuple[bytes, int, str | None]:
    """A page of a listing (``Listings.page``) as the answer carries its rows, joined by commas
    (``rows.Page.shown``, their times as of now), how many they are, and the cursor of the next page."""
    found, next_cursor = listings.page(platform, game_id, status, cursor, limit, newest_first)
    return found.shown(entry_time.now()), found.rows, next_cursor


def listed(
    listings: Listings,
    platform: str | None,
    game_id: str | None,
    status: str | None,
    cursor: str | None,
    limit: int,
    newest_first: bool = False,
) -> tuple[list[dict[str, Any]], str | None]:
    """A page of a listing as match summaries, and the cursor of the next page."""
    text, _, next_cursor = listed_rows(listings, platform, game_id, status, cursor, limit, newest_first)
    return json.loads(b"[" + text + b"]"), next_cursor


def index_listings(stores: Stores) -> int:
    """Put every listed match in the listings narrowed to its game and status, and every listed match not
    over under the abandonment watch from its last entry (``matchlog migrate``). Returns how many it listed."""
    platforms = [p["id"] for p in stores.platforms.listed()]
    listed = stores.listings.index_all(platforms)
    abandonment.watch_listed(stores, platforms)
    return listed
