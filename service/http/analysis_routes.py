"""The analysis over the API, ``/v1/matches/{id}/analysis``: asked for once a match has ended, made by a
worker (``workers.jobs.analyse_match``), kept beside the match (``service.store.analyses``).

Who may ask and read: whoever may read the match's whole log once it has ended, that is anyone, with no
credential, a seat token of the match or the match's platform key (another platform's key is refused, as
for the log). The end reveals the seed, from which anyone can rebuild every hand: the analysis, which
judges each seat by what it could see, shows nothing the log does not."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.application.analysis import Analysis
from service.domain import analysis
from service.domain.errors import MatchNotOver
from service.domain.tokens import is_platform_key
from service.http import schemas
from service.http.auth import bearer, request_seat
from service.http.errors import ApiError
from service.http.routes import SEAT_OR_SPECTATOR, _errors, matches, v1


def _reader(match_id: str) -> str:
    """Who asks (checked as for the log): the caller an Idempotency-Key is scoped to."""
    seat = request_seat(matches(), match_id, required=False, platform="own")
    if seat is not None:
        return f"seat:{seat}"
    platform = matches().repository.meta(match_id).platform
    # a spectator's answer holds no token: any key will do (``ANYONE``'s keys guard tokens)
    return "platform:" + platform if platform and _has_key() else "spectator"


def _has_key() -> bool:
    token = bearer()
    return token is not None and is_platform_key(token)


@v1.route("/matches/<match_id>/analysis", methods=["POST"])
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(202, schemas.AnalysisSchema)
@v1.doc(security=SEAT_OR_SPECTATOR)
@_errors(400, 401, 403, 404, 409, 422, 429, 503)
def request_analysis(headers: dict[str, Any], match_id: str) -> dict[str, Any]:
    """Analyse the ended match in the background: each seat's actions against the best the game's analyst
    finds from what that seat could see, classified, with each seat's accuracy. Once per match: asking
    again answers with the same job, or its result (only a failed analysis is run again). 409
    ``match_not_over`` before the end; 422 ``analysis_unavailable`` for a game without an analysis."""
    caller = _reader(match_id)

    def ask(remember: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
        try:
            return Analysis(matches().stores).request(match_id)
        except MatchNotOver as error:
            raise ApiError(409, "match_not_over", str(error)) from None
        except analysis.NoAnalysis as error:
            raise ApiError(422, "analysis_unavailable", str(error)) from None

    return matches().idempotency.once(match_id, "analysis", caller, headers.get("idempotency_key"), [], ask)


@v1.route("/matches/<match_id>/analysis", methods=["GET"])
@v1.response(200, schemas.AnalysisSchema)
@v1.doc(security=SEAT_OR_SPECTATOR)
@_errors(401, 403, 404)
def get_analysis(match_id: str) -> dict[str, Any]:
    """The match's analysis: ``queued`` or ``running`` with its progress (actions judged of all), then
    ``done`` with the result, kept; 404 ``analysis_not_found`` when nobody has asked for it."""
    _reader(match_id)
    matches().repository.meta(match_id)  # 404 match_not_found first
    found = matches().stores.analyses.read(match_id)
    if found is None:
        raise ApiError(
            404, "analysis_not_found", "nobody has asked for this match's analysis: POST to ask for it"
        )
    return found
