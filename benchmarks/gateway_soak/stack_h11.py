"""The h11 stack: asyncio protocols speaking HTTP/1.1 through h11 on both sides.

Sans-IO all the way down, as sse_engine itself: the upstream connection's
``data_received`` feeds the request's :class:`~.gateway.Pump` and writes the
client's transport in the same call, so a read costs no coroutine and no task
switch. A client whose transport pauses writing pauses its upstream's
reading (backpressure); a client that hangs up (``connection_lost``) closes its
upstream at once; the keepalive is a timer handle per stream, not a task.
Upstream connections are kept alive and pooled, without limit. Runs on
asyncio's loop or on uvloop (:class:`~.gateway.Config`).
"""

from __future__ import annotations

import asyncio
from typing import cast

import h11

from benchmarks.gateway_soak.gateway import UPSTREAM_PATH, Config, Pump
from benchmarks.gateway_soak.procs import announce, new_event_loop

__all__ = ["serve"]


class _Pool:
    """Kept-alive upstream connections, handed to one client request at a time."""

    def __init__(self, config: Config) -> None:
        self.host, self.port = config.upstream
        self.authority = f"{self.host}:{self.port}"
        self.idle: list[_Upstream] = []

    def send(self, client: _Client, body: bytes) -> None:
        """Send ``body`` upstream for ``client``, on an idle connection or a new one."""
        while self.idle:
            upstream = self.idle.pop()
            if not upstream.closed:
                upstream.send(client, body)
                return
        asyncio.get_running_loop().create_task(self._open(client, body))

    async def _open(self, client: _Client, body: bytes) -> None:
        loop = asyncio.get_running_loop()
        try:
            _, upstream = await loop.create_connection(
                lambda: _Upstream(self), self.host, self.port
            )
        except OSError:
            client.upstream_ended(None)
            return
        if client.gone:
            self.idle.append(upstream)
        else:
            upstream.send(client, body)


class _Upstream(asyncio.Protocol):
    """One connection to the upstream, reading one response at a time into its client."""

    def __init__(self, pool: _Pool) -> None:
        self.pool = pool
        self.h11 = h11.Connection(h11.CLIENT)
        self.transport: asyncio.Transport | None = None
        self.client: _Client | None = None
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def send(self, client: _Client, body: bytes) -> None:
        assert self.transport is not None
        self.client = client
        client.upstream = self
        conn = self.h11
        headers = [("host", self.pool.authority), ("content-type", "application/json"),
                   ("content-length", str(len(body)))]
        request = (h11.Request(method="POST", target=UPSTREAM_PATH, headers=headers),
                   h11.Data(data=body), h11.EndOfMessage())
        self.transport.write(b"".join(conn.send(event) or b"" for event in request))

    def data_received(self, data: bytes) -> None:
        conn = self.h11
        conn.receive_data(data)
        while (client := self.client) is not None:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError:
                self.close()
                client.upstream_ended(None)
                return
            kind = type(event)
            if kind is h11.Data:
                client.upstream_data(event.data)  # type: ignore[union-attr]
            elif event is h11.NEED_DATA:
                return
            elif kind is h11.Response:
                headers = [(k.decode("latin-1"), v.decode("latin-1"))
                           for k, v in event.headers]  # type: ignore[union-attr]
                client.upstream_started(event.status_code, headers)  # type: ignore[union-attr]
            elif kind is h11.EndOfMessage:
                self.client = None
                if conn.our_state is h11.DONE and conn.their_state is h11.DONE:
                    conn.start_next_cycle()
                    self.pool.idle.append(self)
                else:
                    self.close()
                client.upstream_ended(True)
                return

    def close(self) -> None:
        """Close this connection; its client (if any) is no longer told anything."""
        self.client = None
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        client, self.client = self.client, None
        if client is not None:
            client.upstream_ended(False)  # cut mid-response: the pump's close() says so


