"""A platform's webhooks, ``/v1/webhooks``: register, list, enable, remove, and read their delivery
attempts (the deliveries themselves are ``service.application.deliveries``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from service.games.texts import catalogue
from service.http import schemas
from service.http.auth import (
    request_platform,
)
from service.http.errors import ApiError, invalid
from service.http.routes import JSON, OTHER_EVENTS, PLATFORM, _errors, entry_types, matches, v1
from service.store.webhooks import BadWebhookUrl, check_url

_ = catalogue(__file__).gettext


@v1.route("/webhooks", methods=["POST"])
@v1.doc(operationId="createWebhook")
@v1.arguments(
    schemas.WebhookSchema(),
    example={"url": "https://example.com/matchlog-hooks", "events": ["match_started", "match_scored"]},
)
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(201, schemas.WebhookCreatedSchema)
@v1.doc(
    security=PLATFORM,
    callbacks={
        "delivery": {
            "{$request.body#/url}": {
                "post": {
                    "summary": "A delivery: the entries of one append that the webhook asked for, "
                    "as a spectator sees them",
                    "parameters": [
                        {
                            "name": "Matchlog-Signature",
                            "in": "header",
                            "required": True,
                            "schema": {"type": "string"},
                            "description": (
                                '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">,v2=<hex HMAC-SHA256 of '
                                '"<t>.<Matchlog-Delivery>.<body>">`, both with the webhook\'s secret. Check v2: '
                                "it covers the delivery id too; v1 is sent for one more release."
                            ),
                        },
                        {
                            "name": "Matchlog-Delivery",
                            "in": "header",
                            "required": True,
                            "schema": {"type": "string"},
                            "description": "The delivery's id, the same on every retry (for "
                            "de-duplication); signed by v2.",
                        },
                    ],
                    "requestBody": {
                        "required": True,
                        "content": {JSON: {"schema": {"$ref": "#/components/schemas/WebhookDelivery"}}},
                    },
                    "responses": {
                        "2XX": {
                            "description": "Delivered. Any other answer, or none within 5 s "
                            "(MATCHLOG_WEBHOOK_DEADLINE_S: the whole attempt, connection included), is retried "
                            "with backoff; after 5 deliveries in a row that failed every attempt "
                            "(MATCHLOG_WEBHOOK_DISABLE_AFTER) the webhook is disabled."
                        }
                    },
                }
            }
        }
    },
)
@_errors(400, 401, 409, 422, 429, 503)
def create_webhook(body: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """Deliver the entries of these `events` types, for every match of the key's platform, to `url`:
    signed (`Matchlog-Signature`), retried with backoff, each with a `Matchlog-Delivery` id. The
    `secret` (made when not given) is shown only now. `409 too_many_webhooks` when the platform has
    as many as it may (10 by default, `MATCHLOG_WEBHOOKS_PER_PLATFORM`; `limit` says how many)."""
    platform = _webhooks_platform()
    try:
        check_url(body["url"], matches().settings.webhooks_private)
    except BadWebhookUrl as error:
        raise invalid({"url": [str(error)]}) from None
    unknown = sorted(set(body["events"]) - entry_types() - OTHER_EVENTS)
    if unknown:
        raise invalid(
            {
                "events": [
                    f"no entry type {', '.join(map(repr, unknown))} in any game here: the catalogue "
                    "(GET /v1/games) lists each game's entry_types"
                ]
            }
        )
    return matches().idempotency.once(
        None,
        "webhooks",
        "platform:" + platform["id"],
        headers.get("idempotency_key"),
        body,
        lambda remember: matches().stores.webhooks.register(
            platform["id"], body["url"], body["events"], body.get("secret"), body.get("language")
        ),
    )


@v1.route("/webhooks", methods=["GET"])
@v1.doc(operationId="listWebhooks")
@v1.response(200, schemas.WebhooksSchema)
@v1.doc(security=PLATFORM)
@_errors(401, 503)
def list_webhooks() -> dict[str, Any]:
    """The key's platform's webhooks, by id (without their secrets): after a `503` on a
    registration, one that is not listed was not registered; one that is, was (delete it if its
    secret, made by the server, never arrived)."""
    return {"webhooks": matches().stores.webhooks.of_platform(_webhooks_platform()["id"])}


def _webhooks_platform() -> dict[str, Any]:
    platform = request_platform(matches())
    if platform is None:
        raise ApiError(
            401, "platform_key_required", _("webhooks belong to a platform: Authorization: Bearer <key>")
        )
    return platform


@v1.route("/webhooks/<hook_id>", methods=["DELETE"])
@v1.doc(operationId="deleteWebhook")
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(204)
@v1.doc(security=PLATFORM)
@_errors(400, 401, 403, 404, 409, 422, 429, 503)
def delete_webhook(headers: dict[str, Any], hook_id: str) -> str:
    """Stop delivering to this webhook and forget it with its deliveries. Deliveries already queued
    find it gone. Again after a `503`: `404 webhook_not_found` means it is gone."""
    platform = _webhooks_platform()["id"]

    def remove(remember: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
        matches().stores.webhooks.remove(hook_id, _own_webhook(hook_id)["platform"])
        return {}

    matches().idempotency.once(
        None, f"webhooks/{hook_id}", "platform:" + platform, headers.get("idempotency_key"), [], remove
    )
    return ""


@v1.route("/webhooks/<hook_id>", methods=["PATCH"])
@v1.doc(operationId="updateWebhook")
@v1.arguments(schemas.WebhookPatchSchema(), example={"status": "enabled"})
@v1.response(200, schemas.WebhookListedSchema)
@v1.doc(security=PLATFORM)
@_errors(400, 401, 403, 404, 429, 503)
def patch_webhook(body: dict[str, Any], hook_id: str) -> dict[str, Any]:
    """Enable a webhook again (`{"status": "enabled"}`) that the server disabled for failing: deliveries
    resume from the next append on (those of the appends meanwhile are not sent: read the matches' logs).
    Enabling an enabled one changes nothing."""
    hook = _own_webhook(hook_id)
    matches().stores.webhooks.enable(hook_id)
    enabled = next(
        (h for h in matches().stores.webhooks.of_platform(hook["platform"]) if h["id"] == hook_id), None
    )
    if enabled is None:  # removed meanwhile (its platform's DELETE)
        raise ApiError(404, "webhook_not_found", _("no webhook {hook_id!r}", hook_id=hook_id))
    return enabled


@v1.route("/webhooks/<hook_id>/deliveries", methods=["GET"])
@v1.doc(operationId="listWebhookDeliveries")
@v1.arguments(schemas.DeliveriesQuerySchema(), location="query")
@v1.response(200, schemas.DeliveriesSchema)
@v1.doc(security=PLATFORM)
@_errors(400, 401, 403, 404)
def get_deliveries(query: dict[str, Any], hook_id: str) -> dict[str, Any]:
    """The delivery attempts, newest first, `limit` a page (the latest 10,000 or so are kept): delivery
    id, attempt, when (ISO 8601 UTC), its `outcome` (`status`, with the HTTP `status`; or why none
    came: `timeout`, `refused`, `reset`, `unreachable`, `tls`, `not_http`, `address_refused`),
    time taken. `next_cursor` asks for the
    next, older page (null: none)."""
    _own_webhook(hook_id)
    page, cursor = matches().stores.webhooks.deliveries(hook_id, query.get("cursor"), query["limit"])
    return {"deliveries": page, "next_cursor": cursor}


def _own_webhook(hook_id: str) -> dict[str, Any]:
    """The webhook, if the key's platform has it: 401 without a key, 404 unknown, 403 another's."""
    platform = _webhooks_platform()
    hook = matches().stores.webhooks.get(hook_id) if re.fullmatch(r"[0-9a-f]{16}", hook_id) else None
    if hook is None:
        raise ApiError(404, "webhook_not_found", _("no webhook {hook_id!r}", hook_id=hook_id))
    if hook["platform"] != platform["id"]:
        raise ApiError(403, "not_your_webhook", _("this webhook belongs to another platform"))
    return hook
