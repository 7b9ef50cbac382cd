"""The Responses lane: events, snapshot, outcomes, errors, sequencing, item rules."""

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
    tool_item,
    usage,
)

from sse_engine import LaneEvent, Outcome, ProtocolError, StreamEnd, StreamRestarted
from sse_engine.responses import (
    ResponseArgumentsDoneEvent,
    ResponseCallDeltaEvent,
    ResponseContentDeltaEvent,
    ResponseErrorEvent,
    ResponseItemStatusEvent,
    ResponseLifecycleEvent,
    ResponseOutputItemEvent,
    ResponsesEvent,
    ResponsesLane,
    ResponseTerminalEvent,
    ResponseTextDoneEvent,
    ResponseUnknownEvent,
)

# Every event type openai 3.57 knows (response_stream_event.py), with its payload
# fields, plus Kindo's response.kindo_call_arguments.delta / .done.
REFERENCE_TYPES: dict[str, tuple[str, ...]] = {
    "error": ("code", "message", "param"),
    "response.audio.delta": ("delta",),
    "response.audio.done": (),
    "response.audio.transcript.delta": ("delta",),
    "response.audio.transcript.done": (),
    "response.code_interpreter_call.completed": ("item_id", "output_index"),
    "response.code_interpreter_call.in_progress": ("item_id", "output_index"),
    "response.code_interpreter_call.interpreting": ("item_id", "output_index"),
    "response.code_interpreter_call_code.delta": ("delta", "item_id", "output_index"),
    "response.code_interpreter_call_code.done": ("code", "item_id", "output_index"),
    "response.compaction.compacting": ("item_id", "output_index"),
    "response.completed": ("response",),
    "response.content_part.added": ("content_index", "item_id", "output_index", "part"),
    "response.content_part.done": ("content_index", "item_id", "output_index", "part"),
    "response.created": ("response",),
    "response.custom_tool_call_input.delta": ("delta", "item_id", "output_index"),
    "response.custom_tool_call_input.done": ("input", "item_id", "output_index"),
    "response.failed": ("response",),
    "response.file_search_call.completed": ("item_id", "output_index"),
    "response.file_search_call.in_progress": ("item_id", "output_index"),
    "response.file_search_call.searching": ("item_id", "output_index"),
    "response.function_call_arguments.delta": ("delta", "item_id", "output_index"),
    "response.function_call_arguments.done": ("arguments", "item_id", "output_index"),
    "response.image_generation_call.completed": ("item_id", "output_index"),
    "response.image_generation_call.generating": ("item_id", "output_index"),
    "response.image_generation_call.in_progress": ("item_id", "output_index"),
    "response.image_generation_call.partial_image": (
        "item_id",
        "output_index",
        "partial_image_b64",
        "partial_image_index",
        "background",
        "output_format",
        "quality",
        "size",
    ),
    "response.in_progress": ("response",),
    "response.incomplete": ("response",),
    "response.mcp_call.completed": ("item_id", "output_index"),
    "response.mcp_call.failed": ("item_id", "output_index"),
    "response.mcp_call.in_progress": ("item_id", "output_index"),
    "response.mcp_call_arguments.delta": ("delta", "item_id", "output_index"),
    "response.mcp_call_arguments.done": ("arguments", "item_id", "output_index"),
    "response.mcp_list_tools.completed": ("item_id", "output_index"),
    "response.mcp_list_tools.failed": ("item_id", "output_index"),
    "response.mcp_list_tools.in_progress": ("item_id", "output_index"),
    "response.output_item.added": ("item", "output_index"),
    "response.output_item.done": ("item", "output_index"),
    "response.output_text.annotation.added": (
        "annotation",
        "annotation_index",
        "content_index",
        "item_id",
        "output_index",
    ),
    "response.output_text.delta": ("content_index", "delta", "item_id", "logprobs", "output_index"),
    "response.output_text.done": ("content_index", "item_id", "logprobs", "output_index", "text"),
    "response.queued": ("response",),
    "response.reasoning_summary_part.added": ("item_id", "output_index", "part", "summary_index"),
    "response.reasoning_summary_part.done": (
        "item_id",
        "output_index",
        "part",
        "summary_index",
        "status",
    ),
    "response.reasoning_summary_text.delta": ("delta", "item_id", "output_index", "summary_index"),
    "response.reasoning_summary_text.done": ("item_id", "output_index", "summary_index", "text"),
    "response.reasoning_text.delta": ("content_index", "delta", "item_id", "output_index"),
    "response.reasoning_text.done": ("content_index", "item_id", "output_index", "text"),
    "response.refusal.delta": ("content_index", "delta", "item_id", "output_index"),
    "response.refusal.done": ("content_index", "item_id", "output_index", "refusal"),
    "response.shell_call_command.added": ("command", "command_index", "output_index"),
    "response.shell_call_command.delta": ("command_index", "delta", "output_index", "obfuscation"),
    "response.shell_call_command.done": ("command", "command_index", "output_index"),
    "response.shell_call_output_content.delta": (
        "command_index",
        "delta",
        "item_id",
        "output_index",
    ),
    "response.shell_call_output_content.done": (
        "command_index",
        "item_id",
        "output",
        "output_index",
    ),
    "response.web_search_call.completed": ("item_id", "output_index"),
    "response.web_search_call.in_progress": ("item_id", "output_index"),
    "response.web_search_call.searching": ("item_id", "output_index"),
    "response.kindo_call_arguments.delta": ("delta", "item_id", "output_index"),
    "response.kindo_call_arguments.done": ("arguments", "item_id", "output_index"),
}

