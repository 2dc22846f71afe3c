"""A match's log as it is read: its events, the live feed (server-sent events), the whole log
as JSON lines, and the signed checkpoint that proves an exported log."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Response, current_app, request, stream_with_context

from service.application import log_views
from service.application.livefeed import CHECK_S, Full, LiveFeed, Subscription, client_gone
from service.domain.chain import Recorded
from service.domain.tokens import is_platform_key
from service.games import texts
from service.games.texts import catalogue
from service.http import schemas
from service.http.auth import (
    bearer,
    request_seat,
    still_holds,
)
from service.http.errors import ApiError, invalid
from service.http.routes import (
    EVENT_STREAM,
    JSON,
    JSONL,
    NO_CREDENTIAL,
    STREAM_REFUSALS,
    _errors,
    _wants,
    log,
    matches,
    of_game,
    v1,
)
from service.store.errors import StoreFailure

_ = catalogue(__file__).gettext


@v1.route("/matches/<match_id>/events", methods=["GET"])
@v1.doc(operationId="listEvents")
@v1.arguments(schemas.EventsQuerySchema(), location="query")
@v1.response(200, schemas.EventsSchema)
@_errors(400, 401, 403, 404)
def get_events(query: dict[str, Any], match_id: str) -> dict[str, Any]:
    """The log, oldest first, as the caller may see it: entries with a version above `after`."""
    seat = request_seat(matches(), match_id, required=False, platform="view")
    current, events = log_views.events(matches().repository, match_id, seat, query["after"], query["limit"])
    return of_game(match_id, {"version": current, "events": events})


LAST_EVENT_ID = re.compile(
    r"[0-9]{1,15}"
)  # a version (below 2**53): ASCII digits, not whatever isdigit() takes


HANDOVERS = ("seat_replaced", "timed_out")
"""Entries after which a seat may be someone else's (a ``timed_out`` hands it to a bot, or not)."""


SSE_EVENT = {
    "type": "object",
    "additionalProperties": False,
    "description": "One event of the stream: an "
    "entry (`id`: its version; `data`: the entry as JSON, as /events has it, with its `game`), "
    "`end` (`data`: {}), `revoked` (no data), or the `retry` advice that opens the stream.",
    "properties": {
        "event": {
            "type": "string",
            "enum": ["message", "end", "revoked"],
            "description": "message (the default) for an entry; end: the match is scored; revoked: the "
            "credential no longer holds.",
        },
        "id": {
            "type": "string",
            "pattern": "^[0-9]+$",
            "description": "The entry's version (end: the last one).",
        },
        "retry": {"type": "integer", "description": "How long a client waits before reconnecting, in ms."},
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": {
                "oneOf": [
                    {"$ref": "#/components/schemas/FeedEntry"},
                    {"type": "object", "maxProperties": 0, "additionalProperties": False},
                ]
            },
            "description": "The entry as JSON, with its match's game (the FeedEntry schema); {} with end.",
        },
    },
}
"""What the live feed sends, one event at a time (schemathesis checks each against it); its data
decoded is the FeedEvent component, for generated clients."""


def stream_refusals(view: Callable[..., Response]) -> Callable[..., Response]:
    """A held stream's refusals in the contract, by reference to their one description (``STREAM_REFUSALS``):
    no room in the process, or for the client's address."""
    for name, (code, _) in STREAM_REFUSALS.items():
        view = v1.alt_response(code, name)(view)
    return view


