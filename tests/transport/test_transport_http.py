"""The transport glue over real HTTP: a local aiohttp server, four real clients.

Every test runs the same scenario with httpx (sync and async), requests and
aiohttp against tests/server.py on 127.0.0.1, and checks what the consumer saw
against feeding the capture's bytes straight into a lane.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from server import (
    CLIENTS,
    SYNC_CLIENTS,
    Result,
    StreamServer,
    capture_bytes,
    drive,
    error_body,
    split_events,
)

from sse_engine._errors import EventTooLarge
from sse_engine._lane import Lane, LaneEvent, StreamEnd
from sse_engine._liveness import Liveness
from sse_engine._outcome import Outcome
from sse_engine.chat import ChatCompletionsLane
from sse_engine.messages import MessagesLane
from sse_engine.responses import ResponsesLane

LANES: dict[str, tuple[type[Lane[Any]], str]] = {
    "chat": (ChatCompletionsLane, "chat/completions"),
    "messages": (MessagesLane, "messages"),
    "responses": (ResponsesLane, "responses"),
}


def url(server: StreamServer, lane: str, query: str = "") -> str:
    return f"{server.url}/v1/{LANES[lane][1]}" + (f"?{query}" if query else "")


def fed_directly(lane_name: str, capture: str, **kwargs: Any) -> tuple[Lane[Any], list[LaneEvent]]:
    lane = LANES[lane_name][0](**kwargs)
    data = capture_bytes(capture, run=kwargs.pop("run", False))
    return lane, lane.feed(data) + lane.close()


def assert_same(
    result: Result, lane: Lane[Any], expected: tuple[Lane[Any], list[LaneEvent]]
) -> None:
    want_lane, want_events = expected
    assert result.events == want_events
    assert lane.outcome is want_lane.outcome
    assert lane.error == want_lane.error
    assert lane.snapshot.to_api() == want_lane.snapshot.to_api()
    assert warning_codes(lane) == warning_codes(want_lane)


# Bytes after the terminal event are reported as `event_after_end` when they come in
# the same feed() as it, as `trailing_data` when they come in a later one: the lane
# framework's warning depends on the chunking there (reported; same meaning).
_AFTER_END = {"event_after_end": "after_end", "trailing_data": "after_end"}


def warning_codes(lane: Lane[Any]) -> list[str]:
    return [_AFTER_END.get(w.code, w.code) for w in lane.warnings]


def end_of(result: Result) -> StreamEnd:
    ends = [e for e in result.events if isinstance(e, StreamEnd)]
    assert len(ends) == 1, ends
    return ends[0]


def truncation_code(result: Result) -> str | None:
    """The error code of the stream's one StreamEnd, which must say TRUNCATED."""
    end = end_of(result)
    assert end.outcome is Outcome.TRUNCATED and end.error is not None
    return end.error.code


def run(
    server: StreamServer, client: str, lane_name: str, query: str = "", **options: Any
) -> tuple[Lane[Any], Result]:
    """A new lane of ``lane_name`` driven by ``client`` over POST ``?query``."""
    lane = LANES[lane_name][0]()
    return lane, drive(client, lane, url(server, lane_name, query), **options)


# -- 1. a normal stream, each lane, each client -------------------------------------------------


@pytest.mark.parametrize("lane_name", sorted(LANES))
def test_normal_stream_equals_feeding_the_bytes(
    stream_server: StreamServer, client: str, lane_name: str
) -> None:
    lane, result = run(stream_server, client, lane_name, "chunk=37")
    assert result.exc is None
    assert_same(result, lane, fed_directly(lane_name, f"{lane_name}_basic"))
    assert lane.outcome is Outcome.COMPLETED


# -- a cut without resume: TRUNCATED, the cause re-raised ------------------------------------


@pytest.mark.parametrize("lane_name", sorted(LANES))
def test_a_cut_connection_truncates_and_reraises(
    stream_server: StreamServer, client: str, lane_name: str
) -> None:
    _, result = run(stream_server, client, lane_name, "cut=6:9")
    assert result.exc is not None  # the client's own exception type, re-raised as is
    assert type(result.exc).__module__.split(".")[0] in ("httpx", "requests", "aiohttp")
    end = end_of(result)
    assert end.outcome is Outcome.TRUNCATED and end.error is not None
    assert end.error.code == "stream_truncated" and end.error.retryable
    assert type(result.exc).__name__ in end.error.message
    assert result.events[-1] == end


@pytest.mark.parametrize("lane_name", sorted(LANES))
def test_a_clean_eof_mid_stream_truncates_without_exception(
    stream_server: StreamServer, client: str, lane_name: str
) -> None:
    _, result = run(stream_server, client, lane_name, "cut=6:9&cut_mode=eof")
    assert result.exc is None
    assert end_of(result).outcome is Outcome.TRUNCATED
    # Everything before the cut arrived and was decoded.
    events = split_capture(lane_name)[:6]
    direct = LANES[lane_name][0]()
    expected = direct.feed(b"".join(events))
    assert result.events[: len(expected)] == expected


def split_capture(lane_name: str) -> list[bytes]:
    return split_events(capture_bytes(f"{lane_name}_basic"))


