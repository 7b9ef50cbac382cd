"""A server's ``retry:`` field is a wait the glue makes, so it must be bounded (issue 11, item 2).

``retry: 999999999999`` once asked ``sleep(999999999.999)``, 25 digits made
``time.sleep`` raise ``OverflowError``, and 400 digits raised ``OverflowError: int
too large to convert to float`` from both glues, leaving the stream without a
``StreamEnd``. Whatever the value, the wait is at most the policy's
``max_delay`` and the stream ends exactly once.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from server import capture_bytes, split_events

from sse_engine import DEFAULT_MAX_RETRY_DELAY, Reconnecting, RetryPolicy
from sse_engine._lane import LaneEvent, StreamEnd
from sse_engine._outcome import Outcome
from sse_engine._transport import aiter_events, iter_events
from sse_engine.responses import ResponsesLane, ResumePlan

EVENTS = split_events(capture_bytes("responses_basic"))
CUT = 9  # the stream drops after this many events (response.created is long past)


class Reset(ConnectionError):
    pass


def first_connection(retry: str) -> list[bytes]:
    return [f"retry: {retry}\n\n".encode(), *EVENTS[:CUT]]


def rest(plan: ResumePlan) -> list[bytes]:
    after = plan.starting_after
    assert after is not None
    return [e for e in EVENTS if json.loads(e.split(b"data: ", 1)[1])["sequence_number"] > after]


def cut(chunks: list[bytes]) -> Iterator[bytes]:
    yield from chunks
    raise Reset("connection reset")


async def acut(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        await asyncio.sleep(0)
        yield chunk
    raise Reset("connection reset")


async def aplain(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


def run(glue: str, retry: str, policy: RetryPolicy | None = None) -> tuple[list[Any], list[float]]:
    """A Responses stream starting with ``retry: <retry>``, cut and resumed once."""
    lane = ResponsesLane()
    slept: list[float] = []
    if glue == "sync":
        events = list(
            iter_events(
                lane,
                cut(first_connection(retry)),
                reconnect=rest,
                retry=policy,
                sleep=slept.append,
            )
        )
    else:

        async def sleep(seconds: float) -> None:
            slept.append(seconds)

        async def main() -> list[LaneEvent]:
            stream = aiter_events(
                lane,
                acut(first_connection(retry)),
                reconnect=lambda plan: aplain(rest(plan)),
                retry=policy,
                sleep=sleep,
            )
            return [event async for event in stream]

        events = asyncio.run(main())
    assert lane.outcome is Outcome.COMPLETED
    return events, slept


@pytest.mark.parametrize("glue", ["sync", "async"])
@pytest.mark.parametrize("digits", [12, 25, 400])
def test_a_huge_retry_field_waits_max_delay_and_the_stream_ends_once(
    glue: str, digits: int
) -> None:
    events, slept = run(glue, "9" * digits)
    assert slept == [DEFAULT_MAX_RETRY_DELAY]
    assert [e.delay for e in events if isinstance(e, Reconnecting)] == [DEFAULT_MAX_RETRY_DELAY]
    assert [e for e in events if isinstance(e, StreamEnd)] == [StreamEnd(Outcome.COMPLETED)]


@pytest.mark.parametrize("glue", ["sync", "async"])
def test_a_retry_field_beyond_int_conversion_limits_is_ignored(glue: str) -> None:
    # More digits than Python converts to int: the parser ignores the field (as a
    # browser ignores a retry that overflows), so the backoff applies.
    events, slept = run(glue, "9" * 5000, RetryPolicy(random=lambda: 0.0))
    assert slept == [0.5]
    assert sum(isinstance(e, StreamEnd) for e in events) == 1


@settings(max_examples=60, deadline=None)
@given(
    retry=st.text(alphabet="0123456789", min_size=1, max_size=450),
    glue=st.sampled_from(["sync", "async"]),
    max_delay=st.sampled_from([0.0, 0.001, 1.0, 60.0, 86400.0]),
)
def test_any_retry_field_is_waited_at_most_max_delay_in_any_glue(
    retry: str, glue: str, max_delay: float
) -> None:
    events, slept = run(glue, retry, RetryPolicy(max_delay=max_delay))
    want = min(int(retry) / 1000.0, max_delay)
    assert len(slept) <= 1 and all(math.isfinite(s) and 0 <= s <= max_delay for s in slept)
    assert slept == ([want] if want > 0 else [])
    (reconnecting,) = [e for e in events if isinstance(e, Reconnecting)]
    assert reconnecting.delay == want
    assert [e for e in events if isinstance(e, StreamEnd)] == [StreamEnd(Outcome.COMPLETED)]
