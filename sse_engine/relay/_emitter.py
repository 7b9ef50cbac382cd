"""What every target's emitter shares: parts in, one wire format's bytes out.

An emitter is told the parts of one assistant turn, in order, and writes the
frames the target API would send for them. This room holds what does not
depend on the target: which parts the target has a place for (other choices
of a Chat ``n > 1`` request and tool calls the upstream ran itself are not
relayed), the target's id and model, the usage seen so far, the routing of
content into one block queue per choice (``_blocks.py``), the keepalive line
and the HTTP answer to a failure, and the fast path of most of a stream: a
text delta continuing its open block (:meth:`Emitter.write_live`). A target's
module (its format folder's ``_emit.py``) writes the frames; it knows nothing
about the source lane.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any, ClassVar, Final, Protocol

import attrs

from sse_engine._encoder import encode_comment
from sse_engine._outcome import Outcome, StreamError
from sse_engine._tally import Compacted, Tally
from sse_engine.parts import (
    Citation,
    Finish,
    MessageItemStart,
    Part,
    PendingUsage,
    ReasoningBlock,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    RefusalDelta,
    Restart,
    ServerToolResult,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Turn,
    Usage,
    UsageUpdate,
    read_pending,
)
from sse_engine.relay._blocks import Block, Blocks

__all__ = [
    "KEEPALIVE",
    "Emitter",
    "ErrorResponse",
    "Source",
    "error_headers",
    "error_status",
    "failure_of",
    "target_id",
]

#: A keepalive with no blank line after it. A comment followed by a blank line
#: right after an ``id:`` line makes the openai SDK's decoder dispatch an empty
#: event and fail on its JSON; a lone comment line is skipped by every client
#: and still resets their read timeouts.
KEEPALIVE: Final = encode_comment("keepalive")[:-1]
_list_append: Final = list.append
_RUN: Final = Compacted.RUN

#: A pre-stream failure as the target API answers it: status, headers, JSON body.
ErrorResponse = tuple[int, list[tuple[str, str]], bytes]


class Source(Protocol):
    """What an emitter reads besides the parts: the source's turns (a ``PartStream``)."""

    @property
    def turn(self) -> Turn:
        """The first choice's turn: the response's id and model."""

    @property
    def turns(self) -> list[Turn]:
        """Every choice's turn (each with its own finish reason)."""


def error_status(error: StreamError) -> int:
    """The HTTP status to answer a pre-stream failure with (502 when upstream gave none)."""
    status = error.status
    return status if status is not None and 400 <= status <= 599 else 502


def error_headers(error: StreamError, request_id_header: str) -> list[tuple[str, str]]:
    """JSON content type, and the upstream's ``retry-after`` and request id when known."""
    headers = [("content-type", "application/json")]
    if error.retry_after is not None:
        headers.append(("retry-after", str(max(0, math.ceil(error.retry_after)))))
    if error.request_id is not None:
        headers.append((request_id_header, error.request_id))
    return headers


def failure_of(finish: Finish) -> StreamError | None:
    """The error a bad ending (FAILED, TRUNCATED) reports; None for a clean one."""
    if finish.outcome is not Outcome.FAILED and finish.outcome is not Outcome.TRUNCATED:
        return None
    if finish.error is not None:
        return finish.error
    return StreamError(message="the upstream stream ended before its end", code="stream_truncated")


def target_id(prefix: str, given: str | None, source: str | None) -> str:
    """The relayed object's id: the one given, else the source's under the target's prefix."""
    if given is not None:
        return given
    if source is None:
        return f"{prefix}relay"
    return source if source.startswith(prefix) else prefix + source


