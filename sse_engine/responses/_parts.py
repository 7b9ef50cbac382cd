"""OpenAI Responses events as parts.

Text is ``output_text``, refusals ``refusal`` content parts, reasoning both
the reasoning summaries and the reasoning text; each ``reasoning`` item is a
block of reasoning whose end (its ``output_item.done``, or its final form in
the terminal response) carries the item's ``id`` and ``encrypted_content``.
Tool calls are the items ``CALL_ITEMS`` marks as calls of the turn:
``function_call``, ``custom_tool_call`` (plain-text input), the server-run
``mcp_call``, ``kindo_call`` and ``web_search_call`` (named ``web_search``,
its input the item's ``action``: the final item is the call's
``ServerToolResult``), and the built-in tools the client runs,
``local_shell_call``, ``apply_patch_call`` and a ``shell_call`` in a local
environment or none (named ``local_shell``, ``apply_patch``, ``shell``; the
input is the item's ``action`` or ``operation`` as JSON). A text part's
annotations (``annotation.added``, and those of its announced and final
forms: each one once) are ``Citation`` parts. Other hosted tools
(a ``shell_call`` in a container, code interpreter, ...) make no parts.

The parts follow the events; the texts are the lane's. Each delta is shown
as it comes, and the translator keeps only how much of each content part it
showed: the text itself is the lane's (``ContentPart.streamed``, in the
snapshot). The ``.done`` events, the final items and the terminal response
are authoritative (the snapshot's rule), and some servers send little else
(MindsHub's reasoning as one finished item, a resume past its window, a
gateway's terminal response only). So each final text is compared with what
was shown: what the deltas missed is shown then, as one more delta; a final
text that contradicts them becomes the turn's text (``Turn.text`` and
``Turn.refusal`` are the snapshot's) with a ``text_replaced`` warning, the
parts staying what was shown. Reasoning keeps what streamed (its blocks are
already out), with the same warning.

An event may refer to an item before ``output_item.added`` announced it (or
without one ever coming). Its text is shown at once, after the opening the
event can tell (the item id); a tool call's parts wait for the item itself
(its name and call id), so one item is one call and the parts do not depend
on how the bytes were read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from sse_engine._lane import StreamEnd
from sse_engine.parts import BASE_HANDLERS, ToolCall, Translator
from sse_engine.responses._events import (
    ResponseAnnotationEvent,
    ResponseArgumentsDoneEvent,
    ResponseCallDeltaEvent,
    ResponseContentDeltaEvent,
    ResponseContentPartEvent,
    ResponseCustomToolInputDoneEvent,
    ResponseLifecycleEvent,
    ResponseOutputItemEvent,
    ResponseRefusalDoneEvent,
    ResponseShellCommandDeltaEvent,
    ResponseShellCommandEvent,
    ResponseShellOutputDeltaEvent,
    ResponseShellOutputDoneEvent,
    ResponseSummaryPartEvent,
    ResponseSummaryTextDeltaEvent,
    ResponseSummaryTextDoneEvent,
    ResponseTerminalEvent,
    ResponseTextDoneEvent,
)
from sse_engine.responses._lane import ResponsesLane
from sse_engine.responses._shown import ShownTexts, part_text, routes
from sse_engine.responses._wire import (
    CALL_EVENTS,
    CALL_ITEMS,
    CONTENT_EVENTS,
    FINISH_REASONS,
    PART_CHANNELS,
    UNFINISHED_STATUSES,
    CallKind,
    annotation_fields,
    usage_from_wire,
)

__all__ = ["ResponsesParts"]

_CallInput = ResponseCallDeltaEvent | ResponseArgumentsDoneEvent | ResponseCustomToolInputDoneEvent


def _str(value: Any) -> str:
    return value if type(value) is str else ""


def _id(item: Mapping[str, Any]) -> str | None:
    ident = item.get("id")
    return ident if type(ident) is str and ident else None


class ResponsesParts(Translator):
    """The Responses lane's events as parts."""

    REASONS = FINISH_REASONS
    lane: ResponsesLane

    def _setup(self) -> None:
        builder = self.builder
        self._routes = routes(type(builder))
        self._done: set[int] = set()
        lane = self.lane
        self._texts = ShownTexts(builder, lambda index: lane.snapshot.item(index))
        self._shown = self._texts.shown  # read on every delta
        self._calls: dict[int, tuple[ToolCall, int]] = {}
        self._announced: set[int] = set()  # items whose output_item.added or .done came
        self._early: set[int] = set()  # items an event referred to before that
        self._pending: dict[int, list[_CallInput]] = {}  # a call's input events, waiting for it
        self._messages: set[int] = set()  # message items whose opening was told
        # (output_index, content_index, annotation_index) of each annotation cited.
        self._cited: set[tuple[int, int, int]] = set()
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
        """The final response object: what the stream did not show, and how it ended.

        The lane has applied it (this is the stream's last event, or ``load()``):
        its snapshot holds the final items, the stream's and those it never showed.
        """
        self._identify(response)
        self._ending = ending
        for item in self.lane.snapshot.items:
            if item.done and item.output_index not in self._done:
                self._item_done(item.output_index, item.item)
        output = response.get("output")
        for index, final in enumerate(output if type(output) is list else ()):
            if type(final) is dict:  # annotations its final items add
                self._cite_item(index, final)
        usage = response.get("usage")
        if type(usage) is dict:
            self.builder.usage(usage_from_wire(usage))

    def on_end(self, event: StreamEnd) -> None:
        # A call whose item never came: what its events said, without an end.
        for index in sorted(self._pending):
            events = self._pending[index]
            kind = CALL_EVENTS[events[0].type]
            self._start(index, {"id": events[0].item_id, "type": kind.item}, kind)
            self._replay(index)
        super().on_end(event)

    # -- items -------------------------------------------------------------------------

    def _item(self, event: ResponseOutputItemEvent) -> None:
        if event.type.endswith("added"):
            self._item_added(event.output_index, event.item)
        else:
            self._item_done(event.output_index, event.item)

    def _item_added(self, index: int, item: Mapping[str, Any]) -> None:
        if index in self._done:
            return  # announced after its final form: the lane keeps the final one
        early = index in self._early
        if index in self._announced and not early:
            self._texts.forget(index)  # added a second time: the lane starts the item again
        self._announced.add(index)
        kind = _client_call(item, index in self._calls)
        if kind is not None:
            call, position = self._calls.get(index) or self._start(index, item, kind)
            if not early and kind.events is not None and (text := _str(item.get(kind.field))):
                self.builder.call_delta(call, text, position)
            self._replay(index)
            return
        self._pending.pop(index, None)  # no call of the turn
        self._open(index, item.get("type"), _id(item))
        if not early:  # else the lane keeps what the events built, not this opening's content
            self._show_parts(index, item)
            self._cite_item(index, item)

    def _item_done(self, index: int, item: Mapping[str, Any]) -> None:
        again = index in self._done
        self._announced.add(index)
        kind = _client_call(item, index in self._calls)
        if kind is not None:
            if again:
                return
            call, position = self._calls.get(index) or self._start(index, item, kind)
            self._replay(index)
            self._done.add(index)
            text = _input_text(item, kind)
            if item.get("status") in UNFINISHED_STATUSES:
                # Cut off (a failed or incomplete response): what arrived, but no end.
                if text is not None:
                    self._catch_up(call, position, text)
            else:
                self.builder.call_end(call, position, 0, text)
                if kind.server:  # the item says what came of it (output, error, sources)
                    self.builder.server_result(call, position, item)
            return
        self._done.add(index)
        self._pending.pop(index, None)
        reasoning = item.get("type") == "reasoning"
        if not again:
            self._open(index, item.get("type"), _id(item))
        self._texts.settle_item(index, item)
        self._cite_item(index, item)
        if reasoning and not again and item.get("status") not in UNFINISHED_STATUSES:
            encrypted = item.get("encrypted_content")
            self.builder.reasoning_end(
                encrypted_content=encrypted if type(encrypted) is str else None,
                id=_id(item),
                raw=item,
            )

    def _open(self, index: int, kind: Any, ident: str | None) -> None:
        """Tell an item's opening, once, before its text (``kind``: the item's type)."""
        if kind == "message":
            if index not in self._messages:
                self._messages.add(index)
                self.builder.message_item_start(ident)
        elif kind == "reasoning":
            self.builder.reasoning_start(id=ident)  # the open block, when one is

    def _early_item(self, index: int, kind: str, ident: str | None) -> None:
        """An event refers to item ``index`` before it was announced: the lane opened it."""
        if index not in self._early:
            self._early.add(index)
            self._open(index, kind, ident)

    def _show_parts(self, index: int, item: Mapping[str, Any]) -> None:
        """The parts an opening item comes with: the lane starts them with their text."""
        for where in ("summary", "content"):
            parts = item.get(where)
            for position, part in enumerate(parts if type(parts) is list else ()):
                if type(part) is dict:
                    channel, text = part_text(part)
                    self._texts.show((index, where, position), channel, text or "")

    def _note(self, index: int, channel: str | None, item_id: str | None) -> bool:
        """An event refers to item ``index``; False when the item is done (the lane ignores it)."""
        if index in self._done:
            return False
        if index not in self._announced:
            self._early_item(index, "reasoning" if channel == "reasoning" else "message", item_id)
        return True

    def text_sink(self) -> Callable[..., bool]:
        # The lane gives a text or call input delta's fields as _sink reads them.
        return ResponsesParts._sink

    def _content_delta(self, event: ResponseContentDeltaEvent) -> None:
        self._sink(
            event.type, event.output_index, event.content_index, event.delta, event.item_id
        )

    def _summary_delta(self, event: ResponseSummaryTextDeltaEvent) -> None:
        self._sink(
            event.type, event.output_index, event.summary_index, event.delta, event.item_id
        )

    def _sink(
        self, kind: str, output_index: int, index: int, delta: str, item_id: str | None
    ) -> bool:
        """A content part's or reasoning summary's text grew (``index``: which of them),
        or a call's input did. False only for a call that has not started: its
        event must wait for its item (the lane then makes it, and _call_delta keeps it).
        """
        route = self._routes[kind]
        if route is None:
            found = self._calls.get(output_index)
            if found is None:
                return False
            call = found[0]
            if not call.done and output_index not in self._done and delta:
                self.builder.call_delta(call, delta, found[1])
            return True
        where, channel, emit = route
        key = (output_index, where, index)
        shown = self._shown.get(key)
        if shown is None:
            if not self._note(output_index, channel, item_id):
                return True
            shown = self._texts.known(key, channel)
        if shown.final is not None:
            return True  # the part's final text came (or its item is done): the lane keeps it
        if not shown.length:
            self._texts.emit(key, shown, delta)
        else:
            emit(self.builder, delta, 0, key)
        shown.length += len(delta)
        return True

    def _text_done(self, event: ResponseTextDoneEvent) -> None:
        channel = PART_CHANNELS[CONTENT_EVENTS[event.type][1]]
        if self._note(event.output_index, channel, event.item_id):
            key = (event.output_index, "content", event.content_index)
            self._texts.settle(key, channel, event.text)

    def _refusal_done(self, event: ResponseRefusalDoneEvent) -> None:
        if self._note(event.output_index, "refusal", event.item_id):
            key = (event.output_index, "content", event.content_index)
            self._texts.settle(key, "refusal", event.refusal)

    def _part(self, event: ResponseContentPartEvent) -> None:
        channel, text = part_text(event.part)
        if not self._note(event.output_index, channel, event.item_id):
            return
        key = (event.output_index, "content", event.content_index)
        if event.type.endswith("added"):
            self._texts.show(key, channel, text or "")
        else:
            self._texts.settle(key, channel, text)
        self._cite_part(event.output_index, event.content_index, event.part)

    def _annotation(self, event: ResponseAnnotationEvent) -> None:
        # The lane opens the part (and the item) it is about.
        index, position = event.output_index, event.content_index
        if self._note(index, "text", event.item_id):
            self._texts.known((index, "content", position), "text")
            self._cite(index, position, event.annotation_index, event.annotation)

    def _cite_item(self, index: int, item: Mapping[str, Any]) -> None:
        """The annotations of a message item's text parts (its opening or final form)."""
        content = item.get("content") if item.get("type") == "message" else None
        for position, part in enumerate(content if type(content) is list else ()):
            if type(part) is dict:
                self._cite_part(index, position, part)

    def _cite_part(self, index: int, position: int, part: Mapping[str, Any]) -> None:
        annotations = part.get("annotations")
        for number, annotation in enumerate(annotations if type(annotations) is list else ()):
            self._cite(index, position, number, annotation)

    def _cite(self, index: int, position: int, number: int, annotation: Any) -> None:
        """Annotation ``number`` of text part ``position`` of item ``index``, cited once."""
        key = (index, position, number)
        if key in self._cited or type(annotation) is not dict:
            return
        kind = annotation.get("type")
        if type(kind) is str:
            self._cited.add(key)
            url, title = annotation_fields(annotation)
            self.builder.citation(kind, annotation, url=url, title=title)

    def _summary_done(self, event: ResponseSummaryTextDoneEvent) -> None:
        if self._note(event.output_index, "reasoning", event.item_id):
            key = (event.output_index, "summary", event.summary_index)
            self._texts.settle(key, "reasoning", event.text)

    def _summary_part(self, event: ResponseSummaryPartEvent) -> None:
        if not self._note(event.output_index, "reasoning", event.item_id):
            return
        key = (event.output_index, "summary", event.summary_index)
        text = event.part.get("text")
        if event.type.endswith("added"):
            self._texts.show(key, "reasoning", _str(text))
        else:
            self._texts.settle(key, "reasoning", text if type(text) is str else None)

    def _shell(
        self,
        event: ResponseShellCommandEvent
        | ResponseShellCommandDeltaEvent
        | ResponseShellOutputDeltaEvent
        | ResponseShellOutputDoneEvent,
    ) -> None:
        # The lane opens the item an event about a shell call refers to.
        index = event.output_index
        if index not in self._announced:
            self._early.add(index)

    # -- tool calls ----------------------------------------------------------------------

    def _start(
        self, index: int, item: Mapping[str, Any], kind: CallKind
    ) -> tuple[ToolCall, int]:
        call_id = item.get("call_id")
        found = self._calls[index] = self.builder.call_start(
            call_id if type(call_id) is str and call_id else _str(item.get("id")),
            _str(item.get("name")) or kind.name,
            _str(item.get("type")),
            server=kind.server,
            plain=kind.plain,
            item_id=_id(item),
        )
        return found

    def _replay(self, index: int) -> None:
        """The input events that waited for the call's item, now it came."""
        for event in self._pending.pop(index, ()):
            self.HANDLERS[type(event)](self, event)

    def _call_for(self, event: _CallInput) -> tuple[ToolCall, int] | None:
        """The call an input event is about (None: no call of the turn, or not yet)."""
        index = event.output_index
        found = self._calls.get(index)
        if found is None and index not in self._announced:
            # Its item was not announced: the call (its name, its id) waits for it.
            self._early.add(index)
            if CALL_EVENTS[event.type].part:
                self._pending.setdefault(index, []).append(event)
        if found is None or found[0].done or index in self._done:
            return None
        return found

    def _call_delta(self, event: ResponseCallDeltaEvent) -> None:
        # _call_for's answer, without its call for the common fragment (a started call).
        if not self._sink(event.type, event.output_index, 0, event.delta, event.item_id):
            self._call_for(event)  # no call yet: the event may wait for its item

    def _call_input_done(
        self, event: ResponseArgumentsDoneEvent | ResponseCustomToolInputDoneEvent
    ) -> None:
        found = self._call_for(event)
        if found is not None:
            final = (
                event.arguments if isinstance(event, ResponseArgumentsDoneEvent) else event.input
            )
            self._catch_up(*found, final)

    def _catch_up(self, call: ToolCall, position: int, final: str) -> None:
        """Stream what a call's final input says beyond the fragments sent so far."""
        streamed = call.arguments
        if final != streamed and final.startswith(streamed):
            self.builder.call_delta(call, final[len(streamed) :], position)


