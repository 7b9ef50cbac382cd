"""conv.append(turn): a streamed turn goes back as its provider needs it, and only to it.

Turns are streamed in each lane's wire format (tests/reasoning_turns.py,
tests/wire_turns.py) and read with PartStream, as a client reads them.
Properties: written to the turn's own format, every finished block of
reasoning goes back in order with its replay data (Anthropic ``thinking``
with its signature and ``redacted_thinking`` before the text and tool calls;
Responses ``reasoning`` items with ``id`` and ``encrypted_content``), the
tool calls go back whole, and the body is valid for the SDK; written to any
other format, each block is named in ``dropped``, never sent.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from reasoning_turns import render as render_thinking
from reasoning_turns import thinking_turns
from sdk_oracle import ORACLES, validate
from wire_turns import read, render, turn_specs

from sse_engine import Conversation, Message, Text, Tool, ToolResult
from sse_engine.parts import ReasoningBlock, Turn

APPEND = settings(
    max_examples=examples(5, thorough=100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TOOLS = [Tool("get_weather", "The weather", {"type": "object"}),
         Tool("write_file", "Writes a file", {"type": "object"})]


def _conversation() -> Conversation:
    return Conversation([Message("user", [Text("Go.")])], tools=list(TOOLS))


def _turn(lane: str, data: bytes) -> Turn:
    _, stream = read(lane, data)
    return stream.turn


def _assistant(format: str, body: dict[str, Any]) -> list[Any]:
    """The written turn: Messages' assistant blocks, Responses' items after the user's."""
    if format == "messages":
        if len(body["messages"]) < 2:
            return []  # nothing of the turn could go
        content = body["messages"][1]["content"]
        return content if isinstance(content, list) else [{"type": "text", "text": content}]
    if format == "responses":
        return body["input"][1:]
    return body["messages"][1:2]


def _sendable(format: str, block: ReasoningBlock) -> bool:
    """Whether a block has what its provider needs to take it back (Chat: OpenRouter's
    ``reasoning_details``; plain reasoning text is not sent back, as DeepSeek asks)."""
    if format == "messages":
        return block.signature is not None or block.redacted is not None
    if format == "chat":
        return isinstance(block.raw, list)
    return block.id is not None


@pytest.mark.parametrize("lane", ORACLES)
@APPEND
@given(data=st.data())
def test_reasoning_goes_back_to_its_own_provider_in_order(lane: str, data: st.DataObject) -> None:
    spec = data.draw(thinking_turns(lane))
    turn = _turn(lane, render_thinking(spec))
    conversation = _conversation()
    conversation.append(turn)
    rendered = conversation.to_body(lane, model="m")
    written = _assistant(lane, rendered.body)
    blocks = turn.reasoning_blocks
    if lane == "messages":
        replay = [b for b in written if b["type"] in ("thinking", "redacted_thinking")]
        assert replay == [
            {"type": "redacted_thinking", "data": b.redacted} if b.redacted is not None
            else {"type": "thinking", "thinking": b.text, "signature": b.signature}
            for b in blocks if _sendable(lane, b)
        ]
        kinds = [b["type"] for b in written]
        assert kinds == sorted(kinds, key=lambda k: k not in ("thinking", "redacted_thinking"))
    elif lane == "responses":
        replay = [item for item in written if item.get("type") == "reasoning"]
        assert [(i["id"], i.get("encrypted_content")) for i in replay] == [
            (b.id, b.encrypted_content) for b in blocks]
        assert written[: len(replay)] == replay  # before the message they led to
    else:
        details = written[0].get("reasoning_details", []) if written else []
        assert details == [d for b in blocks if isinstance(b.raw, list) for d in b.raw]
        if written:
            written[0].pop("reasoning_details", None)  # OpenRouter's: not in the SDK's types
    unsent = [j for j, b in enumerate(blocks) if not _sendable(lane, b)]
    assert [f"messages[1].content[{j}]" for j in unsent] == [
        d for d in rendered.dropped if d.startswith("messages[1]")]
    validate(lane, rendered.body)
    for other in ORACLES:
        if other != lane:
            elsewhere = conversation.to_body(other, model="m")
            assert [f"messages[1].content[{j}]" for j in range(len(blocks))] == [
                d for d in elsewhere.dropped if d.startswith("messages[1].content")
                and d.count(".") == 1]
            validate(other, elsewhere.body)


@pytest.mark.parametrize("lane", ORACLES)
@APPEND
@given(spec=turn_specs())
def test_tool_calls_go_back_whole_with_their_results(lane: str, spec: Any) -> None:
    turn = _turn(lane, render(lane, spec))
    conversation = _conversation()
    conversation.append(turn)
    finished = [call for call in turn.tool_calls if call.done]
    for call in finished:
        conversation.add_tool_result(call.id, f"ran {call.name}")
    for target in ORACLES:
        rendered = conversation.to_body(target, model="m")
        validate(target, rendered.body)
        back = Conversation.from_body(target, rendered.body)
        calls = [p for m in back.messages for p in m.content if hasattr(p, "arguments")]
        assert [(c.id, c.name) for c in calls] == [(c.id, c.name) for c in finished]
        assert [json.loads(c.arguments) if c.arguments else c.input for c in calls] == [
            json.loads(c.arguments) for c in finished]
        results = [p for m in back.messages for p in m.content if isinstance(p, ToolResult)]
        assert [(r.call_id, r.content) for r in results] == [
            (c.id, f"ran {c.name}") for c in finished]


