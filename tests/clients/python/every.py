"""A program against the client openapi-python-client generates from openapi.yaml (matchlog_client): every
operation called once with typed arguments, its answer narrowed to the generated model, the live feed read to
its end as FeedEvents and one move sent on the moves socket as a BlokusMovesSocketMove. No cast, no Any, no
type: ignore. tests/test_generated_client.py checks it under mypy --strict with the package, and runs it
against a real ``matchlog serve``: ``python every.py BASE_URL PLATFORM_KEY`` prints one line per operation,
``<operationId> <status>``, then ``feed <entries> <last entry's type>`` and ``socket <status>``, and stops
(exit status 1) at the first answer that is not the one it expects."""

from __future__ import annotations

import json
import sys
import time
from http import HTTPStatus
from typing import TypeVar

import httpx
import websocket
from matchlog_client import AuthenticatedClient, Client
from matchlog_client.api.probes import check_health, check_ready, get_metrics
from matchlog_client.api.v1 import (
    abort_match,
    accept_challenge,
    accept_undo,
    ask_rematch,
    cancel_seek,
    concede,
    create_challenge,
    create_match,
    create_seek,
    create_tournament,
    create_webhook,
    decline_challenge,
    delete_webhook,
    export_matches,
    get_analysis,
    get_challenge,
    get_checkpoint,
    get_job,
    get_leaderboard,
    get_log,
    get_match,
    get_picture,
    get_player,
    get_record,
    get_rematch,
    get_seek,
    get_signing_key,
    get_state,
    get_tournament,
    get_tournament_checkpoint,
    get_tournament_log,
    import_match,
    join_seat,
    list_challenges,
    list_events,
    list_games,
    list_legal_actions,
    list_matches,
    list_player_matches,
    list_seeks,
    list_webhook_deliveries,
    list_webhooks,
    refuse_undo,
    register_tournament_player,
    replace_seat,
    request_analysis,
    score_match,
    start_tournament_round,
    stream_events,
    stream_tournament_events,
    submit_action,
    undo_move,
    update_webhook,
    withdraw_tournament_player,
)
from matchlog_client.models import (
    Abort,
    BlokusCreateMatch,
    BlokusCreateMatchGame,
    BlokusCreateMatchUndo,
    BlokusEvents,
    BlokusLegalActions,
    BlokusMatch,
    BlokusMovesSocketAccepted,
    BlokusMovesSocketMove,
    BlokusSubmitAction,
    BotName,
    Challenge,
    ChallengeAnswer,
    CreateChallenge,
    CreatedMatch,
    CreatedSeek,
    CreateSeek,
    CreateTournament,
    CreateTournamentKind,
    FeedEnd,
    FeedEvent,
    ImportMatch,
    ImportMatchRecordType,
    JobAccepted,
    Join,
    ListPlayerMatchesStatus,
    MovesSocketRefused,
    Player,
    ReplaceSeat,
    Tournament,
    TournamentFeedEntry,
    TournamentFeedEvent,
    TournamentPlayer,
    TournamentRound,
    TournamentTournamentFinishedEntry,
    Webhook,
    WebhookCreated,
    WebhookEvent,
    WebhookPatch,
    WebhookPatchStatus,
)
from matchlog_client.types import Response, Unset

RECORD = "(;GM[Blokus Duo]PB[Pia]PW[Olu];B[e10,f10])"
WAIT_S = 60
"""How long the program waits for the server's workers (scoring, rating), at most."""


Parsed = TypeVar("Parsed")


def said(operation: str, answer: Response[Parsed], expected: HTTPStatus) -> None:
    """Print an operation's status; stop at one other than ``expected``."""
    print(f"{operation} {answer.status_code.value}", flush=True)
    if answer.status_code != expected:
        raise SystemExit(f"{operation}: {answer.status_code.value} {answer.content[:300]!r}, not {expected}")