# A plausible value for each payload field.
FIELD_VALUES: dict[str, Any] = {
    "item_id": "it_1",
    "output_index": 0,
    "content_index": 0,
    "summary_index": 0,
    "command_index": 0,
    "annotation_index": 0,
    "partial_image_index": 0,
    "delta": "abc",
    "text": "full text",
    "refusal": "I can't.",
    "arguments": '{"q":1}',
    "input": "free-form input",
    "command": "ls -la",
    "obfuscation": "xyz",
    "logprobs": [],
    "part": {"type": "output_text", "text": "", "annotations": []},
    "item": {
        "id": "it_1",
        "type": "message",
        "status": "in_progress",
        "content": [],
        "role": "assistant",
    },
    "response": {"id": "resp_1", "object": "response", "status": "in_progress"},
    "annotation": {
        "type": "url_citation",
        "url": "https://example.com",
        "title": "Ex",
        "start_index": 0,
        "end_index": 3,
    },
    "partial_image_b64": "aGVsbG8=",
    "background": "transparent",
    "output_format": "png",
    "quality": "low",
    "size": "1024x1024",
    "status": "incomplete",
    "output": [{"stdout": "hi\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}],
    "message": "The server had an error",
    "param": None,
}


def payload_for(kind: str) -> dict[str, Any]:
    payload: dict[str, Any] = {"type": kind, "sequence_number": 0}
    for field in REFERENCE_TYPES[kind]:
        payload[field] = FIELD_VALUES.get(field)
    if kind == "error":
        payload["code"] = "server_error"
    elif kind == "response.code_interpreter_call_code.done":
        payload["code"] = "print(1)"
    elif kind == "response.shell_call_output_content.delta":
        payload["delta"] = {"stdout": "hi\n"}
    return payload


def sse(payload: dict[str, Any], event: str | None = None) -> bytes:
    head = f"event: {event or payload['type']}\n"
    return f"{head}data: {json.dumps(payload)}\n\n".encode()


def typed(events: list[LaneEvent]) -> list[ResponsesEvent]:
    return [e for e in events if not isinstance(e, StreamEnd | StreamRestarted)]


def ends(events: list[LaneEvent]) -> list[StreamEnd]:
    return [e for e in events if isinstance(e, StreamEnd)]


def codes(lane: ResponsesLane) -> list[str]:
    return [w.code for w in lane.warnings]


# -- events -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(REFERENCE_TYPES))
def test_every_event_type_decodes_to_a_typed_frozen_event(kind: str) -> None:
    payload = payload_for(kind)
    lane = ResponsesLane(strict=True)
    (event, *_) = typed(lane.feed(sse(payload)))
    assert not isinstance(event, ResponseUnknownEvent)
    assert event.type == kind
    assert event.sequence_number == 0
    assert event.raw == payload
    for field in REFERENCE_TYPES[kind]:
        assert getattr(event, field) == payload[field], field
    with pytest.raises(AttributeError):
        event.type = "changed"  # type: ignore[misc]


def test_event_types_share_a_few_classes_by_shape() -> None:
    classes: dict[type, list[str]] = {}
    for kind in REFERENCE_TYPES:
        (event, *_) = typed(ResponsesLane().feed(sse(payload_for(kind))))
        classes.setdefault(type(event), []).append(kind)
    assert len(classes) <= 24 < len(REFERENCE_TYPES)
    assert sorted(classes[ResponseLifecycleEvent]) == [
        "response.created",
        "response.in_progress",
        "response.queued",
    ]
    assert sorted(classes[ResponseTerminalEvent]) == [
        "response.completed",
        "response.failed",
        "response.incomplete",
    ]
    assert len(classes[ResponseItemStatusEvent]) == 19
    assert sorted(classes[ResponseCallDeltaEvent]) == [
        "response.code_interpreter_call_code.delta",
        "response.custom_tool_call_input.delta",
        "response.function_call_arguments.delta",
        "response.kindo_call_arguments.delta",
        "response.mcp_call_arguments.delta",
    ]
    assert sorted(classes[ResponseArgumentsDoneEvent]) == [
        "response.function_call_arguments.done",
        "response.kindo_call_arguments.done",
        "response.mcp_call_arguments.done",
    ]


def test_item_status_events_name_their_tool_and_status() -> None:
    events = typed(ResponsesLane().feed(sse(payload_for("response.web_search_call.searching"))))
    assert isinstance(events[0], ResponseItemStatusEvent)
    assert (events[0].item_type, events[0].status) == ("web_search_call", "searching")


@pytest.mark.parametrize(
    "kind", ["response.web_search_call.searching", "response.image_generation_call.partial_image"]
)
def test_an_event_about_an_item_always_says_its_output_index(kind: str) -> None:
    added = {"type": "response.output_item.added", "sequence_number": 0, "output_index": 3,
             "item": {"id": "ws_1", "type": "web_search_call", "status": "in_progress"}}
    by_id = {**payload_for(kind), "sequence_number": 1, "item_id": "ws_1"}
    del by_id["output_index"]
    nowhere = {**by_id, "sequence_number": 2, "item_id": "ws_gone"}
    lane = ResponsesLane()
    events = typed(lane.feed(frames([added, by_id, nowhere])))
    known, unplaced = events[1:]
    assert type(known) is not ResponseUnknownEvent and known.output_index == 3
    assert isinstance(unplaced, ResponseUnknownEvent) and unplaced.type == kind
    assert codes(lane) == ["malformed_event"]
    assert "no 'output_index'" in lane.warnings[0].message


def test_unknown_event_type_passes_through_with_its_payload() -> None:
    odd = {"type": "response.hologram.rendered", "frames": [1, 2]}
    body = frames([{"type": "response.created", "response": response_obj("in_progress", [])}, odd])
    lane = ResponsesLane(strict=True)
    events = typed(lane.feed(body))
    assert isinstance(events[1], ResponseUnknownEvent)
    assert events[1].type == "response.hologram.rendered"
    assert events[1].raw["frames"] == [1, 2]
    assert lane.warnings == [] and lane.outcome is None
    assert lane.snapshot.items == []


def test_the_json_type_wins_over_the_event_line_with_a_warning() -> None:
    payload = {
        "type": "response.created",
        "sequence_number": 0,
        "response": response_obj("in_progress", []),
    }
    lane = ResponsesLane()
    events = typed(lane.feed(sse(payload, event="response.in_progress")))
    assert events[0].type == "response.created"
    assert codes(lane) == ["event_type_mismatch"]


def test_the_event_line_types_a_payload_without_type() -> None:
    lane = ResponsesLane()
    data = json.dumps({"sequence_number": 0, "response": response_obj("in_progress", [])})
    events = typed(lane.feed(f"event: response.created\ndata: {data}\n\n".encode()))
    assert isinstance(events[0], ResponseLifecycleEvent)
    assert events[0].type == "response.created"
    assert lane.warnings == []


def test_events_compare_by_fields_not_by_raw_payload() -> None:
    a = ResponseContentDeltaEvent("response.output_text.delta", 3, "m", 0, 0, "hi", raw={"x": 1})
    b = ResponseContentDeltaEvent("response.output_text.delta", 3, "m", 0, 0, "hi", raw={"y": 2})
    assert a == b
    assert "raw" not in repr(a)


# -- snapshot -----------------------------------------------------------------------------------

TEXT_AND_TOOL = [
    message("msg_1", "Hello there, ", "and a second part."),
    function_call("fc_1", "get_weather", '{"city":"Paris"}', "call_1"),
    message("msg_2", "It is sunny."),
]


def test_snapshot_builds_text_per_part_and_tool_arguments_as_they_stream() -> None:
    events = stream_events(TEXT_AND_TOOL)
    body = frames(events)
    lane = ResponsesLane()
    seen_partial = False
    for start, end in event_spans(body):
        lane.feed(body[start:end])
        item = lane.snapshot.item(1)
        if item is not None and not item.done and item.arguments:
            assert '{"city":"Paris"}'.startswith(item.arguments)
            seen_partial = True
    assert seen_partial
    snap = lane.snapshot
    first = snap.item(0)
    assert first is not None
    assert [p.text for _, p in sorted(first.parts.items())] == [
        "Hello there, ",
        "and a second part.",
    ]
    assert snap.output_text == "Hello there, and a second part.It is sunny."
    assert [i.type for i in snap.items] == ["message", "function_call", "message"]
    assert snap.status == "completed" and snap.usage == usage()
    assert snap.to_api()["output"] == TEXT_AND_TOOL


def test_snapshot_mid_stream_is_the_response_so_far() -> None:
    events = stream_events(TEXT_AND_TOOL)
    cut = next(
        i for i, e in enumerate(events) if e["type"] == "response.function_call_arguments.delta"
    )
    lane, _ = run(frames(events[: cut + 2]))
    api = lane.snapshot.to_api()
    assert api["id"] == RESP_ID and api["status"] == "in_progress"
    assert api["output"][0] == TEXT_AND_TOOL[0]
    call = api["output"][1]
    assert call["type"] == "function_call" and call["status"] == "in_progress"
    assert call["arguments"] == '{"city":"Paris"}'[:14]
    json.dumps(api)  # JSON-ready


def test_refusal_reasoning_summary_and_annotations_build_up() -> None:
    cite = {
        "type": "url_citation",
        "url": "https://example.com",
        "title": "Example",
        "start_index": 0,
        "end_index": 5,
    }
    answer = message("msg_1", "Cited answer.")
    answer["content"][0]["annotations"] = [cite]
    items = [
        reasoning("rs_1", "First thought.", "Second thought."),
        answer,
        message("msg_2", refusal="I can't help with that."),
    ]
    events = stream_events(items)
    # stop just before each item's output_item.done to read the streamed state
    lane = ResponsesLane()
    for event in events:
        if event["type"] == "response.output_item.done":
            item = lane.snapshot.item(event["output_index"])
            assert item is not None and not item.done
            streamed = item.to_api()
            expected = {**event["item"]}
            if "status" in expected:
                expected["status"] = "in_progress"
            assert streamed == expected
        lane.feed(frames([event], start=events.index(event)))
    snap = lane.snapshot
    assert snap.items[0].summary_text == ["First thought.", "Second thought."]
    assert snap.items[2].refusal == "I can't help with that."
    assert snap.items[1].parts[0].annotations == [cite]
    assert lane.outcome is Outcome.COMPLETED


def test_done_events_are_authoritative_over_deltas() -> None:
    events = stream_events([message("msg_1", "Hello"), function_call("fc_1", "f", '{"a":1}', "c")])
    for event in events:
        if event["type"] == "response.output_text.delta":
            event["delta"] = "X"  # deltas that disagree with the .done text
        if event["type"] == "response.function_call_arguments.delta":
            event["delta"] = "?"
    lane = ResponsesLane()
    for i, event in enumerate(events):
        lane.feed(frames([event], start=i))
        item = lane.snapshot.item(0)
        if event["type"] == "response.output_text.delta":
            assert item is not None and item.text.startswith("X")
        if event["type"] == "response.output_text.done":
            assert item is not None and item.text == "Hello"
    call = lane.snapshot.item(1)
    assert call is not None and call.arguments == '{"a":1}'
    assert lane.snapshot.output_text == "Hello"


def test_output_item_done_replaces_what_was_streamed() -> None:
    events = stream_events([message("msg_1", "streamed")])
    done = next(e for e in events if e["type"] == "response.output_item.done")
    done["item"] = message("msg_1", "final word")
    events[-1]["response"] = {k: v for k, v in events[-1]["response"].items() if k != "output"}
    lane, _ = run(frames(events))
    assert lane.snapshot.to_api()["output"] == [message("msg_1", "final word")]


def test_the_terminal_payload_is_authoritative() -> None:
    events = stream_events([message("msg_1", "streamed")])
    events[-1]["response"]["output"] = [message("msg_1", "as the server finally says")]
    lane, _ = run(frames(events))
    api = lane.snapshot.to_api()
    assert api == events[-1]["response"]


def test_to_api_rebuilds_output_when_the_terminal_payload_lacks_it() -> None:
    events = stream_events(TEXT_AND_TOOL, omit_output=True)
    lane, _ = run(frames(events))
    api = lane.snapshot.to_api()
    assert api["output"] == TEXT_AND_TOOL
    assert api["usage"] == usage() and api["status"] == "completed"


def test_to_api_is_an_independent_copy() -> None:
    lane, _ = run(frames(stream_events(TEXT_AND_TOOL)))
    first = lane.snapshot.to_api()
    first["output"][0]["content"][0]["text"] = "mutated"
    first["usage"]["total_tokens"] = -1
    assert lane.snapshot.to_api()["output"] == TEXT_AND_TOOL
    assert lane.snapshot.usage == usage()


def test_text_after_a_tool_call_is_a_new_message_item() -> None:
    lane, events = run(frames(stream_events(TEXT_AND_TOOL)), strict=True)
    added = [
        e
        for e in typed(events)
        if isinstance(e, ResponseOutputItemEvent) and e.type == "response.output_item.added"
    ]
    assert [(e.output_index, e.item["type"]) for e in added] == [
        (0, "message"),
        (1, "function_call"),
        (2, "message"),
    ]
    assert [i.text for i in lane.snapshot.items] == [
        "Hello there, and a second part.",
        "",
        "It is sunny.",
    ]


def test_kindo_and_hosted_tool_items_assemble() -> None:
    lane, events = run(capture("responses_kindo_agent.sse"), strict=True)
    assert lane.outcome is Outcome.COMPLETED and lane.warnings == []
    output = lane.snapshot.to_api()["output"]
    assert [i["type"] for i in output] == [
        "reasoning",
        "web_search_call",
        "kindo_call",
        "mcp_call",
        "shell_call",
        "custom_tool_call",
        "message",
    ]
    kindo = lane.snapshot.item(2)
    assert kindo is not None
    assert kindo.arguments == '{"incident_id":2731,"fields":["status","owner"]}'
    assert output[4]["action"]["commands"] == [
        "kubectl get pods -n api",
        "kubectl logs deploy/api --tail=20",
    ]
    assert lane.snapshot.item(1).progress == "completed"  # type: ignore[union-attr]
    kinds = {e.type for e in typed(events)}
    assert {"response.kindo_call_arguments.delta", "response.kindo_call_arguments.done"} <= kinds


def test_kindo_items_stream_their_arguments_before_done() -> None:
    body = capture("responses_kindo_agent.sse")
    lane = ResponsesLane()
    partial: dict[str, str] = {}
    for start, end in event_spans(body):
        for event in lane.feed(body[start:end]):
            if isinstance(event, ResponseOutputItemEvent) and event.type.endswith("done"):
                continue
            item = lane.snapshot.items[-1] if lane.snapshot.items else None
            if item is not None and not item.done:
                api = item.to_api()
                for field in ("arguments", "input"):
                    if api.get(field):
                        partial[api["type"]] = api[field]
                if api["type"] == "shell_call" and api["action"]["commands"]:
                    partial["shell_call"] = api["action"]["commands"][-1]
                if api["type"] == "reasoning" and api["summary"]:
                    partial["reasoning"] = api["summary"][0]["text"]
    assert set(partial) == {"kindo_call", "mcp_call", "custom_tool_call", "shell_call", "reasoning"}


# -- outcomes -----------------------------------------------------------------------------------


def test_completed_is_completed_with_one_stream_end() -> None:
    lane, events = run(capture("responses_basic.sse"))
    assert lane.outcome is Outcome.COMPLETED and lane.error is None
    assert ends(events) == [StreamEnd(Outcome.COMPLETED, None)]
    assert isinstance(events[-2], ResponseTerminalEvent)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("responses_max_tokens.sse", "max_output_tokens"),
        ("responses_refusal.sse", "content_filter"),
    ],
)
def test_incomplete_carries_its_reason(name: str, reason: str) -> None:
    lane, events = run(capture(name))
    assert lane.outcome is Outcome.INCOMPLETE and lane.error is None
    assert lane.snapshot.incomplete_reason == reason
    terminal = [e for e in events if isinstance(e, ResponseTerminalEvent)]
    assert terminal[0].incomplete_reason == reason
    assert len(ends(events)) == 1


