"""Tournaments, ``/v1/tournaments``: a platform's players meet round after round, and anyone can recompute every
pairing and standing from the log (the use case is ``service.application.tournaments``). The platform that
creates a tournament registers its players, withdraws them and starts its rounds with its key; anyone reads a
tournament and its log."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC
from fractions import Fraction
from typing import Any, cast

from flask import Response, current_app

from service.application.livefeed import event
from service.application.tournaments import NewTournament, Tournaments
from service.domain import tournaments as rules
from service.domain.chain import Recorded
from service.domain.pairing import elimination
from service.games.texts import catalogue
from service.http import schemas
from service.http.auth import request_platform, required_platform
from service.http.feed_routes import END, event_stream, resumed_after, stream_refusals, subscribe
from service.http.middleware.guards import GuardedJSON
from service.http.routes import (
    CREATE_EXAMPLE,
    EVENT_STREAM,
    NO_CREDENTIAL,
    PLATFORM,
    _created_seat,
    _errors,
    matches,
    v1,
)
from service.store.repository import Lru

_ = catalogue(__file__).gettext


def tournaments() -> Tournaments:
    return current_app.extensions["matchlog-tournaments"]


def _platform() -> str:
    return required_platform(matches(), _("a tournament is run by its platform"))


def status(state: rules.TournamentState) -> str:
    if state.finished:
        return "finished"
    return "playing" if state.played else "registering"


def shown(state: rules.TournamentState, owner: bool) -> dict[str, Any]:
    """A tournament as the API shows it: to its platform, the current round's seats with their tokens."""
    rows = tournaments().standings(state)
    current = state.current
    shown_round = None
    if current is not None:
        shown_matches = []
        # an arena's current round: its last wave, and every game of an earlier wave still running
        for played in state.played if state.kind == "arena" else [current]:
            if played is not current and played.complete:
                continue
            tokens = tournaments().tokens(state.id, played.number) if owner else []
            for i, pairing in enumerate(played.pairings):
                if played is not current and pairing.ranks is not None:
                    continue
                row: dict[str, Any] = {
                    "match": pairing.match,
                    "players": list(pairing.players),
                    "ranks": list(pairing.ranks) if pairing.ranks is not None else None,
                }
                if owner and i < len(tokens):
                    match = matches().load(pairing.match)
                    row["seats"] = [
                        _created_seat(match, pairing.match, s, t) for s, t in enumerate(tokens[i])
                    ]
                shown_matches.append(row)
        shown_round = {
            "number": current.number,
            "matches": shown_matches,
            "byes": [{"player": b.player, "points": str(Fraction(b.points))} for b in current.byes],
            "complete": not state.playing,
        }
    rounds = state.total_rounds()
    return {
        "id": state.id,
        "name": state.name,
        "kind": state.kind,
        "game": state.game,
        "options": state.options,
        "players_per_match": state.size,
        "rounds": rounds,
        "rated": state.rated,
        "bots_allowed": state.bots_allowed,
        "max_players": state.max_players,
        "status": status(state),
        "version": state.version,
        "seed_commitment": state.commitment,
        "seed": state.seed,
        "players": [
            {
                "player": e.player,
                "name": e.name,
                "rating": e.rating,
                "bot": e.bot,
                "withdrawn": e.withdrawn,
                "joined_round": e.joined_round,
            }
            for e in state.entrants
        ],
        "standings": rows,
        "current_round": shown_round,
        "bracket": _bracket(state),
        "duration_minutes": state.duration_minutes,
        "knockout_draws": state.knockout_draws if state.kind in rules.ELIMINATION else None,
        "closes": state.closes,
        "starts_at": state.starts_at,
        "round_interval": state.round_interval,
        "next_round_at": rules.next_round_at(state),
    }


