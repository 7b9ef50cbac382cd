"""The typed events of the Anthropic Messages lane (re-exported by ``sse_engine.messages``).

Every event that comes from one wire frame keeps the decoded JSON payload as
``raw`` (excluded from equality and repr), so that an encoder can re-emit the
frame exactly. The lane's single ``StreamEnd`` (from ``sse_engine``) follows
``MessageStop`` or ``MessageError``, or comes from ``close()``.

Every concrete class is ``@final``, and :data:`MessagesEvent` is their union
with ``StreamEnd``: what ``MessagesLane.feed()`` returns, so a type checker
knows every event a Messages stream can bring (and that no other lane's can).
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeAlias, final

import attrs

from sse_engine._lane_events import LaneEvent, StreamEnd
from sse_engine._outcome import StreamError

__all__ = [
    "BlockDelta",
    "BlockStart",
    "BlockStop",
    "CitationDelta",
    "InputJsonDelta",
    "MessageDelta",
    "MessageError",
    "MessageStart",
    "MessageStop",
    "MessagesEvent",
    "OtherDelta",
    "Ping",
    "SignatureDelta",
    "TextBlockDelta",
    "ThinkingDelta",
    "ToolUseStop",
    "UnknownEvent",
]


@attrs.frozen
class _MessagesFrame(LaneEvent):
    """Base of the Messages lane's frame events: ``raw`` is the frame's decoded JSON payload."""

    raw: dict[str, Any] = attrs.field(eq=False, repr=False)


@final
@attrs.frozen
class MessageStart(_MessagesFrame):
    """``message_start``: the message exists. Show the model; ``usage`` is the first count.

    On non-Claude models served through the Messages API ``usage`` may say
    ``input_tokens: 0``; the real counts come in :class:`MessageDelta`. ``id``
    and ``model`` are None only when the message object left them out.
    """

    id: str | None
    model: str | None
    usage: dict[str, Any]


@final
@attrs.frozen
class Ping(_MessagesFrame):
    """``ping``: sent once or many times. Carries nothing; it is not a liveness signal."""


@final
@attrs.frozen
class BlockStart(_MessagesFrame):
    """``content_block_start``: block ``index`` opens, of type ``block_type``.

    ``block`` is the content block as sent. Server-tool results
    (``web_search_tool_result`` and the other ``*_tool_result`` blocks) and
    ``redacted_thinking`` arrive complete here: a UI can render them at once.
    """

    index: int
    block_type: str
    block: dict[str, Any]


@attrs.frozen
class BlockDelta(_MessagesFrame):
    """Base of the ``content_block_delta`` events; ``index`` is the block it applies to."""

    index: int


@final
@attrs.frozen
class TextBlockDelta(BlockDelta):
    """``text_delta``: print ``text`` now; it extends text block ``index``.

    The lane's event for one wire delta (``index`` says which block); the
    part that means "answer text grew" in every format is
    :class:`sse_engine.TextDelta`.
    """

    text: str


@final
@attrs.frozen
class ThinkingDelta(BlockDelta):
    """``thinking_delta``: show ``thinking`` now; it extends thinking block ``index``."""

    thinking: str


@final
@attrs.frozen
class SignatureDelta(BlockDelta):
    """``signature_delta``: the thinking block's signature (it replaces, never appends).

    Needed to send the thinking block back on the next request.
    """

    signature: str


@final
@attrs.frozen
class InputJsonDelta(BlockDelta):
    """``input_json_delta``: a fragment of a tool block's input JSON (not parseable alone).

    Show progress with it if you like; act on :class:`ToolUseStop`, which
    carries the parsed input.
    """

    partial_json: str


@final
@attrs.frozen
class CitationDelta(BlockDelta):
    """``citations_delta``: ``citation`` attaches to text block ``index`` (show a source)."""

    citation: dict[str, Any]


@final
@attrs.frozen
class OtherDelta(BlockDelta):
    """A delta of a type this lane does not know (``delta_type``), passed through as sent.

    The snapshot is not changed by it; ``delta`` is the delta object.
    """

    delta_type: str
    delta: dict[str, Any]


@attrs.frozen
class _BlockStopEvent(_MessagesFrame):
    index: int
    block: dict[str, Any]


@final
@attrs.frozen
class BlockStop(_BlockStopEvent):
    """``content_block_stop``: block ``index`` is finished; ``block`` is it, complete.

    ``block`` is the block as ``to_api()`` gives it (accumulated text,
    thinking with its signature, citations), so a UI can finalise its view.
    Tool blocks get :class:`ToolUseStop` instead (not a subclass: match both,
    ``isinstance(event, BlockStop | ToolUseStop)``, to see every stop).
    """


@final
@attrs.frozen
class ToolUseStop(_BlockStopEvent):
    """The stop of a ``tool_use`` / ``server_tool_use`` / ``mcp_tool_use`` block: run it now.

    ``name`` is the tool, ``id`` what the result must name (each ``""`` only
    when the block never said it: a ``tool_call_without_name`` warning, or a
    block that never started). ``input`` is the parsed tool input. When the
    JSON fragments did not form valid JSON (a generation cut short),
    ``input`` is None and ``input_error`` says why: do not run the tool with
    a guess.
    """

    id: str
    name: str
    input: Any
    input_error: str | None


@final
@attrs.frozen
class MessageDelta(_MessagesFrame):
    """``message_delta``: the stop reason, and ``usage`` after merging the cumulative counts.

    The counts it reports win over earlier ones (update a token meter here).
    ``stop_reason`` and ``stop_sequence`` are the message's so far: None until
    a ``message_delta`` gave them (a usage-only delta keeps the earlier ones).
    """

    stop_reason: str | None
    stop_sequence: str | None
    usage: dict[str, Any]


@final
@attrs.frozen
class MessageStop(_MessagesFrame):
    """``message_stop``: the message is complete (a ``StreamEnd`` follows at once).

    ``stop_reason`` is None only when no ``message_delta`` gave one (a
    ``missing_stop_reason`` warning).
    """

    stop_reason: str | None


@final
@attrs.frozen
class MessageError(LaneEvent):
    """An ``error`` event inside the stream (``overloaded_error``, ...): the stream failed.

    ``error.retryable`` says whether to send the request again. ``raw`` is the
    decoded payload, or the data text when it was not JSON. A ``StreamEnd``
    with ``Outcome.FAILED`` follows at once.
    """

    error: StreamError
    raw: Any = attrs.field(eq=False, repr=False)


@final
@attrs.frozen
class UnknownEvent(_MessagesFrame):
    """An event of a type this lane does not know, passed through untouched.

    ``type`` is the payload's JSON ``type`` (or the SSE event name when the
    payload has none); ``raw`` is the whole payload.
    """

    many_types: ClassVar[bool] = True

    type: str


#: Every event :class:`~sse_engine.MessagesLane` emits: what its ``feed()`` and
#: ``close()`` return. A union of ``@final`` classes, so ``mypy --strict
#: --warn-unreachable`` flags an ``isinstance`` against another lane's class,
#: and a ``match`` over it can be checked for exhaustiveness.
MessagesEvent: TypeAlias = (
    MessageStart
    | Ping
    | BlockStart
    | TextBlockDelta
    | ThinkingDelta
    | SignatureDelta
    | InputJsonDelta
    | CitationDelta
    | OtherDelta
    | BlockStop
    | ToolUseStop
    | MessageDelta
    | MessageStop
    | MessageError
    | UnknownEvent
    | StreamEnd
)
