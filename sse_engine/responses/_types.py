"""The Responses lane's vocabulary of types: its wire types as ``Literal`` types, its event union.

Each event class in ``_events.py`` narrows its ``type`` field to one of the
``Literal`` types here (the wire types it carries); :data:`ResponsesEventType`
is all of them, :data:`RESPONSES_EVENT_TYPES` the same at run time, and
:data:`EVENT_TYPES` says which class carries which (the lane's dispatch table
holds exactly these types: ``tests/test_typing.py`` checks it).
:data:`ResponsesEvent` is the union of the event classes and the shared ends:
what the lane returns.
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias, get_args

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

__all__ = ["EVENT_TYPES", "RESPONSES_EVENT_TYPES", "ResponsesEvent", "ResponsesEventType"]

# The wire types of each event class: the Literal its ``type`` is narrowed to.
LifecycleType = Literal["response.created", "response.in_progress", "response.queued"]
TerminalType = Literal["response.completed", "response.incomplete", "response.failed"]
ErrorType = Literal["error"]
OutputItemType = Literal["response.output_item.added", "response.output_item.done"]
ItemStatusType = Literal[
    "response.code_interpreter_call.in_progress",
    "response.code_interpreter_call.interpreting",
    "response.code_interpreter_call.completed",
    "response.file_search_call.in_progress",
    "response.file_search_call.searching",
    "response.file_search_call.completed",
    "response.web_search_call.in_progress",
    "response.web_search_call.searching",
    "response.web_search_call.completed",
    "response.image_generation_call.in_progress",
    "response.image_generation_call.generating",
    "response.image_generation_call.completed",
    "response.mcp_call.in_progress",
    "response.mcp_call.completed",
    "response.mcp_call.failed",
    "response.mcp_list_tools.in_progress",
    "response.mcp_list_tools.completed",
    "response.mcp_list_tools.failed",
    "response.compaction.compacting",
]
CallDeltaType = Literal[
    "response.function_call_arguments.delta",
    "response.mcp_call_arguments.delta",
    "response.kindo_call_arguments.delta",
    "response.custom_tool_call_input.delta",
    "response.code_interpreter_call_code.delta",
]
ArgumentsDoneType = Literal[
    "response.function_call_arguments.done",
    "response.mcp_call_arguments.done",
    "response.kindo_call_arguments.done",
]
CustomToolInputDoneType = Literal["response.custom_tool_call_input.done"]
CodeDoneType = Literal["response.code_interpreter_call_code.done"]
PartialImageType = Literal["response.image_generation_call.partial_image"]
ContentPartType = Literal["response.content_part.added", "response.content_part.done"]
ContentDeltaType = Literal[
    "response.output_text.delta", "response.refusal.delta", "response.reasoning_text.delta"
]
TextDoneType = Literal["response.output_text.done", "response.reasoning_text.done"]
RefusalDoneType = Literal["response.refusal.done"]
AnnotationType = Literal["response.output_text.annotation.added"]
SummaryPartType = Literal[
    "response.reasoning_summary_part.added", "response.reasoning_summary_part.done"
]
SummaryTextDeltaType = Literal["response.reasoning_summary_text.delta"]
SummaryTextDoneType = Literal["response.reasoning_summary_text.done"]
ShellCommandType = Literal[
    "response.shell_call_command.added", "response.shell_call_command.done"
]
ShellCommandDeltaType = Literal["response.shell_call_command.delta"]
ShellOutputDeltaType = Literal["response.shell_call_output_content.delta"]
ShellOutputDoneType = Literal["response.shell_call_output_content.done"]
AudioType = Literal[
    "response.audio.delta",
    "response.audio.done",
    "response.audio.transcript.delta",
    "response.audio.transcript.done",
]

#: Every event type the lane interprets (``ResponseUnknownEvent`` carries any other).
ResponsesEventType = Literal[
    LifecycleType,
    TerminalType,
    ErrorType,
    OutputItemType,
    ItemStatusType,
    CallDeltaType,
    ArgumentsDoneType,
    CustomToolInputDoneType,
    CodeDoneType,
    PartialImageType,
    ContentPartType,
    ContentDeltaType,
    TextDoneType,
    RefusalDoneType,
    AnnotationType,
    SummaryPartType,
    SummaryTextDeltaType,
    SummaryTextDoneType,
    ShellCommandType,
    ShellCommandDeltaType,
    ShellOutputDeltaType,
    ShellOutputDoneType,
    AudioType,
]
#: The values of :data:`ResponsesEventType`, at run time.
RESPONSES_EVENT_TYPES: Final[frozenset[str]] = frozenset(get_args(ResponsesEventType))


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