class Emitter:
    """Base of the per-target emitters: routes parts to the target's hooks.

    ``model``, ``id`` and ``created`` are the relayed object's; a None model
    or id is taken from the source turn when the first frame is written.
    Content goes to one :class:`Blocks` queue per relayed choice, which calls
    the target's block hooks one block at a time.
    """

    #: The prefix of the target API's object ids (``chatcmpl-``, ``resp_``, ``msg_``).
    id_prefix: ClassVar[str] = ""
    #: Whether the target carries several choices (only Chat Completions does).
    many_choices: ClassVar[bool] = False
    #: Whether a stream that fails before any content still opens (Responses:
    #: ``response.created`` then ``response.failed``), or is just the error.
    opens_on_failure: ClassVar[bool] = True
    #: Whether the target has blocks of reasoning of its own (Messages thinking
    #: blocks, Responses reasoning items), which separate the source's blocks;
    #: else (Chat) the blank line between them is written as reasoning text.
    reasoning_blocks: ClassVar[bool] = True
    #: What a keepalive is on the target's wire: bytes its clients skip that still
    #: reset their read timeouts (a comment line, unless its clients fail on one).
    keepalive: ClassVar[bytes] = KEEPALIVE
    #: Whether the target writes a block's whole text again when it ends (Responses:
    #: the ``.done`` events and the final response): a lean relay still keeps it.
    rewrites_text: ClassVar[bool] = False
    #: What a text, reasoning or refusal block keeps the text it wrote in: a
    #: list of the deltas, or (lean: see :meth:`make_lean`) less.
    pieces: Callable[[], list[str]] = list

    def __init__(self, *, model: str | None, id: str | None, created: int) -> None:
        self._given_model = model
        self._given_id = id
        self.created = created
        self.model = model or ""
        self.id = id or ""
        self.opened = False
        #: The end of the stream was written (a clean ending or an error).
        self.finished = False
        # The latest usage the source reported: pending (counts and wire object) until a
        # target writes it (a Gemini source reports usage in every chunk; the targets
        # write it at the end). Given by a UsageUpdate part or by take_usage.
        self._usage: Usage | PendingUsage | None = None
        #: The blocks of each relayed choice, in the order the choices started.
        self.choices: dict[int, Blocks] = {}
        #: Each choice's text block that more text of its kind goes straight into (see
        #: ``Blocks``): kept by the choices' queues, read by :meth:`write_live`.
        self.live: dict[int, Block] = {}
        #: Where :meth:`write_live` writes; None: it writes nothing (see it).
        self.direct: list[bytes] | None = None
        #: The tool calls relayed (not hosted, of a relayed choice), by (choice, index).
        self._tools: set[tuple[int, int]] = set()
        #: How many tool calls each choice relayed.
        self.tool_calls: dict[int, int] = {}
        #: Where the parts :meth:`emit` is writing came from, during that call only.
        self.source: Source = _NO_SOURCE
        #: The number of the next frame, for a target that numbers its frames (Responses'
        #: ``sequence_number``); what a :attr:`Block.numbered` delta's frame takes.
        self.sequence = 0

    def make_lean(self) -> None:
        """Keep no text of a text, reasoning or refusal block once written, unless the
        target writes it again at the block's end (:attr:`rewrites_text`): then keep
        it compactly, in few pieces.

        What a lean relay does (``Relay(..., lean=True)``): the bytes are the
        same; the blocks' :attr:`Block.sent` only counts what went by (a
        ``Tally``), or holds it in runs of deltas joined (``Compacted``). A tool
        call's input is kept until the call ends (its end brings it whole).
        """
        self.pieces = Compacted if self.rewrites_text else Tally

    # -- what a target provides --------------------------------------------------

    def open(self, out: list[bytes]) -> None:
        """Write what precedes the first content (``response.created``, ``message_start``)."""

    def open_block(self, block: Block, out: list[bytes]) -> None:
        """Write the frames that open ``block`` (it is now its choice's head)."""
        raise NotImplementedError

    def block_delta(self, block: Block, text: str, out: list[bytes]) -> None:
        """Write one delta of the open ``block``."""
        raise NotImplementedError

    def close_block(self, block: Block, out: list[bytes]) -> None:
        """Write the frames that close ``block``."""
        raise NotImplementedError

    def finish(self, finish: Finish, out: list[bytes]) -> None:
        """Write the end of the stream: the target's clean ending or its in-stream error."""
        raise NotImplementedError

    def reasoning_break(self, block: Block, text: str, out: list[bytes]) -> None:
        """The open reasoning ``block`` goes on with a new piece: by default, the blank line."""
        block.sent.append(text)
        self.block_delta(block, text, out)

    def cites(self, citation: Citation) -> bool:
        """Whether the target writes ``citation`` on its text block: a citation is the
        source provider's object, so only a target of that provider carries it (its own
        kinds, pointing at what the client's request holds); by default, none."""
        return False

    def block_cite(self, block: Block, citation: Citation, out: list[bytes]) -> None:
        """Write ``citation`` (one :meth:`cites` accepts) on the open text ``block``."""
        raise NotImplementedError

    def keeps(self, reasoning: ReasoningBlock) -> bool:
        """Whether a block of reasoning without text is written: it holds replay data of
        the target's own provider (the target then writes the block to carry it)."""
        return False

    #: The header the target API names its request id in (``x-request-id``).
    request_id_header: ClassVar[str]

    @staticmethod
    def error_body(error: StreamError) -> dict[str, Any]:
        """``error`` as the target's JSON error body (its in-stream error carries it too)."""
        raise NotImplementedError

    @classmethod
    def error_response(cls, error: StreamError) -> ErrorResponse:
        """A failure before the stream as the target's status, headers and JSON body (a
        body that names a status, as Google's ``code``, names the one it is sent with)."""
        status = error_status(error)
        if error.status != status:  # an error from inside a stream has none of its own
            error = attrs.evolve(error, status=status)
        body = json.dumps(cls.error_body(error), ensure_ascii=False).encode()
        return status, error_headers(error, cls.request_id_header), body

    # -- for the targets -----------------------------------------------------------

    def flush(self, clean: bool, out: list[bytes]) -> None:
        """Write what every choice still holds (see :meth:`Blocks.flush`)."""
        for blocks in self.choices.values():
            blocks.flush(self, clean, out)

    # -- the routing -------------------------------------------------------------

    def emit(self, parts: Sequence[Part], source: Source) -> bytes:
        """The target's bytes for ``parts`` (``source``: where they came from, after them)."""
        self.source = source
        out: list[bytes] = []
        outer, self.direct = self.direct, out
        write = self.write_live
        try:
            for part in parts:
                kind = type(part)
                text_kind = _TEXT_KINDS.get(kind)
                if text_kind is not None and not (kind is ReasoningDelta and part.separator):  # type: ignore[union-attr]
                    # Most parts are text continuing the open block: straight to the target.
                    # A part of no text writes nothing, whichever way it went.
                    text = part.text  # type: ignore[union-attr]
                    if not text or write(text_kind, text, part.choice):  # type: ignore[union-attr]
                        continue
                _ROUTES[kind](self, part, out)
        finally:
            self.direct = outer
            # Kept, the source (the stream, which holds write_live) would make a cycle.
            self.source = _NO_SOURCE
        return out[0] if len(out) == 1 else b"".join(out)

    def write_live(self, kind: str, text: str, choice: int) -> bool:
        """Write a delta of ``kind`` (``text``, ``reasoning``, ``refusal``) straight into
        its choice's open block, appending its frame to :attr:`direct`, as :meth:`emit`
        does with its part; False, writing nothing, when no open block of that kind takes
        it (its part goes through :meth:`emit` then) or :attr:`direct` is None.

        What a relay does with a delta before any part is made (it gives this method
        to ``PartStream.write_text_with``, and sets :attr:`direct` while it reads the
        source's events), and what :meth:`emit` does with most text parts. ``text``
        is not empty.
        """
        out = self.direct
        block = self.live.get(choice)
        if out is None or block is None or block.kind != kind or self.finished:
            return False
        sent = block.sent
        # A lean block's Tally.append and Compacted.append, inline: a call each per delta.
        if type(sent) is Tally:  # it counts what went by
            sent.length += len(text)
        elif type(sent) is Compacted:  # it keeps the text in runs
            _list_append(sent, text)
            if len(sent) - sent.kept >= _RUN:
                sent.join_run()
        else:
            sent.append(text)
        if not (block.fills or block.numbered):
            self.block_delta(block, text, out)
            return True
        # fill()'s work, inline: its call was a fifth of the relay's cost per delta.
        try:
            value = encode_basestring(text).encode()
        except UnicodeEncodeError:
            value = encode_basestring_ascii(text).encode()
        if block.fills:
            out.append(block.template % value)
        else:
            number = self.sequence
            self.sequence = number + 1
            out.append(block.template % (number, number, value))
        return True

    def _begin(self, out: list[bytes]) -> None:
        if self.opened:
            return
        self.opened = True
        turn = self.source.turn
        self.model = self._given_model or turn.model or "unknown"
        self.id = target_id(self.id_prefix, self._given_id, turn.id)
        self.open(out)

    def _blocks(self, choice: int, out: list[bytes]) -> Blocks | None:
        """The queue of ``choice`` (the stream opened), or None when it is not relayed."""
        blocks = self.choices.get(choice)
        if blocks is None:
            if choice and not self.many_choices:
                return None
            self._begin(out)
            blocks = self.choices[choice] = Blocks(choice, self.pieces, self.live)
        return blocks

    def _text(
        self, kind: str, part: TextDelta | ReasoningDelta | RefusalDelta, out: list[bytes]
    ) -> None:
        if part.text:
            blocks = self._blocks(part.choice, out)
            if blocks is not None:
                blocks.text(self, kind, part.text, out)

    def _on_text(self, part: TextDelta, out: list[bytes]) -> None:
        self._text("text", part, out)

    def _on_reasoning(self, part: ReasoningDelta, out: list[bytes]) -> None:
        text = part.text
        if not text:
            return
        if not part.separator:
            self._text("reasoning", part, out)
            return
        blocks = self._blocks(part.choice, out)
        if blocks is not None:
            blocks.reasoning_break(self, text, self.reasoning_blocks, out)

    def _on_reasoning_start(self, part: ReasoningStart, out: list[bytes]) -> None:
        blocks = self._blocks(part.choice, out)
        if blocks is not None:
            blocks.reasoning_start(part.id)

    def _on_reasoning_end(self, part: ReasoningEnd, out: list[bytes]) -> None:
        blocks = self._blocks(part.choice, out)
        if blocks is not None:
            blocks.reasoning_end(self, part.block, self.keeps(part.block), out)

    def _on_message_item(self, part: MessageItemStart, out: list[bytes]) -> None:
        blocks = self._blocks(part.choice, out)
        if blocks is not None:
            blocks.message_start(self, part.id, out)

    def _on_refusal(self, part: RefusalDelta, out: list[bytes]) -> None:
        self._text("refusal", part, out)

    def _on_tool_start(self, part: ToolCallStart, out: list[bytes]) -> None:
        call = part.call
        if call is not None and call.server:
            return  # the upstream ran it: the client has nothing to run
        blocks = self._blocks(part.choice, out)
        if blocks is not None:
            self._tools.add((part.choice, part.index))
            self.tool_calls[part.choice] = self.tool_calls.get(part.choice, 0) + 1
            plain = call is not None and call.plain
            raw = None if call is None else call.raw
            blocks.tool_start(self, part.index, part.id, part.name, plain, part.item_id, out, raw)

    def _on_tool_delta(self, part: ToolCallDelta, out: list[bytes]) -> None:
        if part.text and (part.choice, part.index) in self._tools:
            self.choices[part.choice].tool_delta(self, part.index, part.text, out)

    def _on_tool_end(self, part: ToolCallEnd, out: list[bytes]) -> None:
        if (part.choice, part.index) in self._tools:
            self.choices[part.choice].tool_end(self, part.index, part.arguments, out)

    def _on_usage(self, part: UsageUpdate, out: list[bytes]) -> None:
        # No bytes, ever: the targets write usage at their end (or when they open, at a
        # later part, which reads it from here).
        self._usage = part.usage

    def take_usage(self, usage: Usage | PendingUsage) -> None:
        """Keep a usage report made before any part of a read, as :meth:`_on_usage` keeps
        a ``UsageUpdate``'s (given to ``PartStream.write_text_with``: no part is made)."""
        self._usage = usage

    @property
    def usage(self) -> Usage | None:
        """The latest usage the source reported (None before any)."""
        usage = self._usage = read_pending(self._usage)  # made once, then kept
        return usage

    def _on_finish(self, part: Finish, out: list[bytes]) -> None:
        if self.opens_on_failure or failure_of(part) is None:
            self._begin(out)
        self.finished = True
        self.finish(part, out)

    def _on_citation(self, part: Citation, out: list[bytes]) -> None:
        if self.cites(part):
            blocks = self._blocks(part.choice, out)
            if blocks is not None:
                blocks.cite(self, part, out)

    def _on_not_relayed(self, part: ServerToolResult, out: list[bytes]) -> None:
        """Not relayed: the upstream ran the tool (its call is not relayed either), and its
        result is the source provider's own object (see docs/gateways.md)."""

    def _on_restart(self, part: Restart, out: list[bytes]) -> None:
        """Handled by the Relay before the emitter (a replay is skipped, not re-sent)."""


