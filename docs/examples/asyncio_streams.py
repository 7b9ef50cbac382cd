"""Anthropic Messages over raw asyncio streams: HTTP/1.1 by hand, no HTTP library.

    python docs/examples/asyncio_streams.py [BASE_URL]

BASE_URL defaults to $SSE_ENGINE_BASE_URL, then https://api.anthropic.com/v1;
the key is read from $ANTHROPIC_API_KEY. Prints the text as it streams, then
the outcome. The engine only needs an async iterator of body bytes; this file
shows how little it takes to give it one (chunked transfer decoding included).
"""

from __future__ import annotations

import asyncio
import json
import os
import ssl
import sys
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

from sse_engine import Liveness, aiter_events
from sse_engine.messages import MessagesLane, TextBlockDelta

PUBLIC_API = "https://api.anthropic.com/v1"
BASE_URL = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SSE_ENGINE_BASE_URL", PUBLIC_API)
REQUEST = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "messages": [{"role": "user", "content": "Count to five."}],
    "stream": True,
}

Headers = list[tuple[str, str]]


async def post(
    url: str, body: bytes, headers: Headers
) -> tuple[int, Headers, AsyncIterator[bytes]]:
    """Send a POST; return the status, the headers and the body's bytes as they arrive."""
    parts = urlsplit(url)
    tls = parts.scheme == "https"
    host = parts.hostname or "localhost"
    reader, writer = await asyncio.open_connection(
        host, parts.port or (443 if tls else 80), ssl=ssl.create_default_context() if tls else None
    )
    head = [f"POST {parts.path or '/'} HTTP/1.1", f"Host: {parts.netloc}", "Connection: close"]
    head += [f"{name}: {value}" for name, value in headers]
    head += [f"Content-Length: {len(body)}", "", ""]
    writer.write("\r\n".join(head).encode("latin-1") + body)
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    response_headers: Headers = []
    while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        response_headers.append((name.strip(), value.strip()))
    return status, response_headers, body_bytes(reader, writer, response_headers)


async def body_bytes(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, headers: Headers
) -> AsyncIterator[bytes]:
    """The body, de-chunked; a connection that drops inside it raises IncompleteReadError."""
    fields = {name.lower(): value.lower() for name, value in headers}
    try:
        if "chunked" in fields.get("transfer-encoding", ""):
            while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
                while size:
                    data = await reader.read(min(size, 65536))
                    if not data:
                        raise asyncio.IncompleteReadError(b"", size)
                    size -= len(data)
                    yield data
                await reader.readexactly(2)  # the CRLF after each chunk
        else:  # Content-Length or read-until-close; both end at EOF with Connection: close
            while data := await reader.read(65536):
                yield data
    finally:
        writer.close()


async def main() -> int:
    # aiter_events bounds every body read by the liveness budgets; the request and
    # the wait for the headers (up to 90 s on a slow start) are bounded here.
    liveness = Liveness()
    headers = [
        ("Content-Type", "application/json"),
        ("Accept", "text/event-stream"),
        ("x-api-key", os.environ.get("ANTHROPIC_API_KEY", "")),
        ("anthropic-version", "2023-06-01"),
    ]
    async with asyncio.timeout(liveness.idle_timeout):
        status, response_headers, chunks = await post(
            f"{BASE_URL}/messages", json.dumps(REQUEST).encode(), headers
        )
    lane = MessagesLane()
    lane.start(status, response_headers)
    try:
        async for event in aiter_events(lane, chunks, liveness=liveness):
            if isinstance(event, TextBlockDelta):
                print(event.text, end="", flush=True)
    except (OSError, asyncio.IncompleteReadError) as exc:  # re-raised after the lane ended
        print(f"\n[transport error: {exc!r}]")
    assert lane.outcome is not None
    error = f": {lane.error.code or lane.error.type}: {lane.error.message}" if lane.error else ""
    print(f"\n[outcome: {lane.outcome.value}{error}]")
    return 0 if lane.outcome.value == "completed" else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
