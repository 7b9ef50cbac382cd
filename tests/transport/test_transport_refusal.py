"""A reconnect the server refuses (issue 15, "Errors and reconnects"; issue 16, item 2).

A refused resume used to be retried back to back, five times, and the stream
still ended ``stream_truncated``, retryable. Now ``reconnect`` answers with the
HTTP status, headers and body chunks; the glue reads a refusal's error body the
way a lane reads a pre-stream error, asks the RetryPolicy, and either waits
and tries again (503, 429 with ``Retry-After``) or stops at once with that
answer's error (404: the response is gone). Past that point the final object
can still be fetched with a plain GET and loaded into the lane.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from server import StreamServer, capture_bytes, drive, error_body, split_events

from sse_engine import Reconnecting, RetryPolicy, StreamEnd
from sse_engine._lane import LaneEvent
from sse_engine._outcome import Outcome
from sse_engine._reconnect import MAX_ERROR_BODY
from sse_engine._transport import aiter_events, iter_events
from sse_engine.responses import ResponsesLane, ResumePlan

NO_JITTER = RetryPolicy(random=lambda: 0.0)
CUT = "cut=9:25"


def uncut() -> tuple[ResponsesLane, list[LaneEvent]]:
    lane = ResponsesLane()
    return lane, lane.feed(capture_bytes("responses_basic")) + lane.close()


def resumed(server: StreamServer, client: str, query: str, **glue: Any) -> Any:
    lane = ResponsesLane()
    glue.setdefault("retry", NO_JITTER)
    result = drive(
        client, lane, f"{server.url}/v1/responses?{query}", resume_base=server.url, **glue
    )
    return lane, result


def gets(server: StreamServer) -> list[dict[str, str]]:
    return [seen.query for seen in server.seen if seen.method == "GET"]


# -- over real HTTP ---------------------------------------------------------------------------


def test_a_refused_resume_stops_at_once_with_that_answers_error(
    stream_server: StreamServer, client: str
) -> None:
    lane, result = resumed(stream_server, client, f"{CUT}&refuse=404")
    assert result.exc is None  # a refusal is data, not an exception
    assert len(gets(stream_server)) == 1  # no second attempt
    assert [(r.attempt, r.delay) for r in result.reconnecting] == [(1, 0.5)]
    assert result.slept == [0.5]
    error = lane.error
    assert lane.outcome is Outcome.TRUNCATED and error is not None
    assert (error.status, error.code, error.retryable) == (404, "not_found", False)
    assert error.message.startswith("No response found with id")
    ends = [e for e in result.events if isinstance(e, StreamEnd)]
    assert ends == [StreamEnd(Outcome.TRUNCATED, error)] and result.events[-1] == ends[0]


@pytest.mark.parametrize("status", [400, 401, 404])
def test_every_non_retryable_refusal_ends_the_stream_at_once(
    stream_server: StreamServer, status: int
) -> None:
    lane, result = resumed(stream_server, "httpx", f"{CUT}&refuse={status}")
    assert len(gets(stream_server)) == 1 and result.exc is None
    assert lane.error is not None and lane.error.status == status and not lane.error.retryable


@pytest.mark.parametrize("status", [500, 529])
def test_a_retryable_refusal_is_retried_with_backoff(
    stream_server: StreamServer, client: str, status: int
) -> None:
    lane, result = resumed(stream_server, client, f"{CUT}&refuse={status},{status}")
    want_lane, want_events = uncut()
    assert result.exc is None and lane.outcome is Outcome.COMPLETED
    assert result.lane_events == want_events
    assert lane.snapshot.to_api() == want_lane.snapshot.to_api()
    assert len(gets(stream_server)) == 3
    assert result.slept == [0.5, 1.0, 2.0]
    assert [r.attempt for r in result.reconnecting] == [1, 2, 3]


def test_retryable_refusals_stop_when_the_attempts_run_out(stream_server: StreamServer) -> None:
    policy = RetryPolicy(max_attempts=3, random=lambda: 0.0)
    lane, result = resumed(stream_server, "httpx", f"{CUT}&refuse=500,500,500", retry=policy)
    assert len(gets(stream_server)) == 2 and result.exc is None
    assert lane.outcome is Outcome.TRUNCATED and lane.error is not None
    assert (lane.error.status, lane.error.retryable) == (500, True)  # the last answer


def test_the_streams_retry_field_paces_retryable_refusals(stream_server: StreamServer) -> None:
    _, result = resumed(stream_server, "httpx", f"{CUT}&refuse=500&retry=40")
    # The refusal is a second failure in a row: never less than the backoff (1 s).
    assert result.slept == [0.04, 1.0]


def test_a_refusal_with_retry_after_waits_what_the_server_asked(
    stream_server: StreamServer,
) -> None:
    lane, result = resumed(
        stream_server, "httpx", f"{CUT}&refuse=429&refuse_retry_after=3&retry=40"
    )
    assert lane.outcome is Outcome.COMPLETED
    assert result.slept == [0.04, 3.0]  # the server's Retry-After beats the retry: field


def test_a_refusal_whose_retry_after_is_too_long_is_not_retried(
    stream_server: StreamServer,
) -> None:
    lane, _ = resumed(stream_server, "httpx", f"{CUT}&refuse=429&refuse_retry_after=3600")
    assert len(gets(stream_server)) == 1 and lane.outcome is Outcome.TRUNCATED
    assert lane.error is not None and lane.error.status == 429
    assert lane.error.retry_after == 3600.0 and lane.error.retryable


@pytest.mark.parametrize("client_name", ["httpx", "aiohttp"])
def test_past_the_window_the_final_object_is_fetched_and_loaded(
    stream_server: StreamServer, client_name: str
) -> None:
    lane, _ = resumed(stream_server, client_name, f"{CUT}&refuse=404")
    assert lane.outcome is Outcome.TRUNCATED and lane.error is not None
    plan = lane.resume_plan()
    assert isinstance(plan, ResumePlan)
    request = plan.retrieve()
    with httpx.Client(verify=False) as http:
        answer = http.request(
            request.method, request.url(stream_server.url + "/v1"), headers=request.headers
        )
    assert answer.status_code == 200
    events = lane.load(answer.json())
    want_lane, _ = uncut()
    assert events == [StreamEnd(Outcome.COMPLETED)]
    assert lane.outcome is Outcome.COMPLETED and lane.error is None
    assert lane.snapshot.to_api() == want_lane.snapshot.to_api()
    assert lane.snapshot.output_text == want_lane.snapshot.output_text
    last = stream_server.seen[-1]
    assert (last.method, last.query) == ("GET", {})


# -- in memory: the answer protocol --------------------------------------------------------------

EVENTS = split_events(capture_bytes("responses_basic"))


class Reset(ConnectionError):
    pass


def dropped() -> Iterator[bytes]:
    yield from EVENTS[:9]
    raise Reset("connection reset")


def rest(plan: ResumePlan) -> list[bytes]:
    after = plan.starting_after
    assert after is not None
    return [e for e in EVENTS if json.loads(e.split(b"data: ", 1)[1])["sequence_number"] > after]


SSE = {"content-type": "text/event-stream"}
JSON = {"content-type": "application/json"}


def test_reconnecting_is_yielded_before_the_wait_and_the_attempt() -> None:
    log: list[str] = []

    def reconnect(plan: ResumePlan) -> tuple[int, dict[str, str], list[bytes]]:
        log.append("reconnect")
        return 200, SSE, rest(plan)

    lane = ResponsesLane()
    stream = iter_events(
        lane, dropped(), reconnect=reconnect, retry=NO_JITTER, sleep=lambda s: log.append("sleep")
    )
    for event in stream:
        if isinstance(event, Reconnecting):
            log.append(f"reconnecting {event.attempt} {event.delay}")
            assert event.plan == lane.resume_plan()
    assert log == ["reconnecting 1 0.5", "sleep", "reconnect"]
    assert lane.outcome is Outcome.COMPLETED


def test_a_two_hundred_that_is_not_an_event_stream_is_refused() -> None:
    def reconnect(plan: ResumePlan) -> tuple[int, dict[str, str], list[bytes]]:
        return 200, JSON, [b'{"id": "resp_x", "status": "completed"}']

    lane = ResponsesLane()
    list(iter_events(lane, dropped(), reconnect=reconnect, sleep=lambda s: None))
    assert lane.outcome is Outcome.TRUNCATED and lane.error is not None
    assert (lane.error.code, lane.error.retryable) == ("not_an_event_stream", False)


def test_a_refusals_body_is_read_only_so_far() -> None:
    read: list[int] = []
    closed: list[bool] = []

    def endless() -> Iterator[bytes]:
        try:
            while True:
                read.append(1)
                yield b" " * 4096
        finally:
            closed.append(True)

    lane = ResponsesLane()
    stream = iter_events(
        lane, dropped(), reconnect=lambda p: (404, JSON, endless()), sleep=lambda s: None
    )
    list(stream)
    assert len(read) * 4096 <= MAX_ERROR_BODY + 4096 and closed == [True]
    assert lane.error is not None and (lane.error.status, lane.error.retryable) == (404, False)


def test_a_refusals_body_cut_short_still_reports_the_status() -> None:
    def cut_body() -> Iterator[bytes]:
        yield error_body("responses", 404)[:20]
        raise Reset("reset inside the error body")

    lane = ResponsesLane()
    list(iter_events(lane, dropped(), reconnect=lambda p: (404, JSON, cut_body()), sleep=id))
    assert lane.error is not None and (lane.error.status, lane.error.retryable) == (404, False)


def test_the_async_glue_reads_an_awaited_answer() -> None:
    async def body(data: list[bytes]) -> AsyncIterator[bytes]:
        for chunk in data:
            yield chunk

    async def source() -> AsyncIterator[bytes]:
        for chunk in EVENTS[:9]:
            yield chunk
        raise Reset("connection reset")

    answers = iter(
        [
            (503, JSON, body([error_body("responses", 500)])),
            (404, JSON, body([error_body("responses", 404)])),
        ]
    )

    async def reconnect(plan: ResumePlan) -> Any:
        return next(answers)

    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async def main() -> list[LaneEvent]:
        stream = aiter_events(lane, source(), reconnect=reconnect, retry=NO_JITTER, sleep=sleep)
        return [event async for event in stream]

    lane = ResponsesLane()
    events = asyncio.run(main())
    assert slept == [0.5, 1.0]
    assert [e.attempt for e in events if isinstance(e, Reconnecting)] == [1, 2]
    assert lane.error is not None
    assert (lane.error.status, lane.error.code) == (404, "model_not_found")
    assert events[-1] == StreamEnd(Outcome.TRUNCATED, lane.error)


def test_chunks_that_are_a_tuple_of_bytes_are_still_chunks() -> None:
    def reconnect(plan: ResumePlan) -> tuple[bytes, ...]:
        return tuple(rest(plan))

    lane = ResponsesLane()
    list(iter_events(lane, dropped(), reconnect=reconnect, sleep=lambda s: None))
    assert lane.outcome is Outcome.COMPLETED
