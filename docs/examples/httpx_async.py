"""Chat Completions over httpx (async), with liveness deadlines.

    python docs/examples/httpx_async.py [BASE_URL]

BASE_URL defaults to $SSE_ENGINE_BASE_URL, then https://api.openai.com/v1; the
key is read from $OPENAI_API_KEY. Prints the text as it streams, then the outcome.
"""

from __future__ import annotations

import asyncio
import os
import sys

import httpx

from sse_engine import Liveness, aiter_events
from sse_engine.chat import ChatCompletionsLane, ChatContentDelta

PUBLIC_API = "https://api.openai.com/v1"
BASE_URL = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SSE_ENGINE_BASE_URL", PUBLIC_API)
REQUEST = {
    "model": "gpt-4.1",
    "messages": [{"role": "user", "content": "Count to five."}],
    "stream": True,
    "stream_options": {"include_usage": True},
}


async def main() -> int:
    # aiter_events bounds every read by liveness.next_deadline() itself: 125 s without
    # a byte ends the stream (idle_timeout), keepalives alone for 30 minutes too
    # (keepalive_only_timeout). A model that thinks for minutes behind keepalives is
    # never cut. httpx's read timeout is the same idle budget: it also bounds the wait
    # for the headers (up to 90 s on a slow start), which aiter_events does not see.
    liveness = Liveness(idle_timeout=125.0, keepalive_only_timeout=30 * 60.0)
    timeout = httpx.Timeout(10.0, read=liveness.idle_timeout)
    key = os.environ.get("OPENAI_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    lane = ChatCompletionsLane()
    async with (
        httpx.AsyncClient(timeout=timeout, headers=headers) as client,
        client.stream("POST", f"{BASE_URL}/chat/completions", json=REQUEST) as response,
    ):
        # A 4xx/5xx (or a non-SSE body) is a JSON error: the lane reports it as FAILED.
        lane.start(response.status_code, response.headers.items())
        try:
            async for event in aiter_events(lane, response.aiter_bytes(), liveness=liveness):
                if isinstance(event, ChatContentDelta):
                    print(event.text, end="", flush=True)
        except httpx.TransportError as exc:  # re-raised after the lane ended as TRUNCATED
            print(f"\n[transport error: {exc!r}]")
    assert lane.outcome is not None
    error = f": {lane.error.code or lane.error.type}: {lane.error.message}" if lane.error else ""
    print(f"\n[outcome: {lane.outcome.value}{error}]")
    return 0 if lane.outcome.value == "completed" else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
