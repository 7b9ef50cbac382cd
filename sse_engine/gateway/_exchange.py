"""One request through the gateway: the client's body in its format, the upstream's
stream back in the same format.

The request: the body read as a :class:`~sse_engine.conversation.Conversation`
in the client's format, written in the upstream's (its model mapped) and
always streamed upstream; what the upstream's format could not carry is
named in ``X-Dropped-Params``. A body that cannot be read is a 400 in the
client API's own envelope. The response: the upstream's bytes through a
:class:`~sse_engine.relay.Relay` to the client's format, one read at a time
(``_downstream.py`` writes them, or assembles the final object of a client
that asked for no stream). The formats are the ``FORMATS`` rows the route
was made for: nothing here names one.

Endings: a failure before the stream is the client API's status and body
(the relay's ``error_response``), with the upstream's ``retry-after`` and
request id; a cut or failed upstream is the client's in-stream error
(``relay.close()`` never writes a clean finish for it); a quiet upstream
gets a keepalive every ``keepalive`` seconds; a client that hangs up (its
handler is cancelled, or a write fails) closes the upstream at once and
logs no traceback. Each request logs one line (``_record.py``).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable

import aiohttp
import attrs
from aiohttp import web

from sse_engine._formats import WireFormat
from sse_engine._outcome import StreamError
from sse_engine.conversation import Conversation, InvalidRequest
from sse_engine.gateway._config import GatewayConfig, endpoint_of
from sse_engine.gateway._downstream import (
    ClientGone,
    Collecting,
    Downstream,
    Streaming,
    error_answer,
)
from sse_engine.gateway._quiet import QuietTimer
from sse_engine.gateway._record import Record
from sse_engine.relay import Relay

__all__ = ["DROPPED_HEADER", "Exchange"]

#: The response header naming, by path, what the upstream's format could not carry.
DROPPED_HEADER = "X-Dropped-Params"
#: The upstream could not be reached, or broke off before it answered.
_UNREACHABLE = "upstream_unreachable"


@attrs.frozen
class _Outbound:
    """What a client's request becomes: the upstream's request body and what the answer
    needs of the client's (the model it asked for, the parameters dropped, stream or not)."""

    payload: bytes
    model: str | None
    upstream_model: str | None
    dropped: tuple[str, ...]
    stream: bool


