"""The Responses lane's fast path: the delta events most of a stream is, each in one step.

Text, reasoning summary and tool-call input deltas are nearly every event of a
stream. For each of their types, :data:`FAST_HANDLERS` holds a handler that
takes the snapshot, the wire type, the payload, the sequence number and the
list the lane returns, and answers whether it handled the event. It handles
one only when every field has its usual type and the item it names is open at
its ``output_index`` (the part, for text, already there): it then does
exactly what the general handler in ``_items.py`` does for it. Anything else
it declines, having changed nothing, and the lane takes the general path,
which reports what is unusual. The lane calls it only for an event whose
``type`` is its ``event:`` line and whose ``sequence_number`` is the next one
(or absent, on a stream already reported for it).
``tests/responses/test_responses_fast_path.py`` proves that the two paths give
the same events, snapshot, warnings and verdict under any chunking.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any, Final

from sse_engine._event_build import slot_builder
from sse_engine.responses._events import (
    ResponseCallDeltaEvent,
    ResponseContentDeltaEvent,
    ResponseSummaryTextDeltaEvent,
)
from sse_engine.responses._snapshot import ResponseSnapshot
from sse_engine.responses._types import ResponsesEvent
from sse_engine.responses._wire import CALL_EVENTS, CONTENT_EVENTS

__all__ = ["FAST_HANDLERS", "FastHandler"]

# The events, built slot by slot (see sse_engine/_event_build.py): same objects, less cost.
_content_event = slot_builder(
    ResponseContentDeltaEvent, "type", "sequence_number", "item_id", "output_index",
    "content_index", "delta", "logprobs", "raw",
)
_summary_event = slot_builder(
    ResponseSummaryTextDeltaEvent, "type", "sequence_number", "item_id", "output_index",
    "summary_index", "delta", "raw",
)
_call_event = slot_builder(
    ResponseCallDeltaEvent, "type", "sequence_number", "item_id", "output_index", "delta", "raw"
)

# The fields each reads, in one call (a missing one declines the event).
_content_fields = itemgetter("output_index", "content_index", "delta", "item_id")
_summary_fields = itemgetter("output_index", "summary_index", "delta", "item_id")
_call_fields = itemgetter("output_index", "delta", "item_id")

#: ``(snapshot, type, payload, sequence_number, out, sink) -> handled``; ``sink``: the
#: lane's ``_text_sink`` when no event of the read came yet (a PartStream's read), which
#: takes a text, summary or call input delta instead of its event (a call's: unless it
#: says False), else None.
FastHandler = Callable[
    [ResponseSnapshot, str, dict[str, Any], int | None, list[ResponsesEvent],
     Callable[..., Any] | None],
    bool,
]


def _content_delta(
    snap: ResponseSnapshot, kind: str, payload: dict[str, Any], seq: int | None,
    out: list[ResponsesEvent], sink: Callable[..., Any] | None,
) -> bool:
    """``response.output_text.delta`` (and refusal, reasoning text) into an announced part."""
    try:
        index, content_index, delta, item_id = _content_fields(payload)
    except KeyError:  # the general path says which is missing
        return False
    logprobs = payload.get("logprobs")
    if (
        type(index) is not int or type(content_index) is not int or type(delta) is not str
        or type(item_id) is not str or (logprobs is not None and type(logprobs) is not list)
    ):
        return False
    state = snap._by_index.get(index)
    if state is None or state.done:
        return False
    part = state.parts.get(content_index)
    if part is None:
        return False
    part._append(delta)
    if sink is None:
        out.append(
            _content_event(kind, seq, item_id, index, content_index, delta, logprobs, payload)
        )
    else:
        sink(kind, index, content_index, delta, item_id)
    return True


def _summary_delta(
    snap: ResponseSnapshot, kind: str, payload: dict[str, Any], seq: int | None,
    out: list[ResponsesEvent], sink: Callable[..., Any] | None,
) -> bool:
    """``response.reasoning_summary_text.delta`` into an announced summary part."""
    try:
        index, summary_index, delta, item_id = _summary_fields(payload)
    except KeyError:
        return False
    if (
        type(index) is not int or type(summary_index) is not int or type(delta) is not str
        or type(item_id) is not str
    ):
        return False
    state = snap._by_index.get(index)
    if state is None or state.done:
        return False
    part = state.summary.get(summary_index)
    if part is None:
        return False
    part._append(delta)
    if sink is None:
        out.append(_summary_event(kind, seq, item_id, index, summary_index, delta, payload))
    else:
        sink(kind, index, summary_index, delta, item_id)
    return True


def _call_delta(
    snap: ResponseSnapshot, kind: str, payload: dict[str, Any], seq: int | None,
    out: list[ResponsesEvent], sink: Callable[..., Any] | None,
) -> bool:
    """A tool call's input fragment (``response.function_call_arguments.delta``, ...)."""
    try:
        index, delta, item_id = _call_fields(payload)
    except KeyError:
        return False
    if type(index) is not int or type(delta) is not str or type(item_id) is not str:
        return False
    state = snap._by_index.get(index)
    if state is None or state.done:
        return False
    state._call(CALL_EVENTS[kind].field)._append(delta)
    # The sink says False for a call it has not started: the event waits for its item.
    if sink is None or not sink(kind, index, 0, delta, item_id):
        out.append(_call_event(kind, seq, item_id, index, delta, payload))
    return True


#: The wire type -> its fast handler (the lane's general path handles every other type).
FAST_HANDLERS: Final[dict[str, FastHandler]] = {
    **{kind: _content_delta for kind in CONTENT_EVENTS if kind.endswith(".delta")},
    "response.reasoning_summary_text.delta": _summary_delta,
    **{kind: _call_delta for kind in CALL_EVENTS if kind.endswith(".delta")},
}