@pytest.mark.parametrize(
    ("code", "retryable"),
    [
        ("server_error", True),
        ("rate_limit_exceeded", True),
        ("context_length_exceeded", False),
        ("insufficient_quota", False),
        ("invalid_prompt", False),
        ("param_not_supported", False),
        ("some_upstream_code", True),
    ],
)
def test_response_failed_is_failed_with_the_response_error(code: str, retryable: bool) -> None:
    failed = response_obj("failed", [], error={"code": code, "message": "it broke"})
    events = stream_events([message("msg_1", "partial")], terminal="response.failed", final=failed)
    lane, out = run(frames(events))
    assert lane.outcome is Outcome.FAILED
    assert lane.error is not None
    assert (lane.error.code, lane.error.message, lane.error.retryable) == (
        code,
        "it broke",
        retryable,
    )
    assert lane.error.status is None
    assert ends(out) == [StreamEnd(Outcome.FAILED, lane.error)]


def test_response_failed_without_an_error_object_is_still_failed() -> None:
    body = frames(
        [
            {"type": "response.created", "response": response_obj("in_progress", [])},
            {"type": "response.failed", "response": {"id": RESP_ID, "status": "failed"}},
        ]
    )
    lane, _ = run(body)
    assert lane.outcome is Outcome.FAILED and lane.error is not None and lane.error.retryable


