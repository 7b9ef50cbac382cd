"""``Lane.feed_with_comments()``: a lane can return the keepalive comments it reads (for a relay).

``feed()`` returns none; ``feed_with_comments()`` returns every comment line
before the verdict as a ``Comment`` where it came, and its other events are
exactly those ``feed()`` returns, however the bytes are split.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sse_engine import ChatCompletionsLane, Comment, MessagesLane, ResponsesLane, UsageError

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


COMMENTS = ["keepalive", "keepalive", "still thinking", "inside an event"]


def test_feed_returns_no_comments() -> None:
    lane = ChatCompletionsLane()
    assert not any(type(e) is Comment for e in lane.feed(KEEPALIVE_STREAM))
    kept = ChatCompletionsLane()
    kept.feed_with_comments(b"")
    assert not any(type(e) is Comment for e in kept.feed(KEEPALIVE_STREAM))


@settings(max_examples=60, deadline=None)
@given(cuts=st.lists(st.integers(0, len(KEEPALIVE_STREAM)), max_size=8))
def test_kept_comments_and_events_do_not_depend_on_the_split(cuts: list[int]) -> None:
    plain = ChatCompletionsLane()
    expected = plain.feed(KEEPALIVE_STREAM) + plain.close()
    lane = ChatCompletionsLane()
    events: list[Any] = []
    for piece in split(KEEPALIVE_STREAM, cuts):
        events += lane.feed_with_comments(piece)
    events += lane.close()
    assert [e.text for e in events if type(e) is Comment] == COMMENTS
    assert [e for e in events if type(e) is not Comment] == expected
    assert lane.outcome is plain.outcome and lane.warnings == plain.warnings
    # Each comment where it came: the two before the first chunk, the third after it.
    kinds = [type(e).__name__ for e in events]
    assert kinds[:2] == ["Comment", "Comment"] and kinds[2] == "ChatChunk"


@pytest.mark.parametrize("lane_class", [ChatCompletionsLane, ResponsesLane, MessagesLane])
def test_feed_with_comments_must_come_before_the_first_feed(lane_class: type) -> None:
    lane = lane_class()
    lane.feed(b": keepalive\n\n")
    with pytest.raises(UsageError, match="before any feed"):
        lane.feed_with_comments(b"")


def test_a_resumed_responses_lane_keeps_comments() -> None:
    created = (
        b'event: response.created\ndata: {"type":"response.created","sequence_number":0,'
        b'"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}\n\n'
    )
    lane = ResponsesLane()
    first = lane.feed_with_comments(b": keepalive\n\n" + created)
    lane.close()
    lane.resume()
    again = lane.feed_with_comments(b": keepalive\n\n: again\n\n")
    assert type(first[0]) is Comment and len(first) == 2
    assert again == [Comment("keepalive"), Comment("again")]


def test_no_comment_is_returned_after_the_verdict() -> None:
    lane = ChatCompletionsLane()
    events = lane.feed_with_comments(KEEPALIVE_STREAM + b": after the end\n\n")
    assert [e.text for e in events if type(e) is Comment] == COMMENTS
