"""How the Responses lane assembles output items: items, their content, tool-call input.

:class:`ItemAssembly` is the helper :class:`~sse_engine.responses.ResponsesLane`
holds for the events about one output item (``response.output_item.*``,
content parts, text, refusals, reasoning, tool-call input, hosted tools'
progress, images, shell and audio). It owns what those events build: the
snapshot's items and the item open now. It reports through the lane's
:class:`~sse_engine._lane_reports.Reports`, never through the lane (it does
not hold it: no reference cycle). The lane (``_lane.py``) owns the stream:
dispatch, sequence numbers, lifecycle, terminal events, errors, resume; its
one dispatch table names these handlers beside its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from sse_engine._json import describe
from sse_engine._lane_reports import Reports
from sse_engine.responses._events import (
    ResponseAnnotationEvent,
    ResponseArgumentsDoneEvent,
    ResponseAudioEvent,
    ResponseCallDeltaEvent,
    ResponseCodeDoneEvent,
    ResponseContentDeltaEvent,
    ResponseContentPartEvent,
    ResponseCustomToolInputDoneEvent,
    ResponseItemStatusEvent,
    ResponseOutputItemEvent,
    ResponsePartialImageEvent,
    ResponseRefusalDoneEvent,
    ResponseShellCommandDeltaEvent,
    ResponseShellCommandEvent,
    ResponseShellOutputDeltaEvent,
    ResponseShellOutputDoneEvent,
    ResponseSummaryPartEvent,
    ResponseSummaryTextDeltaEvent,
    ResponseSummaryTextDoneEvent,
    ResponseTextDoneEvent,
)
from sse_engine.responses._fields import Malformed, opt_field, req_dict, req_int, req_str
from sse_engine.responses._snapshot import (
    ContentPart,
    OutputItem,
    ResponseSnapshot,
)
from sse_engine.responses._types import EVENT_TYPES, ResponsesEvent
from sse_engine.responses._wire import CALL_EVENTS, CONTENT_EVENTS

__all__ = ["ITEM_STATUS_TYPES", "ItemAssembly"]

_CallDone = ResponseArgumentsDoneEvent | ResponseCustomToolInputDoneEvent | ResponseCodeDoneEvent
_CALL_DONE_EVENTS: dict[str, Callable[..., _CallDone]] = {
    "arguments": ResponseArgumentsDoneEvent,
    "input": ResponseCustomToolInputDoneEvent,
    "code": ResponseCodeDoneEvent,
}

#: Hosted tools' progress events (item_id + output_index only).
ITEM_STATUS_TYPES: Final[frozenset[str]] = frozenset(EVENT_TYPES[ResponseItemStatusEvent])


class ItemAssembly:
    """The output items of one snapshot as their events arrive: one per snapshot.

    ``snap`` is the snapshot whose items it builds (the lane's), ``open`` the
    item the last ``output_item.*`` event was about (where an event that names
    no item goes). Each ``_on_*`` handler takes the event's wire type, payload,
    sequence number and the list the lane returns, as the lane's own do.
    """

    __slots__ = ("_reports", "open", "snap")

    def __init__(self, reports: Reports, snap: ResponseSnapshot) -> None:
        self._reports = reports
        self.snap = snap
        self.open: OutputItem | None = None

    # -- output items ------------------------------------------------------------------

    def _check_sequential(self, state: OutputItem | None, index: int) -> None:
        """Items are sequential: item N is done before item N+1 opens."""
        current = self.open
        if current is not None and not current.done and current is not state:
            self._reports.violation(
                "item_overlap",
                f"output item #{index} before item #{current.output_index} was done",
            )

    def _item_of(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """The event's ``item``; a wrong-typed ``type`` or ``id`` is reported, the item kept."""
        item = req_dict(payload, "item")
        for key in ("type", "id"):
            value = item.get(key)
            if value is not None and type(value) is not str:
                self._reports.violation(
                    "malformed_event",
                    f"{kind}: the item's {key!r} {describe(value)} is not a string",
                )
        return item

    def _on_item_added(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        item = self._item_of(kind, payload)
        snap = self.snap
        index = opt_field(payload, "output_index", int)
        if index is None:
            index = snap._next_index()
        state = snap.item(index)
        if state is not None and state.done:
            # Announced after its final form arrived (events may come out of
            # order): the final item stands, as content after it would.
            self._reports.violation(
                "item_reopened",
                f"{kind} for output item #{index} after it was done (ignored: the final "
                "item stands)",
            )
            out.append(ResponseOutputItemEvent(kind, seq, index, item, raw=payload))
            return
        self._check_sequential(state, index)
        if state is not None and state.implicit:
            state._adopt(item)
            snap._index_id(state)
        else:
            if state is not None:
                self._reports.violation(
                    "duplicate_output_index", f"output item #{index} was added a second time"
                )
            state = snap._add(index, item)
        self.open = state
        out.append(ResponseOutputItemEvent(kind, seq, index, item, raw=payload))

    def _on_item_done(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        item = self._item_of(kind, payload)
        snap = self.snap
        index = opt_field(payload, "output_index", int)
        if index is None:
            ident = item.get("id")
            found = snap._item_with_id(ident) if type(ident) is str else None
            index = found.output_index if found is not None else snap._next_index()
        state = snap.item(index)
        if state is None or not state.done:  # a final item sent again is no overlap
            self._check_sequential(state, index)
        if state is None:  # never added: a resume past its window sends final items only
            state = snap._add(index, item)
        elif not _same_item(state.item, item):
            self._reports.warn(
                "item_identity_changed",
                f"output item #{index} was added as {describe(state.type)} "
                f"{describe(state.id)} but done as {describe(item.get('type'))} "
                f"{describe(item.get('id'))}",
            )
        state._finish(item)
        snap._index_id(state)
        self.open = state
        out.append(ResponseOutputItemEvent(kind, seq, index, item, raw=payload))

    def _item(self, index: Any, item_id: str | None, kind: str) -> OutputItem:
        """The item an event is about: by ``output_index``, else ``item_id``, else the open one.

        An item nobody announced is opened implicitly as ``kind`` (an
        ``unknown_item`` warning) so that what the event carries is not lost.
        """
        snap = self.snap
        if index is not None:
            if type(index) is not int:
                raise Malformed(f"'output_index' must be an integer, got {type(index).__name__}")
            state = snap.item(index)
            if state is not None:
                return state
        if item_id is not None:
            state = snap._item_with_id(item_id)
            if state is not None:
                return state
        elif index is None and self.open is not None and not self.open.done:
            return self.open
        self._reports.warn(
            "unknown_item", f"an event refers to {kind} item {describe(item_id)} never added"
        )
        item: dict[str, Any] = {"id": item_id, "type": kind}
        if kind == "message":
            item["role"] = "assistant"
        state = snap._add(snap._next_index() if index is None else index, item, implicit=True)
        if self.open is None or self.open.done:
            self.open = state
        return state

    def _about(
        self, kind: str, payload: dict[str, Any], item_kind: str
    ) -> tuple[OutputItem | None, str | None, int]:
        """What an item-level event is about: ``(item, item_id, output_index)``.

        ``item`` is None when the item is already done: content after its
        ``done`` is an ``item_reopened`` violation and changes nothing (new text
        after a tool call belongs in a new item). ``item_id`` is the payload's,
        else the item's.
        """
        item_id = opt_field(payload, "item_id", str)
        state = self._item(payload.get("output_index"), item_id, item_kind)
        if item_id is None:
            item_id = state.id
        if not state.done:
            return state, item_id, state.output_index
        self._reports.violation(
            "item_reopened",
            f"{kind} for output item #{state.output_index} after it was done (ignored; "
            "new text after a tool call belongs in a new item)",
        )
        return None, item_id, state.output_index

    def _located(self, payload: dict[str, Any]) -> tuple[OutputItem | None, str | None, int]:
        """``(item, item_id, output_index)`` of an event that only refers to its item.

        For hosted tools' progress and image previews, which change no content:
        the item at the payload's ``output_index``, else the one its ``item_id``
        names (None when neither is known: no item is opened for them). Without
        an index, an unknown item is Malformed: the event has no place.
        """
        item_id = opt_field(payload, "item_id", str)
        index = opt_field(payload, "output_index", int)
        snap = self.snap
        state = snap.item(index) if index is not None else None
        if state is None and item_id is not None:
            state = snap._item_with_id(item_id)
        if state is not None:
            return state, item_id, state.output_index
        if index is None:
            raise Malformed("no 'output_index', and no item known by its 'item_id'")
        return None, item_id, index

    def _on_item_status(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        state, item_id, index = self._located(payload)
        event = ResponseItemStatusEvent(kind, seq, item_id, index, raw=payload)
        if state is not None:
            state.progress = event.status
        out.append(event)

    # -- content -----------------------------------------------------------------------

    def _on_content_delta(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        delta = req_str(payload, "delta")
        content_index = opt_field(payload, "content_index", int, 0)
        logprobs = opt_field(payload, "logprobs", list)
        item_kind, part_kind = CONTENT_EVENTS[kind]
        state, item_id, index = self._about(kind, payload, item_kind)
        if state is not None:
            state._part(content_index, part_kind)._append(delta)
        out.append(
            ResponseContentDeltaEvent(
                kind, seq, item_id, index, content_index, delta, logprobs, raw=payload
            )
        )

    def _on_text_done(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        item_kind, part_kind = CONTENT_EVENTS[kind]
        text = req_str(payload, "refusal" if part_kind == "refusal" else "text")
        content_index = opt_field(payload, "content_index", int, 0)
        logprobs = opt_field(payload, "logprobs", list)
        state, item_id, index = self._about(kind, payload, item_kind)
        if state is not None:
            state._part(content_index, part_kind)._set(text)
        event: ResponsesEvent
        if part_kind == "refusal":
            event = ResponseRefusalDoneEvent(
                kind, seq, item_id, index, content_index, text, raw=payload
            )
        else:
            event = ResponseTextDoneEvent(
                kind, seq, item_id, index, content_index, text, logprobs, raw=payload
            )
        out.append(event)

    def _on_part(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        part = req_dict(payload, "part")
        content_index = opt_field(payload, "content_index", int, 0)
        state, item_id, index = self._about(kind, payload, "message")
        if state is not None:
            if kind.endswith("done"):
                state._part(content_index, "output_text")._finish(part)
            elif content_index not in state.parts:  # else deltas came first: keep their text
                state.parts[content_index] = ContentPart(part, lean=state.lean)
        out.append(
            ResponseContentPartEvent(kind, seq, item_id, index, content_index, part, raw=payload)
        )

    def _on_annotation(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        content_index = opt_field(payload, "content_index", int, 0)
        annotation_index = opt_field(payload, "annotation_index", int, -1)
        annotation = payload.get("annotation")
        state, item_id, index = self._about(kind, payload, "message")
        if state is not None and annotation is not None:
            state._part(content_index, "output_text")._annotate(annotation_index, annotation)
        out.append(
            ResponseAnnotationEvent(
                kind,
                seq,
                item_id,
                index,
                content_index,
                annotation_index,
                annotation,
                raw=payload,
            )
        )

    # -- tool-call input -------------------------------------------------------------

    def _on_call_delta(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        delta = req_str(payload, "delta")
        call = CALL_EVENTS[kind]
        item_kind, field = call.item, call.field
        state, item_id, index = self._about(kind, payload, item_kind)
        if state is not None:
            state._call(field)._append(delta)
        out.append(ResponseCallDeltaEvent(kind, seq, item_id, index, delta, raw=payload))

    def _on_call_done(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        call = CALL_EVENTS[kind]
        item_kind, field = call.item, call.field
        value = req_str(payload, field)
        state, item_id, index = self._about(kind, payload, item_kind)
        if state is not None:
            state._call(field)._set(value)
        out.append(_CALL_DONE_EVENTS[field](kind, seq, item_id, index, value, raw=payload))

    # -- reasoning summaries -----------------------------------------------------------

    def _on_summary_part(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        part = req_dict(payload, "part")
        summary_index = opt_field(payload, "summary_index", int, 0)
        status = opt_field(payload, "status", str)
        state, item_id, index = self._about(kind, payload, "reasoning")
        if state is not None:
            if kind.endswith("done"):
                state._summary_part(summary_index)._finish(part)
            elif summary_index not in state.summary:
                state.summary[summary_index] = ContentPart(part, lean=state.lean)
        out.append(
            ResponseSummaryPartEvent(
                kind, seq, item_id, index, summary_index, part, status, raw=payload
            )
        )

    def _on_summary_text(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        is_delta = kind.endswith("delta")
        text = req_str(payload, "delta" if is_delta else "text")
        summary_index = opt_field(payload, "summary_index", int, 0)
        state, item_id, index = self._about(kind, payload, "reasoning")
        if state is not None:
            buffer = state._summary_part(summary_index)
            if is_delta:
                buffer._append(text)
            else:
                buffer._set(text)
        cls = ResponseSummaryTextDeltaEvent if is_delta else ResponseSummaryTextDoneEvent
        out.append(cls(kind, seq, item_id, index, summary_index, text, raw=payload))

    # -- hosted tools ------------------------------------------------------------------

    def _on_partial_image(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        _, item_id, index = self._located(payload)
        out.append(
            ResponsePartialImageEvent(
                kind,
                seq,
                item_id,
                index,
                req_str(payload, "partial_image_b64"),
                req_int(payload, "partial_image_index"),
                opt_field(payload, "background", str),
                opt_field(payload, "output_format", str),
                opt_field(payload, "quality", str),
                opt_field(payload, "size", str),
                raw=payload,
            )
        )

    def _on_shell_command(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        is_delta = kind.endswith("delta")
        text = req_str(payload, "delta" if is_delta else "command")
        command_index = opt_field(payload, "command_index", int, 0)
        obfuscation = opt_field(payload, "obfuscation", str)
        state, _, index = self._about(kind, payload, "shell_call")
        if state is not None:
            if is_delta:
                state._command(command_index)._append(text)
            elif kind.endswith("added"):
                state._announce_command(command_index, text)
            else:
                state._command(command_index)._set(text)
        event: ResponsesEvent
        if is_delta:
            event = ResponseShellCommandDeltaEvent(
                kind, seq, index, command_index, text, obfuscation, raw=payload
            )
        else:
            event = ResponseShellCommandEvent(kind, seq, index, command_index, text, raw=payload)
        out.append(event)

    def _on_shell_output(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        command_index = opt_field(payload, "command_index", int, 0)
        is_delta = kind.endswith("delta")
        value: Any = req_dict(payload, "delta") if is_delta else payload.get("output")
        if not is_delta and type(value) is not list:
            raise Malformed(f"'output' must be a list, got {type(value).__name__}")
        state, item_id, index = self._about(kind, payload, "shell_call_output")
        if state is not None:
            if is_delta:
                state._output_delta(command_index, value)
            else:
                state._output_done(command_index, value)
        cls = ResponseShellOutputDeltaEvent if is_delta else ResponseShellOutputDoneEvent
        out.append(cls(kind, seq, item_id, index, command_index, value, raw=payload))

    def _on_audio(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        out.append(ResponseAudioEvent(kind, seq, opt_field(payload, "delta", str), raw=payload))


def _same_item(added: dict[str, Any], done: dict[str, Any]) -> bool:
    """Whether ``output_item.done`` describes the item ``output_item.added`` opened."""
    if added.get("type") != done.get("type"):
        return False
    before, after = added.get("id"), done.get("id")
    return before is None or after is None or before == after
