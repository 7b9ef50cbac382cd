"""The Responses lane's typed events: one class per payload shape, keyed by ``type``.

The wire has some sixty event types but only a handful of shapes: three
lifecycle events carry a ``response`` object, a dozen item-status events carry
only ``item_id`` + ``output_index``, five kinds of tool call stream their input
as ``delta`` fragments, and so on. Each shape is one frozen class here, and
``type`` (always the wire type, e.g. ``"response.web_search_call.searching"``)
tells the members of a class apart. ``raw`` keeps the decoded JSON payload so
an encoder can re-emit the frame exactly; it takes no part in equality.
"""

from __future__ import annotations

from typing import Any

import attrs

from sse_engine._lane import LaneEvent
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
    "ResponsesEvent",
]


@attrs.frozen
class ResponsesEvent(LaneEvent):
    """Base of every Responses event: the wire ``type`` and its ``sequence_number``.

    ``sequence_number`` is None only when the server sent none (some gateways'
    examples omit it). ``raw`` is the decoded JSON payload exactly as received.
    """

    type: str
    sequence_number: int | None
    raw: dict[str, Any] = attrs.field(factory=dict, eq=False, repr=False, kw_only=True)


@attrs.frozen
class ResponseUnknownEvent(ResponsesEvent):
    """A frame this lane does not interpret, passed through with its ``raw`` payload.

    Either an event type the lane does not know (a newer API, a gateway's own
    extension), or a known type whose payload has the wrong shape (a
    ``malformed_event`` warning says which field). The snapshot is untouched.
    """


# -- the response object ------------------------------------------------------------


@attrs.frozen
class _ResponseObjectEvent(ResponsesEvent):
    response: dict[str, Any]


@attrs.frozen
class ResponseLifecycleEvent(_ResponseObjectEvent):
    """``response.created`` / ``response.in_progress`` / ``response.queued``.

    The response object as it stands (id, model, status ``queued`` or
    ``in_progress``). A UI shows "thinking..." or a queue position; the id is
    what a resume reconnects to.
    """


@attrs.frozen
class ResponseTerminalEvent(_ResponseObjectEvent):
    """``response.completed`` / ``response.incomplete`` / ``response.failed``: the verdict.

    ``response`` is the final response object (authoritative over everything
    streamed before it). A ``StreamEnd`` follows with the outcome.
    """

    @property
    def incomplete_reason(self) -> str | None:
        """``incomplete_details.reason`` (``max_output_tokens``, ``content_filter``) or None."""
        details = self.response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        return reason if isinstance(reason, str) else None


@attrs.frozen
class ResponseErrorEvent(ResponsesEvent):
    """An ``error`` event: the server reports a failure inside the stream.

    Both the flat ``{code, message, param}`` shape and the nested
    ``{"error": {...}}`` shape are read into the same fields; ``error`` is the
    :class:`StreamError` the lane's ``StreamEnd`` carries. Terminal: a
    ``response.failed`` right after it is the same failure.
    """

    code: str | None
    message: str
    param: str | None
    error: StreamError


# -- output items ----------------------------------------------------------------------


@attrs.frozen
class ResponseOutputItemEvent(ResponsesEvent):
    """``response.output_item.added`` / ``.done``: an output item opens or closes.

    ``item`` is the item object (``message``, ``function_call``, ``reasoning``,
    ``mcp_call``, ``kindo_call``, ``shell_call``, ``web_search_call``,
    ``custom_tool_call``, ...). On ``.done`` it is final: an agent runs the
    tool call in it, a UI freezes the message.
    """

    output_index: int
    item: dict[str, Any]


@attrs.frozen
class ResponseItemEvent(ResponsesEvent):
    """Base of the events about one output item: its ``item_id`` and ``output_index``.

    ``output_index`` is filled in from the item when the payload leaves it out
    (None only when the item is not known at all).
    """

    item_id: str | None
    output_index: int | None


@attrs.frozen
class ResponseItemStatusEvent(ResponseItemEvent):
    """A hosted tool's progress: ``response.<tool>.in_progress/.searching/.completed/...``.

    Covers ``web_search_call``, ``file_search_call``, ``code_interpreter_call``,
    ``image_generation_call``, ``mcp_call``, ``mcp_list_tools`` and
    ``compaction``. A UI shows ``item_type`` + ``status`` ("web_search_call:
    searching"); the snapshot records it on the item as ``progress``.
    """

    @property
    def item_type(self) -> str:
        """The tool in the type: ``"web_search_call"`` for ``...web_search_call.searching``."""
        return self.type.split(".")[1]

    @property
    def status(self) -> str:
        """The last part of the type: ``"searching"``, ``"completed"``, ``"failed"``, ..."""
        return self.type.rsplit(".", 1)[1]


