"""Lane events back to wire frames: parse -> events -> encode -> parse is the identity."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from sse_engine import (
    FORMATS,
    Lane,
    LaneEvent,
    Outcome,
    SSEParser,
    StreamEnd,
    StreamError,
    StreamRestarted,
    encode_chat_event,
    encode_lane_events,
    encode_messages_event,
    encode_responses_event,
)
from sse_engine.chat import ChatCompletionsLane, ChatContentDelta
from sse_engine.messages import MessageError, MessagesLane, Ping
from sse_engine.responses import ResponsesLane, ResponseUnknownEvent

CAPTURES = Path(__file__).resolve().parent.parent / "sse_engine" / "captures"
LANES: dict[str, type[Lane[Any]]] = {name: row.lane for name, row in FORMATS.items()}
STREAM_CAPTURES = sorted(p.name for p in CAPTURES.glob("*_*.sse"))


def run(lane_class: type[Lane[Any]], body: bytes) -> tuple[Lane[Any], list[LaneEvent]]:
    lane = lane_class()
    events = lane.feed(body)
    return lane, events + lane.close()


def raws(events: list[LaneEvent]) -> list[Any]:
    return [getattr(e, "raw", None) for e in events]


def test_every_lane_has_bundled_stream_captures() -> None:
    assert {name.split("_")[0] for name in STREAM_CAPTURES} == set(LANES)


@pytest.mark.parametrize("name", STREAM_CAPTURES)
def test_round_trip_of_every_bundled_capture(name: str) -> None:
    lane_class = LANES[name.split("_")[0]]
    first, events = run(lane_class, (CAPTURES / name).read_bytes())
    body = b"".join(encode_lane_events(first, events))
    second, again = run(lane_class, body)
    assert again == events
    assert raws(again) == raws(events)
    assert second.snapshot.to_api() == first.snapshot.to_api()
    assert (second.outcome, second.error) == (first.outcome, first.error)
    # The re-emitted stream is clean: only anomalies of the payloads themselves remain.
    assert {w.code for w in second.warnings} <= {w.code for w in first.warnings}


def test_encoding_picks_the_wire_format_from_a_lane_class() -> None:
    _, events = run(ChatCompletionsLane, (CAPTURES / "chat_basic.sse").read_bytes())
    frames = list(encode_lane_events(ChatCompletionsLane, events))
    assert all(f.startswith(b"data: {") for f in frames[:-1])
    assert frames[-1] == encode_chat_event(StreamEnd(Outcome.COMPLETED)) == b"data: [DONE]\n\n"
    with pytest.raises(TypeError, match="Lane is not the lane of any wire format"):
        list(encode_lane_events(Lane, events))


# -- Chat Completions ---------------------------------------------------------------------


def test_chat_frames_are_data_only_and_compact() -> None:
    chunk = {"object": "chat.completion.chunk", "choices": [{"delta": {"content": "é"}}]}
    assert encode_chat_event(chunk) == (
        b'data: {"object":"chat.completion.chunk","choices":[{"delta":{"content":"\xc3\xa9"}}]}\n\n'
    )


def test_chat_content_events_share_their_chunk_frame() -> None:
    _, events = run(ChatCompletionsLane, (CAPTURES / "chat_basic.sse").read_bytes())
    delta = next(e for e in events if isinstance(e, ChatContentDelta))
    assert encode_chat_event(delta) == b""


def test_chat_stream_end_encodes_the_done_sentinel_only_when_it_was_reached() -> None:
    reached = StreamError(message="[DONE] early", code="missing_finish_reason")
    assert encode_chat_event(StreamEnd(Outcome.COMPLETED)) == b"data: [DONE]\n\n"
    assert encode_chat_event(StreamEnd(Outcome.INCOMPLETE)) == b"data: [DONE]\n\n"
    assert encode_chat_event(StreamEnd(Outcome.TRUNCATED, reached)) == b"data: [DONE]\n\n"
    cut = StreamError(message="cut", code="stream_truncated")
    assert encode_chat_event(StreamEnd(Outcome.TRUNCATED, cut)) == b""
    assert encode_chat_event(StreamRestarted("replay")) == b""


def test_chat_error_frame_read_from_its_event_line_keeps_the_line() -> None:
    body = b'event: error\ndata: {"message":"boom","code":"server_error"}\n\n'
    first, events = run(ChatCompletionsLane, body)
    assert first.outcome is Outcome.FAILED
    frame = encode_chat_event(events[-1])
    assert frame == b'event: error\ndata: {"message":"boom","code":"server_error"}\n\n'
    second, again = run(ChatCompletionsLane, frame)
    assert (again, second.error) == (events, first.error)


def test_a_prestream_error_is_not_a_frame() -> None:
    lane = ChatCompletionsLane()
    lane.start(429, {"content-type": "application/json"})
    lane.feed((CAPTURES / "chat_prestream_429.json").read_bytes())
    (end,) = lane.close()
    assert isinstance(end, StreamEnd) and end.error is not None and end.error.status == 429
    assert encode_chat_event(end) == b""
    assert encode_responses_event(end) == b"" and encode_messages_event(end) == b""


def test_an_event_of_another_lane_is_a_type_error() -> None:
    ping = Ping({"type": "ping"})
    with pytest.raises(TypeError, match="not a Chat Completions event"):
        encode_chat_event(ping)
    with pytest.raises(TypeError, match="not a Responses event"):
        encode_responses_event(ping)
    with pytest.raises(TypeError, match="not a Messages event"):
        encode_messages_event(ResponseUnknownEvent("x", 1, raw={"type": "x"}))


# -- Responses ----------------------------------------------------------------------------------


def test_responses_frame_has_the_event_line_and_an_optional_id() -> None:
    payload = {"type": "response.output_text.delta", "sequence_number": 7, "delta": "hi"}
    frame = encode_responses_event(payload, id="7")
    assert frame == (
        b"event: response.output_text.delta\nid: 7\n"
        b'data: {"type":"response.output_text.delta","sequence_number":7,"delta":"hi"}\n\n'
    )
    parser = SSEParser()
    (sse,) = parser.feed(frame)
    assert (sse.event, parser.last_event_id) == ("response.output_text.delta", "7")


def test_responses_event_built_without_raw_cannot_be_encoded() -> None:
    with pytest.raises(ValueError, match="no raw payload"):
        encode_responses_event(ResponseUnknownEvent("response.x", 3))


def test_responses_stream_cut_and_re_emitted_resumes_like_the_original() -> None:
    """A test server can replay 'everything after N' from the events it recorded."""
    body = (CAPTURES / "responses_basic.sse").read_bytes()
    full, events = run(ResponsesLane, body)
    lane = ResponsesLane()
    lane.feed(body[: len(body) // 2])
    lane.close()
    plan = lane.resume_plan()
    assert plan is not None and plan.starting_after is not None
    rest = [
        e for e in events
        if getattr(e, "sequence_number", None) is not None
        and e.sequence_number > plan.starting_after  # type: ignore[attr-defined]
    ]
    lane.resume()
    lane.feed(b"".join(encode_lane_events(lane, rest)))
    lane.close()
    assert lane.outcome is Outcome.COMPLETED
    assert lane.snapshot.to_api() == full.snapshot.to_api()


# -- Messages --------------------------------------------------------------------------------------


def test_messages_ping_without_data_and_an_error_that_is_not_json() -> None:
    body = b"event: ping\ndata:\n\nevent: error\ndata: upstream timed out\n\n"
    first, events = run(MessagesLane, body)
    assert isinstance(events[0], Ping) and isinstance(events[1], MessageError)
    frames = [encode_messages_event(e) for e in events]
    assert frames[0] == b'event: ping\ndata: {"type":"ping"}\n\n'
    assert frames[1] == b"event: error\ndata: upstream timed out\n\n"
    second, again = run(MessagesLane, b"".join(frames))
    assert again == events and second.error == first.error


# -- any payload survives the trip (hypothesis) --------------------------------------------------

# Text with what JSON and SSE must not mangle: line breaks, U+2028, NUL, a BOM, lone surrogates.
tricky_text = st.lists(
    st.text(max_size=3)
    | st.sampled_from(
        ["\r", "\n", "\r\n", "\u2028", "\x00", "\ufeff", "\ud800", "\udfff", ":", "data: "]
    ),
    max_size=5,
).map("".join)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | tricky_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(tricky_text, inner, max_size=3),
    max_leaves=12,
)


def as_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


@settings(max_examples=examples(12, thorough=200), deadline=None)
@given(st.dictionaries(tricky_text, json_values, max_size=4), json_values)
def test_unknown_payloads_come_back_exactly(extra: dict[str, Any], value: Any) -> None:
    """An unknown frame of each lane is passed through; its raw payload must be the same.

    (Compared with the payload as JSON can hold it: a high and a low surrogate
    side by side are one character once decoded, whatever produced them.)
    """
    responses_payload = {**extra, "type": "gateway.custom", "sequence_number": 0, "v": value}
    _, events = run(ResponsesLane, encode_responses_event(responses_payload))
    assert raws(events)[0] == as_json(responses_payload)

    messages_payload = {**extra, "type": "gateway_custom", "v": value}
    _, events = run(MessagesLane, encode_messages_event(messages_payload))
    assert raws(events)[0] == as_json(messages_payload)

    chat_payload = {**extra, "object": "gateway.frame", "v": value}
    _, events = run(ChatCompletionsLane, encode_chat_event(chat_payload))
    if not chat_payload.get("error"):
        assert raws(events)[0] == as_json(chat_payload)


@settings(max_examples=examples(20, thorough=100), deadline=None)
@given(st.lists(tricky_text.filter(bool), min_size=1, max_size=5))
def test_chat_text_deltas_survive_the_trip(pieces: list[str]) -> None:
    chunks = [
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
         "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
        for piece in pieces
    ]
    chunks.append({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                   "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    done = encode_chat_event(StreamEnd(Outcome.COMPLETED))
    body = b"".join(encode_chat_event(c) for c in chunks) + done
    lane, events = run(ChatCompletionsLane, body)
    assert lane.outcome is Outcome.COMPLETED
    assert lane.snapshot.choices[0].content == "".join(as_json(pieces))
    again, events2 = run(ChatCompletionsLane, b"".join(encode_lane_events(lane, events)))
    assert events2 == events and again.snapshot.to_api() == lane.snapshot.to_api()
