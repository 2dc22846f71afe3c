"""``service.http.websocket_frames``, the moves socket's WebSocket frames after the handshake, against wsproto as
the other side: every message a wsproto client sends, fragmented or not, cut into any chunks, is read whole;
every frame RFC 6455 forbids is refused with the code it names; and what the server writes, wsproto reads."""

from __future__ import annotations

import os
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wsproto.connection import Connection, ConnectionType
from wsproto.events import BytesMessage, CloseConnection, Ping, TextMessage

from service.http import websocket_frames
from tests.conftest import examples

LIMIT = 64 * 1024


def client() -> Connection:
    return Connection(ConnectionType.CLIENT)


def read_all(data: bytes, cuts: list[int], limit: int | None = LIMIT) -> list[tuple[int, str | bytes]]:
    """What a Reader makes of ``data`` fed in pieces cut at ``cuts``."""
    reader, out, at = websocket_frames.Reader(limit), [], 0
    for cut in [*sorted(c % (len(data) + 1) for c in cuts), len(data)]:
        reader.feed(data[at:cut])
        at = cut
        while (got := reader.next()) is not None:
            out.append(got)
    return out


messages = st.lists(
    st.one_of(
        st.tuples(st.just("text"), st.text(max_size=300), st.integers(1, 4)),
        st.tuples(st.just("binary"), st.binary(max_size=300), st.integers(1, 4)),
        st.tuples(st.just("ping"), st.binary(max_size=125), st.just(1)),
    ),
    max_size=8,
)


@settings(max_examples=examples(300))
@given(messages, st.lists(st.integers(0, 10_000), max_size=12))
def test_every_message_a_client_sends_is_read_whole_however_it_arrives(sent, cuts):
    peer, data, expected = client(), b"", []
    for kind, payload, parts in sent:
        if kind == "ping":
            data += peer.send(Ping(payload=payload))
            expected.append((websocket_frames.PING, payload))
            continue
        step = max(1, len(payload) // parts)
        pieces = [payload[i : i + step] for i in range(0, len(payload), step)] or [payload]
        for i, piece in enumerate(pieces):
            event = TextMessage if kind == "text" else BytesMessage
            data += peer.send(event(data=piece, message_finished=i == len(pieces) - 1))
            if i == 0 and len(pieces) > 1:  # a control frame between the fragments of a message
                data += peer.send(Ping(payload=b"between"))
                expected.append((websocket_frames.PING, b"between"))
        expected.append((websocket_frames.TEXT if kind == "text" else websocket_frames.BINARY, payload))
    assert read_all(data, cuts) == expected  # a ping between fragments before the message it interrupts


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70_000])
def test_lengths_of_every_encoding_are_read_and_written(size):
    text = "x" * size
    assert read_all(client().send(TextMessage(data=text)), [], limit=None) == [(websocket_frames.TEXT, text)]
    peer = client()
    peer.receive_data(websocket_frames.frame(websocket_frames.TEXT, text.encode()))
    assert [(type(e), e.data) for e in peer.events()] == [(TextMessage, text)]  # type: ignore[attr-defined]


def test_the_servers_close_frame_reads_as_wsproto_reads_it():
    peer = client()
    peer.receive_data(websocket_frames.close_frame(1009, "Message is too big"))
    (event,) = list(peer.events())
    assert isinstance(event, CloseConnection) and (event.code, event.reason) == (1009, "Message is too big")
    assert (
        len(websocket_frames.close_frame(1000, "é" * 200)) <= 2 + 125
    )  # a control frame's payload is at most 125


def masked(first: int, payload: bytes, mask: bytes = b"\x01\x02\x03\x04") -> bytes:
    assert len(payload) < 126
    return bytes((first, 0x80 | len(payload))) + mask + websocket_frames.unmasked(payload, mask)


