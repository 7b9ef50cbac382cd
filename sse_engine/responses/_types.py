"""The Responses lane's event union, and which event class carries which wire types.

Each event class in ``_events.py`` narrows its ``type`` field to one of the
``Literal`` types of ``_wire.py`` (the wire types it carries);
:data:`EVENT_TYPES` says which class carries which (the lane's dispatch table
holds exactly these types: ``tests/test_typing.py`` checks it).
:data:`ResponsesEvent` is the union of the event classes and the shared ends:
what the lane returns.
"""

from __future__ import annotations

from typing import Final, TypeAlias, get_args

from sse_engine._lane_events import LaneEvent, StreamEnd, StreamRestarted
from sse_engine.responses._events import (
    ResponseAnnotationEvent,
    ResponseArgumentsDoneEvent,
    ResponseAudioEvent,
    ResponseCallDeltaEvent,
    ResponseCodeDoneEvent,
    ResponseContentDeltaEvent,
    ResponseContentPartEvent,
    ResponseCustomToolInputDoneEvent,
    ResponseErrorEvent,
    ResponseItemStatusEvent,
    ResponseLifecycleEvent,
    ResponseOutputItemEvent,
    ResponsePartialImageEvent,
    ResponseRefusalDoneEvent,
    ResponseShellCommandDeltaEvent,
    ResponseShellCommandEvent,
    ResponseShellOutputDeltaEvent,
    ResponseShellOutputDoneEvent,
    ResponseSummaryPartEvent,
    ResponseSummaryTextDeltaEvent,
    ResponseSummaryTextDoneEvent,
    ResponseTerminalEvent,
    ResponseTextDoneEvent,
    ResponseUnknownEvent,
)
from sse_engine.responses._wire import (
    AnnotationType,
    ArgumentsDoneType,
    AudioType,
    CallDeltaType,
    CodeDoneType,
    ContentDeltaType,
    ContentPartType,
    CustomToolInputDoneType,
    ErrorType,
    ItemStatusType,
    LifecycleType,
    OutputItemType,
    PartialImageType,
    RefusalDoneType,
    ShellCommandDeltaType,
    ShellCommandType,
    ShellOutputDeltaType,
    ShellOutputDoneType,
    SummaryPartType,
    SummaryTextDeltaType,
    SummaryTextDoneType,
    TerminalType,
    TextDoneType,
)

__all__ = ["EVENT_TYPES", "ResponsesEvent"]

#: Every event :class:`~sse_engine.ResponsesLane` emits: what its ``feed()``,
#: ``close()``, ``resume()`` and ``load()`` return. A union of ``@final``
#: classes, so ``mypy --strict --warn-unreachable`` flags an ``isinstance``
#: against another lane's class, and a ``match`` over it can be checked for
#: exhaustiveness.
ResponsesEvent: TypeAlias = (
    ResponseLifecycleEvent
    | ResponseTerminalEvent
    | ResponseErrorEvent
    | ResponseOutputItemEvent
    | ResponseItemStatusEvent
    | ResponseCallDeltaEvent
    | ResponseArgumentsDoneEvent
    | ResponseCustomToolInputDoneEvent
    | ResponseCodeDoneEvent
    | ResponsePartialImageEvent
    | ResponseContentPartEvent
    | ResponseContentDeltaEvent
    | ResponseTextDoneEvent
    | ResponseRefusalDoneEvent
    | ResponseAnnotationEvent
    | ResponseSummaryPartEvent
    | ResponseSummaryTextDeltaEvent
    | ResponseSummaryTextDoneEvent
    | ResponseShellCommandEvent
    | ResponseShellCommandDeltaEvent
    | ResponseShellOutputDeltaEvent
    | ResponseShellOutputDoneEvent
    | ResponseAudioEvent
    | ResponseUnknownEvent
    | StreamEnd
    | StreamRestarted
)

#: Each event class and the wire types it carries (the values of its ``type``'s
#: ``Literal``); every class but :class:`ResponseUnknownEvent`.
EVENT_TYPES: Final[dict[type[LaneEvent], tuple[str, ...]]] = {
    ResponseLifecycleEvent: get_args(LifecycleType),
    ResponseTerminalEvent: get_args(TerminalType),
    ResponseErrorEvent: get_args(ErrorType),
    ResponseOutputItemEvent: get_args(OutputItemType),
    ResponseItemStatusEvent: get_args(ItemStatusType),
    ResponseCallDeltaEvent: get_args(CallDeltaType),
    ResponseArgumentsDoneEvent: get_args(ArgumentsDoneType),
    ResponseCustomToolInputDoneEvent: get_args(CustomToolInputDoneType),
    ResponseCodeDoneEvent: get_args(CodeDoneType),
    ResponsePartialImageEvent: get_args(PartialImageType),
    ResponseContentPartEvent: get_args(ContentPartType),
    ResponseContentDeltaEvent: get_args(ContentDeltaType),
    ResponseTextDoneEvent: get_args(TextDoneType),
    ResponseRefusalDoneEvent: get_args(RefusalDoneType),
    ResponseAnnotationEvent: get_args(AnnotationType),
    ResponseSummaryPartEvent: get_args(SummaryPartType),
    ResponseSummaryTextDeltaEvent: get_args(SummaryTextDeltaType),
    ResponseSummaryTextDoneEvent: get_args(SummaryTextDoneType),
    ResponseShellCommandEvent: get_args(ShellCommandType),
    ResponseShellCommandDeltaEvent: get_args(ShellCommandDeltaType),
    ResponseShellOutputDeltaEvent: get_args(ShellOutputDeltaType),
    ResponseShellOutputDoneEvent: get_args(ShellOutputDoneType),
    ResponseAudioEvent: get_args(AudioType),
}
