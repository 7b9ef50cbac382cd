"""The WHATWG "event stream interpretation" algorithm, incremental and linear-time.

How it stays fast without re-scanning: every ``feed()`` decodes its bytes once
(C codec, invalid bytes become U+FFFD, a multi-byte character split across reads
waits in ``_undecoded``), then cuts the text at its *last* line terminator. Text
after that terminator is an unfinished line; it is parked in ``_tail`` as a list
of pieces and only joined once its terminator arrives, so a huge event fed in
small reads costs linear time. The complete part is normalised to LF and split
on blank lines (``\\n\\n``), which yields whole events in one C call; the common
shapes (``data: …`` and ``event: …`` + ``data: …``) are recognised per block
without a per-line loop, and everything else takes the line-by-line path that
implements every rule of the spec.
"""

from __future__ import annotations

import codecs
import sys
from typing import Generic, Literal, TypeVar, overload

from sse_engine._errors import EventTooLarge, UsageError
from sse_engine._sse import Comment, ServerSentEvent

__all__ = ["DEFAULT_MAX_EVENT_SIZE", "SSEParser"]

#: 16 MiB of characters: far above any LLM event (the largest seen are a few
#: hundred KiB of base64 image data) yet small enough to stop a runaway peer.
DEFAULT_MAX_EVENT_SIZE = 16 * 1024 * 1024

_utf8_decode = codecs.utf_8_decode

Item = TypeVar("Item", ServerSentEvent, ServerSentEvent | Comment)

_OPEN, _CLOSED, _FAILED = "open", "closed", "failed"


