"""OpenAI Responses events as parts.

Text is ``output_text``, refusals ``refusal`` content parts, reasoning both
the reasoning summaries and the reasoning text; each ``reasoning`` item is a
block of reasoning whose end (its ``output_item.done``, or its final form in
the terminal response) carries the item's ``id`` and ``encrypted_content``.
Tool calls are the
``function_call``, ``custom_tool_call`` (plain-text input), ``mcp_call`` and
``kindo_call`` items (the last two run by the server); hosted tools with no
input to stream (web search, shell, code interpreter) make no parts.

The ``.done`` events and the final items are authoritative, and some servers
send little else: MindsHub delivers reasoning as one finished item, a
resumed stream may replay final items without deltas, a gateway may send
only the terminal response. So each final text is compared with what its
deltas streamed: what they missed is streamed now, as one more delta, and a
final text that contradicts them is kept out of the turn with a
``text_replaced`` warning (the lane's snapshot has the final one).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping
from typing import Any

from sse_engine._tally import Tally
from sse_engine.parts import BASE_HANDLERS, ToolCall, Translator
from sse_engine.responses._events import (
    ResponseArgumentsDoneEvent,
    ResponseCallDeltaEvent,
    ResponseContentDeltaEvent,
    ResponseContentPartEvent,
    ResponseCustomToolInputDoneEvent,
    ResponseLifecycleEvent,
    ResponseOutputItemEvent,
    ResponseRefusalDoneEvent,
    ResponseSummaryPartEvent,
    ResponseSummaryTextDeltaEvent,
    ResponseSummaryTextDoneEvent,
    ResponseTerminalEvent,
    ResponseTextDoneEvent,
)
from sse_engine.responses._lane import ResponsesLane
from sse_engine.responses._wire import (
    CALL_EVENTS,
    CALL_ITEMS,
    CONTENT_EVENTS,
    FINISH_REASONS,
    PART_CHANNELS,
    UNFINISHED_STATUSES,
    CallKind,
    usage_from_wire,
)

__all__ = ["ResponsesParts"]

_Key = tuple[int, str, int]  # (output_index, "content" or "summary", part index)


def _str(value: Any) -> str:
    return value if type(value) is str else ""


def _crc(text: str, start: int = 0) -> int:
    """The CRC-32 of ``text``'s UTF-8 (a lone surrogate as Python writes it), from ``start``."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass"), start)


def _id(item: Mapping[str, Any]) -> str | None:
    ident = item.get("id")
    return ident if type(ident) is str and ident else None


