"""The Messages lane, one behaviour per test (SDK differential tests: test_messages_sdk.py)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import orjson
import pytest

from sse_engine import Outcome, ProtocolError, StreamEnd
from sse_engine.messages import (
    BlockStart,
    BlockStop,
    CitationDelta,
    InputJsonDelta,
    MessageDelta,
    MessageError,
    MessagesLane,
    MessageStart,
    MessageStop,
    OtherDelta,
    Ping,
    SignatureDelta,
    TextBlockDelta,
    ThinkingDelta,
    ToolUseStop,
    UnknownEvent,
)

# -- building streams ----------------------------------------------------------


def capture(name: str) -> bytes:
    return resources.files("sse_engine").joinpath("captures", name).read_bytes()


def frame(payload: Any, event: str | None = "", raw_data: str | None = None) -> bytes:
    """One SSE frame; ``event=""`` names it by the payload's type, None omits the line."""
    data = raw_data if raw_data is not None else json.dumps(payload, ensure_ascii=False)
    if event == "":
        event = payload["type"]
    head = "" if event is None else f"event: {event}\n"
    return f"{head}data: {data}\n\n".encode()


def message_start(usage: dict[str, Any] | None = None, **extra: Any) -> bytes:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage if usage is not None else {"input_tokens": 10, "output_tokens": 1},
        **extra,
    }
    return frame({"type": "message_start", "message": message})


def block_start(index: int, block: dict[str, Any]) -> bytes:
    return frame({"type": "content_block_start", "index": index, "content_block": block})


def delta(index: int, **d: Any) -> bytes:
    return frame({"type": "content_block_delta", "index": index, "delta": d})


def block_stop(index: int) -> bytes:
    return frame({"type": "content_block_stop", "index": index})


def message_delta(stop_reason: str | None = "end_turn", usage: Any = None, **d: Any) -> bytes:
    payload: dict[str, Any] = {
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": None, **d},
        "usage": usage if usage is not None else {"output_tokens": 5},
    }
    return frame(payload)


PING = frame({"type": "ping"})
MESSAGE_STOP = frame({"type": "message_stop"})
TEXT_START = block_start(0, {"type": "text", "text": ""})


def text_message(*pieces: str, stop_reason: str | None = "end_turn") -> bytes:
    body = message_start() + TEXT_START
    body += b"".join(delta(0, type="text_delta", text=p) for p in pieces)
    return body + block_stop(0) + message_delta(stop_reason) + MESSAGE_STOP


def tool_message(fragments: list[str], block_type: str = "tool_use") -> bytes:
    block = {"type": block_type, "id": "toolu_1", "name": "get_weather", "input": {}}
    body = message_start() + block_start(0, block)
    body += b"".join(delta(0, type="input_json_delta", partial_json=f) for f in fragments)
    return body + block_stop(0) + message_delta("tool_use") + MESSAGE_STOP


def run(body: bytes, **kwargs: Any) -> tuple[MessagesLane, list[Any]]:
    lane = MessagesLane(**kwargs)
    events = lane.feed(body)
    events += lane.close()
    return lane, events


def codes(lane: MessagesLane) -> list[str]:
    return [w.code for w in lane.warnings]


def of_type(events: list[Any], cls: type) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


# -- events ----------------------------------------------------------------------


def test_basic_capture_event_sequence() -> None:
    lane, events = run(capture("messages_basic.sse"))
    kinds = [type(e).__name__ for e in events]
    assert kinds[:3] == ["MessageStart", "Ping", "BlockStart"]
    assert kinds[-4:] == ["ToolUseStop", "MessageDelta", "MessageStop", "StreamEnd"]
    start = events[0]
    assert (start.id, start.model) == ("msg_01XFDUDYJgAACzvnptvVoYEL", "claude-sonnet-4-5-20250929")
    assert "".join(e.text for e in of_type(events, TextBlockDelta)) == (
        "I'll check the current weather in Zürich for you."
    )
    assert lane.outcome is Outcome.COMPLETED and lane.error is None
    assert lane.warnings == []


def test_events_keep_the_raw_payload() -> None:
    _, events = run(text_message("Hi"))
    text = of_type(events, TextBlockDelta)[0]
    assert text.raw == {"type": "content_block_delta", "index": 0,
                        "delta": {"type": "text_delta", "text": "Hi"}}
    assert of_type(events, MessageStart)[0].raw["message"]["id"] == "msg_1"


