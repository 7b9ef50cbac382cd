"""The Chat Completions lane's own encoder: its events back to wire frames.

Data-only frames (``data: {json}``) and the ``data: [DONE]`` sentinel. A
chunk produces several events (``ChatChunk`` first, then its content events,
which share the chunk as ``raw``): only ``ChatChunk`` and ``ChatUnknownFrame``
encode to a frame; the others encode to ``b""``. The ``StreamEnd`` of a stream
that reached ``[DONE]`` encodes to ``data: [DONE]``, and the one of an in-stream
error frame to that frame. See :mod:`sse_engine._encoder` for what every
lane's encoder shares.
"""

from __future__ import annotations

from collections.abc import Mapping

from sse_engine._encoder import encode_json, not_this_lane
from sse_engine._lane import FrameItem, StreamEnd, StreamRestarted
from sse_engine._outcome import Outcome
from sse_engine.chat._events import ChatChunk, ChatEvent, ChatUnknownFrame

__all__ = ["encode_chat_done", "encode_chat_event"]

_CHAT_DONE = b"data: [DONE]\n\n"


def _stream_end_is_in_stream_error(end: StreamEnd) -> bool:
    error = end.error
    return (
        end.outcome is Outcome.FAILED
        and error is not None
        and error.status is None
        and isinstance(error.raw, Mapping)
        and error.code != "protocol_error"
    )


def encode_chat_done() -> bytes:
    """The ``data: [DONE]`` frame that ends a Chat Completions stream."""
    return _CHAT_DONE


def encode_chat_event(item: FrameItem) -> bytes:
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
        return encode_json(item)
    if isinstance(item, ChatChunk | ChatUnknownFrame):
        return encode_json(item.raw)
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
            return encode_json(raw, event=None if raw.get("error") else "error")
        return b""
    raise not_this_lane(item, "Chat Completions")
