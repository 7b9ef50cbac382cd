"""The parts made for every delta, and the Finish, built without attrs' frozen ``__init__``.

A room of its own for the builder (``_builder.py``): each maker sets the part's slots
through their descriptors, the very same object attrs would make.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

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

__all__ = [
    "make_call_delta", "make_finish", "make_reasoning", "make_refusal", "make_text",
    "make_usage_update", "new", "set_call", "set_call_choice", "set_call_id", "set_call_index",
    "set_call_text", "set_choice", "set_reasoning_choice", "set_reasoning_text", "set_separator",
    "set_text",
]

P = TypeVar("P", TextDelta, ReasoningDelta, RefusalDelta)


# The parts made for every delta are built without attrs' frozen __init__ (which
# sets each field through object.__setattr__): straight through the slots. A
# third of the parts layer's cost per event, on a stream of small deltas.
def _text_maker(cls: type[P]) -> Callable[[str, int], P]:
    new = object.__new__
    set_text = cls.__dict__["text"].__set__
    set_choice = cls.__dict__["choice"].__set__
    flag = cls.__dict__.get("separator")
    if flag is None:

        def make(text: str, choice: int) -> P:
            part = new(cls)
            set_text(part, text)
            set_choice(part, choice)
            return part

        return make
    set_separator = flag.__set__

    def make_reasoning(text: str, choice: int) -> P:
        part = new(cls)
        set_text(part, text)
        set_choice(part, choice)
        set_separator(part, False)  # the model's text, never the blank line between pieces
        return part

    return make_reasoning


Setter = Callable[[Any, Any], None]


def _call_delta_setters() -> tuple[Setter, Setter, Setter, Setter, Setter]:
    """The slot setters of a ToolCallDelta: ``id``, ``text``, ``index``, ``choice``, ``call``."""
    # ``text`` is a property over its slot (it may hold a JSONText): set the slot itself.
    names = ("id", "text", "index", "choice", "call")
    descriptors = [ToolCallDelta.__dict__[name] for name in names]
    setters: list[Setter] = [
        d.fset if isinstance(d, property) and d.fset is not None else d.__set__
        for d in descriptors
    ]
    set_id, set_text, set_index, set_choice, set_call = setters
    return set_id, set_text, set_index, set_choice, set_call


new = object.__new__
set_call_id, set_call_text, set_call_index, set_call_choice, set_call = (
    _call_delta_setters()
)


def make_call_delta(id: str, text: str, index: int, choice: int, call: ToolCall) -> ToolCallDelta:
    part = new(ToolCallDelta)
    set_call_id(part, id)
    set_call_text(part, text)
    set_call_index(part, index)
    set_call_choice(part, choice)
    set_call(part, call)
    return part


make_text = _text_maker(TextDelta)
#: A Gemini stream reports (grown) usage in every chunk: its part is made slot by slot too.
make_usage_update: Callable[[Usage], UsageUpdate] = slot_builder(UsageUpdate, "usage")
make_reasoning = _text_maker(ReasoningDelta)
make_refusal = _text_maker(RefusalDelta)
#: Once per stream, but a short stream's parts cost is a few of these.
make_finish: Callable[[FinishReason, Outcome, StreamError | None, str | None], Finish] = (
    slot_builder(Finish, "reason", "outcome", "error", "raw_reason")
)
# The slot setters of a TextDelta and a ReasoningDelta, for the builder's inline copies
# of make_text and make_reasoning.
set_text = TextDelta.__dict__["text"].__set__
set_choice = TextDelta.__dict__["choice"].__set__
set_reasoning_text = ReasoningDelta.__dict__["text"].__set__
set_reasoning_choice = ReasoningDelta.__dict__["choice"].__set__
set_separator = ReasoningDelta.__dict__["separator"].__set__


