"""Resuming dropped Responses streams over real HTTP, as Kindo documents it.

The test server cuts the connection mid-event; the reconnect callable opens the
lane's resume plan (``GET /v1/responses/{id}?stream=true&starting_after=N``)
with the same client; the consumer must see every event exactly once and end
with the snapshot of the uncut stream. Agent runs (``resp_run_*``) replay from
the start, announced by one ``StreamRestarted``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from server import Result, StreamServer, capture_bytes, drive, split_events, with_id

from sse_engine._lane import LaneEvent, StreamEnd, StreamRestarted
from sse_engine._liveness import Liveness
from sse_engine._outcome import Outcome
from sse_engine._reconnect import Reconnecting
from sse_engine._retry import RetryPolicy
from sse_engine._transport import iter_events
from sse_engine.responses import ResponsesLane

CAPTURE = "responses_basic"


def uncut(
    capture: str = CAPTURE, *, run: bool = False, ids: bool = False
) -> tuple[ResponsesLane, list[LaneEvent]]:
    data = capture_bytes(capture, run=run)
    if ids:
        data = b"".join(with_id(event) for event in split_events(data))
    lane = ResponsesLane()
    return lane, lane.feed(data) + lane.close()


def deltas(events: list[LaneEvent]) -> int:
    return sum(str(getattr(e, "type", "")).endswith(".delta") for e in events)


def post_url(server: StreamServer, query: str) -> str:
    return f"{server.url}/v1/responses?{query}"


def resumes(server: StreamServer) -> list[dict[str, str]]:
    return [seen.query for seen in server.seen if seen.method == "GET"]


def resumed(
    server: StreamServer, client: str, query: str, **options: Any
) -> tuple[ResponsesLane, Result]:
    """A Responses stream over POST ``?query``, resumed with ``client`` when it drops."""
    lane = ResponsesLane()
    return lane, drive(client, lane, post_url(server, query), resume_base=server.url, **options)


def last_sequence_before(event_index: int) -> int:
    """The sequence_number of the event before the capture's event ``event_index``."""
    events = split_events(capture_bytes(CAPTURE))
    payload = json.loads(events[event_index - 1].split(b"data: ", 1)[1])
    return int(payload["sequence_number"])


@pytest.mark.parametrize("cut_mode", ["abort", "eof"])
def test_a_cut_stream_resumes_and_every_event_arrives_once(
    stream_server: StreamServer, client: str, cut_mode: str
) -> None:
    lane, result = resumed(
        stream_server,
        client,
        f"cut=9:25&cut_mode={cut_mode}&chunk=50",
    )
    want_lane, want_events = uncut()
    assert result.exc is None
    assert result.lane_events == want_events  # nothing lost, nothing twice, one StreamEnd
    assert lane.outcome is Outcome.COMPLETED
    assert lane.snapshot.to_api() == want_lane.snapshot.to_api()
    (query,) = resumes(stream_server)
    assert query == {"stream": "true", "starting_after": str(last_sequence_before(9))}


def test_several_cuts_resume_each_time(stream_server: StreamServer, client: str) -> None:
    lane, result = resumed(
        stream_server,
        client,
        "cut=5:10,12:3,20:0,21:60",
    )
    want_lane, want_events = uncut()
    assert result.exc is None and result.lane_events == want_events
    assert lane.snapshot.to_api() == want_lane.snapshot.to_api()
    starts = [int(q["starting_after"]) for q in resumes(stream_server)]
    assert starts == [last_sequence_before(i) for i in (5, 12, 20, 21)]


def test_the_server_honours_last_event_id(stream_server: StreamServer, client: str) -> None:
    # A Kindo stream carries each sequence_number as the SSE id too; a reconnect that
    # sends only Last-Event-ID (as a browser EventSource does) resumes just as well.
    lane, result = resumed(
        stream_server,
        client,
        "ids=1&cut=9:25",
        resume_mode="last_event_id",
    )
    want_lane, want_events = uncut(ids=True)
    assert result.exc is None and result.lane_events == want_events
    assert lane.snapshot.to_api() == want_lane.snapshot.to_api()
    (get,) = [seen for seen in stream_server.seen if seen.method == "GET"]
    assert "starting_after" not in get.query
    assert get.last_event_id == str(last_sequence_before(9))


# The basic capture with its id renamed resp_run_*, and Kindo's own agent-run shape.
AGENT_RUNS = {"responses_basic": "run=1&", "responses_kindo_agent": ""}


