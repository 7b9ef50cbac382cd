"""Chat Completions on trio (or asyncio) through anyio, with h11 speaking HTTP/1.1.

    python docs/examples/anyio_h11.py [BASE_URL] [trio|asyncio]

BASE_URL defaults to $SSE_ENGINE_BASE_URL, then https://api.openai.com/v1; the
key is read from $OPENAI_API_KEY; the backend defaults to trio. Prints the text
as it streams, then the outcome. Two sans-IO libraries meet here: h11 turns
socket bytes into body bytes, sse_engine turns body bytes into events, and
anyio moves the bytes on whichever event loop runs.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import anyio
import anyio.abc
import h11

from sse_engine import Liveness, aiter_events
from sse_engine.chat import ChatCompletionsLane, ChatContentDelta

PUBLIC_API = "https://api.openai.com/v1"
BASE_URL = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SSE_ENGINE_BASE_URL", PUBLIC_API)
BACKEND = sys.argv[2] if len(sys.argv) > 2 else "trio"
REQUEST = {
    "model": "gpt-4.1",
    "messages": [{"role": "user", "content": "Count to five."}],
    "stream": True,
}


async def next_event(conn: h11.Connection, stream: anyio.abc.ByteStream) -> object:
    """The next h11 event, reading from the socket as h11 needs more bytes."""
    while (event := conn.next_event()) is h11.NEED_DATA:
        try:
            conn.receive_data(await stream.receive())
        except anyio.EndOfStream:
            conn.receive_data(b"")  # h11 raises RemoteProtocolError if the body was cut
    return event


async def body_bytes(conn: h11.Connection, stream: anyio.abc.ByteStream) -> AsyncIterator[bytes]:
    while isinstance(event := await next_event(conn, stream), h11.Data):
        yield bytes(event.data)


async def main() -> int:
    # Under trio and asyncio alike, aiter_events bounds each body read by the budgets.
    liveness = Liveness()
    parts = urlsplit(BASE_URL)
    tls = parts.scheme == "https"
    host = parts.hostname or "localhost"
    port = parts.port or (443 if tls else 80)
    stream: anyio.abc.ByteStream
    if tls:
        stream = await anyio.connect_tcp(host, port, tls=True)
    else:
        stream = await anyio.connect_tcp(host, port)
    body = json.dumps(REQUEST).encode()
    headers = [
        ("Host", parts.netloc),
        ("Content-Type", "application/json"),
        ("Accept", "text/event-stream"),
        ("Content-Length", str(len(body))),
    ]
    if key := os.environ.get("OPENAI_API_KEY"):
        headers.append(("Authorization", f"Bearer {key}"))
    conn = h11.Connection(h11.CLIENT)
    request = h11.Request(method="POST", target=f"{parts.path}/chat/completions", headers=headers)
    for message in (request, h11.Data(data=body), h11.EndOfMessage()):
        await stream.send(conn.send(message) or b"")
    with anyio.fail_after(liveness.idle_timeout):  # the wait for the headers
        response = await next_event(conn, stream)
    assert isinstance(response, h11.Response)
    lane = ChatCompletionsLane()
    lane.start(response.status_code, [(k.decode(), v.decode()) for k, v in response.headers])
    try:
        async for event in aiter_events(lane, body_bytes(conn, stream), liveness=liveness):
            if isinstance(event, ChatContentDelta):
                print(event.text, end="", flush=True)
    except (h11.RemoteProtocolError, OSError) as exc:  # re-raised after the lane ended
        print(f"\n[transport error: {exc!r}]")
    finally:
        await stream.aclose()
    assert lane.outcome is not None
    error = f": {lane.error.code or lane.error.type}: {lane.error.message}" if lane.error else ""
    print(f"\n[outcome: {lane.outcome.value}{error}]")
    return 0 if lane.outcome.value == "completed" else 1


if __name__ == "__main__":
    sys.exit(anyio.run(main, backend=BACKEND))
