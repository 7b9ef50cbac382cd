"""The Responses vocabulary as data: what its words mean, in one place.

The wire types of its events (as ``Literal`` types, which the event classes
narrow their ``type`` to), how a response ends and the unified reason each
ending means, the output items that are tool calls and the field that holds
each one's input, the content parts and where their text goes, the usage
object read and written, what a stream of this format looks like
(``recognize``). The lane, its parts and its emitter all read these tables;
no other room spells a Responses wire string.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal, final, get_args

import attrs

from sse_engine._openai import openai_error
from sse_engine.parts import FinishReason, Usage, count_tokens

__all__ = [
    "CALL_EVENTS",
    "CALL_ITEMS",
    "CONTENT_EVENTS",
    "FINISH_REASONS",
    "INCOMPLETE_REASONS",
    "LIFECYCLE_TYPES",
    "PART_CHANNELS",
    "PATHS",
    "RESPONSES_EVENT_TYPES",
    "TERMINAL_TYPES",
    "UNFINISHED_STATUSES",
    "CallKind",
    "ResponsesEventType",
    "annotation_fields",
    "error_body",
    "recognize",
    "usage_from_wire",
    "usage_to_wire",
]

#: Where the API serves its streams (and, by id, resumes them).
PATHS: Final = ("/v1/responses",)

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

#: The events that say the response is being worked on, and the ones that end it.
LIFECYCLE_TYPES: Final[tuple[str, ...]] = get_args(LifecycleType)
TERMINAL_TYPES: Final[tuple[str, ...]] = get_args(TerminalType)

#: How a response ended -> the unified reason: the terminal status, or for
#: ``response.incomplete`` its ``incomplete_details.reason`` (any other is ``other``).
FINISH_REASONS: Final[Mapping[str, FinishReason]] = {
    "completed": "stop",
    "max_output_tokens": "length",
    "content_filter": "content_filter",
    "failed": "error",
}
#: The unified reasons that cut a turn short -> the ``incomplete_details.reason``
#: a relayed response ends with.
INCOMPLETE_REASONS: Final[Mapping[FinishReason, str]] = {
    "length": "max_output_tokens",
    "content_filter": "content_filter",
    "refusal": "content_filter",
}
#: The statuses of an item the response did not finish: a call in one gets no end.
UNFINISHED_STATUSES: Final = frozenset({"in_progress", "incomplete"})


@final
@attrs.frozen
class CallKind:
    """One kind of output item that is a tool call: where its input is, who runs it.

    ``field`` is the item field holding the input. ``events`` is the stem of
    its input events (``response.<events>.delta`` / ``.done``), None when the
    input does not stream: it is an object of the item (a shell ``action``, a
    patch ``operation``), whose JSON is the call's input. ``part``: it is a
    tool call of the turn (a ``ToolCall`` part); ``server``: the server runs
    it; ``plain``: its input is plain text, not JSON. ``name`` is the call's
    name when the item has none: the tool's type in the request (``shell``,
    ``apply_patch``). ``client_environments``: for an item the server runs
    unless its ``environment`` says otherwise (``shell_call``), the
    environment types the client runs it in (no environment: the client's
    too); any other is hosted, and makes no call. ``id_prefix`` is what a
    relay's item ids of this kind start with.
    """

    item: str
    field: str
    events: str | None
    part: bool = True
    server: bool = False
    plain: bool = False
    name: str = ""
    client_environments: frozenset[str] | None = None
    id_prefix: str = ""

    def is_call(self, item: Mapping[str, Any]) -> bool:
        """Whether ``item`` (of this kind) is a tool call of the turn."""
        if not self.part:
            return False
        environments = self.client_environments
        if environments is None:
            return True
        environment = item.get("environment")
        if environment is None:
            return True
        kind = environment.get("type") if type(environment) is dict else None
        return kind in environments


_CALLS: Final = (
    CallKind("function_call", "arguments", "function_call_arguments", id_prefix="fc"),
    CallKind("custom_tool_call", "input", "custom_tool_call_input", plain=True, id_prefix="ctc"),
    CallKind("mcp_call", "arguments", "mcp_call_arguments", server=True),
    CallKind("kindo_call", "arguments", "kindo_call_arguments", server=True),
    # A web search the server ran: its input is the item's action (the query), the
    # final item what came of it (the results are the text's annotations).
    CallKind("web_search_call", "action", None, server=True, name="web_search"),
    # Run by the client (the openai SDK's types: the local shell, a shell in a
    # local environment or none given, a patch to apply): their input is the
    # final item's object, not streamed.
    CallKind("local_shell_call", "action", None, name="local_shell"),
    CallKind(
        "shell_call", "action", None, name="shell", client_environments=frozenset({"local"})
    ),
    CallKind("apply_patch_call", "operation", None, name="apply_patch"),
    # Hosted: its code streams, but nothing for the client to run.
    CallKind("code_interpreter_call", "code", "code_interpreter_call_code", part=False),
)
#: Item type -> its kind, for every item that is a tool call or whose input streams.
CALL_ITEMS: Final[Mapping[str, CallKind]] = {kind.item: kind for kind in _CALLS}
#: Input event type (``.delta`` and ``.done``) -> the kind of item it is about.
CALL_EVENTS: Final[Mapping[str, CallKind]] = {
    f"response.{kind.events}.{end}": kind
    for kind in _CALLS
    if kind.events is not None
    for end in ("delta", "done")
}

#: Content event type -> (the item type it implies, the content part type it implies).
CONTENT_EVENTS: Final[Mapping[str, tuple[str, str]]] = {
    "response.output_text.delta": ("message", "output_text"),
    "response.output_text.done": ("message", "output_text"),
    "response.refusal.delta": ("message", "refusal"),
    "response.refusal.done": ("message", "refusal"),
    "response.reasoning_text.delta": ("reasoning", "reasoning_text"),
    "response.reasoning_text.done": ("reasoning", "reasoning_text"),
}
#: Content part type -> which text of the turn it is.
PART_CHANNELS: Final[Mapping[str, Literal["text", "refusal", "reasoning"]]] = {
    "output_text": "text",
    "refusal": "refusal",
    "reasoning_text": "reasoning",
    "summary_text": "reasoning",
}


def annotation_fields(annotation: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """A text part's annotation (a citation): its ``url`` and title, each None if it has none.

    A ``url_citation`` has a ``url`` and ``title``; a ``file_citation`` or
    ``container_file_citation`` a ``filename`` (its title here); a
    ``file_path`` neither.
    """
    url, title = annotation.get("url"), annotation.get("title")
    if title is None:
        title = annotation.get("filename")
    return url if type(url) is str else None, title if type(title) is str else None


def recognize(event: str, payload: Any) -> str | None:
    """A ``response.*`` event: by its ``event:`` line, else by its JSON ``type``."""
    if event.startswith("response."):
        return f"event: {event}"
    kind = payload.get("type") if type(payload) is dict else None
    if type(kind) is str and kind.startswith("response."):
        return f"JSON type {kind}"
    return None


def recognize_error(event: str, payload: Any) -> str | None:
    """Never: Responses errors have the OpenAI envelope Chat Completions shares."""
    return None


#: A failure as this API's error body (``{"error": {...}}``).
error_body = openai_error


def usage_from_wire(usage: Mapping[str, Any]) -> Usage:
    """A ``ResponseUsage`` object as :class:`~sse_engine.Usage`."""
    return Usage(
        input_tokens=count_tokens(usage, "input_tokens"),
        output_tokens=count_tokens(usage, "output_tokens"),
        total_tokens=count_tokens(usage, "total_tokens"),
        cached_input_tokens=count_tokens(usage, "input_tokens_details", "cached_tokens"),
        reasoning_tokens=count_tokens(usage, "output_tokens_details", "reasoning_tokens"),
        raw=usage,
    )


def usage_to_wire(usage: Usage) -> dict[str, Any]:
    """``usage`` as a ``ResponseUsage`` object."""
    inputs = usage.input_tokens or 0
    outputs = usage.output_tokens or 0
    return {
        "input_tokens": inputs,
        "input_tokens_details": {"cached_tokens": usage.cached_input_tokens or 0},
        "output_tokens": outputs,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens or 0},
        "total_tokens": usage.total_tokens if usage.total_tokens is not None else inputs + outputs,
    }