def _client_call(item: Mapping[str, Any], started: bool = False) -> CallKind | None:
    """The kind of a tool-call item that is a call of the turn, else None.

    ``started``: its call was started (the item then stays a call, whatever
    its final form says of its environment).
    """
    kind = item.get("type")
    found = CALL_ITEMS.get(kind) if type(kind) is str else None
    if found is None or not found.part:
        return None
    return found if started or found.is_call(item) else None


def _input_text(item: Mapping[str, Any], kind: CallKind) -> str | None:
    """The call's input text in ``item`` (None: the item does not say it)."""
    value = item.get(kind.field)
    if kind.events is not None:
        return value if type(value) is str else None
    return None if value is None else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


ResponsesParts.HANDLERS = {
    **BASE_HANDLERS,
    StreamEnd: ResponsesParts.on_end,
    ResponseLifecycleEvent: ResponsesParts._lifecycle,
    ResponseTerminalEvent: ResponsesParts._terminal,
    ResponseOutputItemEvent: ResponsesParts._item,
    ResponseContentDeltaEvent: ResponsesParts._content_delta,
    ResponseTextDoneEvent: ResponsesParts._text_done,
    ResponseRefusalDoneEvent: ResponsesParts._refusal_done,
    ResponseContentPartEvent: ResponsesParts._part,
    ResponseAnnotationEvent: ResponsesParts._annotation,
    ResponseSummaryTextDeltaEvent: ResponsesParts._summary_delta,
    ResponseSummaryTextDoneEvent: ResponsesParts._summary_done,
    ResponseSummaryPartEvent: ResponsesParts._summary_part,
    ResponseShellCommandEvent: ResponsesParts._shell,
    ResponseShellCommandDeltaEvent: ResponsesParts._shell,
    ResponseShellOutputDeltaEvent: ResponsesParts._shell,
    ResponseShellOutputDoneEvent: ResponsesParts._shell,
    ResponseCallDeltaEvent: ResponsesParts._call_delta,
    ResponseArgumentsDoneEvent: ResponsesParts._call_input_done,
    ResponseCustomToolInputDoneEvent: ResponsesParts._call_input_done,
}
