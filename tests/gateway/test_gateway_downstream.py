"""A client that left while the gateway writes to it: every write ends in ClientGone, which
the exchange logs as ``client_closed`` (never a traceback), whichever write met it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiohttp import ClientConnectionResetError

from sse_engine import MessagesLane
from sse_engine.gateway._downstream import ClientGone, Streaming
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


@pytest.mark.parametrize("fails", ["write", "write_eof"])
def test_a_write_to_a_client_that_left_is_client_gone(fails: str) -> None:
    request: Any = None  # only a response is written to here
    downstream = Streaming(request, {})
    response: Any = LeftResponse(fails)
    downstream.response = response
    relay = Relay(MessagesLane(), to="chat")

    async def run() -> None:
        await downstream.write(b"data: {}\n\n")
        await downstream.finish(relay, b"data: [DONE]\n\n")

    with pytest.raises(ClientGone) as gone:
        asyncio.run(run())
    assert gone.value.response is response