@pytest.mark.parametrize("pings", [0, 1, 5])
def test_pings_once_or_many_change_nothing(pings: int) -> None:
    body = message_start() + PING * pings + TEXT_START + PING * pings
    body += delta(0, type="text_delta", text="ok") + block_stop(0) + PING * pings
    body += message_delta() + MESSAGE_STOP
    lane, events = run(body)
    assert len(of_type(events, Ping)) == 3 * pings
    assert lane.snapshot.to_api() == run(text_message("ok"))[0].snapshot.to_api()
    assert lane.outcome is Outcome.COMPLETED


def test_ping_with_empty_data_is_a_ping() -> None:
    body = message_start() + b"event: ping\ndata:\n\n" + text_message("x")[len(message_start()):]
    lane, events = run(body)
    assert len(of_type(events, Ping)) == 1 and lane.warnings == []


def test_unknown_event_passes_through() -> None:
    odd = {"type": "content_block_annotation", "index": 0, "note": {"x": 1}}
    body = message_start() + frame(odd) + text_message("x")[len(message_start()):]
    lane, events = run(body)
    unknown = of_type(events, UnknownEvent)
    assert len(unknown) == 1 and unknown[0].type == "content_block_annotation"
    assert unknown[0].raw == odd
    assert lane.outcome is Outcome.COMPLETED and lane.warnings == []


def test_json_type_wins_over_a_disagreeing_event_line() -> None:
    body = message_start() + TEXT_START
    body += frame({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "text_delta", "text": "Hi"}}, event="message_stop")
    body += block_stop(0) + message_delta() + MESSAGE_STOP
    lane, events = run(body)
    assert [e.text for e in of_type(events, TextBlockDelta)] == ["Hi"]
    assert lane.snapshot.text == "Hi"
    assert codes(lane) == ["event_name_mismatch"]
    with pytest.raises(ProtocolError, match="JSON wins"):
        run(body, strict=True)


def test_data_only_frames_are_typed_by_json_type() -> None:
    frames = text_message("Hello", " there").split(b"\n\n")[:-1]
    body = b"".join(b"data:" + f.split(b"\ndata:", 1)[1] + b"\n\n" for f in frames)
    assert b"event:" not in body
    lane, _ = run(body)
    assert lane.snapshot.text == "Hello there"
    assert lane.outcome is Outcome.COMPLETED
    assert codes(lane) == ["data_only_frame"]  # once per stream, not per frame


