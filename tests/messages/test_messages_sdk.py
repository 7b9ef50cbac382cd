"""Differential tests: the Messages lane against the official ``anthropic`` SDK.

The SDK runs offline: ``anthropic.Stream`` over an in-memory response (the SDK
uses httpx2's Response) and ``MessageStream`` on top, as
``client.messages.stream()`` does; no request is sent. On the same bytes,
``lane.snapshot.to_api()`` must equal ``get_final_message().to_dict(mode="json")``.
Where the lane deliberately differs, the test says so and checks the difference.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import anthropic
import httpx2
import loopback
import pytest
from anthropic import Stream
from anthropic.lib.streaming import MessageStream
from anthropic.lib.streaming._beta_messages import BetaMessageStream
from anthropic.types import RawMessageStreamEvent
from anthropic.types.beta import BetaRawMessageStreamEvent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_messages import (
    MESSAGE_STOP,
    PING,
    TEXT_START,
    block_start,
    block_stop,
    capture,
    delta,
    frame,
    message_delta,
    message_start,
    text_message,
    tool_message,
)

from sse_engine import Outcome
from sse_engine.messages import MessagesLane

CLIENT = loopback.anthropic_client("https://example.invalid")  # never sends a request


def _response(body: bytes) -> httpx2.Response:
    return httpx2.Response(
        200,
        headers={"content-type": "text/event-stream"},
        content=body,
        request=httpx2.Request("POST", "https://example.invalid/v1/messages"),
    )


def sdk_stream(body: bytes, *, beta: bool = False) -> Any:
    if beta:
        raw: Any = Stream(
            cast_to=BetaRawMessageStreamEvent, response=_response(body), client=CLIENT
        )
        return BetaMessageStream(raw, output_format=anthropic.NOT_GIVEN)
    raw = Stream(cast_to=RawMessageStreamEvent, response=_response(body), client=CLIENT)
    return MessageStream(raw, output_format=anthropic.NOT_GIVEN)


def sdk_message(body: bytes, *, beta: bool = False) -> dict[str, Any]:
    message = sdk_stream(body, beta=beta).get_final_message()
    result: dict[str, Any] = message.to_dict(mode="json", warnings=False)
    return result


def lane_message(body: bytes) -> tuple[MessagesLane, dict[str, Any]]:
    lane = MessagesLane()
    lane.feed(body)
    lane.close()
    return lane, lane.snapshot.to_api()


@pytest.mark.parametrize(
    "name",
    [
        "messages_basic.sse",
        "messages_thinking.sse",
        "messages_web_search.sse",
        "messages_gateway.sse",
        "messages_max_tokens.sse",
    ],
)
def test_captures_equal_the_sdk_final_message(name: str) -> None:
    body = capture(name)
    lane, ours = lane_message(body)
    assert ours == sdk_message(body)
    assert lane.outcome in (Outcome.COMPLETED, Outcome.INCOMPLETE)


def test_pings_and_unknown_events_and_blocks_and_deltas_equal_the_sdk() -> None:
    odd_block = {"type": "hologram", "frames": [1, 2], "meta": {"a": None}}
    body = message_start() + PING + block_start(0, odd_block) + PING + block_stop(0)
    body += frame({"type": "content_block_annotation", "index": 0, "x": 1})
    body += block_start(1, {"type": "text", "text": "Pre"})
    body += delta(1, type="text_delta", text="fix")
    body += delta(1, type="sparkle_delta", sparkle=True) + PING + block_stop(1)
    body += block_start(2, {"type": "container_upload", "file_id": "file_1"}) + block_stop(2)
    body += message_delta() + PING + MESSAGE_STOP
    ours, sdk = lane_message(body)[1], sdk_message(body)
    # Deliberately different: the SDK drops a delta type it does not know; the
    # lane merges its fields into the block (issue 11 item 16).
    assert ours["content"][1].pop("sparkle") is True
    assert ours == sdk


def test_compaction_and_fallback_blocks_equal_the_beta_sdk() -> None:
    compaction = {"type": "compaction", "content": None, "encrypted_content": None}
    fallback = {"type": "fallback", "from": {"model": "claude-test"},
                "to": {"model": "claude-other"}, "trigger": {"type": "refusal"}}
    body = message_start() + block_start(0, compaction)
    body += delta(0, type="compaction_delta", content="sum", encrypted_content="e1")
    body += block_stop(0) + block_start(1, fallback) + block_stop(1)
    body += block_start(2, {"type": "text", "text": ""}) + delta(2, type="text_delta", text="a")
    body += block_stop(2) + message_delta() + MESSAGE_STOP
    ours, sdk = lane_message(body)[1], sdk_message(body, beta=True)
    assert ours["model"] == "claude-other"
    assert ours["content"][0]["encrypted_content"] == "e1"
    assert ours == {k: v for k, v in sdk.items() if k in ours}


def test_signature_replacement_and_citations_equal_the_sdk() -> None:
    thinking = {"type": "thinking", "thinking": "", "signature": ""}
    citation = {"type": "char_location", "cited_text": "x", "document_index": 0,
                "document_title": None, "start_char_index": 0, "end_char_index": 1}
    body = message_start() + block_start(0, thinking)
    body += delta(0, type="thinking_delta", thinking="a") + delta(0, type="signature_delta",
                                                                  signature="s1")
    body += delta(0, type="signature_delta", signature="s2") + block_stop(0)
    body += block_start(1, {"type": "text", "text": "", "citations": None})
    body += delta(1, type="text_delta", text="cited") + delta(1, type="citations_delta",
                                                             citation=citation)
    body += delta(1, type="citations_delta", citation={**citation, "cited_text": "y"})
    body += block_stop(1) + message_delta() + MESSAGE_STOP
    ours = lane_message(body)[1]
    assert ours == sdk_message(body)
    assert ours["content"][0]["signature"] == "s2"
    assert [c["cited_text"] for c in ours["content"][1]["citations"]] == ["x", "y"]


@pytest.mark.parametrize(
    "stop_reason",
    ["end_turn", "tool_use", "stop_sequence", "pause_turn", "max_tokens", "refusal",
     "model_context_window_exceeded", None],
)
def test_stop_reasons_equal_the_sdk(stop_reason: str | None) -> None:
    body = text_message("a", "b", stop_reason=stop_reason)
    assert lane_message(body)[1] == sdk_message(body)


def test_event_line_disagreeing_with_json_type_is_read_like_the_sdk() -> None:
    body = message_start() + TEXT_START
    body += frame({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "text_delta", "text": "Hi"}}, event="message_stop")
    body += block_stop(0) + message_delta() + MESSAGE_STOP
    assert lane_message(body)[1] == sdk_message(body)


def test_usage_merge_equals_the_sdk() -> None:
    body = message_start(usage={"input_tokens": 0, "output_tokens": 0,
                                "cache_read_input_tokens": 7, "service_tier": "standard"})
    body += TEXT_START + delta(0, type="text_delta", text="x") + block_stop(0)
    body += message_delta(usage={"input_tokens": 321, "output_tokens": 9,
                                 "cache_creation_input_tokens": None,
                                 "server_tool_use": {"web_search_requests": 2}})
    body += MESSAGE_STOP
    ours = lane_message(body)[1]
    assert ours == sdk_message(body)
    assert ours["usage"]["input_tokens"] == 321


def test_empty_message_equals_the_sdk_and_is_flagged() -> None:
    body = message_start() + TEXT_START + block_stop(0) + message_delta() + MESSAGE_STOP
    lane, ours = lane_message(body)
    assert ours == sdk_message(body)
    assert [w.code for w in lane.warnings] == ["empty_message"]


def test_mcp_tool_use_input_equals_the_beta_sdk() -> None:
    body = tool_message(['{"q": ', '"x", "n": [1, 2]}'], block_type="mcp_tool_use")
    ours = lane_message(body)[1]
    assert ours == sdk_message(body, beta=True)
    assert ours["content"][0]["input"] == {"q": "x", "n": [1, 2]}
    # The stable SDK does not track mcp_tool_use input (it stays {}); the lane
    # follows the beta SDK, which does.
    assert sdk_message(body)["content"][0]["input"] == {}


def test_error_event_matches_the_sdk_exception() -> None:
    body = capture("messages_error.sse")
    stream = sdk_stream(body)
    with pytest.raises(anthropic.APIStatusError) as info:
        stream.until_done()
    lane, ours = lane_message(body)
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert lane.error.type == info.value.type == "overloaded_error"
    assert lane.error.message == info.value.api_message == "Overloaded"
    assert lane.error.raw == info.value.body
    # What the SDK had assembled when it raised is what the lane keeps.
    assert ours == stream.current_message_snapshot.to_dict(mode="json", warnings=False)
    # Deliberate: the SDK's exception (status 200) does not say whether to
    # retry; the lane's error does, from the error type.
    assert lane.error.retryable is True


# -- deliberate differences ------------------------------------------------------------


def test_incomplete_tool_json_is_reported_where_the_sdk_returns_a_partial_dict() -> None:
    body = tool_message(['{"city": "Zürich", "da', 'ys": [1, 2'])
    lane, ours = lane_message(body)
    theirs = sdk_message(body)
    assert theirs["content"][0]["input"] == {"city": "Zürich", "days": [1, 2]}  # partial
    assert ours["content"][0]["input"] == {}  # the start value ...
    assert lane.snapshot.content[0].input_error is not None  # ... and the reason
    assert "tool_input_invalid" in [w.code for w in lane.warnings]
    theirs["content"][0]["input"] = {}
    assert ours == theirs  # everything else is the same


def test_truncation_is_detected_where_the_sdk_returns_a_partial_message() -> None:
    body = capture("messages_truncated.sse")
    lane, ours = lane_message(body)
    theirs = sdk_message(body)  # no error: a partial message with stop_reason None
    assert theirs["stop_reason"] is None
    assert lane.outcome is Outcome.TRUNCATED
    assert theirs["content"][1]["input"] == {"location": "Zürich, CH"}
    assert ours["content"][1]["input"] == {}
    theirs["content"][1]["input"] = {}
    assert ours == theirs


def test_data_only_frames_are_read_where_the_sdk_skips_them() -> None:
    text = b"data: " + json.dumps({"type": "content_block_delta", "index": 0,
                                   "delta": {"type": "text_delta", "text": " more"}}).encode()
    body = text_message("Some")
    cut = body.index(b"event: content_block_stop")
    body = body[:cut] + text + b"\n\n" + body[cut:]
    lane, ours = lane_message(body)
    theirs = sdk_message(body)
    assert theirs["content"][0]["text"] == "Some"
    assert ours["content"][0]["text"] == "Some more"
    assert [w.code for w in lane.warnings] == ["data_only_frame"]


def test_usage_only_message_delta_keeps_the_stop_reason_where_the_sdk_erases_it() -> None:
    body = text_message("x")
    cut = body.index(b"event: message_stop")
    later = frame({"type": "message_delta", "delta": {}, "usage": {"output_tokens": 9}})
    body = body[:cut] + later + body[cut:]
    lane, ours = lane_message(body)
    theirs = sdk_message(body)
    assert theirs["stop_reason"] is None and ours["stop_reason"] == "end_turn"
    assert lane.outcome is Outcome.COMPLETED
    theirs["stop_reason"] = "end_turn"
    assert ours == theirs


# -- random realistic streams ------------------------------------------------------------

_text = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
_json_value = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | _text
    | st.floats(allow_nan=False, allow_infinity=False, width=32),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def _fragments(draw: st.DrawFn, text: str) -> list[str]:
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=5)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


@st.composite
def _block(draw: st.DrawFn, index: int) -> bytes:
    kind = draw(st.sampled_from(["text", "thinking", "tool_use", "server_tool_use",
                                 "redacted_thinking", "web_search_tool_result"]))
    if kind == "text":
        out = block_start(index, {"type": "text", "text": ""})
        for piece in draw(st.lists(_text, max_size=4)):
            out += delta(index, type="text_delta", text=piece)
    elif kind == "thinking":
        out = block_start(index, {"type": "thinking", "thinking": "", "signature": ""})
        for piece in draw(st.lists(_text, max_size=4)):
            out += delta(index, type="thinking_delta", thinking=piece)
        for sig in draw(st.lists(st.text("abcXYZ+/=", min_size=1, max_size=8), max_size=2)):
            out += delta(index, type="signature_delta", signature=sig)
    elif kind in ("tool_use", "server_tool_use"):
        tool_input = draw(st.dictionaries(_text, _json_value, max_size=4))
        out = block_start(index, {"type": kind, "id": f"toolu_{index}", "name": "f", "input": {}})
        for piece in draw(_fragments(json.dumps(tool_input, ensure_ascii=False))):
            out += delta(index, type="input_json_delta", partial_json=piece)
    elif kind == "redacted_thinking":
        out = block_start(index, {"type": kind, "data": draw(_text)})
    else:
        out = block_start(index, {"type": kind, "tool_use_id": "srvtoolu_1", "content": [
            {"type": "web_search_result", "url": "https://a.example", "title": draw(_text),
             "encrypted_content": "E", "page_age": None}]})
    return out + (PING if draw(st.booleans()) else b"") + block_stop(index)


@st.composite
def realistic_stream(draw: st.DrawFn) -> bytes:
    usage = {"input_tokens": draw(st.sampled_from([0, 17])), "output_tokens": 1}
    body = message_start(usage=usage) + PING * draw(st.integers(0, 2))
    for index in range(draw(st.integers(0, 4))):
        body += draw(_block(index))
    end_usage: dict[str, Any] = {"output_tokens": draw(st.integers(0, 500))}
    if draw(st.booleans()):
        end_usage["input_tokens"] = draw(st.integers(1, 5000))
    stop = draw(st.sampled_from(["end_turn", "tool_use", "max_tokens", "refusal", "pause_turn"]))
    return body + message_delta(stop, usage=end_usage) + MESSAGE_STOP


@settings(
    max_examples=examples(9, thorough=100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(realistic_stream())
def test_random_realistic_streams_equal_the_sdk(body: bytes) -> None:
    lane, ours = lane_message(body)
    assert ours == sdk_message(body)
    assert lane.outcome in (Outcome.COMPLETED, Outcome.INCOMPLETE)