@pytest.mark.parametrize(
    "data, code",
    [
        (bytes((0x81, 0x02)) + b"hi", websocket_frames.PROTOCOL_ERROR),  # a client's frame unmasked
        (masked(0xC1, b"hi"), websocket_frames.PROTOCOL_ERROR),  # RSV1 set, no extension negotiated
        (masked(0x83, b"hi"), websocket_frames.PROTOCOL_ERROR),  # data opcode 3 is reserved
        (masked(0x8B, b""), websocket_frames.PROTOCOL_ERROR),  # control opcode 0xB is reserved
        (masked(0x80, b"hi"), websocket_frames.PROTOCOL_ERROR),  # a continuation with no message begun
        (
            masked(0x01, b"h") + masked(0x81, b"i"),
            websocket_frames.PROTOCOL_ERROR,
        ),  # a new message inside one
        (masked(0x09, b""), websocket_frames.PROTOCOL_ERROR),  # a control frame fragmented
        (bytes((0x89, 0x80 | 126)) + struct.pack("!H", 126) + b"\0" * 130, websocket_frames.PROTOCOL_ERROR),
        (
            bytes((0x81, 0xFF)) + struct.pack("!Q", 1 << 63),
            websocket_frames.PROTOCOL_ERROR,
        ),  # length's top bit
        (masked(0x81, b"\xff\xfe"), websocket_frames.NOT_TEXT),  # a text message that is not UTF-8
        (masked(0x01, b"\xe2\x82") + masked(0x80, b"\xac"), None),  # UTF-8 split across fragments: fine
    ],
)
def test_what_the_rfc_forbids_is_refused_with_its_code(data, code):
    if code is None:
        assert read_all(data, []) == [(websocket_frames.TEXT, "€")]
        return
    with pytest.raises(websocket_frames.FrameError) as refused:
        read_all(data, [])
    assert refused.value.code == code


def test_a_message_over_the_limit_is_refused_from_its_header_before_its_payload_comes():
    header = bytes((0x81, 0xFF)) + struct.pack("!Q", 200_000)
    with pytest.raises(websocket_frames.FrameError) as refused:
        read_all(header, [])  # nothing of the payload sent yet
    assert refused.value.code == websocket_frames.TOO_BIG
    fragments = masked(0x01, b"a" * 100) + masked(0x80, b"b" * 100)
    with pytest.raises(websocket_frames.FrameError) as refused:  # counted over the fragments of one message
        read_all(fragments, [], limit=150)
    assert refused.value.code == websocket_frames.TOO_BIG
    assert read_all(fragments, [], limit=200) == [(websocket_frames.TEXT, "a" * 100 + "b" * 100)]


@pytest.mark.parametrize(
    "payload, read",
    [
        (b"", (1005, "")),
        (struct.pack("!H", 1000) + b"bye", (1000, "bye")),
        (struct.pack("!H", 4001), (4001, "")),
    ],
)
def test_a_close_frame_says_its_code_and_reason(payload, read):
    assert websocket_frames.close_payload(payload) == read


@pytest.mark.parametrize(
    "payload, code",
    [
        (b"\x03", websocket_frames.PROTOCOL_ERROR),
        (struct.pack("!H", 1005), websocket_frames.PROTOCOL_ERROR),  # never on the wire
        (struct.pack("!H", 999), websocket_frames.PROTOCOL_ERROR),
        (struct.pack("!H", 1000) + b"\xff", websocket_frames.NOT_TEXT),
    ],
)
def test_a_close_frame_the_rfc_forbids_is_refused(payload, code):
    with pytest.raises(websocket_frames.FrameError) as refused:
        websocket_frames.close_payload(payload)
    assert refused.value.code == code


@given(st.binary(max_size=2000), st.binary(min_size=4, max_size=4))
def test_unmasking_is_the_rfcs_xor(payload, mask):
    assert websocket_frames.unmasked(payload, mask) == bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def test_a_large_random_binary_message_survives():
    payload = os.urandom(60_000)
    assert read_all(client().send(BytesMessage(data=payload)), [7, 4096, 30_000]) == [
        (websocket_frames.BINARY, payload)
    ]


def test_many_small_frames_in_one_read_are_taken_without_copying_the_rest_each_time():
    """A read full of tiny frames (pings, say) costs in proportion to its size: each frame is taken at an
    offset, not by copying what follows it (which, for a 64 KiB read of 8-byte frames, is megabytes)."""
    pings = client().send(Ping(payload=b"x")) * 8000
    reader = websocket_frames.Reader(LIMIT)
    reader.feed(pings)
    taken = 0
    while reader.next() is not None:
        taken += 1
        assert len(reader._buffer) == len(pings)  # the buffer is never rebuilt while frames are taken
    assert taken == 8000


def test_empty_fragments_keep_nothing_however_many_come():
    """The size limit counts bytes, so empty fragments never reach it: each would otherwise be kept, and a
    client sending them for ever would grow the server's memory for ever."""
    reader = websocket_frames.Reader(LIMIT)
    reader.feed(masked(0x01, b"a") + masked(0x00, b"") * 50_000)
    assert reader.next() is None and reader._message == [b"a"]
    reader.feed(masked(0x80, b"b"))
    assert reader.next() == (websocket_frames.TEXT, "ab")