def test_payload_without_type_is_typed_by_event_name() -> None:
    body = message_start() + TEXT_START
    body += frame({"index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
                  event="content_block_delta")
    body += block_stop(0) + message_delta() + MESSAGE_STOP
    lane, _ = run(body)
    assert lane.snapshot.text == "Hi"
    assert codes(lane) == ["missing_type"]


def test_done_sentinel_and_empty_data_are_skipped_with_warnings() -> None:
    body = message_start() + frame(None, event=None, raw_data="[DONE]")
    body += frame(None, event="content_block_delta", raw_data="")
    body += text_message("x")[len(message_start()):]
    lane, _ = run(body)
    assert lane.outcome is Outcome.COMPLETED
    assert codes(lane) == ["done_sentinel", "empty_data"]


def test_events_after_message_stop_are_ignored() -> None:
    lane, events = run(text_message("x") + PING + text_message("y"))
    assert lane.snapshot.text == "x"
    assert sum(isinstance(e, StreamEnd) for e in events) == 1
    assert set(codes(lane)) == {"event_after_end"}


# -- deltas ------------------------------------------------------------------------


def test_text_delta_accumulates() -> None:
    lane, events = run(text_message("Hel", "lo, ", "wörld"))
    assert [e.text for e in of_type(events, TextBlockDelta)] == ["Hel", "lo, ", "wörld"]
    assert all(e.index == 0 for e in of_type(events, TextBlockDelta))
    assert lane.snapshot.to_api()["content"] == [{"type": "text", "text": "Hello, wörld"}]


def test_input_json_delta_fragments_are_events_and_parse_at_stop() -> None:
    lane, events = run(tool_message(['{"city": "Zü', 'rich", "days": [1, ', "2]}"]))
    fragments = of_type(events, InputJsonDelta)
    assert [f.partial_json for f in fragments] == ['{"city": "Zü', 'rich", "days": [1, ', "2]}"]
    stop = of_type(events, ToolUseStop)[0]
    assert stop.input == {"city": "Zürich", "days": [1, 2]}
    assert lane.snapshot.to_api()["content"][0]["input"] == {"city": "Zürich", "days": [1, 2]}


THINKING = {"type": "thinking", "thinking": "", "signature": ""}


def test_thinking_delta_accumulates() -> None:
    body = message_start() + block_start(0, THINKING)
    body += delta(0, type="thinking_delta", thinking="Let me ") + delta(
        0, type="thinking_delta", thinking="think."
    )
    body += block_stop(0) + message_delta() + MESSAGE_STOP
    lane, events = run(body)
    assert [e.thinking for e in of_type(events, ThinkingDelta)] == ["Let me ", "think."]
    assert lane.snapshot.to_api()["content"][0]["thinking"] == "Let me think."


def test_signature_delta_replaces_rather_than_appends() -> None:
    body = message_start() + block_start(0, {**THINKING, "signature": "from-start"})
    body += delta(0, type="thinking_delta", thinking="hmm")
    body += delta(0, type="signature_delta", signature="sig-A")
    body += delta(0, type="signature_delta", signature="sig-B")
    body += block_stop(0) + message_delta() + MESSAGE_STOP
    lane, events = run(body)
    assert [e.signature for e in of_type(events, SignatureDelta)] == ["sig-A", "sig-B"]
    assert lane.snapshot.to_api()["content"][0]["signature"] == "sig-B"


CITATION = {
    "type": "char_location",
    "cited_text": "The grass is green.",
    "document_index": 0,
    "document_title": "Facts",
    "start_char_index": 0,
    "end_char_index": 20,
}


def test_citations_delta_appends_to_the_text_block() -> None:
    earlier = {**CITATION, "cited_text": "The sky is blue."}
    body = message_start() + block_start(0, {"type": "text", "text": "", "citations": [earlier]})
    body += delta(0, type="text_delta", text="Grass is green.")
    body += delta(0, type="citations_delta", citation=CITATION)
    body += block_stop(0) + message_delta() + MESSAGE_STOP
    lane, events = run(body)
    assert of_type(events, CitationDelta)[0].citation == CITATION
    block = lane.snapshot.to_api()["content"][0]
    assert block["citations"] == [earlier, CITATION]
    assert of_type(events, BlockStop)[0].block == block


def test_unknown_delta_type_passes_through_and_merges_its_fields_into_its_block() -> None:
    # Issue 11 item 16: nothing the server sent is lost; strings concatenate onto
    # the block's own (its start value first), other values replace, null is no change.
    odd = {"type": "sparkle_delta", "sparkle": 3, "note": "b", "gone": None}
    start = {"type": "text", "text": "", "note": "a"}
    body = message_start() + block_start(0, start) + delta(0, type="text_delta", text="x")
    body += frame({"type": "content_block_delta", "index": 0, "delta": odd})
    body += delta(0, type="sparkle_delta", sparkle=4, note="c", text="y")
    body += block_stop(0) + message_delta() + MESSAGE_STOP
    lane, events = run(body)
    other = of_type(events, OtherDelta)
    assert [e.delta_type for e in other] == ["sparkle_delta", "sparkle_delta"]
    assert other[0].delta == odd
    assert lane.snapshot.to_api()["content"] == [
        {"type": "text", "text": "xy", "note": "abc", "sparkle": 4}
    ]
    assert lane.warnings == []


def test_a_long_unknown_string_delta_is_joined_once() -> None:
    body = message_start() + block_start(0, {"type": "widget"})
    for _ in range(3000):
        body += delta(0, type="widget_delta", data="ab")
    body += block_stop(0) + message_delta() + MESSAGE_STOP
    lane, _ = run(body)
    assert lane.snapshot.to_api()["content"] == [{"type": "widget", "data": "ab" * 3000}]


def test_compaction_delta_sets_the_blocks_content_and_encrypted_content() -> None:
    start = {"type": "compaction", "content": None, "encrypted_content": None}
    body = message_start() + block_start(0, start)
    body += delta(0, type="compaction_delta", content="summary", encrypted_content="enc==")
    body += block_stop(0) + TEXT_START.replace(b'"index": 0', b'"index": 1')
    body += message_delta() + MESSAGE_STOP
    lane, events = run(body)
    block = lane.snapshot.to_api()["content"][0]
    assert block == {"type": "compaction", "content": "summary", "encrypted_content": "enc=="}
    assert [e.delta_type for e in of_type(events, OtherDelta)] == ["compaction_delta"]


def test_fallback_block_relabels_the_message_model() -> None:
    fallback = {"type": "fallback", "from": {"model": "claude-x"}, "to": {"model": "claude-y"},
                "trigger": {"type": "refusal"}}
    body = message_start() + block_start(0, fallback) + block_stop(0)
    body += block_start(1, {"type": "text", "text": ""}) + delta(1, type="text_delta", text="hi")
    body += block_stop(1) + message_delta() + MESSAGE_STOP
    lane, _ = run(body)
    message = lane.snapshot.to_api()
    assert message["model"] == "claude-y"
    assert message["content"][0] == fallback


def test_message_delta_keeps_the_fields_newer_api_versions_add() -> None:
    extra = frame({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                   "usage": {"output_tokens": 3}, "context_management": {"applied": []},
                   "input_transformations": None})
    body = message_start() + TEXT_START + delta(0, type="text_delta", text="a") + block_stop(0)
    body += extra + MESSAGE_STOP
    lane, _ = run(body)
    message = lane.snapshot.to_api()
    assert message["context_management"] == {"applied": []}
    assert "input_transformations" not in message


def test_delta_for_a_block_of_another_type_is_not_applied() -> None:
    body = message_start() + TEXT_START + delta(0, type="thinking_delta", thinking="secret")
    body += delta(0, type="text_delta", text="shown") + block_stop(0)
    body += message_delta() + MESSAGE_STOP
    lane, events = run(body)
    assert lane.snapshot.text == "shown"
    assert of_type(events, ThinkingDelta) == []
    assert [e.delta_type for e in of_type(events, OtherDelta)] == ["thinking_delta"]
    assert codes(lane) == ["delta_type_mismatch"]


# -- blocks ------------------------------------------------------------------------


def test_thinking_blocks_keep_their_order_and_signature_for_replay() -> None:
    lane, events = run(capture("messages_thinking.sse"))
    content = lane.snapshot.to_api()["content"]
    assert [b["type"] for b in content] == ["thinking", "redacted_thinking", "text"]
    assert content[0]["thinking"].startswith("Let me solve this step by step")
    assert content[0]["signature"].startswith("EqQBCgIYAhIM")
    assert content[1]["data"].startswith("EmwKAhgB")
    assert content[2]["text"] == "27 * 453 = **12,231**"
    stops = of_type(events, BlockStop)
    assert [s.block for s in stops] == content


def test_server_tool_use_and_result_blocks() -> None:
    lane, events = run(capture("messages_web_search.sse"))
    content = lane.snapshot.to_api()["content"]
    assert [b["type"] for b in content] == [
        "text", "server_tool_use", "web_search_tool_result", "text"
    ]
    server_stop = of_type(events, ToolUseStop)[0]
    assert server_stop.name == "web_search"
    assert server_stop.input == {"query": "claude shannon birth date"}
    result_start = [e for e in events if isinstance(e, BlockStart)][2]
    assert result_start.block_type == "web_search_tool_result"
    assert result_start.block["content"][0]["url"] == "https://en.wikipedia.org/wiki/Claude_Shannon"
    assert content[2] == result_start.block  # complete in content_block_start
    assert content[3]["citations"][0]["type"] == "web_search_result_location"
    assert lane.snapshot.usage["server_tool_use"] == {"web_search_requests": 1}


def test_mcp_tool_use_input_is_assembled_too() -> None:
    _, events = run(tool_message(['{"q": ', '"x"}'], block_type="mcp_tool_use"))
    assert of_type(events, ToolUseStop)[0].input == {"q": "x"}


def test_unknown_block_is_kept_as_it_came() -> None:
    odd = {"type": "hologram", "frames": [1, 2, 3], "meta": {"a": None}}
    body = message_start() + block_start(0, odd) + block_stop(0)
    body += block_start(1, {"type": "container_upload", "file_id": "file_1"}) + block_stop(1)
    body += message_delta() + MESSAGE_STOP
    lane, events = run(body)
    assert lane.snapshot.to_api()["content"] == [
        odd, {"type": "container_upload", "file_id": "file_1"}
    ]
    assert of_type(events, BlockStart)[0].block_type == "hologram"


def test_tool_input_is_parsed_on_the_block_stop_event_before_the_message_ends() -> None:
    lane = MessagesLane()
    body = capture("messages_basic.sse")
    cut = body.index(b"event: message_delta")
    events = lane.feed(body[:cut])
    assert lane.outcome is None
    stop = events[-1]
    assert isinstance(stop, ToolUseStop)
    assert (stop.id, stop.name) == ("toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather")
    assert stop.input == {"location": "Zürich, CH", "unit": "celsius"}
    assert stop.input_error is None
    assert stop.block["input"] == stop.input


def test_tool_input_that_never_completes_is_reported_not_partial() -> None:
    lane, events = run(tool_message(['{"city": "Zü', 'rich", "da']))
    stop = of_type(events, ToolUseStop)[0]
    assert stop.input is None
    assert stop.input_error is not None and "not valid JSON" in stop.input_error
    assert lane.snapshot.to_api()["content"][0]["input"] == {}  # the start value, not partial
    assert lane.snapshot.content[0].input_error == stop.input_error
    assert "tool_input_invalid" in codes(lane)


def test_tool_without_parameters_keeps_empty_input() -> None:
    lane, events = run(tool_message(["", ""]))
    assert of_type(events, ToolUseStop)[0].input == {}
    assert "tool_input_invalid" not in codes(lane)


def test_tool_input_complete_in_block_start_is_kept() -> None:
    block = {"type": "tool_use", "id": "t", "name": "f", "input": {"a": 1}}
    body = message_start() + block_start(0, block) + block_stop(0)
    body += message_delta("tool_use") + MESSAGE_STOP
    _, events = run(body)
    assert of_type(events, ToolUseStop)[0].input == {"a": 1}


# -- usage ---------------------------------------------------------------------------


def test_usage_from_message_delta_wins_over_message_start_zero() -> None:
    lane, events = run(capture("messages_gateway.sse"))
    assert of_type(events, MessageStart)[0].usage == {"input_tokens": 0, "output_tokens": 0}
    assert of_type(events, MessageDelta)[0].usage == {"input_tokens": 14, "output_tokens": 11}
    assert lane.snapshot.to_api()["usage"] == {"input_tokens": 14, "output_tokens": 11}


def test_usage_merge_keeps_start_fields_the_delta_does_not_report() -> None:
    start_usage = {"input_tokens": 100, "cache_read_input_tokens": 80, "output_tokens": 1,
                   "service_tier": "standard"}
    body = message_start(usage=start_usage) + TEXT_START + delta(0, type="text_delta", text="x")
    body += block_stop(0)
    body += message_delta(usage={"output_tokens": 40, "input_tokens": None,
                                 "output_tokens_details": {"thinking_tokens": 12}})
    body += MESSAGE_STOP
    lane, _ = run(body)
    assert lane.snapshot.usage == {"input_tokens": 100, "cache_read_input_tokens": 80,
                                   "output_tokens": 40, "service_tier": "standard",
                                   "output_tokens_details": {"thinking_tokens": 12}}


def test_later_usage_only_message_delta_keeps_the_stop_reason() -> None:
    body = message_start() + TEXT_START + delta(0, type="text_delta", text="x") + block_stop(0)
    body += message_delta("max_tokens", usage={"output_tokens": 3})
    body += frame({"type": "message_delta", "delta": {}, "usage": {"output_tokens": 4}})
    body += MESSAGE_STOP
    lane, _ = run(body)
    assert lane.snapshot.stop_reason == "max_tokens"
    assert lane.snapshot.usage["output_tokens"] == 4
    assert lane.outcome is Outcome.INCOMPLETE


# -- outcome -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stop_reason", "outcome"),
    [
        ("end_turn", Outcome.COMPLETED),
        ("tool_use", Outcome.COMPLETED),
        ("stop_sequence", Outcome.COMPLETED),
        ("pause_turn", Outcome.COMPLETED),
        ("max_tokens", Outcome.INCOMPLETE),
        ("refusal", Outcome.INCOMPLETE),
        ("model_context_window_exceeded", Outcome.INCOMPLETE),
    ],
)
def test_message_stop_outcome_by_stop_reason(stop_reason: str, outcome: Outcome) -> None:
    lane, events = run(text_message("x", stop_reason=stop_reason))
    assert lane.outcome is outcome and lane.error is None
    assert events[-1] == StreamEnd(outcome, None)
    assert of_type(events, MessageStop)[0].stop_reason == stop_reason
    assert lane.snapshot.to_api()["stop_reason"] == stop_reason
    assert lane.warnings == []


