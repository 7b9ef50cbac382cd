"""The gateway's aiohttp application, and serving it until SIGTERM.

One route per path of each served format's ``FORMATS`` row (its stream
``paths``, and its endpoint's ``final_paths``, answered with the final object
alone), each handled by an :class:`~sse_engine.gateway._exchange.Exchange`
for that format; one
upstream client session per process, with no cap on its connections (each
stream holds one for its whole length). The process keeps no state between
requests, so several of them can run behind a load balancer.
"""

from __future__ import annotations

import asyncio
import gc
import signal
from collections.abc import AsyncIterator, Callable

import aiohttp
from aiohttp import web

from sse_engine.gateway._config import GatewayConfig, endpoint_of, served_formats
from sse_engine.gateway._exchange import Exchange
from sse_engine.gateway._record import LOG

__all__ = ["make_app", "make_runner", "serve"]

#: The largest request body accepted (images travel inline in requests).
MAX_REQUEST_BYTES = 64 * 1024 * 1024
#: Connections waiting to be accepted (aiohttp's default is 128).
BACKLOG = 4096

_SESSION = web.AppKey("sse_engine_gateway_session", aiohttp.ClientSession)


def make_app(config: GatewayConfig) -> web.Application:
    """The gateway as an aiohttp application (serve it with :func:`make_runner`, whose
    settings the gateway's promises rely on)."""
    app = web.Application(client_max_size=MAX_REQUEST_BYTES)

    async def upstream_session(app: web.Application) -> AsyncIterator[None]:
        # Made on the serving loop; closed after the running streams finished.
        connector = aiohttp.TCPConnector(limit=0)
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=config.connect_timeout)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            app[_SESSION] = session
            yield

    app.cleanup_ctx.append(upstream_session)

    def session() -> aiohttp.ClientSession:
        return app[_SESSION]

    for row in served_formats():
        handler = Exchange(config, row, session)
        for path in (*row.paths, *endpoint_of(row).final_paths):
            app.router.add_post(path, handler.handle)
    return app


def make_runner(config: GatewayConfig) -> web.AppRunner:
    """The runner of :func:`make_app`: a client that hangs up cancels its handler (which
    closes the upstream at once), running streams get ``config.grace`` seconds at
    shutdown, and the per-request log line replaces the access log."""
    return web.AppRunner(
        make_app(config),
        access_log=None,
        handler_cancellation=True,
        shutdown_timeout=config.grace,
    )


async def serve(config: GatewayConfig, ready: Callable[[str], None] | None = None) -> None:
    """Serve until SIGTERM or SIGINT; then stop accepting, and let running streams finish
    within ``config.grace`` seconds. ``ready`` is told the URL once it listens."""
    runner = make_runner(config)
    await runner.setup()
    # What importing and starting made lives as long as the process: moved out of the
    # collector's reach, a full collection no longer scans it while a thousand streams
    # wait (measured at N = 1,000: full collections of about 300 ms stalled the loop).
    gc.freeze()
    try:
        # A deep accept queue: a burst of clients connecting at once is queued, not refused.
        site = web.TCPSite(runner, config.host, config.port, backlog=BACKLOG)
        await site.start()
        host, port = runner.addresses[0][:2]
        url = f"http://{host}:{port}" if ":" not in host else f"http://[{host}]:{port}"
        names = ", ".join(row.name for row in served_formats())
        LOG.info(
            "listening on %s (%s) for %s upstream %s",
            url,
            names,
            config.upstream_format,
            config.upstream,
        )
        if ready is not None:
            ready(url)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        await stop.wait()
        LOG.info("stopping: no new connections; running streams get %gs", config.grace)
    finally:
        await runner.cleanup()