ERROR_SHAPES = {
    "flat": {
        "type": "error",
        "code": "server_error",
        "message": "The server had an error",
        "param": None,
    },
    "nested": {
        "type": "error",
        "error": {
            "type": "server_error",
            "code": "server_error",
            "message": "The server had an error",
            "param": None,
        },
    },
}


def partial_stream() -> list[dict[str, Any]]:
    return stream_events([message("msg_1", "Some words before it broke")])[:6]


@pytest.mark.parametrize("shape", sorted(ERROR_SHAPES))
def test_an_error_event_fails_the_stream_at_once(shape: str) -> None:
    lane, events = run(frames([*partial_stream(), ERROR_SHAPES[shape]]))
    error_events = [e for e in events if isinstance(e, ResponseErrorEvent)]
    assert len(error_events) == 1
    (error_event,) = error_events
    assert (error_event.code, error_event.message) == ("server_error", "The server had an error")
    assert lane.outcome is Outcome.FAILED and lane.error == error_event.error
    assert lane.error.code == "server_error" and lane.error.retryable
    # the StreamEnd comes right after the error event, not at close()
    assert isinstance(events[events.index(error_event) + 1], StreamEnd)
    assert len(ends(events)) == 1


def test_the_nested_error_shape_without_type_or_event_line_is_an_error() -> None:
    body = (
        frames(partial_stream())
        + b'data: {"error": {"message": "boom", "code": "server_error"}}\n\n'
    )
    lane, _ = run(body)
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert lane.error.message == "boom"


