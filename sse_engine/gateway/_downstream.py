"""Where the relayed bytes go: a client's stream, or the final object of a client that
asked for none.

The exchange (``_exchange.py``) hands each read's relayed bytes to one of
these, and asks it for the answer at the end; it never buffers a stream.
:class:`Streaming` writes them as they come (the 200 goes out with the
first bytes, or with the first keepalive, so that a failure before either
is still the client API's own error status). :class:`Collecting` feeds them
to a lane of the client's format and answers with that lane's final object
(``snapshot.to_api()``): what the API itself returns for ``stream: false``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any

from aiohttp import web

from sse_engine._formats import WireFormat
from sse_engine._outcome import Outcome, StreamError
from sse_engine.relay import ErrorResponse, Relay

__all__ = ["ClientGone", "Collecting", "Downstream", "Streaming", "error_answer", "frames_in"]


class ClientGone(Exception):
    """The client hung up: nothing more can be written to it. ``response`` is the one
    the handler returns (aiohttp finishes it quietly: its connection is gone)."""

    def __init__(self, response: web.StreamResponse) -> None:
        super().__init__("the client hung up")
        self.response = response


def frames_in(data: bytes) -> int:
    """How many SSE events ``data`` ends (LF or CRLF blank lines): for the log line.

    One write is one relay's bytes, framed one way (Gemini's CRLF, every other
    format's LF; a CRLF blank line holds no two LFs in a row): the CRLF scan runs
    only when the LF one found nothing (it runs once per relayed read, so it counts).
    """
    return data.count(b"\n\n") or data.count(b"\r\n\r\n")


def error_answer(failure: ErrorResponse, extra: Mapping[str, str]) -> web.Response:
    """A pre-stream failure (``Relay.error_response()``'s triple) as an aiohttp response."""
    status, headers, body = failure
    response = web.Response(status=status, body=body)
    for name, value in headers:
        response.headers[name] = value
    response.headers.update(extra)
    return response


class Downstream:
    """What every way of answering the client shares: the headers it carries and the
    count of events written."""

    #: Whether the client reads a stream (keepalives are written to it).
    streaming = False

    def __init__(self, headers: dict[str, str]) -> None:
        #: Headers of the answer (request id, dropped parameters).
        self.headers = headers
        self.events = 0

    async def write(self, data: bytes) -> None:
        """The next relayed bytes."""
        raise NotImplementedError

    async def keepalive(self, relay: Relay) -> None:
        """The upstream has been quiet for a keepalive interval."""

    def keepalive_soon(self, relay: Relay) -> None:
        """As :meth:`keepalive`, from a timer: written by a task of its own."""

    async def finish(self, relay: Relay, last: bytes) -> web.StreamResponse:
        """The upstream ended (``last``: what ``relay.close()`` returned): the answer."""
        raise NotImplementedError

    def cancel(self) -> None:
        """The request ends without :meth:`finish` (the client left): stop what runs."""


class Streaming(Downstream):
    """A client that asked for a stream: bytes written as they come."""

    streaming = True

    def __init__(self, request: web.Request, headers: dict[str, str]) -> None:
        super().__init__(headers)
        self.request = request
        self.response = web.StreamResponse(status=200)
        #: A keepalive being written by a timer's task: every other write waits for it,
        #: so that bytes never interleave and the 200 is prepared once.
        self._pending: asyncio.Task[None] | None = None

    @property
    def started(self) -> bool:
        """Whether the 200 went out (a failure is then the stream's own error event)."""
        return self.response.prepared

    async def _start(self) -> None:
        response = self.response
        response.content_type = "text/event-stream"
        response.headers["cache-control"] = "no-cache"
        response.headers.update(self.headers)
        try:
            await response.prepare(self.request)
        except ConnectionResetError as exc:
            raise ClientGone(self.response) from exc

    async def write(self, data: bytes) -> None:
        if self._pending is not None:
            await self._settle()
        await self._write(data)

    async def _write(self, data: bytes) -> None:
        if not self.response.prepared:
            await self._start()
        self.events += frames_in(data)
        try:
            await self.response.write(data)
        except ConnectionResetError as exc:  # aiohttp's ClientConnectionResetError too
            raise ClientGone(self.response) from exc

    async def keepalive(self, relay: Relay) -> None:
        await self.write(relay.keepalive())

    def keepalive_soon(self, relay: Relay) -> None:
        if self._pending is None or self._pending.done():
            self._pending = asyncio.ensure_future(self._keepalive_task(relay))

    async def _keepalive_task(self, relay: Relay) -> None:
        # A client gone: the request's own task finds out at its next write, or is cancelled.
        with contextlib.suppress(ClientGone):
            await self._write(relay.keepalive())

    async def _settle(self) -> None:
        """Wait for the timer's keepalive to be written (or cancel it: the request ends)."""
        pending = self._pending
        self._pending = None
        if pending is not None:
            await pending

    def cancel(self) -> None:
        """The request ends without a finish: no keepalive may outlive it."""
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None

    async def finish(self, relay: Relay, last: bytes) -> web.StreamResponse:
        await self._settle()
        failure = relay.error_response()
        if failure is not None and not self.response.prepared:
            return error_answer(failure, self.headers)
        await self.write(last)
        # The openai client hangs up as soon as it reads [DONE]: the end of the chunked
        # body then meets a closing transport. Every byte of the stream went out: the
        # stream is complete, not a client that left (and no traceback).
        with contextlib.suppress(ConnectionResetError):
            await self.response.write_eof()
        return self.response


class Collecting(Downstream):
    """A client that asked for no stream: the relayed bytes are read by a lane of its
    format, and the answer is that lane's final object, or the client API's error."""

    def __init__(self, client: WireFormat, headers: dict[str, str]) -> None:
        super().__init__(headers)
        self.client = client
        self.lane: Any = client.lane()

    async def write(self, data: bytes) -> None:
        self.events += frames_in(data)
        self.lane.feed(data)

    async def finish(self, relay: Relay, last: bytes) -> web.StreamResponse:
        await self.write(last)
        self.lane.close()
        if relay.outcome is Outcome.FAILED or relay.outcome is Outcome.TRUNCATED:
            failure = relay.error_response()
            if failure is None:  # failed inside the stream: no status of its own
                error = relay.error or StreamError(message="the upstream failed", status=502)
                failure = self.client.emitter.error_response(error)
            return error_answer(failure, self.headers)
        return web.json_response(self.lane.snapshot.to_api(), headers=self.headers)