#: The block kind of each text part that takes the fast path (but the blank line
#: between two pieces of reasoning, a ``separator``: not text for every target).
_TEXT_KINDS: Final[dict[type, str]] = {
    TextDelta: "text",
    ReasoningDelta: "reasoning",
    RefusalDelta: "refusal",
}

_Route = Callable[[Emitter, Any, list[bytes]], None]
#: Part class -> the emitter's handler, built once.
_ROUTES: dict[type, _Route] = {
    TextDelta: Emitter._on_text,
    ReasoningDelta: Emitter._on_reasoning,
    ReasoningStart: Emitter._on_reasoning_start,
    ReasoningEnd: Emitter._on_reasoning_end,
    MessageItemStart: Emitter._on_message_item,
    RefusalDelta: Emitter._on_refusal,
    ToolCallStart: Emitter._on_tool_start,
    ToolCallDelta: Emitter._on_tool_delta,
    ToolCallEnd: Emitter._on_tool_end,
    UsageUpdate: Emitter._on_usage,
    Finish: Emitter._on_finish,
    Restart: Emitter._on_restart,
    Citation: Emitter._on_citation,
    ServerToolResult: Emitter._on_not_relayed,
}


class _NoSource:
    """The source before the first ``emit()``: an empty turn."""

    def __init__(self) -> None:
        self.turn = Turn()
        self.turns = [self.turn]


_NO_SOURCE: Final = _NoSource()