class ResponsesParts(Translator):
    """The Responses lane's events as parts."""

    REASONS = FINISH_REASONS
    lane: ResponsesLane

    def _setup(self) -> None:
        builder = self.builder
        # Each content delta's type -> the builder method its text goes to.
        self._emitters: dict[str, Callable[[str, int, object], None]] = {
            kind: getattr(builder, PART_CHANNELS[part])
            for kind, (_, part) in CONTENT_EVENTS.items()
        }
        self._calls: dict[int, tuple[ToolCall, int]] = {}
        self._streamed: dict[_Key, list[str]] = {}
        #: Lean (``PartStream(lane, lean=True)``): the streamed text is counted, not
        #: kept, and each part's CRC-32 of it is what a final text is compared with.
        self._sums: dict[_Key, int] | None = {} if self.builder.lean else None
        self._ids: dict[str, int] = {}
        self._seen: set[int] = set()
        #: The message items whose opening was told (once each, added or only done).
        self._messages: set[int] = set()
        self._done: set[int] = set()
        self._ending: str | None = None

    def raw_reasons(self) -> Mapping[int, str | None]:
        ending = self._ending
        if ending == "incomplete":
            ending = self.lane.snapshot.incomplete_reason or ending
        return {0: ending}

    # -- the response ------------------------------------------------------------------

    def _identify(self, response: Mapping[str, Any]) -> None:
        ident, model = response.get("id"), response.get("model")
        self.builder.identify(
            ident if type(ident) is str else None, model if type(model) is str else None
        )

    def _lifecycle(self, event: ResponseLifecycleEvent) -> None:
        self._identify(event.response)

    def _terminal(self, event: ResponseTerminalEvent) -> None:
        self._final(event.response, event.type.rpartition(".")[2])

    def loaded(self, response: Mapping[str, Any]) -> None:
        status = response.get("status")
        self._final(response, status if type(status) is str else None)

    def _final(self, response: Mapping[str, Any], ending: str | None) -> None:
        """The final response object: what the stream did not show, and how it ended."""
        self._identify(response)
        self._ending = ending
        output = response.get("output")
        if type(output) is list:
            self._unseen_items(output)
        usage = response.get("usage")
        if type(usage) is dict:
            self.builder.usage(usage_from_wire(usage))

    def _unseen_items(self, output: list[Any]) -> None:
        """Items the terminal response holds that were never finished in the stream."""
        for position, item in enumerate(output):
            if type(item) is not dict:
                continue
            ident = item.get("id")
            index = self._ids.get(ident) if type(ident) is str else None
            if index is None and position not in self._seen:
                index = position
            if index is not None and index not in self._done:
                self._item_done(index, item)

    # -- items -------------------------------------------------------------------------

    def _item(self, event: ResponseOutputItemEvent) -> None:
        if event.type.endswith("added"):
            self._item_added(event.output_index, event.item)
        else:
            self._item_done(event.output_index, event.item)

    def _note(self, index: int, item: Mapping[str, Any]) -> None:
        self._seen.add(index)
        ident = item.get("id")
        if type(ident) is str:
            self._ids[ident] = index

    def _item_added(self, index: int, item: Mapping[str, Any]) -> None:
        self._note(index, item)
        kind = _client_call(item)
        if kind is not None:
            call, position = self._start(index, item, kind)
            if text := _str(item.get(kind.field)):
                self.builder.call_delta(call, text, position)
        else:
            if item.get("type") == "reasoning":
                self.builder.reasoning_start(id=_id(item))
            self._message_start(index, item)
            self._settle_item(index, item)

    def _item_done(self, index: int, item: Mapping[str, Any]) -> None:
        self._note(index, item)
        self._done.add(index)
        kind = _client_call(item)
        if kind is not None:
            call, position = self._calls.get(index) or self._start(index, item, kind)
            final = item.get(kind.field)
            text = final if type(final) is str else None
            if item.get("status") in UNFINISHED_STATUSES:
                # Cut off (a failed or incomplete response): what arrived, but no end.
                if text is not None:
                    self._catch_up(call, position, text)
            else:
                self.builder.call_end(call, position, 0, text)
            return
        reasoning = item.get("type") == "reasoning"
        if reasoning:
            self.builder.reasoning_start(id=_id(item))
        self._message_start(index, item)
        self._settle_item(index, item)
        if reasoning and item.get("status") not in UNFINISHED_STATUSES:
            encrypted = item.get("encrypted_content")
            self.builder.reasoning_end(
                encrypted_content=encrypted if type(encrypted) is str else None,
                id=_id(item),
                raw=item,
            )
        streamed = self._streamed
        for key in [k for k in streamed if k[0] == index]:
            del streamed[key]

    def _message_start(self, index: int, item: Mapping[str, Any]) -> None:
        """Tell a message item's opening, once, before its text."""
        if item.get("type") == "message" and index not in self._messages:
            self._messages.add(index)
            self.builder.message_item_start(_id(item))

    def _settle_item(self, index: int, item: Mapping[str, Any]) -> None:
        """Stream whatever of a message's or reasoning item's final text was not streamed."""
        for field, where in (("summary", "summary"), ("content", "content")):
            parts = item.get(field)
            if type(parts) is list:
                for position, part in enumerate(parts):
                    if type(part) is dict:
                        self._settle_part((index, where, position), part)

    def _settle_part(self, key: _Key, part: Mapping[str, Any]) -> None:
        kind = part.get("type")
        if type(kind) is str and kind in PART_CHANNELS:
            self._settle(key, _str(part.get("refusal" if kind == "refusal" else "text")), kind)

    def _settle(self, key: _Key, final: str, kind: str) -> None:
        """``final`` is the whole text of the part at ``key``: stream what is missing."""
        if not final:
            return  # a final object that leaves the text out says nothing about it
        pieces = self._streamed.get(key)
        sums = self._sums
        if sums is None:
            streamed = "".join(pieces) if pieces else ""
            length, agrees = len(streamed), final.startswith(streamed)
        else:
            length = pieces.length if type(pieces) is Tally else 0
            agrees = _crc(final[:length]) == sums.get(key, 0)
        if agrees and len(final) == length:
            return
        if agrees:
            self._emit(key, final[length:], getattr(self.builder, PART_CHANNELS[kind]))
        else:
            self.builder.warn(
                "text_replaced",
                f"output item #{key[0]}: the final {kind} text differs from its streamed "
                "deltas; the turn keeps the streamed text (the snapshot has the final one)",
            )

    def _emit(self, key: _Key, text: str, emit: Callable[[str, int, object], None]) -> None:
        """Stream ``text`` into the part at ``key`` (kept, to compare with its final text)."""
        pieces = self._streamed.get(key)
        sums = self._sums
        if sums is not None:
            sums[key] = _crc(text, sums.get(key, 0))
            if pieces is None:
                pieces = self._streamed[key] = Tally()
            pieces.append(text)
        elif pieces is None:
            self._streamed[key] = [text]
        else:
            pieces.append(text)
        emit(text, 0, key)

    # -- content -----------------------------------------------------------------------

    def _content_delta(self, event: ResponseContentDeltaEvent) -> None:
        if event.output_index is not None:
            key = (event.output_index, "content", event.content_index)
            self._emit(key, event.delta, self._emitters[event.type])

    def _text_done(self, event: ResponseTextDoneEvent) -> None:
        if event.output_index is not None:
            key = (event.output_index, "content", event.content_index)
            self._settle(key, event.text, CONTENT_EVENTS[event.type][1])

    def _refusal_done(self, event: ResponseRefusalDoneEvent) -> None:
        if event.output_index is not None:
            key = (event.output_index, "content", event.content_index)
            self._settle(key, event.refusal, "refusal")

    def _part(self, event: ResponseContentPartEvent) -> None:
        if event.output_index is not None:
            self._settle_part((event.output_index, "content", event.content_index), event.part)

    def _summary_delta(self, event: ResponseSummaryTextDeltaEvent) -> None:
        if event.output_index is not None:
            key = (event.output_index, "summary", event.summary_index)
            self._emit(key, event.delta, self.builder.reasoning)

    def _summary_done(self, event: ResponseSummaryTextDoneEvent) -> None:
        if event.output_index is not None:
            key = (event.output_index, "summary", event.summary_index)
            self._settle(key, event.text, "summary_text")

    def _summary_part(self, event: ResponseSummaryPartEvent) -> None:
        if event.output_index is not None:
            self._settle_part((event.output_index, "summary", event.summary_index), event.part)

    # -- tool calls ----------------------------------------------------------------------

    def _start(
        self, index: int, item: Mapping[str, Any], kind: CallKind
    ) -> tuple[ToolCall, int]:
        call_id = item.get("call_id")
        found = self._calls[index] = self.builder.call_start(
            call_id if type(call_id) is str and call_id else _str(item.get("id")),
            _str(item.get("name")),
            _str(item.get("type")),
            server=kind.server,
            plain=kind.plain,
            item_id=_id(item),
        )
        return found

    def _call_for(self, index: int | None, event_type: str) -> tuple[ToolCall, int] | None:
        """The call an input event is about (opened now if no item announced it)."""
        if index is None:
            return None
        found = self._calls.get(index)
        if found is None:
            kind = CALL_EVENTS[event_type]
            item = self.lane.snapshot.item(index)
            if not kind.part or item is None or index in self._done:
                return None
            found = self._start(index, item.item, kind)
        return found

    def _call_delta(self, event: ResponseCallDeltaEvent) -> None:
        found = self._call_for(event.output_index, event.type)
        if found is not None and event.delta:
            self.builder.call_delta(found[0], event.delta, found[1])

    def _call_input_done(
        self, event: ResponseArgumentsDoneEvent | ResponseCustomToolInputDoneEvent
    ) -> None:
        found = self._call_for(event.output_index, event.type)
        if found is None:
            return
        final = event.arguments if isinstance(event, ResponseArgumentsDoneEvent) else event.input
        self._catch_up(*found, final)

    def _catch_up(self, call: ToolCall, position: int, final: str) -> None:
        """Stream what a call's final input says beyond the fragments sent so far."""
        streamed = call.arguments
        if final != streamed and final.startswith(streamed):
            self.builder.call_delta(call, final[len(streamed) :], position)


