"""The gateway's test rig: the fake upstream (``upstream.py``) and gateways in front of it.

Each gateway runs in this process on its own event loop in a thread, on a
free loopback port (port 0), with the runner settings ``sse-engine gateway``
uses (:func:`sse_engine.gateway.make_runner`); the SDK clients talk to it
over real HTTP.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from upstream import Upstream

from sse_engine.gateway import GatewayConfig, make_runner


class Gateway:
    """A running gateway: ``url`` is its base URL."""

    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        self.loop = asyncio.new_event_loop()
        self.runner = make_runner(config)
        self.url = ""
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def start(self) -> Gateway:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(timeout=10)
        return self

    async def _start(self) -> None:
        from aiohttp import web

        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        host, port = self.runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()


@pytest.fixture(scope="session")
def _upstream() -> Iterator[Upstream]:
    server = Upstream()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def upstream(_upstream: Upstream) -> Iterator[Upstream]:
    """The fake upstream, its script and record cleared."""
    _upstream.reset()
    yield _upstream
    _upstream.reset()


@pytest.fixture
def start_gateway(upstream: Upstream) -> Iterator[Callable[..., Gateway]]:
    """Start a gateway in front of the fake upstream: ``start_gateway("messages", **config)``."""
    running: list[Gateway] = []

    def start(upstream_format: str, **settings: Any) -> Gateway:
        settings.setdefault("upstream_key", "sk-upstream")
        config = GatewayConfig(
            upstream=upstream.url, upstream_format=upstream_format, port=0, **settings
        )
        gateway = Gateway(config).start()
        running.append(gateway)
        return gateway

    yield start
    for gateway in running:
        gateway.stop()
