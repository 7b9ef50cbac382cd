"""The parts made for every delta, and the Finish, built without attrs' frozen ``__init__``.

A room of its own for the builder (``_builder.py``): each maker sets the part's slots
through their descriptors (:func:`~sse_engine._event_build.slot_builder`), the very
same object attrs would make. The slot setters are here too, for the builder's
inline copies on its hottest paths (a call is a sixth of a delta's part cost).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sse_engine._event_build import slot_builder
from sse_engine._outcome import Outcome, StreamError
from sse_engine.parts._parts import (
    Finish,
    FinishReason,
    ReasoningDelta,
    RefusalDelta,
    TextDelta,
    ToolCallDelta,
    Usage,
    UsageUpdate,
)
from sse_engine.parts._turn import ToolCall
from sse_engine.parts._usage import PendingUsage

__all__ = [
    "make_call_delta", "make_finish", "make_reasoning", "make_refusal", "make_text",
    "make_usage_update", "new", "set_call", "set_call_choice", "set_call_id", "set_call_index",
    "set_call_text", "set_choice", "set_reasoning_choice", "set_reasoning_text", "set_separator",
    "set_text",
]

Setter = Callable[[Any, Any], None]


def _setter(cls: type, name: str) -> Setter:
    descriptor = cls.__dict__[name]
    # A property over its slot (ToolCallDelta.text may hold a JSONText, UsageUpdate.usage
    # a PendingUsage): its setter.
    if isinstance(descriptor, property) and descriptor.fset is not None:
        return descriptor.fset
    setter: Setter = descriptor.__set__
    return setter


new = object.__new__
set_text = _setter(TextDelta, "text")
set_choice = _setter(TextDelta, "choice")
set_reasoning_text = _setter(ReasoningDelta, "text")
set_reasoning_choice = _setter(ReasoningDelta, "choice")
set_separator = _setter(ReasoningDelta, "separator")
set_call_id, set_call_text, set_call_index, set_call_choice, set_call = (
    _setter(ToolCallDelta, name) for name in ("id", "text", "index", "choice", "call")
)

make_text: Callable[[str, int], TextDelta] = slot_builder(TextDelta, "text", "choice")
make_refusal: Callable[[str, int], RefusalDelta] = slot_builder(RefusalDelta, "text", "choice")
_set_usage = _setter(UsageUpdate, "usage")


def make_usage_update(usage: Usage | PendingUsage) -> UsageUpdate:
    """``UsageUpdate(usage)``, slot by slot: a Gemini stream reports (grown) usage in every
    chunk. ``usage`` may be pending (the builder's ``usage_counts``), made when read."""
    part = new(UsageUpdate)
    _set_usage(part, usage)
    return part

#: Once per stream, but a short stream's parts cost is a few of these.
make_finish: Callable[[FinishReason, Outcome, StreamError | None, str | None], Finish] = (
    slot_builder(Finish, "reason", "outcome", "error", "raw_reason")
)


def make_reasoning(text: str, choice: int) -> ReasoningDelta:
    """The model's reasoning text, never the blank line between pieces (``separator``)."""
    part = new(ReasoningDelta)
    set_reasoning_text(part, text)
    set_reasoning_choice(part, choice)
    set_separator(part, False)
    return part


def make_call_delta(id: str, text: str, index: int, choice: int, call: ToolCall) -> ToolCallDelta:
    """``ToolCallDelta(id, text, index, choice, call=call)``, slot by slot."""
    part = new(ToolCallDelta)
    set_call_id(part, id)
    set_call_text(part, text)
    set_call_index(part, index)
    set_call_choice(part, choice)
    set_call(part, call)
    return part