@pytest.mark.parametrize("shape", sorted(ERROR_SHAPES))
@pytest.mark.parametrize("separately", [False, True])
def test_error_then_response_failed_is_one_failure(shape: str, separately: bool) -> None:
    failed_output = [message("msg_1", "Some words")]
    failed = response_obj("failed", failed_output, error={"code": "server_error", "message": "x"})
    head = frames([*partial_stream(), ERROR_SHAPES[shape]])
    tail = frames([{"type": "response.failed", "response": failed}], start=7)
    lane = ResponsesLane(strict=True)
    events = lane.feed(head + tail) if not separately else lane.feed(head) + lane.feed(tail)
    events += lane.close()
    assert len(ends(events)) == 1
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert lane.error.message == "The server had an error"  # the error event's, first
    assert lane.warnings == []
    # the response.failed payload still updated the snapshot
    assert lane.snapshot.status == "failed"
    assert lane.snapshot.to_api()["output"] == failed_output
    assert [e.type for e in typed(events)][-2:] == ["error", "response.failed"]


def test_the_bundled_error_capture_is_one_failure() -> None:
    lane, events = run(capture("responses_error.sse"))
    assert lane.outcome is Outcome.FAILED and lane.warnings == []
    assert lane.error is not None and lane.error.code == "stream_error"
    assert lane.snapshot.status == "failed" and len(ends(events)) == 1


