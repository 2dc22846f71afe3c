"""The shape of a Blokus action (spec 6.1); whether it is legal is the engine's business."""

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from service.games.blokus.geometry import PIECE_NAMES
from service.games.protocol import ActionParameters

PARAMETERS = {
    "place": ActionParameters(required=("cells",), optional=("colour", "piece")),
    "pass": ActionParameters(optional=("colour",)),
}
"""Each type's fields (``place_needs_cells`` checks the one it must have)."""

Square = fields.List(
    fields.Integer(strict=True),
    validate=validate.Length(equal=2),
    metadata={"description": "[x, y], 0-based from the top-left square"},
)


class BlokusAction(Schema):
    """``place`` a piece on the listed squares (the piece may be left out: the squares identify it),
    or ``pass`` where the match allows it. ``place`` needs ``cells``."""

    type = fields.String(required=True, validate=validate.OneOf(["place", "pass"]))
    colour = fields.String(
        validate=validate.OneOf(["blue", "yellow", "red", "green", "purple", "orange"]),
        metadata={
            "description": "Optional where colours take turns (it must then be the "
            "colour to move); required in solo_rectangle."
        },
    )
    piece = fields.String(
        validate=validate.OneOf(PIECE_NAMES),
        metadata={
            "description": "1, 2, I3, V3, I4, L4, T4, Z4, O4, I5, L5, Y5, N5, P5, U5, V5, W5, Z5, T5, F5, X5"
        },
    )
    cells = fields.List(Square, validate=validate.Length(min=1, max=5))

    class Meta:
        ordered = True

    @validates_schema
    def place_needs_cells(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data.get("type") == "place" and "cells" not in data:
            raise ValidationError("a place action lists the squares it covers", field_name="cells")
