"""The analysis over the API, ``/v1/matches/{id}/analysis``: asked for once a match has ended, made by a
worker (``workers.jobs.analyse_match``), kept beside the match (``service.store.analyses``).

Who may ask and read: whoever may read the match's whole log once it has ended, that is anyone, with no
credential, a seat token of the match or the match's platform key (another platform's key is refused, as
for the log). The end reveals the seed, from which anyone can rebuild every hand: the analysis, which
judges each seat by what it could see, shows nothing the log does not."""

from __future__ import annotations

from typing import Any

from flask import request

from service.application.analysis import Analysis
from service.domain import analysis
from service.domain.addresses import counted_address
from service.domain.errors import MatchNotOver
from service.games.texts import catalogue
from service.http import schemas
from service.http.auth import request_platform, request_seat
from service.http.errors import ApiError
from service.http.routes import _errors, matches, v1

_ = catalogue(__file__).gettext


def _check_reader(match_id: str) -> None:
    """403 for a caller who may not read the match's log (another platform's key, a wrong token)."""
    request_seat(matches(), match_id, required=False, platform="own")


@v1.route("/matches/<match_id>/analysis", methods=["POST"])
@v1.doc(operationId="requestAnalysis")
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(202, schemas.AnalysisSchema)
@_errors(400, 401, 403, 404, 409, 422, 429, 503)
def request_analysis(headers: dict[str, Any], match_id: str) -> dict[str, Any]:
    """Analyse the ended match in the background: each seat's actions against the best the game's analyst
    finds from what that seat could see, classified, with each seat's accuracy. Once per match: asking
    again answers with the same job, or its result (only a failed analysis is run again). 409
    `match_not_over` before the end; 422 `analysis_unavailable` for a game without an analysis; 429
    `too_many_analyses` when asking would start one while the caller (a client address, or a platform's key)
    has as many waiting or running as it may (`limit`)."""
    _check_reader(match_id)
    # once per match by itself, so a retry answers as the first did (the same job, or its result) and nothing
    # is kept under its Idempotency-Key: a copy of the answer kept per key (a day, the whole analysis once
    # done) let anyone fill Redis, a new key a request
    try:
        platform = request_platform(matches())
        address = counted_address(request.remote_addr)
        return Analysis(matches().stores).request(match_id, platform["id"] if platform else None, address)
    except MatchNotOver as error:
        raise ApiError(409, "match_not_over", str(error)) from None
    except analysis.NoAnalysis as error:
        raise ApiError(422, "analysis_unavailable", str(error)) from None


@v1.route("/matches/<match_id>/analysis", methods=["GET"])
@v1.doc(operationId="getAnalysis")
@v1.response(200, schemas.AnalysisSchema)
@_errors(401, 403, 404)
def get_analysis(match_id: str) -> dict[str, Any]:
    """The match's analysis: `queued` or `running` with its progress (actions judged of all), then
    `done` with the result, kept; 404 `analysis_not_found` when nobody has asked for it."""
    _check_reader(match_id)
    matches().repository.meta(match_id)  # 404 match_not_found first
    found = matches().stores.analyses.read(match_id)
    if found is None:
        raise ApiError(
            404, "analysis_not_found", _("nobody has asked for this match's analysis: POST to ask for it")
        )
    return found