class SSEParser(Generic[Item]):
    """An incremental, IO-free Server-Sent Events parser.

    Feed it bytes as they arrive; it returns the events completed by those bytes.
    Results are identical however the bytes are split across ``feed()`` calls.

    ``max_event_size`` bounds one event, counted in decoded characters of its
    lines (line terminators count as one) from the previous blank line to its
    own; ``None`` means unlimited. A stream that exceeds it raises
    :class:`EventTooLarge`, as soon as the unfinished event is too big (a peer
    that never sends a newline cannot exhaust memory). The parser is then
    failed for good: every later call raises again.

    ``comments=True`` also reports comment lines as :class:`Comment` items, in
    stream order, which is how keepalives become visible to a liveness check.
    """

    __slots__ = (
        "_bytes_fed",
        "_comments",
        "_data",
        "_error",
        "_event_type",
        "_id_buffer",
        "_last_event_id",
        "_max",
        "_pending_size",
        "_retry",
        "_skip_lf",
        "_started",
        "_state",
        "_tail",
        "_tail_size",
        "_undecoded",
    )

    @overload
    def __init__(
        self: SSEParser[ServerSentEvent],
        max_event_size: int | None = DEFAULT_MAX_EVENT_SIZE,
        comments: Literal[False] = False,
    ) -> None: ...

    @overload
    def __init__(
        self: SSEParser[ServerSentEvent | Comment],
        max_event_size: int | None = DEFAULT_MAX_EVENT_SIZE,
        *,
        comments: Literal[True],
    ) -> None: ...

    def __init__(
        self, max_event_size: int | None = DEFAULT_MAX_EVENT_SIZE, comments: bool = False
    ) -> None:
        if max_event_size is not None and max_event_size < 1:
            raise ValueError(f"max_event_size must be positive or None, not {max_event_size!r}")
        self._max = sys.maxsize if max_event_size is None else max_event_size
        self._comments = comments
        self._state = _OPEN
        self._error: EventTooLarge | None = None
        self._bytes_fed = 0
        self._undecoded = b""
        self._started = False
        self._skip_lf = False
        # The unfinished line, as pieces: joined once, when its terminator comes.
        self._tail: list[str] = []
        self._tail_size = 0
        # Characters of the complete lines of the event being built.
        self._pending_size = 0
        self._data: list[str] = []
        self._event_type = ""
        self._id_buffer = ""
        self._last_event_id = ""
        self._retry: int | None = None

    @property
    def last_event_id(self) -> str:
        """The committed last event ID: what a reconnect sends as ``Last-Event-ID``."""
        return self._last_event_id

    @property
    def retry(self) -> int | None:
        """The last valid ``retry:`` value in milliseconds, or None if the stream set none."""
        return self._retry

    @property
    def bytes_fed(self) -> int:
        """How many bytes ``feed()`` has accepted so far (for error positions)."""
        return self._bytes_fed

    @property
    def in_event(self) -> bool:
        """True while an event has started but not been terminated by a blank line."""
        return bool(self._pending_size or self._tail_size or self._undecoded)

    def feed(self, data: bytes | bytearray | memoryview) -> list[Item]:
        """Parse the next bytes of the stream; return the items they complete."""
        if self._state is not _OPEN:
            self._raise_not_open()
        if type(data) is memoryview:
            data = data.tobytes()
        self._bytes_fed += len(data)
        if self._undecoded:
            data = self._undecoded + data
            self._undecoded = b""
        text, used = _utf8_decode(data, "replace", False)
        if used != len(data):
            self._undecoded = bytes(data[used:])
        if not text:
            return []
        if not self._started:
            self._started = True
            if text[0] == "\ufeff":
                text = text[1:]
                if not text:
                    return []
        if self._skip_lf:
            self._skip_lf = False
            if text[0] == "\n":
                text = text[1:]
                if not text:
                    return []
        lf = text.rfind("\n")
        cr = text.rfind("\r")
        end = lf if lf > cr else cr
        if end < 0:
            self._tail.append(text)
            self._tail_size += len(text)
            if self._pending_size + self._tail_size > self._max:
                self._fail([])
            return []
        if cr == len(text) - 1:
            # A CR ends this read: its line is complete now, but an LF that
            # starts the next read belongs to it (CRLF) and must not count.
            self._skip_lf = True
        complete = text[: end + 1]
        rest = text[end + 1 :]
        if self._tail:
            self._tail.append(complete)
            complete = "".join(self._tail)
            self._tail.clear()
        if cr >= 0:
            complete = complete.replace("\r\n", "\n").replace("\r", "\n")
        items = self._process(complete)
        if rest:
            self._tail.append(rest)
            self._tail_size = len(rest)
        else:
            self._tail_size = 0
        # Also when the read ends on a terminator: complete lines of an event
        # with no blank line yet count too (a peer sending endless data lines).
        if self._pending_size + self._tail_size > self._max:
            self._fail(items)
        return items

    def close(self) -> list[Item]:
        """Signal the end of the stream.

        Per the spec, an event that was not terminated by a blank line is
        discarded, so this always returns an empty list; ``in_event`` (read
        before calling) tells whether anything was discarded. Closing twice is
        harmless; ``feed()`` after ``close()`` raises :class:`UsageError`.
        """
        if self._state is _FAILED:
            self._raise_not_open()
        self._state = _CLOSED
        return []

    def _raise_not_open(self) -> None:
        if self._state is _FAILED:
            assert self._error is not None
            raise EventTooLarge(self._error.limit, self._error.offset)
        raise UsageError("feed() called after close(): this SSEParser has reached end of stream")

    def _fail(self, items: list[Item]) -> None:
        self._state = _FAILED
        self._error = EventTooLarge(self._max, self._bytes_fed, events=list(items))
        raise self._error

    def _process(self, text: str) -> list[Item]:
        """Interpret complete lines (``text`` ends with LF, all terminators are LF)."""
        blocks = text.split("\n\n")
        # The last piece holds the complete lines of an event still open (or "").
        last = blocks.pop()
        items: list[Item] = []
        if blocks:
            limit = self._max
            first = 0
            if self._pending_size:
                # The first block continues an event begun in an earlier read.
                self._lines(blocks[0].split("\n"), items)
                self._dispatch(items)
                first = 1
            append = items.append
            make = ServerSentEvent
            id_buffer = self._id_buffer
            for i in range(first, len(blocks)):
                block = blocks[i]
                # A block's size is its length + 1 (its last terminator), but a
                # leading LF is a blank line of its own, not part of the event.
                if len(block) >= limit and len(block) + (block[:1] != "\n") > limit:
                    self._fail(items)
                if block[:6] == "data: " and "\n" not in block:
                    append(make("message", block[6:], id_buffer))
                    continue
                if block[:7] == "event: ":
                    nl = block.find("\n")
                    if (
                        nl > 7
                        and block[nl + 1 : nl + 7] == "data: "
                        and block.find("\n", nl + 1) < 0
                    ):
                        append(make(block[7:nl], block[nl + 7 :], id_buffer))
                        continue
                self._lines(block.split("\n"), items)
                self._dispatch(items)
                id_buffer = self._id_buffer
        if last:
            lines = last.split("\n")
            lines.pop()
            self._lines(lines, items)
        return items

    def _lines(self, lines: list[str], items: list[Item]) -> None:
        """The spec's per-line steps; a blank line dispatches."""
        data = self._data
        for line in lines:
            if not line:
                self._dispatch(items)
                data = self._data
                continue
            self._pending_size += len(line) + 1
            colon = line.find(":")
            if colon == 0:
                if self._comments:
                    text = line[2:] if line[1:2] == " " else line[1:]
                    items.append(Comment(text))  # type: ignore[arg-type]
                continue
            if colon < 0:
                name, value = line, ""
            else:
                name = line[:colon]
                colon += 2 if line[colon + 1 : colon + 2] == " " else 1
                value = line[colon:]
            if name == "data":
                data.append(value)
            elif name == "event":
                self._event_type = value
            elif name == "id":
                if "\x00" not in value:
                    self._id_buffer = value
            elif name == "retry" and value.isascii() and value.isdigit():
                try:
                    self._retry = int(value)
                except ValueError:
                    # More digits than sys.get_int_max_str_digits(): exact after
                    # dropping leading zeros, else ignored as unrepresentable (as
                    # browsers ignore a retry that overflows), never quadratic.
                    digits = value.lstrip("0")
                    if len(digits) <= sys.get_int_max_str_digits():
                        self._retry = int(digits or "0")

    def _dispatch(self, items: list[Item]) -> None:
        """The spec's blank-line step: commit the ID, emit the event if it has data."""
        if self._pending_size > self._max:
            self._fail(items)
        self._pending_size = 0
        self._last_event_id = self._id_buffer
        data = self._data
        if data:
            items.append(
                ServerSentEvent(
                    self._event_type or "message",
                    data[0] if len(data) == 1 else "\n".join(data),
                    self._id_buffer,
                )
            )
            self._data = []
        self._event_type = ""