@v1.route("/matches/<match_id>/events/stream", methods=["GET"])
@v1.doc(operationId="streamEvents")
@v1.arguments(schemas.StreamQuerySchema(), location="query")
@v1.doc(
    responses={
        "200": {
            "description": "Server-Sent Events: each log entry as the caller may see it (the same gate as /events), "
            "`id:` its version, `data:` the entry as JSON (a FeedEntry, typed by its game); "
            "a `: ping` comment every 15 s; an "
            "`end` event after `match_scored`. Start after `?after=`; `Last-Event-ID` (a reconnect) "
            "wins over it. A `revoked` event, then the end, once the credential no longer holds (the "
            "seat was handed over, the platform key revoked); the end, without an event, after 5 minutes "
            "with nothing to deliver (reconnect with `Last-Event-ID`).",
            # each event's schema as OpenAPI 3.2's itemSchema (schemathesis checks each event against it); the
            # body's own schema says nothing, so a generator hands the stream's text over as it is
            "content": {EVENT_STREAM: {"schema": {}, "itemSchema": SSE_EVENT}},
        }
    },
)
@_errors(400, 401, 403, 404)
@stream_refusals
def stream_events(query: dict[str, Any], match_id: str) -> Response:
    """The log as it grows, pushed: the entries after `after` (or `Last-Event-ID`), then each new
    one as it is appended, until the match is scored."""
    app = matches()
    seat = request_seat(app, match_id, required=False, platform="view")
    credential = bearer()  # asked again as long as the stream lasts: a seat handed over ends it
    after = resumed_after(query)
    app.repository.meta(match_id)  # 404 for no such match, before the stream starts
    feed = current_app.extensions["matchlog-livefeed"]
    subscription = subscribe(feed, match_id)
    lang = texts.language()  # the connection's: the stream is written after the request's steps have ended
    texts.carries_texts()

    def holds(fresh: bool = False) -> bool:
        return credential is None or still_holds(app, match_id, credential, seat, fresh)

    def holds_after(handover: Recorded) -> bool:
        """Whether the credential still reads the seat after ``handover``: a seat's token never once a
        timeout gave the seat to a bot (whatever Redis says); else Redis says."""
        to_a_bot = handover.type == "timed_out" and handover.data.get("on_timeout") == "bot"
        if to_a_bot and credential is not None and not is_platform_key(credential):
            return False
        return holds(fresh=True)

    state = app.load(match_id)
    revealed = state.seed is not None
    _at, backlog = app.repository.read(match_id, after=after)

    def show(entry: Recorded, last: bool) -> tuple[str, str | None]:
        nonlocal revealed
        revealed = revealed or entry.type == "seed_revealed"
        shown = feed.render(match_id, entry, seat, revealed, state.sealed_chain, lang)
        if entry.type == "match_scored":
            return shown, END.format(version=entry.version)
        if entry.type in HANDOVERS and entry.seat == seat and credential and not holds_after(entry):
            return shown, _REVOKED  # nothing after the handover: it may be the new holder's
        return shown, None

    # resumed at the end of a scored match: nothing will come
    ended = state.version if not backlog and state.result is not None else None
    return event_stream(feed, subscription, after, backlog, show, ended, holds)


Shown = Callable[[Recorded, bool], tuple[str, str | None]]
"""How a stream shows an entry (and whether it is the last of what it sends at once): its event, and the
event that ends the stream after it (None: the stream goes on)."""


def resumed_after(query: dict[str, Any]) -> int:
    """The version a stream starts after: a reconnect's ``Last-Event-ID`` (an EventSource reconnects to the
    URL it opened, ?after= and all, with the last id it got: that id wins), else ``?after=``, else 0."""
    resume = request.headers.get("Last-Event-ID", "").strip()
    if resume and not LAST_EVENT_ID.fullmatch(resume):  # ids this stream sends: versions
        raise invalid(
            {
                "Last-Event-ID": [
                    _("not an id this stream sent ({id}): a version number", id=repr(resume[:40]))
                ]
            }
        )
    return int(resume) if resume else query.get("after", 0)