class Exchange:
    """The handler of one client format's paths, relaying to the configured upstream.

    ``session`` is called for the upstream client session (made when the app
    starts, so that it belongs to the serving loop).
    """

    def __init__(
        self,
        config: GatewayConfig,
        client: WireFormat,
        session: Callable[[], aiohttp.ClientSession],
    ) -> None:
        self.config = config
        self.client = client
        self.upstream = config.upstream_row
        self._client_endpoint = endpoint_of(client)
        self._upstream_endpoint = endpoint_of(self.upstream)
        self._session = session
        self._upstream_headers = config.upstream_headers()
        #: The upstream API's request id header, and the client API's.
        self._id_in = self.upstream.emitter.request_id_header
        self._id_out = client.emitter.request_id_header

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """Answer one request on one of the client format's paths."""
        record = Record(request.path, self.client.name, self.upstream.name)
        try:
            return await self._serve(request, record)
        except ClientGone as gone:
            record.outcome = "client_closed"
            return gone.response
        except asyncio.CancelledError:
            record.outcome = "client_closed"
            raise
        finally:
            record.log()

    # -- the request ----------------------------------------------------------------

    async def _serve(self, request: web.Request, record: Record) -> web.StreamResponse:
        try:
            outbound = self._outbound(request, await request.read())
        except InvalidRequest as invalid:
            return self._bad_request(invalid, record)
        headers: dict[str, str] = {}
        if outbound.dropped:
            headers[DROPPED_HEADER] = ", ".join(outbound.dropped)
        downstream: Downstream
        if outbound.stream:
            downstream = Streaming(request, headers)
        else:
            downstream = Collecting(self.client, headers)
        # lean: the relay keeps only what the client's format must still write, so a
        # stream's memory does not grow with its length (a slow client holds it longer).
        relay = Relay(
            self.upstream.lane(),
            to=self.client.name,
            model=outbound.model,
            created=int(time.time()),
            lean=True,
        )
        return await self._relay(outbound.payload, outbound.upstream_model, relay, downstream,
                                 record)

    def _outbound(self, request: web.Request, raw: bytes) -> _Outbound:
        """The upstream's request for the client's body (``InvalidRequest``: it cannot be
        read). Made in a call of its own, so that the parsed body, the conversation and the
        rendered request are dropped before the stream starts, not held for its length."""
        try:
            body = json.loads(raw)
        except ValueError as exc:
            raise InvalidRequest("", f"the body is not JSON ({exc})") from None
        conversation = Conversation.from_body(self.client.name, body)
        model = request.match_info.get("model")
        if model is None and isinstance(body.get("model"), str):
            model = body["model"]
        upstream_model = self.config.upstream_model(model)
        rendered = conversation.to_body(self.upstream.name, model=upstream_model, stream=True)
        upstream_body = self._upstream_endpoint.streamed(rendered.body)
        return _Outbound(
            payload=json.dumps(upstream_body, ensure_ascii=False).encode(),
            model=model,
            upstream_model=upstream_model,
            dropped=tuple(rendered.dropped),
            stream=self._client_endpoint.wants_stream(body, _route_path(request)),
        )

    def _bad_request(self, invalid: InvalidRequest, record: Record) -> web.Response:
        record.outcome = "bad_request"
        return web.json_response(invalid.error_body(self.client.name), status=400)

    # -- the upstream ----------------------------------------------------------------

    async def _relay(
        self,
        payload: bytes,
        model: str | None,
        relay: Relay,
        downstream: Downstream,
        record: Record,
    ) -> web.StreamResponse:
        try:
            upstream = await self._post(self.config.upstream_url(model), payload, relay, downstream)
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            record.outcome = _UNREACHABLE
            error = StreamError(
                message=f"the upstream could not be reached: {exc or type(exc).__name__}",
                code=_UNREACHABLE,
                status=502,
                retryable=True,
            )
            if isinstance(downstream, Streaming) and downstream.started:
                return await downstream.finish(relay, relay.close())
            return error_answer(self.client.emitter.error_response(error), downstream.headers)
        done = False
        try:
            record.status = upstream.status
            relay.start(upstream.status, list(upstream.headers.items()))
            request_id = upstream.headers.get(self._id_in)
            if request_id is not None:
                downstream.headers[self._id_out] = request_id
            await self._pump(upstream, relay, downstream)
            done = True
        finally:
            record.events = downstream.events
            if done:
                upstream.release()
            else:
                upstream.close()  # the client left: the upstream's connection goes at once
                downstream.cancel()
        answer = await downstream.finish(relay, relay.close())
        record.events = downstream.events
        record.outcome = "" if relay.outcome is None else relay.outcome.value
        return answer

    async def _post(
        self, url: str, payload: bytes, relay: Relay, downstream: Downstream
    ) -> aiohttp.ClientResponse:
        """The upstream's response (headers read), with keepalives to a streaming client
        while it takes longer than a keepalive interval to answer."""
        session = self._session()
        sent = asyncio.ensure_future(
            session.post(url, data=payload, headers=self._upstream_headers)
        )
        try:
            while True:
                finished, _ = await asyncio.wait((sent,), timeout=self.config.keepalive)
                if finished:
                    return sent.result()
                await downstream.keepalive(relay)
        except BaseException:  # the client left (or a keepalive failed): no upstream for it
            if not sent.done():
                sent.cancel()
            elif not sent.cancelled() and sent.exception() is None:
                sent.result().close()
            raise

    async def _pump(
        self, upstream: aiohttp.ClientResponse, relay: Relay, downstream: Downstream
    ) -> None:
        """Upstream reads through the relay to the client until the upstream's body ends
        (or breaks off: ``relay.close()`` then ends the client's stream with its error)."""
        read, feed, write = upstream.content.readany, relay.feed, downstream.write
        timer = None
        if downstream.streaming:
            timer = QuietTimer(self.config.keepalive, lambda: downstream.keepalive_soon(relay))
        try:
            while True:
                try:
                    chunk = await read()
                except (aiohttp.ClientError, OSError):
                    return  # cut: the relay's close() tells the client
                if not chunk:
                    return
                if timer is not None:
                    timer.touch()
                out = feed(chunk)
                if out:
                    await write(out)
        finally:
            if timer is not None:
                timer.cancel()


def _route_path(request: web.Request) -> str:
    """The route's path as the format's row spells it (``{model}`` unfilled): on a
    final path (Gemini's ``:generateContent``) the path, not the body, says that no
    stream is wanted."""
    route = request.match_info.route.resource
    return request.path if route is None else route.canonical