def _messages_turn() -> bytes:
    from sse_engine import encode_messages_event

    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 5, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "thinking_delta", "thinking": "Weather first."}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "signature_delta", "signature": "SIG-1"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1,
         "content_block": {"type": "redacted_thinking", "data": "RED-1"}},
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2,
         "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                           "input": {}}},
        {"type": "content_block_delta", "index": 2,
         "delta": {"type": "input_json_delta", "partial_json": '{"city": "Paris"}'}},
        {"type": "content_block_stop", "index": 2},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
         "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    ]
    return b"".join(encode_messages_event(e) for e in events)


def test_anthropic_gets_thinking_then_redacted_then_tool_use_and_the_result() -> None:
    conversation = _conversation()
    conversation.append(_turn("messages", _messages_turn()))
    conversation.add_tool_result("toolu_1", "18 °C")
    rendered = conversation.to_body("messages", model="claude-x")
    assert rendered.dropped == ()
    assert rendered.body["messages"][1:] == [
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Weather first.", "signature": "SIG-1"},
            {"type": "redacted_thinking", "data": "RED-1"},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
             "input": {"city": "Paris"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "18 °C"}]},
    ]
    validate("messages", rendered.body)
    chat = conversation.to_body("chat", model="gpt-x")
    assert chat.dropped == ("messages[1].content[0]", "messages[1].content[1]")
    assert chat.body["messages"][1:] == [
        {"role": "assistant", "tool_calls": [{"id": "toolu_1", "type": "function", "function": {
            "name": "get_weather", "arguments": '{"city": "Paris"}'}}]},  # as streamed
        {"role": "tool", "tool_call_id": "toolu_1", "content": "18 °C"},
    ]
    assert "SIG-1" not in json.dumps(chat.body) and "RED-1" not in json.dumps(chat.body)


def _responses_turn() -> bytes:
    from sse_engine import encode_responses_event

    reasoning = {"id": "rs_1", "type": "reasoning", "summary": [
        {"type": "summary_text", "text": "Weather first."}], "encrypted_content": "ENC-1"}
    call = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "get_weather",
            "arguments": '{"city":"Paris"}', "status": "completed"}
    response = {"id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-x",
                "status": "in_progress", "output": []}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0,
         "item": {**reasoning, "summary": [], "encrypted_content": None}},
        {"type": "response.output_item.done", "output_index": 0, "item": reasoning},
        {"type": "response.output_item.added", "output_index": 1,
         "item": {**call, "arguments": "", "status": "in_progress"}},
        {"type": "response.function_call_arguments.done", "output_index": 1, "item_id": "fc_1",
         "arguments": call["arguments"]},
        {"type": "response.output_item.done", "output_index": 1, "item": call},
        {"type": "response.completed",
         "response": {**response, "status": "completed", "output": [reasoning, call]}},
    ]
    return b"".join(encode_responses_event({**e, "sequence_number": n})
                    for n, e in enumerate(events))


@pytest.mark.parametrize("store", [None, False])
def test_responses_gets_the_reasoning_item_then_the_call(store: bool | None) -> None:
    conversation = _conversation()
    if store is not None:
        conversation.settings.extra["responses"] = {"store": store}
    conversation.append(_turn("responses", _responses_turn()))
    conversation.add_tool_result("call_1", "18 °C")
    rendered = conversation.to_body("responses", model="gpt-x")
    reasoning, call, output = rendered.body["input"][1:]
    assert reasoning == {"type": "reasoning", "id": "rs_1", "summary": [
        {"type": "summary_text", "text": "Weather first."}], "encrypted_content": "ENC-1"}
    expected = {"type": "function_call", "call_id": "call_1", "name": "get_weather",
                "arguments": '{"city":"Paris"}'}
    if store is False:  # the API keeps no items: an id it does not have is refused
        assert call == expected
        assert rendered.dropped == ("messages[1].content[1].item_id",)
    else:
        assert call == {**expected, "id": "fc_1"}
        assert rendered.dropped == ()
    assert output == {"type": "function_call_output", "call_id": "call_1", "output": "18 °C"}
    validate("responses", rendered.body)
    elsewhere = conversation.to_body("messages", model="claude-x")
    assert elsewhere.dropped[0] == "messages[1].content[0]"
    assert "ENC-1" not in json.dumps(elsewhere.body)


def test_results_of_one_turn_share_one_user_message_and_answer_known_calls() -> None:
    conversation = _conversation()
    conversation.append(_turn("messages", _messages_turn()))
    conversation.add_tool_result("toolu_1", "18 °C")
    conversation.add_tool_result("toolu_1", [Text("again")], is_error=True)
    assert conversation.messages[-1] == Message("user", [
        ToolResult("toolu_1", "18 °C"), ToolResult("toolu_1", [Text("again")], True)])
    with pytest.raises(ValueError, match="no assistant message has a tool call 'nope'"):
        conversation.add_tool_result("nope", "x")


def test_a_call_cut_off_is_not_sent_back() -> None:
    data = _messages_turn()
    cut = data[: data.index(b"content_block_stop", data.index(b"input_json_delta"))]
    _, stream = read("messages", cut)
    assert stream.turn.tool_calls and not stream.turn.tool_calls[0].done
    message = _conversation().append(stream.turn)
    assert not any(hasattr(piece, "arguments") for piece in message.content)
