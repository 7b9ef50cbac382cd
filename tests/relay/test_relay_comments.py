"""``Lane.count_comments()``: a lane can count the keepalive comments it reads (for the relay).

Off by default; turned on, the lane counts every comment line and its
events are exactly those of a lane that does not count, however the bytes
are split.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sse_engine import ChatCompletionsLane, MessagesLane, ResponsesLane, UsageError

KEEPALIVE_STREAM = (
    b": keepalive\n"
    b": keepalive\n\n"
    b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
    b'"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}\n\n'
    b": still thinking\r\n"
    b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
    b'"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n'
    b": inside an event\n\n"
    b"data: [DONE]\n\n"
)


def split(body: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted({c % (len(body) + 1) for c in cuts}), len(body)]
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


def test_a_lane_does_not_count_comments_unless_asked() -> None:
    lane = ChatCompletionsLane()
    lane.feed(KEEPALIVE_STREAM)
    assert lane.comments_read is None


@settings(max_examples=60, deadline=None)
@given(cuts=st.lists(st.integers(0, len(KEEPALIVE_STREAM)), max_size=8))
def test_counted_comments_and_events_do_not_depend_on_the_split(cuts: list[int]) -> None:
    plain = ChatCompletionsLane()
    expected = plain.feed(KEEPALIVE_STREAM) + plain.close()
    lane = ChatCompletionsLane()
    lane.count_comments()
    events = []
    for piece in split(KEEPALIVE_STREAM, cuts):
        events += lane.feed(piece)
    events += lane.close()
    assert lane.comments_read == 4
    assert events == expected
    assert lane.outcome is plain.outcome and lane.warnings == plain.warnings


@pytest.mark.parametrize("lane_class", [ChatCompletionsLane, ResponsesLane, MessagesLane])
def test_count_comments_must_come_before_the_first_feed(lane_class: type) -> None:
    lane = lane_class()
    lane.feed(b": keepalive\n\n")
    with pytest.raises(UsageError, match="before any feed"):
        lane.count_comments()


def test_a_resumed_responses_lane_keeps_counting() -> None:
    created = (
        b'event: response.created\ndata: {"type":"response.created","sequence_number":0,'
        b'"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}\n\n'
    )
    lane = ResponsesLane()
    lane.count_comments()
    lane.feed(b": keepalive\n\n" + created)
    lane.close()
    lane.resume()
    lane.feed(b": keepalive\n\n: again\n\n")
    assert lane.comments_read == 3
