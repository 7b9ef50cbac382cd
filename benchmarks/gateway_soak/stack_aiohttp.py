"""The aiohttp stack: ``aiohttp.web`` serving, an ``aiohttp.ClientSession`` reading upstream.

The handler runs with ``handler_cancellation=True``, so a client that hangs
up cancels it at once, which closes its upstream response (unread, its
connection is not pooled again). The session has no connection limit (its
default, 100, would queue the 101st stream).
"""

from __future__ import annotations

import asyncio
import contextlib

import aiohttp
from aiohttp import web

from benchmarks.gateway_soak.gateway import Config, Pump, keep_alive
from benchmarks.gateway_soak.procs import announce, new_event_loop

__all__ = ["serve"]


def serve(config: Config) -> None:
    """Serve ``config`` until the process is stopped."""
    with new_event_loop(config.uvloop) as loop:
        loop.run_until_complete(_serve(config))


async def _serve(config: Config) -> None:
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=60)
    session = aiohttp.ClientSession(connector=connector, timeout=timeout, auto_decompress=False)
    url = config.upstream_url
    headers = {"content-type": "application/json"}

    async def handle(request: web.Request) -> web.StreamResponse:
        pump = Pump(config.kind)
        body = pump.request(await request.read())
        try:
            upstream = await session.post(url, data=body, headers=headers)
        except aiohttp.ClientError:
            status, kind, data = pump.failure()
            return web.Response(status=status, body=data, headers={"content-type": kind})
        async with upstream:
            status, kind = pump.start(upstream.status, list(upstream.headers.items()))
            response = web.StreamResponse(
                status=status, headers={"content-type": kind, "cache-control": "no-cache"}
            )
            await response.prepare(request)
            ticking = None
            if pump.relay is not None:
                ticking = asyncio.create_task(keep_alive(pump, response.write, config.keepalive))
            try:
                try:
                    async for data in upstream.content.iter_any():
                        out = pump.feed(data)
                        if out:
                            await response.write(out)
                except aiohttp.ClientError:
                    pass  # the upstream broke off: close() ends the client's stream with an error
                last = pump.close()
            except ConnectionResetError:
                return response  # the client left while we wrote: nothing to log
            finally:
                if ticking is not None:
                    ticking.cancel()
        with contextlib.suppress(ConnectionResetError):
            if last:
                await response.write(last)
            await response.write_eof()
        return response

    app = web.Application()
    app.router.add_post(config.path, handle)
    runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
    await runner.setup()
    site = web.TCPSite(runner, *config.listen, backlog=4096)
    await site.start()
    server = site._server
    assert server is not None
    announce(server.sockets[0].getsockname()[1])  # type: ignore[attr-defined]
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
        await session.close()