def _bracket(state: rules.TournamentState) -> dict[str, Any] | None:
    """A knockout's bracket: each meeting's sides, who went through and the match that decided it."""
    played = rules.bracket(state)
    if not played:
        return None
    decided_by = {p.meeting: p.match for r in state.played for p in r.pairings if p.meeting}
    walked = {m for r in state.played for m, _ in r.walkovers}
    return {
        "seeds": list(state.seeds),
        "meetings": [
            {
                "meeting": m.id,
                "players": list(m.players),
                "winner": m.winner,
                "match": decided_by.get(m.id),
                "walkover": m.id in walked,
            }
            for m in played
        ],
        "champion": elimination.champion(played),
    }


def _once(
    tournament_id: str | None,
    endpoint: str,
    platform: str,
    headers: dict[str, Any],
    request: Any,
    change: Callable[[], rules.TournamentState],
) -> dict[str, Any]:
    """The platform's view of ``change()``, once per ``Idempotency-Key``: a retry (a lost answer) gets the
    first answer back instead of a second round or a refusal."""
    key = headers.get("idempotency_key")
    scope = f"tournaments/{tournament_id}/{endpoint}" if tournament_id else endpoint
    return matches().idempotency.once(
        None, scope, f"platform:{platform}", key, request, lambda _: shown(change(), True)
    )


def _owner(state: rules.TournamentState) -> bool:
    platform = request_platform(matches())
    return platform is not None and platform["id"] == state.platform


