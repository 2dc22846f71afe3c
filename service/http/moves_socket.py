"""The moves socket: ``GET /v1/matches/{id}/moves`` upgraded to a WebSocket, a persistent connection
for one seat's actions beside the REST API.

A bot, a game client or a tournament runner that plays many moves keeps one connection per seat
instead of paying for an HTTP request per move. The seat's token goes in the upgrade request's
``Authorization`` header, checked then, at each message and every few seconds while idle: once the seat
is handed over (to a bot at a timeout, or to a person) the socket says so (403 ``wrong_token``) and
closes (1008). It pushes nothing unasked, only answers to its own moves.
Each text message is what ``POST .../actions`` takes, with an
optional ``idempotency_key``: ``{"expected_version": n, "action": {...}, "idempotency_key": "..."}``.
Each answer is what the POST answers, with its HTTP status in ``status``: ``{"status": 201,
"version": ..., "events": [...]}``, or ``{"status": 409, "error": "version_conflict", ...}`` in the
API's error format. The same rules, version check, idempotency, write limits and log apply: the socket
is another door to ``Matches.submit``, nothing more. A message that is not JSON is answered ``400``; a
binary message closes the connection (1003), and so does one larger than the server's body limit (1009).
The contract has both ways: ``MovesSocketMove`` and ``MovesSocketAnswer`` (``openapi.yaml``'s
``x-websockets``).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Flask, current_app, request
from flask_sock import ConnectionClosed, Sock
from marshmallow import ValidationError, fields
from simple_websocket import Server

from service import metrics, versions
from service.application.livefeed import CHECK_S
from service.application.matches import Matches
from service.domain.addresses import counted_address
from service.domain.tokens import token_hash
from service.games import texts
from service.games.texts import catalogue
from service.http import fastload, home_workers, schemas, websocket_frames
from service.http.auth import acting_seat, bearer, still_holds
from service.http.errors import ApiError, api_error_of, flatten, invalid
from service.http.middleware.pipeline import Exchange
from service.http.middleware.request_hooks import language_of
from service.http.routes import load_action
from service.sockets import send_whole
from service.store.errors import translated

_ = catalogue(__file__).gettext

sock = Sock()


class MoveSchema(schemas.SubmitActionSchema):
    idempotency_key = fields.String(
        validate=schemas.IDEMPOTENCY_KEY_LENGTH,
        metadata={
            "description": "A retry with the same key gets the first answer back and changes nothing, as "
            "the POST's Idempotency-Key header."
        },
    )


_move = MoveSchema()
_fast_move = fastload.compiled(_move)  # the same body as _move.load for what it accepts; None otherwise
_ENDPOINT = "__flask_sock.moves"  # flask-sock's name for the route below
ROUTE = "/v1/matches/<match_id>/moves"


class _Inline:
    """Stands in for simple_websocket's reader thread, which is never started: after simple_websocket's
    handshake the handler reads and writes the connection itself (``_Connection``)."""

    def __init__(self, target: Callable[[], object] | None = None):
        self.name = "moves socket"

    def start(self) -> None:
        pass


class _Connection:
    """The moves socket once simple_websocket has done the handshake (with no extension: ``install``), read
    and written in the handler's own green thread through ``service.http.websocket_frames``: no reader thread
    handing each message over through an event, no selector and timer per wait, no wsproto per frame. Answers the
    client's pings, echoes its close, pings it every ``ping_s`` seconds and closes it (1008) when the last
    ping went unanswered."""

    READ_BYTES = 65536

    def __init__(self, ws: Server, ping_s: float, max_message: int | None):
        self.ws = ws
        self.sock = ws.sock
        self.frames = websocket_frames.Reader(max_message)
        self.ping_s = ping_s
        self.next_ping = time.monotonic() + ping_s
        self.pong_due = False
        self.open = True

    def receive(self, timeout: float) -> str | bytes | None:
        """The next message; None after ``timeout`` seconds without one; ConnectionClosed once closed."""
        while True:
            if not self.open:
                raise ConnectionClosed(1006, "")
            try:
                got = self.frames.next()
            except websocket_frames.FrameError as error:
                self.close(error.code, error.reason)
                raise ConnectionClosed(error.code, error.reason) from None
            if got is None:
                try:
                    data = self.sock.recv_within(self.READ_BYTES, timeout)
                except TimeoutError:
                    self._heartbeat()
                    return None
                except OSError:
                    data = b""
                if not data:  # the client went away
                    self.open = False
                    continue
                self.pong_due = False  # whatever the client sends shows it is there, as a pong would
                self.frames.feed(data)
                continue
            opcode, payload = got
            if opcode < websocket_frames.CLOSE:
                self._heartbeat()
                return payload
            assert isinstance(payload, bytes), "a control frame's payload is never decoded"
            self._control(opcode, payload)

    def _control(self, opcode: int, payload: bytes) -> None:
        if opcode == websocket_frames.PING:
            self._send(websocket_frames.frame(websocket_frames.PONG, payload))
        elif opcode == websocket_frames.PONG:
            self.pong_due = False
        else:  # the client closes: echo its code, as RFC 6455 (5.5.1) asks
            try:
                code, reason = websocket_frames.close_payload(payload)
            except websocket_frames.FrameError as error:
                self.close(error.code, error.reason)
                raise ConnectionClosed(error.code, error.reason) from None
            self._last(websocket_frames.frame(websocket_frames.CLOSE, payload[:2]))
            raise ConnectionClosed(code, reason)

    def send(self, text: str) -> None:
        self._send(websocket_frames.frame(websocket_frames.TEXT, text.encode("utf-8")))

    def _send(self, data: bytes) -> None:
        if not self.open:
            raise ConnectionClosed(1006, "")
        try:
            self.sock.send(data)
        except OSError:
            self.open = False
            raise ConnectionClosed(1006, "") from None

    def close(self, code: int = websocket_frames.NORMAL, reason: str = "") -> None:
        """Send a close frame, once; nothing more is sent after it."""
        self._last(websocket_frames.close_frame(code, reason))

    def _last(self, close_frame: bytes) -> None:
        if self.open:
            self.open = False
            with contextlib.suppress(OSError):
                self.sock.send(close_frame)

    def end(self) -> None:
        """After the handler: the close frame, if not yet sent, and the connection closed as _Lingering does
        it; simple_websocket's own close after this is a no-op (it holds the connection closed)."""
        self.close()
        self.ws.connected = False
        self.sock.close()

    def _heartbeat(self) -> None:
        """A ping when one is due; a close when the last went unanswered."""
        now = time.monotonic()
        if now < self.next_ping or not self.open:
            return
        self.next_ping = now + self.ping_s
        if self.pong_due:
            self.close(websocket_frames.POLICY_VIOLATION, "Ping/Pong timeout")
            raise ConnectionClosed(websocket_frames.POLICY_VIOLATION, "Ping/Pong timeout")
        self.pong_due = True
        self._send(websocket_frames.frame(websocket_frames.PING, b""))


