"""The parts: one vocabulary for what every lane streams.

A part says what happened in the assistant turn, in the same words whatever
the wire format: text grew, reasoning grew, a tool call started, its input
grew, it ended, usage is known, the turn finished. :class:`Turn` is the turn
assembled from them. The classes here hold no lane knowledge: turning a
lane's events into parts is ``_stream.py``'s job.
"""

from __future__ import annotations

from typing import Any, Final, Literal, final

import attrs

from sse_engine._outcome import Outcome, StreamError

__all__ = [
    "FINISH_REASONS",
    "Finish",
    "FinishReason",
    "Part",
    "ReasoningDelta",
    "RefusalDelta",
    "Restart",
    "TextDelta",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "Turn",
    "Usage",
    "UsageUpdate",
]

#: Why a turn ended, in one vocabulary for every lane (see :class:`Finish`).
FinishReason = Literal[
    "stop", "length", "tool_calls", "content_filter", "refusal", "pause", "error", "truncated",
    "other",
]
FINISH_REASONS: Final[tuple[FinishReason, ...]] = (
    "stop", "length", "tool_calls", "content_filter", "refusal", "pause", "error", "truncated",
    "other",
)


@final
@attrs.frozen
class Usage:
    """Token counts in one shape for every lane.

    ``input_tokens`` counts the whole prompt (cached tokens included, as
    OpenAI counts it; for Messages the cache reads and writes are added in);
    ``cached_input_tokens`` and ``reasoning_tokens`` are the parts of the
    input and output that were cache hits and reasoning. A count the server
    did not send is None. ``raw`` is the lane's own usage object.
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cached_input_tokens: int | None = None
    reasoning_tokens: int | None = None
    raw: Any = None


@final
@attrs.frozen
class TextDelta:
    """Answer text grew by ``text`` (``choice``: which of a Chat ``n > 1`` request's choices)."""

    text: str
    choice: int = 0


@final
@attrs.frozen
class ReasoningDelta:
    """Reasoning text grew: Chat ``reasoning_content``, Responses reasoning, Messages thinking."""

    text: str
    choice: int = 0


@final
@attrs.frozen
class RefusalDelta:
    """The model's refusal text grew (Chat and Responses ``refusal``)."""

    text: str
    choice: int = 0


@final
@attrs.frozen
class ToolCallStart:
    """A tool call opened: its ``id`` and ``name`` are known, its input is still to come.

    ``index`` numbers the turn's tool calls from 0 in the order they started.
    """

    id: str
    name: str
    index: int
    choice: int = 0


@final
@attrs.frozen
class ToolCallDelta:
    """A tool call's input grew by ``text`` (a fragment of its JSON, or plain text).

    ``input`` is the input parsed so far (see :class:`~sse_engine.parts.PartialJSON`):
    the same live object as ``Turn.tool_calls[index].input``, kept up to date
    in place, so reading it costs nothing; copy it to keep the value of this
    moment.
    """

    id: str
    text: str
    index: int
    choice: int = 0
    input: Any = None


@final
@attrs.frozen
class ToolCallEnd:
    """A tool call's input is complete: ``arguments`` is its text, ``input`` its value.

    ``input`` is the parsed JSON; for a tool whose input is plain text (a
    Responses ``custom_tool_call``), or JSON that does not parse, it is the text.
    """

    id: str
    name: str
    arguments: str
    input: Any
    index: int
    choice: int = 0


@final
@attrs.frozen
class UsageUpdate:
    """Token usage is known, or grew (Messages reports it at the start and the end)."""

    usage: Usage


@final
@attrs.frozen
class Finish:
    """The turn is over: always the last part, exactly once per stream.

    ``reason`` is the unified finish reason; ``raw_reason`` the lane's own
    (``end_turn``, ``max_output_tokens``, ...), or None when there was none
    (a failed or truncated stream). ``outcome`` and ``error`` are the lane's
    verdict.
    """

    reason: FinishReason
    outcome: Outcome
    error: StreamError | None = None
    raw_reason: str | None = None


@final
@attrs.frozen
class Restart:
    """A resumed stream replays from the start: discard what was shown; the turn restarts."""

    reason: str


Part = (
    TextDelta
    | ReasoningDelta
    | RefusalDelta
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
    | UsageUpdate
    | Finish
    | Restart
)


@final
@attrs.define
class ToolCall:
    """One tool call of a :class:`Turn`.

    ``arguments`` is the input text received so far; ``input`` the value
    parsed so far (a partial value while it streams, the whole value once
    ``done``); ``type`` the lane's own kind of call (``function``,
    ``custom_tool_call``, ``mcp_call``, ``tool_use``, ``server_tool_use``, ...).
    """

    id: str
    name: str
    arguments: str = ""
    input: Any = None
    done: bool = False
    type: str = "function"


@final
@attrs.define
class Turn:
    """The assistant turn so far, in the same shape for every lane.

    Text fields are the concatenated deltas; ``finish_reason``, ``outcome``
    and ``error`` are None until the :class:`Finish` part.
    """

    id: str | None = None
    model: str | None = None
    text: str = ""
    reasoning: str = ""
    refusal: str = ""
    tool_calls: list[ToolCall] = attrs.Factory(list)
    usage: Usage | None = None
    finish_reason: FinishReason | None = None
    outcome: Outcome | None = None
    error: StreamError | None = None