def test_something_else_after_an_error_is_ignored_with_a_warning() -> None:
    body = frames(
        [
            *partial_stream(),
            ERROR_SHAPES["flat"],
            {
                "type": "response.output_text.delta",
                "item_id": "msg_1",
                "output_index": 0,
                "content_index": 0,
                "delta": "late",
            },
        ]
    )
    lane, events = run(body)
    assert codes(lane) == ["event_after_end"]
    assert "late" not in lane.snapshot.output_text
    assert len(ends(events)) == 1


def test_transport_ending_first_is_truncated_and_retryable() -> None:
    lane, events = run(capture("responses_truncated.sse"))
    assert lane.outcome is Outcome.TRUNCATED
    assert lane.error is not None and lane.error.retryable
    assert lane.error.code == "stream_truncated"
    assert ends(events) == [StreamEnd(Outcome.TRUNCATED, lane.error)]
    assert lane.snapshot.output_text.startswith("Here is the forecast")


def test_a_slow_start_failure_is_created_then_failed() -> None:
    lane, events = run(capture("responses_slow_start_failed.sse"))
    assert [e.type for e in typed(events)] == ["response.created", "response.failed"]
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert lane.error.code == "rate_limit_exceeded" and lane.error.retryable


# -- pre-stream errors (the base class reads them; checked here for this lane) ------------------

PRESTREAM = {
    400: ("invalid_request_error", "invalid_value", False),
    401: ("invalid_request_error", "invalid_api_key", False),
    403: ("permission_error", "unsupported_country_region_territory", False),
    404: ("invalid_request_error", "model_not_found", False),
    429: ("requests", "rate_limit_exceeded", True),
    500: ("server_error", "server_error", True),
    503: ("server_error", "service_unavailable", True),
}


def prestream_body(status: int, shape: str) -> bytes:
    error_type, code, _ = PRESTREAM[status]
    if shape == "text":
        return f"<html><body>{status} upstream unavailable</body></html>".encode()
    error = {
        "message": f"HTTP {status} from the API",
        "type": error_type,
        "param": None,
        "code": code,
    }
    if shape == "nested":
        return json.dumps({"error": error}).encode()
    return json.dumps({**error, "type": "error"}).encode()


@pytest.mark.parametrize("status", sorted(PRESTREAM))
@pytest.mark.parametrize("shape", ["nested", "flat", "text"])
def test_a_prestream_error_body_is_failed_with_its_status(status: int, shape: str) -> None:
    lane = ResponsesLane()
    lane.start(status, {"Content-Type": "application/json" if shape != "text" else "text/html"})
    assert lane.feed(prestream_body(status, shape)) == []
    events = lane.close()
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert events == [StreamEnd(Outcome.FAILED, lane.error)]
    assert lane.error.status == status
    _, code, retryable = PRESTREAM[status]
    assert lane.error.retryable is retryable
    if shape == "text":
        assert lane.error.code is None and f"{status} upstream unavailable" in lane.error.message
    else:
        assert lane.error.code == code and lane.error.message == f"HTTP {status} from the API"
    assert lane.resume_plan() is None


def test_the_bundled_429_body() -> None:
    lane = ResponsesLane()
    lane.start(429, [("content-type", "application/json; charset=utf-8")])
    lane.feed(capture("responses_prestream_429.json"))
    lane.close()
    assert lane.error is not None
    assert (lane.error.code, lane.error.status, lane.error.retryable) == (
        "rate_limit_exceeded",
        429,
        True,
    )


# -- sequencing -----------------------------------------------------------------------------------


def test_a_sequence_gap_is_a_warning() -> None:
    events = stream_events([message("msg_1", "Hello world, how are you")])
    body = frames(events[:5]) + frames(events[6:], start=6)
    lane, _ = run(body)
    assert codes(lane) == ["sequence_gap"]
    assert "jumped from 4 to 6" in lane.warnings[0].message
    assert lane.outcome is Outcome.COMPLETED


def test_a_sequence_gap_is_a_protocol_error_when_strict() -> None:
    events = stream_events([message("msg_1", "Hello world, how are you")])
    lane = ResponsesLane(strict=True)
    lane.feed(frames(events[:5]))
    with pytest.raises(ProtocolError, match="sequence_number jumped"):
        lane.feed(frames(events[6:], start=6))
    assert lane.snapshot.item(0) is not None  # what came before stays


@pytest.mark.parametrize("strict", [False, True])
def test_a_repeated_sequence_number_is_dropped_as_a_duplicate(strict: bool) -> None:
    events = stream_events([message("msg_1", "Hello world, how are you")])
    body = frames(events[:6]) + frames(events[4:6], start=4) + frames(events[6:], start=6)
    lane, out = run(body, strict=strict)
    assert codes(lane) == ["duplicate_event", "duplicate_event"]
    assert lane.snapshot.output_text == "Hello world, how are you"
    assert [e.sequence_number for e in typed(out)] == list(range(len(events)))
    assert lane.outcome is Outcome.COMPLETED


