"""The oracle first: the SDKs' param types, made strict, reject wrong bodies (and take right ones).

Every rendered body in these tests is validated by ``sdk_oracle.validate``;
that is worth something only if it fails on wrong shapes. The plain adapter
over the SDKs' TypedDicts does not (shown first), the strict one does.
"""

from __future__ import annotations

from typing import Any

import pytest
from openai.types.chat.completion_create_params import CompletionCreateParamsStreaming
from pydantic import TypeAdapter, ValidationError
from sdk_oracle import validate

USER = [{"role": "user", "content": "hi"}]
CHAT: dict[str, Any] = {"model": "m", "stream": True, "messages": USER}
RESPONSES: dict[str, Any] = {"model": "m", "stream": True, "input": "hi"}
MESSAGES: dict[str, Any] = {
    "model": "m", "stream": True, "max_tokens": 5, "messages": USER
}
GEMINI: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}


def test_the_plain_adapter_over_the_sdk_types_accepts_a_wrong_body() -> None:
    # Why the oracle is rebuilt: Iterable[...] validates lazily, so this passes.
    wrong = {**CHAT, "messages": [{"role": "nobody", "content": 7}]}
    TypeAdapter(CompletionCreateParamsStreaming).validate_python(wrong)


WRONG = [
    ("chat", {**CHAT, "messages": [{"role": "nobody", "content": "hi"}]}),
    ("chat", {**CHAT, "messages": [{"role": "user", "content": [{"type": "text"}]}]}),
    ("chat", {**CHAT, "messages": [{"role": "user"}]}),
    ("chat", {**CHAT, "messages": [{"role": "user", "content": "hi", "unknown": 1}]}),
    ("chat", {**CHAT, "max_tokens": "1"}),
    ("chat", {**CHAT, "stream": False}),
    ("chat", {"stream": True, "messages": []}),
    ("chat", {**CHAT, "tools": [{"type": "function", "function": {"description": "no name"}}]}),
    ("chat", {**CHAT, "messages": [{"role": "tool", "content": "x"}]}),
    ("responses", {**RESPONSES, "input": [{"type": "function_call", "call_id": "c", "name": "f"}]}),
    ("responses", {**RESPONSES, "input": [{"type": "reasoning", "summary": []}]}),
    ("responses", {**RESPONSES, "input": [{"role": "user", "content": [{"type": "text"}]}]}),
    ("responses", {**RESPONSES, "max_output_tokens": 1.5}),
    ("responses", {**RESPONSES, "tools": [{"type": "function"}]}),
    ("messages", {**MESSAGES, "messages": [
        {"role": "user", "content": [{"type": "thinking", "thinking": "x"}]}]}),
    ("messages", {**MESSAGES, "messages": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f"}]}]}),
    ("messages", {**MESSAGES, "max_tokens": None}),
    ("messages", {k: v for k, v in MESSAGES.items() if k != "max_tokens"}),
    ("messages", {**MESSAGES, "system": [{"type": "text"}]}),
    ("messages", {**MESSAGES, "thinking": {"type": "enabled"}}),
]
GEMINI_WRONG = [
    ("gemini", {}),
    ("gemini", {**GEMINI, "model": "m"}),
    ("gemini", {"contents": [{"role": "user", "parts": "hi"}]}),
    ("gemini", {"contents": [{"role": "user", "parts": [{"txt": "hi"}]}]}),
    ("gemini", {"contents": [{"role": "user", "parts": [{"text": 1}]}]}),
    ("gemini", {"contents": [{"role": "model", "parts": [{"functionCall": {"args": "{}"}}]}]}),
    ("gemini", {**GEMINI, "generationConfig": {"maxOutputTokens": "5"}}),
    ("gemini", {**GEMINI, "generationConfig": {"max_tokens": 5}}),
    ("gemini", {**GEMINI, "generationConfig": {"thinkingConfig": {"thinkingLevel": "LOUD"}}}),
    ("gemini", {**GEMINI, "toolConfig": {"functionCallingConfig": {"mode": "SOMETIMES"}}}),
    ("gemini", {**GEMINI, "tools": [{"functionDeclarations": [{"description": "no name",
                                                                 "parameters": 1}]}]}),
    ("gemini", {**GEMINI, "systemInstruction": "be brief"}),
]


def test_the_plain_gemini_types_accept_an_unknown_enum_value() -> None:
    # Why the Gemini oracle turns the SDK's warning into an error.
    from google.genai import types

    with pytest.warns(UserWarning, match="LOUD is not a valid"):
        types.ThinkingConfig.model_validate({"thinkingLevel": "LOUD"})


@pytest.mark.parametrize(("format", "body"), WRONG + GEMINI_WRONG)
def test_the_strict_oracle_rejects_a_wrong_body(format: str, body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError if format != "gemini" else ValueError):
        validate(format, body)


RIGHT = [
    ("chat", CHAT),
    ("chat", {**CHAT, "messages": [
        {"role": "developer", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "hi"},
                                     {"type": "image_url", "image_url": {"url": "https://x/y.png"}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]}),
    ("responses", RESPONSES),
    ("responses", {**RESPONSES, "input": [
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"},
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": "ok"},
    ]}),
    ("messages", MESSAGES),
    ("messages", {**MESSAGES, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "x", "signature": "sig"},
            {"type": "tool_use", "id": "t", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]},
    ]}),
    ("gemini", GEMINI),
    ("gemini", {
        "systemInstruction": {"parts": [{"text": "be brief"}]},
        "contents": [
            {"role": "user", "parts": [{"text": "hi"},
                                       {"inlineData": {"mimeType": "image/png", "data": "aGk="}}]},
            {"role": "model", "parts": [
                {"text": "x", "thought": True, "thoughtSignature": "c2ln"},
                {"functionCall": {"name": "f", "args": {"a": 1}}, "thoughtSignature": "c2ln"}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "f", "response": {"output": "ok"}}}]},
        ],
        "tools": [{"functionDeclarations": [{"name": "f", "parametersJsonSchema": {}}]},
                  {"googleSearch": {}}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["f"]}},
        "generationConfig": {"maxOutputTokens": 5, "temperature": 0.5, "topP": 1,
                             "stopSequences": ["x"], "responseMimeType": "application/json",
                             "responseJsonSchema": {"type": "object"},
                             "thinkingConfig": {"thinkingBudget": 64, "includeThoughts": True}},
    }),
]


@pytest.mark.parametrize(("format", "body"), RIGHT)
def test_the_strict_oracle_accepts_a_right_body(format: str, body: dict[str, Any]) -> None:
    validate(format, body)