@v1.route("/tournaments", methods=["POST"])
@v1.doc(operationId="createTournament")
@v1.arguments(
    schemas.CreateTournamentSchema(),
    example={
        "name": "Winter Swiss",
        "kind": "swiss",
        "game": CREATE_EXAMPLE["game"],
        "options": CREATE_EXAMPLE.get("options", {}),
        "rounds": 5,
    },
)
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(201, schemas.TournamentSchema)
@v1.doc(security=PLATFORM)
@_errors(400, 401, 409, 422, 429, 503)
def create_tournament(body: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
    """The platform creates a tournament of a game and mode: a round robin or a Swiss, with matches of
    `players_per_match`, or a single or double elimination (two players a match). Its seed is drawn now and
    kept secret, and the log commits to it (`seed_commitment`, SHA-256 of the seed): every pairing follows
    from the log and the seed, revealed when the tournament finishes. A platform may create 100 tournaments a
    day (`429 too_many_tournaments`). With a schedule (`starts_at`, `round_interval`) its rounds start by
    themselves when their time comes (`next_round_at`), and the organiser may still start one earlier."""
    platform = _platform()
    new = NewTournament(
        platform,
        body["name"],
        body["kind"],
        body["game"],
        body["options"],
        body["players_per_match"],
        body["rounds"],
        body["rated"],
        body["bots_allowed"],
        body["max_players"],
        body["duration_minutes"],
        body["knockout_draws"],
        body["starts_at"].astimezone(UTC).strftime(rules.AT_FORMAT) if body["starts_at"] else None,
        body["round_interval"],
    )
    return _once(None, "tournament", platform, headers, body, lambda: tournaments().create(new))


@v1.route("/tournaments/<tournament_id>", methods=["GET"])
@v1.doc(operationId="getTournament")
@v1.response(200, schemas.TournamentSchema)
@_errors(404)
def get_tournament(tournament_id: str) -> dict[str, Any] | Response:
    """A tournament: its players, its standings and its current round. Its platform (with its key) also gets
    the current round's seats with their tokens, and its request takes in the results of the round's matches
    that ended."""
    state = tournaments().load(tournament_id)
    if _owner(state):
        return shown(tournaments().record_results(tournament_id), True)
    return _shown_to_anyone(state)


def _shown_to_anyone(state: rules.TournamentState) -> Response:
    """The tournament as anyone reads it, made once per version and kept encoded: a thousand players' answer
    (some 250 KB) took a fifth of a second to make, and every spectator's page reads it again after each
    round's start."""
    kept: Lru = current_app.extensions["matchlog-tournaments-shown"]
    key = (state.id, state.version, state.head_hash)
    provider = cast(GuardedJSON, current_app.json)
    body = kept.get(key)
    if body is None:
        body = provider.body(schemas.TournamentSchema().dump(shown(state, False)))
        kept.put(key, body)
    if provider.indented:  # answers for people: decoded, to be indented
        return provider.response(json.loads(body))
    return current_app.response_class(body, mimetype=provider.mimetype)


@v1.route("/tournaments/<tournament_id>/players", methods=["POST"])
@v1.doc(operationId="registerTournamentPlayer")
@v1.arguments(schemas.TournamentPlayerSchema(), example={"player": "u-1", "name": "Ada"})
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(201, schemas.TournamentSchema)
@v1.doc(security=PLATFORM)
@_errors(400, 401, 404, 409, 422, 503)
def register_player(body: dict[str, Any], headers: dict[str, Any], tournament_id: str) -> dict[str, Any]:
    """A player of the platform enters (or a bot, where the tournament allows bots). A Swiss takes late
    entries, with no points; a round robin or a knockout takes none once its first round has started. `409
    tournament_refused` with `reason` `already_registered`, `registration_closed`, `tournament_full`,
    `bots_not_allowed` or `tournament_over`."""
    platform = _platform()
    return _once(
        tournament_id,
        "tournament-players",
        platform,
        headers,
        body,
        lambda: tournaments().register(
            platform, tournament_id, body["player"], body.get("name"), body["bot"]
        ),
    )


@v1.route("/tournaments/<tournament_id>/players/<player>", methods=["DELETE"])
@v1.doc(operationId="withdrawTournamentPlayer")
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(200, schemas.TournamentSchema)
@v1.doc(security=PLATFORM)
@_errors(401, 404, 409, 422, 503)
def withdraw_player(headers: dict[str, Any], tournament_id: str, player: str) -> dict[str, Any]:
    """A player leaves: it is paired no more (in a round robin its games not played yet are dropped, in a
    knockout its next meeting is a walkover) and keeps its place in the standings with what it scored. A match
    it is playing goes on. `409 tournament_refused` (`not_registered`, `tournament_over`)."""
    platform = _platform()
    return _once(
        tournament_id,
        f"tournament-players/{player}",
        platform,
        headers,
        [],
        lambda: tournaments().withdraw(platform, tournament_id, player),
    )


@v1.route("/tournaments/<tournament_id>/rounds", methods=["POST"])
@v1.doc(operationId="startTournamentRound")
@v1.arguments(schemas.IdempotencyHeaderSchema(), location="headers")
@v1.response(201, schemas.TournamentSchema)
@v1.doc(security=PLATFORM)
@_errors(401, 404, 409, 422, 429, 503)
def start_round(headers: dict[str, Any], tournament_id: str) -> dict[str, Any]:
    """The organiser starts the next round: the pairings follow from the log and the seed, a match is created
    for each (its seats' tokens in `current_round`, for the platform to hand out), and byes are given. `409
    tournament_refused` with `reason` `round_in_play` (a match of the round has not ended), `no_round_left`,
    `too_few_players` or `tournament_over`."""
    platform = _platform()
    return _once(
        tournament_id,
        "tournament-rounds",
        platform,
        headers,
        [],
        lambda: tournaments().start_round(platform, tournament_id),
    )


@v1.route("/tournaments/<tournament_id>/checkpoint", methods=["GET"])
@v1.doc(operationId="getTournamentCheckpoint")
@v1.response(200, schemas.TournamentCheckpointSchema)
@_errors(404)
def tournament_checkpoint(tournament_id: str) -> dict[str, Any]:
    """The tournament's version and the hash of its last entry, signed by the server (as a match's
    checkpoint): keep it beside an exported log, and `matchlog replay --checkpoint --public-key` proves the
    log is the one the server held, up to that version."""
    return tournaments().checkpoint(tournament_id)


TOURNAMENT_SSE_EVENT = {
    "type": "object",
    "additionalProperties": False,
    "description": "One event of the stream: an entry (`id`: its version; `data`: a TournamentFeedEntry as "
    "JSON), `end` (`data`: {}), or the `retry` advice that opens the stream.",
    "properties": {
        "event": {
            "type": "string",
            "enum": ["message", "end"],
            "description": "message (the default) for an entry; end: the tournament has finished.",
        },
        "id": {
            "type": "string",
            "pattern": "^[0-9]+$",
            "description": "The entry's version (end: the last).",
        },
        "retry": {"type": "integer", "description": "How long a client waits before reconnecting, in ms."},
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": {
                "oneOf": [
                    {"$ref": "#/components/schemas/TournamentFeedEntry"},
                    {"type": "object", "maxProperties": 0, "additionalProperties": False},
                ]
            },
            "description": "The entry with the standings (a TournamentFeedEntry); {} with end.",
        },
    },
}
"""What the tournament's live feed sends, one event at a time; its data decoded is TournamentFeedEvent."""


