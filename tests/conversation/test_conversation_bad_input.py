"""Bad request bodies: only InvalidRequest, naming the path; deep and huge bodies stay bounded.

Properties: any JSON value given as a body, and any valid body with one of
its values replaced by another JSON value (or a key removed), is read or
refused with :class:`InvalidRequest` and nothing else; a body that is read
can be written as every format without an exception; the path an error
names leads into the body. Nesting far past Python's recursion limit (tool
input, kept fields) is carried or named, never a ``RecursionError``.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from request_bodies import conversation_bodies, json_values
from sdk_oracle import REQUEST_FORMATS, validate

from sse_engine import Conversation, InvalidRequest, SSEEngineError, ToolCall

FUZZ = settings(
    max_examples=examples(5, thorough=300),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value, as the keys and indexes that lead to it."""
    out = [path]
    stack = [(value, path)]
    while stack:
        node, where = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(
            node, list) else ()
        for key, child in items:
            out.append((*where, key))
            stack.append((child, (*where, key)))
    return out


def _parent(body: Any, where: tuple[Any, ...]) -> Any:
    """The list or object that holds the place ``where`` (a path of ``_paths``) of ``body``."""
    for key in where[:-1]:
        body = body[key]
    return body


def _replaced(body: Any, where: tuple[Any, ...], value: Any) -> Any:
    """``body`` with the value at ``where`` replaced by ``value``: a new list or object at
    each step of the path, everything off it shared with ``body`` (a copy of the whole body
    for each place made these tests quadratic in its size)."""
    if not where:
        return value
    copied = list(body) if isinstance(body, list) else dict(body)
    copied[where[0]] = _replaced(body[where[0]], where[1:], value)
    return copied


@st.composite
def broken_bodies(draw: Any, format: str) -> dict[str, Any]:
    """A valid body of ``format`` with one value replaced (or one key removed)."""
    body: dict[str, Any] = copy.deepcopy(draw(conversation_bodies(format)))
    places = [p for p in _paths(body) if p]
    if not places:
        return body
    where = draw(st.sampled_from(places))
    parent = _parent(body, where)
    if isinstance(parent, dict) and draw(st.booleans()):
        del parent[where[-1]]
    else:
        parent[where[-1]] = draw(json_values)
    return body


def _leads_into(body: Any, path: str) -> bool:
    """Whether an error's path names a place in ``body`` (or a key missing from one)."""
    steps = re.findall(r"[^.\[\]]+|\[\d+\]", path)
    node = body
    for n, step in enumerate(steps):
        if step.startswith("["):
            index = int(step[1:-1])
            if not isinstance(node, list) or index >= len(node):
                return False
            node = node[index]
        elif isinstance(node, dict) and step in node:
            node = node[step]
        else:
            return n == len(steps) - 1 and isinstance(node, dict)  # the missing key itself
    return True


def _read_or_refuse(format: str, body: Any) -> Conversation | None:
    try:
        conversation = Conversation.from_body(format, body)
    except InvalidRequest as error:
        assert isinstance(error, SSEEngineError) and isinstance(error, ValueError)
        assert _leads_into(body, error.path), (error.path, str(error))
        assert error.error_body(format)  # the 400 body in the format's envelope
        return None
    for target in REQUEST_FORMATS:
        conversation.to_body(target, model="m")  # writing never raises
    return conversation


@pytest.mark.parametrize("format", REQUEST_FORMATS)
@FUZZ
@given(data=st.data())
def test_a_broken_body_is_read_or_refused_with_invalid_request_only(
    format: str, data: st.DataObject
) -> None:
    _read_or_refuse(format, data.draw(broken_bodies(format)))


@pytest.mark.parametrize("format", REQUEST_FORMATS)
@FUZZ
@given(value=json_values)
def test_any_json_value_is_read_or_refused_with_invalid_request_only(
    format: str, value: Any
) -> None:
    _read_or_refuse(format, value)


