"""The Responses lane's typed events: one class per payload shape, keyed by ``type``.

The wire has some sixty event types but only a handful of shapes: three
lifecycle events carry a ``response`` object, a dozen item-status events carry
only ``item_id`` + ``output_index``, five kinds of tool call stream their input
as ``delta`` fragments, and so on. Each shape is one frozen class here, and
``type`` (always the wire type, e.g. ``"response.web_search_call.searching"``)
tells the members of a class apart. ``raw`` keeps the decoded JSON payload so
an encoder can re-emit the frame exactly; it takes no part in equality.

Typing: every concrete class is ``@final``; their union with ``StreamEnd``
and ``StreamRestarted``, ``ResponsesEvent``, is in ``_types.py``; the wire
types are ``Literal`` types in ``_wire.py``. ``type`` is one field, declared
once on the base as ``str``; each class narrows it, for type checkers only
(the ``if TYPE_CHECKING`` lines: a field redeclared at run time would move
to the end of the class's arguments), to the ``Literal`` of the wire types it
carries, and ``_types.EVENT_TYPES``
holds the same values at run time. So ``event.type == "response.output_txt.delta"``
on a :class:`ResponseContentDeltaEvent` is a ``comparison-overlap`` error under
``mypy --strict``. Only :class:`ResponseUnknownEvent` keeps ``type: str``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, final

import attrs

import sse_engine.responses._wire as wire  # the Literal each class narrows its type to
from sse_engine._lane_events import LaneEvent
from sse_engine._outcome import StreamError

__all__ = [
    "ResponseAnnotationEvent",
    "ResponseArgumentsDoneEvent",
    "ResponseAudioEvent",
    "ResponseCallDeltaEvent",
    "ResponseCodeDoneEvent",
    "ResponseContentDeltaEvent",
    "ResponseContentPartEvent",
    "ResponseCustomToolInputDoneEvent",
    "ResponseErrorEvent",
    "ResponseItemEvent",
    "ResponseItemStatusEvent",
    "ResponseLifecycleEvent",
    "ResponseOutputItemEvent",
    "ResponsePartialImageEvent",
    "ResponseRefusalDoneEvent",
    "ResponseShellCommandDeltaEvent",
    "ResponseShellCommandEvent",
    "ResponseShellOutputDeltaEvent",
    "ResponseShellOutputDoneEvent",
    "ResponseSummaryPartEvent",
    "ResponseSummaryTextDeltaEvent",
    "ResponseSummaryTextDoneEvent",
    "ResponseTerminalEvent",
    "ResponseTextDoneEvent",
    "ResponseUnknownEvent",
]



@attrs.frozen
class _ResponsesFrame(LaneEvent):
    """Base of every Responses event: the wire ``type`` and its ``sequence_number``.

    ``sequence_number`` is None only when the frame carried none (some
    gateways omit it: a ``missing_sequence_number`` warning) or one that is
    not an integer (a ``malformed_event`` warning). ``raw`` is the decoded
    JSON payload exactly as received.
    """

    many_types: ClassVar[bool] = True

    type: str
    sequence_number: int | None
    raw: dict[str, Any] = attrs.field(factory=dict, eq=False, repr=False, kw_only=True)


@final
@attrs.frozen
class ResponseUnknownEvent(_ResponsesFrame):
    """A frame this lane does not interpret, passed through with its ``raw`` payload.

    Either an event type the lane does not know (a newer API, a gateway's own
    extension), or a known type whose payload has the wrong shape (a
    ``malformed_event`` warning says which field). The snapshot is untouched.
    """


# -- the response object ------------------------------------------------------------


@attrs.frozen
class _ResponseObjectEvent(_ResponsesFrame):
    response: dict[str, Any]


@final
@attrs.frozen
class ResponseLifecycleEvent(_ResponseObjectEvent):
    """``response.created`` / ``response.in_progress`` / ``response.queued``.

    The response object as it stands (id, model, status ``queued`` or
    ``in_progress``). A UI shows "thinking..." or a queue position; the id is
    what a resume reconnects to.
    """

    if TYPE_CHECKING:
        type: wire.LifecycleType


@final
@attrs.frozen
class ResponseTerminalEvent(_ResponseObjectEvent):
    """``response.completed`` / ``response.incomplete`` / ``response.failed``: the verdict.

    ``response`` is the final response object (authoritative over everything
    streamed before it). A ``StreamEnd`` follows with the outcome.
    """

    if TYPE_CHECKING:
        type: wire.TerminalType

    @property
    def incomplete_reason(self) -> str | None:
        """``incomplete_details.reason`` (``max_output_tokens``, ``content_filter``) or None."""
        details = self.response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        return reason if isinstance(reason, str) else None


@final
@attrs.frozen
class ResponseErrorEvent(_ResponsesFrame):
    """An ``error`` event: the server reports a failure inside the stream.

    Both the flat ``{code, message, param}`` shape and the nested
    ``{"error": {...}}`` shape are read into the same fields (``code`` and
    ``param`` are None when the error had none); ``error`` is the
    :class:`StreamError` the lane's ``StreamEnd`` carries. Terminal: a
    ``response.failed`` right after it is the same failure.
    """

    if TYPE_CHECKING:
        type: wire.ErrorType

    code: str | None
    message: str
    param: str | None
    error: StreamError


# -- output items ----------------------------------------------------------------------


@final
@attrs.frozen
class ResponseOutputItemEvent(_ResponsesFrame):
    """``response.output_item.added`` / ``.done``: an output item opens or closes.

    ``item`` is the item object (``message``, ``function_call``, ``reasoning``,
    ``mcp_call``, ``kindo_call``, ``shell_call``, ``web_search_call``,
    ``custom_tool_call``, ...). On ``.done`` it is final: an agent runs the
    tool call in it, a UI freezes the message.
    """

    if TYPE_CHECKING:
        type: wire.OutputItemType

    output_index: int
    item: dict[str, Any]


@attrs.frozen
class ResponseItemEvent(_ResponsesFrame):
    """Base of the events about one output item: its ``item_id`` and ``output_index``.

    ``output_index`` is the item's place in ``response.output``: filled in from
    the item when the payload leaves it out (an event that names no known item
    and no index is a ``malformed_event``, passed on as
    :class:`ResponseUnknownEvent`). ``item_id`` is the payload's, else the
    item's; None when neither said one.
    """

    item_id: str | None
    output_index: int


@final
@attrs.frozen
class ResponseItemStatusEvent(ResponseItemEvent):
    """A hosted tool's progress: ``response.<tool>.in_progress/.searching/.completed/...``.

    Covers ``web_search_call``, ``file_search_call``, ``code_interpreter_call``,
    ``image_generation_call``, ``mcp_call``, ``mcp_list_tools`` and
    ``compaction``. A UI shows ``item_type`` + ``status`` ("web_search_call:
    searching"); the snapshot records it on the item as ``progress``.
    """

    if TYPE_CHECKING:
        type: wire.ItemStatusType

    @property
    def item_type(self) -> str:
        """The tool in the type: ``"web_search_call"`` for ``...web_search_call.searching``."""
        return self.type.split(".")[1]

    @property
    def status(self) -> str:
        """The last part of the type: ``"searching"``, ``"completed"``, ``"failed"``, ..."""
        return self.type.rsplit(".", 1)[1]


@final
@attrs.frozen
class ResponseCallDeltaEvent(ResponseItemEvent):
    """A fragment of a tool call's input, to append to what came before.

    ``response.function_call_arguments.delta``, ``response.mcp_call_arguments.delta``,
    ``response.kindo_call_arguments.delta`` (arguments JSON),
    ``response.custom_tool_call_input.delta`` (free-form input) and
    ``response.code_interpreter_call_code.delta`` (code). A UI streams the
    call's input as it is written; an agent waits for the ``.done`` event.
    """

    if TYPE_CHECKING:
        type: wire.CallDeltaType

    delta: str


@final
@attrs.frozen
class ResponseArgumentsDoneEvent(ResponseItemEvent):
    """``response.function_call_arguments.done`` / ``mcp_call_arguments.done`` /
    ``kindo_call_arguments.done``: the call's complete ``arguments`` JSON text."""

    if TYPE_CHECKING:
        type: wire.ArgumentsDoneType

    arguments: str


@final
@attrs.frozen
class ResponseCustomToolInputDoneEvent(ResponseItemEvent):
    """``response.custom_tool_call_input.done``: a custom tool call's complete ``input``."""

    if TYPE_CHECKING:
        type: wire.CustomToolInputDoneType

    input: str


@final
@attrs.frozen
class ResponseCodeDoneEvent(ResponseItemEvent):
    """``response.code_interpreter_call_code.done``: the complete ``code`` to run."""

    if TYPE_CHECKING:
        type: wire.CodeDoneType

    code: str


@final
@attrs.frozen
class ResponsePartialImageEvent(ResponseItemEvent):
    """``response.image_generation_call.partial_image``: a preview while an image renders.

    ``background``, ``output_format``, ``quality`` and ``size`` are None when
    the event did not say them.
    """

    if TYPE_CHECKING:
        type: wire.PartialImageType

    partial_image_b64: str
    partial_image_index: int
    background: str | None = None
    output_format: str | None = None
    quality: str | None = None
    size: str | None = None


# -- content parts of a message (and reasoning text) ------------------------------------------


@attrs.frozen
class _ContentEvent(ResponseItemEvent):
    content_index: int


@final
@attrs.frozen
class ResponseContentPartEvent(_ContentEvent):
    """``response.content_part.added`` / ``.done``: a message's content part opens or closes.

    ``part`` is ``{"type": "output_text", "text", "annotations"}`` or
    ``{"type": "refusal", "refusal"}`` (or a reasoning text part); final on ``.done``.
    """

    if TYPE_CHECKING:
        type: wire.ContentPartType

    part: dict[str, Any]


@final
@attrs.frozen
class ResponseContentDeltaEvent(_ContentEvent):
    """Text to append to a content part: what a chat UI prints as it arrives.

    ``response.output_text.delta`` (the answer; ``logprobs`` when requested),
    ``response.refusal.delta`` (a refusal's explanation) and
    ``response.reasoning_text.delta`` (raw reasoning text).
    """

    if TYPE_CHECKING:
        type: wire.ContentDeltaType

    delta: str
    logprobs: list[Any] | None = None


@final
@attrs.frozen
class ResponseTextDoneEvent(_ContentEvent):
    """``response.output_text.done`` / ``response.reasoning_text.done``: the part's full text.

    Authoritative: the snapshot takes this text over the joined deltas.
    """

    if TYPE_CHECKING:
        type: wire.TextDoneType

    text: str
    logprobs: list[Any] | None = None


@final
@attrs.frozen
class ResponseRefusalDoneEvent(_ContentEvent):
    """``response.refusal.done``: the full ``refusal`` text of a refusal part."""

    if TYPE_CHECKING:
        type: wire.RefusalDoneType

    refusal: str


@final
@attrs.frozen
class ResponseAnnotationEvent(_ContentEvent):
    """``response.output_text.annotation.added``: a citation (URL, file) on a text part."""

    if TYPE_CHECKING:
        type: wire.AnnotationType

    annotation_index: int
    annotation: Any


# -- reasoning summaries ------------------------------------------------------------------


@attrs.frozen
class _SummaryEvent(ResponseItemEvent):
    summary_index: int


@final
@attrs.frozen
class ResponseSummaryPartEvent(_SummaryEvent):
    """``response.reasoning_summary_part.added`` / ``.done``: a reasoning summary part.

    ``part`` is ``{"type": "summary_text", "text"}``; ``status`` is
    ``"incomplete"`` on a ``.done`` cut short, else None.
    """

    if TYPE_CHECKING:
        type: wire.SummaryPartType

    part: dict[str, Any]
    status: str | None = None


@final
@attrs.frozen
class ResponseSummaryTextDeltaEvent(_SummaryEvent):
    """``response.reasoning_summary_text.delta``: summary text to append (a UI's "thoughts")."""

    if TYPE_CHECKING:
        type: wire.SummaryTextDeltaType

    delta: str


@final
@attrs.frozen
class ResponseSummaryTextDoneEvent(_SummaryEvent):
    """``response.reasoning_summary_text.done``: the summary part's full text."""

    if TYPE_CHECKING:
        type: wire.SummaryTextDoneType

    text: str


# -- shell calls -------------------------------------------------------------------------


@final
@attrs.frozen
class ResponseShellCommandEvent(_ResponsesFrame):
    """``response.shell_call_command.added`` / ``.done``: one command of a ``shell_call``.

    These carry no ``item_id``: the ``shell_call`` item is the one at
    ``output_index``; ``command_index`` is the command's place in ``action.commands``.
    """

    if TYPE_CHECKING:
        type: wire.ShellCommandType

    output_index: int
    command_index: int
    command: str


@final
@attrs.frozen
class ResponseShellCommandDeltaEvent(_ResponsesFrame):
    """``response.shell_call_command.delta``: text to append to a shell command."""

    if TYPE_CHECKING:
        type: wire.ShellCommandDeltaType

    output_index: int
    command_index: int
    delta: str
    obfuscation: str | None = None


@final
@attrs.frozen
class ResponseShellOutputDeltaEvent(ResponseItemEvent):
    """``response.shell_call_output_content.delta``: ``{"stdout", "stderr"}`` text to append."""

    if TYPE_CHECKING:
        type: wire.ShellOutputDeltaType

    command_index: int
    delta: dict[str, Any]


@final
@attrs.frozen
class ResponseShellOutputDoneEvent(ResponseItemEvent):
    """``response.shell_call_output_content.done``: a command's final output entries."""

    if TYPE_CHECKING:
        type: wire.ShellOutputDoneType

    command_index: int
    output: list[Any]


# -- audio ---------------------------------------------------------------------------


@final
@attrs.frozen
class ResponseAudioEvent(_ResponsesFrame):
    """``response.audio.delta`` / ``.done`` and ``response.audio.transcript.delta`` / ``.done``.

    ``delta`` is base64 audio or transcript text on the ``.delta`` events, None
    on ``.done``. Not part of the snapshot (a player consumes it as it comes).
    """

    if TYPE_CHECKING:
        type: wire.AudioType

    delta: str | None = None