def test_stop_sequence_is_reported() -> None:
    body = text_message("x")
    body = body.replace(b'"stop_reason": "end_turn", "stop_sequence": null',
                        b'"stop_reason": "stop_sequence", "stop_sequence": "###"')
    lane, _ = run(body)
    assert (lane.snapshot.stop_reason, lane.snapshot.stop_sequence) == ("stop_sequence", "###")
    assert lane.outcome is Outcome.COMPLETED


def test_unknown_stop_reason_completes_with_a_warning() -> None:
    lane, _ = run(text_message("x", stop_reason="compaction"))
    assert lane.outcome is Outcome.COMPLETED
    assert codes(lane) == ["unknown_stop_reason"]


@pytest.mark.parametrize(
    ("error_type", "retryable"),
    [
        ("overloaded_error", True),
        ("api_error", True),
        ("rate_limit_error", True),
        ("timeout_error", True),
        ("invalid_request_error", False),
        ("authentication_error", False),
        ("permission_error", False),
        ("billing_error", False),
        ("not_found_error", False),
        ("some_new_error", True),
    ],
)
def test_error_event_fails_the_stream_retryable_per_type(error_type: str, retryable: bool) -> None:
    error = {"type": "error", "error": {"type": error_type, "message": "it broke"},
             "request_id": "req_1"}
    body = message_start() + TEXT_START + delta(0, type="text_delta", text="partial")
    body += frame(error)
    lane, events = run(body)
    assert lane.outcome is Outcome.FAILED
    assert lane.error is not None
    assert (lane.error.type, lane.error.message) == (error_type, "it broke")
    assert lane.error.retryable is retryable
    assert lane.error.status is None and lane.error.raw == error
    assert isinstance(events[-2], MessageError) and events[-2].error == lane.error
    assert events[-1] == StreamEnd(Outcome.FAILED, lane.error)
    assert lane.snapshot.text == "partial"  # what came before the failure is kept


