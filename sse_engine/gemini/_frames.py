"""The Gemini lane's own encoder: its events back to wire frames, as Google writes them.

Data-only frames, ``data: {json}``, each line ended by CRLF and each frame by a
blank line (``\\r\\n\\r\\n``), the JSON spaced as Google spaces it (a space
after each colon, none after a comma). A chunk produces several events
(``GeminiChunk`` first, then its parts and fields, which share the chunk as
``raw``): only ``GeminiChunk``, ``GeminiUnknownFrame`` and ``GeminiError``
encode to a frame; the others, and ``StreamEnd`` (the API sends no end frame),
encode to ``b""``. Encoding a stream's events gives the stream back: byte for
byte for a stream Google wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sse_engine._encoder import encode_event, json_text, not_this_lane
from sse_engine._lane import FrameItem, StreamEnd, StreamRestarted
from sse_engine.gemini._events import (
    GeminiChunk,
    GeminiError,
    GeminiUnknownFrame,
    _ChunkEvent,
)

__all__ = ["dumps", "encode_gemini_event", "frame"]

#: Google's JSON spacing: ``{"a": 1,"b": [2,3]}``.
_SEPARATORS = (",", ": ")


def dumps(payload: Any) -> str:
    """``payload`` as Google spells JSON (UTF-8 text kept; ASCII escapes only for a value
    with no UTF-8 form, a lone surrogate, so the payload still round-trips)."""
    return json_text(payload, _SEPARATORS)


def frame(data: str, event: str | None = None) -> bytes:
    """One frame of ``data`` (and an ``event:`` line, for an error that had one), CRLF-ended."""
    return encode_event(data, event=event).replace(b"\n", b"\r\n")


def encode_gemini_event(item: FrameItem) -> bytes:
    """The Gemini frame of ``item``: a ``GenerateContentResponse`` payload, or a Gemini lane event.

    A payload dict becomes a data-only frame. ``GeminiChunk`` and
    ``GeminiUnknownFrame`` become the frame they were decoded from,
    ``GeminiError`` its error frame (an ``event: error`` frame whose data was
    no JSON object goes back as it came); the events a chunk's content
    produces, ``StreamEnd`` and ``StreamRestarted`` become ``b""``. Raises
    ``TypeError`` for another lane's event.
    """
    if isinstance(item, Mapping):
        return frame(dumps(item))
    if isinstance(item, GeminiChunk | GeminiUnknownFrame):
        return frame(dumps(item.raw))
    if isinstance(item, GeminiError):
        raw = item.raw
        if isinstance(raw, Mapping):  # read as an error by its key, or by its `event: error`
            return frame(dumps(raw), event=None if "error" in raw else "error")
        return frame(raw if isinstance(raw, str) else dumps(raw), event="error")
    if isinstance(item, _ChunkEvent | StreamEnd | StreamRestarted):
        return b""
    raise not_this_lane(item, "Gemini")
