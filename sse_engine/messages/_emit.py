"""Parts to Anthropic Messages: ``message_start`` ... ``message_stop``.

``message_start`` opens the stream with the message's id, model and the
usage known so far (zeros when the source reports usage only at the end, as
MindsHub does for non-Claude models). Text is a ``text`` block, each block of
reasoning a ``thinking`` block (its ``signature_delta`` written before its
``content_block_stop`` when the source had one: only a Messages source does;
another source's thinking keeps the empty signature the block opens with, and
a source's reasoning without text is not written), a redacted thinking block
as it came, a refusal's explanation a ``text`` block (Messages has no
refusal field: its stop reason says it), a tool call a ``tool_use`` block
whose input streams as ``input_json_delta`` fragments. A Messages source's
citations of the request's documents and search results are written as
``citations_delta`` on their text block; a web search's are not (the server
tool blocks they point at are not relayed), nor any other provider's. The end is
``message_delta`` (stop reason, cumulative usage) and ``message_stop``; a
failed or truncated source ends with ``event: error``, which every Anthropic
client raises.

A ``tool_use`` block's input is written only as far as the anthropic SDK
reads it (``_tool_input.py``: the SDK parses the fragments after each one,
and raises a ``ValueError`` on what its JSON reader refuses), and the block
stops only when its input is complete. A call whose input cannot be written
(not JSON, or JSON the SDK refuses) is left open, the rest of the turn is
relayed, and the stream ends with ``event: error`` naming the call: Messages
has no way to carry it, and a clean ending would let a client run the call
with part of its input.
"""

from __future__ import annotations

import json
from typing import Any, Final

from sse_engine._encoder import json_frame
from sse_engine._outcome import Outcome, StreamError
from sse_engine.messages._frames import encode_messages_event
from sse_engine.messages._tool_input import ToolInput
from sse_engine.messages._wire import (
    CONTEXT_WINDOW_EXCEEDED,
    RELAYED_CITATIONS,
    WIRE_REASONS,
    error_body,
    usage_to_wire,
)
from sse_engine.parts import Citation, Finish, ReasoningBlock
from sse_engine.relay import Block, Emitter, failure_of, fill, template

__all__ = ["MessagesEmitter"]

#: Each kind of block: its empty ``content_block`` and its delta's (type, field).
_BLOCKS: Final[dict[str, tuple[dict[str, Any], str, str]]] = {
    "text": ({"type": "text", "text": ""}, "text_delta", "text"),
    "refusal": ({"type": "text", "text": ""}, "text_delta", "text"),
    "reasoning": (
        {"type": "thinking", "thinking": "", "signature": ""},
        "thinking_delta",
        "thinking",
    ),
    "tool": ({"type": "tool_use", "input": {}}, "input_json_delta", "partial_json"),
}

def stop_reason(finish: Finish, tool_calls: int) -> str:
    """What Messages says for a turn that ended with ``finish``."""
    if finish.reason == "length" and finish.raw_reason == CONTEXT_WINDOW_EXCEEDED:
        return finish.raw_reason
    word = WIRE_REASONS.get(finish.reason) or (
        "end_turn" if finish.outcome is Outcome.COMPLETED else "max_tokens"
    )
    return "end_turn" if word == "tool_use" and not tool_calls else word


