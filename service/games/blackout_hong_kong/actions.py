"""The shape of a Blackout: Hong Kong action (spec §8.2, §8.3); whether it is legal is the engine's business.

``type`` selects the action. The spec's action types, with their parameters:
``PLACE_START_CUBE`` locationId; ``SUBMIT_PLAN`` slots ({"1": cardId, ...}); ``REVEAL_CARD`` slot;
``GATHER`` cardId, targetResource, buyTransport?; ``USE_SPECIALIST_ROW`` cardId, rowIndex,
alternativeIndex?, payment?; ``END_TURN``; ``COMPLETE_OBJECTIVE`` source, objectiveIndex, payment?;
``RESOLVE_CLOSE_OUT`` cardId, closeOut; ``PATROL_CHOOSE_DISTRICT`` districtId; ``PATROL_TAKE`` tileId,
challenge, partyCardIds, gps?; ``PATROL_DECLINE``; ``PATROL_SKIP``; ``BUY_MARKET_CARD`` row, col,
objectiveSpaceIndex; ``PASS``; ``CLEANUP_DISCARD_OBJECTIVES`` cardIds; ``CHOOSE_HOUSE`` districtId,
checkSpaceId; ``REFILL_HAND`` slot; ``DECLINE_REFILL``; ``ACTIVATE_CHECK_ACTION`` sourceId;
``BUY_TRANSPORT`` count; ``BUY_BATTERY`` count.

An effect that needs a choice (spec §3.9's pending decisions) is answered by its own action when it
comes up: ``PLACE_CUBE`` locationId (omitted: decline, where A-15 allows), ``CHOOSE_RESOURCE``
resource, ``RETRIEVE_CARD`` cardId, ``CHOOSE_CHECK_ACTION`` sourceId.

``payment`` is ``"AUTO"`` (the default) or ``{"resources": {"TOOLS": 1, "BATTERY": 1}, "hkd": 4}``.
``choices`` is what ``legal-actions`` lists beside an entry (the other payments, parties and GPS
counts it may be completed with); it is ignored when posted back.
"""

from collections.abc import Mapping
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from service.games.blackout_hong_kong.board import RESOURCES
from service.games.protocol import ActionParameters

_CARD_IDS = {"type": "array", "items": {"type": "string"}}
CHOICES = {
    "payment": {
        "type": "array",
        "description": "Every exact payment the seat can make, any of which may be sent as payment.",
        "items": {
            "type": "object",
            "properties": {
                "resources": {"type": "object", "additionalProperties": {"type": "integer"}},
                "hkd": {"type": "integer"},
            },
            "required": ["resources", "hkd"],
            "additionalProperties": False,
        },
    },
    "party": {
        **_CARD_IDS,
        "description": "PATROL_TAKE: the hand cards that may join the party (any subset).",
    },
    "gps": {"type": "array", "items": {"type": "integer"}, "description": "PATROL_TAKE: the GPS counts."},
    "needs": {"type": "integer", "description": "PATROL_TAKE: the icons the search total must reach."},
    "slots": {
        "type": "object",
        "additionalProperties": _CARD_IDS,
        "description": "SUBMIT_PLAN: per slot, the hand cards it may take (or none).",
    },
    "distinct": {"type": "boolean", "description": "SUBMIT_PLAN: the slots' cards are all different."},
    "count": {
        "type": "array",
        "items": {"type": "integer"},
        "minItems": 2,
        "maxItems": 2,
        "description": "BUY_TRANSPORT, BUY_BATTERY: the range of counts that may be bought.",
    },
    "transport": {"type": "integer", "description": "PLACE_CUBE: the transport the location costs."},
}
"""What ``choices`` may hold beside a listed entry (``listing``), as the contract's schema of it."""

TYPES = [
    "PLACE_START_CUBE",
    "SUBMIT_PLAN",
    "REVEAL_CARD",
    "GATHER",
    "USE_SPECIALIST_ROW",
    "END_TURN",
    "COMPLETE_OBJECTIVE",
    "RESOLVE_CLOSE_OUT",
    "PATROL_CHOOSE_DISTRICT",
    "PATROL_TAKE",
    "PATROL_DECLINE",
    "PATROL_SKIP",
    "BUY_MARKET_CARD",
    "PASS",
    "CLEANUP_DISCARD_OBJECTIVES",
    "CHOOSE_HOUSE",
    "REFILL_HAND",
    "DECLINE_REFILL",
    "ACTIVATE_CHECK_ACTION",
    "BUY_TRANSPORT",
    "BUY_BATTERY",
    "PLACE_CUBE",
    "CHOOSE_RESOURCE",
    "RETRIEVE_CARD",
    "CHOOSE_CHECK_ACTION",
]
REQUIRED = {
    "PLACE_START_CUBE": ("locationId",),
    "SUBMIT_PLAN": ("slots",),
    "REVEAL_CARD": ("slot",),
    "GATHER": ("cardId", "targetResource"),
    "USE_SPECIALIST_ROW": ("cardId", "rowIndex"),
    "COMPLETE_OBJECTIVE": ("source", "objectiveIndex"),
    "RESOLVE_CLOSE_OUT": ("cardId", "closeOut"),
    "PATROL_CHOOSE_DISTRICT": ("districtId",),
    "PATROL_TAKE": ("tileId", "challenge", "partyCardIds"),
    "BUY_MARKET_CARD": ("row", "col", "objectiveSpaceIndex"),
    "CLEANUP_DISCARD_OBJECTIVES": ("cardIds",),
    "CHOOSE_HOUSE": ("districtId", "checkSpaceId"),
    "REFILL_HAND": ("slot",),
    "ACTIVATE_CHECK_ACTION": ("sourceId",),
    "BUY_TRANSPORT": ("count",),
    "BUY_BATTERY": ("count",),
    "CHOOSE_RESOURCE": ("resource",),
    "RETRIEVE_CARD": ("cardId",),
    "CHOOSE_CHECK_ACTION": ("sourceId",),
}
OPTIONAL = {
    "GATHER": ("buyTransport",),
    "USE_SPECIALIST_ROW": ("alternativeIndex", "payment"),
    "COMPLETE_OBJECTIVE": ("payment",),
    "PATROL_TAKE": ("gps",),
    "PLACE_CUBE": ("locationId",),  # omitted: decline, where A-15 allows
}
PARAMETERS = {
    kind: ActionParameters(REQUIRED.get(kind, ()), (*OPTIONAL.get(kind, ()), "choices")) for kind in TYPES
}
"""Each type's fields; ``choices``, which legal-actions lists beside an entry, on every type."""
ID = validate.Length(min=1, max=100)