@attrs.frozen
class ResponseCallDeltaEvent(ResponseItemEvent):
    """A fragment of a tool call's input, to append to what came before.

    ``response.function_call_arguments.delta``, ``response.mcp_call_arguments.delta``,
    ``response.kindo_call_arguments.delta`` (arguments JSON),
    ``response.custom_tool_call_input.delta`` (free-form input) and
    ``response.code_interpreter_call_code.delta`` (code). A UI streams the
    call's input as it is written; an agent waits for the ``.done`` event.
    """

    delta: str


@attrs.frozen
class ResponseArgumentsDoneEvent(ResponseItemEvent):
    """``response.function_call_arguments.done`` / ``mcp_call_arguments.done`` /
    ``kindo_call_arguments.done``: the call's complete ``arguments`` JSON text."""

    arguments: str


@attrs.frozen
class ResponseCustomToolInputDoneEvent(ResponseItemEvent):
    """``response.custom_tool_call_input.done``: a custom tool call's complete ``input``."""

    input: str


@attrs.frozen
class ResponseCodeDoneEvent(ResponseItemEvent):
    """``response.code_interpreter_call_code.done``: the complete ``code`` to run."""

    code: str


@attrs.frozen
class ResponsePartialImageEvent(ResponseItemEvent):
    """``response.image_generation_call.partial_image``: a preview while an image renders."""

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


@attrs.frozen
class ResponseContentPartEvent(_ContentEvent):
    """``response.content_part.added`` / ``.done``: a message's content part opens or closes.

    ``part`` is ``{"type": "output_text", "text", "annotations"}`` or
    ``{"type": "refusal", "refusal"}`` (or a reasoning text part); final on ``.done``.
    """

    part: dict[str, Any]


@attrs.frozen
class ResponseContentDeltaEvent(_ContentEvent):
    """Text to append to a content part: what a chat UI prints as it arrives.

    ``response.output_text.delta`` (the answer; ``logprobs`` when requested),
    ``response.refusal.delta`` (a refusal's explanation) and
    ``response.reasoning_text.delta`` (raw reasoning text).
    """

    delta: str
    logprobs: list[Any] | None = None


@attrs.frozen
class ResponseTextDoneEvent(_ContentEvent):
    """``response.output_text.done`` / ``response.reasoning_text.done``: the part's full text.

    Authoritative: the snapshot takes this text over the joined deltas.
    """

    text: str
    logprobs: list[Any] | None = None


@attrs.frozen
class ResponseRefusalDoneEvent(_ContentEvent):
    """``response.refusal.done``: the full ``refusal`` text of a refusal part."""

    refusal: str


@attrs.frozen
class ResponseAnnotationEvent(_ContentEvent):
    """``response.output_text.annotation.added``: a citation (URL, file) on a text part."""

    annotation_index: int
    annotation: Any


# -- reasoning summaries ------------------------------------------------------------------


@attrs.frozen
class _SummaryEvent(ResponseItemEvent):
    summary_index: int


@attrs.frozen
class ResponseSummaryPartEvent(_SummaryEvent):
    """``response.reasoning_summary_part.added`` / ``.done``: a reasoning summary part.

    ``part`` is ``{"type": "summary_text", "text"}``; ``status`` is
    ``"incomplete"`` on a ``.done`` cut short, else None.
    """

    part: dict[str, Any]
    status: str | None = None


@attrs.frozen
class ResponseSummaryTextDeltaEvent(_SummaryEvent):
    """``response.reasoning_summary_text.delta``: summary text to append (a UI's "thoughts")."""

    delta: str


@attrs.frozen
class ResponseSummaryTextDoneEvent(_SummaryEvent):
    """``response.reasoning_summary_text.done``: the summary part's full text."""

    text: str


# -- shell calls -------------------------------------------------------------------------


@attrs.frozen
class ResponseShellCommandEvent(ResponsesEvent):
    """``response.shell_call_command.added`` / ``.done``: one command of a ``shell_call``.

    These carry no ``item_id``: the ``shell_call`` item is the one at
    ``output_index``; ``command_index`` is the command's place in ``action.commands``.
    """

    output_index: int
    command_index: int
    command: str


@attrs.frozen
class ResponseShellCommandDeltaEvent(ResponsesEvent):
    """``response.shell_call_command.delta``: text to append to a shell command."""

    output_index: int
    command_index: int
    delta: str
    obfuscation: str | None = None


@attrs.frozen
class ResponseShellOutputDeltaEvent(ResponseItemEvent):
    """``response.shell_call_output_content.delta``: ``{"stdout", "stderr"}`` text to append."""

    command_index: int
    delta: dict[str, Any]


@attrs.frozen
class ResponseShellOutputDoneEvent(ResponseItemEvent):
    """``response.shell_call_output_content.done``: a command's final output entries."""

    command_index: int
    output: list[Any]


# -- audio ---------------------------------------------------------------------------


@attrs.frozen
class ResponseAudioEvent(ResponsesEvent):
    """``response.audio.delta`` / ``.done`` and ``response.audio.transcript.delta`` / ``.done``.

    ``delta`` is base64 audio or transcript text on the ``.delta`` events, None
    on ``.done``. Not part of the snapshot (a player consumes it as it comes).
    """

    delta: str | None = None