def test_error_capture_is_an_overloaded_failure() -> None:
    lane, _ = run(capture("messages_error.sse"))
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert lane.error.type == "overloaded_error" and lane.error.retryable
    assert lane.snapshot.text == "Here is a summary of the report:"


def test_error_event_with_non_json_or_empty_data() -> None:
    lane, events = run(message_start() + frame(None, event="error", raw_data="upstream died"))
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert lane.error.message == "upstream died" and lane.error.retryable
    assert events[-2].raw == "upstream died"
    lane, _ = run(message_start() + frame(None, event="error", raw_data=""))
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert lane.error.retryable


def test_transport_end_before_message_stop_is_truncated() -> None:
    lane, events = run(capture("messages_truncated.sse"))
    assert lane.outcome is Outcome.TRUNCATED
    assert lane.error is not None and lane.error.code == "stream_truncated"
    assert lane.error.retryable
    assert "message_stop" in lane.error.message
    assert events[-1] == StreamEnd(Outcome.TRUNCATED, lane.error)
    tool = lane.snapshot.content[1]
    assert not tool.stopped and tool.input_error is not None
    assert lane.snapshot.to_api()["content"][1]["input"] == {}
    assert "tool_input_invalid" in codes(lane)


def test_message_delta_without_message_stop_is_still_truncated() -> None:
    body = text_message("x")
    lane, _ = run(body[: body.index(b"event: message_stop")])
    assert lane.outcome is Outcome.TRUNCATED
    assert lane.snapshot.stop_reason == "end_turn"


