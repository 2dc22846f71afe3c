"""Blackout's actions on the API in the house's one case style: ``snake_case`` types and fields, as the
other games' (``place_start_cube`` with ``location_id``), the rules spec's own words otherwise (§8.2).

The engine and the rules spec keep the spec's spelling (``PLACE_START_CUBE``, ``locationId``); the API
lists the snake_case names and takes either, the spec's being deprecated aliases
(docs/reference/naming.md). The log records events, not actions, so no entry names an action either way."""

import re

from marshmallow import Schema

from service.games.blackout_hong_kong.actions import TYPES, BlackoutHongKongAction, BlackoutObjectiveSource
from service.games.protocol import ActionNames


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _camel_fields(*schemas: type[Schema]) -> dict[str, str]:
    names = {name for schema in schemas for name in schema().fields}
    return {name: snake(name) for name in sorted(names) if snake(name) != name}


ACTION_NAMES = ActionNames(
    types={kind: kind.lower() for kind in TYPES},
    fields=_camel_fields(BlackoutHongKongAction, BlackoutObjectiveSource),
)
