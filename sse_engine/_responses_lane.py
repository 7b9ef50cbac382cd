"""The Responses lane's state machine: one parsed SSE event in, typed events out.

Dispatch is a dict from the wire type to a bound handler; each handler
validates its payload (a wrong-typed field becomes a ``malformed_event``),
updates the snapshot and appends its event. Public names are re-exported by
:mod:`sse_engine.responses`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sse_engine._errors import ProtocolError, UsageError
from sse_engine._lane import Lane, LaneEvent, StreamRestarted
from sse_engine._outcome import Outcome, StreamError
from sse_engine._responses_events import (
    ResponseAnnotationEvent,
    ResponseArgumentsDoneEvent,
    ResponseAudioEvent,
    ResponseCallDeltaEvent,
    ResponseCodeDoneEvent,
    ResponseContentDeltaEvent,
    ResponseContentPartEvent,
    ResponseCustomToolInputDoneEvent,
    ResponseErrorEvent,
    ResponseItemEvent,
    ResponseItemStatusEvent,
    ResponseLifecycleEvent,
    ResponseOutputItemEvent,
    ResponsePartialImageEvent,
    ResponseRefusalDoneEvent,
    ResponsesEvent,
    ResponseShellCommandDeltaEvent,
    ResponseShellCommandEvent,
    ResponseShellOutputDeltaEvent,
    ResponseShellOutputDoneEvent,
    ResponseSummaryPartEvent,
    ResponseSummaryTextDeltaEvent,
    ResponseSummaryTextDoneEvent,
    ResponseTerminalEvent,
    ResponseTextDoneEvent,
    ResponseUnknownEvent,
)
from sse_engine._responses_resume import ResumePlan
from sse_engine._responses_snapshot import (
    ContentPart,
    OutputItem,
    ResponseSnapshot,
    TextBuffer,
)
from sse_engine._sse import ServerSentEvent

__all__ = ["ITEM_STATUS_TYPES", "ResponsesLane"]

_Handler = Callable[[str, dict[str, Any], int | None, list[LaneEvent]], None]

# Content events: type -> (the item type they imply, the part type they imply).
_CONTENT_KINDS = {
    "response.output_text.delta": ("message", "output_text"),
    "response.output_text.done": ("message", "output_text"),
    "response.refusal.delta": ("message", "refusal"),
    "response.refusal.done": ("message", "refusal"),
    "response.reasoning_text.delta": ("reasoning", "reasoning_text"),
    "response.reasoning_text.done": ("reasoning", "reasoning_text"),
}

# Tool-call input events: type -> (the item type they imply, the item field they build).
_CALL_KINDS = {
    f"response.{name}.{end}": (item_type, field)
    for name, item_type, field in (
        ("function_call_arguments", "function_call", "arguments"),
        ("mcp_call_arguments", "mcp_call", "arguments"),
        ("kindo_call_arguments", "kindo_call", "arguments"),
        ("custom_tool_call_input", "custom_tool_call", "input"),
        ("code_interpreter_call_code", "code_interpreter_call", "code"),
    )
    for end in ("delta", "done")
}

_CALL_DONE_EVENTS: dict[str, Callable[..., ResponseItemEvent]] = {
    "arguments": ResponseArgumentsDoneEvent,
    "input": ResponseCustomToolInputDoneEvent,
    "code": ResponseCodeDoneEvent,
}

#: Hosted tools' progress events (item_id + output_index only).
ITEM_STATUS_TYPES = frozenset(
    f"response.{tool}.{status}"
    for tool, statuses in (
        ("code_interpreter_call", ("in_progress", "interpreting", "completed")),
        ("file_search_call", ("in_progress", "searching", "completed")),
        ("web_search_call", ("in_progress", "searching", "completed")),
        ("image_generation_call", ("in_progress", "generating", "completed")),
        ("mcp_call", ("in_progress", "completed", "failed")),
        ("mcp_list_tools", ("in_progress", "completed", "failed")),
        ("compaction", ("compacting",)),
    )
    for status in statuses
)

_LIFECYCLE_TYPES = ("response.created", "response.in_progress", "response.queued")
_TERMINAL_TYPES = ("response.completed", "response.incomplete", "response.failed")


class _Malformed(Exception):
    """A payload field of the wrong type (becomes a ``malformed_event`` warning)."""


def _str(payload: dict[str, Any], key: str) -> str:
    value = payload.get(key)
    if type(value) is not str:
        raise _Malformed(f"{key!r} must be a string, got {type(value).__name__}")
    return value


def _int(payload: dict[str, Any], key: str) -> int:
    value = payload.get(key)
    if type(value) is not int:
        raise _Malformed(f"{key!r} must be an integer, got {type(value).__name__}")
    return value


def _dict(payload: dict[str, Any], key: str) -> dict[str, Any]:
    value = payload.get(key)
    if type(value) is not dict:
        raise _Malformed(f"{key!r} must be an object, got {type(value).__name__}")
    return value


def _opt(payload: dict[str, Any], key: str, kind: type, default: Any = None) -> Any:
    """An optional field: ``default`` when absent or null, else it must be of ``kind``."""
    value = payload.get(key)
    if value is None:
        return default
    if type(value) is not kind:
        raise _Malformed(f"{key!r} must be {kind.__name__} or null, got {type(value).__name__}")
    return value


class ResponsesLane(Lane[ResponseSnapshot]):
    """The OpenAI Responses stream (``POST /v1/responses`` with ``stream: true``).

    Every known event type decodes to a typed, frozen event (see
    ``sse_engine.responses.__all__``); unknown ones pass through as
    :class:`ResponseUnknownEvent`. The snapshot is a :class:`ResponseSnapshot`.
    A dropped stream can be resumed: :meth:`resume_plan` says how to reconnect,
    :meth:`resume` readies the lane for the new connection's bytes.
    """

    terminal_event_name = "response.completed, response.incomplete or response.failed"

    def _setup(self) -> None:
        self._snap = ResponseSnapshot()
        self._last_seq: int | None = None
        self._open: OutputItem | None = None
        self._response_id: str | None = None
        self._event_id = ""
        self._warned_once: set[str] = set()
        handlers: dict[str, _Handler] = {
            "error": self._on_error,
            "response.output_item.added": self._on_item_added,
            "response.output_item.done": self._on_item_done,
            "response.content_part.added": self._on_part,
            "response.content_part.done": self._on_part,
            "response.output_text.annotation.added": self._on_annotation,
            "response.reasoning_summary_part.added": self._on_summary_part,
            "response.reasoning_summary_part.done": self._on_summary_part,
            "response.reasoning_summary_text.delta": self._on_summary_text,
            "response.reasoning_summary_text.done": self._on_summary_text,
            "response.image_generation_call.partial_image": self._on_partial_image,
            "response.shell_call_command.added": self._on_shell_command,
            "response.shell_call_command.done": self._on_shell_command,
            "response.shell_call_command.delta": self._on_shell_command,
            "response.shell_call_output_content.delta": self._on_shell_output,
            "response.shell_call_output_content.done": self._on_shell_output,
        }
        for kind in _LIFECYCLE_TYPES:
            handlers[kind] = self._on_lifecycle
        for kind in _TERMINAL_TYPES:
            handlers[kind] = self._on_terminal
        for kind in _CONTENT_KINDS:
            delta = kind.endswith("delta")
            handlers[kind] = self._on_content_delta if delta else self._on_text_done
        for kind in _CALL_KINDS:
            delta = kind.endswith("delta")
            handlers[kind] = self._on_call_delta if delta else self._on_call_done
        for kind in ITEM_STATUS_TYPES:
            handlers[kind] = self._on_item_status
        for kind in ("response.audio", "response.audio.transcript"):
            handlers[f"{kind}.delta"] = handlers[f"{kind}.done"] = self._on_audio
        self._handlers = handlers

    @property
    def snapshot(self) -> ResponseSnapshot:
        return self._snap

    @property
    def last_sequence_number(self) -> int | None:
        """The highest ``sequence_number`` accepted so far (what a resume starts after)."""
        return self._last_seq

    # -- resume ------------------------------------------------------------------------

    def resume_plan(self) -> ResumePlan | None:
        """How to reconnect this dropped stream, or None.

        None before ``response.created`` (no id yet: send the POST again) and
        once the outcome is known, unless it is ``TRUNCATED`` (nothing to resume).
        """
        if self.outcome is not None and self.outcome is not Outcome.TRUNCATED:
            return None
        if self._response_id is None:
            return None
        last_event_id = self._parser.last_event_id or self._event_id
        return ResumePlan.after(self._response_id, self._last_seq, last_event_id)

    def resume(self) -> list[LaneEvent]:
        """Ready the lane for the bytes of the connection :meth:`resume_plan` describes.

        Incremental: the snapshot is kept, numbering must continue from
        ``starting_after + 1`` and repeats are dropped; returns ``[]``. Full
        replay: the snapshot restarts and ``[StreamRestarted(...)]`` is returned:
        discard what was shown, the events that follow rebuild it. Either way
        the new connection ends with its own ``StreamEnd``.
        """
        plan = self.resume_plan()
        if plan is None:
            raise UsageError(
                "nothing to resume: the outcome is known, or no response.created "
                "arrived (no response id: send the POST again)"
            )
        self._event_id = self._parser.last_event_id or self._event_id
        self._reopen()
        if not plan.full_replay:
            return []
        self._snap = ResponseSnapshot()
        self._last_seq = None
        self._open = None
        return [StreamRestarted(f"full replay of {plan.response_id} from the start")]

    # -- one event ---------------------------------------------------------------------

    def _on_event(self, sse: ServerSentEvent, out: list[LaneEvent]) -> None:
        if self.outcome is not None:  # after an `error` event (see _post_end_events)
            self._after_error(sse, out)
            return
        if sse.data == "[DONE]":
            return
        payload = self._decode(sse)
        if type(payload) is not dict:
            raise ProtocolError(
                f"SSE event #{self._event_index} ({sse.event!r}): the data is JSON "
                f"{type(payload).__name__}, not an object"
            )
        kind = payload.get("type")
        if kind != sse.event or type(kind) is not str:  # the usual case needs no checks
            kind = self._type_of(sse, payload)
        seq = payload.get("sequence_number")
        if type(seq) is int:
            last = self._last_seq
            if last is not None:
                if seq <= last:
                    self._warn(
                        "duplicate_event",
                        f"{kind} with sequence_number {seq} (at or below {last}) was dropped",
                    )
                    return
                if seq != last + 1:
                    self._violation(
                        "sequence_gap",
                        f"sequence_number jumped from {last} to {seq} at {kind}: "
                        f"{seq - last - 1} event(s) missing",
                    )
            self._last_seq = seq
        elif seq is None:
            self._warn_once("missing_sequence_number", f"{kind} has no sequence_number")
        else:
            self._violation("malformed_event", f"{kind}: sequence_number {seq!r} is not an integer")
            seq = None
        handler = self._handlers.get(kind)
        if handler is None:
            out.append(ResponseUnknownEvent(kind, seq, raw=payload))
            return
        try:
            handler(kind, payload, seq, out)
        except _Malformed as exc:
            self._violation("malformed_event", f"{kind} (sequence_number {seq}): {exc}")
            out.append(ResponseUnknownEvent(kind, seq, raw=payload))

    def _type_of(self, sse: ServerSentEvent, payload: dict[str, Any]) -> str:
        """The event's type: the JSON ``type``, else the ``event:`` line."""
        kind = payload.get("type")
        event = sse.event
        if type(kind) is str:
            if kind != event and event != "message":
                self._warn(
                    "event_type_mismatch",
                    f"the event: line says {event!r} but the JSON type is {kind!r}; "
                    "the JSON type wins",
                )
            return kind
        if kind is not None:
            self._violation("malformed_event", f"the JSON type {kind!r} is not a string")
        if event == "message" and type(payload.get("error")) is dict:
            return "error"  # an error frame without event: line or type
        return event

    def _warn_once(self, code: str, message: str) -> None:
        if code not in self._warned_once:
            self._warned_once.add(code)
            self._warn(code, f"{message} (reported once per stream)")

    # -- the response object ---------------------------------------------------------

    def _response_of(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        response = payload.get("response")
        if type(response) is dict:
            return response
        if response is None and payload.get("object") == "response":
            self._warn_once(
                "flat_response_payload",
                f"{kind} carries the response object itself, not under 'response'",
            )
            return {k: v for k, v in payload.items() if k not in ("type", "sequence_number")}
        raise _Malformed(f"'response' must be an object, got {type(response).__name__}")

    def _note_id(self, kind: str, response: dict[str, Any]) -> None:
        ident = response.get("id")
        if type(ident) is not str:
            return
        if self._response_id is not None and ident != self._response_id:
            self._warn(
                "response_id_changed", f"{kind} is about {ident!r}, not {self._response_id!r}"
            )
        self._response_id = ident

    def _on_lifecycle(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        response = self._response_of(kind, payload)
        self._note_id(kind, response)
        self._snap.update(response)
        out.append(ResponseLifecycleEvent(kind, seq, response, raw=payload))

    def _on_terminal(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        response = self._record_terminal(kind, payload, seq, out)
        if kind == "response.failed":
            self._end(Outcome.FAILED, _failure_of(response), out)
        elif kind == "response.incomplete":
            self._end(Outcome.INCOMPLETE, None, out)
        else:
            unfinished = [item.output_index for item in self._snap.items if not item.done]
            if unfinished:
                self._warn("unfinished_items", f"{kind} while items {unfinished} were never done")
            self._end(Outcome.COMPLETED, None, out)

    def _record_terminal(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> dict[str, Any]:
        """The terminal event's response object becomes the snapshot's final word."""
        try:
            response = self._response_of(kind, payload)
        except _Malformed as exc:  # still the verdict: the type decides it
            if self.outcome is None:  # nothing raises after the verdict (see _after_error)
                self._violation("malformed_event", f"{kind}: {exc}")
            response = {}
        self._note_id(kind, response)
        self._snap.finish(response)
        out.append(ResponseTerminalEvent(kind, seq, response, raw=payload))
        return response

    def _on_error(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        error = StreamError.from_payload(payload)
        code, message, param = error.code, error.message, error.param
        out.append(ResponseErrorEvent(kind, seq, code, message, param, error, raw=payload))
        self._end(Outcome.FAILED, error, out)
        # The server follows an error with response.failed: the same failure.
        self._post_end_events = True

    def _after_error(self, sse: ServerSentEvent, out: list[LaneEvent]) -> None:
        """The event after an ``error``: a ``response.failed`` updates the snapshot, silently."""
        self._post_end_events = False
        payload: Any = None
        if sse.data != "[DONE]":
            try:
                payload = self._decode(sse)
            except ProtocolError:
                payload = None
        if type(payload) is dict and payload.get("type", sse.event) == "response.failed":
            seq = payload.get("sequence_number")
            seq = seq if type(seq) is int else None
            if seq is not None and (self._last_seq is None or seq > self._last_seq):
                self._last_seq = seq
            self._record_terminal("response.failed", payload, seq, out)
            return
        self._warn("event_after_end", f"event {sse.event!r} after the error event was ignored")

    # -- output items ------------------------------------------------------------------

    def _check_sequential(self, state: OutputItem | None, index: int) -> None:
        """Items are sequential: item N is done before item N+1 opens."""
        current = self._open
        if current is not None and not current.done and current is not state:
            self._violation(
                "item_overlap",
                f"output item #{index} before item #{current.output_index} was done",
            )

    def _on_item_added(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        item = _dict(payload, "item")
        snap = self._snap
        index = _opt(payload, "output_index", int)
        if index is None:
            index = snap.next_index()
        state = snap.at(index)
        self._check_sequential(state, index)
        if state is not None and state.implicit and not state.done:
            state.adopt(item)
            snap.index_id(state)
        else:
            if state is not None:
                self._violation(
                    "duplicate_output_index", f"output item #{index} was added a second time"
                )
            state = snap.add(index, item)
        self._open = state
        out.append(ResponseOutputItemEvent(kind, seq, index, item, raw=payload))

    def _on_item_done(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        item = _dict(payload, "item")
        snap = self._snap
        index = _opt(payload, "output_index", int)
        if index is None:
            ident = item.get("id")
            found = snap.by_id(ident) if type(ident) is str else None
            index = found.output_index if found is not None else snap.next_index()
        state = snap.at(index)
        if state is None or not state.done:  # a final item sent again is no overlap
            self._check_sequential(state, index)
        if state is None:  # never added: a resume past its window sends final items only
            state = snap.add(index, item)
        elif not _same_item(state.item, item):
            self._warn(
                "item_identity_changed",
                f"output item #{index} was added as {state.type} {state.id!r} "
                f"but done as {item.get('type')} {item.get('id')!r}",
            )
        state.finish(item)
        snap.index_id(state)
        self._open = state
        out.append(ResponseOutputItemEvent(kind, seq, index, item, raw=payload))

    def _item(self, index: Any, item_id: str | None, kind: str) -> OutputItem:
        """The item an event is about: by ``output_index``, else ``item_id``, else the open one.

        An item nobody announced is opened implicitly as ``kind`` (an
        ``unknown_item`` warning) so that what the event carries is not lost.
        """
        snap = self._snap
        if index is not None:
            if type(index) is not int:
                raise _Malformed(f"'output_index' must be an integer, got {type(index).__name__}")
            state = snap.at(index)
            if state is not None:
                return state
        if item_id is not None:
            state = snap.by_id(item_id)
            if state is not None:
                return state
        elif index is None and self._open is not None and not self._open.done:
            return self._open
        self._warn("unknown_item", f"an event refers to {kind} item {item_id!r} never added")
        item: dict[str, Any] = {"id": item_id, "type": kind}
        if kind == "message":
            item["role"] = "assistant"
        state = snap.add(snap.next_index() if index is None else index, item, implicit=True)
        if self._open is None or self._open.done:
            self._open = state
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
        item_id = _opt(payload, "item_id", str)
        state = self._item(payload.get("output_index"), item_id, item_kind)
        if item_id is None:
            item_id = state.id
        if not state.done:
            return state, item_id, state.output_index
        self._violation(
            "item_reopened",
            f"{kind} for output item #{state.output_index} after it was done (ignored; "
            "new text after a tool call belongs in a new item)",
        )
        return None, item_id, state.output_index

    def _on_item_status(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        item_id = _opt(payload, "item_id", str)
        index = _opt(payload, "output_index", int)
        snap = self._snap
        state = snap.at(index) if index is not None else None
        if state is None and item_id is not None:
            state = snap.by_id(item_id)
        event = ResponseItemStatusEvent(
            kind, seq, item_id, index if state is None else state.output_index, raw=payload
        )
        if state is not None:
            state.progress = event.status
        out.append(event)

    # -- content -----------------------------------------------------------------------

    def _on_content_delta(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        delta = _str(payload, "delta")
        content_index = _opt(payload, "content_index", int, 0)
        logprobs = _opt(payload, "logprobs", list)
        item_kind, part_kind = _CONTENT_KINDS[kind]
        state, item_id, index = self._about(kind, payload, item_kind)
        if state is not None:
            state.part(content_index, part_kind).append(delta)
        out.append(
            ResponseContentDeltaEvent(
                kind, seq, item_id, index, content_index, delta, logprobs, raw=payload
            )
        )

    def _on_text_done(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        item_kind, part_kind = _CONTENT_KINDS[kind]
        text = _str(payload, "refusal" if part_kind == "refusal" else "text")
        content_index = _opt(payload, "content_index", int, 0)
        logprobs = _opt(payload, "logprobs", list)
        state, item_id, index = self._about(kind, payload, item_kind)
        if state is not None:
            state.part(content_index, part_kind).set(text)
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
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        part = _dict(payload, "part")
        content_index = _opt(payload, "content_index", int, 0)
        state, item_id, index = self._about(kind, payload, "message")
        if state is not None:
            if kind.endswith("done"):
                state.part(content_index, "output_text").finish(part)
            elif content_index not in state.parts:  # else deltas came first: keep their text
                state.parts[content_index] = ContentPart(part)
        out.append(
            ResponseContentPartEvent(kind, seq, item_id, index, content_index, part, raw=payload)
        )

    def _on_annotation(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        content_index = _opt(payload, "content_index", int, 0)
        annotation_index = _opt(payload, "annotation_index", int, -1)
        annotation = payload.get("annotation")
        state, item_id, index = self._about(kind, payload, "message")
        if state is not None and annotation is not None:
            state.part(content_index, "output_text").annotate(annotation_index, annotation)
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
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        delta = _str(payload, "delta")
        item_kind, field = _CALL_KINDS[kind]
        state, item_id, index = self._about(kind, payload, item_kind)
        if state is not None:
            state.call(field).append(delta)
        out.append(ResponseCallDeltaEvent(kind, seq, item_id, index, delta, raw=payload))

    def _on_call_done(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        item_kind, field = _CALL_KINDS[kind]
        value = _str(payload, field)
        state, item_id, index = self._about(kind, payload, item_kind)
        if state is not None:
            state.call(field).set(value)
        out.append(_CALL_DONE_EVENTS[field](kind, seq, item_id, index, value, raw=payload))

    # -- reasoning summaries -----------------------------------------------------------

    def _on_summary_part(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        part = _dict(payload, "part")
        summary_index = _opt(payload, "summary_index", int, 0)
        status = _opt(payload, "status", str)
        state, item_id, index = self._about(kind, payload, "reasoning")
        if state is not None:
            if kind.endswith("done"):
                state.summary_part(summary_index).finish(part)
            elif summary_index not in state.summary:
                state.summary[summary_index] = ContentPart(part)
        out.append(
            ResponseSummaryPartEvent(
                kind, seq, item_id, index, summary_index, part, status, raw=payload
            )
        )

    def _on_summary_text(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        is_delta = kind.endswith("delta")
        text = _str(payload, "delta" if is_delta else "text")
        summary_index = _opt(payload, "summary_index", int, 0)
        state, item_id, index = self._about(kind, payload, "reasoning")
        if state is not None:
            buffer = state.summary_part(summary_index)
            if is_delta:
                buffer.append(text)
            else:
                buffer.set(text)
        cls = ResponseSummaryTextDeltaEvent if is_delta else ResponseSummaryTextDoneEvent
        out.append(cls(kind, seq, item_id, index, summary_index, text, raw=payload))

    # -- hosted tools ------------------------------------------------------------------

    def _on_partial_image(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        out.append(
            ResponsePartialImageEvent(
                kind,
                seq,
                _opt(payload, "item_id", str),
                _opt(payload, "output_index", int),
                _str(payload, "partial_image_b64"),
                _int(payload, "partial_image_index"),
                _opt(payload, "background", str),
                _opt(payload, "output_format", str),
                _opt(payload, "quality", str),
                _opt(payload, "size", str),
                raw=payload,
            )
        )

    def _on_shell_command(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        is_delta = kind.endswith("delta")
        text = _str(payload, "delta" if is_delta else "command")
        command_index = _opt(payload, "command_index", int, 0)
        obfuscation = _opt(payload, "obfuscation", str)
        state, _, index = self._about(kind, payload, "shell_call")
        if state is not None:
            if is_delta:
                state.command(command_index).append(text)
            elif kind.endswith("added"):
                state.commands[command_index] = TextBuffer(text)
            else:
                state.command(command_index).set(text)
        event: ResponsesEvent
        if is_delta:
            event = ResponseShellCommandDeltaEvent(
                kind, seq, index, command_index, text, obfuscation, raw=payload
            )
        else:
            event = ResponseShellCommandEvent(kind, seq, index, command_index, text, raw=payload)
        out.append(event)

    def _on_shell_output(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        command_index = _opt(payload, "command_index", int, 0)
        is_delta = kind.endswith("delta")
        value: Any = _dict(payload, "delta") if is_delta else payload.get("output")
        if not is_delta and type(value) is not list:
            raise _Malformed(f"'output' must be a list, got {type(value).__name__}")
        state, item_id, index = self._about(kind, payload, "shell_call_output")
        if state is not None:
            outputs = state.shell_output
            if not is_delta:
                outputs[command_index] = value
            else:
                streams = outputs.get(command_index)
                if type(streams) is not dict:
                    streams = outputs[command_index] = {}
                for name, text in value.items():
                    if type(text) is str:
                        streams.setdefault(name, TextBuffer()).append(text)
        cls = ResponseShellOutputDeltaEvent if is_delta else ResponseShellOutputDoneEvent
        out.append(cls(kind, seq, item_id, index, command_index, value, raw=payload))

    def _on_audio(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[LaneEvent]
    ) -> None:
        out.append(ResponseAudioEvent(kind, seq, _opt(payload, "delta", str), raw=payload))


def _failure_of(response: dict[str, Any]) -> StreamError:
    error = response.get("error")
    if type(error) is dict:
        return StreamError.from_payload(error)
    return StreamError(message="response.failed without an error object", raw=response)


def _same_item(added: dict[str, Any], done: dict[str, Any]) -> bool:
    """Whether ``output_item.done`` describes the item ``output_item.added`` opened."""
    if added.get("type") != done.get("type"):
        return False
    before, after = added.get("id"), done.get("id")
    return before is None or after is None or before == after
