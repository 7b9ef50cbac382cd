"""The Anthropic Messages lane: ``message_start`` ... ``message_stop`` as typed events.

Frames are typed by their JSON ``type``, not by the SSE ``event:`` line: a
frame without an ``event:`` line (which the SDK skips) is interpreted like any
other, and when the two disagree the JSON wins and a warning says so. See
``docs/messages.md`` for the events, the outcome rules and the warning codes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sse_engine._errors import ProtocolError
from sse_engine._json import describe
from sse_engine._lane import Lane, LaneEvent
from sse_engine._outcome import Outcome, StreamError
from sse_engine._sse import ServerSentEvent
from sse_engine.messages._events import (
    BlockDelta,
    BlockStart,
    BlockStop,
    CitationDelta,
    InputJsonDelta,
    MessageDelta,
    MessageError,
    MessageStart,
    MessageStop,
    OtherDelta,
    Ping,
    SignatureDelta,
    TextDelta,
    ThinkingDelta,
    ToolUseStop,
    UnknownEvent,
)
from sse_engine.messages._frames import encode_messages_event
from sse_engine.messages._snapshot import TOOL_BLOCK_TYPES, ContentBlock, MessageSnapshot

__all__ = ["MessagesLane"]

#: Stop reasons of a turn that finished as the model meant it to.
COMPLETED_STOP_REASONS = frozenset({"end_turn", "tool_use", "stop_sequence", "pause_turn"})
#: Stop reasons of a turn cut short (the stream itself is complete).
INCOMPLETE_STOP_REASONS = frozenset({"max_tokens", "refusal", "model_context_window_exceeded"})

# The string-valued deltas: delta type -> (its field, the event class, whether
# it replaces rather than appends), and the block types each applies to.
_Spec = tuple[str, Callable[..., BlockDelta], bool]
_STRING_DELTAS: dict[str, _Spec] = {
    "text_delta": ("text", TextDelta, False),
    "thinking_delta": ("thinking", ThinkingDelta, False),
    "input_json_delta": ("partial_json", InputJsonDelta, False),
    "signature_delta": ("signature", SignatureDelta, True),
}
_SPECS_BY_BLOCK_TYPE: dict[str, dict[str, _Spec]] = {
    "text": {"text_delta": _STRING_DELTAS["text_delta"]},
    "thinking": {k: _STRING_DELTAS[k] for k in ("thinking_delta", "signature_delta")},
    **{t: {"input_json_delta": _STRING_DELTAS["input_json_delta"]} for t in TOOL_BLOCK_TYPES},
}
_NO_SPECS: dict[str, _Spec] = {}

# Deltas that set fields of their block (as the SDK does): delta type ->
# (the block type they apply to, the fields each replaces).
_FIELD_DELTAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "compaction_delta": ("compaction", ("content", "encrypted_content")),
}

# The block a delta implies when it arrives for a block that never started.
_IMPLIED_BLOCKS: dict[str, dict[str, Any]] = {
    "text_delta": {"type": "text", "text": ""},
    "citations_delta": {"type": "text", "text": ""},
    "thinking_delta": {"type": "thinking", "thinking": "", "signature": ""},
    "signature_delta": {"type": "thinking", "thinking": "", "signature": ""},
    "input_json_delta": {"type": "tool_use", "id": None, "name": None, "input": {}},
    "compaction_delta": {"type": "compaction", "content": None, "encrypted_content": None},
}

#: The frame types of the Messages stream (what ``recognize`` knows it by).
FRAME_TYPES = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    }
)


class MessagesLane(Lane[MessageSnapshot]):
    """The Anthropic Messages stream (``POST /v1/messages`` with ``stream: true``).

    Emits :class:`MessageStart`, :class:`Ping`, :class:`BlockStart`, the
    :class:`BlockDelta` family (:class:`TextDelta`, :class:`ThinkingDelta`,
    :class:`SignatureDelta`, :class:`InputJsonDelta`, :class:`CitationDelta`,
    :class:`OtherDelta`), :class:`BlockStop` / :class:`ToolUseStop` (with the
    parsed tool input), :class:`MessageDelta`, :class:`MessageStop`,
    :class:`MessageError`, :class:`UnknownEvent`, and one ``StreamEnd``.
    """

    terminal_event_name = "message_stop"
    api_name = "Messages"
    encode_frame = staticmethod(encode_messages_event)

    @classmethod
    def recognize(cls, event: str, payload: Any) -> str | None:
        """A Messages frame (``message_start`` ... ``message_stop``, ``ping``), by name or type."""
        if event in FRAME_TYPES:
            return f"event: {event}"
        kind = payload.get("type") if type(payload) is dict else None
        if type(kind) is str and kind in FRAME_TYPES:
            return f"JSON type {kind}"
        return None

    def _setup(self) -> None:
        self._snap = MessageSnapshot(self.json_loads, self._loss_report())
        self._data_only_seen = False
        # The open blocks, by index, with the string deltas each accepts (hot path).
        self._open: dict[int, tuple[ContentBlock, dict[str, _Spec]]] = {}

    @property
    def snapshot(self) -> MessageSnapshot:
        """The message assembled so far; ``snapshot.to_api()`` is the ``message`` object."""
        return self._snap

    # -- one frame -------------------------------------------------------------

    def _on_event(self, sse: ServerSentEvent, out: list[LaneEvent]) -> None:
        try:
            payload = self.json_loads(sse.data)
        except (ValueError, TypeError, RecursionError):
            self._undecodable(sse, out)
            return
        if not self._recognized:
            self._note_shape(sse.event, payload)
        if type(payload) is not dict:
            raise ProtocolError(
                f"SSE event #{self._event_index} ({describe(sse.event)}) carries a JSON "
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
                            if spec[2]:
                                block.signature = value
                            else:
                                block.parts.append(value)
                            out.append(spec[1](payload, index, value))
                            return
            self._on_block_delta(payload, out)
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

    def _undecodable(self, sse: ServerSentEvent, out: list[LaneEvent]) -> None:
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

    def _bad(self, what: str, payload: dict[str, Any]) -> ProtocolError:
        return ProtocolError(
            f"SSE event #{self._event_index} ({describe(payload.get('type'))}): {what}; "
            f"payload: {describe(payload, 120)}"
        )

    def _ensure_started(self, kind: str) -> None:
        if not self._snap.started:
            self._violation("missing_message_start", f"{kind} before message_start")
            self._snap.started = True

    # -- message level ---------------------------------------------------------

    def _on_message_start(self, payload: dict[str, Any], out: list[LaneEvent]) -> None:
        message = payload.get("message")
        if type(message) is not dict:
            raise self._bad("message_start without a message object", payload)
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
                    done = self._add_block(len(snap.content), block)
                    done.stopped = True
                    del self._open[done.index]
        out.append(MessageStart(payload, snap.id, snap.model, dict(snap.usage)))

    def _on_message_delta(self, payload: dict[str, Any], out: list[LaneEvent]) -> None:
        delta = payload.get("delta", {})
        if type(delta) is not dict:
            raise self._bad("message_delta whose delta is not an object", payload)
        self._ensure_started("message_delta")
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
            MessageDelta(payload, _str_or_none(stop_reason),
                         _str_or_none(message["stop_sequence"]), dict(snap.usage))
        )

    def _on_message_stop(self, payload: dict[str, Any], out: list[LaneEvent]) -> None:
        self._ensure_started("message_stop")
        snap = self._snap
        for block in snap.content:
            if not block.stopped:
                self._violation(
                    "unclosed_block", f"block {block.index} ({block.type}) never stopped"
                )
                if block.is_tool:
                    self._finish_tool_input(block)
        stop_reason = _str_or_none(snap.stop_reason)
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
        if not any(b.type != "text" or b.joined() for b in self._snap.content):
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
        for block in self._snap.content:
            if block.is_tool and not block.stopped:
                self._finish_tool_input(block)
        return super()._on_transport_end()

    def _on_ping(self, payload: dict[str, Any], out: list[LaneEvent]) -> None:
        out.append(Ping(payload))

    def _on_error(self, payload: dict[str, Any], out: list[LaneEvent]) -> None:
        error = self._with_context(StreamError.from_payload(payload))
        out.append(MessageError(error, payload))
        self._end(Outcome.FAILED, error, out)

    # -- content blocks ----------------------------------------------------------

    def _add_block(self, index: int, block: dict[str, Any]) -> ContentBlock:
        block_type = block.get("type")
        if type(block_type) is not str:
            self._warn("bad_field", f"content block {index} has no string type; kept as is")
            block_type = ""
        snap = self._snap
        new = ContentBlock(index, block, block_type)
        snap.content.append(new)
        snap.by_index[index] = new
        self._open[index] = (new, _SPECS_BY_BLOCK_TYPE.get(block_type, _NO_SPECS))
        return new

    def _on_block_start(self, payload: dict[str, Any], out: list[LaneEvent]) -> None:
        index = payload.get("index")
        block = payload.get("content_block")
        if type(index) is not int or type(block) is not dict:
            raise self._bad("content_block_start needs an int index and a content_block", payload)
        self._ensure_started("content_block_start")
        snap = self._snap
        if index in snap.by_index:
            self._violation("block_index_mismatch", f"block {index} started twice")
        elif index != len(snap.content):
            self._violation(
                "block_index_mismatch",
                f"block {index} started where block {len(snap.content)} was expected",
            )
        new = self._add_block(index, block)
        if new.type == "fallback":
            # The model that produces what follows: the message is relabelled, as
            # the SDK does (its non-streamed message names the serving model).
            target = block.get("to")
            model = target.get("model") if type(target) is dict else None
            if type(model) is str:
                self._snap.message["model"] = model
        out.append(BlockStart(payload, index, new.type, block))

    def _block_for(self, payload: dict[str, Any], kind: str) -> tuple[int, ContentBlock | None]:
        index = payload.get("index")
        if type(index) is not int:
            raise self._bad(f"{kind} without an int index", payload)
        block = self._snap.by_index.get(index)
        if block is not None and block.stopped:
            self._violation("block_already_stopped", f"{kind} for block {index} after its stop")
        return index, block

    def _on_block_delta(self, payload: dict[str, Any], out: list[LaneEvent]) -> None:
        """Every delta the hot path in ``_on_event`` did not take: validated, warned about."""
        delta = payload.get("delta")
        if type(delta) is not dict:
            raise self._bad("content_block_delta without a delta object", payload)
        index, block = self._block_for(payload, "content_block_delta")
        delta_type: Any = delta.get("type")
        if type(delta_type) is not str:
            self._warn("bad_field", f"a delta for block {index} has no string type")
            out.append(OtherDelta(payload, index, describe(delta_type), delta))
            return
        if block is None:
            implied = _IMPLIED_BLOCKS.get(delta_type)
            if implied is None:
                self._violation(
                    "unknown_block_index", f"{delta_type} for block {index}, which never started"
                )
                out.append(OtherDelta(payload, index, delta_type, delta))
                return
            self._ensure_started("content_block_delta")
            self._violation(
                "missing_block_start", f"{delta_type} for block {index}, which never started"
            )
            block = self._add_block(index, dict(implied))
        spec = _STRING_DELTAS.get(delta_type)
        if spec is not None:
            field, event_class, replaces = spec
            value = delta.get(field)
            if type(value) is not str:
                raise self._bad(f"{delta_type} whose {field} is not a string", payload)
            if delta_type not in _SPECS_BY_BLOCK_TYPE.get(block.type, {}):
                self._mismatch(block, delta_type, payload, delta, out)
            elif replaces:
                block.signature = value
                out.append(event_class(payload, index, value))
            else:
                block.parts.append(value)
                out.append(event_class(payload, index, value))
        elif delta_type == "citations_delta":
            citation = delta.get("citation")
            if type(citation) is not dict:
                raise self._bad("citations_delta whose citation is not an object", payload)
            if block.type != "text":
                self._mismatch(block, delta_type, payload, delta, out)
            else:
                block.citations.append(citation)
                out.append(CitationDelta(payload, index, citation))
        elif delta_type in _FIELD_DELTAS:
            block_type, keys = _FIELD_DELTAS[delta_type]
            if block.type != block_type:
                self._mismatch(block, delta_type, payload, delta, out)
            else:
                block.replace(delta, keys)
                out.append(OtherDelta(payload, index, delta_type, delta))
        else:
            # A delta type this library does not know: nothing it carries is lost.
            block.merge(delta)
            out.append(OtherDelta(payload, index, delta_type, delta))

    def _mismatch(
        self,
        block: ContentBlock,
        delta_type: str,
        payload: dict[str, Any],
        delta: dict[str, Any],
        out: list[LaneEvent],
    ) -> None:
        """A delta for a block of another kind: ignored (as the SDK does), passed through."""
        self._violation(
            "delta_type_mismatch",
            f"{delta_type} for block {block.index} of type {describe(block.type)} was not applied",
        )
        out.append(OtherDelta(payload, block.index, delta_type, delta))

    def _on_block_stop(self, payload: dict[str, Any], out: list[LaneEvent]) -> None:
        index, block = self._block_for(payload, "content_block_stop")
        if block is None:
            self._violation("unknown_block_index", f"content_block_stop for unknown block {index}")
            return
        if block.stopped:
            return
        block.stopped = True
        self._open.pop(index, None)
        if block.is_tool:
            self._finish_tool_input(block)
            start = block.start
            out.append(
                ToolUseStop(
                    payload,
                    index,
                    block.to_api(self.json_loads),
                    _str_or_none(start.get("id")),
                    _str_or_none(start.get("name")),
                    None if block.input_error else block.input,
                    block.input_error,
                )
            )
        else:
            out.append(BlockStop(payload, index, block.to_api(self.json_loads)))

    def _finish_tool_input(self, block: ContentBlock) -> None:
        block.parse_input(self.json_loads)
        if block.input_error is not None:
            self._warn(
                "tool_input_invalid",
                f"block {block.index} ({describe(block.type)} "
                f"{describe(block.start.get('name'))}): {block.input_error}",
            )


_Handler = Callable[[MessagesLane, dict[str, Any], list[LaneEvent]], None]

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


def _str_or_none(value: Any) -> str | None:
    return value if type(value) is str else None
