"""The WHATWG "event stream interpretation" algorithm, incremental and linear-time.

How it stays fast without re-scanning: the parser works on whole *blocks* (the
lines between two blank lines). Each ``feed()`` finds the last blank line in
its bytes (after turning CR and CRLF into LF, which is safe on raw bytes: CR
and LF are ASCII and never part of a multi-byte character). Everything before
it is complete: it is decoded once (C codec; invalid bytes become U+FFFD) and
split into blocks in one C call, and the common block shapes (``data: …`` and
``event: …`` + ``data: …``) become events without a per-line loop; any other
block takes the line-by-line path that implements every rule of the spec.
Bytes after the last blank line wait, raw, in a list of pieces that is joined
once, when the block ends. Because that unfinished block holds no blank line,
the block it ends with is known without searching it again, so a huge event
fed in small reads costs linear time, and a read that ends no line costs two
``memchr`` calls and a list append.

An unfinished block is interpreted only when it ends. What the spec lets an
observer see earlier is handled apart: ``retry`` and ``in_event`` are computed
on demand from the raw tail, comment lines that begin a block (bare
keepalives) are reported as each line ends (and, for a block that grows past
``max_event_size``, exactly those that ended within the limit, however the
bytes were split), and ``close()`` reports the other comment lines of a block
the stream never finished.

Invalid UTF-8 is found without a cost on the hot path: a decoded text that
``str.isascii()`` (a flag CPython keeps) and, failing that, holds no U+FFFD
cannot have had a replacement; only a read that does takes the rare path,
which goes line by line and marks where (``invalid_utf8``).

The rooms: this module holds the public surface and the hot path, all of it
in one function (``feed``), so a common event costs no call. What it calls
only off that path lives beside it, in two layers :class:`SSEParser` builds
on: ``_parser_tail.py`` (the unfinished block and what is read from it early)
over ``_parser_lines.py`` (the spec's state and per-line steps, the blocks
that need them one line at a time, and the failed state).
"""

from __future__ import annotations

import sys
from typing import Literal, overload

from sse_engine._errors import UsageError
from sse_engine._parser_lines import (
    BOM,
    CLOSED,
    COLON,
    FAILED,
    LF,
    OPEN,
    Item,
    comment,
    new_event,
    replaced,
    retry_value,
)
from sse_engine._parser_tail import TailParser
from sse_engine._sse import Comment, ServerSentEvent

__all__ = ["DEFAULT_MAX_EVENT_SIZE", "SSEParser"]

#: 16 MiB of characters: far above any LLM event (the largest seen are a few
#: hundred KiB of base64 image data) yet small enough to stop a runaway peer.
DEFAULT_MAX_EVENT_SIZE = 16 * 1024 * 1024

#: An unfinished block this long is not searched again for blank lines when it
#: ends (``str.split("\n\n")`` scans at about 1 ns a character).
_LONG_TAIL = 1 << 16
_CR = 13


