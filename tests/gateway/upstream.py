"""A fake upstream for the gateway's tests: every format's paths, on loopback, scripted.

It answers each POST by replaying a bundled capture of the path's format
(``sse_engine/captures/<format>_basic.sse``, or ``<format>_final`` once the
request carries a tool result, so that a client's tool loop ends) and
records what it was sent: path, headers, JSON body, and when the
connection went away before the stream ended. A test scripts a fault per
request by putting a :class:`Script` in ``queue`` (else ``default`` applies):

- ``status`` (+ ``retry_after``): a pre-stream JSON error in the format's envelope;
- ``capture``: another capture to replay (``<format>_error``: an in-stream error);
- ``cut=K``: the connection reset before event K;
- ``hold``: seconds before the response headers (a slow answer);
- ``silent``: seconds of silence after the headers, before the first event;
- ``pace``: seconds between events (a client can hang up in the middle).

The format of a path is found through ``FORMATS`` (the rows' ``paths``).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from typing import Any

import attrs
from aiohttp import web
from server import capture_bytes, error_body, split_events

from sse_engine import FORMATS

#: The capture that answers a request carrying a tool result: a plain text turn.
FINAL: dict[str, str] = {
    "chat": "chat_kimi",
    "messages": "messages_gateway",
    "responses": "responses_basic",
    "gemini": "gemini_basic",
}
#: The request id the upstream sends with every answer.
REQUEST_ID = "req_upstream_1"


@attrs.define
class Script:
    """How the upstream answers one request (see the module docstring)."""

    status: int | None = None
    retry_after: str | None = None
    capture: str | None = None
    cut: int | None = None
    hold: float = 0.0
    silent: float = 0.0
    pace: float = 0.0


@attrs.define
class Seen:
    """One request the upstream received."""

    format: str
    path: str
    headers: dict[str, str]
    body: Any
    #: When the gateway closed the connection before the stream's end (monotonic).
    closed_at: float | None = None
    #: Whether the whole stream was written.
    finished: bool = False


def _route(path: str) -> str:
    """An aiohttp route for a ``FORMATS`` path (``{model}`` may hold a ``:`` suffix)."""
    return re.sub(r"\{model\}", "{model:[^/:]+}", path)


def _has_tool_result(body: Any) -> bool:
    """Whether a request body (any format) answers a tool call: the loop's last turn."""
    text = json.dumps(body)
    return any(
        word in text
        for word in (
            '"tool_result"',
            '"role": "tool"',
            '"function_call_output"',
            "functionResponse",
        )
    )


class Upstream:
    """The fake upstream's aiohttp app on its own loop in a thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.url = ""
        self.seen: list[Seen] = []
        self.queue: list[Script] = []
        self.default = Script()
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def start(self) -> None:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(timeout=10)

    async def _start(self) -> None:
        app = web.Application()
        for row in FORMATS.values():
            for path in row.paths:
                app.router.add_post(_route(path), self._post)
        self._runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, shutdown_timeout=0.2
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        self.loop.close()

    def reset(self) -> None:
        self.seen.clear()
        self.queue.clear()
        self.default = Script()

    def wait_closed(self, timeout: float) -> Seen:
        """The last request, once its connection was closed early (or after ``timeout``)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.seen and self.seen[-1].closed_at is not None:
                break
            time.sleep(0.01)
        return self.seen[-1]

    async def _post(self, request: web.Request) -> web.StreamResponse:
        fmt = next(
            row.name
            for row in FORMATS.values()
            if request.match_info.route.resource.canonical in row.paths
        )
        body = await request.json()
        seen = Seen(fmt, request.path, dict(request.headers), body)
        self.seen.append(seen)
        script = self.queue.pop(0) if self.queue else self.default
        if script.hold:
            try:
                await asyncio.sleep(script.hold)
            except asyncio.CancelledError:
                seen.closed_at = time.monotonic()
                raise
        headers = {"x-request-id": REQUEST_ID, "request-id": REQUEST_ID}
        if script.status is not None:
            if script.retry_after is not None:
                headers["retry-after"] = script.retry_after
            return web.Response(
                status=script.status,
                body=error_body(fmt, script.status),
                content_type="application/json",
                headers=headers,
            )
        name = script.capture or (FINAL[fmt] if _has_tool_result(body) else f"{fmt}_basic")
        events = split_events(capture_bytes(name))
        response = web.StreamResponse(headers={"content-type": "text/event-stream", **headers})
        try:
            await response.prepare(request)
            if script.silent:
                await asyncio.sleep(script.silent)
            for index, event in enumerate(events):
                if script.cut == index:
                    assert request.transport is not None
                    request.transport.abort()
                    return response
                await response.write(event)
                if script.pace:
                    await asyncio.sleep(script.pace)
            await response.write_eof()
            seen.finished = True
        except (asyncio.CancelledError, ConnectionError):
            seen.closed_at = time.monotonic()
            raise
        return response