class MessagesEmitter(Emitter):
    """Writes a Messages stream (the first choice of the source)."""

    id_prefix = "msg_"
    opens_on_failure = False  # an error before any content is just `event: error`
    request_id_header = "request-id"
    error_body = staticmethod(error_body)

    def __init__(self, *, model: str | None, id: str | None, created: int) -> None:
        super().__init__(model=model, id=id, created=created)
        self._count = 0
        #: The input of each tool block being written, by block index.
        self._inputs: dict[int, ToolInput] = {}
        #: The tool calls whose input could not be written, each said with why.
        self._unwritten: list[str] = []

    def _event(self, payload: dict[str, Any], out: list[bytes]) -> None:
        # encode_messages_event(payload), less its checks of our own payload's type.
        out.append(json_frame(f"event: {payload['type']}\n", payload))

    def open(self, out: list[bytes]) -> None:
        message: dict[str, Any] = {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage_to_wire(self.usage),
        }
        self._event({"type": "message_start", "message": message}, out)

    def open_block(self, block: Block, out: list[bytes]) -> None:
        block.index = self._count
        self._count += 1
        content = _BLOCKS[block.kind][0]
        if block.kind == "tool":
            content = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
        elif block.reasoning is not None and block.reasoning.redacted is not None:
            content = {"type": "redacted_thinking", "data": block.reasoning.redacted}
        self._event(
            {"type": "content_block_start", "index": block.index, "content_block": content}, out
        )
        _, kind, field = _BLOCKS[block.kind]

        def write(text: str, number: str) -> bytes:
            delta = {"type": kind, field: text}
            payload = {"type": "content_block_delta", "index": block.index, "delta": delta}
            return json_frame("event: content_block_delta\n", payload)

        block.template = template(write)
        if block.kind == "tool":
            self._inputs[block.index] = ToolInput()
        else:  # text and thinking deltas are the template filled
            block.fills = True

    def block_delta(self, block: Block, text: str, out: list[bytes]) -> None:
        if block.kind == "tool":
            if block.plain:  # a plain-text input is not JSON: it goes whole at the end
                return
            text = self._inputs[block.index].feed(text)  # as far as the SDK reads it
            if not text:
                return
        out.append(fill(block.template, text))

    def close_block(self, block: Block, out: list[bytes]) -> None:
        if block.kind == "tool" and not self._complete_input(block, out):
            return  # left open: a client may run a call as soon as its block stops
        reasoning = block.reasoning
        if reasoning is not None and reasoning.signature is not None:
            delta = {"type": "signature_delta", "signature": reasoning.signature}
            self._event(
                {"type": "content_block_delta", "index": block.index, "delta": delta}, out
            )
        self._event({"type": "content_block_stop", "index": block.index}, out)

    def _complete_input(self, block: Block, out: list[bytes]) -> bool:
        """Write the rest of a tool block's input; False when it cannot be written."""
        tool = self._inputs.pop(block.index)
        # A plain-text input goes whole, as a JSON string (checked too: a lone
        # surrogate in it has no UTF-8 form, and the SDK would raise).
        final = json.dumps(block.final, ensure_ascii=False) if block.plain else block.final
        rest = tool.finish(final)
        if rest is None:
            self._unwritten.append(
                f"the upstream's tool call {block.id!r} ({block.name}) has input a Messages "
                f"client cannot read, so its tool_use block was left open: {tool.error}"
            )
            return False
        if rest:
            out.append(fill(block.template, rest))
        return True

    def cites(self, citation: Citation) -> bool:
        # An Anthropic citation of the request's documents or search results, as the
        # source sent it (only a Messages source has these kinds).
        return citation.type in RELAYED_CITATIONS and type(citation.raw) is dict

    def block_cite(self, block: Block, citation: Citation, out: list[bytes]) -> None:
        delta = {"type": "citations_delta", "citation": citation.raw}
        self._event({"type": "content_block_delta", "index": block.index, "delta": delta}, out)

    def keeps(self, reasoning: ReasoningBlock) -> bool:
        return reasoning.signature is not None or reasoning.redacted is not None

    def finish(self, finish: Finish, out: list[bytes]) -> None:
        failure = failure_of(finish)
        self.flush(failure is None, out)
        if failure is None and self._unwritten:
            # The upstream's turn is complete, but not all of it reached the client.
            failure = StreamError(
                message="; ".join(self._unwritten), code="tool_input_invalid", retryable=True
            )
        if failure is not None:
            out.append(encode_messages_event(error_body(failure)))
            return
        delta = {
            "stop_reason": stop_reason(finish, self.tool_calls.get(0, 0)),
            "stop_sequence": None,
        }
        self._event(
            {"type": "message_delta", "delta": delta, "usage": usage_to_wire(self.usage)}, out
        )
        self._event({"type": "message_stop"}, out)