def every_operation(base: str, platform_key: str) -> None:
    """Each operation once: a platform's rated Blokus match, its two seats moving (once on the moves socket),
    undoing and conceding, its feed read to the end; a second match joined, given to a bot and aborted; a
    record imported; the ratings, a webhook and the probes."""
    platform = AuthenticatedClient(base_url=base, token=platform_key, timeout=httpx.Timeout(WAIT_S))
    anyone = Client(base_url=base, timeout=httpx.Timeout(WAIT_S))
    said("listGames", list_games.sync_detailed(client=anyone), HTTPStatus.OK)
    said("getSigningKey", get_signing_key.sync_detailed(client=anyone), HTTPStatus.OK)
    created = create_match.sync_detailed(
        client=platform,
        body=BlokusCreateMatch(
            game=BlokusCreateMatchGame("blokus"),
            players=[Player(name="ann", player="ann"), Player(name="bob", player="bob")],
            undo=BlokusCreateMatchUndo.WITH_CONSENT,
        ),
    )
    said("createMatch", created, HTTPStatus.CREATED)
    if not isinstance(created.parsed, CreatedMatch):
        raise SystemExit(f"not created: {created.parsed}")
    match_id = created.parsed.id
    seats = []
    for made in created.parsed.seats:
        if isinstance(made.token, Unset):
            raise SystemExit("a named seat without its token")
        seats.append(AuthenticatedClient(base_url=base, token=made.token))
    imported = import_match.sync_detailed(
        client=platform,
        body=ImportMatch(record_type=ImportMatchRecordType.APPLICATIONX_BLOKUS_SGF, record=RECORD),
    )
    said("importMatch", imported, HTTPStatus.CREATED)
    said("listMatches", list_matches.sync_detailed(client=platform, game="blokus"), HTTPStatus.OK)
    said("exportMatches", export_matches.sync_detailed(client=anyone, game="blokus", limit=5), HTTPStatus.OK)
    match = get_match.sync_detailed(match_id, client=platform)
    said("getMatch", match, HTTPStatus.OK)
    if not isinstance(match.parsed, BlokusMatch):
        raise SystemExit(f"not a Blokus match: {match.parsed}")
    mover, other = seats[match.parsed.to_act[0]], seats[1 - match.parsed.to_act[0]]
    said("getState", get_state.sync_detailed(match_id, client=mover), HTTPStatus.OK)
    said("getPicture", get_picture.sync_detailed(match_id, client=mover), HTTPStatus.OK)

    listing = list_legal_actions.sync_detailed(match_id, client=mover)
    said("listLegalActions", listing, HTTPStatus.OK)
    if not isinstance(listing.parsed, BlokusLegalActions):
        raise SystemExit(f"not a Blokus listing: {listing.parsed}")
    first = listing.parsed.actions[0]
    body = BlokusSubmitAction(expected_version=listing.parsed.version, action=first)
    said("submitAction", submit_action.sync_detailed(match_id, client=mover, body=body), HTTPStatus.CREATED)
    said("undoMove", undo_move.sync_detailed(match_id, client=mover), HTTPStatus.CREATED)
    accepted = accept_undo.sync_detailed(match_id, client=other)
    said("acceptUndo", accepted, HTTPStatus.CREATED)
    if not isinstance(accepted.parsed, BlokusEvents):
        raise SystemExit(f"not a Blokus match's entries: {accepted.parsed}")
    # the move taken back, made again on the moves socket: a Blokus match's message, typed
    again = BlokusMovesSocketMove(expected_version=accepted.parsed.version, action=first)
    print(f"socket {socket_move(base, match_id, mover.token, again)}", flush=True)
    said("undoMove", undo_move.sync_detailed(match_id, client=mover), HTTPStatus.CREATED)
    said("refuseUndo", refuse_undo.sync_detailed(match_id, client=other), HTTPStatus.CREATED)
    said("listEvents", list_events.sync_detailed(match_id, client=mover), HTTPStatus.OK)
    entries = get_log.sync_detailed(match_id, client=mover.with_headers({"Accept": "application/json"}))
    said("getLog", entries, HTTPStatus.OK)
    said("getCheckpoint", get_checkpoint.sync_detailed(match_id, client=anyone), HTTPStatus.OK)
    said("getRecord", get_record.sync_detailed(match_id, client=anyone), HTTPStatus.OK)
    scoring = score_match.sync_detailed(match_id, client=mover)
    said("scoreMatch", scoring, HTTPStatus.ACCEPTED)
    if not isinstance(scoring.parsed, JobAccepted):
        raise SystemExit(f"no job: {scoring.parsed}")
    said("getJob", get_job.sync_detailed(scoring.parsed.job_id, client=mover), HTTPStatus.OK)
    said("concede", concede.sync_detailed(match_id, client=mover), HTTPStatus.CREATED)
    # the match is over: the feed gives every entry, then end once it is scored
    stream = stream_events.sync_detailed(match_id, client=anyone)
    said("streamEvents", stream, HTTPStatus.OK)
    print(f"feed {fed(stream.content.decode())}", flush=True)
    said("requestAnalysis", request_analysis.sync_detailed(match_id, client=anyone), HTTPStatus.ACCEPTED)
    said("getAnalysis", get_analysis.sync_detailed(match_id, client=anyone), HTTPStatus.OK)
    said("getLeaderboard", get_leaderboard.sync_detailed("blokus", client=platform), HTTPStatus.OK)
    deadline = time.monotonic() + WAIT_S
    player = get_player.sync_detailed("ann", client=platform)
    while player.status_code == HTTPStatus.NOT_FOUND and time.monotonic() < deadline:  # rated after scoring
        time.sleep(0.2)
        player = get_player.sync_detailed("ann", client=platform)
    said("getPlayer", player, HTTPStatus.OK)
    played = list_player_matches.sync_detailed(
        "ann", client=platform, status=ListPlayerMatchesStatus.FINISHED
    )
    said("listPlayerMatches", played, HTTPStatus.OK)
    said("askRematch", ask_rematch.sync_detailed(match_id, client=mover), HTTPStatus.OK)
    said("getRematch", get_rematch.sync_detailed(match_id, client=other), HTTPStatus.OK)

    seek = create_seek.sync_detailed(client=platform, body=CreateSeek(game="blokus", player="ann"))
    said("createSeek", seek, HTTPStatus.CREATED)
    if not isinstance(seek.parsed, CreatedSeek):
        raise SystemExit(f"no seek: {seek.parsed}")
    said("getSeek", get_seek.sync_detailed(seek.parsed.id, client=platform), HTTPStatus.OK)
    said("listSeeks", list_seeks.sync_detailed(client=platform), HTTPStatus.OK)
    said("cancelSeek", cancel_seek.sync_detailed(seek.parsed.id, client=platform), HTTPStatus.OK)
    asked = CreateChallenge(challenger="ann", challenged=["bob"], game="blokus")
    answer = ChallengeAnswer(player="bob")
    taken = create_challenge.sync_detailed(client=platform, body=asked)
    said("createChallenge", taken, HTTPStatus.CREATED)
    if not isinstance(taken.parsed, Challenge):
        raise SystemExit(f"no challenge: {taken.parsed}")
    said("getChallenge", get_challenge.sync_detailed(taken.parsed.id, client=platform), HTTPStatus.OK)
    welcomed = accept_challenge.sync_detailed(taken.parsed.id, client=platform, body=answer)
    said("acceptChallenge", welcomed, HTTPStatus.OK)
    refused = create_challenge.sync(client=platform, body=asked)
    if not isinstance(refused, Challenge):
        raise SystemExit(f"no challenge: {refused}")
    declined = decline_challenge.sync_detailed(refused.id, client=platform, body=answer)
    said("declineChallenge", declined, HTTPStatus.OK)
    said("listChallenges", list_challenges.sync_detailed(client=platform, player="ann"), HTTPStatus.OK)
    cup = CreateTournament(name="Cup", kind=CreateTournamentKind.SWISS, game="block-block", rounds=1)
    opened_cup = create_tournament.sync_detailed(client=platform, body=cup)
    said("createTournament", opened_cup, HTTPStatus.CREATED)
    if not isinstance(opened_cup.parsed, Tournament):
        raise SystemExit(f"no tournament: {opened_cup.parsed}")
    cup_id = opened_cup.parsed.id
    for entrant in ("ann", "bob"):
        entered = register_tournament_player.sync_detailed(
            cup_id, client=platform, body=TournamentPlayer(player=entrant)
        )
        said("registerTournamentPlayer", entered, HTTPStatus.CREATED)
    started = start_tournament_round.sync_detailed(cup_id, client=platform)
    said("startTournamentRound", started, HTTPStatus.CREATED)
    said("getTournament", get_tournament.sync_detailed(cup_id, client=anyone), HTTPStatus.OK)
    left = withdraw_tournament_player.sync_detailed(cup_id, "ann", client=platform)
    said("withdrawTournamentPlayer", left, HTTPStatus.OK)
    said("getTournamentLog", get_tournament_log.sync_detailed(cup_id, client=anyone), HTTPStatus.OK)
    signed = get_tournament_checkpoint.sync_detailed(cup_id, client=anyone)
    said("getTournamentCheckpoint", signed, HTTPStatus.OK)
    # the round's match conceded and its result taken in by the platform's read: the cup is over, and its feed
    # gives each entry, the standings on the last one sent, then end
    if not isinstance(started.parsed, Tournament) or not isinstance(
        started.parsed.current_round, TournamentRound
    ):
        raise SystemExit(f"no round: {started.parsed}")
    game = started.parsed.current_round.matches[0]
    if isinstance(game.seats, Unset) or not isinstance(game.seats[1].token, str):
        raise SystemExit("a round's seat without its token")
    loser = AuthenticatedClient(base_url=base, token=game.seats[1].token)
    said("concede", concede.sync_detailed(game.match, client=loser), HTTPStatus.CREATED)
    said("getTournament", get_tournament.sync_detailed(cup_id, client=platform), HTTPStatus.OK)
    cup_feed = stream_tournament_events.sync_detailed(cup_id, client=anyone)
    said("streamTournamentEvents", cup_feed, HTTPStatus.OK)
    cup_fed(cup_feed.content.decode())

    lobby = create_match.sync_detailed(
        client=platform,
        body=BlokusCreateMatch(
            game=BlokusCreateMatchGame("blokus"), players=[Player(name="cy"), Player(open_=True)]
        ),
    )
    if not isinstance(lobby.parsed, CreatedMatch):
        raise SystemExit(f"not created: {lobby.parsed}")
    opened = lobby.parsed.id
    said(
        "joinSeat",
        join_seat.sync_detailed(opened, 1, client=anyone, body=Join(name="dee")),
        HTTPStatus.CREATED,
    )
    bot = ReplaceSeat(bot=BotName.RANDOM)
    said("replaceSeat", replace_seat.sync_detailed(opened, 1, client=platform, body=bot), HTTPStatus.OK)
    aborted = abort_match.sync_detailed(opened, client=platform, body=Abort(reason="done"))
    said("abortMatch", aborted, HTTPStatus.OK)

    hook = create_webhook.sync_detailed(
        client=platform, body=Webhook(url=f"{base}/hook", events=[WebhookEvent.MATCH_STARTED])
    )
    said("createWebhook", hook, HTTPStatus.CREATED)
    if not isinstance(hook.parsed, WebhookCreated):
        raise SystemExit(f"no webhook: {hook.parsed}")
    hook_id = hook.parsed.id
    said("listWebhooks", list_webhooks.sync_detailed(client=platform), HTTPStatus.OK)
    patch = WebhookPatch(status=WebhookPatchStatus.ENABLED)
    said("updateWebhook", update_webhook.sync_detailed(hook_id, client=platform, body=patch), HTTPStatus.OK)
    deliveries = list_webhook_deliveries.sync_detailed(hook_id, client=platform)
    said("listWebhookDeliveries", deliveries, HTTPStatus.OK)
    said("deleteWebhook", delete_webhook.sync_detailed(hook_id, client=platform), HTTPStatus.NO_CONTENT)
    said("checkHealth", check_health.sync_detailed(client=anyone), HTTPStatus.OK)
    said("checkReady", check_ready.sync_detailed(client=anyone), HTTPStatus.OK)
    said("getMetrics", get_metrics.sync_detailed(client=anyone), HTTPStatus.OK)


