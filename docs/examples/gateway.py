"""A gateway: one upstream (Anthropic Messages or Chat Completions) served as all three APIs.

    python docs/examples/gateway.py UPSTREAM_BASE_URL [messages|chat] [PORT]

Clients keep their own SDK: ``openai.OpenAI(base_url="http://127.0.0.1:PORT/v1")``
for Chat Completions and Responses, ``anthropic.Anthropic(base_url=
"http://127.0.0.1:PORT")`` for Messages. Each request's text messages go
upstream in the upstream's format (tools and images are what a real gateway
adds here); the stream that comes back is written in the client's format by
:class:`~sse_engine.relay.Relay`, keepalives and failures included. The
upstream key is read from $UPSTREAM_API_KEY.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
from aiohttp import web

from sse_engine import ChatCompletionsLane, MessagesLane
from sse_engine.relay import Relay

ROUTES: dict[str, str] = {
    "/v1/chat/completions": "chat",
    "/v1/responses": "responses",
    "/v1/messages": "messages",
}
KEEPALIVE_EVERY = 15.0  # seconds of upstream silence before the client gets a keepalive
UPSTREAM = web.AppKey("upstream", str)
KIND = web.AppKey("kind", str)
SESSION = web.AppKey("session", aiohttp.ClientSession)


def conversation(target: str, body: dict[str, Any]) -> tuple[str, list[dict[str, str]]]:
    """The system prompt and the text turns of a request in any of the three formats."""
    system = body.get("system") or body.get("instructions") or ""
    given = body.get("input", []) if target == "responses" else body.get("messages", [])
    turns = []
    for message in [{"role": "user", "content": given}] if isinstance(given, str) else given:
        content = message.get("content") or ""
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content)
        if message.get("role") in ("system", "developer"):
            system = content
        else:
            turns.append({"role": message.get("role", "user"), "content": content})
    return system, turns


def upstream_request(kind: str, target: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The upstream's path and request body for a client's request."""
    system, turns = conversation(target, body)
    model = body.get("model", "default")
    if kind == "messages":
        limit = body.get("max_tokens") or body.get("max_output_tokens") or 4096
        request = {"model": model, "max_tokens": limit, "messages": turns, "stream": True}
        return "messages", {**request, "system": system} if system else request
    system_turn = [{"role": "system", "content": system}] if system else []
    options = {"stream": True, "stream_options": {"include_usage": True}}
    return "chat/completions", {"model": model, "messages": system_turn + turns, **options}


async def reads(upstream: aiohttp.ClientResponse) -> AsyncIterator[bytes | None]:
    """The upstream body's reads; None after each quiet KEEPALIVE_EVERY seconds."""
    while True:
        try:
            chunk = await asyncio.wait_for(upstream.content.readany(), KEEPALIVE_EVERY)
        except TimeoutError:
            yield None
            continue
        if not chunk:
            return
        yield chunk


async def serve(request: web.Request) -> web.StreamResponse:
    target = ROUTES[request.path]
    body = await request.json()
    kind = request.app[KIND]
    path, payload = upstream_request(kind, target, body)
    lane = MessagesLane() if kind == "messages" else ChatCompletionsLane()
    relay = Relay(lane, to=target, model=body.get("model"), created=int(time.time()))
    key = os.environ.get("UPSTREAM_API_KEY", "")
    auth = (
        {"x-api-key": key, "anthropic-version": "2023-06-01"}
        if kind == "messages"
        else {"Authorization": f"Bearer {key}"}
    )
    response = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
    )
    url = f"{request.app[UPSTREAM]}/{path}"
    try:
        async with request.app[SESSION].post(url, json=payload, headers=auth) as upstream:
            relay.start(upstream.status, list(upstream.headers.items()))
            async for chunk in reads(upstream):
                out = relay.feed(chunk) if chunk is not None else b""
                if chunk is None and response.prepared:
                    out = relay.keepalive()
                if out:  # the 200 goes out with the first bytes
                    if not response.prepared:
                        await response.prepare(request)
                    await response.write(out)
    except aiohttp.ClientError:
        pass  # the upstream broke off: close() ends the client's stream with an error
    last = relay.close()
    failure = relay.error_response()
    if failure is not None and not response.prepared:
        status, headers, data = failure  # a failure before the stream, as the client's API says it
        return web.Response(status=status, headers=dict(headers), body=data)
    if not response.prepared:
        await response.prepare(request)
    await response.write(last)
    await response.write_eof()
    return response


def make_app(upstream: str, kind: str = "messages") -> web.Application:
    """The gateway: every route of ROUTES, relaying the upstream at ``upstream`` of ``kind``."""
    app = web.Application()
    app[UPSTREAM] = upstream.rstrip("/")
    app[KIND] = kind

    async def session(app: web.Application) -> AsyncIterator[None]:
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=10.0)
        async with aiohttp.ClientSession(timeout=timeout) as client:
            app[SESSION] = client
            yield

    app.cleanup_ctx.append(session)
    for route in ROUTES:
        app.router.add_post(route, serve)
    return app


if __name__ == "__main__":
    kind = sys.argv[2] if len(sys.argv) > 2 else "messages"
    port = int(sys.argv[3]) if len(sys.argv) > 3 else 8080
    web.run_app(make_app(sys.argv[1], kind), host="127.0.0.1", port=port)
