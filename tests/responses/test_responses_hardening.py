"""Responses lane hardening (issue 11 items 3, 10, 11, 12; issue 16's empty_completion)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_responses_support import (
    RESP_ID,
    capture,
    event_spans,
    frames,
    function_call,
    message,
    reasoning,
    response_obj,
    run,
    stream_events,
    usage,
)

from sse_engine import EventTooLarge, Outcome, ProtocolError, StreamEnd
from sse_engine.responses import ResponsesLane, ResponseUnknownEvent, ResumePlan


def codes(lane: ResponsesLane) -> list[str]:
    return [w.code for w in lane.warnings]


# -- item 3: an oversized event after `error` is trailing data ---------------------------------


ERROR = {"type": "error", "code": "server_error", "message": "boom", "param": None}


@pytest.mark.parametrize("separately", [False, True])
def test_an_oversized_event_after_error_is_trailing_data(separately: bool) -> None:
    head = frames([*stream_events([message("msg_1", "Hi")])[:4], ERROR])
    oversized = b"event: response.failed\ndata: " + b"x" * 4000 + b"\n\n"
    lane = ResponsesLane(max_event_size=2000)
    events = lane.feed(head + oversized) if not separately else lane.feed(head)
    if separately:
        events += lane.feed(oversized)
    events += lane.close()  # no ProtocolError: the verdict was already out
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert lane.error.code == "server_error"
    ends = [e for e in events if isinstance(e, StreamEnd)]
    assert ends == [StreamEnd(Outcome.FAILED, lane.error)]
    assert codes(lane)[-1] == "trailing_data"


def test_an_oversized_event_before_the_verdict_still_fails_with_a_stream_end() -> None:
    head = frames(stream_events([message("msg_1", "Hi")])[:4])
    lane = ResponsesLane(max_event_size=2000)
    with pytest.raises(EventTooLarge) as info:
        lane.feed(head + b"data: " + b"x" * 4000)
    assert info.value.events[-1] == StreamEnd(Outcome.FAILED, lane.error)
    assert lane.error is not None and lane.error.code == "protocol_error"


# -- item 10: done flags survive output_item.done and the terminal event ----------------------


def test_part_done_flags_survive_the_item_and_the_response_completing() -> None:
    events = stream_events([reasoning("rs_1", "Plan it."), message("msg_1", "Hello", "there")])
    body = frames(events)
    lane = ResponsesLane()
    for start, end in event_spans(body):
        lane.feed(body[start:end])
        for item in lane.snapshot.items:
            if item.done:
                assert all(p.done for p in item.parts.values()), item
                assert all(p.done for p in item.summary.values()), item
    lane.close()
    assert lane.outcome is Outcome.COMPLETED
    items = lane.snapshot.items
    parts = [p for item in items for p in (*item.parts.values(), *item.summary.values())]
    assert len(parts) == 3 and all(p.done for p in parts)


def test_an_open_part_is_not_done() -> None:
    body = frames(stream_events([message("msg_1", "Hello")]))
    lane = ResponsesLane()
    spans = event_spans(body)
    lane.feed(body[: spans[4][1]])  # created, in_progress, item added, part added, one delta
    (part,) = lane.snapshot.items[0].parts.values()
    assert not part.done


# -- item 11: ids without sequence numbers resume by Last-Event-ID -------------------------------


def frames_with_ids(events: list[dict[str, Any]]) -> bytes:
    body = frames(events, numbered=False)
    blocks = body.split(b"\n\n")[:-1]
    return b"".join(b"id: %d\n" % i + block + b"\n\n" for i, block in enumerate(blocks))


def test_ids_without_sequence_numbers_resume_incrementally_by_last_event_id() -> None:
    events = stream_events([message("msg_1", "Some text to cut in the middle")])
    body = frames_with_ids(events)
    spans = event_spans(body)
    lane = ResponsesLane()
    lane.feed(body[: spans[5][1]])
    lane.close()
    plan = lane.resume_plan()
    assert plan == ResumePlan(RESP_ID, None, "5")
    assert not plan.full_replay
    assert plan.query == {"stream": "true"}
    assert plan.headers == {"Last-Event-ID": "5"}
    assert lane.resume() == []  # incremental: the snapshot is kept
    lane.feed(body[spans[5][1] :])
    lane.close()
    assert lane.outcome is Outcome.COMPLETED
    assert lane.snapshot.output_text == "Some text to cut in the middle"


def test_neither_ids_nor_sequence_numbers_still_replay_from_the_start() -> None:
    assert ResumePlan.after(RESP_ID, None, "") == ResumePlan(RESP_ID, None, None, full_replay=True)


# -- item 12: wrong-typed fields are malformed_event warnings, not errors ----------------------


WRONG_TYPES: list[Any] = [["message"], {"t": 1}, 5, 1.5, True, None]


@pytest.mark.parametrize("value", WRONG_TYPES)
@pytest.mark.parametrize("field", ["type", "id", "content", "summary", "action", "role"])
def test_a_wrong_typed_item_field_is_tolerated(field: str, value: Any) -> None:
    events = stream_events([message("msg_1", "Hi")])
    for event in events:
        if event["type"].startswith("response.output_item."):
            event["item"] = {**event["item"], field: value}
    lane, _ = run(frames(events))
    assert lane.outcome is Outcome.COMPLETED
    json.dumps(lane.snapshot.to_api(), allow_nan=False)


def test_an_unhashable_item_type_is_a_violation_only_in_strict_mode() -> None:
    events = stream_events([function_call("fc_1", "f", "{}", "call_1")])
    for event in events:
        if event["type"].startswith("response.output_item."):
            event["item"] = {**event["item"], "type": ["function_call"]}
    body = frames(events)
    lane, _ = run(body)
    assert lane.outcome is Outcome.COMPLETED
    assert codes(lane) == ["malformed_event", "malformed_event"]
    assert lane.snapshot.to_api()["output"][0]["arguments"] == "{}"  # the item is kept
    strict = ResponsesLane(strict=True)
    with pytest.raises(ProtocolError) as info:
        strict.feed(body)
    assert info.value.events[-1] == StreamEnd(Outcome.FAILED, strict.error)


@pytest.mark.parametrize("value", WRONG_TYPES)
@pytest.mark.parametrize(
    "field", ["item_id", "output_index", "content_index", "delta", "sequence_number"]
)
def test_a_wrong_typed_event_field_is_a_malformed_event(field: str, value: Any) -> None:
    events = stream_events([message("msg_1", "Hi")])
    delta = next(e for e in events if e["type"] == "response.output_text.delta")
    delta[field] = value
    lane, out = run(frames(events))
    assert lane.outcome is Outcome.COMPLETED
    right_type = type(value) is int and field in ("output_index", "content_index")
    if value is not None and field != "sequence_number" and not right_type:
        assert "malformed_event" in codes(lane)
        assert any(isinstance(e, ResponseUnknownEvent) for e in out)


# -- issue 16: empty_completion --------------------------------------------------------------


def test_a_completed_response_with_nothing_in_it_warns() -> None:
    events = [
        {"type": "response.created", "response": response_obj("in_progress", [])},
        {"type": "response.completed", "response": response_obj("completed", [], usage=usage())},
    ]
    lane, _ = run(frames(events))
    assert lane.outcome is Outcome.COMPLETED
    assert codes(lane) == ["empty_completion"]


def test_reasoning_alone_is_an_empty_completion() -> None:
    lane, _ = run(frames(stream_events([reasoning("rs_1", "Thinking...")])))
    assert codes(lane) == ["empty_completion"]


@pytest.mark.parametrize(
    "output",
    [
        [message("msg_1", "Hello")],
        [function_call("fc_1", "f", "{}", "call_1")],
        [message("msg_1", refusal="I can't help with that.")],
        [{"id": "ws_1", "type": "web_search_call", "status": "completed"}],
    ],
)
def test_text_a_tool_call_or_a_refusal_is_not_empty(output: list[dict[str, Any]]) -> None:
    lane, _ = run(frames(stream_events(output)))
    assert "empty_completion" not in codes(lane)


def test_final_items_only_in_the_terminal_response_are_not_empty() -> None:
    final = response_obj("completed", [message("msg_1", "Hi")], usage=usage())
    events = [
        {"type": "response.created", "response": response_obj("in_progress", [])},
        {"type": "response.completed", "response": final},
    ]
    lane, _ = run(frames(events))
    assert codes(lane) == []


@pytest.mark.parametrize("name", ["responses_basic.sse", "responses_reasoning.sse"])
def test_bundled_completions_are_not_empty(name: str) -> None:
    lane, _ = run(capture(name))
    assert "empty_completion" not in codes(lane)
