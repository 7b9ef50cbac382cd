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

__all__ = ["JSONValue", "aside", "bodies", "json_values"]


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

