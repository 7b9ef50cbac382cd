"""The Responses lane's own encoder: its events back to wire frames.

An ``event: <type>`` line and the compact JSON payload, with an optional
``id:`` line. ``StreamEnd`` and ``StreamRestarted`` encode to ``b""`` (the
terminal event was a frame of its own).
"""

from __future__ import annotations

from collections.abc import Mapping

from sse_engine._encoder import encode_json, not_this_lane
from sse_engine._lane import FrameItem, StreamEnd, StreamRestarted
from sse_engine.responses._events import _ResponsesFrame

__all__ = ["encode_responses_event"]


def encode_responses_event(item: FrameItem, *, id: str | None = None) -> bytes:
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
        return encode_json(item, event=kind if isinstance(kind, str) else None, id=id)
    if isinstance(item, _ResponsesFrame):
        if not item.raw:
            raise ValueError(f"{type(item).__name__} {item.type!r} has no raw payload to encode")
        return encode_json(item.raw, event=item.type, id=id)
    if isinstance(item, StreamEnd | StreamRestarted):
        return b""
    raise not_this_lane(item, "Responses")
