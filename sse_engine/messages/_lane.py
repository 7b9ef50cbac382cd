"""The Messages state machine: one frame in, typed events out, the verdict.

:class:`MessagesLane` types each frame by its JSON ``type`` (reconciled with
the ``event:`` line), takes the common case, a string delta for an open block,
on an inline hot path, and dispatches the rest through a table:
``message_start``, ``message_delta`` (stop reason, merged usage),
``message_stop`` and the verdict, ``ping``, ``error``. The content blocks are
assembled by the :class:`BlockAssembly` it holds (``_blocks.py``), which owns
the table of open blocks the hot path reads; the lane's events are in
``_events.py``, its snapshot in ``_snapshot.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sse_engine._errors import ProtocolError
from sse_engine._json import describe
from sse_engine._lane import Lane
from sse_engine._outcome import Outcome, StreamError
from sse_engine._sse import ServerSentEvent
from sse_engine._tally import Tally
from sse_engine.messages._blocks import (
    BlockAssembly,
    OpenBlocks,
    malformed,
    note_started,
    str_or_none,
)
from sse_engine.messages._events import (
    MessageDelta,
    MessageError,
    MessagesEvent,
    MessageStart,
    MessageStop,
    Ping,
    UnknownEvent,
)
from sse_engine.messages._snapshot import MessageSnapshot
from sse_engine.messages._wire import (
    COMPLETED_STOP_REASONS,
    INCOMPLETE_STOP_REASONS,
    recognize,
    recognize_error,
)

__all__ = ["MessagesLane"]

class MessagesLane(Lane[MessagesEvent]):
    """The Anthropic Messages stream (``POST /v1/messages`` with ``stream: true``).

    Emits :class:`MessageStart`, :class:`Ping`, :class:`BlockStart`, the
    :class:`BlockDelta` family (:class:`TextBlockDelta`, :class:`ThinkingDelta`,
    :class:`SignatureDelta`, :class:`InputJsonDelta`, :class:`CitationDelta`,
    :class:`OtherDelta`), :class:`BlockStop` / :class:`ToolUseStop` (with the
    parsed tool input), :class:`MessageDelta`, :class:`MessageStop`,
    :class:`MessageError`, :class:`UnknownEvent`, and one ``StreamEnd``.
    """

    terminal_event_name = "message_stop"
    api_name = "Messages"

    recognize = staticmethod(recognize)
    recognize_error = staticmethod(recognize_error)

    def _setup(self) -> None:
        self._snap = MessageSnapshot(self.json_loads, self._reports.note_loss)
        self._blocks = BlockAssembly(self._snap, self._reports, self.json_loads)
        #: The assembly's table of open blocks, read inline by the hot path (its
        #: dict for the lane's life: one attribute read fewer per delta).
        self._open: OpenBlocks = self._blocks.open
        self._data_only_seen = False

    @property
    def snapshot(self) -> MessageSnapshot:
        """The message assembled so far; ``snapshot.to_api()`` is the ``message`` object."""
        return self._snap

    # -- one frame -------------------------------------------------------------

    def _on_event(self, sse: ServerSentEvent, out: list[MessagesEvent]) -> None:
        try:
            payload = self._loads(sse.data)
        except (ValueError, TypeError, RecursionError):
            self._undecodable(sse, out)
            return
        if self._shape is not None:
            self._note_shape(sse.event, payload)
        if type(payload) is not dict:
            raise ProtocolError(
                f"SSE event #{self._reports.event_index} ({describe(sse.event)}) carries a JSON "
                f"{type(payload).__name__}, not an object"
            )
        kind = payload.get("type")
        name = sse.event
        if kind != name:
            if kind is None and type(payload.get("error")) is dict:
                kind = "error"  # an OpenAI-shaped error frame (a gateway's): still a failure
            else:
                kind = self._frame_type(name, kind)
        if kind == "content_block_delta":
            # The hot path, inline: a well-formed string delta for an open block
            # of its kind. Anything else takes the validating path.
            index = payload.get("index")
            delta: Any = payload.get("delta")
            if type(index) is int and type(delta) is dict:
                entry = self._open.get(index)
                if entry is not None:
                    block, specs = entry
                    delta_type: Any = delta.get("type")
                    spec = specs.get(delta_type) if type(delta_type) is str else None
                    if spec is not None:
                        value = delta.get(spec[0])
                        if type(value) is str:
                            parts = block.parts
                            if spec[2]:
                                block.signature = value
                            elif type(parts) is Tally:  # lean: Tally.append, inline
                                parts.length += len(value)
                            else:
                                parts.append(value)
                            sink = self._text_sink
                            if sink is None or out:
                                out.append(spec[1](payload, index, value))
                            else:  # a PartStream's read, before any event: no event
                                sink(delta_type, value, index)
                            return
            self._blocks.delta(payload, out)
            return
        handler = _HANDLERS.get(kind)
        if handler is None:
            out.append(UnknownEvent(payload, kind))
        else:
            handler(self, payload, out)

    def _frame_type(self, name: str, kind: Any) -> str:
        """Reconcile the SSE event name with the JSON type: the JSON wins."""
        if type(kind) is not str:
            self._warn(
                "missing_type",
                f"a {describe(name)} frame has no string JSON type; typed by its event name",
            )
            return name
        if name == "message":
            if not self._data_only_seen:
                self._data_only_seen = True
                self._warn(
                    "data_only_frame",
                    f"a frame without an event: line (JSON type {describe(kind)}) was typed by its "
                    "JSON type (the SDK skips such frames); reported once per stream",
                )
        else:
            self._violation(
                "event_name_mismatch",
                f"the event: line says {describe(name)} but the JSON type is {describe(kind)}; "
                "the JSON wins",
            )
        return kind

    def _undecodable(self, sse: ServerSentEvent, out: list[MessagesEvent]) -> None:
        """A frame whose data is not JSON: an error event's text, a ping, [DONE], or bad bytes."""
        data = sse.data
        if sse.event == "error":
            error = self._with_context(
                StreamError.from_text(data)
                if data.strip()
                else StreamError(message="an error event without data", code="stream_error")
            )
            out.append(MessageError(error, data))
            self._end(Outcome.FAILED, error, out)
        elif not data.strip():
            if sse.event == "ping":
                out.append(Ping({}))
            else:
                self._warn(
                    "empty_data", f"a {describe(sse.event)} frame with empty data was skipped"
                )
        elif data.strip() == "[DONE]":
            self._warn("done_sentinel", "a [DONE] frame (not part of this API) was ignored")
        else:
            self._decode(sse)  # raises the ProtocolError that says where

    # -- message level ---------------------------------------------------------

    def _on_message_start(self, payload: dict[str, Any], out: list[MessagesEvent]) -> None:
        message = payload.get("message")
        if type(message) is not dict:
            raise malformed(self._reports, "message_start without a message object", payload)
        snap = self._snap
        if snap.started:
            self._violation("duplicate_message_start", "a second message_start was ignored")
            return
        snap.started = True
        snap.message = {k: v for k, v in message.items() if k != "content" and k != "usage"}
        usage = message.get("usage")
        if usage is not None and type(usage) is not dict:
            self._warn("bad_field", "message_start usage is not an object; ignored")
            usage = None
        snap.usage = dict(usage) if usage else {}
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if type(block) is dict:
                    self._blocks.add_complete(block)
        out.append(MessageStart(payload, snap.id, snap.model, dict(snap.usage)))

    def _on_message_delta(self, payload: dict[str, Any], out: list[MessagesEvent]) -> None:
        delta = payload.get("delta", {})
        if type(delta) is not dict:
            raise malformed(self._reports, "message_delta whose delta is not an object", payload)
        note_started(self._snap, self._reports, "message_delta")
        snap = self._snap
        message = snap.message
        # The SDK overwrites these three on every message_delta; a key that is
        # absent keeps the earlier value here (a later usage-only delta must not
        # erase the stop reason).
        for key in ("stop_reason", "stop_sequence", "stop_details"):
            message[key] = delta.get(key, message.get(key))
        stop_reason = message["stop_reason"]
        if stop_reason is not None and type(stop_reason) is not str:
            self._warn("bad_field", f"stop_reason {describe(stop_reason)} is not a string")
        # Other fields (container, and what newer API versions add, on the delta
        # or beside it: context_management, input_transformations) replace
        # the message's when they are not null, as the SDK keeps them.
        for source in (delta, payload):
            for key, value in source.items():
                if value is not None and key not in _MESSAGE_DELTA_OWN:
                    message[key] = value
        usage = payload.get("usage")
        if type(usage) is dict:
            # Cumulative counts: each reported (non-null) value wins, so the
            # real input_tokens replace message_start's 0 on non-Claude models.
            merged = snap.usage
            for key, value in usage.items():
                if value is not None:
                    merged[key] = value
        elif usage is not None:
            self._warn("bad_field", "message_delta usage is not an object; ignored")
        out.append(
            MessageDelta(payload, str_or_none(stop_reason),
                         str_or_none(message["stop_sequence"]), dict(snap.usage))
        )

    def _on_message_stop(self, payload: dict[str, Any], out: list[MessagesEvent]) -> None:
        note_started(self._snap, self._reports, "message_stop")
        snap = self._snap
        for block in snap.content:
            if not block.stopped:
                self._violation(
                    "unclosed_block", f"block {block.index} ({block.type}) never stopped"
                )
                if block.is_tool:
                    self._blocks.finish_tool_input(block)
        stop_reason = snap.stop_reason
        outcome = self._verdict(stop_reason)
        out.append(MessageStop(payload, stop_reason))
        self._end(outcome, None, out)

    def _verdict(self, stop_reason: str | None) -> Outcome:
        """The outcome of a message_stop, with the sanity warnings the seed asks for."""
        if stop_reason is None:
            self._warn(
                "missing_stop_reason",
                "message_stop without a stop reason: possibly a failed generation "
                "that looks like a normal completion",
            )
        if not any(b.type != "text" or b.has_text for b in self._snap.content):
            self._warn(
                "empty_message",
                "the message has no content: possibly a failed generation",
            )
        if stop_reason in INCOMPLETE_STOP_REASONS:
            return Outcome.INCOMPLETE
        if stop_reason is not None and stop_reason not in COMPLETED_STOP_REASONS:
            self._warn(
                "unknown_stop_reason", f"stop reason {describe(stop_reason)} read as completed"
            )
        return Outcome.COMPLETED

    def _on_transport_end(self) -> tuple[Outcome, StreamError | None]:
        # A tool block cut off mid-input is reported, not left as a partial dict.
        self._blocks.finish_unstopped_tools()
        return super()._on_transport_end()

    def _on_block_start(self, payload: dict[str, Any], out: list[MessagesEvent]) -> None:
        self._blocks.start(payload, out)

    def _on_block_stop(self, payload: dict[str, Any], out: list[MessagesEvent]) -> None:
        self._blocks.stop(payload, out)

    def _on_ping(self, payload: dict[str, Any], out: list[MessagesEvent]) -> None:
        out.append(Ping(payload))

    def _on_error(self, payload: dict[str, Any], out: list[MessagesEvent]) -> None:
        error = self._with_context(StreamError.from_payload(payload))
        out.append(MessageError(error, payload))
        self._end(Outcome.FAILED, error, out)


_Handler = Callable[[MessagesLane, dict[str, Any], list[MessagesEvent]], None]

#: The frame type -> its handler, built once for the class (a lane holds no table).
_HANDLERS: dict[str, _Handler] = {
    "content_block_start": MessagesLane._on_block_start,
    "content_block_stop": MessagesLane._on_block_stop,
    "message_start": MessagesLane._on_message_start,
    "message_delta": MessagesLane._on_message_delta,
    "message_stop": MessagesLane._on_message_stop,
    "ping": MessagesLane._on_ping,
    "error": MessagesLane._on_error,
}


# The message_delta fields read above; any other non-null field is kept.
_MESSAGE_DELTA_OWN = frozenset(
    {"type", "delta", "usage", "stop_reason", "stop_sequence", "stop_details"}
)
