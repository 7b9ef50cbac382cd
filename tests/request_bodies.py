"""Request bodies for the Conversation tests: generated from the SDKs' own types, and compared
with what the conversation layer promises to keep.

``bodies(format)`` draws streaming request bodies from the SDK's TypedDict
(rebuilt strict, as the oracle validates them: ``sdk_oracle``), so the
round-trip properties run over every shape the SDK accepts, not over shapes
we thought of. ``aside(format, body)`` removes what "equal" sets aside, as
``docs/conversation.md`` defines it; it is written here, from that
definition, not taken from the codecs.
"""

from __future__ import annotations

import functools
from typing import Any

from hypothesis import strategies as st
from sdk_oracle import strict_type

__all__ = ["CALL_IDS", "JSONValue", "aside", "bodies", "conversation_bodies", "json_values"]


class JSONValue:
    """Stands for ``object`` in the SDK types: any JSON value."""


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
st.register_type_strategy(JSONValue, json_values)


@functools.cache
def bodies(format: str) -> st.SearchStrategy[dict[str, Any]]:
    """Streaming request bodies of ``format``, as its SDK's types describe them."""
    return st.from_type(strict_type(format, JSONValue))


def _no_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _no_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_no_nulls(v) for v in value]
    return value


def _responses(body: dict[str, Any]) -> dict[str, Any]:
    items = body.get("input")
    if isinstance(items, str):
        body["input"] = items = [{"role": "user", "content": items}]
    if items == []:
        del body["input"]
    for item in body.get("input", ()):
        if item.get("type") == "message" and "id" not in item:
            del item["type"]
    return body


def _messages(body: dict[str, Any]) -> dict[str, Any]:
    for tool in body.get("tools", ()):
        if tool.get("type") == "custom":
            del tool["type"]
    for message in body.get("messages", ()):
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if block.get("type") == "tool_result":
                if block.get("is_error") is False:
                    del block["is_error"]
                if block.get("content") == []:
                    del block["content"]
    return body


_FORMAT_RULES = {"responses": _responses, "messages": _messages}


def aside(format: str, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with what the same-format round trip sets aside removed (a copy).

    Key order (dicts compare without it); a key whose value is null (the API
    reads it as not given); an empty ``tools`` list (no tools); and each
    format's explicit defaults: Responses' string ``input`` (one user
    message), an empty ``input``, ``"type": "message"`` on an input message
    without an ``id``; Messages'
    ``"is_error": false`` and ``"content": []`` on a tool result, ``"type":
    "custom"`` on a tool.
    """
    body = _no_nulls(body)
    if body.get("tools") == []:
        del body["tools"]
    rule = _FORMAT_RULES.get(format)
    return rule(body) if rule else body



# -- bodies that stress what translation carries --------------------------------------------
#
# Drawn from the SDK types as a whole, a Responses body rarely holds a function call: its
# input is a union of 35 kinds of item. These draw the input from the items a conversation
# is made of, and take tool call ids from a small pool so that calls and results pair up.

#: The ids tool calls and results are given, so that they answer each other.
CALL_IDS = ("call_1", "call_2", "toolu_3")


def _item_types(format: str) -> list[Any]:
    from anthropic.types import MessageParam
    from openai.types.chat import ChatCompletionMessageParam
    from openai.types.responses import (
        EasyInputMessageParam,
        ResponseCustomToolCallOutputParam,
        ResponseCustomToolCallParam,
        ResponseFunctionToolCallParam,
        ResponseOutputMessageParam,
        ResponseReasoningItemParam,
    )
    from openai.types.responses.response_input_param import FunctionCallOutput

    if format == "responses":
        return [EasyInputMessageParam, ResponseOutputMessageParam, ResponseFunctionToolCallParam,
                FunctionCallOutput, ResponseReasoningItemParam, ResponseCustomToolCallParam,
                ResponseCustomToolCallOutputParam]
    return [ChatCompletionMessageParam if format == "chat" else MessageParam]


@functools.cache
def _items(format: str) -> st.SearchStrategy[Any]:
    from sdk_oracle import _Strict

    strict = _Strict(JSONValue)
    return st.one_of([st.from_type(strict.rebuild(t)) for t in _item_types(format)])


_ID_KEYS = ("call_id", "tool_call_id", "tool_use_id")


def _pair_ids(value: Any, draw: Any) -> None:
    """Give every tool call and result in ``value`` an id from :data:`CALL_IDS`."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in _ID_KEYS:
                if type(node.get(key)) is str:
                    node[key] = draw(st.sampled_from(CALL_IDS))
            if type(node.get("id")) is str and (
                node.get("type") == "tool_use" or "function" in node or "custom" in node
            ):
                node["id"] = draw(st.sampled_from(CALL_IDS))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


@st.composite
def conversation_bodies(draw: Any, format: str) -> dict[str, Any]:
    """A body of ``format`` whose messages are tool loops: calls, results, reasoning, images."""
    if format == "gemini":
        from gemini_bodies import gemini_bodies

        return draw(gemini_bodies())  # type: ignore[no-any-return]
    body = draw(bodies(format))
    items = draw(st.lists(_items(format), max_size=8))
    body["input" if format == "responses" else "messages"] = items
    _pair_ids(items, draw)
    return body
