"""The Responses lane's state machine: one parsed SSE event in, typed events out.

Dispatch is one table for the class, from the wire type to a handler; each
handler validates its payload (a wrong-typed field becomes a
``malformed_event``), updates the snapshot and appends its event. The lane
holds its helpers: :class:`ItemAssembly` (``_items.py``) handles the events
about output items and owns the items and the open one; the lane owns the
stream: sequence numbers, lifecycle, terminal events, errors and resume.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sse_engine._errors import ProtocolError, UsageError
from sse_engine._json import describe
from sse_engine._lane import Lane, StreamRestarted
from sse_engine._outcome import Outcome, StreamError
from sse_engine._sse import ServerSentEvent
from sse_engine.responses._events import (
    ResponseErrorEvent,
    ResponseLifecycleEvent,
    ResponseTerminalEvent,
    ResponseUnknownEvent,
)
from sse_engine.responses._fast import FAST_HANDLERS
from sse_engine.responses._fields import Malformed
from sse_engine.responses._gaps import GapLoss
from sse_engine.responses._items import ITEM_STATUS_TYPES, ItemAssembly
from sse_engine.responses._load import (
    failure_of,
    load_verdict,
    loaded_snapshot,
    malformed_items,
)
from sse_engine.responses._resume import ResumePlan
from sse_engine.responses._snapshot import ResponseSnapshot
from sse_engine.responses._types import ResponsesEvent
from sse_engine.responses._wire import (
    CALL_EVENTS,
    CONTENT_EVENTS,
    LIFECYCLE_TYPES,
    TERMINAL_TYPES,
    recognize,
)

__all__ = ["ITEM_STATUS_TYPES", "ResponsesLane"]


class ResponsesLane(Lane[ResponsesEvent]):
    """The OpenAI Responses stream (``POST /v1/responses`` with ``stream: true``).

    Every known event type decodes to a typed, frozen event (see
    ``sse_engine.responses.__all__``); unknown ones pass through as
    :class:`ResponseUnknownEvent`. The snapshot is a :class:`ResponseSnapshot`.
    A dropped stream can be resumed: :meth:`resume_plan` says how to reconnect,
    :meth:`resume` readies the lane for the new connection's bytes.
    """

    terminal_event_name = "response.completed, response.incomplete or response.failed"
    api_name = "Responses"
    resumable = True

    recognize = staticmethod(recognize)

    def _setup(self) -> None:
        self._hold(ResponseSnapshot(self._reports.note_loss))
        self._last_seq: int | None = None
        self._response_id: str | None = None
        self._event_id = ""
        self._warned_once: set[str] = set()
        #: What sequence gaps may have taken; None until one happens (most streams).
        self._gap_loss: GapLoss | None = None

    def _hold(self, snap: ResponseSnapshot) -> None:
        """Make ``snap`` the snapshot, with the item assembly that builds its items."""
        self._snap = snap
        #: The helper that handles the events about output items (and holds the open one).
        self._items = ItemAssembly(self._reports, snap)

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

    def resume(self) -> list[ResponsesEvent]:
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
        self._hold(ResponseSnapshot(self._reports.note_loss, self._snap.lean))
        self._last_seq = None
        self._gap_loss = None
        return [StreamRestarted(f"full replay of {plan.response_id} from the start")]

    def load(self, response: dict[str, Any]) -> list[ResponsesEvent]:
        """End the stream from the non-streamed ``response`` object (a plain GET's JSON).

        For a fresh lane, or one whose stream was TRUNCATED (a resume refused
        past the window: see :meth:`ResumePlan.retrieve`). The snapshot becomes
        that object and the outcome its ``status``: ``completed`` COMPLETED,
        ``incomplete`` and ``cancelled`` INCOMPLETE, ``failed`` FAILED with its
        ``error``, ``queued`` / ``in_progress`` TRUNCATED (``response_in_progress``,
        retryable: fetch it again later). Returns ``[StreamEnd(outcome, error)]``.
        """
        if not isinstance(response, Mapping):
            raise UsageError(
                f"load() takes the response object as decoded JSON (a dict), "
                f"not {type(response).__name__}"
            )
        if self.outcome is not None and self.outcome is not Outcome.TRUNCATED:
            raise UsageError(
                f"the stream already ended {self.outcome.name}: load() completes a fresh "
                "lane or a TRUNCATED one"
            )
        outcome, error = load_verdict(response)
        for index in malformed_items(response):
            # A warning (an error when strict), before anything changed; to_api()
            # still returns the object as sent, this item included.
            self._violation(
                "malformed_event",
                f"load(): output[{index}] is not an item object with a string type; "
                "it is left out of snapshot.items",
            )
        self._reopen()  # withdraws a TRUNCATED verdict, as a resume does
        if isinstance(response.get("id"), str):
            self._note_id("load()", dict(response))
        self._hold(loaded_snapshot(response, self._snap, outcome is not Outcome.TRUNCATED))
        out: list[ResponsesEvent] = []
        self._end(outcome, error, out)
        self.close()  # the lane is over: a later feed() is a usage error
        return out

    # -- one event ---------------------------------------------------------------------

    def _on_event(self, sse: ServerSentEvent, out: list[ResponsesEvent]) -> None:
        if self.outcome is not None:  # after an `error` event (see _post_end_events)
            self._after_error(sse, out)
            return
        data = sse.data
        if data == "[DONE]":
            return
        # The base's _decode, inlined for the usual event: it runs only to raise.
        try:
            payload = self._loads(data)
        except (ValueError, TypeError, RecursionError):
            payload = self._decode(sse)  # raises the ProtocolError that says where
        else:
            if self._shape is not None:
                self._note_shape(sse.event, payload)
        if type(payload) is not dict:
            raise ProtocolError(
                f"SSE event #{self._reports.event_index} ({describe(sse.event)}): the data is JSON "
                f"{type(payload).__name__}, not an object"
            )
        kind = payload.get("type")
        seq = payload.get("sequence_number")
        # Most events are deltas whose type is their event: line and whose number is the
        # next one (or, on a gateway that sends none, which was reported once already):
        # their fast handler (_fast.py) does in one step what the general path below does
        # for them, and declines, changing nothing, whatever it would have to check.
        if kind == sse.event:
            fast = FAST_HANDLERS.get(kind)
            if fast is not None:
                # A PartStream's read takes a text delta before any event of the read.
                sink = None if out else self._text_sink
                if type(seq) is int:
                    if seq - 1 == self._last_seq and fast(
                        self._snap, kind, payload, seq, out, sink
                    ):
                        self._last_seq = seq
                        return
                elif (
                    seq is None and "missing_sequence_number" in self._warned_once
                    and fast(self._snap, kind, payload, seq, out, sink)
                ):
                    return
        self._on_payload(sse, payload, kind, seq, out)

    def _on_payload(
        self,
        sse: ServerSentEvent,
        payload: dict[str, Any],
        kind: Any,
        seq: Any,
        out: list[ResponsesEvent],
    ) -> None:
        """The general path: the type and sequence checks, then the event's handler."""
        if kind != sse.event or type(kind) is not str:  # the usual case needs no checks
            kind = self._type_of(sse, payload)
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
                    if self._gap_loss is None:
                        self._gap_loss = GapLoss()
                    self._gap_loss.note(last, seq, kind, payload, self._items.open, self._snap)
            self._last_seq = seq
        elif seq is None:
            self._warn_once("missing_sequence_number", f"{kind} has no sequence_number")
        else:
            self._violation(
                "malformed_event", f"{kind}: sequence_number {describe(seq)} is not an integer"
            )
            seq = None
        row = _HANDLERS.get(kind)
        if row is None:
            out.append(ResponseUnknownEvent(kind, seq, raw=payload))
            return
        handler, about_items = row
        try:
            handler(self._items if about_items else self, kind, payload, seq, out)
        except Malformed as exc:
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
                    f"the event: line says {describe(event)} but the JSON type is "
                    f"{describe(kind)}; the JSON type wins",
                )
            return kind
        if kind is not None:
            self._violation("malformed_event", f"the JSON type {describe(kind)} is not a string")
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
        raise Malformed(f"'response' must be an object, got {type(response).__name__}")

    def _note_id(self, kind: str, response: dict[str, Any]) -> None:
        ident = response.get("id")
        if type(ident) is not str:
            return
        if self._response_id is not None and ident != self._response_id:
            self._warn(
                "response_id_changed",
                f"{kind} is about {describe(ident)}, not {describe(self._response_id)}",
            )
        self._response_id = ident

    def _on_lifecycle(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        response = self._response_of(kind, payload)
        self._note_id(kind, response)
        self._snap._update(response)
        out.append(ResponseLifecycleEvent(kind, seq, response, raw=payload))

    def _on_terminal(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        response = self._record_terminal(kind, payload, seq, out)
        if kind == "response.failed":
            self._end(Outcome.FAILED, failure_of(response), out)
            return
        if kind == "response.completed":
            unfinished = [item.output_index for item in self._snap.items if not item.done]
            if unfinished:
                self._warn("unfinished_items", f"{kind} while items {unfinished} were never done")
            if not _has_answer(self._snap):
                self._warn(
                    "empty_completion",
                    f"{kind} with no text, no tool call and no refusal: possibly a failed "
                    "generation that looks like a normal completion",
                )
        lost = None if self._gap_loss is None else self._gap_loss.error(self._snap)
        if lost is not None:  # the turn ended, but not all of it arrived
            self._end(Outcome.TRUNCATED, lost, out)
        elif kind == "response.incomplete":
            self._end(Outcome.INCOMPLETE, None, out)
        else:
            self._end(Outcome.COMPLETED, None, out)

    def _record_terminal(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> dict[str, Any]:
        """The terminal event's response object becomes the snapshot's final word."""
        try:
            response = self._response_of(kind, payload)
        except Malformed as exc:  # still the verdict: the type decides it
            if self.outcome is None:  # nothing raises after the verdict (see _after_error)
                self._violation("malformed_event", f"{kind}: {exc}")
            response = {}
        self._note_id(kind, response)
        self._snap._finish(response)
        out.append(ResponseTerminalEvent(kind, seq, response, raw=payload))
        return response

    def _on_error(
        self, kind: str, payload: dict[str, Any], seq: int | None, out: list[ResponsesEvent]
    ) -> None:
        error = self._with_context(StreamError.from_payload(payload))
        code, message, param = error.code, error.message, error.param
        out.append(ResponseErrorEvent(kind, seq, code, message, param, error, raw=payload))
        self._end(Outcome.FAILED, error, out)
        # The server follows an error with response.failed: the same failure.
        self._post_end_events = True

    def _after_error(self, sse: ServerSentEvent, out: list[ResponsesEvent]) -> None:
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
        self._warn(
            "event_after_end", f"event {describe(sse.event)} after the error event was ignored"
        )


def _has_answer(snap: ResponseSnapshot) -> bool:
    """Whether the response holds text, a refusal or a tool call: more than reasoning."""
    for item in snap.items:
        kind = item.type
        if kind == "message" and item.has_answer_text:
            return True
        if kind is not None and kind not in ("message", "reasoning"):
            return True
    output = snap.response.get("output") if snap.response is not None else None
    for entry in output if type(output) is list else ():
        kind = entry.get("type") if type(entry) is dict else None
        if kind == "message":
            content = entry.get("content")
            for part in content if type(content) is list else ():
                if type(part) is dict and (part.get("text") or part.get("refusal")):
                    return True
        elif type(kind) is str and kind != "reasoning":
            return True
    return False


_Handler = Callable[[Any, str, dict[str, Any], int | None, list[ResponsesEvent]], None]
_I = ItemAssembly


def _rows(about_items: bool, table: dict[str, _Handler]) -> dict[str, tuple[_Handler, bool]]:
    return {kind: (handler, about_items) for kind, handler in table.items()}


#: The wire type -> its handler, and whether the handler is the item assembly's
#: (it gets the lane's ItemAssembly) or the lane's own. Built once for the class:
#: a lane holds no table.
_HANDLERS: dict[str, tuple[_Handler, bool]] = {
    **_rows(
        False,
        {
            "error": ResponsesLane._on_error,
            **dict.fromkeys(LIFECYCLE_TYPES, ResponsesLane._on_lifecycle),
            **dict.fromkeys(TERMINAL_TYPES, ResponsesLane._on_terminal),
        },
    ),
    **_rows(
        True,
        {
            "response.output_item.added": _I._on_item_added,
            "response.output_item.done": _I._on_item_done,
            "response.content_part.added": _I._on_part,
            "response.content_part.done": _I._on_part,
            "response.output_text.annotation.added": _I._on_annotation,
            "response.reasoning_summary_part.added": _I._on_summary_part,
            "response.reasoning_summary_part.done": _I._on_summary_part,
            "response.reasoning_summary_text.delta": _I._on_summary_text,
            "response.reasoning_summary_text.done": _I._on_summary_text,
            "response.image_generation_call.partial_image": _I._on_partial_image,
            "response.shell_call_command.added": _I._on_shell_command,
            "response.shell_call_command.done": _I._on_shell_command,
            "response.shell_call_command.delta": _I._on_shell_command,
            "response.shell_call_output_content.delta": _I._on_shell_output,
            "response.shell_call_output_content.done": _I._on_shell_output,
            "response.audio.delta": _I._on_audio,
            "response.audio.done": _I._on_audio,
            "response.audio.transcript.delta": _I._on_audio,
            "response.audio.transcript.done": _I._on_audio,
            **{
                kind: (_I._on_content_delta if kind.endswith("delta") else _I._on_text_done)
                for kind in CONTENT_EVENTS
            },
            **{
                kind: (_I._on_call_delta if kind.endswith("delta") else _I._on_call_done)
                for kind in CALL_EVENTS
            },
            **dict.fromkeys(ITEM_STATUS_TYPES, _I._on_item_status),
        },
    ),
}