# -- sanity warnings -------------------------------------------------------------------


def test_message_stop_without_stop_reason_warns() -> None:
    lane, _ = run(text_message("partial answ", stop_reason=None))
    assert lane.outcome is Outcome.COMPLETED
    assert codes(lane) == ["missing_stop_reason"]


def test_empty_message_warns() -> None:
    body = message_start() + TEXT_START + block_stop(0) + message_delta() + MESSAGE_STOP
    lane, _ = run(body)
    assert lane.outcome is Outcome.COMPLETED
    assert codes(lane) == ["empty_message"]
    lane, _ = run(message_start() + message_delta() + MESSAGE_STOP)
    assert codes(lane) == ["empty_message"]


def test_tool_block_whose_json_did_not_parse_warns_even_if_completed() -> None:
    lane, _ = run(tool_message(['{"city": "Zür']))
    assert lane.outcome is Outcome.COMPLETED
    assert codes(lane) == ["tool_input_invalid"]
    assert "get_weather" in lane.warnings[0].message


# -- pre-stream errors ---------------------------------------------------------------


def anthropic_error(error_type: str, message: str = "nope") -> bytes:
    return json.dumps({"type": "error", "error": {"type": error_type, "message": message},
                       "request_id": "req_1"}).encode()


@pytest.mark.parametrize(
    ("status", "error_type", "retryable"),
    [
        (400, "invalid_request_error", False),
        (401, "authentication_error", False),
        (403, "permission_error", False),
        (404, "not_found_error", False),
        (413, "request_too_large", False),
        (429, "rate_limit_error", True),
        (500, "api_error", True),
        (529, "overloaded_error", True),
    ],
)
def test_prestream_json_error(status: int, error_type: str, retryable: bool) -> None:
    lane = MessagesLane()
    lane.start(status, {"content-type": "application/json"})
    body = anthropic_error(error_type)
    assert lane.feed(body[:7]) == [] and lane.feed(body[7:]) == []
    events = lane.close()
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert (lane.error.status, lane.error.type, lane.error.message) == (status, error_type, "nope")
    assert lane.error.retryable is retryable
    assert events == [StreamEnd(Outcome.FAILED, lane.error)]
    assert lane.snapshot.to_api()["content"] == []


