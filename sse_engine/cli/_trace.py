"""Running a captured body through a lane while noting where each event and warning sits.

The body is fed one line at a time, so every lane event and every warning can
be pinned to the SSE event (its number, first line and byte range) it came
from. A separate :class:`SSEParser` fed the same lines finds the events'
spans; the lane's own ``LaneWarning.event_index`` counts the same events.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from typing import Any

import attrs

from sse_engine._errors import ProtocolError
from sse_engine._lane import Lane, LaneEvent, LaneWarning
from sse_engine._parser import SSEParser

__all__ = ["LineIndex", "Located", "Span", "Trace", "lines_of", "trace"]

_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def lines_of(body: bytes) -> Iterator[tuple[int, bytes]]:
    """Each line of ``body`` with its terminator (CRLF, LF or CR), and where it starts."""
    for match in _LINE.finditer(body):
        yield match.start(), match.group()


class LineIndex:
    """Byte offsets to 1-based line numbers (CRLF, LF and lone CR end a line)."""

    def __init__(self, body: bytes) -> None:
        self._starts = [0] + [m.end() for m in re.finditer(rb"\r\n|\r(?!\n)|\n", body)]

    def line_of(self, offset: int) -> int:
        """The line holding the byte at ``offset``."""
        return bisect_right(self._starts, max(offset, 0))


@attrs.frozen
class Span:
    """Where one SSE event sits: its first line and its bytes (up to its blank line)."""

    line: int
    start: int
    end: int


@attrs.frozen
class Located:
    """A lane event, and the SSE event it came from (None: produced by ``close()``)."""

    event: LaneEvent
    sse_index: int | None


@attrs.frozen
class LocatedWarning:
    """A lane warning, and whether ``close()`` (the end of the input) raised it."""

    warning: LaneWarning
    at_end: bool


@attrs.define
class Trace:
    """Everything one run of a lane over a body produced."""

    events: list[Located] = attrs.Factory(list)
    warnings: list[LocatedWarning] = attrs.Factory(list)
    spans: list[Span] = attrs.Factory(list)
    #: The ProtocolError that stopped the lane, and the byte it was noticed at.
    problem: ProtocolError | None = None
    problem_offset: int | None = None

    def span(self, sse_index: int | None) -> Span | None:
        if sse_index is None or not 0 <= sse_index < len(self.spans):
            return None
        return self.spans[sse_index]


def trace(lane: Lane[Any], body: bytes, *, close: bool = True) -> Trace:
    """Feed ``body`` to ``lane`` line by line (then close it), noting locations.

    A :class:`ProtocolError` stops the run: it is kept on ``problem`` (with
    the events decoded before it), not raised. ``close=False`` leaves the
    lane open (to resume it, say).
    """
    out = Trace()
    index = LineIndex(body)
    parser: SSEParser[Any] = SSEParser(lane.max_event_size)
    start: int | None = None
    for offset, line in lines_of(body):
        if line.endswith(b"\r"):
            # A lone CR (the regex keeps CRLF whole): the same line end as LF, and
            # the parser need not wait for the next read to see that no LF follows.
            line = line[:-1] + b"\n"
        stripped = line.rstrip(b"\r\n")
        if stripped and start is None and not stripped.startswith(b":"):
            start = offset
        end = offset + len(line)
        try:
            dispatched = parser.feed(line)
        except ProtocolError:
            dispatched = []
        if dispatched:
            first = start if start is not None else offset
            out.spans.append(Span(index.line_of(first), first, end))
        if not stripped:
            start = None
        before = len(lane.warnings)
        try:
            events = lane.feed(line)
        except ProtocolError as exc:
            out.problem, out.problem_offset = exc, end
            events = exc.events
        sse_index = len(out.spans) - 1 if dispatched else None
        out.events += [Located(e, sse_index) for e in events]
        out.warnings += [LocatedWarning(w, False) for w in lane.warnings[before:]]
        if out.problem is not None:
            return out
    if close:
        before = len(lane.warnings)
        out.events += [Located(e, None) for e in lane.close()]
        out.warnings += [LocatedWarning(w, True) for w in lane.warnings[before:]]
    return out
