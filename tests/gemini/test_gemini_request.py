"""The Gemini request codec: bodies to Conversation and back.

Oracle: google-genai's pydantic types, strict (tests/sdk_oracle.py), validate
every body drawn (tests/gemini_bodies.py) and every body written.
"""

from __future__ import annotations

import base64
from importlib.resources import files
from typing import Any

import pytest
from gemini_bodies import gemini_bodies
from hypothesis import HealthCheck, given, settings
from hypothesis_budget import examples
from request_bodies import aside
from sdk_oracle import validate
from wire_turns import render, turn_specs

from sse_engine import Conversation, GeminiLane, Message, Text, Tool, ToolResult
from sse_engine.parts import PartStream, ReasoningBlock, ToolCall

ROUND_TRIP = settings(
    max_examples=examples(11, thorough=300),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SIG = base64.b64encode(b"sig").decode()


@ROUND_TRIP
@given(gemini_bodies())
def test_a_gemini_body_round_trips_exactly(body: dict[str, Any]) -> None:
    validate("gemini", body)
    rendered = Conversation.from_body("gemini", body).to_body("gemini", model="gemini-x")
    assert rendered.dropped == ()
    assert aside("gemini", rendered.body) == aside("gemini", body)
    validate("gemini", rendered.body)


def test_a_gemini_body_read() -> None:
    body = {
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "Weather?"}]},
            {"role": "model", "parts": [
                {"text": "Paris first.", "thought": True},
                {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                 "thoughtSignature": SIG}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"output": "18 °C"}}}]},
        ],
        "tools": [{"functionDeclarations": [{"name": "get_weather",
                                             "parametersJsonSchema": {"type": "object"}}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY",
                                                 "allowedFunctionNames": ["get_weather"]}},
        "generationConfig": {"maxOutputTokens": 100, "temperature": 0.5, "topK": 3,
                             "thinkingConfig": {"thinkingBudget": 64, "includeThoughts": True}},
    }
    conversation = Conversation.from_body("gemini", body)
    assert conversation.system == [Text("Be brief.")]
    assert conversation.tools == [Tool("get_weather", None, {"type": "object"}, format="gemini")]
    assistant = conversation.messages[1]
    assert assistant.role == "assistant"
    assert assistant.content[0] == ReasoningBlock("Paris first.")
    call = assistant.content[1]
    assert isinstance(call, ToolCall) and call.id == "call_1_1" and call.input == {"city": "Paris"}
    assert conversation.messages[2].content == [ToolResult("call_1_1", "18 °C")]
    settings = conversation.settings
    assert (settings.max_tokens, settings.temperature) == (100, 0.5)
    assert settings.reasoning is not None and settings.reasoning.budget_tokens == 64
    assert settings.tool_choice is not None and settings.tool_choice.name == "get_weather"
    assert settings.extra == {"gemini": {"generationConfig": {
        "topK": 3, "thinkingConfig": {"includeThoughts": True}}}}
    # Into Anthropic: the call and its result, not Gemini's thinking or its signature
    # (nor a temperature: the anthropic SDK's types have none).
    claude = conversation.to_body("messages", model="claude-x")
    assert claude.dropped == ("messages[1].content[0]", "messages[1].content[1].thoughtSignature",
                              "settings.temperature", "settings.extra.gemini.generationConfig")
    assert SIG not in str(claude.body)
    assert claude.body["messages"][1]["content"] == [
        {"type": "tool_use", "id": "call_1_1", "name": "get_weather", "input": {"city": "Paris"}}]
    assert claude.body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "call_1_1", "content": "18 °C"}]


def test_a_hidden_thoughts_signature_rides_on_its_text_part_again() -> None:
    body = {"contents": [
        {"role": "user", "parts": [{"text": "Hi"}]},
        {"role": "model", "parts": [{"text": "Hello.", "thoughtSignature": SIG}]},
    ]}
    conversation = Conversation.from_body("gemini", body)
    assert conversation.messages[1].content == [ReasoningBlock(), Text("Hello.")]
    assert conversation.to_body("gemini", model=None).body == body
    chat = conversation.to_body("chat", model="gpt-x")
    assert chat.dropped == ("messages[1].content[0]",)
    assert chat.body["messages"][1] == {"role": "assistant",
                                        "content": [{"type": "text", "text": "Hello."}]}


def test_another_formats_turn_into_gemini() -> None:
    conversation = Conversation([
        Message("system", [Text("Be brief.")]),
        Message("user", [Text("Weather?")]),
        Message("assistant", [ReasoningBlock("hm", signature="anthropic-sig"),
                              ToolCall("toolu_1", "get_weather", '{"city":"Paris"}', done=True)],
                format="messages"),
        Message("user", [ToolResult("toolu_1", "18 °C", is_error=True)]),
    ])
    rendered = conversation.to_body("gemini", model="gemini-x")
    assert rendered.dropped == ("messages[2].content[0]",)
    assert rendered.body == {
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "Weather?"}]},
            {"role": "model", "parts": [{"functionCall": {
                "name": "get_weather", "args": {"city": "Paris"}, "id": "toolu_1"}}]},
            {"role": "user", "parts": [{"functionResponse": {
                "name": "get_weather", "response": {"error": "18 °C"}, "id": "toolu_1"}}]},
        ],
    }
    validate("gemini", rendered.body)


GEMINI_CAPTURES = sorted(
    p.name for p in (files("sse_engine") / "captures").iterdir()
    if p.name.startswith("gemini_") and p.name.endswith(".sse")
)


def _appended(data: bytes) -> tuple[Any, dict[str, Any] | None]:
    stream = PartStream(GeminiLane())
    stream.feed(data)
    stream.close()
    conversation = Conversation([Message("user", [Text("Hi")])])
    conversation.append(stream.turn)
    rendered = conversation.to_body("gemini", model=None)
    validate("gemini", rendered.body)
    assert rendered.dropped == ()
    candidates = stream.lane.snapshot.to_api().get("candidates") or [{}]
    return rendered.body["contents"][1:], candidates[0].get("content")


@pytest.mark.parametrize("capture", GEMINI_CAPTURES)
def test_a_streamed_turn_goes_back_as_the_merged_response_has_it(capture: str) -> None:
    # Signatures on the parts they came on: the thought parts, the text after hidden
    # thinking, each function call.
    written, merged = _appended((files("sse_engine") / "captures" / capture).read_bytes())
    assert written == [{"role": "model", "parts": (merged or {}).get("parts", [])}]


@ROUND_TRIP
@given(turn_specs())
def test_any_streamed_gemini_turn_goes_back_as_its_parts(spec: Any) -> None:
    written, merged = _appended(render("gemini", spec))
    parts = (merged or {}).get("parts", [])
    if spec.ending in ("error", "truncated") and parts and parts[-1].get("thought"):
        parts = parts[:-1]  # thinking cut off by the end: no block, nothing to send back
    assert written == [{"role": "model", "parts": parts}]