def test_an_older_sequence_number_is_dropped_too() -> None:
    events = stream_events([message("msg_1", "Hello world")])
    body = frames(events[:6]) + frames(events[2:3], start=2) + frames(events[6:], start=6)
    lane, _ = run(body)
    assert codes(lane) == ["duplicate_event"]
    assert lane.last_sequence_number == len(events) - 1


def test_missing_sequence_numbers_are_tolerated_and_reported_once() -> None:
    lane, _ = run(frames(stream_events([message("msg_1", "Hello world")]), numbered=False))
    assert codes(lane) == ["missing_sequence_number"]
    assert lane.outcome is Outcome.COMPLETED
    assert lane.snapshot.output_text == "Hello world"


# -- item rules --------------------------------------------------------------------------------


def overlapping() -> bytes:
    """Item 1 is added while item 0 is still open."""
    first = stream_events([message("msg_1", "one"), message("msg_2", "two")])
    done0 = next(i for i, e in enumerate(first) if e["type"] == "response.output_item.done")
    added1 = next(
        i
        for i, e in enumerate(first)
        if e["type"] == "response.output_item.added" and e["output_index"] == 1
    )
    order = [*first[:done0], first[added1], *first[done0:added1], *first[added1 + 1 :]]
    return frames(order)


def test_an_item_opened_before_the_previous_one_is_done_is_a_warning() -> None:
    lane, _ = run(overlapping())
    assert "item_overlap" in codes(lane)
    assert lane.outcome is Outcome.COMPLETED
    assert lane.snapshot.output_text == "onetwo"


def test_an_item_overlap_is_a_protocol_error_when_strict() -> None:
    lane = ResponsesLane(strict=True)
    with pytest.raises(ProtocolError, match="before item #0 was done"):
        lane.feed(overlapping())


def test_text_for_an_item_already_done_is_a_violation() -> None:
    events = stream_events(TEXT_AND_TOOL[:2])
    late = {
        "type": "response.output_text.delta",
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": " reopened",
    }
    body = frames([*events[:-1], late, events[-1]])
    lane, _ = run(body)
    assert codes(lane) == ["item_reopened"]
    assert lane.snapshot.item(0).text == "Hello there, and a second part."  # type: ignore[union-attr]
    with pytest.raises(ProtocolError, match="after it was done"):
        run(body, strict=True)


def test_an_item_announced_after_its_done_keeps_its_final_form() -> None:
    events = stream_events([message("msg_1", "one")])
    added = next(e for e in events if e["type"] == "response.output_item.added")
    done = next(e for e in events if e["type"] == "response.output_item.done")
    moved = [e for e in events if e is not added]
    moved.insert(moved.index(done) + 1, added)
    lane, _ = run(frames(moved))
    assert "item_reopened" in codes(lane) and "duplicate_output_index" not in codes(lane)
    item = lane.snapshot.item(0)
    assert item is not None and item.done and item.item == done["item"]
    assert lane.snapshot.output_text == "one" and lane.outcome is Outcome.COMPLETED
    with pytest.raises(ProtocolError, match="after it was done"):
        run(frames(moved), strict=True)


HAIKU = "Logs flow through the gate;\nMetrics rise like steam,\ntraces find their way."


def test_content_for_an_unknown_item_opens_it_implicitly() -> None:
    # Kindo's documented example: no output_item.added, no indexes, no sequence numbers
    body = (
        b"event: response.created\n"
        b'data: {"id":"resp_abc123","status":"in_progress","object":"response"}\n\n'
        b"event: response.output_text.delta\n"
        b'data: {"item_id":"msg_xyz","delta":"Logs flow through"}\n\n'
        b"event: response.output_text.delta\n"
        b'data: {"item_id":"msg_xyz","delta":" the gate;\\nMetrics rise like steam"}\n\n'
        b"event: response.output_text.done\n"
        b'data: {"item_id":"msg_xyz","text":"Logs flow through the gate;\\nMetrics rise like '
        b'steam,\\ntraces find their way."}\n\n'
        b"event: response.completed\n"
        b'data: {"id":"resp_abc123","status":"completed","object":"response"}\n\n'
    )
    lane, _ = run(body)
    assert lane.outcome is Outcome.COMPLETED
    assert lane.snapshot.id == "resp_abc123"
    assert lane.snapshot.to_api() == {
        "id": "resp_abc123",
        "status": "completed",
        "object": "response",
        "output": [
            {
                "id": "msg_xyz",
                "type": "message",
                "role": "assistant",
                "content": [
                    {
                        "type": "output_text",
                        "annotations": [],
                        "text": HAIKU,
                    }
                ],
            }
        ],
    }
    assert codes(lane) == [
        "missing_sequence_number",
        "flat_response_payload",
        "unknown_item",
        "unfinished_items",
    ]


def test_a_second_added_event_for_an_index_is_a_violation() -> None:
    events = stream_events([message("msg_1", "one")])
    added = next(e for e in events if e["type"] == "response.output_item.added")
    body = frames([*events[:3], added, *events[3:]])
    lane, _ = run(body)
    assert "duplicate_output_index" in codes(lane)
    with pytest.raises(ProtocolError):
        run(body, strict=True)