def event_stream(
    feed: LiveFeed,
    subscription: Subscription,
    after: int,
    backlog: list[Recorded],
    show: Shown,
    ended: int | None = None,
    holds: Callable[[bool], bool] = lambda fresh: True,
) -> Response:
    """A log's Server-Sent Events, held: the ``backlog`` (read after subscribing, so nothing falls between),
    then each batch the feed hands the subscription, each entry after ``after`` as ``show`` makes it, until
    ``show`` ends the stream, the credential no longer ``holds`` (asked before each batch: ``fresh``, by
    Redis, the first time), the client leaves, or nothing came for ``sse_idle_s``; a ping every
    ``sse_heartbeat_s``. ``ended``: the log's last version when it ended before ``after`` (the end at once).
    The subscription is given up however the stream ends."""
    settings = matches().settings
    heartbeat, idle = settings.sse_heartbeat_s, settings.sse_idle_s
    environ = request.environ

    def entries() -> Iterator[str]:
        sent, batch = after, backlog
        yield "retry: 2000\n\n"
        if ended is not None:
            yield END.format(version=ended)
            return
        fresh = True
        delivered = pinged = time.monotonic()
        while True:
            if not holds(fresh):  # before each batch is shown: a key revoked meanwhile shows nothing more
                yield _REVOKED
                return
            batch = [entry for entry in batch if entry.version > sent]
            for i, entry in enumerate(batch):
                sent, delivered = entry.version, time.monotonic()
                shown, ending = show(entry, i == len(batch) - 1)
                yield shown
                if ending is not None:
                    yield ending
                    return
            # woken every CHECK_S at least, to ask the credential again and whether the client is still there
            batch, fresh = subscription.next(min(CHECK_S, heartbeat, idle)), False
            now = time.monotonic()
            if not batch and (client_gone(environ) or now - delivered >= idle):
                return  # gone, or nothing for a long time (an EventSource reconnects with Last-Event-ID)
            if not batch and now - max(pinged, delivered) >= heartbeat:
                yield ": ping\n\n"
                pinged = now

    def closing() -> Iterator[str]:
        try:
            yield from entries()
        except StoreFailure as error:  # the credential could not be asked: the client reconnects
            log.warning("a live feed ends: redis unavailable (%s)", error)
        finally:
            feed.unsubscribe(subscription)

    response = Response(
        stream_with_context(closing()),
        mimetype=EVENT_STREAM,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    response.call_on_close(lambda: feed.unsubscribe(subscription))  # also when the stream never started
    return response


END = "event: end\nid: {version}\ndata: {{}}\n\n"
# without data: an EventSource dispatches no event then, and clients that take each data: for an entry (the
# viewer) skip it; the stream ends, and a reconnect with the same credential is refused (403 or 401)
_REVOKED = (
    ": this credential no longer holds: the seat was handed over, or the platform key revoked\n"
    "event: revoked\n\n"
)


def subscribe(feed: LiveFeed, match_id: str) -> Subscription:
    """A subscription for the request's client address (`request.remote_addr`: the proxies' client
    with `MATCHLOG_TRUSTED_PROXIES`, as for the rate limits); 429 or 503 when its cap is reached."""
    try:
        return feed.subscribe(match_id, request.remote_addr or "")
    except Full as full:
        if full.cap == "address":
            raise ApiError(
                429,
                "too_many_streams",
                _(
                    "this address holds {per_address} live feeds, as many as one address "
                    "may: close one first",
                    per_address=feed.per_address,
                ),
            ) from None
        raise ApiError(
            503,
            "streams_full",
            _(
                "this server process holds {per_process} live feeds, as many as it "
                "may: try again (another may have room)",
                per_process=feed.per_process,
            ),
        ) from None


@v1.route("/matches/<match_id>/log", methods=["GET"])
@v1.doc(operationId="getLog")
@v1.arguments(schemas.SeatQuerySchema(), location="query")
@v1.doc(
    responses={
        "200": {
            "description": "The whole log, one entry per line, oldest first (as /events shows them): each line an "
            "Event, typed by the match's game.",
            "content": {
                JSONL: {"schema": {"type": "string"}},
                # the same entries as one JSON array, for clients that read only JSON (Accept: application/json)
                JSON: {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Event"}}},
            },
        }
    },
)
@_errors(400, 401, 403, 404)
def get_log(query: dict[str, Any], match_id: str) -> Response:
    """The whole log as JSON Lines, as the caller may see it, streamed: no page limit. This is what
    `matchlog replay` audits. With `Accept: application/json`, the same entries as one JSON array."""
    seat = request_seat(matches(), match_id, required=False, platform="view")
    app = matches()
    app.repository.meta(match_id)  # 404 before the stream starts

    as_array = _wants(JSON, [JSONL, JSON])
    lang = texts.language()  # the lines are written after the request's steps have ended
    texts.carries_texts()

    def lines() -> Iterator[str]:
        with texts.speaking(lang):
            yield from _lines()

    def _lines() -> Iterator[str]:
        after = 0
        if as_array:
            yield "["
        while True:
            _at, page = log_views.events(app.repository, match_id, seat, after=after, limit=500)
            if not page:
                if as_array:
                    yield "]"
                return
            texts = [json.dumps(entry, separators=(",", ":"), ensure_ascii=False) for entry in page]
            if as_array:  # the entries between commas, a comma before each page but the first
                yield ("," if after else "") + ",".join(texts)
            else:
                yield "".join(text + "\n" for text in texts)
            after = page[-1]["version"]

    return Response(stream_with_context(lines()), mimetype=JSON if as_array else JSONL)


@v1.route("/matches/<match_id>/checkpoint", methods=["GET"])
@v1.doc(operationId="getCheckpoint")
@v1.doc(security=NO_CREDENTIAL)
@v1.response(200, schemas.CheckpointSchema)
@_errors(404, 409)
def get_checkpoint(match_id: str) -> dict[str, Any]:
    """The match's version and the hash of its last entry, signed by the server: keep it beside an
    exported log, and `matchlog replay --checkpoint` proves the log is the one the server held."""
    return log_views.checkpoint(matches().repository, matches().stores.server_key, match_id)