@pytest.mark.parametrize(("status", "retryable"), [(502, True), (403, False)])
def test_prestream_non_json_body(status: int, retryable: bool) -> None:
    lane = MessagesLane()
    lane.start(status, {"content-type": "text/html"})
    lane.feed(b"<html><body><h1>Bad Gateway</h1></body></html>")
    lane.close()
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert lane.error.status == status and lane.error.retryable is retryable
    assert "Bad Gateway" in lane.error.message


# -- snapshot ----------------------------------------------------------------------------


def test_to_api_is_a_json_ready_message_object() -> None:
    lane, _ = run(capture("messages_basic.sse"))
    message = lane.snapshot.to_api()
    assert json.loads(json.dumps(message)) == message
    assert message == {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [
            {"type": "text", "text": "I'll check the current weather in Zürich for you."},
            {"type": "tool_use", "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "name": "get_weather",
             "input": {"location": "Zürich, CH", "unit": "celsius"}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "stop_details": None,
        "usage": {"input_tokens": 472, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 0, "output_tokens": 89,
                  "service_tier": "standard"},
    }


def test_snapshot_is_readable_mid_stream() -> None:
    lane = MessagesLane()
    body = text_message("Hello", " world")
    lane.feed(body[: body.index(b"event: content_block_stop")])
    assert lane.snapshot.text == "Hello world"
    assert lane.snapshot.to_api()["stop_reason"] is None
    assert lane.snapshot.id == "msg_1" and lane.snapshot.model == "claude-test"


def test_orjson_loads_gives_the_same_result() -> None:
    for name in ("messages_basic.sse", "messages_thinking.sse", "messages_web_search.sse"):
        a, ea = run(capture(name))
        b, eb = run(capture(name), json_loads=orjson.loads)
        assert ea == eb and a.snapshot.to_api() == b.snapshot.to_api()


# -- ordering rules and bad payloads ----------------------------------------------------


def test_events_before_message_start_are_tolerated() -> None:
    body = text_message("x")
    body = body[len(message_start()):]
    lane, _ = run(body)
    assert lane.snapshot.text == "x" and lane.outcome is Outcome.COMPLETED
    assert codes(lane) == ["missing_message_start"]
    assert lane.snapshot.to_api()["type"] == "message"
    with pytest.raises(ProtocolError, match="before message_start"):
        run(body, strict=True)


def test_delta_for_a_block_that_never_started_implies_it() -> None:
    body = message_start() + delta(0, type="text_delta", text="a")
    body += delta(0, type="text_delta", text="b") + block_stop(0) + message_delta() + MESSAGE_STOP
    lane, _ = run(body)
    assert lane.snapshot.to_api()["content"] == [{"type": "text", "text": "ab"}]
    assert codes(lane) == ["missing_block_start"]


def test_a_tool_block_without_a_name_stops_with_an_empty_name_and_a_warning() -> None:
    implied = message_start() + delta(0, type="input_json_delta", partial_json='{"a": 1}')
    implied += block_stop(0) + message_delta("tool_use") + MESSAGE_STOP
    lane, events = run(implied)
    (stop,) = of_type(events, ToolUseStop)
    assert (stop.id, stop.name, stop.input) == ("", "", {"a": 1})
    assert of_type(events, BlockStop) == []  # a tool block's stop is a ToolUseStop only
    assert codes(lane) == ["missing_block_start", "tool_call_without_name"]
    nameless = tool_message(["{}"]).replace(b', "name": "get_weather"', b"")
    lane, events = run(nameless)
    (stop,) = of_type(events, ToolUseStop)
    assert (stop.id, stop.name) == ("toolu_1", "")
    assert codes(lane) == ["tool_call_without_name"]
    strict, _ = run(nameless, strict=True)  # well formed: a warning, not an error
    assert codes(strict) == ["tool_call_without_name"]


def test_block_ordering_violations() -> None:
    body = message_start() + block_start(1, {"type": "text", "text": ""})
    body += delta(1, type="text_delta", text="a") + block_stop(1) + block_stop(1)
    body += delta(1, type="text_delta", text="b") + block_stop(7)
    body += delta(9, type="mystery_delta") + message_delta() + MESSAGE_STOP
    lane, _ = run(body)
    assert codes(lane) == ["block_index_mismatch", "block_already_stopped",
                           "block_already_stopped", "unknown_block_index",
                           "unknown_block_index"]
    assert lane.snapshot.text == "ab"


def test_duplicate_message_start_and_unclosed_block() -> None:
    body = message_start() + message_start() + TEXT_START + delta(0, type="text_delta", text="a")
    body += message_delta() + MESSAGE_STOP
    lane, _ = run(body)
    assert codes(lane) == ["duplicate_message_start", "unclosed_block"]
    assert lane.outcome is Outcome.COMPLETED


@pytest.mark.parametrize(
    "payload",
    [
        {"type": "content_block_delta", "index": "0", "delta": {"type": "text_delta", "text": "x"}},
        {"type": "content_block_delta", "index": 0, "delta": "text"},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 5}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "citations_delta", "citation": []}},
        {"type": "content_block_start", "index": 1, "content_block": None},
        {"type": "content_block_stop", "index": None},
        {"type": "message_start", "message": []},
        {"type": "message_delta", "delta": 3},
    ],
)
def test_wrong_shapes_raise_protocol_error_and_keep_the_snapshot(payload: dict[str, Any]) -> None:
    lane = MessagesLane()
    body = message_start() + TEXT_START + delta(0, type="text_delta", text="kept") + frame(payload)
    with pytest.raises(ProtocolError) as info:
        lane.feed(body)
    assert not isinstance(info.value.__cause__, KeyError | TypeError)
    assert lane.snapshot.text == "kept"
    assert lane.outcome is Outcome.FAILED


