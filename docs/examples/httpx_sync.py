"""Responses API over httpx (sync), resuming a dropped connection where it stopped.

    python docs/examples/httpx_sync.py [BASE_URL]

BASE_URL defaults to $SSE_ENGINE_BASE_URL, then https://api.openai.com/v1; the
key is read from $OPENAI_API_KEY. Prints the text as it streams, then the outcome;
"reconnecting" notices go to stderr. When a resume is refused (past the resume
window), the final response is fetched with a plain GET and its missing text printed.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

import httpx

from sse_engine import Liveness, Outcome, Reconnecting, StreamRestarted, iter_events
from sse_engine.responses import ResponseContentDeltaEvent, ResponsesLane, ResumePlan

PUBLIC_API = "https://api.openai.com/v1"
BASE_URL = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SSE_ENGINE_BASE_URL", PUBLIC_API)
TEXT_DELTA = "response.output_text.delta"  # not refusal or reasoning text
REQUEST = {"model": "gpt-4.1", "input": "Write a haiku about observability.", "stream": True}
Answer = tuple[int, list[tuple[str, str]], Iterator[bytes]]


def main() -> int:
    # Defaults: 125 s without a single byte is a dead connection (the edge closes
    # silent connections then); keepalives alone (no event) are capped at 30 minutes.
    liveness = Liveness()
    # A sync read can only be bounded by the transport: give it the idle budget as its
    # read timeout (it also covers the wait for the headers: up to 90 s on a slow start).
    timeout = httpx.Timeout(10.0, read=liveness.idle_timeout)
    key = os.environ.get("OPENAI_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    lane = ResponsesLane()
    shown = ""  # the text printed so far
    with httpx.Client(timeout=timeout, headers=headers) as client, contextlib.ExitStack() as stack:

        def reconnect(plan: ResumePlan) -> Answer:
            # GET /responses/{id}?stream=true&starting_after=N (+ Last-Event-ID). Hand back
            # the whole answer: a refused resume (a 404 once the response is gone) then
            # ends the stream with that answer's error instead of being retried.
            response = stack.enter_context(
                client.stream(plan.method, plan.url(BASE_URL), headers=plan.headers)
            )
            return response.status_code, response.headers.multi_items(), response.iter_bytes()

        response = stack.enter_context(client.stream("POST", f"{BASE_URL}/responses", json=REQUEST))
        lane.start(response.status_code, response.headers.items())
        try:
            for event in iter_events(
                lane, response.iter_bytes(), reconnect=reconnect, liveness=liveness
            ):
                if isinstance(event, Reconnecting):  # before each wait and attempt
                    print(f"[reconnecting in {event.delay:.1f} s]", file=sys.stderr)
                elif isinstance(event, StreamRestarted):
                    print("\n[replayed from the start]")  # agent runs: discard what was shown
                    shown = ""
                elif isinstance(event, ResponseContentDeltaEvent) and event.type == TEXT_DELTA:
                    print(event.delta, end="", flush=True)
                    shown += event.delta
        except httpx.TransportError as exc:  # re-raised after the lane ended as TRUNCATED
            print(f"\n[transport error: {exc!r}]")
        plan = lane.resume_plan()
        refused = lane.error is not None and lane.error.status is not None
        if lane.outcome is Outcome.TRUNCATED and plan is not None and refused:
            # The resume was refused (past the resume window): GET the final object.
            request = plan.retrieve()
            final = client.request(request.method, request.url(BASE_URL), headers=request.headers)
            if final.is_success:
                lane.load(final.json())
                text = lane.snapshot.output_text  # print what never streamed
                print(text[len(shown) :] if text.startswith(shown) else f"\n{text}", end="")
    error = f": {lane.error.code or lane.error.type}: {lane.error.message}" if lane.error else ""
    assert lane.outcome is not None
    print(f"\n[outcome: {lane.outcome.value}{error}]")
    return 0 if lane.outcome.value == "completed" else 1


if __name__ == "__main__":
    sys.exit(main())
