"""The Messages lane's own encoder: its events back to wire frames.

An ``event: <type>`` line and the compact JSON payload. ``StreamEnd`` and
``StreamRestarted`` encode to ``b""`` (the terminal event was a frame of its own).
"""

from __future__ import annotations

from collections.abc import Mapping

from sse_engine._encoder import encode_event, encode_json, not_this_lane
from sse_engine._lane import FrameItem, StreamEnd, StreamRestarted
from sse_engine.messages._events import (
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
    TextBlockDelta,
    ThinkingDelta,
    ToolUseStop,
    UnknownEvent,
    _MessagesFrame,
)

__all__ = ["encode_messages_event"]

#: The wire type of each Messages event class (``UnknownEvent`` carries its own).
_MESSAGES_TYPES: dict[type[_MessagesFrame], str] = {
    MessageStart: "message_start",
    Ping: "ping",
    BlockStart: "content_block_start",
    **dict.fromkeys(
        (TextBlockDelta, ThinkingDelta, SignatureDelta, InputJsonDelta, CitationDelta, OtherDelta),
        "content_block_delta",
    ),
    BlockStop: "content_block_stop",
    ToolUseStop: "content_block_stop",
    MessageDelta: "message_delta",
    MessageStop: "message_stop",
}


def _messages_type(event: _MessagesFrame) -> str:
    if isinstance(event, UnknownEvent):
        return event.type
    return _MESSAGES_TYPES[type(event)]


def encode_messages_event(item: FrameItem) -> bytes:
    """The Messages frame of ``item``: ``event: <type>`` and the compact JSON payload.

    ``item`` is a payload dict (its ``type`` names the event) or a Messages
    lane event (its ``raw`` payload; an empty one, from a ``ping`` without
    data, becomes ``{"type": "ping"}``). A ``MessageError`` whose data was not
    JSON is re-emitted as that text. ``StreamEnd`` and ``StreamRestarted``
    become ``b""``. Raises ``TypeError`` for another lane's event.
    """
    if isinstance(item, Mapping):
        kind = item.get("type")
        return encode_json(item, event=kind if isinstance(kind, str) else None)
    if isinstance(item, MessageError):
        if isinstance(item.raw, str):
            return encode_event(item.raw, event="error")
        return encode_json(item.raw, event="error")
    if isinstance(item, _MessagesFrame):
        kind = _messages_type(item)
        return encode_json(item.raw or {"type": kind}, event=kind)
    if isinstance(item, StreamEnd | StreamRestarted):
        return b""
    raise not_this_lane(item, "Messages")