def _client_call(item: Mapping[str, Any]) -> CallKind | None:
    """The kind of a tool-call item that is a call of the turn, else None."""
    kind = item.get("type")
    found = CALL_ITEMS.get(kind) if type(kind) is str else None
    return found if found is not None and found.part else None


ResponsesParts.HANDLERS = {
    **BASE_HANDLERS,
    ResponseLifecycleEvent: ResponsesParts._lifecycle,
    ResponseTerminalEvent: ResponsesParts._terminal,
    ResponseOutputItemEvent: ResponsesParts._item,
    ResponseContentDeltaEvent: ResponsesParts._content_delta,
    ResponseTextDoneEvent: ResponsesParts._text_done,
    ResponseRefusalDoneEvent: ResponsesParts._refusal_done,
    ResponseContentPartEvent: ResponsesParts._part,
    ResponseSummaryTextDeltaEvent: ResponsesParts._summary_delta,
    ResponseSummaryTextDoneEvent: ResponsesParts._summary_done,
    ResponseSummaryPartEvent: ResponsesParts._summary_part,
    ResponseCallDeltaEvent: ResponsesParts._call_delta,
    ResponseArgumentsDoneEvent: ResponsesParts._call_input_done,
    ResponseCustomToolInputDoneEvent: ResponsesParts._call_input_done,
}