class SSEParser(TailParser[Item]):
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
    stream order. Like every line, a comment is interpreted when its block
    ends, so a keepalive sent as ``: keepalive`` + blank line arrives at once.
    """

    __slots__ = ("_skip_lf",)

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
        super().__init__(sys.maxsize if max_event_size is None else max_event_size, comments)
        # A CR ended the last read: an LF starting the next one completes a CRLF.
        self._skip_lf = False

    @property
    def last_event_id(self) -> str:
        """The committed last event ID: what a reconnect sends as ``Last-Event-ID``."""
        return self._last_event_id

    @property
    def retry(self) -> int | None:
        """The last valid ``retry:`` value in milliseconds, or None if the stream set none."""
        if self._tail:
            for line in reversed(self._tail_lines()):
                if line[:5] == "retry" and line[5:6] in ("", ":"):
                    value = line[7:] if line[6:7] == " " else line[6:]
                    retry = retry_value(value)
                    if retry is not None:
                        return retry
        return self._retry

    @property
    def bytes_fed(self) -> int:
        """How many bytes ``feed()`` has accepted so far (for error positions)."""
        return self._bytes_fed

    @property
    def in_event(self) -> bool:
        """True while an event has started but not been terminated by a blank line."""
        if self._pending_size:
            return True
        if not self._tail:
            return False
        tail = b"".join(self._tail)
        if not self._started:
            # Only at the start of the stream can a block begin with blank
            # lines (or a BOM); they start no event.
            tail = tail.removeprefix(BOM).lstrip(b"\n")
        return bool(tail)

    @property
    def invalid_utf8(self) -> list[tuple[int, int, int]]:
        """Where the latest ``feed()`` met invalid UTF-8 (each sequence became U+FFFD).

        One ``(position, offset, count)`` per line that held invalid bytes:
        ``position`` is the index, in the list that ``feed()`` returned (or
        in ``EventTooLarge.events``), of the first item read after the line;
        ``offset`` is the stream offset of the line's first invalid byte,
        counting a CRLF as one byte; ``count`` how many U+FFFD replaced
        invalid bytes in it. Empty when the latest read was clean.
        """
        bad = self._bad_utf8
        return list(bad[1]) if bad is not None and bad[0] == self._bytes_fed else []

    def feed(self, data: bytes | bytearray | memoryview) -> list[Item]:
        """Parse the next bytes of the stream; return the items they complete."""
        if self._state is not OPEN:
            self._raise_not_open()
        if type(data) is not bytes:
            if isinstance(data, str):
                raise UsageError(
                    "feed() takes bytes, not str: pass the raw body bytes "
                    "(the parser decodes UTF-8 itself)"
                )
            data = bytes(data)
        n = len(data)
        self._bytes_fed += n
        if self._skip_lf and n:
            self._skip_lf = False
            if data[0] == LF:
                data = data[1:]
                n -= 1
                self._removed += 1
        if not n:
            self._bad_utf8 = None  # marks belong to the latest feed(), and this one read nothing
            return []
        if _CR in data:
            if data[-1] == _CR:
                self._skip_lf = True
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            self._removed += n - len(data)
            n = len(data)
        tail = self._tail
        # Where the last blank line is: after the last "\n\n" in this read, or
        # its first byte when that starts a line and is an LF.
        # A short read with no LF (one byte at a time) needs one memchr only.
        last = 0 if n < 64 and LF not in data else data.rfind(b"\n\n") + 1
        items: list[Item] = []
        if not last and not (self._line_start and data[0] == LF):
            tail.append(data)
            self._tail_size += n
            self._line_start = data[-1] == LF
            if tail[0][0] == COLON and LF in data:
                self._take_comments(items)
            if self._pending_size + self._tail_size > self._max:
                self._count_tail(items)
            return items
        if self._tail_size >= _LONG_TAIL:
            blocks, raws, start = self._split_after_long_tail(data, last, items)
            if raws is not None:
                self._blocks_marked(blocks, raws, start, items)
            sized = True
        else:
            if tail:
                tail.append(data[: last + 1])
                region = b"".join(tail)
                tail.clear()
                self._counter = None
            else:
                region = data[: last + 1]
            text = region.decode("utf-8", "replace")
            if not self._started:  # _decode(), inlined on the hot path
                self._started = True
                if text[:1] == "\ufeff":
                    text = text[1:]
            blocks = text.split("\n\n")
            # No block can be too large when all of them together are not.
            sized = len(text) >= self._max
            if not text.isascii() and "\ufffd" in text:  # O(1) for ASCII text
                raws = replaced(region, blocks)
                if raws is not None:  # the decoder replaced invalid bytes (rare): mark them
                    start = self._bytes_fed - self._removed - n + last + 1 - len(region)
                    self._blocks_marked(blocks, raws, start, items)
        rest = data[last + 1 :]
        self._tail_size = len(rest)
        if rest:
            tail.append(rest)
            self._line_start = rest[-1] == LF
        else:
            self._line_start = True
        # The blocks: each is followed by a blank line, except the last piece,
        # which is empty or a lone LF (an odd run of blank lines: one more).
        odd = blocks.pop()
        if self._pending_size and blocks:
            # The first block began with comment lines taken earlier.
            if self._block_size(blocks[0]) > self._max:
                self._fail_block(blocks[0], items)
            self._lines(blocks[0].split("\n"), items)
            self._dispatch(items)
            del blocks[0]
        id_buffer = self._id_buffer
        for block in blocks:
            # A block's size is its length + 1 (its last terminator), but a
            # leading LF is a blank line of its own, not part of the event.
            if sized and len(block) + (block[:1] != "\n") > self._max:
                self._fail_block(block, items)
            if block[:6] == "data: " and "\n" not in block:
                items.append(new_event(ServerSentEvent, ("message", block[6:], id_buffer)))
                continue
            if block[:7] == "event: ":
                head, sep, value = block.partition("\ndata: ")
                if sep and len(head) > 7 and "\n" not in head and "\n" not in value:
                    items.append(new_event(ServerSentEvent, (head[7:], value, id_buffer)))
                    continue
            self._lines(block.split("\n"), items)
            self._dispatch(items)
            id_buffer = self._id_buffer
        if odd:
            self._dispatch(items)
        if rest:
            if rest[0] == COLON and LF in rest:
                self._take_comments(items)
            if self._pending_size + self._tail_size > self._max:
                self._count_tail(items)
        return items

    def close(self) -> list[Item]:
        """Signal the end of the stream.

        Per the spec, an event that was not terminated by a blank line is
        discarded: no event is ever returned here. With ``comments=True`` the
        comment lines of that unfinished block are returned (the spec reads
        every complete line, comments included, before the end). ``in_event``
        (read before calling) tells whether anything was discarded. Closing
        twice is harmless; ``feed()`` after ``close()`` raises :class:`UsageError`.
        """
        if self._state is FAILED:
            self._raise_not_open()
        items: list[Item] = []
        if self._tail:
            self._retry = self.retry
            if self._comments:
                for line in self._tail_lines():
                    if line[:1] == ":":
                        items.append(comment(line))  # type: ignore[arg-type]
            self._clear_tail()
        self._state = CLOSED
        return items