# -- malformed payloads ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "field", "value"),
    [
        ("response.output_text.delta", "delta", 5),
        ("response.output_text.delta", "output_index", "zero"),
        ("response.output_text.delta", "content_index", [0]),
        ("response.output_item.added", "item", "not an object"),
        ("response.function_call_arguments.done", "arguments", {"a": 1}),
        ("response.created", "response", [1, 2]),
        ("response.content_part.added", "part", None),
        ("response.shell_call_output_content.done", "output", "text"),
        ("response.image_generation_call.partial_image", "partial_image_index", "1"),
    ],
)
def test_a_wrong_typed_field_passes_through_with_a_warning(
    kind: str, field: str, value: Any
) -> None:
    payload = {**payload_for(kind), field: value}
    lane = ResponsesLane()
    events = typed(lane.feed(sse(payload)))
    assert isinstance(events[0], ResponseUnknownEvent) and events[0].raw == payload
    assert codes(lane) == ["malformed_event"]
    assert lane.snapshot.items == []
    with pytest.raises(ProtocolError, match=field):
        ResponsesLane(strict=True).feed(sse(payload))


@pytest.mark.parametrize(("field", "value"), [("sequence_number", "7"), ("type", 12)])
def test_a_wrong_typed_number_or_type_is_tolerated_unless_strict(field: str, value: Any) -> None:
    payload = {**payload_for("response.created"), field: value}
    lane = ResponsesLane()
    events = typed(lane.feed(sse(payload, event="response.created")))
    assert isinstance(events[0], ResponseLifecycleEvent)  # typed by the event: line if need be
    assert codes(lane) == ["malformed_event"]
    with pytest.raises(ProtocolError, match=r"not an integer|not a string"):
        ResponsesLane(strict=True).feed(sse(payload, event="response.created"))


def test_a_strict_lane_does_not_raise_on_what_follows_an_error() -> None:
    odd = b'event: response.failed\ndata: {"type": 5, "response": {}}\n\n'
    lane = ResponsesLane(strict=True)
    lane.feed(frames([*partial_stream(), ERROR_SHAPES["flat"]]) + odd + b"data: {bad json\n\n")
    lane.close()
    assert lane.outcome is Outcome.FAILED and codes(lane) == ["event_after_end"]
    assert lane.warnings[0].count == 2


def test_a_terminal_event_with_a_malformed_response_still_ends_the_stream() -> None:
    lane, events = run(frames([{"type": "response.completed", "response": "done"}]))
    assert lane.outcome is Outcome.COMPLETED and "malformed_event" in codes(lane)
    assert len(ends(events)) == 1


def test_data_that_is_not_a_json_object_is_a_protocol_error() -> None:
    lane = ResponsesLane()
    lane.feed(frames(partial_stream()))
    with pytest.raises(ProtocolError, match="not an object"):
        lane.feed(b"event: response.output_text.delta\ndata: [1, 2]\n\n")
    assert lane.snapshot.output_text  # kept


def test_invalid_json_is_a_protocol_error_that_says_where() -> None:
    lane = ResponsesLane()
    with pytest.raises(ProtocolError, match="invalid JSON in SSE event #0"):
        lane.feed(b"event: response.created\ndata: {nope\n\n")


def test_a_done_sentinel_is_ignored() -> None:
    lane, _ = run(
        capture("responses_basic.sse").replace(
            b"event: response.completed", b"data: [DONE]\n\nevent: response.completed"
        )
    )
    assert lane.outcome is Outcome.COMPLETED and lane.warnings == []


def test_keepalive_comments_are_ignored() -> None:
    body = capture("responses_basic.sse").replace(b"\n\nevent:", b"\n\n: keepalive\n\nevent:")
    lane, events = run(body, strict=True)
    assert lane.outcome is Outcome.COMPLETED
    assert events == run(capture("responses_basic.sse"))[1]


def test_orjson_can_be_injected() -> None:
    orjson = pytest.importorskip("orjson")
    lane, events = run(capture("responses_kindo_agent.sse"), json_loads=orjson.loads)
    expected_lane, expected = run(capture("responses_kindo_agent.sse"))
    assert events == expected
    assert lane.snapshot.to_api() == expected_lane.snapshot.to_api()


def test_tool_item_events_are_typed() -> None:
    _, events = run(capture("responses_kindo_agent.sse"))
    by_type = {e.type: type(e).__name__ for e in typed(events)}
    assert by_type["response.kindo_call_arguments.delta"] == "ResponseCallDeltaEvent"
    assert by_type["response.custom_tool_call_input.done"] == "ResponseCustomToolInputDoneEvent"
    assert by_type["response.shell_call_command.delta"] == "ResponseShellCommandDeltaEvent"
    assert by_type["response.reasoning_summary_text.delta"] == "ResponseSummaryTextDeltaEvent"
    assert by_type["response.output_text.done"] == ResponseTextDoneEvent.__name__
    assert not any(isinstance(e, ResponseUnknownEvent) for e in events)


def test_reading_a_hosted_tool_item() -> None:
    item = tool_item(
        "web_search_call", "ws_1", status="completed", action={"type": "search", "query": "q"}
    )
    lane, _ = run(frames(stream_events([item, message("msg_1", "found it")])), strict=True)
    ws = lane.snapshot.item(0)
    assert ws is not None and ws.done and ws.type == "web_search_call" and ws.id == "ws_1"
    assert ws.progress == "completed" and ws.arguments is None and ws.text == ""
