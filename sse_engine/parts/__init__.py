"""Parts: one vocabulary over every lane, so code is written once for every provider.

A :class:`PartStream` wraps any lane and turns its events into parts
(:class:`TextDelta`, :class:`ReasoningDelta`, :class:`ToolCallStart`,
:class:`Finish`, ...); its ``turn`` is the assistant turn so far, in the same
shape for Chat Completions, Responses and Messages, with each tool call's
input readable while it streams and each block of reasoning kept with what
its provider needs to have it back (:class:`ReasoningBlock`).
The incremental JSON reader behind that live input is
:mod:`sse_engine.partial_json`. See ``docs/parts.md``.

For a format's folder (``sse_engine/<format>/_parts.py``): :class:`Translator`,
the base of its events-to-parts translator, with :data:`BASE_HANDLERS`, and
:func:`count_tokens` and :func:`new_usage` for its usage reader (:data:`UsageCounts`
for a format that reports usage in every chunk). For a relay, which takes usage
reports itself (``PartStream.write_text_with``): :data:`PendingUsage`, the form a
report may take until first read, and :func:`read_pending`, which makes it a Usage.
"""

from __future__ import annotations

from sse_engine._public import publish as _publish
from sse_engine.parts._parts import (
    Citation,
    Finish,
    MessageItemStart,
    Part,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    RefusalDelta,
    Restart,
    ServerToolResult,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
)
from sse_engine.parts._stream import PartStream
from sse_engine.parts._translator import BASE_HANDLERS, Translator
from sse_engine.parts._turn import ReasoningBlock, ToolCall, Turn
from sse_engine.parts._usage import (
    FINISH_REASONS,
    FinishReason,
    PendingUsage,
    Usage,
    UsageCounts,
    count_tokens,
    new_usage,
    read_pending,
)

__all__ = [
    "BASE_HANDLERS",
    "FINISH_REASONS",
    "Citation",
    "Finish",
    "FinishReason",
    "MessageItemStart",
    "Part",
    "PartStream",
    "PendingUsage",
    "ReasoningBlock",
    "ReasoningDelta",
    "ReasoningEnd",
    "ReasoningStart",
    "RefusalDelta",
    "Restart",
    "ServerToolResult",
    "TextDelta",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "Translator",
    "Turn",
    "Usage",
    "UsageCounts",
    "UsageUpdate",
    "count_tokens",
    "new_usage",
    "read_pending",
]

_publish(__name__)  # help() and pickles show this module, not the private ones
