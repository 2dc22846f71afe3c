"""Challenges, ``/v1/challenges``, and rematches, ``/v1/matches/{id}/rematch``: a match that starts when every
player named in it has accepted (the use case is ``service.application.challenges``). A challenge is a
platform's, between its players, and takes its key; a rematch is asked for by the seats of a finished match,
each with its token."""

from __future__ import annotations

from typing import Any

from flask import current_app, request

from service.application.challenges import Challenges, NewChallenge
from service.games.texts import catalogue
from service.http import schemas
from service.http.auth import acting_seat, required_platform
from service.http.routes import CREATE_EXAMPLE, PLATFORM, SEAT, _clock, _created_seat, _errors, matches, v1
from service.http.seek_routes import cursor_at, cursor_of, iso

_ = catalogue(__file__).gettext


def challenges() -> Challenges:
    return current_app.extensions["matchlog-challenges"]


def _platform() -> str:
    return required_platform(matches(), _("challenges are between a platform's players"))


def shown(record: dict[str, Any]) -> dict[str, Any]:
    """A challenge as its platform sees it: once started, the match's seats with their tokens."""
    seats = []
    if record["match"]:
        state = matches().load(record["match"])
        tokens = challenges().tokens(record, f"challenge:{record['id']}")
        seats = [_created_seat(state, record["match"], seat, tokens[seat]) for seat in range(len(tokens))]
    clock = record["clock"]
    return {
        "id": record["id"],
        "challenger": record["challenger"],
        "challenged": record["challenged"],
        "accepted": record["accepted"],
        "game": record["game"],
        "options": record["options"],
        "rated": record["rated"],
        "clock": record["clock_shown"],
        "on_timeout": clock["on_timeout"] if clock else None,
        "status": record["status"],
        "declined_by": record["declined_by"],
        "created_at": iso(record["created_ms"]),
        "expires_at": iso(record["expires_ms"]),
        "match": record["match"],
        "seats": seats,
    }


