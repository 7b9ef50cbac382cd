"""What a capture is: an event stream or a JSON error body, and which lane sent it.

:func:`classify` reads the first events (or the body) and names the lane; the
report in :mod:`sse_engine.cli._inspect` then runs that lane over the bytes.
"""

from __future__ import annotations

import json
from typing import Any

import attrs

from sse_engine._detect import DETECT_EVENTS, detect_events, error_shape
from sse_engine._formats import FORMATS
from sse_engine._headers import content_type as media_type_of
from sse_engine._headers import is_event_stream
from sse_engine._lane import Lane
from sse_engine._lane_body import only_element
from sse_engine._outcome import Outcome
from sse_engine._parser import SSEParser
from sse_engine._sse import ServerSentEvent

__all__ = [
    "ASSUMED_ERROR_STATUS",
    "EXIT_STATUS",
    "EXIT_UNREADABLE",
    "Input",
    "Unreadable",
    "classify",
    "detect_lane",
    "exit_status",
    "new_lane",
]

#: Exit status per outcome (3 is for input that cannot be read at all).
EXIT_STATUS = {
    Outcome.COMPLETED: 0,
    Outcome.INCOMPLETE: 1,
    Outcome.FAILED: 2,
    Outcome.TRUNCATED: 2,
}
EXIT_UNREADABLE = 3

#: The status a pre-stream error body is replayed with when ``--status`` is not given.
ASSUMED_ERROR_STATUS = 400

_SAMPLE = 64 * 1024


class Unreadable(Exception):
    """The input is not something any lane can read; the message is one line for the user."""


def exit_status(outcome: Outcome | None) -> int:
    """0 completed, 1 incomplete, 2 failed or truncated (None: the lane stopped, failed)."""
    return EXIT_STATUS.get(outcome, 2) if outcome is not None else 2


def new_lane(name: str | None) -> Lane[Any]:
    """A lane of the format named ``name``; of the first format when none is named
    (every lane reads every API's JSON error body)."""
    lane: Lane[Any] = FORMATS[name or next(iter(FORMATS))].lane()
    return lane


# -- what the input is -------------------------------------------------------------------------


def _check_readable(body: bytes) -> None:
    if not body.strip():
        raise Unreadable("empty input: there is nothing to inspect")
    if body[:2] == b"\x1f\x8b":
        raise Unreadable(
            "gzip-compressed data: decompress it first (the capture kept its Content-Encoding)"
        )
    sample = body[:_SAMPLE]
    nul = sample.find(b"\x00")
    if nul >= 0:
        raise Unreadable(f"binary data, not a text event stream (a NUL byte at offset {nul})")
    text = sample.decode("utf-8", "replace")
    if text.count("\ufffd") * 20 > len(text):
        raise Unreadable("binary data, not a text event stream (mostly invalid UTF-8)")


def _error_body(body: bytes) -> Any:
    """The JSON of a pre-stream error body (an error object, or a one-element array of one,
    as Google sends), or None when the body is not one."""
    head = body.lstrip()[:1]
    if head not in (b"{", b"["):
        return None
    try:
        value = json.loads(body.decode("utf-8", "replace"))
    except (ValueError, RecursionError):  # too deep for json.loads counts as not JSON
        return None  # not JSON after all: let the SSE checks explain
    envelope = value if isinstance(value, dict) else only_element(value)
    if envelope is not None and ("error" in envelope or envelope.get("type") == "error"):
        return value
    what = "object" if isinstance(value, dict) else type(value).__name__
    raise Unreadable(
        f"a JSON {what}, not an event stream (a response fetched without stream: true?); "
        "a JSON error body needs an 'error' key, or pass --status"
    )


def detect_lane(events: list[ServerSentEvent]) -> tuple[str, str] | None:
    """The format these SSE events are of, and why (:func:`sse_engine.detect_events`)."""
    found = detect_events(events)
    return None if found is None else (found.format.name, found.reason)


# -- the report ------------------------------------------------------------------------------


@attrs.frozen
class Input:
    kind: str  # "stream" or "error_body"
    lane: str | None
    reason: str
    status: int | None
    status_assumed: bool = False
    #: What the body is, for the report's source line.
    described: str = "a JSON error body, not a stream"


def _error_lane(payload: Any, lane: str) -> tuple[str | None, str]:
    """The lane of a JSON error body, and why: given, or read from the body's shape."""
    if lane != "auto":
        return lane, "--lane"
    shaped = error_shape("", payload)
    if shaped is not None:
        return shaped.format.name, shaped.reason
    if isinstance(payload, dict) and isinstance(payload.get("error"), dict):
        return None, "a JSON error body in the envelope several APIs share; --lane to say which"
    return None, "an error body; --lane to say which API sent it"


def _events(body: bytes) -> list[ServerSentEvent]:
    """The SSE events the body holds, from its first reads (enough to tell its lane)."""
    parser: SSEParser[ServerSentEvent] = SSEParser(None)
    events = parser.feed(body[: 4 * _SAMPLE])
    if not events and len(body) > 4 * _SAMPLE:
        events = parser.feed(body[4 * _SAMPLE :])
    return events + parser.close()


def classify(
    body: bytes, lane: str, status: int | None, content_type: str | None = None
) -> Input:
    """What ``body`` is, given the HTTP status and content type it came with (if known)."""
    _check_readable(body)
    if status is not None and not 200 <= status < 300:
        try:
            payload = json.loads(body.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            payload = None
        if payload is not None:
            return Input("error_body", *_error_lane(payload, lane), status)
        # Not JSON: every client reads a non-2xx body as an error report, whatever it holds.
        events = _events(body)
        detected = detect_lane(events) if events and lane == "auto" else None
        name, reason = (lane, "--lane") if lane != "auto" else detected or (
            None, "an error body; --lane to say which API sent it"
        )
        described = (
            f"an event stream sent with HTTP {status}: read as an error body, as clients do"
            if events else "an error body that is not JSON"
        )
        return Input("error_body", name, reason, status, described=described)
    media_type = media_type_of({"content-type": content_type} if content_type else None)
    if not is_event_stream(status or 200, media_type):
        # A 2xx that is not a stream: the lanes read it as an error body, if it is one.
        error = _error_body(body)
        if error is None:
            raise Unreadable(
                f"the response's content type is {content_type}, not text/event-stream: "
                "there is no stream to inspect"
            )
        return Input("error_body", *_error_lane(error, lane), status or 200)
    error = _error_body(body) if status is None else None
    if error is not None:
        name, reason = _error_lane(error, lane)
        return Input("error_body", name, reason, ASSUMED_ERROR_STATUS, status_assumed=True)
    events = _events(body)
    if not events:
        raise Unreadable(
            "not an event stream: no SSE event (a 'data:' line followed by a blank line) found"
        )
    if lane != "auto":
        return Input("stream", lane, "--lane", status)
    detected = detect_lane(events)
    if detected is None:
        names = sorted({e.event for e in events[:DETECT_EVENTS]})
        raise Unreadable(
            f"cannot tell which API sent this stream (its first events are {', '.join(names)}, "
            f"with no recognisable payload); pass --lane {'|'.join(FORMATS)}"
        )
    return Input("stream", detected[0], detected[1], status)