@v1.route("/tournaments/<tournament_id>/events/stream", methods=["GET"])
@v1.doc(operationId="streamTournamentEvents")
@v1.doc(security=NO_CREDENTIAL)
@v1.arguments(schemas.TournamentStreamQuerySchema(), location="query")
@v1.doc(
    responses={
        "200": {
            "description": "Server-Sent Events: each entry of the tournament's log, `id:` its version, `data:` "
            "a TournamentFeedEntry (the entry, and the standings after it on the last entry of what is sent "
            "at once); a `: ping` comment every 15 s; an `end` event after `tournament_finished`. Start "
            "after `?after=`; `Last-Event-ID` (a reconnect) wins over it. The end, without an event, after 5 "
            "minutes with nothing to deliver (reconnect with `Last-Event-ID`).",
            "content": {EVENT_STREAM: {"schema": {}, "itemSchema": TOURNAMENT_SSE_EVENT}},
        }
    },
)
@_errors(400, 404)
@stream_refusals
def stream_tournament(query: dict[str, Any], tournament_id: str) -> Response:
    """The tournament's log as it grows, pushed, with the standings: the entries after `after` (or
    `Last-Event-ID`), then each new one as it is appended, until the tournament finishes. Anyone may follow
    it, as anyone reads the log; it never holds a seat token."""
    app = tournaments()
    after = resumed_after(query)
    state = app.load(tournament_id)  # 404 for no such tournament, before the stream starts
    feed = current_app.extensions["matchlog-tournament-feed"]
    subscription = subscribe(feed, tournament_id)
    backlog = app.store.read(tournament_id, after)

    def show(entry: Recorded, last: bool) -> tuple[str, str | None]:
        def made() -> str:
            # the standings on the last entry of a batch only: those before it are superseded at once, and a
            # thousand players' standings take tens of milliseconds (made once per version, not per reader)
            standings = app.standings_at(tournament_id, entry.version) if last else None
            return event(
                entry.version, {"tournament": tournament_id, "entry": entry.as_dict(), "standings": standings}
            )

        shown = feed.rendered(("tournament", tournament_id, entry.version, entry.hash, last), made)
        return shown, END.format(version=entry.version) if entry.type == "tournament_finished" else None

    ended = state.version if state.finished and not backlog else None  # resumed at its end: nothing will come
    return event_stream(feed, subscription, after, backlog, show, ended)


@v1.route("/tournaments/<tournament_id>/log", methods=["GET"])
@v1.doc(operationId="getTournamentLog")
@v1.arguments(schemas.TournamentLogQuerySchema(), location="query")
@v1.response(200, schemas.TournamentLogSchema)
@_errors(400, 404)
def tournament_log(query: dict[str, Any], tournament_id: str) -> dict[str, Any]:
    """A page of the tournament's hash-chained log (`after`, `limit`): what `matchlog replay --tournament`
    recomputes every pairing, bye and standing from, once the seed is revealed."""
    entries, version = tournaments().log(tournament_id, query["after"], query["limit"])
    return {"tournament": tournament_id, "version": version, "entries": [e.as_dict() for e in entries]}
