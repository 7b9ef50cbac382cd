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

from sse_engine._encoder import encode_event, encode_json, not_this_lane
from sse_engine._lane import FrameItem, StreamEnd, StreamRestarted
from sse_engine._outcome import Outcome
from sse_engine.chat._events import ChatChunk, ChatUnknownFrame, _ChunkEvent
from sse_engine.chat._wire import DONE_FRAME

__all__ = ["encode_chat_event"]

# Failures the lane decides itself: no frame on the wire carried them.
_VERDICT_CODES = frozenset({"protocol_error", "wrong_lane"})


def _error_frame(end: StreamEnd) -> bytes:
    """The in-stream error frame a FAILED ``StreamEnd`` was read from, or ``b""``.

    An error frame's ``StreamError.raw`` is what it carried: the decoded JSON
    object, or the data text of an ``event: error`` frame whose data is not a
    JSON object (``"overloaded"``, ``503``, plain text), which goes back as sent.
    """
    error = end.error
    if error is None or error.status is not None or error.code in _VERDICT_CODES:
        return b""
    raw = error.raw
    if isinstance(raw, Mapping):
        # Read as an error either from its "error" key or from its `event: error` line.
        return encode_json(raw, event=None if raw.get("error") else "error")
    if isinstance(raw, str):
        return encode_event(raw, event="error")
    return b""


def encode_chat_event(item: FrameItem) -> bytes:
    """The Chat Completions frame of ``item``: a chunk payload, or a Chat lane event.

    A payload dict becomes a data-only frame (``data: {json}``). ``ChatChunk``
    and ``ChatUnknownFrame`` become the frame they were decoded from; the
    events a chunk's content produces (``ChatContentDelta``, ...) become
    ``b""``, since their ``ChatChunk`` already carried the frame.

    ``StreamEnd`` becomes ``data: [DONE]`` when the stream reached it:
    ``COMPLETED`` and ``INCOMPLETE`` (which the lane only decides at ``[DONE]``,
    unless made with ``require_done=False``: a stream it accepted without
    ``[DONE]`` is re-emitted with one, so every client sees it end), and
    ``TRUNCATED`` with ``missing_finish_reason``. A ``TRUNCATED`` end without
    ``[DONE]`` (``stream_truncated``, even when every choice had finished)
    becomes ``b""``, so the re-emitted stream is cut where the original was.
    An in-stream error becomes its error frame; any other end ``b""``. Raises
    ``TypeError`` for another lane's event.
    """
    if isinstance(item, Mapping):
        return encode_json(item)
    if isinstance(item, ChatChunk | ChatUnknownFrame):
        return encode_json(item.raw)
    if isinstance(item, _ChunkEvent | StreamRestarted):
        return b""
    if isinstance(item, StreamEnd):
        outcome = item.outcome
        if outcome is Outcome.COMPLETED or outcome is Outcome.INCOMPLETE:
            return DONE_FRAME
        if outcome is Outcome.TRUNCATED:
            reached = item.error is not None and item.error.code == "missing_finish_reason"
            return DONE_FRAME if reached else b""
        return _error_frame(item)  # FAILED
    raise not_this_lane(item, "Chat Completions")