class Payment(fields.Field):
    """``"AUTO"`` or ``{"resources": {type: n}, "hkd": n}`` (§8.3)."""

    def _deserialize(
        self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any
    ) -> str | dict[str, Any]:
        if value == "AUTO":
            return value
        if not isinstance(value, dict) or set(value) - {"resources", "hkd"}:
            raise ValidationError('"AUTO" or {"resources": {...}, "hkd": n}')
        resources = value.get("resources", {})
        if not isinstance(resources, dict) or any(
            k not in (*RESOURCES, "BATTERY") or type(n) is not int or not 0 <= n <= 100
            for k, n in resources.items()
        ):
            raise ValidationError(f"resources: counts 0-100 of {', '.join((*RESOURCES, 'BATTERY'))}")
        hkd = value.get("hkd", 0)
        if type(hkd) is not int or not 0 <= hkd <= 1000:
            raise ValidationError("hkd: an integer 0-1000")
        return {"resources": dict(resources), "hkd": hkd}


class BlackoutObjectiveSource(Schema):
    area = fields.String(
        required=True,
        validate=validate.OneOf(["OBJECTIVE_SPACE", "EMERGENCY_PLAN", "POWER_RESTORATION", "SHARED_PLAN"]),
    )
    index = fields.Integer(
        strict=True,
        validate=validate.Range(min=0, max=2),
        metadata={"description": "OBJECTIVE_SPACE: the space, 0-2"},
    )
    which = fields.String(validate=validate.OneOf(["A", "B"]), metadata={"description": "POWER_RESTORATION"})
    cardId = fields.String(validate=ID, metadata={"description": "SHARED_PLAN: the plan's card id"})

    class Meta:
        ordered = True


class BlackoutHongKongAction(Schema):
    type = fields.String(required=True, validate=validate.OneOf(TYPES))
    locationId = fields.String(validate=ID, allow_none=True, metadata={"description": "a map location"})
    slots = fields.Dict(
        keys=fields.String(validate=validate.OneOf(["1", "2", "3", "4"])),
        values=fields.String(validate=ID),
        metadata={"description": "slot number -> a hand card"},
    )
    slot = fields.Integer(strict=True, validate=validate.Range(min=1, max=4))
    cardId = fields.String(validate=ID)
    targetResource = fields.String(validate=validate.OneOf(RESOURCES))
    buyTransport = fields.Integer(strict=True, validate=validate.Range(min=0, max=3))
    rowIndex = fields.Integer(strict=True, validate=validate.Range(min=0, max=20))
    alternativeIndex = fields.Integer(strict=True, validate=validate.Range(min=0, max=20))
    payment = Payment(
        metadata={
            "description": '"AUTO" or {"resources": {"TOOLS": 1, "BATTERY": 1}, "hkd": 4}',
            "oneOf": [
                {"type": "string", "enum": ["AUTO"]},
                {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "resources": {
                            "type": "object",
                            "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 100},
                        },
                        "hkd": {"type": "integer", "minimum": 0, "maximum": 1000},
                    },
                },
            ],
        }
    )
    source = fields.Nested(BlackoutObjectiveSource)
    objectiveIndex = fields.Integer(strict=True, validate=validate.Range(min=0, max=20))
    closeOut = fields.Boolean()
    districtId = fields.String(validate=ID)
    tileId = fields.String(validate=ID)
    challenge = fields.String(validate=validate.OneOf(["EASY", "HARD", "EXPLORATION"]))
    partyCardIds = fields.List(fields.String(validate=ID), validate=validate.Length(max=20))
    gps = fields.Integer(strict=True, validate=validate.Range(min=0, max=50))
    row = fields.Integer(strict=True, validate=validate.Range(min=0, max=2))
    col = fields.Integer(strict=True, validate=validate.Range(min=0, max=2))
    objectiveSpaceIndex = fields.Integer(strict=True, validate=validate.Range(min=0, max=2))
    cardIds = fields.List(fields.String(validate=ID), validate=validate.Length(max=10))
    checkSpaceId = fields.String(validate=ID)
    sourceId = fields.String(validate=ID)
    count = fields.Integer(strict=True, validate=validate.Range(min=1, max=25))
    resource = fields.String(validate=validate.OneOf(RESOURCES))
    choices = fields.Dict(
        metadata={
            "description": "from legal-actions: the ways this entry may be completed; ignored when posted",
            # what legal-actions lists (listing.py): the field stays a plain dict when posted, any content ignored
            "properties": CHOICES,
            "additionalProperties": False,
        }
    )

    class Meta:
        ordered = True

    @validates_schema
    def _parameters(self, data: dict[str, Any], **kwargs: Any) -> None:
        kind = data.get("type", "")  # (absent: nothing is required)
        missing = [name for name in REQUIRED.get(kind, ()) if name not in data]
        if missing:
            raise ValidationError({name: [f"required for {kind}"] for name in missing})
