"""Responses API over aiohttp, resuming a dropped connection where it stopped.

    python docs/examples/aiohttp_async.py [BASE_URL]

BASE_URL defaults to $SSE_ENGINE_BASE_URL, then https://api.openai.com/v1; the
key is read from $OPENAI_API_KEY. Prints the text as it streams, then the outcome;
"reconnecting" notices go to stderr. When a resume is refused (past the resume
window), the final response is fetched with a plain GET and its missing text printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Iterable

import aiohttp

from sse_engine import Liveness, Outcome, Reconnecting, StreamRestarted, aiter_events
from sse_engine.responses import ResponseContentDeltaEvent, ResponsesLane, ResumePlan

PUBLIC_API = "https://api.openai.com/v1"
BASE_URL = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SSE_ENGINE_BASE_URL", PUBLIC_API)
TEXT_DELTA = "response.output_text.delta"  # not refusal or reasoning text
REQUEST = {"model": "gpt-4.1", "input": "Write a haiku about observability.", "stream": True}
Answer = tuple[int, Iterable[tuple[str, str]], AsyncIterator[bytes]]


async def main() -> int:
    liveness = Liveness()  # aiter_events bounds each read with it
    # No total timeout (aiohttp's default is 5 minutes, which cuts long streams);
    # sock_read bounds the wait for the headers and each read by the idle budget.
    timeout = aiohttp.ClientTimeout(total=None, connect=10.0, sock_read=liveness.idle_timeout)
    key = os.environ.get("OPENAI_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    lane = ResponsesLane()
    shown = ""  # the text printed so far
    async with (
        aiohttp.ClientSession(timeout=timeout, headers=headers) as session,
        contextlib.AsyncExitStack() as stack,
    ):

        async def reconnect(plan: ResumePlan) -> Answer:
            response = await stack.enter_async_context(
                session.request(plan.method, plan.url(BASE_URL), headers=plan.headers)
            )
            # The whole answer: a refused resume ends the stream with its error.
            return response.status, response.headers.items(), response.content.iter_any()

        response = await stack.enter_async_context(
            session.post(f"{BASE_URL}/responses", json=REQUEST)
        )
        lane.start(response.status, response.headers.items())
        try:
            stream = aiter_events(
                lane, response.content.iter_any(), reconnect=reconnect, liveness=liveness
            )
            async for event in stream:
                if isinstance(event, Reconnecting):  # before each wait and attempt
                    print(f"[reconnecting in {event.delay:.1f} s]", file=sys.stderr)
                elif isinstance(event, StreamRestarted):
                    print("\n[replayed from the start]")
                    shown = ""
                elif isinstance(event, ResponseContentDeltaEvent) and event.type == TEXT_DELTA:
                    print(event.delta, end="", flush=True)
                    shown += event.delta
        except aiohttp.ClientError as exc:  # re-raised after the lane ended as TRUNCATED
            print(f"\n[transport error: {exc!r}]")
        plan = lane.resume_plan()
        refused = lane.error is not None and lane.error.status is not None
        if lane.outcome is Outcome.TRUNCATED and plan is not None and refused:
            # The resume was refused (past the resume window): GET the final object.
            request = plan.retrieve()
            async with session.request(
                request.method, request.url(BASE_URL), headers=request.headers
            ) as final:
                if final.ok:
                    lane.load(await final.json())
                    text = lane.snapshot.output_text  # print what never streamed
                    print(text[len(shown) :] if text.startswith(shown) else f"\n{text}", end="")
    assert lane.outcome is not None
    error = f": {lane.error.code or lane.error.type}: {lane.error.message}" if lane.error else ""
    print(f"\n[outcome: {lane.outcome.value}{error}]")
    return 0 if lane.outcome.value == "completed" else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
