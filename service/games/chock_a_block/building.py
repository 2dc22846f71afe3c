"""A player's building: where a card may go, and the structures derived from its rooms.

Coordinates (spec 0.5): rooms at ``(x, y)``, ``y = 0`` the ground floor, ``x = 0`` the left room
column of the first card. In GRID rules a card sits in card slot ``(c, r)`` and covers rooms
``x in {2c, 2c+1}``, ``y in {2r, 2r+1}``; in the BUILDING_BLOCK variant it sits at a room column
``room_x`` and drops to ``room_y`` (6.2).

A building is plain data: ``rooms`` maps ``"x,y"`` to a room
``{"card", "corner", "colour", "vacant", "features", "tile", "closed"}`` and ``cards`` lists the
placed cards ``{"card", "face", "column", "row"}`` (GRID) or ``{"card", "face", "room_x", "room_y"}``.
Colour groups (1.6.4) and chains (1.6.7) are derived here, never stored (1.6.10).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any

from service.games.protocol import IllegalAction
from service.games.texts import catalogue

_ = catalogue(__file__).gettext

Coord = tuple[int, int]
OFFSETS = {"BL": (0, 0), "BR": (1, 0), "TL": (0, 1), "TR": (1, 1)}  # 0.5.3
N4 = ((1, 0), (-1, 0), (0, 1), (0, -1))
N8 = N4 + ((1, 1), (1, -1), (-1, 1), (-1, -1))
STEPS = {"N4": N4, "N8": N8}


def key(x: int, y: int) -> str:
    return f"{x},{y}"


def coord(k: str) -> Coord:
    x, y = k.split(",")
    return int(x), int(y)


def card_rooms(face: dict[str, Any], x0: int, y0: int) -> list[tuple[Coord, str, dict[str, Any]]]:
    """The four rooms of a card face whose bottom-left room is at ``(x0, y0)`` (0.5.3)."""
    return [((x0 + dx, y0 + dy), corner, face[corner]) for corner, (dx, dy) in OFFSETS.items()]


# -- GRID placement (R-1.2 to) -----------------------------------------------------------------


def heights(cards: list[dict[str, Any]]) -> dict[int, int]:
    out: dict[int, int] = {}
    for card in cards:
        out[card["column"]] = out.get(card["column"], 0) + 1
    return out


def grid_row(cards: list[dict[str, Any]], column: int, max_columns: int, max_rows: int) -> int:
    """The row a card named for ``column`` lands in, or IllegalAction with the rule it breaks."""
    h = heights(cards)
    if not cards:
        if column != 0:
            raise IllegalAction("first_card_column", _("a player's first card goes in column 0 (R-1.4a)"))
        return 0
    height = h.get(column, 0)
    if height >= max_rows:
        raise IllegalAction(
            "height_limit",
            _(
                "column {column} already holds {height} cards: over the height limit (R-1.4b, 1.6.2)",
                column=column,
                height=height,
            ),
        )
    if height:
        return height  # R-1.4b: stacks on top
    if column - 1 not in h and column + 1 not in h:
        raise IllegalAction(
            "not_adjacent",
            _("column {column} is not next to an occupied column (R-1.3, R-1.4c)", column=column),
        )
    span = max(max(h), column) - min(min(h), column) + 1
    if span > max_columns:
        raise IllegalAction(
            "width_limit",
            _(
                "a card in column {column} would make the building {span} columns "
                "wide; the limit is {max_columns} (R-1.4c, 1.6.2)",
                column=column,
                span=span,
                max_columns=max_columns,
            ),
        )
    return 0


def grid_slots(cards: list[dict[str, Any]], max_columns: int, max_rows: int) -> list[tuple[int, int]]:
    """Every legal (column, row), left to right."""
    if not cards:
        return [(0, 0)]
    h = heights(cards)
    out = []
    for column in range(min(h) - 1, max(h) + 2):
        with contextlib.suppress(IllegalAction):
            out.append((column, grid_row(cards, column, max_columns, max_rows)))
    return out


# -- BUILDING_BLOCK placement (V-5) ---------------------------------------------------------------------


def tops(rooms: Iterable[Coord]) -> dict[int, int]:
    """``top(x)``: 1 + the highest room y of column x."""
    out: dict[int, int] = {}
    for x, y in rooms:
        if y + 1 > out.get(x, 0):
            out[x] = y + 1
    return out


def bb_landing(room_coords: list[Coord], room_x: int, max_width: int | None, max_height: int | None) -> int:
    """The ``room_y`` a card dropped at ``room_x`` lands on, or IllegalAction (V-5)."""
    if not room_coords:
        if room_x != 0:
            raise IllegalAction("first_card_column", _("a player's first card goes at room_x 0 (V-5)"))
        y0 = 0
    else:
        t = tops(room_coords)
        y0 = max(t.get(room_x, 0), t.get(room_x + 1, 0))
        occupied = set(room_coords)
        new = [(room_x + dx, y0 + dy) for dx in (0, 1) for dy in (0, 1)]
        if not any((x + dx, y + dy) in occupied for x, y in new for dx, dy in N4):
            raise IllegalAction(
                "not_adjacent",
                _(
                    "a card at room_x {room_x} lands at y {y0} and shares no room edge "
                    "with the building (R-1.3, V-5)",
                    room_x=room_x,
                    y0=y0,
                ),
            )
        xs = [x for x, _ in room_coords]
        width = max(max(xs), room_x + 1) - min(min(xs), room_x) + 1
        if max_width is not None and width > max_width:
            raise IllegalAction(
                "width_limit",
                _(
                    "the building would be {width} rooms wide; the limit is {max_width}",
                    width=width,
                    max_width=max_width,
                ),
            )
    if max_height is not None and y0 + 2 > max_height:
        raise IllegalAction(
            "height_limit",
            _(
                "a card at room_x {room_x} lands at y {y0}, over the {max_height}-room height limit (V-5)",
                room_x=room_x,
                y0=y0,
                max_height=max_height,
            ),
        )
    return y0


def bb_positions(
    room_coords: list[Coord], max_width: int | None, max_height: int | None
) -> list[tuple[int, int]]:
    """Every legal (room_x, room_y). A card further than two rooms from the building lands on the
    ground beside nothing, so the candidates are finite."""
    if not room_coords:
        candidates: Iterable[int] = [0]
    else:
        xs = [x for x, _ in room_coords]
        candidates = range(min(xs) - 2, max(xs) + 2)
    out = []
    for room_x in candidates:
        with contextlib.suppress(IllegalAction):
            out.append((room_x, bb_landing(room_coords, room_x, max_width, max_height)))
    return out


# -- derived structures --------------------------------------------------------------------------


def _components(cells: set[Coord], steps: Iterable[Coord]) -> list[list[Coord]]:
    seen: set[Coord] = set()
    out = []
    for start in sorted(cells, key=lambda c: (c[1], c[0])):
        if start in seen:
            continue
        seen.add(start)
        component = [start]
        stack = [start]
        while stack:
            x, y = stack.pop()
            for dx, dy in steps:
                other = (x + dx, y + dy)
                if other in cells and other not in seen:
                    seen.add(other)
                    component.append(other)
                    stack.append(other)
        out.append(sorted(component, key=lambda c: (c[1], c[0])))
    return out


def colour_groups(rooms: dict[str, dict[str, Any]], connectivity: str = "N4") -> list[dict[str, Any]]:
    """Maximal same-colour groups (1.6.4): vacant rooms belong, tile-covered rooms (colour null) do not."""
    by_colour: dict[str, set[Coord]] = {}
    for k, room in rooms.items():
        if room["colour"] is not None:
            by_colour.setdefault(room["colour"], set()).add(coord(k))
    groups = []
    for colour in sorted(by_colour):
        for component in _components(by_colour[colour], STEPS[connectivity]):
            vacant = [c for c in component if rooms[key(*c)]["vacant"]]
            groups.append({"colour": colour, "rooms": component, "vacant": vacant})
    return groups


def qualifying_groups(
    rooms: dict[str, dict[str, Any]], min_size: int, connectivity: str = "N4"
) -> list[dict[str, Any]]:
    """Groups of at least ``min_size`` rooms with a vacant room (1.6.5, R-2.1)."""
    return [g for g in colour_groups(rooms, connectivity) if len(g["rooms"]) >= min_size and g["vacant"]]


def icons(rooms: dict[str, dict[str, Any]], feature: str) -> tuple[set[Coord], set[Coord]]:
    """(open, closed) rooms showing ``feature`` (1.6.6)."""
    open_: set[Coord] = set()
    closed: set[Coord] = set()
    for k, room in rooms.items():
        if feature in room["features"]:
            (closed if feature in room["closed"] else open_).add(coord(k))
    return open_, closed


def chains(
    rooms: dict[str, dict[str, Any]], feature: str, connectivity: str = "N8", absorbs: bool = False
) -> list[list[Coord]]:
    """The open chains of ``feature`` (1.6.7): maximal connected sets of open icons. Closed icons
    neither belong nor connect (R-3.7). With ``absorbs`` (A-23, ``closed_chain_absorbs_new_icons``)
    an open icon connected (through icons of the feature) to a closed icon is absorbed: it is in no chain."""
    open_, closed = icons(rooms, feature)
    if absorbs and closed:
        absorbed: set[Coord] = set()
        for component in _components(open_ | closed, STEPS[connectivity]):
            if any(c in closed for c in component):
                absorbed.update(c for c in component if c in open_)
        open_ -= absorbed
    return _components(open_, STEPS[connectivity])


def absorbed_icons(rooms: dict[str, dict[str, Any]], feature: str, connectivity: str = "N8") -> set[Coord]:
    open_, _closed = icons(rooms, feature)
    in_chains = {c for chain in chains(rooms, feature, connectivity, absorbs=True) for c in chain}
    return open_ - in_chains