@v1.route("/challenges", methods=["POST"])
@v1.doc(operationId="createChallenge")
@v1.arguments(
    schemas.CreateChallengeSchema(),
    example={"challenger": "u-1", "challenged": ["u-2"], "game": CREATE_EXAMPLE["game"]},
)
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(201, schemas.ChallengeSchema)
@v1.doc(security=PLATFORM)
@_errors(400, 401, 409, 422, 429, 503)
def create_challenge(body: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """A player of the platform challenges others of its players, by id, to a match with these settings:
    it starts when every challenged player has accepted (`POST .../accept`), and is gone when one declines
    or a day passes. The seats are ordered by no player's choice (SHA-256 of the challenge's id and each
    player). A player may make 50 challenges a day (`429 too_many_challenges`)."""
    platform = _platform()
    new = NewChallenge(
        platform,
        body["challenger"],
        body["challenged"],
        body["game"],
        body["options"],
        body["names"],
        _clock(body),
        body.get("clock"),
        body["rated"],
    )
    return matches().idempotency.once(
        None,
        "challenge",
        f"platform:{platform}",
        headers.get("idempotency_key"),
        body,
        lambda remember: shown(challenges().challenge(new)),
    )


@v1.route("/challenges", methods=["GET"])
@v1.doc(operationId="listChallenges")
@v1.arguments(schemas.ChallengesQuerySchema(), location="query")
@v1.response(200, schemas.ChallengesSchema)
@v1.doc(security=PLATFORM)
@_errors(400, 401)
def list_challenges(query: dict[str, Any]) -> dict[str, Any]:
    """The challenges of the last day from or to a player of the platform, newest first; `cursor` pages on."""
    platform = _platform()
    rows, following = challenges().of_player(platform, query["player"], cursor_at(query), query["limit"])
    return {"challenges": [shown(row) for row in rows], "next_cursor": cursor_of(following)}


@v1.route("/challenges/<challenge_id>", methods=["GET"])
@v1.doc(operationId="getChallenge")
@v1.response(200, schemas.ChallengeSchema)
@v1.doc(security=PLATFORM)
@_errors(401, 404)
def get_challenge(challenge_id: str) -> dict[str, Any]:
    """A challenge of the platform: who accepted, and once started its match with the seats' tokens."""
    return shown(challenges().get(_platform(), challenge_id))


@v1.route("/challenges/<challenge_id>/accept", methods=["POST"])
@v1.doc(operationId="acceptChallenge")
@v1.arguments(schemas.ChallengeAnswerSchema(), example={"player": "u-2"})
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(200, schemas.ChallengeSchema)
@v1.doc(security=PLATFORM)
@_errors(400, 401, 403, 404, 409, 422, 503)
def accept_challenge(body: dict[str, Any], headers: dict[str, Any], challenge_id: str) -> dict[str, Any]:
    """A challenged player accepts (again: nothing changes); the last acceptance starts the match, and the
    answer has it. `409 not_open` once started, declined, cancelled or expired; `403 not_in_challenge` for a
    player not in it."""
    return _answered(challenge_id, body["player"], True, headers)


@v1.route("/challenges/<challenge_id>/decline", methods=["POST"])
@v1.doc(operationId="declineChallenge")
@v1.arguments(schemas.ChallengeAnswerSchema(), example={"player": "u-2"})
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(200, schemas.ChallengeSchema)
@v1.doc(security=PLATFORM)
@_errors(400, 401, 403, 404, 409, 422, 503)
def decline_challenge(body: dict[str, Any], headers: dict[str, Any], challenge_id: str) -> dict[str, Any]:
    """A challenged player declines (`declined`), or the challenger withdraws (`cancelled`): no match."""
    return _answered(challenge_id, body["player"], False, headers)


def _answered(challenge_id: str, player: str, accepted: bool, headers: dict[str, Any]) -> dict[str, Any]:
    """A player's answer to a challenge, once per ``Idempotency-Key`` (a retry gets the first answer back)."""
    platform = _platform()
    return matches().idempotency.once(
        None,
        "challenge-answer",
        f"platform:{platform}",
        headers.get("idempotency_key"),
        [challenge_id, player, accepted],
        lambda remember: shown(challenges().answer(platform, challenge_id, player, accepted)),
    )


@v1.route("/matches/<match_id>/rematch", methods=["POST"])
@v1.doc(operationId="askRematch")
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(200, schemas.RematchOfferSchema)
@v1.doc(security=SEAT)
@_errors(401, 403, 404, 409, 422, 503)
def ask_rematch(headers: dict[str, Any], match_id: str) -> dict[str, Any]:
    """The token's seat of a finished match asks for a rematch: the same game, options, clock and players,
    each seat moved one on (the first seat's player, and its colours, pass to the next). It starts when every
    seat a person holds has asked (a bot's agrees); the answer then has the new match, the asking seat's
    seat in it and its token; a seat that asked earlier reads its own with `GET`. `409 match_not_over`
    before the end."""
    seat = acting_seat(matches(), match_id)
    return matches().idempotency.once(
        match_id,
        "rematch",
        f"seat:{seat}",
        headers.get("idempotency_key"),
        [],
        lambda remember: challenges().rematch(match_id, seat, True, request.remote_addr),
    )


@v1.route("/matches/<match_id>/rematch", methods=["GET"])
@v1.doc(operationId="getRematch")
@v1.response(200, schemas.RematchOfferSchema)
@v1.doc(security=SEAT)
@_errors(401, 403, 404, 409)
def get_rematch(match_id: str) -> dict[str, Any]:
    """Where the rematch of a finished match stands, for the token's seat: the seats that asked and, once
    started, the new match with this seat's seat and token."""
    return challenges().rematch(match_id, acting_seat(matches(), match_id), False)
