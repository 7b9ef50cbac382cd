"""The ASGI stack: uvicorn serving a plain ASGI app, an ``httpx.AsyncClient`` reading upstream.

Variants by :class:`~.gateway.Stack`: uvicorn's pure-Python h11 protocol on
asyncio's loop, or its httptools protocol on uvloop (what
``uvicorn[standard]`` picks); the upstream client from ``httpx`` or from
``httpx2`` (its successor, with the same API and a reworked connection pool).

An ASGI app learns that its client left only from ``receive()`` returning
``http.disconnect``, so each request has a task waiting on it that cancels
the handler, which closes its upstream response (httpx does not pool a
connection closed mid-body). The client has no connection limit (httpx's
default, 100, would queue the 101st stream).
"""

from __future__ import annotations

import asyncio
import importlib
import socket
from typing import Any

import uvicorn

from benchmarks.gateway_soak.gateway import Config, Pump, keep_alive
from benchmarks.gateway_soak.procs import announce

__all__ = ["serve"]

Scope = dict[str, Any]
Message = dict[str, Any]


class _App:
    """The gateway as an ASGI app (its upstream client opens and closes with the lifespan)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.httpx: Any = importlib.import_module(config.stack.client)
        self.client: Any = None

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                httpx = self.httpx
                limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
                timeout = httpx.Timeout(None, connect=60.0)
                self.client = httpx.AsyncClient(limits=limits, timeout=timeout)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.client is not None:
                    await self.client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["path"] != self.config.path or self.client is None:
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        handler = asyncio.current_task()
        assert handler is not None
        state = {"left": False, "done": False}

        async def watch() -> None:
            # After the body, receive() answers only once the client has gone
            # (or, in uvicorn, once the response is complete: then it is not "left").
            while (await receive())["type"] != "http.disconnect":
                pass
            if not state["done"]:
                state["left"] = True
                handler.cancel()

        watching = asyncio.create_task(watch())
        try:
            await self._stream(body, send, state)
        except asyncio.CancelledError:
            if not state["left"]:
                raise
            handler.uncancel()  # we cancelled it because the client left: a normal end
        finally:
            watching.cancel()

    async def _stream(self, body: bytes, send: Any, state: dict[str, bool]) -> None:
        assert self.client is not None
        pump = Pump(self.config.kind)
        request = self.client.build_request(
            "POST", self.config.upstream_url, content=pump.request(body),
            headers={"content-type": "application/json"},
        )
        try:
            upstream = await self.client.send(request, stream=True)
        except self.httpx.TransportError:
            status, kind, data = pump.failure()
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", kind.encode())]})
            state["done"] = True
            await send({"type": "http.response.body", "body": data})
            return
        try:
            status, kind = pump.start(upstream.status_code, upstream.headers.multi_items())
            await send({"type": "http.response.start", "status": status, "headers": [
                (b"content-type", kind.encode()), (b"cache-control", b"no-cache"),
            ]})

            async def write(data: bytes) -> None:
                await send({"type": "http.response.body", "body": data, "more_body": True})

            ticking = None
            if pump.relay is not None:
                ticking = asyncio.create_task(keep_alive(pump, write, self.config.keepalive))
            try:
                try:
                    async for data in upstream.aiter_raw():
                        out = pump.feed(data)
                        if out:
                            await write(out)
                except self.httpx.TransportError:
                    pass  # the upstream broke off: close() ends the client's stream with an error
                last = pump.close()
            finally:
                if ticking is not None:
                    ticking.cancel()
            state["done"] = True
            await send({"type": "http.response.body", "body": last, "more_body": False})
        finally:
            await upstream.aclose()


def serve(config: Config) -> None:
    """Serve ``config`` until the process is stopped."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(config.listen)
    sock.listen(4096)  # connections queue from now on; uvicorn accepts them once it runs
    announce(sock.getsockname()[1])
    uv = uvicorn.Config(
        _App(config), loop="uvloop" if config.uvloop else "asyncio", http=config.stack.parser,
        lifespan="on", access_log=False, log_level="warning", backlog=4096,
    )
    uvicorn.Server(uv).run(sockets=[sock])