@pytest.mark.parametrize(
    ("format", "body", "path"),
    [
        ("chat", {"model": "m", "messages": [{"role": "user", "content": "a"}] * 3
                  + [{"role": "user", "content": [{"text": "x"}]}]},
         "messages[3].content[0].type"),
        ("chat", {"model": "m", "messages": [{"role": "robot", "content": "a"}]},
         "messages[0].role"),
        ("chat", {"model": "m"}, "messages"),
        ("chat", {"model": "m", "messages": {}}, "messages"),
        ("responses", {"input": [{"type": "function_call", "name": "f", "arguments": "{}"}]},
         "input[0].call_id"),
        ("responses", {"input": [{"type": "reasoning", "id": "rs", "summary": [{"text": 1}]}]},
         "input[0].summary[0].text"),
        ("messages", {"model": "m", "max_tokens": 5, "messages": [
            {"role": "user", "content": [{"type": "tool_result"}]}]},
         "messages[0].content[0].tool_use_id"),
        ("messages", {"model": "m", "max_tokens": 5, "messages": [], "system": [{"type": "image"}]},
         "system[0].type"),
        ("gemini", {"contents": [{"role": "user", "parts": [{"text": "a"}]}] * 3
                    + [{"role": "user", "parts": [{"functionCall": {"args": {}}}]}]},
         "contents[3].parts[0].functionCall.name"),
        ("gemini", {"contents": [{"role": "robot", "parts": []}]}, "contents[0].role"),
        ("gemini", {"contents": [], "systemInstruction": {"parts": [{"inlineData": {}}]}},
         "systemInstruction.parts[0]"),
        ("gemini", {}, "contents"),
        # Found by the broken-body property: a null inlineData was a KeyError.
        ("gemini", {"contents": [{"role": "user", "parts": [{"inlineData": None}]}]},
         "contents[0].parts[0].inlineData"),
    ],
)
def test_invalid_request_names_the_path(format: str, body: Any, path: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        Conversation.from_body(format, body)
    assert caught.value.path == path
    assert str(caught.value).startswith(f"{path}: ")


def test_the_error_body_is_each_apis_own_400() -> None:
    error = InvalidRequest("messages[3].content[0].type", "missing")
    openai = {"error": {"message": "messages[3].content[0].type: missing",
                        "type": "invalid_request_error", "param": "messages[3].content[0].type",
                        "code": None}}
    assert error.error_body("chat") == openai
    assert error.error_body("responses") == openai
    assert error.error_body("messages") == {
        "type": "error",
        "error": {"type": "invalid_request_error",
                  "message": "messages[3].content[0].type: missing"},
    }
    assert error.error_body("gemini") == {"error": {
        "code": 400, "message": "messages[3].content[0].type: missing",
        "status": "INVALID_ARGUMENT"}}
    assert error.error.status == 400 and not error.error.retryable


def test_an_unknown_format_is_a_usage_error_not_a_bad_body() -> None:
    with pytest.raises(ValueError, match="no request codec for format 'gopher'") as caught:
        Conversation.from_body("gopher", {})
    assert not isinstance(caught.value, InvalidRequest)


DEPTH = sys.getrecursionlimit() * 20


def _deep(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def test_deep_tool_input_is_carried_or_named_never_a_recursion_error() -> None:
    body = {"model": "m", "max_tokens": 5, "stream": True, "messages": [
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "f", "input": _deep(DEPTH)}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]},
    ]}
    conversation = Conversation.from_body("messages", body)
    assert conversation.to_body("messages", model="m").body["messages"] == body["messages"]
    for target in ("chat", "responses"):
        rendered = conversation.to_body(target, model="m")
        # Too deep for JSON text here: the call is named, and its result with it.
        assert "messages[0].content[0]" in rendered.dropped
        assert "messages[1].content[0]" in rendered.dropped


def test_deep_tool_arguments_text_is_read_without_recursion() -> None:
    text = "[" * DEPTH + "]" * DEPTH
    body = {"model": "m", "stream": True, "messages": [
        {"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": text}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]}
    conversation = Conversation.from_body("chat", body)
    call = conversation.messages[0].content[0]
    assert isinstance(call, ToolCall) and call.input is None and call.input_error
    assert conversation.to_body("chat", model="m").body["messages"] == body["messages"]
    rendered = conversation.to_body("messages", model="m")
    assert "messages[0].content[0].arguments" in rendered.dropped  # written as {}
    validate("messages", rendered.body)


def test_deep_kept_fields_go_back_as_they_came() -> None:
    deep = _deep(DEPTH)
    body = {"model": "m", "stream": True, "messages": [], "metadata_extra": deep,
            "tools": [{"type": "function", "function": {"name": "f", "parameters": deep}}]}
    conversation = Conversation.from_body("chat", body)
    written = conversation.to_body("chat", model="m").body
    assert written["metadata_extra"] is deep
    assert written["tools"][0]["function"]["parameters"] is deep
    assert json.dumps(["ok"])  # nothing above needed recursion of its own


@pytest.mark.parametrize("format", REQUEST_FORMATS)
@settings(max_examples=examples(5, thorough=40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(body=st.data())
def test_a_list_or_object_where_any_scalar_was_is_read_or_refused(
    format: str, body: st.DataObject
) -> None:
    """Every scalar of a valid body, in turn, replaced by a list and by an object: values a
    reader must not hash, look up in a table or compare as strings before it checks them
    (a ``tool_choice`` whose ``type`` was a list raised ``TypeError`` once)."""
    valid = body.draw(conversation_bodies(format))
    before = copy.deepcopy(valid)
    for where in _paths(valid):
        if not where or isinstance(_parent(valid, where)[where[-1]], dict | list):
            continue
        for unhashable in (list, dict):
            _read_or_refuse(format, _replaced(valid, where, unhashable()))
    assert valid == before  # what the broken bodies share with it was only read