class _Client(asyncio.Protocol):
    """One client connection: its requests one at a time, each streamed from an upstream."""

    def __init__(self, config: Config, pool: _Pool) -> None:
        self.config, self.pool = config, pool
        self.h11 = h11.Connection(h11.SERVER)
        self.transport: asyncio.Transport | None = None
        self.target = b""
        self.body = bytearray()
        self.pump: Pump | None = None
        self.started = False
        self.upstream: _Upstream | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.gone = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        self.h11.receive_data(data)
        self._next()

    def _next(self) -> None:
        conn = self.h11
        while self.pump is None and not self.gone:  # a pipelined request waits in h11
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError:
                self._reply(400)
                return
            if event is h11.NEED_DATA or event is h11.PAUSED:
                return
            if isinstance(event, h11.Request):
                self.target = event.target
                self.body.clear()
            elif isinstance(event, h11.Data):
                self.body += event.data
            elif isinstance(event, h11.EndOfMessage):
                if self.target.decode("latin-1") != self.config.path:
                    self._reply(404)
                    continue
                self.pump = Pump(self.config.kind)
                self.started = False
                self.pool.send(self, self.pump.request(bytes(self.body)))
            elif isinstance(event, h11.ConnectionClosed):
                self._close()
                return

    def _write(self, event: h11.Event) -> None:
        data = self.h11.send(event)
        if data and self.transport is not None:
            self.transport.write(data)

    def _reply(self, status: int) -> None:
        if self.h11.our_state is not h11.SEND_RESPONSE:
            self._close()
            return
        self._write(h11.Response(status_code=status, headers=[("content-length", "0")]))
        self._write(h11.EndOfMessage())
        self._cycle()

    def _cycle(self) -> None:
        """The response is written: close, or get ready for the next request."""
        conn = self.h11
        if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
            self._close()
        elif conn.our_state is h11.DONE and conn.their_state is h11.DONE:
            conn.start_next_cycle()

    def _close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    # -- what the upstream connection tells ------------------------------------------------

    def upstream_started(self, status: int, headers: list[tuple[str, str]]) -> None:
        assert self.pump is not None
        status, kind = self.pump.start(status, headers)
        self.started = True
        self._write(h11.Response(status_code=status, headers=[
            ("content-type", kind), ("cache-control", "no-cache"),
        ]))
        if self.pump.relay is not None:
            self.timer = asyncio.get_running_loop().call_later(self.config.keepalive, self._tick)

    def upstream_data(self, data: bytes) -> None:
        out = self.pump.feed(data)  # type: ignore[union-attr]
        if out:
            self.transport.write(self.h11.send(h11.Data(data=out)))  # type: ignore[union-attr]

    def upstream_ended(self, finished: bool | None) -> None:
        """The upstream's answer ended (True), broke off (False) or never came (None)."""
        self.upstream = None
        pump = self.pump
        if self.gone or pump is None:
            return
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if not self.started:
            status, kind, body = pump.failure()
            self._write(h11.Response(status_code=status, headers=[
                ("content-type", kind), ("content-length", str(len(body))),
            ]))
            self._write(h11.Data(data=body))
            self._write(h11.EndOfMessage())
            self.pump = None
            self._cycle()
            self._next()
            return
        last = pump.close()
        if last:
            self._write(h11.Data(data=last))
        self._write(h11.EndOfMessage())
        self.pump = None
        self._cycle()
        self._next()

    def _tick(self) -> None:
        pump = self.pump
        if pump is None or self.gone:
            return
        wait = pump.quiet(self.config.keepalive)
        if wait <= 0:
            self._write(h11.Data(data=pump.keepalive()))
            wait = self.config.keepalive
        self.timer = asyncio.get_running_loop().call_later(wait, self._tick)

    # -- flow control and hang-ups ---------------------------------------------------------

    def pause_writing(self) -> None:
        if self.upstream is not None and self.upstream.transport is not None:
            self.upstream.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.upstream is not None and self.upstream.transport is not None:
            self.upstream.transport.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        self.gone = True
        self.transport = None
        if self.timer is not None:
            self.timer.cancel()
        if self.upstream is not None:
            self.upstream.close()  # the client left: its upstream is closed at once
            self.upstream = None


def serve(config: Config) -> None:
    """Serve ``config`` until the process is stopped."""
    with new_event_loop(config.uvloop) as loop:
        pool = _Pool(config)
        server = loop.run_until_complete(
            loop.create_server(lambda: _Client(config, pool), *config.listen, backlog=4096)
        )
        announce(server.sockets[0].getsockname()[1])
        loop.run_forever()
