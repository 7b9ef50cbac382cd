"""Lane events back to wire frames: what a gateway or a test server re-emits.

Each lane keeps the decoded JSON payload of the frame an event came from on the
event (``raw``). The helpers here turn such an event, or a payload dict, back
into that frame, in the lane's own wire format:

- Chat Completions: data-only frames (``data: {json}``) and the ``data: [DONE]``
  sentinel. A chunk produces several events (``ChatChunk`` first, then its
  content events, which share the chunk as ``raw``): only ``ChatChunk`` and
  ``ChatUnknownFrame`` encode to a frame; the others encode to ``b""``. The
  ``StreamEnd`` of a stream that reached ``[DONE]`` encodes to ``data: [DONE]``,
  and the one of an in-stream error frame to that frame.
- Responses and Messages: an ``event: <type>`` line and the compact JSON
  payload. ``StreamEnd`` encodes to ``b""`` (the terminal event was a frame of
  its own).

``StreamRestarted`` and a pre-stream error (a ``StreamEnd`` whose error has an
HTTP ``status``: that was a JSON body, not a frame) encode to ``b""``. Feeding
the concatenated frames to a new lane gives the same events (``raw``
included), the same snapshot and the same outcome; what the lane dropped or
only warned about (repeated sequence numbers, bytes after the end, comments,
``id:`` lines) is not reproduced.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from sse_engine._chat_events import ChatChunk, ChatEvent, ChatUnknownFrame
from sse_engine._encoder import encode_event, encode_json
from sse_engine._lane import Lane, LaneEvent, StreamEnd, StreamRestarted
from sse_engine._messages_events import (
    BlockDelta,
    BlockStart,
    BlockStop,
    MessageDelta,
    MessageError,
    MessageEvent,
    MessageStart,
    MessageStop,
    Ping,
    UnknownEvent,
)
from sse_engine._outcome import Outcome
from sse_engine._responses_events import ResponsesEvent
from sse_engine.chat import ChatCompletionsLane
from sse_engine.messages import MessagesLane
from sse_engine.responses import ResponsesLane

__all__ = [
    "encode_chat_done",
    "encode_chat_event",
    "encode_lane_events",
    "encode_messages_event",
    "encode_responses_event",
]

_CHAT_DONE = b"data: [DONE]\n\n"

#: The wire type of each Messages event class (subclasses share their base's).
_MESSAGES_TYPES: tuple[tuple[type[MessageEvent], str], ...] = (
    (MessageStart, "message_start"),
    (Ping, "ping"),
    (BlockStart, "content_block_start"),
    (BlockDelta, "content_block_delta"),
    (BlockStop, "content_block_stop"),
    (MessageDelta, "message_delta"),
    (MessageStop, "message_stop"),
)

Item = LaneEvent | Mapping[str, Any]


def _typed_frame(payload: Any, event: str | None, id: str | None = None) -> bytes:
    return encode_json(payload, event=event, id=id)


def _wrong_lane(item: object, lane: str) -> TypeError:
    return TypeError(f"{type(item).__name__} is not a {lane} event or payload")


def _stream_end_is_in_stream_error(end: StreamEnd) -> bool:
    error = end.error
    return (
        end.outcome is Outcome.FAILED
        and error is not None
        and error.status is None
        and isinstance(error.raw, Mapping)
        and error.code != "protocol_error"
    )


# -- Chat Completions ---------------------------------------------------------------


def encode_chat_done() -> bytes:
    """The ``data: [DONE]`` frame that ends a Chat Completions stream."""
    return _CHAT_DONE


def encode_chat_event(item: Item) -> bytes:
    """The Chat Completions frame of ``item``: a chunk payload, or a Chat lane event.

    A payload dict becomes a data-only frame (``data: {json}``). ``ChatChunk``
    and ``ChatUnknownFrame`` become the frame they were decoded from; the
    events a chunk's content produces (``ChatContentDelta``, ...) become
    ``b""``, since their ``ChatChunk`` already carried the frame. ``StreamEnd``
    becomes ``data: [DONE]`` when the stream reached it (COMPLETED, INCOMPLETE,
    or TRUNCATED with ``missing_finish_reason``), the error frame for an
    in-stream error, else ``b""``. Raises ``TypeError`` for another lane's event.
    """
    if isinstance(item, Mapping):
        return _typed_frame(item, None)
    if isinstance(item, ChatChunk | ChatUnknownFrame):
        return _typed_frame(item.raw, None)
    if isinstance(item, ChatEvent | StreamRestarted):
        return b""
    if isinstance(item, StreamEnd):
        outcome = item.outcome
        if outcome is Outcome.COMPLETED or outcome is Outcome.INCOMPLETE:
            return _CHAT_DONE
        if outcome is Outcome.TRUNCATED:
            reached = item.error is not None and item.error.code == "missing_finish_reason"
            return _CHAT_DONE if reached else b""
        if _stream_end_is_in_stream_error(item):
            assert item.error is not None
            raw = item.error.raw
            # A frame the lane read as an error only because of its `event: error` line.
            return _typed_frame(raw, None if raw.get("error") else "error")
        return b""
    raise _wrong_lane(item, "Chat Completions")


# -- Responses -------------------------------------------------------------------------


def encode_responses_event(item: Item, *, id: str | None = None) -> bytes:
    """The Responses frame of ``item``: ``event: <type>`` and the compact JSON payload.

    ``item`` is a payload dict (its ``type`` names the event; no ``event:``
    line without one) or a Responses lane event (its ``raw`` payload, under
    its ``type``). ``id`` adds an SSE ``id:`` line (what ``Last-Event-ID``
    resumes from). ``StreamEnd`` and ``StreamRestarted`` become ``b""``.
    Raises ``ValueError`` for an event built without a ``raw`` payload and
    ``TypeError`` for another lane's event.
    """
    if isinstance(item, Mapping):
        kind = item.get("type")
        return _typed_frame(item, kind if isinstance(kind, str) else None, id)
    if isinstance(item, ResponsesEvent):
        if not item.raw:
            raise ValueError(f"{type(item).__name__} {item.type!r} has no raw payload to encode")
        return _typed_frame(item.raw, item.type, id)
    if isinstance(item, StreamEnd | StreamRestarted):
        return b""
    raise _wrong_lane(item, "Responses")


# -- Messages -----------------------------------------------------------------------------


def _messages_type(event: MessageEvent) -> str:
    if isinstance(event, UnknownEvent):
        return event.type
    for cls, name in _MESSAGES_TYPES:
        if isinstance(event, cls):
            return name
    raise _wrong_lane(event, "Messages")  # pragma: no cover - every subclass is listed


def encode_messages_event(item: Item) -> bytes:
    """The Messages frame of ``item``: ``event: <type>`` and the compact JSON payload.

    ``item`` is a payload dict (its ``type`` names the event) or a Messages
    lane event (its ``raw`` payload; an empty one, from a ``ping`` without
    data, becomes ``{"type": "ping"}``). A ``MessageError`` whose data was not
    JSON is re-emitted as that text. ``StreamEnd`` and ``StreamRestarted``
    become ``b""``. Raises ``TypeError`` for another lane's event.
    """
    if isinstance(item, Mapping):
        kind = item.get("type")
        return _typed_frame(item, kind if isinstance(kind, str) else None)
    if isinstance(item, MessageError):
        if isinstance(item.raw, str):
            return encode_event(item.raw, event="error")
        return _typed_frame(item.raw, "error")
    if isinstance(item, MessageEvent):
        kind = _messages_type(item)
        return _typed_frame(item.raw or {"type": kind}, kind)
    if isinstance(item, StreamEnd | StreamRestarted):
        return b""
    raise _wrong_lane(item, "Messages")


# -- any lane ---------------------------------------------------------------------------------


def _encoder_for(lane: Lane[Any] | type[Lane[Any]]) -> Callable[[Item], bytes]:
    cls = lane if isinstance(lane, type) else type(lane)
    if issubclass(cls, ChatCompletionsLane):
        return encode_chat_event
    if issubclass(cls, ResponsesLane):
        return encode_responses_event
    if issubclass(cls, MessagesLane):
        return encode_messages_event
    raise TypeError(f"no frame encoder for {cls.__name__}")


def encode_lane_events(
    lane: Lane[Any] | type[Lane[Any]], events: Iterable[Item]
) -> Iterator[bytes]:
    """The frames of a lane's events (or payloads), in order, skipping the empty ones.

    ``lane`` (a lane or a lane class) picks the wire format. Joined, the frames
    are a stream that a new lane of the same kind reads back to the same
    events, snapshot and outcome.
    """
    encode = _encoder_for(lane)
    for event in events:
        frame = encode(event)
        if frame:
            yield frame
