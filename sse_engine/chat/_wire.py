"""The Chat Completions vocabulary as data: what its words mean, in one place.

Finish reasons and the unified reason (and outcome) each means, the usage
object read and written, the provider fields that carry reasoning, what a
stream of this format looks like (``recognize``) and its own error shape.
The lane, its parts and its emitter all read these tables; no other room
spells a Chat Completions wire string.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import attrs

from sse_engine._openai import OPENAI_ENDPOINT, openai_error
from sse_engine.parts import FinishReason, Usage, count_tokens

__all__ = [
    "ANNOTATIONS_KEY",
    "CHUNK_OBJECT",
    "COMPLETE_FINISH_REASONS",
    "DETAILS_KEY",
    "DONE",
    "DONE_FRAME",
    "ENDPOINT",
    "FINISH_REASONS",
    "INCOMPLETE_FINISH_REASONS",
    "PATHS",
    "REASONING_KEYS",
    "WIRE_REASONS",
    "error_body",
    "recognize",
    "recognize_error",
    "usage_from_wire",
    "usage_to_wire",
]

#: The ``object`` of every chunk.
CHUNK_OBJECT: Final = "chat.completion.chunk"
#: The data of the frame that ends a stream, and that frame.
DONE: Final = "[DONE]"
DONE_FRAME: Final = b"data: [DONE]\n\n"
#: Where the API serves its streams.
PATHS: Final = ("/v1/chat/completions",)

#: How the API is called: OpenAI's, and a streamed request asks for the usage chunk
#: (without ``include_usage`` a stream carries no usage at all).
ENDPOINT: Final = attrs.evolve(
    OPENAI_ENDPOINT, stream_fields=(("stream_options", {"include_usage": True}),)
)

#: ``finish_reason`` -> the unified reason (any other is ``other``).
FINISH_REASONS: Final[Mapping[str, FinishReason]] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
}
#: Finish reasons of a turn that ended normally.
COMPLETE_FINISH_REASONS: Final = frozenset({"stop", "tool_calls", "function_call"})
#: Finish reasons of a turn cut short: the outcome is INCOMPLETE.
INCOMPLETE_FINISH_REASONS: Final = frozenset({"length", "content_filter"})
#: The unified reason -> the ``finish_reason`` a relayed choice ends with.
WIRE_REASONS: Final[Mapping[FinishReason, str]] = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
    "refusal": "content_filter",
    "pause": "stop",
}

#: Delta fields that carry reasoning text, as providers name them (DeepSeek, Kimi
#: and vLLM ``reasoning_content``, OpenRouter ``reasoning``).
REASONING_KEYS: Final = frozenset({"reasoning_content", "reasoning"})
#: The delta field a relayed choice's reasoning goes in.
REASONING_FIELD: Final = "reasoning_content"
#: The delta field of OpenRouter's replay data for reasoning.
DETAILS_KEY: Final = "reasoning_details"
#: The delta field of the sources an answer cites (``url_citation`` entries).
ANNOTATIONS_KEY: Final = "annotations"


def recognize(event: str, payload: Any) -> str | None:
    """A ``chat.completion.chunk`` object, any object with a ``choices`` list, or the
    ``data: [DONE]`` sentinel (given as its text: it is not JSON).

    Only a stream's first telling event counts: gateways append ``[DONE]`` to
    other APIs' streams, whose earlier events tell first.
    """
    if type(payload) is not dict:
        return f"data: {DONE}" if payload == DONE else None
    if payload.get("object") == CHUNK_OBJECT:
        return f"object {CHUNK_OBJECT}"
    return "a choices list" if "choices" in payload else None


def recognize_error(event: str, payload: Any) -> str | None:
    """A data-only ``{"error": {...}}`` frame: only Chat Completions sends errors untyped.

    A JSON error body (``event == ""``) in that envelope could be Chat or
    Responses, so it names no format. An error object with a ``status`` word is
    Google's envelope (OpenAI's error object has none): not claimed.
    """
    if event != "message" or type(payload) is not dict or "type" in payload:
        return None
    inner = payload.get("error")
    if type(inner) is not dict or type(inner.get("status")) is str:
        return None
    return "a data-only error frame"


#: A failure as this API's error body (``{"error": {...}}``) and in-stream error frame.
error_body = openai_error


def usage_from_wire(usage: Mapping[str, Any]) -> Usage:
    """A ``CompletionUsage`` object as :class:`~sse_engine.Usage`."""
    return Usage(
        input_tokens=count_tokens(usage, "prompt_tokens"),
        output_tokens=count_tokens(usage, "completion_tokens"),
        total_tokens=count_tokens(usage, "total_tokens"),
        cached_input_tokens=count_tokens(usage, "prompt_tokens_details", "cached_tokens"),
        reasoning_tokens=count_tokens(usage, "completion_tokens_details", "reasoning_tokens"),
        raw=usage,
    )


def usage_to_wire(usage: Usage) -> dict[str, Any]:
    """``usage`` as a ``CompletionUsage`` object."""
    prompt = usage.input_tokens or 0
    completion = usage.output_tokens or 0
    total = usage.total_tokens if usage.total_tokens is not None else prompt + completion
    out: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": total,
    }
    if usage.cached_input_tokens is not None:
        out["prompt_tokens_details"] = {"cached_tokens": usage.cached_input_tokens}
    if usage.reasoning_tokens is not None:
        out["completion_tokens_details"] = {"reasoning_tokens": usage.reasoning_tokens}
    return out
