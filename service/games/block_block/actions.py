"""The shape of a BLOCK.BLOCK action (spec 8.2); whether it is legal is the engine's business.

Two action types:

``{"type": "place", "shape": "I3", "rotation": 12, "x": 0, "y": 0}``
    PLACE_PIECE of the spec. ``shape`` is a shape id of the match's pack (the API names a shape,
    not a copy, 1.2.4); ``rotation`` an id of the rotation table (1.4.2: 0..23; 24..47 are mirror
    images, accepted only with ``allow_reflection``); ``(x, y)`` the cell under the turned piece's
    corner of smallest x and y (1.5.1). The engine derives the resting height ``z`` (1.5.3).
    Optional, as the legal-actions list gives them, each checked against what the engine derives
    (AE-1): ``z`` (the spec's ``expectedZ``; ``z_mismatch``), ``cubes`` (the positions the piece
    would occupy) and ``top_colours`` (the colour each of those cubes shows on top), both
    ``placement_mismatch``. So ``{"type": "place", "shape": "I3", "rotation": 12, "x": 0, "y": 0,
    "z": 0, "cubes": [[0,0,0],[0,0,1],[0,0,2]], "top_colours": ["BROWN","BROWN","WHITE"]}`` is
    the same action, as listed by ``legal_actions``.
``{"type": "resign"}``
    RESIGN (E-7): outside the rules, either player, at any time while the game runs.
"""

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from service.games.protocol import ActionParameters

PLACEMENT = ("shape", "rotation", "x", "y")
PARAMETERS = {
    "place": ActionParameters(required=PLACEMENT, optional=("z", "cubes", "top_colours")),
    "resign": ActionParameters(),
}
"""Each type's fields (``_placement_fields`` checks those a place must have)."""

Position = fields.List(
    fields.Integer(strict=True, validate=validate.Range(min=0, max=1023)),
    validate=validate.Length(equal=3),
    metadata={"description": "[x, y, z] of one cube"},
)


class BlockBlockAction(Schema):
    """``place`` a piece (shape, rotation, x, y; optionally the z, cubes and top colours it would
    have), or ``resign``."""

    type = fields.String(required=True, validate=validate.OneOf(["place", "resign"]))
    shape = fields.String(
        validate=validate.Length(min=1, max=64),
        metadata={"description": "A shape id of the pack, e.g. I1, I2, I3, I4, L3, O4, T4, H"},
    )
    rotation = fields.Integer(
        strict=True,
        validate=validate.Range(min=0, max=47),
        metadata={"description": "Rotation id of spec 1.4.2 (0..23; 24..47 mirror images)"},
    )
    x = fields.Integer(strict=True, validate=validate.Range(min=-64, max=64))
    y = fields.Integer(strict=True, validate=validate.Range(min=-64, max=64))
    z = fields.Integer(
        strict=True,
        validate=validate.Range(min=0, max=1023),
        metadata={"description": "Expected resting height (spec expectedZ); checked, not required"},
    )
    cubes = fields.List(
        Position,
        validate=validate.Length(min=1, max=16),
        metadata={"description": "The cubes the piece would occupy; checked, not required"},
    )
    top_colours = fields.List(
        fields.String(validate=validate.OneOf(["BROWN", "WHITE", "HALF"])),
        validate=validate.Length(min=1, max=16),
        metadata={"description": "Each cube's top colour, in the order of cubes; checked"},
    )

    class Meta:
        ordered = True

    @validates_schema
    def _placement_fields(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data.get("type") == "place":
            missing = {name: ["required for a place action"] for name in PLACEMENT if name not in data}
            if missing:
                raise ValidationError(missing)