@pytest.mark.parametrize("data", ["{not json", "[1, 2]", '"text"'])
def test_undecodable_or_non_object_data_is_a_protocol_error(data: str) -> None:
    lane = MessagesLane()
    with pytest.raises(ProtocolError):
        lane.feed(message_start() + frame(None, event="content_block_delta", raw_data=data))


def test_odd_optional_fields_warn_and_do_not_crash() -> None:
    body = message_start(usage="lots") + TEXT_START + delta(0, type="text_delta", text="x")
    body += block_stop(0) + message_delta(stop_reason=None, usage=[1])
    body += frame({"type": "message_delta", "delta": {"stop_reason": 7}})
    body += block_start(1, {"kind": "untyped"}) + block_stop(1) + MESSAGE_STOP
    lane, _ = run(body)
    assert lane.outcome is Outcome.COMPLETED
    assert codes(lane).count("bad_field") == 4
    assert lane.snapshot.to_api()["content"][1] == {"kind": "untyped"}


@pytest.mark.parametrize(
    ("code", "body"),
    [
        ("duplicate_message_start", message_start() + message_start()),
        ("block_index_mismatch", message_start() + block_start(3, {"type": "text", "text": ""})),
        ("missing_block_start", message_start() + delta(0, type="text_delta", text="a")),
        ("unknown_block_index", message_start() + block_stop(0)),
        ("block_already_stopped", message_start() + TEXT_START + block_stop(0) + block_stop(0)),
        ("delta_type_mismatch", message_start() + TEXT_START
         + delta(0, type="signature_delta", signature="s")),
        ("unclosed_block", message_start() + TEXT_START + message_delta() + MESSAGE_STOP),
    ],
)
def test_ordering_violations_warn_or_raise_when_strict(code: str, body: bytes) -> None:
    lane, _ = run(body)
    assert code in codes(lane)
    strict = MessagesLane(strict=True)
    with pytest.raises(ProtocolError, match="strict mode"):
        strict.feed(body)
    assert strict.outcome is Outcome.FAILED


@pytest.mark.parametrize(
    ("name", "status", "error_type"),
    [("messages_prestream_429.json", 429, "rate_limit_error"),
     ("messages_prestream_529.json", 529, "overloaded_error")],
)
def test_prestream_captures(name: str, status: int, error_type: str) -> None:
    lane = MessagesLane()
    lane.start(status, [("Content-Type", "application/json")])
    lane.feed(capture(name))
    lane.close()
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert (lane.error.type, lane.error.status, lane.error.retryable) == (error_type, status, True)