def sse(stream: str) -> list[dict[str, object]]:
    """A whole stream's Server-Sent Events, each's fields (its data decoded), as the events' components
    take them."""
    events = []
    for block in stream.split("\n\n"):
        event: dict[str, object] = {}
        for line in block.splitlines():
            name, _, value = line.partition(": ")
            if name == "data":
                event["data"] = json.loads(value)
            elif name in ("event", "id"):
                event[name] = value
            elif name == "retry":
                event["retry"] = int(value)
        if event:
            events.append(event)
    return events


def cup_fed(stream: str) -> None:
    """A finished tournament's whole feed read as TournamentFeedEvents: its entries, the last one with the
    final standings, then end."""
    events = [TournamentFeedEvent.from_dict(event) for event in sse(stream)]
    entries = [event.data for event in events if isinstance(event.data, TournamentFeedEntry)]
    last = events[-1] if events else None
    if last is None or not isinstance(last.data, FeedEnd) or not entries:
        raise SystemExit(f"the tournament's feed did not end: {stream[-300:]!r}")
    if not isinstance(entries[-1].entry, TournamentTournamentFinishedEntry) or not entries[-1].standings:
        raise SystemExit(f"the tournament's feed ends without its standings: {stream[-300:]!r}")


def fed(stream: str) -> str:
    """A whole live feed (Server-Sent Events, to its end) read as FeedEvents: how many entries it gave,
    and what came last."""
    events = [FeedEvent.from_dict(event) for event in sse(stream)]
    entries = [event.data for event in events if not isinstance(event.data, Unset | FeedEnd)]
    last = events[-1] if events else None
    if last is None or isinstance(last.event, Unset) or not isinstance(last.data, FeedEnd):
        raise SystemExit(f"the feed did not end: {stream[-300:]!r}")
    return f"{len(entries)} {entries[-1].type_ if entries else None} {last.event.value}"


def socket_move(base: str, match_id: str, token: str, move: BlokusMovesSocketMove) -> int:
    """Send one move on the moves socket (as the seat of ``token``); the status of its answer, which must be
    the move accepted."""
    url = base.replace("http", "ws", 1) + f"/v1/matches/{match_id}/moves"
    connection = websocket.create_connection(url, header=[f"Authorization: Bearer {token}"], timeout=WAIT_S)
    try:
        connection.send(json.dumps(move.to_dict()))
        answer = json.loads(connection.recv())
    finally:
        connection.close()
    if answer["status"] != HTTPStatus.CREATED:
        raise SystemExit(f"the socket refused the move: {MovesSocketRefused.from_dict(answer)}")
    accepted = BlokusMovesSocketAccepted.from_dict(answer)
    if accepted.version <= move.expected_version:
        raise SystemExit(f"the socket's move reached no new version: {accepted.version}")
    return accepted.status.value


if __name__ == "__main__":
    every_operation(sys.argv[1], sys.argv[2])
