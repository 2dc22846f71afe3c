"""WebSocket frames (RFC 6455, section 5) as a server reads and writes them once the handshake is done, with
no extension negotiated: plain data in, plain data out, no I/O.

The moves socket's handshake is wsproto's (through simple_websocket); what follows is this module's. wsproto
parses each frame through generators and per-frame objects: about 140 K instructions per move of the
socket (a message read, an answer framed), some 9 % of all the worker runs for it; this reads the common
frame (a whole masked text message) in a few struct and integer operations and falls back on nothing:
every frame the RFC allows is read here (fragments, control frames between them, 16- and 64-bit lengths),
and every frame it forbids is refused with the close code it names.
"""

from __future__ import annotations

import struct

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
NORMAL, PROTOCOL_ERROR, UNSUPPORTED, NOT_TEXT, POLICY_VIOLATION, TOO_BIG = 1000, 1002, 1003, 1007, 1008, 1009
CLOSE_CODES_SENDABLE = frozenset({1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014})
"""Codes a peer may put in a close frame (besides 3000-4999): 1005, 1006 and 1015 never go on the wire."""

_SHORT = struct.Struct("!H")
_LONG = struct.Struct("!Q")


class FrameError(Exception):
    """The peer broke the protocol: close the connection with ``code``."""

    def __init__(self, code: int, reason: str):
        super().__init__(reason)
        self.code = code
        self.reason = reason


class Reader:
    """A client's frames in (``feed``), whole messages and control frames out (``next``), as
    ``(opcode, payload)``: a text message's payload as ``str``, anything else's as ``bytes``."""

    def __init__(self, max_message: int | None = None):
        self.max_message = max_message
        self._buffer = b""
        self._at = 0  # where the next frame starts in the buffer: frames taken without copying what follows
        self._message: list[bytes] = []  # the fragments of a message begun and not finished
        self._message_opcode: int | None = None
        self._message_size = 0

    def feed(self, data: bytes) -> None:
        rest = self._buffer[self._at :] if self._at else self._buffer
        self._buffer, self._at = (rest + data if rest else data), 0

    def next(self) -> tuple[int, str | bytes] | None:
        """The next message or control frame; None until more bytes come. Raises FrameError."""
        while True:
            frame = self._frame()
            if frame is None:
                return None
            final, opcode, payload = frame
            if opcode >= CLOSE:
                return opcode, payload
            if opcode == CONTINUATION:
                if self._message_opcode is None:
                    raise FrameError(PROTOCOL_ERROR, "a continuation frame with no message begun")
            elif self._message_opcode is not None:
                raise FrameError(PROTOCOL_ERROR, "a new message inside a fragmented one")
            else:
                self._message_opcode = opcode
            if payload:  # empty fragments add nothing, and kept they would grow the list without limit
                self._message.append(payload)
            if final:
                return self._finished()

    def _finished(self) -> tuple[int, str | bytes]:
        opcode, whole = self._message_opcode, b"".join(self._message)
        self._message, self._message_opcode, self._message_size = [], None, 0
        assert opcode is not None
        if opcode == BINARY:
            return BINARY, whole
        try:
            return TEXT, whole.decode("utf-8")
        except UnicodeDecodeError:
            raise FrameError(NOT_TEXT, "a text message that is not UTF-8") from None

    def _frame(self) -> tuple[bool, int, bytes] | None:
        """The next frame (fin, opcode, unmasked payload) taken from the buffer, or None if it is not all there."""
        buffer, start = self._buffer, self._at
        if len(buffer) - start < 2:
            return None
        first, second = buffer[start], buffer[start + 1]
        final, opcode, length = bool(first & 0x80), first & 0x0F, second & 0x7F
        if first & 0x70:
            raise FrameError(PROTOCOL_ERROR, "reserved bits set: no extension was negotiated")
        if not second & 0x80:
            raise FrameError(PROTOCOL_ERROR, "a client's frames are masked")
        if opcode >= CLOSE:
            if opcode > PONG:
                raise FrameError(PROTOCOL_ERROR, f"unknown control opcode {opcode}")
            if not final or length > 125:
                raise FrameError(PROTOCOL_ERROR, "a control frame is whole and at most 125 bytes")
        elif opcode > BINARY:
            raise FrameError(PROTOCOL_ERROR, f"unknown data opcode {opcode}")
        at = start + 2
        if length == 126:
            if len(buffer) < start + 4:
                return None
            (length,) = _SHORT.unpack_from(buffer, at)
            at += 2
        elif length == 127:
            if len(buffer) < start + 10:
                return None
            (length,) = _LONG.unpack_from(buffer, at)
            if length >> 63:
                raise FrameError(PROTOCOL_ERROR, "a payload length's highest bit is set")
            at += 8
        limit = self.max_message
        if opcode < CLOSE and limit is not None and self._message_size + length > limit:
            raise FrameError(TOO_BIG, "Message is too big")
        end = at + 4 + length
        if len(buffer) < end:  # (a message over the limit was refused above, from its header alone)
            return None
        mask = buffer[at : at + 4]
        payload = unmasked(buffer[at + 4 : end], mask)
        self._at = end
        if opcode < CLOSE:
            self._message_size += length
        return final, opcode, payload


def unmasked(payload: bytes, mask: bytes) -> bytes:
    """``payload`` XOR its 4-byte ``mask`` repeated (RFC 6455, 5.3), in two big-integer operations."""
    n = len(payload)
    if not n:
        return b""
    key = (mask * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(key, "little")).to_bytes(n, "little")


def frame(opcode: int, payload: bytes) -> bytes:
    """One whole, unmasked frame, as a server sends it."""
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, n))
    elif n < 65536:
        head = bytes((0x80 | opcode, 126)) + _SHORT.pack(n)
    else:
        head = bytes((0x80 | opcode, 127)) + _LONG.pack(n)
    return head + payload


def close_frame(code: int, reason: str = "") -> bytes:
    """A close frame with ``code`` and ``reason`` (cut to fit a control frame's 125 bytes)."""
    return frame(CLOSE, _SHORT.pack(code) + reason.encode("utf-8")[:123])


def close_payload(payload: bytes) -> tuple[int, str]:
    """The code and reason a peer's close frame carries (1005 when it has none). Raises FrameError."""
    if not payload:
        return 1005, ""
    if len(payload) == 1:
        raise FrameError(PROTOCOL_ERROR, "a close frame's code is two bytes")
    (code,) = _SHORT.unpack_from(payload)
    if code not in CLOSE_CODES_SENDABLE and not 3000 <= code <= 4999:
        raise FrameError(PROTOCOL_ERROR, f"close code {code} is not one a peer may send")
    try:
        return code, payload[2:].decode("utf-8")
    except UnicodeDecodeError:
        raise FrameError(NOT_TEXT, "a close reason that is not UTF-8") from None