@pytest.mark.parametrize("capture", sorted(AGENT_RUNS))
def test_an_agent_run_replays_from_the_start(
    stream_server: StreamServer, client: str, capture: str
) -> None:
    query = f"{AGENT_RUNS[capture]}capture={capture}&cut=9:25"
    lane, result = resumed(stream_server, client, query)
    want_lane, want_events = uncut(capture, run=capture == "responses_basic")
    assert result.exc is None
    events = result.lane_events
    restarts = [i for i, e in enumerate(events) if isinstance(e, StreamRestarted)]
    assert len(restarts) == 1
    before, after = events[: restarts[0]], events[restarts[0] + 1 :]
    assert before == want_events[: len(before)]  # what was shown before the cut
    assert not any(isinstance(e, StreamEnd) for e in before)
    assert after == want_events  # the whole stream again, then its one StreamEnd
    assert lane.outcome is Outcome.COMPLETED
    assert lane.snapshot.to_api() == want_lane.snapshot.to_api()
    assert str(want_lane.snapshot.to_api()["id"]).startswith("resp_run_")
    assert resumes(stream_server) == [{"stream": "true", "starting_after": "0"}]


def test_a_resume_past_the_window_assembles_from_final_items(
    stream_server: StreamServer, client: str
) -> None:
    # Past the resume window the server sends only the finished items and
    # response.completed: no deltas, yet the snapshot is the uncut stream's.
    lane, result = resumed(stream_server, client, "fallback=1&cut=9:25")
    want_lane, want_events = uncut()
    assert result.exc is None and lane.outcome is Outcome.COMPLETED
    assert lane.snapshot.to_api() == want_lane.snapshot.to_api()
    assert result.lane_events[-1] == want_events[-1]
    assert deltas(result.lane_events) < deltas(want_events)  # the deltas after the cut never came
    (query,) = resumes(stream_server)
    assert query["starting_after"] == str(last_sequence_before(9))


def test_the_server_refuses_what_kindo_refuses(stream_server: StreamServer) -> None:
    lane = ResponsesLane()
    drive("httpx", lane, post_url(stream_server, "run=1"))  # registers the run
    run_id = lane.snapshot.to_api()["id"]
    plain = ResponsesLane()
    drive("httpx", plain, post_url(stream_server, ""))
    plain_id = plain.snapshot.to_api()["id"]
    base = f"{stream_server.url}/v1/responses"
    with httpx.Client(verify=False) as http:
        assert http.get(f"{base}/{run_id}?stream=true&starting_after=3").status_code == 400
        assert http.get(f"{base}/{plain_id}?stream=true&starting_after=-1").status_code == 400
        assert http.get(f"{base}/{plain_id}?stream=true&starting_after=x").status_code == 400
        assert http.get(f"{base}/resp_unknown?stream=true").status_code == 404


def test_reconnects_are_bounded(stream_server: StreamServer, client: str) -> None:
    # Every resume is cut inside the event the last one was cut in: no progress.
    query = "cut=5:10,5:10,5:10,5:10,5:10"
    policy = RetryPolicy(max_attempts=3, random=lambda: 0.0)  # the POST and 2 reconnects
    lane, result = resumed(stream_server, client, query, retry=policy)
    assert result.exc is not None  # the last connection's failure, re-raised
    ends = [e for e in result.events if isinstance(e, StreamEnd)]
    assert len(ends) == 1 and ends[0].outcome is lane.outcome is Outcome.TRUNCATED
    assert len(resumes(stream_server)) == 2
    # Exponential backoff (no retry: field), each wait announced before it is made.
    assert result.slept == [0.5, 1.0]
    plan = lane.resume_plan()
    assert [(r.attempt, r.delay) for r in result.reconnecting] == [(1, 0.5), (2, 1.0)]
    assert all(r.plan.response_id == plan.response_id for r in result.reconnecting)
    # Each event still arrived once, up to the last cut.
    _, want_events = uncut()
    shown = [e for e in result.lane_events if not isinstance(e, StreamEnd)]
    assert shown == want_events[: len(shown)]


def test_a_connection_that_made_progress_starts_the_count_again(
    stream_server: StreamServer, client: str
) -> None:
    """Issue 20: the attempts count consecutive failures without progress.

    Five cuts, each one event further on, with a policy of 3 attempts: every
    resume brings new events, so the stream is resumed to the end, each
    reconnect announced as attempt 1 after the first backoff.
    """
    query = "cut=5:10,6:10,7:10,8:10,9:10"
    policy = RetryPolicy(max_attempts=3, random=lambda: 0.0)
    lane, result = resumed(stream_server, client, query, retry=policy)
    assert result.exc is None and lane.outcome is Outcome.COMPLETED
    assert len(resumes(stream_server)) == 5
    assert [(r.attempt, r.delay) for r in result.reconnecting] == [(1, 0.5)] * 5
    want_lane, want_events = uncut()
    assert result.lane_events == want_events
    assert lane.snapshot.to_api() == want_lane.snapshot.to_api()


