"""The parts: one vocabulary for what every lane streams.

A part says what happened in the assistant turn, in the same words whatever
the wire format: text grew, reasoning grew, a block of reasoning ended (with
what the provider needs to have it back), a tool call started, its input
grew, it ended, usage is known, the turn finished. :class:`~sse_engine.parts.Turn`
is the turn they add up to (``_turn.py``). The classes here hold no lane
knowledge: turning a lane's events into parts is the job of the ``_from_*.py``
modules.

Parts compare by what they say: the ``call`` a tool-call part points at and
the ``raw`` objects of a usage or a reasoning block take no part in equality,
so the parts of one turn streamed by two providers compare equal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, final

import attrs

from sse_engine._outcome import Outcome, StreamError
from sse_engine.parts._turn import JSONText, ReasoningBlock, ToolCall
from sse_engine.parts._usage import (
    FINISH_REASONS,
    FinishReason,
    Usage,
    count_tokens,
    read_pending,
)

__all__ = [
    "FINISH_REASONS",
    "Citation",
    "Finish",
    "FinishReason",
    "MessageItemStart",
    "Part",
    "ReasoningDelta",
    "ReasoningEnd",
    "ReasoningStart",
    "RefusalDelta",
    "Restart",
    "ServerToolResult",
    "TextDelta",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "Usage",
    "UsageUpdate",
    "count_tokens",
]

@final
@attrs.frozen
class TextDelta:
    """Answer text grew by ``text`` (``choice``: which of a Chat ``n > 1`` request's choices)."""

    text: str
    choice: int = 0


@final
@attrs.frozen
class ReasoningDelta:
    """Reasoning text grew: Chat ``reasoning_content`` / ``reasoning``, Responses reasoning
    summaries and reasoning text, Messages thinking.

    Separate pieces of reasoning (summary parts, reasoning items, thinking
    blocks) are joined with a blank line: a ``ReasoningDelta("\\n\\n",
    separator=True)`` comes before each piece after the first. ``separator``
    tells that blank line, which the parts layer writes, from the model's own
    text (which may well be ``"\\n\\n"`` too): a UI that shows each block
    apart skips it.
    """

    text: str
    choice: int = 0
    separator: bool = attrs.field(default=False, kw_only=True)


@final
@attrs.frozen
class ReasoningStart:
    """A block of reasoning opened: a thinking block, a reasoning item, reasoning in Chat.

    Comes before the block's :class:`ReasoningDelta` parts (a block may have
    none: Anthropic's redacted thinking, a Responses reasoning item without a
    summary); a UI can show "thinking" from here. ``index`` is the block's
    place in ``Turn.reasoning_blocks`` once it ends; ``id`` the provider's id
    for it (a Responses reasoning item's), None where it has none.
    """

    index: int
    choice: int = 0
    id: str | None = None


@final
@attrs.frozen
class ReasoningEnd:
    """A block of reasoning ended: ``block`` is it, with the provider's data to send it back.

    ``block`` is also ``Turn.reasoning_blocks[index]``: its text, and the
    opaque data its provider needs on the next request (an Anthropic
    ``signature`` or ``redacted`` thinking, an OpenAI ``encrypted_content``
    and ``id``; see :class:`ReasoningBlock`). A block cut off by the end of the
    stream gets no ``ReasoningEnd``.
    """

    block: ReasoningBlock
    index: int
    choice: int = 0


@final
@attrs.frozen
class MessageItemStart:
    """An assistant message item opened: a Responses ``message`` output item, ``id`` its id.

    Its text and refusal follow as :class:`TextDelta` and :class:`RefusalDelta`
    parts. Only Responses wraps text in items with ids of their own (what a
    client sends back to refer to one), so only a Responses stream has this
    part; another lane's text has no opening to mark. ``id`` is None when the
    item came without one.
    """

    id: str | None
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

    ``index`` numbers the turn's tool calls from 0 in the order they started
    (``Turn.tool_calls[index]``). ``id`` and ``name`` are ``""`` when the
    provider has not said them (yet). ``call`` is that :class:`ToolCall`, as
    it builds up (``call.type``, ``call.server``). ``item_id`` is the
    provider's id for the output item holding the call (a Responses
    ``function_call`` item's ``id``, beside its ``call_id``), None where the
    call is not an item of its own (Chat, Messages).
    """

    id: str
    name: str
    index: int
    choice: int = 0
    call: ToolCall | None = attrs.field(default=None, eq=False, repr=False, kw_only=True)
    item_id: str | None = attrs.field(default=None, kw_only=True)


@final
@attrs.frozen
class ToolCallDelta:
    """A tool call's input grew by ``text`` (a fragment of its JSON, or plain text).

    ``input`` is the input read so far: the call's live partial value
    (``call.input``), as of the latest ``feed()``. Reading it is what parses
    the fragments (a stream nobody reads it from never parses them twice);
    after every fragment it costs O(1) amortised. The value is updated in
    place by later feeds: ``copy.deepcopy`` it to keep the value of a moment.
    """

    id: str
    text: str
    index: int
    choice: int = 0
    call: ToolCall | None = attrs.field(default=None, eq=False, repr=False, kw_only=True)

    @property
    def input(self) -> Any:
        """The call's input parsed so far (see :attr:`ToolCall.input`); None without a call."""
        call = self.call
        return None if call is None else call.input


@final
@attrs.frozen
class ToolCallEnd:
    """A tool call's input is complete: ``arguments`` is its text, ``input`` its value.

    The moment an agent can run the tool. ``input`` is the parsed JSON; for
    a tool whose input is plain text (a Responses ``custom_tool_call``) it is
    the text. When the text is not valid JSON, ``input`` is None and
    ``input_error`` says why (and a ``tool_input_invalid`` warning is
    recorded): do not run a tool on a guess. A call cut off by the end of the
    stream gets no ``ToolCallEnd``.
    """

    id: str
    name: str
    arguments: str
    input: Any
    index: int
    choice: int = 0
    input_error: str | None = None
    call: ToolCall | None = attrs.field(default=None, eq=False, repr=False, kw_only=True)


def _made_when_read(cls: type, name: str, pending: type, make: Callable[[Any], Any]) -> None:
    """Let field ``name`` of ``cls`` hold a ``pending`` value until it is first read.

    The field stays an attrs field of its type (its init, equality, hash,
    repr, pickling and ``attrs.fields`` all go through the attribute): the
    slot's descriptor is wrapped in a property that makes the value
    (``make(pending_value)``) on first read and keeps it in the slot. Only the
    parts layer stores a pending value.
    """
    slot = cls.__dict__[name]

    def read(self: Any) -> Any:
        value = slot.__get__(self, cls)
        if type(value) is pending:
            value = make(value)
            slot.__set__(self, value)
        return value

    setattr(cls, name, property(read, slot.__set__, doc=slot.__doc__))


# A tool call's text as a JSONText, written when read (see ToolCallDelta).
_made_when_read(ToolCallDelta, "text", JSONText, str)
_made_when_read(ToolCallEnd, "arguments", JSONText, str)


@final
@attrs.frozen
class ServerToolResult:
    """The server ran one of its own tools and says what came of it.

    For a call the server runs (``ToolCall.server``: an Anthropic
    ``server_tool_use`` answered by its ``web_search_tool_result`` block, a
    Responses ``mcp_call`` item's output): ``id`` and ``index`` are the call's
    (``Turn.tool_calls[index]``), ``result`` the provider's result object as it
    came, which the call keeps too (:attr:`ToolCall.result`): what a client
    of that provider sends back with the call.
    """

    id: str
    result: Any
    index: int
    choice: int = 0


@final
@attrs.frozen
class Citation:
    """The answer cites a source: an Anthropic ``citations_delta``, a Responses
    ``url_citation`` / ``file_citation`` annotation, a Chat ``annotations`` entry.

    ``type`` is the provider's kind of citation (``web_search_result_location``,
    ``char_location``, ``url_citation``, ``file_citation``, ...); ``url``,
    ``title`` and ``cited_text`` (the quoted source text) are None where that
    kind has none. ``raw`` is the provider's citation object, as sent. Each
    citation also joins :attr:`Turn.citations`.
    """

    type: str
    url: str | None = None
    title: str | None = None
    cited_text: str | None = None
    choice: int = 0
    raw: Any = attrs.field(default=None, eq=False, repr=False)


@final
@attrs.frozen
class UsageUpdate:
    """Token usage is known, or changed (Messages reports it at the start and the end).

    Usage belongs to the whole response: with several Chat choices it is
    reported once, for all of them.
    """

    usage: Usage


# A Gemini chunk's usage as its counts (a PendingUsage), made into a Usage when read.
_made_when_read(UsageUpdate, "usage", tuple, read_pending)


@final
@attrs.frozen
class Finish:
    """The turn is over: always the last part, exactly once per stream.

    ``reason`` is the unified finish reason; ``raw_reason`` the lane's own
    (``end_turn``, ``max_output_tokens``, ``completed``, ...), or None when there was
    none. ``outcome`` and ``error`` are the lane's verdict: a ``FAILED``
    stream finishes with ``error`` and a ``TRUNCATED`` one with
    ``truncated``, whatever the model said before. With several Chat choices
    (``n > 1``), ``reason`` and ``raw_reason`` are choice 0's; each turn of
    :attr:`PartStream.turns <sse_engine.parts.PartStream.turns>` has its own.
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


#: Any part :meth:`PartStream.feed <sse_engine.parts.PartStream.feed>` returns.
Part = (
    TextDelta
    | ReasoningDelta
    | ReasoningStart
    | ReasoningEnd
    | MessageItemStart
    | RefusalDelta
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
    | ServerToolResult
    | Citation
    | UsageUpdate
    | Finish
    | Restart
)
