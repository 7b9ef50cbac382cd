"""The Chat encoder against the lane: what the lane read, ``encode_chat_event`` writes back.

The general round trip of every capture is in ``tests/test_frames.py``; these
are the Chat rules for how a stream ends: the ``[DONE]`` sentinel only where the
stream reached it, and an error frame whatever its data.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_chat import FINISHED_WITHOUT_DONE, choice, chunk, ends, run, sse, text_stream

from sse_engine import Outcome, encode_event, encode_lane_events
from sse_engine.chat import ChatCompletionsLane, encode_chat_event


def reemitted(lane: ChatCompletionsLane, events: list[Any]) -> bytes:
    return b"".join(encode_lane_events(lane, events))


def test_a_stream_that_reached_done_is_reemitted_with_done() -> None:
    lane, events = run(text_stream("hi"))
    body = reemitted(lane, events)
    assert body.endswith(b"data: [DONE]\n\n")
    again, _ = run(body)
    assert (again.outcome, again.error) == (Outcome.COMPLETED, None)


def test_a_finished_stream_without_done_is_reemitted_without_it() -> None:
    # Every choice finished, then the transport ended: TRUNCATED, and the
    # re-emitted stream is cut at the same place (no [DONE] added).
    lane, events = run(FINISHED_WITHOUT_DONE)
    body = reemitted(lane, events)
    assert b"[DONE]" not in body
    again, again_events = run(body)
    assert again.outcome is Outcome.TRUNCATED and again_events == events


def test_a_stream_accepted_without_done_is_reemitted_with_it() -> None:
    # require_done=False accepted the stream; the encoder writes the [DONE] it
    # lacked, so a client that requires it sees the stream end.
    lane, events = run(FINISHED_WITHOUT_DONE, lane=ChatCompletionsLane(require_done=False))
    body = reemitted(lane, events)
    assert body.endswith(b"data: [DONE]\n\n")
    again, _ = run(body)
    assert (again.outcome, again.error) == (Outcome.INCOMPLETE, None)
    assert again.warnings == []


def test_error_events_with_non_object_data_are_reemitted_as_sent() -> None:
    for data in ['"overloaded"', "503", "null", '["x"]', "upstream timed out", ""]:
        frame = encode_event(data, event="error")
        lane, events = run(sse(chunk([choice(content="a")])) + frame)
        assert encode_chat_event(events[-1]) == frame
        again, again_events = run(reemitted(lane, events))
        assert (again_events, again.error) == (events, lane.error)


# Any text an error event can carry: JSON of every kind, plain text, line breaks.
_error_data = st.one_of(
    st.text(max_size=40),
    st.sampled_from(['"overloaded"', "503", "null", "true", "[]", '{"message": "m"}', "[DONE]"]),
    st.recursive(
        st.none() | st.integers() | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=3), inner, max_size=3),
        max_leaves=6,
    ).map(json.dumps),
)


@settings(max_examples=examples(14, thorough=150), deadline=None)
@given(_error_data, st.booleans())
def test_an_error_event_is_a_failure_whatever_its_data(data: str, mid_stream: bool) -> None:
    before = sse(chunk([choice(content="a")])) if mid_stream else b""
    frame = encode_event(data, event="error")
    lane, events = run(before + frame)
    (end,) = ends(events)
    assert end.outcome is Outcome.FAILED and lane.outcome is Outcome.FAILED
    assert end.error is not None and end.error.message and end.error.status is None
    # The encoder writes the failure back; read again, it is the same failure.
    again, again_events = run(reemitted(lane, events))
    assert (again_events, again.error) == (events, lane.error)
