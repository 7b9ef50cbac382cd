"""One block at a time: the order every target writes content in.

Responses output items and Messages content blocks are sequential: block N
closes before block N+1 opens. Chat tool calls are too, in practice: the
openai SDK (and the Chat lane) take a new tool-call index to mean the previous
call is done. Parts need not be sequential (Chat streams several tool calls
at once, interleaved by index), so blocks are kept in a queue, one per
choice: the head is open on the wire and its deltas are written as they come;
a block behind it collects its deltas until it reaches the head. A text,
reasoning or refusal block ends when another block follows it; a tool call
ends at its ``ToolCallEnd``, a block of reasoning at its ``ReasoningEnd``
(which brings the provider's replay data for the target to write when it
closes the block). A target writes the frames of one block at a time through
its hooks and never sees the queue.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

import attrs

from sse_engine.parts import ReasoningBlock

__all__ = ["Block", "BlockWriter", "Blocks"]


@attrs.define
class Block:
    """One content block (or output item, or Chat tool call) of the relayed turn.

    ``kind`` is ``text``, ``reasoning``, ``refusal`` or ``tool``; a tool block
    has the call's ``id`` and ``name`` and, once ended, all its ``arguments``
    (``plain``: the input is text, not JSON). A reasoning block has the
    source's ``id`` for it (if any) and, once ended, the source's
    ``reasoning`` block with its replay data. ``source_item`` is the source's
    id for the block's output item (a Responses source's), "" if it has none.
    ``raw`` is a tool call's :attr:`~sse_engine.parts.ToolCall.raw`: the
    source's own object for it (a Gemini part with its signature), or None.
    ``index``, ``content_index``, ``mark``, ``item_id``, ``template``,
    ``fills`` and ``numbered`` are the target's to set and use.
    """

    kind: str
    choice: int = 0
    id: str = ""
    name: str = ""
    plain: bool = False
    #: Deltas written to the wire (less for a lean relay's text block: see
    #: ``Emitter.make_lean``), and deltas waiting for the block to reach the head.
    sent: list[str] = attrs.Factory(list)
    pending: list[str] = attrs.Factory(list)
    opened: bool = False
    ended: bool = False
    arguments: str | None = None
    reasoning: ReasoningBlock | None = None
    source_item: str = ""
    raw: Any = None
    index: int = -1
    content_index: int = 0
    #: Where the piece being written starts in ``sent`` (a Responses summary part).
    mark: int = 0
    item_id: str = ""
    #: The frame of one delta, with holes (see ``_template.py``), once the target made it.
    template: bytes = b""
    #: Set by the target when a delta's frame is ``fill(template, text)`` and nothing else
    #: (no number to count, no state to change): the emitter then fills it itself, with
    #: no call of the target's ``block_delta`` (most of a stream).
    fills: bool = False
    #: Set by the target when a delta's frame is ``fill(template, text, n, n)``, ``n`` the
    #: emitter's running :attr:`~Emitter.sequence` (an ``id:`` line and a payload field,
    #: Responses'), counted on: the emitter then fills it itself, as for :attr:`fills`.
    numbered: bool = False
    #: Citations of a text block waiting for it to reach the head (the source's parts).
    citations: list[Any] = attrs.Factory(list)

    @property
    def text(self) -> str:
        """Everything written for this block so far."""
        return "".join(self.sent)

    @property
    def final(self) -> str:
        """The block's whole text: a tool call's complete arguments once it ended."""
        return self.arguments if self.arguments is not None else self.text


class BlockWriter(Protocol):
    """What a target implements to write blocks."""

    def open_block(self, block: Block, out: list[bytes]) -> None:
        """Write the frames that open ``block`` (it is now the head)."""

    def block_delta(self, block: Block, text: str, out: list[bytes]) -> None:
        """Write one delta of the open ``block``."""

    def close_block(self, block: Block, out: list[bytes]) -> None:
        """Write the frames that close ``block``."""

    def reasoning_break(self, block: Block, text: str, out: list[bytes]) -> None:
        """The open reasoning ``block`` goes on with a new piece; ``text`` is the blank line."""

    def block_cite(self, block: Block, citation: Any, out: list[bytes]) -> None:
        """Write a citation of the open text ``block``."""


class Blocks:
    """The blocks of one choice, written to the wire one at a time.

    The target (the ``writer``) is given to each call that may write, not kept: it
    keeps the queues, and a queue that kept it would make a reference cycle (a
    dropped relay's memory would wait for the garbage collector).
    """

    def __init__(
        self,
        choice: int,
        pieces: Callable[[], list[str]] = list,
        live: dict[int, Block] | None = None,
    ) -> None:
        self._choice = choice
        #: The text block that more text of its kind goes straight into (open, alone,
        #: not ended), under this choice, while there is one: what the emitter's fast
        #: path for text deltas reads (one dict for every choice of the emitter).
        self.live: dict[int, Block] = {} if live is None else live
        #: What a text, reasoning or refusal block keeps its text in (a lean relay's
        #: keep less: see ``Emitter.make_lean``).
        self._pieces = pieces
        #: The head is open on the wire; the blocks behind it wait their turn.
        self.queue: deque[Block] = deque()
        self._tools: dict[int, Block] = {}
        #: The source's id for the block of reasoning that opened and has no text yet.
        self._reasoning_id = ""
        #: The source's id for the message item that opened and has no text yet.
        self._message_id = ""
        #: The kind of the last block added.
        self._last_kind = ""

    def text(self, writer: BlockWriter, kind: str, text: str, out: list[bytes]) -> None:
        """Text of ``kind`` grew: it continues the last block, or starts one."""
        queue = self.queue
        block = queue[-1] if queue else None
        if block is None or block.kind != kind or block.ended:
            block = Block(kind, self._choice, sent=self._pieces())
            if kind == "reasoning":
                block.id, self._reasoning_id = self._reasoning_id, ""
            elif self._message_id:  # text or refusal: the first of the message item
                block.source_item, self._message_id = self._message_id, ""
            block = self._add(writer, block, out)
        self._deliver(writer, block, text, out)

    def message_start(self, writer: BlockWriter, id: str | None, out: list[bytes]) -> None:
        """A message item opened upstream (``id``: the source's): its text starts a block."""
        block = self.queue[-1] if self.queue else None
        if block is not None and block.kind in ("text", "refusal") and not block.ended:
            block.ended = True  # the previous item's text: the next text is not its
            self._advance(writer, out)
        self._message_id = id or ""

    def _open_reasoning(self) -> Block | None:
        """The block of reasoning being written (the last, not ended), if any."""
        block = self.queue[-1] if self.queue else None
        return block if block is not None and block.kind == "reasoning" and not block.ended \
            else None

    def reasoning_start(self, id: str | None) -> None:
        """A block of reasoning opened upstream (``id``: the source's); its text will follow."""
        if self._open_reasoning() is None:  # else it is that block's start, seen again
            self._reasoning_id = id or ""

    def reasoning_break(
        self, writer: BlockWriter, text: str, own_blocks: bool, out: list[bytes]
    ) -> None:
        """A blank line between two pieces of reasoning (see ``ReasoningDelta.separator``).

        Inside a block it starts the block's next piece (the target says how).
        Between two blocks it is dropped when the target has blocks of reasoning
        of its own (``own_blocks``: they separate the pieces), or when something
        else came between them (a reader of the target makes the blank line
        itself); else (Chat, two blocks in a row) it is reasoning text.
        """
        block = self._open_reasoning()
        if block is None:
            if not own_blocks and self._last_kind == "reasoning":
                self.text(writer, "reasoning", text, out)
            return
        if block.opened:
            writer.reasoning_break(block, text, out)
        else:  # not on the wire yet (behind a tool call): the pieces go as one text
            block.pending.append(text)

    def reasoning_end(
        self, writer: BlockWriter, reasoning: ReasoningBlock, keep: bool, out: list[bytes]
    ) -> None:
        """The block of reasoning ended upstream; ``reasoning`` is it, with its replay data.

        A block without text is written only if the target ``keep``s it (it
        has a place for its replay data).
        """
        block = self._open_reasoning()
        if block is None:
            if not keep:
                self._reasoning_id = ""
                return
            block = Block(
                "reasoning", self._choice, id=self._reasoning_id or reasoning.id or "",
                sent=self._pieces(),
            )
            self._reasoning_id = ""
            block.reasoning = reasoning
            block.ended = True
            self._add(writer, block, out)
            return
        block.reasoning = reasoning
        block.ended = True
        self._advance(writer, out)

    def cite(self, writer: BlockWriter, citation: Any, out: list[bytes]) -> None:
        """A citation of the text just written: on that text's block (none: not written)."""
        block = self.queue[-1] if self.queue else None
        if block is None or block.kind != "text" or block.ended:
            return
        if block.opened:
            writer.block_cite(block, citation, out)
        else:  # behind a tool call: it goes when the block opens, after its text
            block.citations.append(citation)

    def tool_start(
        self,
        writer: BlockWriter,
        index: int,
        id: str,
        name: str,
        plain: bool,
        item_id: str | None,
        out: list[bytes],
        raw: Any = None,
    ) -> None:
        """Tool call ``index`` opened (``item_id``: the source's id for its item, if any;
        ``raw``: the source's own object for the call)."""
        block = Block("tool", self._choice, id=id, name=name, plain=plain, raw=raw)
        block.source_item = item_id or ""
        self._tools[index] = self._add(writer, block, out)

    def tool_delta(self, writer: BlockWriter, index: int, text: str, out: list[bytes]) -> None:
        """Tool call ``index``'s input grew."""
        self._deliver(writer, self._tools[index], text, out)

    def tool_end(self, writer: BlockWriter, index: int, arguments: str, out: list[bytes]) -> None:
        """Tool call ``index`` is complete."""
        block = self._tools[index]
        block.arguments = arguments
        block.ended = True
        self._advance(writer, out)

    def flush(self, writer: BlockWriter, clean: bool, out: list[bytes]) -> None:
        """Write every block that can be written at the end of the stream.

        A clean ending closes them all. A bad one closes text blocks but never
        a tool call or a block of reasoning the source did not finish: a client
        may run a tool call as soon as it closes, and this one's input is cut
        short; a block of reasoning closes with its replay data, which never came.
        """
        for block in self.queue:
            if clean or (block.kind != "tool" and block.kind != "reasoning"):
                block.ended = True
        self._advance(writer, out)

    def _add(self, writer: BlockWriter, block: Block, out: list[bytes]) -> Block:
        self._last_kind = block.kind
        queue = self.queue
        if queue and queue[-1].kind != "tool":
            queue[-1].ended = True
        queue.append(block)
        self._advance(writer, out)
        return block

    def _deliver(self, writer: BlockWriter, block: Block, text: str, out: list[bytes]) -> None:
        if block.opened:
            block.sent.append(text)
            writer.block_delta(block, text, out)
        else:
            block.pending.append(text)

    def _advance(self, writer: BlockWriter, out: list[bytes]) -> None:
        """Close the ended blocks at the head; open the next and write what it collected."""
        queue = self.queue
        while queue:
            head = queue[0]
            if not head.opened:
                head.opened = True
                writer.open_block(head, out)
                for text in head.pending:
                    head.sent.append(text)
                    writer.block_delta(head, text, out)
                head.pending.clear()
                for citation in head.citations:
                    writer.block_cite(head, citation, out)
                head.citations.clear()
            if not head.ended:
                break
            writer.close_block(head, out)
            queue.popleft()
        live = queue[0] if len(queue) == 1 else None
        if live is not None and live.kind != "tool" and not live.ended:
            self.live[self._choice] = live
        else:
            self.live.pop(self._choice, None)
