"""Anthropic Messages events as parts.

Thinking blocks are reasoning; each is a block of reasoning (``ReasoningStart``
... ``ReasoningEnd``) whose end carries its signature, and a redacted thinking
block is one without text whose end carries its ``data``. ``tool_use``,
``server_tool_use`` and ``mcp_tool_use`` blocks are tool calls, the last two
run by the server; a server tool's result block (``web_search_tool_result``
and the other ``*_tool_result`` blocks) is the ``ServerToolResult`` of the
call it answers. A text block's citations (those it starts with, then each
``citations_delta``) are ``Citation`` parts. The lane parses a tool block's input
when the block stops (and warns ``tool_input_invalid`` itself), so its
``ToolUseStop`` gives the final input. Usage is reported at ``message_start``
and again, merged, at each ``message_delta``; an input count of 0 at the start
(non-Claude models behind a gateway, which send the real count at the end) is
"not known yet", not zero.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from sse_engine.messages._events import (
    BlockStart,
    BlockStop,
    CitationDelta,
    InputJsonDelta,
    MessageDelta,
    MessageStart,
    TextBlockDelta,
    ThinkingDelta,
    ToolUseStop,
)
from sse_engine.messages._lane import MessagesLane
from sse_engine.messages._wire import (
    REASONING_BLOCKS,
    SERVER_TOOL_BLOCKS,
    STOP_REASONS,
    TOOL_BLOCK_TYPES,
    citation_fields,
    server_result_of,
    usage_from_wire,
)
from sse_engine.parts import BASE_HANDLERS, ToolCall, Translator

__all__ = ["MessagesParts"]

class MessagesParts(Translator):
    """The Messages lane's events as parts."""

    REASONS = STOP_REASONS
    lane: MessagesLane

    def _setup(self) -> None:
        # Block index -> the tool call it is, and its index in the turn.
        self._calls: dict[int, tuple[ToolCall, int]] = {}
        # The indexes of the blocks of reasoning still open.
        self._open_reasoning: set[int] = set()
        # The server's calls by id: the result block that answers one names it.
        self._server_calls: dict[str, tuple[ToolCall, int]] = {}

    def raw_reasons(self) -> Mapping[int, str | None]:
        reason = self.lane.snapshot.stop_reason
        return {0: reason if type(reason) is str else None}

    def _message_start(self, event: MessageStart) -> None:
        self.builder.identify(event.id, event.model)
        # Blocks complete in message_start itself open and close at once. (From
        # the payload: the snapshot may be further on, when one read held more.)
        message = event.raw.get("message")
        content = message.get("content") if type(message) is dict else None
        for index, block in enumerate(content if type(content) is list else ()):
            if type(block) is dict and type(kind := block.get("type")) is str:
                self._open(index, kind, block)
                found = self._calls.get(index)
                if found is not None:
                    value = block.get("input", {})
                    self.builder.call_end(found[0], found[1], 0, _dumps(value), value)
                self._close(index, block)
        if event.usage:
            self.builder.usage(usage_from_wire(event.usage))

    def _block_start(self, event: BlockStart) -> None:
        self._open(event.index, event.block_type, event.block)

    def _open(self, index: int, kind: str, block: Mapping[str, Any]) -> None:
        if kind in TOOL_BLOCK_TYPES:
            started = self._calls[index] = self.builder.call_start(
                _str(block.get("id")), _str(block.get("name")), kind,
                server=kind in SERVER_TOOL_BLOCKS,
            )
            if started[0].server:
                self._server_calls[started[0].id] = started
        elif kind == "text":
            if text := _str(block.get("text")):
                self.builder.text(text)
            citations = block.get("citations")
            for citation in citations if type(citations) is list else ():
                self._cite(citation)
        elif (answered := server_result_of(kind, block)) is not None:
            found = self._server_calls.get(answered)
            if found is not None:
                self.builder.server_result(found[0], found[1], block)
        elif kind in REASONING_BLOCKS:
            self._open_reasoning.add(index)
            self.builder.reasoning_start()
            if thinking := _str(block.get("thinking")):
                self.builder.reasoning(thinking, piece=index)

    def _block_stop(self, event: BlockStop) -> None:
        self._close(event.index, event.block)

    def _close(self, index: int, block: Mapping[str, Any]) -> None:
        """End a block of reasoning with its replay data (the block as the lane completed it)."""
        if index in self._open_reasoning:
            self._open_reasoning.discard(index)
            signature, data = block.get("signature"), block.get("data")
            self.builder.reasoning_end(
                # An empty signature (a block that never got its signature_delta) is none.
                signature=signature if type(signature) is str and signature else None,
                redacted=data if block.get("type") == "redacted_thinking" and type(data) is str
                else None,
                raw=block,
            )

    def text_sink(self) -> Callable[..., None]:
        # The lane gives every string delta of its hot path: (delta type, string, index).
        return MessagesParts._sink

    def _sink(self, delta_type: str, value: str, index: int) -> None:
        """What _text, _thinking and _input do with their events' fields (a signature
        needs nothing: its block's stop carries it)."""
        if delta_type == "text_delta":
            self.builder.text(value)
        elif delta_type == "thinking_delta":
            self.builder.reasoning(value, piece=index)
        elif delta_type == "input_json_delta":
            # A tool call's fragment, _input's work done here: a call less per fragment.
            found = self._calls.get(index)
            if found is not None and value:
                self.builder.call_delta(found[0], value, found[1])

    def _text(self, event: TextBlockDelta) -> None:
        self.builder.text(event.text)

    def _citation(self, event: CitationDelta) -> None:
        self._cite(event.citation)

    def _cite(self, citation: Any) -> None:
        """One citation object of a text block (a ``citations_delta``'s or one it started with)."""
        if type(citation) is dict and type(kind := citation.get("type")) is str:
            url, title, cited_text = citation_fields(citation)
            self.builder.citation(kind, citation, url=url, title=title, cited_text=cited_text)

    def _thinking(self, event: ThinkingDelta) -> None:
        self.builder.reasoning(event.thinking, piece=event.index)

    def _input(self, event: InputJsonDelta) -> None:
        self._sink("input_json_delta", event.partial_json, event.index)

    def _tool_stop(self, event: ToolUseStop) -> None:
        found = self._calls.get(event.index)
        if found is None:
            return
        call, index = found
        # The lane parsed the input (and warned if it is not JSON). No fragments:
        # it came whole with the block (``{}`` for a tool without parameters).
        arguments = call.arguments or _dumps(event.block.get("input", {}))
        self.builder.call_end(call, index, 0, arguments, event.input, event.input_error)

    def _delta(self, event: MessageDelta) -> None:
        if event.usage:
            self.builder.usage(usage_from_wire(event.usage))


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _str(value: Any) -> str:
    return value if type(value) is str else ""


MessagesParts.HANDLERS = {
    **BASE_HANDLERS,
    MessageStart: MessagesParts._message_start,
    BlockStart: MessagesParts._block_start,
    BlockStop: MessagesParts._block_stop,
    TextBlockDelta: MessagesParts._text,
    CitationDelta: MessagesParts._citation,
    ThinkingDelta: MessagesParts._thinking,
    InputJsonDelta: MessagesParts._input,
    ToolUseStop: MessagesParts._tool_stop,
    MessageDelta: MessagesParts._delta,
}