class _Lingering:
    """The connection's socket, closed after the client's last bytes are read: closed with a message still
    arriving (one over the size limit, cut short by the close 1009), the kernel would answer with a reset
    that can destroy the close frame before the client reads it. Its ``send`` sends all it is given (one
    ``send`` of a frame, cut short by a full buffer, would break the stream) within ``SEND_S``, after which
    a client that reads nothing is taken for gone."""

    LINGER_S = 1.0
    SEND_S = 30.0

    def __init__(self, raw: socket.socket):
        self._raw = raw
        self.recv = raw.recv  # the hot path's calls straight to the socket, not through __getattr__
        self._settimeout = raw.settimeout

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)

    def recv_within(self, size: int, timeout: float) -> bytes:
        """Up to ``size`` bytes; TimeoutError when none come within ``timeout`` seconds."""
        self._settimeout(timeout)
        return self.recv(size)

    def send(self, data: bytes) -> int:
        self._settimeout(self.SEND_S)
        send_whole(self._raw, data)
        return len(data)

    def close(self) -> None:
        try:
            self._raw.shutdown(socket.SHUT_WR)
            self._raw.settimeout(self.LINGER_S)
            deadline = time.monotonic() + self.LINGER_S
            while time.monotonic() < deadline and self._raw.recv(65536):
                pass
        except OSError:
            pass
        finally:
            self._raw.close()


def install(app: Flask) -> None:
    # private: simple_websocket's reader thread (``thread_class``) never started, its ``sock`` and
    # ``connected`` read and written by _Connection; flask-sock's endpoint name (_ENDPOINT)
    versions.require("simple-websocket", "1.1.", user=__name__)
    versions.require("flask-sock", "0.7.", user=__name__)
    app.config.setdefault(
        "SOCK_SERVER_OPTIONS",
        {"thread_class": _Inline},  # no reader thread: after the handshake, _Connection reads and writes
    )
    sock.init_app(app)

    home_workers.gather(ROUTE)  # a match's sockets served by one worker, which keeps its state


def prepare(x: Exchange) -> None:
    """The request pipeline's step before the socket's handshake (simple_websocket's, in flask-sock's view)."""
    if x.endpoint == _ENDPOINT:
        environ = x.environ
        # no extension (permessage-deflate) in the handshake: the frames that follow are plain
        # (service.http.websocket_frames); a client that offered one gets none, as RFC 6455 lets a server answer
        environ.pop("HTTP_SEC_WEBSOCKET_EXTENSIONS", None)
        for name in ("gunicorn.socket", "werkzeug.socket"):
            if name in environ:
                environ[name] = _Lingering(environ[name])


