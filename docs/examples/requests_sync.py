"""Anthropic Messages over requests, with a read timeout as the idle budget.

    python docs/examples/requests_sync.py [BASE_URL]

BASE_URL defaults to $SSE_ENGINE_BASE_URL, then https://api.anthropic.com/v1;
the key is read from $ANTHROPIC_API_KEY. Prints the text as it streams, then
the outcome.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import requests

from sse_engine import Liveness, iter_events
from sse_engine.messages import MessagesLane, TextBlockDelta

PUBLIC_API = "https://api.anthropic.com/v1"
BASE_URL = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SSE_ENGINE_BASE_URL", PUBLIC_API)
REQUEST: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "messages": [{"role": "user", "content": "Count to five."}],
    "stream": True,
}


def main() -> int:
    liveness = Liveness()  # 125 s without a byte, 30 min of keepalives only
    headers = {
        "x-api-key": os.environ.get("ANTHROPIC_API_KEY", ""),
        "anthropic-version": "2023-06-01",
    }
    lane = MessagesLane()
    # (connect, read): the read timeout bounds each silent read; keepalive comments
    # reset it, so a model that thinks for minutes is not cut. The keepalive-only
    # cap is checked by iter_events between chunks (keepalives keep them coming).
    with requests.post(
        f"{BASE_URL}/messages",
        json=REQUEST,
        headers=headers,
        stream=True,
        timeout=(10.0, liveness.idle_timeout),
    ) as response:
        lane.start(response.status_code, response.headers.items())
        # chunk_size=None: hand over the bytes as they arrive, not in 512-byte blocks.
        chunks = response.iter_content(chunk_size=None)
        try:
            for event in iter_events(lane, chunks, liveness=liveness):
                if isinstance(event, TextBlockDelta):
                    print(event.text, end="", flush=True)
        except requests.RequestException as exc:  # re-raised after the lane ended
            print(f"\n[transport error: {exc!r}]")
    assert lane.outcome is not None
    error = f": {lane.error.code or lane.error.type}: {lane.error.message}" if lane.error else ""
    print(f"\n[outcome: {lane.outcome.value}{error}]")
    return 0 if lane.outcome.value == "completed" else 1


if __name__ == "__main__":
    sys.exit(main())
