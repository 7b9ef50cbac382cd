"""Which wire format a response is, from its first bytes: what a program reads to pick a lane.

Each format in ``FORMATS`` says which events are its own (``recognize``: a
``response.*`` event, a Messages frame, a ``chat.completion.chunk``, the
``data: [DONE]`` sentinel) and which error reports have its own shape
(``recognize_error``); :func:`detect` asks them about the first events of a
stream, or about a JSON error body sent instead of one. The command line's
``inspect`` names a capture's lane the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Final, final

import attrs

from sse_engine._formats import FORMATS, WireFormat
from sse_engine._headers import content_type, is_event_stream
from sse_engine._lane_events import Headers
from sse_engine._parser import SSEParser
from sse_engine._sse import ServerSentEvent

__all__ = ["Detection", "detect", "detect_events", "error_shape"]

#: How many of a stream's first events are asked before giving up.
DETECT_EVENTS: Final = 50
#: How much of the bytes given is read for them.
DETECT_BYTES: Final = 256 * 1024


@final
@attrs.frozen
class Detection:
    """A format named from a response's bytes: ``format`` (its ``FORMATS`` row), and why."""

    format: WireFormat
    reason: str


def detect(
    data: bytes | bytearray | memoryview, *, status: int = 200, headers: Headers | None = None
) -> Detection | None:
    """The wire format of a response, from the first bytes of its body; None when they do not tell.

    ``status`` and ``headers`` are the response's, as a lane's ``start()``
    takes them: a non-2xx status, or a content type other than
    ``text/event-stream``, means the body is a JSON error report, named by
    the format whose own error shape it has (most APIs share one envelope:
    then None). Otherwise the first events that tell name the format; an
    event stream holding only an error is named by its error's shape. None
    means: read more bytes, or say which API you called.
    """
    head = bytes(data[:DETECT_BYTES])
    if not is_event_stream(status, content_type(headers)):
        return error_shape("", _decode(head.decode("utf-8", "replace")))
    parser: SSEParser[ServerSentEvent] = SSEParser(None)
    events = parser.feed(head)
    return detect_events(events + parser.close())


def detect_events(events: Iterable[ServerSentEvent]) -> Detection | None:
    """The format these SSE events are of, from the first that tell (see :func:`detect`)."""
    error_guess: Detection | None = None
    for count, sse in enumerate(events):
        if count == DETECT_EVENTS:
            break
        name = sse.event
        payload = _decode(sse.data)
        for row in FORMATS.values():
            why = row.recognize(name, payload)
            if why:
                return Detection(row, why)
        if error_guess is None:
            error_guess = error_shape(name, payload)
    return error_guess


def _decode(data: str) -> Any:
    """The data as JSON, or the data text itself when it is not JSON (a sentinel)."""
    try:
        return json.loads(data)
    except (ValueError, RecursionError):  # too deep for json.loads counts as not JSON
        return data.strip()


def error_shape(event: str, payload: Any) -> Detection | None:
    """The format whose own error shape an error report has: ``event`` its ``event:`` name
    (``""`` for a JSON body sent instead of a stream), ``payload`` its decoded JSON."""
    for row in FORMATS.values():
        why = row.recognize_error(event, payload)
        if why:
            return Detection(row, why)
    return None