_held: dict[str, int] = {}
"""The moves sockets this process holds, per client address as ``counted_address`` counts it (an IPv6 one:
its /64; at most ``MATCHLOG_MOVES_PER_ADDRESS``)."""
_held_lock = threading.Lock()


@contextlib.contextmanager
def _holding(address: str, cap: int) -> Iterator[bool]:
    """One more socket of ``address`` held while inside: False (and nothing held) when it has ``cap`` already."""
    with _held_lock:
        if cap and _held.get(address, 0) >= cap:
            admitted = False
        else:
            admitted = True
            _held[address] = _held.get(address, 0) + 1
    try:
        yield admitted
    finally:
        if admitted:
            with _held_lock:
                left = _held.pop(address) - 1
                if left:
                    _held[address] = left


@sock.route(ROUTE)
def moves(ws: Server, match_id: str) -> None:
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # current_app is a LocalProxy
    connection = _Connection(ws, app.config["MOVES_PING_S"], app.config["MAX_CONTENT_LENGTH"])
    cap = app.config["MOVES_PER_ADDRESS"]
    try:
        # the handshake's language for every answer the socket sends, wherever the socket is served
        with (
            texts.speaking(language_of(request.environ)),
            _holding(counted_address(request.remote_addr), cap) as admitted,
        ):
            if admitted:
                _serve(app, connection, match_id)
            else:  # before the token is looked at: an address over its cap costs nothing more
                refusal = {
                    "status": 429,
                    "error": "too_many_sockets",
                    "message": _(
                        "this address holds {cap} moves sockets, as many as one address may: close one first",
                        cap=cap,
                    ),
                }
                connection.send(app.json.text(refusal))
                connection.close(websocket_frames.POLICY_VIOLATION)
    except ConnectionClosed:
        pass
    finally:
        connection.end()


def _serve(app: Flask, connection: _Connection, match_id: str) -> None:
    matches = app.extensions["matchlog"]
    text = app.json.text  # type: ignore[attr-defined]  # GuardedJSON's: an answer's compact JSON
    try:
        seat = acting_seat(matches, match_id)
    except Exception as error:  # refused: said once, in the API's error format, then closed
        refusal = api_error_of(translated(error))
        connection.send(text({"status": refusal.status, **refusal.body}))
        connection.close(websocket_frames.POLICY_VIOLATION)
        return
    token = bearer()
    assert token is not None, "acting_seat found the seat by it"
    game_id = matches.repository.meta(match_id).game_id
    while True:
        # woken every CHECK_S when idle: a seat handed over closes its socket within seconds, unasked; once
        # the client has closed, its last bytes are drained as the connection closes (_Lingering)
        message = connection.receive(timeout=CHECK_S)
        if message is not None and not isinstance(message, str):
            connection.close(websocket_frames.UNSUPPORTED, "text messages of JSON only")
            return
        if not still_holds(matches, match_id, token, seat):  # handed to a bot (a timeout) or another person
            connection.send(
                text(
                    {
                        "status": 403,
                        "error": "wrong_token",
                        "message": _("this token no longer holds the seat: it was handed over"),
                    }
                )
            )
            connection.close(websocket_frames.POLICY_VIOLATION)
            return
        if message is not None:
            connection.send(text(_answer(app, matches, match_id, game_id, seat, token, message)))


def _answer(
    app: Flask, matches: Matches, match_id: str, game_id: str, seat: int, token: str, message: str
) -> dict:
    """What a POST of ``message`` would answer, with its status."""
    try:
        limits = app.extensions.get("matchlog-limits")
        wait = limits.write_allowed(request.remote_addr, token) if limits is not None else 0
        if wait:
            raise ApiError(
                429,
                "too_many_requests",
                _("over this token's or this address's write limit; retry in {wait} s", wait=wait),
                retry_after=wait,
            )
        try:
            parsed = app.json.loads(message)
            body = _fast_move(parsed) if _fast_move is not None else None
            if body is None:  # not what the fast path takes: the schema loads it, or says what is wrong
                body = _move.load(parsed)
        except ValidationError as error:
            raise invalid(flatten(error.messages)) from None
        except ValueError as error:  # what the POST says of such a body, the depth and text guards included
            raise invalid(
                {"body": [str(error)]}, _("the message is not valid JSON ({error})", error=error)
            ) from None
        action = load_action(game_id, body["action"])
        answer = matches.submit(
            match_id,
            seat,
            body["expected_version"],
            action,
            body.get("idempotency_key"),
            holder=token_hash(token),
        )
    except Exception as error:
        refusal = api_error_of(translated(error))
        return {"status": refusal.status, **refusal.body}
    metrics.appended(game_id, len(answer["events"]))
    return {"status": 201, **answer}
