"""A tool call's input both ways: JSON text (the OpenAI formats) and a value (Anthropic's).

Format-neutral: every codec that carries a call across formats needs one
from the other. Nothing here raises: input nested too deeply for Python's
``json`` (a recursion limit) or text that is not JSON comes back as None.
"""

from __future__ import annotations

import json
from typing import Any

from sse_engine.parts import ToolCall

__all__ = ["call_arguments", "call_input", "dumps", "parse_arguments"]


def dumps(value: Any) -> str | None:
    """``value`` as compact JSON text, or None when it cannot be written."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None


def parse_arguments(text: str) -> tuple[Any, str | None]:
    """A call's JSON text as ``(value, None)``, or ``(None, why)`` when it is not JSON.

    Empty text is ``{}``: a call without parameters, as the parts layer reads it.
    """
    if not text.strip():
        return {}, None
    try:
        return json.loads(text), None
    except (ValueError, RecursionError) as exc:
        return None, f"the tool input is not valid JSON ({type(exc).__name__}: {exc})"[:300]


def call_arguments(call: ToolCall) -> str | None:
    """The call's input as JSON text: its own text, else its value written as JSON.

    A plain-text call's input (an OpenAI custom tool's) is its text, whatever it is.
    """
    text = call.arguments
    if text or not call.done or call.plain:
        return text
    return dumps(call.input)


def call_input(call: ToolCall) -> Any:
    """The call's input as a value: its parsed value, else its text parsed (None: not JSON)."""
    if call.done and call.input is not None:
        return call.input
    return parse_arguments(call.arguments)[0]
