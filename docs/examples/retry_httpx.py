"""Chat Completions or Messages over httpx, sent again when it fails: "retry it yourself".

    python docs/examples/retry_httpx.py [BASE_URL] [chat|messages] [sync|async]

A gateway that sends its 200 early reports a later failure inside the stream,
where no SDK retries it; this script retries it where it would have retried the
same failure's status (RetryPolicy decides both alike), and re-sends a stream
that was cut (Chat and Messages cannot resume). BASE_URL defaults to
$SSE_ENGINE_BASE_URL, then the public API of the lane; keys come from
$OPENAI_API_KEY / $ANTHROPIC_API_KEY. Prints the text, each retry, then the outcome.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from sse_engine import (
    ChatCompletionsLane,
    Lane,
    LaneEvent,
    MessagesLane,
    Outcome,
    RetryPolicy,
    aiter_events,
    iter_events,
)
from sse_engine.chat import ChatContentDelta
from sse_engine.messages import TextBlockDelta

PUBLIC_API = {"chat": "https://api.openai.com/v1", "messages": "https://api.anthropic.com/v1"}
PATH = {"chat": "/chat/completions", "messages": "/messages"}
MESSAGES = [{"role": "user", "content": "Count to five."}]
REQUEST: dict[str, dict[str, Any]] = {
    "chat": {"model": "gpt-4.1", "messages": MESSAGES, "stream": True},
    "messages": {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": MESSAGES,
        "stream": True,
    },
}


def new_lane(api: str) -> Lane[Any]:
    return ChatCompletionsLane() if api == "chat" else MessagesLane()


def show(event: LaneEvent) -> None:
    if isinstance(event, ChatContentDelta | TextBlockDelta):
        print(event.text, end="", flush=True)


def next_delay(lane: Lane[Any], policy: RetryPolicy, attempt: int) -> float | None:
    """How long to wait before sending the request again, or None: this attempt is the answer."""
    error = lane.error
    if lane.outcome in (Outcome.COMPLETED, Outcome.INCOMPLETE) or error is None:
        return None
    # The lane read Retry-After / retry-after-ms from the headers given to start():
    # policy.delay() waits what the server asked, or backs off.
    delay = policy.delay(error, attempt)  # None: not retryable, or attempts used up
    if delay is not None:
        print(f"\n[attempt {attempt} failed ({error.code or error.type}): retry in {delay:.2f} s]")
    return delay


def post_with_retries(
    client: httpx.Client,
    base_url: str,
    api: str,
    policy: RetryPolicy | None = None,
    sleep: Callable[[float], object] = time.sleep,
) -> Lane[Any]:
    """POST the request until it succeeds or the policy says stop; the last attempt's lane."""
    policy = policy or RetryPolicy()
    attempt = 0
    while True:
        attempt += 1
        lane = new_lane(api)
        with client.stream("POST", base_url + PATH[api], json=REQUEST[api]) as response:
            lane.start(response.status_code, response.headers.multi_items())
            try:
                for event in iter_events(lane, response.iter_bytes()):
                    show(event)
            except httpx.TransportError as exc:  # the lane ended TRUNCATED: retryable
                print(f"\n[transport error: {exc!r}]")
        delay = next_delay(lane, policy, attempt)
        if delay is None:
            return lane
        sleep(delay)


async def apost_with_retries(
    client: httpx.AsyncClient,
    base_url: str,
    api: str,
    policy: RetryPolicy | None = None,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
) -> Lane[Any]:
    """The async twin of :func:`post_with_retries`."""
    policy = policy or RetryPolicy()
    attempt = 0
    while True:
        attempt += 1
        lane = new_lane(api)
        async with client.stream("POST", base_url + PATH[api], json=REQUEST[api]) as response:
            lane.start(response.status_code, response.headers.multi_items())
            try:
                async for event in aiter_events(lane, response.aiter_bytes()):
                    show(event)
            except httpx.TransportError as exc:
                print(f"\n[transport error: {exc!r}]")
        delay = next_delay(lane, policy, attempt)
        if delay is None:
            return lane
        await sleep(delay)


def headers_for(api: str) -> dict[str, str]:
    if api == "chat":
        key = os.environ.get("OPENAI_API_KEY")
        return {"Authorization": f"Bearer {key}"} if key else {}
    return {
        "x-api-key": os.environ.get("ANTHROPIC_API_KEY", ""),
        "anthropic-version": "2023-06-01",
    }


def main() -> int:
    api = sys.argv[2] if len(sys.argv) > 2 else "chat"
    mode = sys.argv[3] if len(sys.argv) > 3 else "sync"
    default = os.environ.get("SSE_ENGINE_BASE_URL", PUBLIC_API[api])
    base_url = sys.argv[1] if len(sys.argv) > 1 else default
    # Reads may pause for minutes while a model thinks behind keepalives: time out on
    # no bytes for 125 s (see docs/transports.md), never on the whole stream.
    timeout = httpx.Timeout(10.0, read=125.0)
    if mode == "async":

        async def run() -> Lane[Any]:
            async with httpx.AsyncClient(timeout=timeout, headers=headers_for(api)) as client:
                return await apost_with_retries(client, base_url, api)

        lane = asyncio.run(run())
    else:
        with httpx.Client(timeout=timeout, headers=headers_for(api)) as client:
            lane = post_with_retries(client, base_url, api)
    assert lane.outcome is not None
    error = f": {lane.error.code or lane.error.type}: {lane.error.message}" if lane.error else ""
    print(f"\n[outcome: {lane.outcome.value}{error}]")
    return 0 if lane.outcome is Outcome.COMPLETED else 1


if __name__ == "__main__":
    sys.exit(main())