# -- 3. slow starts, thinking, silence ----------------------------------------------------------

THINKING = "prelude=10&think=4:14&keepalive=30"


def lane_for(client: str) -> str:
    """The timing scenarios do not depend on the lane: each client takes a different one."""
    names = sorted(LANES)
    return names[CLIENTS.index(client) % len(names)]


@pytest.mark.realtime(everyday=("requests", "httpx_async"))
def test_keepalives_during_a_slow_start_and_thinking_do_not_expire(
    stream_server: StreamServer, client: str
) -> None:
    lane_name = lane_for(client)
    # 10 keepalives before the first event and 14 while "thinking", 30 ms apart: the
    # no-events stretches (0.3 s, 0.42 s) exceed the idle budget (0.25 s), which the
    # keepalives keep resetting: only bytes count there, and the no-events cap is 2 s.
    liveness = Liveness(idle_timeout=0.25, keepalive_only_timeout=2.0)
    started = time.monotonic()
    lane, result = run(
        stream_server, client, lane_name, THINKING, read_timeout=0.25, liveness=liveness
    )
    assert result.exc is None
    assert_same(result, lane, fed_directly(lane_name, f"{lane_name}_basic"))
    assert time.monotonic() - started >= 0.72  # the keepalives really took their time


@pytest.mark.realtime(everyday=("httpx", "aiohttp"))
def test_keepalive_only_cap_fires_while_bytes_keep_coming(
    stream_server: StreamServer, client: str
) -> None:
    liveness = Liveness(idle_timeout=0.5, keepalive_only_timeout=0.2)
    _, result = run(
        stream_server,
        client,
        lane_for(client),
        "think=4:30&keepalive=30",
        read_timeout=0.5,
        liveness=liveness,
    )
    assert result.exc is None
    assert truncation_code(result) == "keepalive_only_timeout"


@pytest.mark.realtime(everyday=("httpx", "httpx_async"))
def test_a_fully_silent_server_expires_the_idle_budget(
    stream_server: StreamServer, client: str
) -> None:
    liveness = Liveness(idle_timeout=0.2, keepalive_only_timeout=5.0)
    sync = client in SYNC_CLIENTS
    started = time.monotonic()
    _, result = run(
        stream_server,
        client,
        lane_for(client),
        "prelude=2&keepalive=30&silent=4:3000",
        # A sync iterator is bounded by the transport's read timeout, set to the idle
        # budget; async clients are bounded by aiter_events itself.
        read_timeout=0.2 if sync else 5.0,
        liveness=liveness,
    )
    assert time.monotonic() - started < 1.5
    assert truncation_code(result) == "idle_timeout"
    if sync:
        assert result.exc is not None  # the transport's timeout, re-raised
    else:
        assert result.exc is None


# -- 4. pre-stream errors -----------------------------------------------------------------------

RETRYABLE = {400: False, 401: False, 404: False, 429: True, 500: True, 529: True}


@pytest.mark.parametrize("status", sorted(RETRYABLE))
@pytest.mark.parametrize("lane_name", sorted(LANES))
def test_pre_stream_errors_are_failed_with_status_and_retryable(
    stream_server: StreamServer, client: str, lane_name: str, status: int
) -> None:
    lane, result = run(stream_server, client, lane_name, f"status={status}")
    assert result.exc is None
    end = end_of(result)
    assert end.outcome is Outcome.FAILED and end.error is not None
    assert end.error.status == status
    assert end.error.retryable is RETRYABLE[status]
    assert end.error.raw == json.loads(error_body(lane_name, status))
    assert lane.outcome is Outcome.FAILED and lane.error == end.error


# -- 5. a 200 with the failure inside the stream ---------------------------------------------


# Each lane's error capture, and the slow starts whose 200 went out early (after
# keepalives) so that their failure could only come inside the stream.
IN_STREAM_FAILURES = [
    ("chat", "chat_error"),
    ("chat", "chat_slow_start_error"),
    ("messages", "messages_error"),
    ("responses", "responses_error"),
    ("responses", "responses_slow_start_failed"),
]


@pytest.mark.parametrize(("lane_name", "capture"), IN_STREAM_FAILURES)
def test_in_stream_failure_is_failed_like_the_bytes_say(
    stream_server: StreamServer, client: str, lane_name: str, capture: str
) -> None:
    lane, result = run(stream_server, client, lane_name, f"capture={capture}")
    assert result.exc is None
    assert_same(result, lane, fed_directly(lane_name, capture))
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert lane.error.status is None


# -- 6. a server that never sends a newline ----------------------------------------------------


def test_a_stream_without_newlines_is_stopped_by_max_event_size(
    stream_server: StreamServer, client: str
) -> None:
    lane = MessagesLane(max_event_size=64 * 1024)
    started = time.monotonic()
    result = drive(client, lane, url(stream_server, "messages", "no_newline=1"))
    assert isinstance(result.exc, EventTooLarge)
    assert "max_event_size=65536" in str(result.exc)
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert lane.error.code == "protocol_error"
    assert time.monotonic() - started < 2.0