def test_a_replay_from_the_start_progresses_only_past_where_it_was_cut(
    stream_server: StreamServer,
) -> None:
    """An agent run replays from the start: replayed events are not progress.

    Every replay is cut where the first connection was, so each one brings
    the same events again; the attempts run out instead of going on forever.
    """
    policy = RetryPolicy(max_attempts=3, random=lambda: 0.0)
    lane, result = resumed(stream_server, "httpx", "run=1&cut=8:10,8:10,8:10,8:10", retry=policy)
    assert lane.outcome is Outcome.TRUNCATED and result.exc is not None
    assert [(r.attempt, r.delay) for r in result.reconnecting] == [(1, 0.5), (2, 1.0)]
    # A replay that gets one event further than the cut before it is progress.
    stream_server.reset()
    lane, result = resumed(
        stream_server, "httpx", "run=1&cut=8:10,9:10,10:10,11:10", retry=policy
    )
    assert lane.outcome is Outcome.COMPLETED and result.exc is None
    assert [r.attempt for r in result.reconnecting] == [1, 1, 1, 1]


@pytest.mark.parametrize("client_name", ["httpx", "aiohttp"])
def test_the_streams_retry_is_waited(stream_server: StreamServer, client_name: str) -> None:
    slept: list[float] = []

    async def async_sleep(seconds: float) -> None:
        slept.append(seconds)

    sleep: Any = slept.append if client_name == "httpx" else async_sleep
    lane, result = resumed(stream_server, client_name, "retry=40&cut=9:25", sleep=sleep)
    assert result.exc is None and lane.outcome is Outcome.COMPLETED
    assert slept == [0.04]


@pytest.mark.parametrize("client_name", ["httpx_async", "aiohttp"])
def test_a_silent_connection_is_resumed_after_the_idle_budget(
    stream_server: StreamServer, client_name: str
) -> None:
    # The first connection goes quiet for 3 s (no bytes, no close): aiter_events gives
    # up after the idle budget and resumes on a new connection.
    liveness = Liveness(idle_timeout=0.2)
    lane, result = resumed(stream_server, client_name, "silent=9:3000", liveness=liveness)
    want_lane, want_events = uncut()
    assert result.exc is None and result.lane_events == want_events
    assert lane.snapshot.to_api() == want_lane.snapshot.to_api()
    assert len(resumes(stream_server)) == 1


def test_a_sync_read_timeout_is_resumed_too(stream_server: StreamServer) -> None:
    # requests cannot be interrupted by the glue: its read timeout (the idle budget)
    # fires, the glue reports idle_timeout and resumes instead of re-raising.
    liveness = Liveness(idle_timeout=0.2)
    _, result = resumed(
        stream_server, "requests", "silent=9:3000", read_timeout=0.2, liveness=liveness
    )
    _, want_events = uncut()
    assert result.exc is None and result.lane_events == want_events


# -- in memory: a cut at any byte --------------------------------------------------------------

BASIC = capture_bytes(CAPTURE)
BASIC_EVENTS = split_events(BASIC)


def replay(plan: Any, chunk: int) -> list[bytes]:
    """What the server sends for ``plan``: the events after ``starting_after``, in pieces."""
    after = plan.starting_after
    body = b"".join(
        e
        for e in BASIC_EVENTS
        if after is None or json.loads(e.split(b"data: ", 1)[1])["sequence_number"] > after
    )
    return [body[i : i + chunk] for i in range(0, len(body), chunk)]


class Reset(ConnectionError):
    pass


def cut_at(offset: int, chunk: int) -> Iterator[bytes]:
    for i in range(0, offset, chunk):
        yield BASIC[i : min(i + chunk, offset)]
    raise Reset(f"reset at byte {offset}")


@settings(max_examples=examples(10, thorough=150), deadline=None)
@given(offset=st.integers(0, len(BASIC) - 1), chunk=st.integers(1, 400))
def test_a_cut_at_any_byte_resumes_to_the_uncut_stream(offset: int, chunk: int) -> None:
    want_lane, want_events = uncut()
    lane = ResponsesLane()
    got: list[LaneEvent] = []
    slept: list[float] = []
    try:
        for event in iter_events(
            lane, cut_at(offset, chunk), reconnect=lambda p: replay(p, chunk), sleep=slept.append
        ):
            got.append(event)
    except Reset:
        # No response id yet (the cut came before response.created was complete):
        # nothing to resume, the stream is TRUNCATED and the cause re-raised.
        assert lane.resume_plan() is None and lane.outcome is Outcome.TRUNCATED
        assert got == [StreamEnd(Outcome.TRUNCATED, lane.error)]
        return
    (reconnecting,) = [e for e in got if isinstance(e, Reconnecting)]
    assert slept == [reconnecting.delay] and reconnecting.attempt == 1
    assert [e for e in got if e is not reconnecting] == want_events
    assert lane.snapshot.to_api() == want_lane.snapshot.to_api()
