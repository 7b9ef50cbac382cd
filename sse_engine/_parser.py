"""The WHATWG "event stream interpretation" algorithm, incremental and linear-time.

How it stays fast without re-scanning: the parser works on whole *blocks* (the
lines between two blank lines). Each ``feed()`` finds the last blank line in
its bytes (after turning CR and CRLF into LF, which is safe on raw bytes: CR
and LF are ASCII and never part of a multi-byte character). Everything before
it is complete: it is decoded once (C codec; invalid bytes become U+FFFD) and
split into blocks in one C call, and the common block shapes (``data: …`` and
``event: …`` + ``data: …``) become events without a per-line loop; any other
block takes the line-by-line path that implements every rule of the spec.
A read that is exactly one such block (a gateway's read: one event each) is
matched whole before any of that: one strict decode, one regular expression.
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
from sse_engine._parser_blocks import FEW, LONG_CRLF, LONG_TAIL, ONE_BLOCK, BlockParser
from sse_engine._parser_lines import (
    AFTER_CR,
    BOM,
    CLOSED,
    COLON,
    FAILED,
    LF,
    OPEN,
    Item,
    comment,
    new_event,
    retry_value,
)
from sse_engine._sse import Comment, ServerSentEvent

__all__ = ["DEFAULT_MAX_EVENT_SIZE", "SSEParser"]

#: 16 MiB of characters: far above any LLM event (the largest seen are a few
#: hundred KiB of base64 image data) yet small enough to stop a runaway peer.
DEFAULT_MAX_EVENT_SIZE = 16 * 1024 * 1024

_CR = 13
_LF = "\n"
_NN = b"\n\n"


def _as_bytes(data: bytes | bytearray | memoryview | str) -> bytes:
    """``data`` as bytes; a str is a usage error (its encoding on the wire is unknown)."""
    if isinstance(data, str):
        raise UsageError(
            "feed() takes bytes, not str: pass the raw body bytes "
            "(the parser decodes UTF-8 itself)"
        )
    return bytes(data)


class SSEParser(BlockParser[Item]):
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

    __slots__ = ("_few",)

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
        # Complete blocks shorter than this are matched in feed() itself.
        self._few = min(FEW, self._max)

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
        if (
            type(data) is bytes
            and data[-2:] == _NN
            and not self._tail
            and self._state is OPEN
            and not self._pending_size
            and len(data) < self._few
            and _CR not in data
        ):
            # One whole block of the common shape in one read, between two blank
            # lines (a gateway's read): strict decoding proves the UTF-8 valid (no
            # mark to make) and one match reads the block.
            try:
                match = ONE_BLOCK(data.decode())
            except UnicodeDecodeError:
                match = None
            if match is not None:
                self._bytes_fed += len(data)
                self._started = True  # a BOM or blank line first does not match
                ident, kind, value = match.groups()
                if ident is not None:
                    self._id_buffer = self._last_event_id = ident
                return [new_event(ServerSentEvent, (kind or "message", value, self._id_buffer))]
        items: list[Item] = []
        if self._state is not OPEN or type(data) is not bytes:
            data = self._lf_only(data, items)
            n = len(data)
        elif _CR in data:
            n = len(data)
            if n > LONG_CRLF or data[-1] == _CR:
                data = self._lf_only(data, items)
            else:  # a short CRLF read: turned to LF here, without the call
                self._bytes_fed += n
                data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
                self._removed += n - len(data)
            n = len(data)
        else:
            n = len(data)
            self._bytes_fed += n
        tail: list[bytes] = self._tail
        # Where the last blank line is: at the last "\n\n" in this read, or at
        # its first byte when that starts a line and is an LF.
        # A read with no LF (a byte at a time, or a piece of a large event) needs one
        # memchr only; in one with LF, the memchr stops at the first.
        last = -1 if LF not in data else data.rfind(b"\n\n")
        if last < 0 and (not n or data[0] != LF or (tail and tail[-1][-1] != LF)):
            if not n:
                self._bad_utf8 = None  # marks belong to the latest feed(), and this one read none
                return items
            tail.append(data)
            self._tail_size += n
            if (tail[0][0] == COLON and LF in data) or (
                self._pending_size + self._tail_size > self._max
            ):
                self._tail_grew(items)
            return items
        if last < 0 or self._tail_size >= LONG_TAIL:
            self._read_blocks(data, last, items)
        else:
            # The complete blocks, up to where the last blank line begins, behind
            # a blank line: then every block follows "\n\n", as SPLIT reads them.
            if tail:
                region = b"".join((_NN, *tail, data[:last]))
                self._tail = []  # a new list, not cleared: see TailParser._counter
            else:
                region = _NN + data[:last]
            text = region.decode("utf-8", "replace")
            if not self._started:  # _decode(), inlined on the hot path
                self._started = True
                if text[2:3] == "\ufeff":
                    text = "\n\n" + text[3:]
            if len(text) + self._pending_size < self._few and (
                text.isascii() or "\ufffd" not in text  # O(1) for ASCII text
            ):
                if self._pending_size:  # comment lines taken early began the first block
                    self._pending_size = 0  # read: with them, the block is within the limit
                # A few blocks with no invalid UTF-8 (the usual network read), read
                # here without a call: a block that is (an id line, an event line
                # and) one data line is its event.
                general = True
                if text.startswith("\n\ndata: "):  # maybe Chat Completions': a data line each
                    values = text.split("\n\ndata: ")
                    del values[0]
                    start = len(items)
                    id_buffer = self._id_buffer
                    for value in values:
                        # One memchr per value: counting the text's LFs instead read it
                        # char by char (a tenth of a ragged read's instructions).
                        if _LF in value:  # more lines, or blocks of other shapes: not here
                            del items[start:]
                            break
                        items.append(new_event(ServerSentEvent, ("message", value, id_buffer)))
                    else:
                        general = False
                if general:
                    parts = self._split(text)
                    if parts[0]:  # blocks of other shapes first: not one data line each
                        self._parts(parts, items)
                    else:
                        id_buffer = self._id_buffer
                        i, end = 1, len(parts)
                        while i < end:
                            value = parts[i + 2]
                            if _LF in value:  # more lines, or blocks of other shapes after
                                self._id_buffer = self._last_event_id = id_buffer
                                self._split_blocks(parts[i - 1 :], items)
                                break
                            if parts[i] is not None:
                                id_buffer = parts[i]
                            items.append(new_event(ServerSentEvent, (
                                parts[i + 1] or "message", value, id_buffer)))
                            i += 3
                        else:
                            self._id_buffer = self._last_event_id = id_buffer
            else:
                self._complete(region, text, n - last - 2, items)
        # What follows the last blank line starts the next block (no block is
        # pending now: the read's blocks all ended).
        last += 2
        if last < n:
            rest = data[last:]
            self._tail = [rest]
            self._tail_size = n - last
            if (rest[0] == COLON and LF in rest) or n - last > self._max:
                self._tail_grew(items)
        else:
            self._tail_size = 0
        return items

    def _lf_only(self, data: bytes | bytearray | memoryview, items: list[Item]) -> bytes:
        """A read as bytes whose lines end with LF only (it had CR in it, or the last
        read ended with CR); raises when the parser is not open.

        A CR that ends a read ends a line at once; an LF that starts the next
        read is the rest of that CRLF, and is dropped. The complete blocks of a
        long CRLF read go into ``items`` as they are (see ``_crlf_blocks``), and
        the bytes after them are returned.
        """
        if self._state is not OPEN and self._state is not AFTER_CR:
            self._raise_not_open()
        if type(data) is not bytes:
            data = _as_bytes(data)
        if self._state is AFTER_CR and data:
            self._state = OPEN
            if data[0] == LF:
                data = data[1:]
                self._bytes_fed += 1
                self._removed += 1
        n = len(data)
        self._bytes_fed += n
        if _CR not in data:
            return data
        if data[-1] == _CR:
            self._state = AFTER_CR
        if n > LONG_CRLF:
            last = data.rfind(b"\r\n\r\n")
            if not self._tail and not self._pending_size and last > LONG_CRLF:
                # A read that begins a block: its blocks up to the last blank line
                # are read as they are, the first one too (when clean).
                rest = self._whole_crlf_blocks(data, last, items)
                if rest is not None:
                    return rest
            first = data.find(b"\r\n\r\n")
            if last + 4 == n:  # bytes must follow, for feed() to go on with
                last = data.rfind(b"\r\n\r\n", 0, last + 3)
            if last - first > LONG_CRLF:
                return self._crlf_blocks(data, first, last, items)
        lf = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        self._removed += n - len(lf)
        return lf

    def _tail_grew(self, items: list[Item]) -> None:
        """What the unfinished block gives before it ends: comment lines that begin it,
        or a failure when it grew past the limit."""
        if self._tail[0][0] == COLON:
            self._take_comments(items)
        if self._pending_size + self._tail_size > self._max:
            self._count_tail(items)

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
