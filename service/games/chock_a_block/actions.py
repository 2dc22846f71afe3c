"""The shape of a Chock-a-Block action (spec 8.2); whether it is legal is the engine's business.

``type`` selects the action; each type needs its own parameters:

* ``choose_excluded_feature``: ``feature`` (S-10, before the first turn, when the start player chooses)
* ``place_card``: ``card``, ``face`` and ``column`` (GRID; ``row`` optional, it must be the landing row)
  or ``room_x`` (BUILDING_BLOCK; ``room_y`` optional, it must be the landing height). Sending the
  parameter of the other building rules is refused by the engine (``misaligned``).
* ``place_neighbour``: ``tile`` (from the market) or ``source: PILE`` (where allowed), and ``x``, ``y``
* ``end_neighbours``: only when neighbours are optional (``neighbour_mandatory`` false)
* ``claim_token``: ``token``, ``x``, ``y`` (any room of the chain)
* ``draw_card``: ``source`` MARKET with ``slot``, or DECK
* ``end_turn``: when the draw does not apply
"""

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from service.games.chock_a_block.content import FEATURES
from service.games.protocol import ActionParameters

TYPES = [
    "choose_excluded_feature",
    "place_card",
    "place_neighbour",
    "end_neighbours",
    "claim_token",
    "draw_card",
    "end_turn",
]
REQUIRED = {
    "choose_excluded_feature": ("feature",),
    "place_card": ("card", "face"),
    "place_neighbour": ("x", "y"),
    "claim_token": ("token", "x", "y"),
    "draw_card": ("source",),
}
OPTIONAL = {  # column or room_x, tile or source PILE, slot with MARKET: _parameters checks which
    "place_card": ("column", "row", "room_x", "room_y"),
    "place_neighbour": ("tile", "source"),
    "draw_card": ("slot",),
}
PARAMETERS = {kind: ActionParameters(REQUIRED.get(kind, ()), OPTIONAL.get(kind, ())) for kind in TYPES}
"""Each type's fields."""


class ChockABlockAction(Schema):
    type = fields.String(required=True, validate=validate.OneOf(TYPES))
    feature = fields.String(validate=validate.OneOf(FEATURES))
    card = fields.String(
        validate=validate.Length(min=1, max=100), metadata={"description": "a card id in your hand"}
    )
    face = fields.String(validate=validate.OneOf(["FRONT", "BACK"]))
    column = fields.Integer(
        strict=True,
        validate=validate.Range(min=-100, max=100),
        metadata={"description": "GRID: the card column (0 = the first card's)"},
    )
    row = fields.Integer(
        strict=True,
        validate=validate.Range(min=-100, max=100),
        metadata={"description": "GRID, optional: the landing row"},
    )
    room_x = fields.Integer(
        strict=True,
        validate=validate.Range(min=-1000, max=1000),
        metadata={"description": "BUILDING_BLOCK: the left room column of the card"},
    )
    room_y = fields.Integer(
        strict=True,
        validate=validate.Range(min=-1000, max=1000),
        metadata={"description": "BUILDING_BLOCK, optional: the landing height"},
    )
    tile = fields.String(
        validate=validate.Length(min=1, max=100), metadata={"description": "a tile id in the market"}
    )
    source = fields.String(validate=validate.OneOf(["MARKET", "DECK", "PILE"]))
    slot = fields.Integer(
        strict=True, validate=validate.Range(min=0, max=100), metadata={"description": "a market slot"}
    )
    x = fields.Integer(
        strict=True, validate=validate.Range(min=-1000, max=1000), metadata={"description": "room x"}
    )
    y = fields.Integer(
        strict=True, validate=validate.Range(min=-1000, max=1000), metadata={"description": "room y"}
    )
    token = fields.String(
        validate=validate.Length(min=1, max=100), metadata={"description": "a token id, e.g. CAT-6"}
    )

    class Meta:
        ordered = True

    @validates_schema
    def _parameters(self, data: dict[str, Any], **kwargs: Any) -> None:
        kind = data.get("type", "")  # (absent: nothing is required)
        missing = [name for name in REQUIRED.get(kind, ()) if name not in data]
        if kind == "place_card" and "column" not in data and "room_x" not in data:
            missing.append("column")
        if kind == "place_neighbour" and "tile" not in data and data.get("source") != "PILE":
            missing.append("tile")
        if kind == "draw_card" and data.get("source") == "MARKET" and "slot" not in data:
            missing.append("slot")
        if missing:
            raise ValidationError({name: [f"required for {kind}"] for name in missing})
