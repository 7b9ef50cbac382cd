"""A client that left while the gateway writes to it: a write ends in ClientGone, which the
exchange logs as ``client_closed`` (never a traceback); a client that left after the last
byte (the openai client hangs up on [DONE], before the chunked body's end) got the stream."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiohttp import ClientConnectionResetError
from server import capture_bytes

from sse_engine import FORMATS, MessagesLane, SSEParser
from sse_engine.gateway._downstream import ClientGone, Streaming, frames_in
from sse_engine.relay import Relay


class LeftResponse:
    """A prepared response whose client has gone: ``fails`` names the call that raises."""

    prepared = True

    def __init__(self, fails: str) -> None:
        self.fails = fails

    async def write(self, data: bytes) -> None:
        if self.fails == "write":
            raise ClientConnectionResetError("Cannot write to closing transport")

    async def write_eof(self) -> None:
        if self.fails == "write_eof":
            raise ClientConnectionResetError("Cannot write to closing transport")


def finish_on(response: Any) -> Any:
    request: Any = None  # only a response is written to here
    downstream = Streaming(request, {})
    downstream.response = response
    relay = Relay(MessagesLane(), to="chat")

    async def run() -> Any:
        await downstream.write(b"data: {}\n\n")
        return await downstream.finish(relay, b"data: [DONE]\n\n")

    return asyncio.run(run())


def test_a_write_to_a_client_that_left_is_client_gone() -> None:
    response = LeftResponse("write")
    with pytest.raises(ClientGone) as gone:
        finish_on(response)
    assert gone.value.response is response


def test_a_client_that_left_after_the_last_byte_got_the_stream() -> None:
    response = LeftResponse("write_eof")
    assert finish_on(response) is response


@pytest.mark.parametrize(
    ("data", "events"),
    [
        (b"data: 1\n\n", 1),
        (b"event: a\ndata: 1\n\ndata: 2\n\n", 2),
        (b"data: 1\r\n\r\ndata: 2\r\n\r\n", 2),  # Gemini's framing
        (b": keepalive\n", 0),
        (b"\r\n", 0),
        (b"", 0),
    ],
)
def test_frames_in_counts_the_events_a_write_ends(data: bytes, events: int) -> None:
    assert frames_in(data) == events


def test_frames_in_counts_every_relays_events() -> None:
    # Every format's relay, a whole stream in one write (one framing each: Gemini's CRLF,
    # the others' LF): as many as an SSE parser reads.
    for target in FORMATS:
        relay = Relay(MessagesLane(), to=target)
        relay.start(200, [("content-type", "text/event-stream")])
        out = relay.feed(capture_bytes("messages_basic")) + relay.close()
        assert frames_in(out) == len(SSEParser().feed(out)) > 2, target
