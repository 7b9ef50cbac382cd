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
"""

from __future__ import annotations

import codecs
import sys
from typing import Generic, Literal, NoReturn, TypeVar, overload

from sse_engine._errors import EventTooLarge, UsageError
from sse_engine._sse import Comment, ServerSentEvent

__all__ = ["DEFAULT_MAX_EVENT_SIZE", "SSEParser"]

#: 16 MiB of characters: far above any LLM event (the largest seen are a few
#: hundred KiB of base64 image data) yet small enough to stop a runaway peer.
DEFAULT_MAX_EVENT_SIZE = 16 * 1024 * 1024

Item = TypeVar("Item", ServerSentEvent, ServerSentEvent | Comment)

_OPEN, _CLOSED, _FAILED = "open", "closed", "failed"
_BOM = b"\xef\xbb\xbf"
#: An unfinished block this long is not searched again for blank lines when it
#: ends (``str.split("\n\n")`` scans at about 1 ns a character).
_LONG_TAIL = 1 << 16
_LF, _CR, _COLON = 10, 13, 58  # ``10 in data`` is a memchr; ``b"\n" in data`` is ~10x slower
_FFFD = b"\xef\xbf\xbd"  # U+FFFD itself, encoded: a replacement character the server sent
#: Builds a ServerSentEvent from a tuple without NamedTuple's Python-level __new__.
_new_event = tuple.__new__


def _retry_value(value: str) -> int | None:
    """The reconnection time a ``retry`` field sets, or None when it sets nothing."""
    if not (value.isascii() and value.isdigit()):
        return None
    try:
        return int(value)
    except ValueError:
        # More digits than sys.get_int_max_str_digits(): exact after dropping
        # leading zeros, else ignored as unrepresentable (as browsers ignore a
        # retry that overflows), never quadratic.
        digits = value.lstrip("0")
        return int(digits or "0") if len(digits) <= sys.get_int_max_str_digits() else None


def _comment(line: str) -> Comment:
    """The Comment a ``:`` line carries: its text, less one leading space."""
    return Comment(line[2:] if line[1:2] == " " else line[1:])


def _replaced(region: bytes, blocks: list[str]) -> list[bytes] | None:
    """The blocks' bytes if decoding ``region`` replaced invalid bytes in any block, else None.

    ``blocks`` is the decoded ``region`` split at blank lines; the bytes split
    the same way (invalid bytes never decode to LF). A U+FFFD the server sent
    (its UTF-8 bytes) is not a replacement.
    """
    raws = region.split(b"\n\n")
    for text, raw in zip(blocks, raws, strict=True):
        if not text.isascii() and text.count("\ufffd") > raw.count(_FFFD):
            return raws
    return None


def _bad_lines(text: str, raw: bytes, offset: int) -> list[tuple[int, int, int]]:
    """``(line number, stream offset of its first invalid byte, replacements)`` per bad line.

    ``text`` is ``raw`` decoded, ``offset`` where ``raw`` starts in the stream.
    """
    found = []
    pairs = zip(text.split("\n"), raw.split(b"\n"), strict=True)
    for number, (line, line_raw) in enumerate(pairs):
        if not line.isascii():
            count = line.count("\ufffd") - line_raw.count(_FFFD)
            if count > 0:
                try:
                    line_raw.decode("utf-8")
                    at = 0
                except UnicodeDecodeError as exc:
                    at = exc.start
                found.append((number, offset + at, count))
        offset += len(line_raw) + 1
    return found


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
    stream order. Like every line, a comment is interpreted when its block
    ends, so a keepalive sent as ``: keepalive`` + blank line arrives at once.
    """

    __slots__ = (
        "_bad_utf8",
        "_bytes_fed",
        "_comments",
        "_counter",
        "_data",
        "_error",
        "_event_type",
        "_id_buffer",
        "_last_event_id",
        "_line_start",
        "_max",
        "_pending_size",
        "_removed",
        "_retry",
        "_skip_lf",
        "_started",
        "_state",
        "_tail",
        "_tail_size",
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
        # Bytes the CRLF -> LF normalisation removed: offsets of invalid UTF-8
        # are counted in the normalised stream (each CRLF one byte).
        self._removed = 0
        # Invalid UTF-8 met by a feed(): (bytes_fed after it, its marks); see invalid_utf8.
        self._bad_utf8: tuple[int, list[tuple[int, int, int]]] | None = None
        self._started = False
        # A CR ended the last read: an LF starting the next one completes a CRLF.
        self._skip_lf = False
        # The unfinished block, as raw byte pieces (LF-normalised), joined and
        # decoded once, when its blank line comes.
        self._tail: list[bytes] = []
        self._tail_size = 0
        # True when the next byte starts a line (the tail is empty or ends with LF).
        self._line_start = True
        # Set only when the tail's byte count passes the limit: an incremental
        # decoder and [pieces counted, characters], to count exactly, once each.
        self._counter: tuple[codecs.IncrementalDecoder, list[int]] | None = None
        # Characters of the lines of the block the line-by-line path is in.
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
        if self._tail:
            for line in reversed(self._tail_lines()):
                if line[:5] == "retry" and line[5:6] in ("", ":"):
                    value = line[7:] if line[6:7] == " " else line[6:]
                    retry = _retry_value(value)
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
            tail = tail.removeprefix(_BOM).lstrip(b"\n")
        return bool(tail)

    def feed(self, data: bytes | bytearray | memoryview) -> list[Item]:
        """Parse the next bytes of the stream; return the items they complete."""
        if self._state is not _OPEN:
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
            if data[0] == _LF:
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
        last = 0 if n < 64 and _LF not in data else data.rfind(b"\n\n") + 1
        items: list[Item] = []
        if not last and not (self._line_start and data[0] == _LF):
            tail.append(data)
            self._tail_size += n
            self._line_start = data[-1] == _LF
            if tail[0][0] == _COLON and _LF in data:
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
                raws = _replaced(region, blocks)
                if raws is not None:  # the decoder replaced invalid bytes (rare): mark them
                    start = self._bytes_fed - self._removed - n + last + 1 - len(region)
                    self._blocks_marked(blocks, raws, start, items)
        rest = data[last + 1 :]
        self._tail_size = len(rest)
        if rest:
            tail.append(rest)
            self._line_start = rest[-1] == _LF
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
                items.append(_new_event(ServerSentEvent, ("message", block[6:], id_buffer)))
                continue
            if block[:7] == "event: ":
                head, sep, value = block.partition("\ndata: ")
                if sep and len(head) > 7 and "\n" not in head and "\n" not in value:
                    items.append(_new_event(ServerSentEvent, (head[7:], value, id_buffer)))
                    continue
            self._lines(block.split("\n"), items)
            self._dispatch(items)
            id_buffer = self._id_buffer
        if odd:
            self._dispatch(items)
        if rest:
            if rest[0] == _COLON and _LF in rest:
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
        if self._state is _FAILED:
            self._raise_not_open()
        items: list[Item] = []
        if self._tail:
            self._retry = self.retry
            if self._comments:
                for line in self._tail_lines():
                    if line[:1] == ":":
                        items.append(_comment(line))  # type: ignore[arg-type]
            self._clear_tail()
        self._state = _CLOSED
        return items

    def _split_after_long_tail(
        self, data: bytes, last: int, items: list[Item]
    ) -> tuple[list[str], list[bytes] | None, int]:
        """The blocks of ``tail + data[: last + 1]`` without searching the tail again.

        The tail holds no blank line, so its block ends at the first blank
        line of ``data`` (its first byte when the tail ends with LF). A long
        block that is one ``data:`` line (a big payload) becomes its event
        here, decoded straight from the joined bytes: at 8 MiB every pass
        over the text costs a trip through memory, and this saves two.
        Also returns the blocks' bytes when invalid UTF-8 needs marking (else
        None) and the stream offset of the first returned block.
        """
        tail = self._tail
        start = self._bytes_fed - self._removed - len(data) - self._tail_size
        if self._line_start and data[0] == _LF:
            first = 0
            raw = b"".join(tail)
            end = len(raw) - 1
        else:
            first = data.find(b"\n\n") + 1
            tail.append(data[: first - 1])
            raw = b"".join(tail)
            end = len(raw)
        self._clear_tail()
        rest = data[first + 1 : last + 1]
        text = rest.decode("utf-8", "replace")
        blocks = text.split("\n\n")
        raws: list[bytes] | None = None
        if not text.isascii() and "\ufffd" in text:
            raws = _replaced(rest, blocks)
        if not self._pending_size and raw.startswith(b"data: ") and raw.find(b"\n", 0, end) < 0:
            self._started = True
            value = str(memoryview(raw)[6:end], "utf-8", "replace")
            if len(value) + 7 > self._max:
                self._fail(items)
            if not value.isascii() and "\ufffd" in value:
                for _, offset, count in _bad_lines(value, raw[6:end], start + 6):
                    self._mark(len(items), offset, count)
            items.append(_new_event(ServerSentEvent, ("message", value, self._id_buffer)))
            return blocks, raws, start + end + 2
        head = self._decode(raw[:end])
        blocks.insert(0, head)
        if raws is None and not head.isascii() and "\ufffd" in head:
            raws = rest.split(b"\n\n")
        if raws is not None:
            raws.insert(0, raw[:end])
        return blocks, raws, start

    def _decode(self, raw: bytes) -> str:
        """Decode complete lines; the stream's first text loses one BOM."""
        text = raw.decode("utf-8", "replace")
        if not self._started:
            self._started = True
            if text[:1] == "\ufeff":
                text = text[1:]
        return text

    def _clear_tail(self) -> None:
        self._tail.clear()
        self._tail_size = 0
        self._line_start = True
        self._counter = None

    def _take_comments(self, items: list[Item]) -> None:
        """Interpret the complete comment lines that begin the unfinished block.

        Keepalives are often bare ``: keepalive`` lines with no blank line
        after them; taking them as soon as each line ends makes them visible
        (and frees them) at once instead of when the next event ends. A line
        is taken only if the block was still within ``max_event_size`` before
        its terminator, exactly as if the bytes had come one at a time.
        """
        raw = b"".join(self._tail)
        start = self._bytes_fed - self._removed - len(raw)
        pos = 0
        if not self._started:
            if len(raw) < 3 and _BOM.startswith(raw):
                return  # a BOM may still be arriving
            # Whether the stream began with a BOM is known now; a blank line
            # right after it dispatches nothing (no data, no id).
            self._started = True
            if raw.startswith(_BOM):
                pos = 4 if raw[3:4] == b"\n" else 3
        while raw[pos : pos + 1] == b":":
            end = raw.find(b"\n", pos)
            if end < 0:
                break
            line = raw[pos:end].decode("utf-8", "replace")
            size = self._pending_size + len(line)
            if size > self._max:
                self._fail(items)  # the block grew too large before this line ended
            self._pending_size = size + 1
            if not line.isascii() and "\ufffd" in line:
                for _, offset, count in _bad_lines(line, raw[pos:end], start + pos):
                    self._mark(len(items), offset, count)
            if self._comments:
                items.append(_comment(line))  # type: ignore[arg-type]
            pos = end + 1
        rest = raw[pos:]
        self._tail[:] = [rest] if rest else []
        self._tail_size = len(rest)
        self._counter = None

    def _tail_lines(self) -> list[str]:
        """The complete lines of the unfinished block (not interpreted yet)."""
        raw = b"".join(self._tail)
        end = raw.rfind(b"\n")
        if end < 0:
            return []
        text = raw[:end].decode("utf-8", "replace")
        return (text.removeprefix("\ufeff") if not self._started else text).split("\n")

    def _count_tail(self, items: list[Item]) -> None:
        """The tail's byte count passed the limit: count its characters exactly.

        Bytes are an upper bound on characters, so this runs only past the
        limit, and each piece is decoded once (the decoder is kept until the
        block ends), so a long multi-byte line near the limit stays linear.
        """
        if not self._started and self._tail and self._tail[0][:1] == _BOM[:1]:
            # Comment lines after a BOM at the stream start are taken only now,
            # before failing (a tail that begins with ":" had them taken at once).
            self._take_comments(items)
        if self._counter is None:
            # [pieces counted, characters, phase]: at the stream start a BOM
            # (phase 0) and then one blank line (phase 1) are not the event's.
            phase = 2 if self._started else 0
            self._counter = (codecs.getincrementaldecoder("utf-8")("replace"), [0, 0, phase])
        decoder, state = self._counter
        tail = self._tail
        for piece in tail[state[0] :]:
            text = decoder.decode(piece)
            while state[2] < 2 and text:
                if text[0] == ("\ufeff", "\n")[state[2]]:
                    text = text[1:]
                state[2] += 1
            state[1] += len(text)
        state[0] = len(tail)
        if self._pending_size + state[1] > self._max:
            self._fail(items)

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

    def _mark(self, position: int, offset: int, count: int) -> None:
        bad = self._bad_utf8
        if bad is None or bad[0] != self._bytes_fed:  # a mark of an earlier feed() is stale
            bad = self._bad_utf8 = (self._bytes_fed, [])
        bad[1].append((position, offset, count))

    def _block_size(self, block: str) -> int:
        """The size of the event ``block`` completes, with the comment lines taken before it."""
        if not block:  # no more lines: a blank line ends the lines taken before
            return self._pending_size
        if block[:1] == "\n":  # a blank line first: it ends the earlier lines' block
            return len(block)
        return self._pending_size + len(block) + 1

    def _blocks_marked(
        self, blocks: list[str], raws: list[bytes], offset: int, items: list[Item]
    ) -> None:
        """The complete blocks of a read that held invalid UTF-8, line by line, marked.

        The rare path: each block goes through the spec's per-line steps, and
        each line with invalid bytes is marked where its items go. The last
        piece (after the last blank line) is left in ``blocks``.
        """
        for block, raw in zip(blocks[:-1], raws, strict=False):
            bad = _bad_lines(block, raw, offset) if not block.isascii() else []
            offset += len(raw) + 2
            if self._block_size(block) > self._max:
                self._fail_block(block, items, bad)
            for _, at, count in bad:
                self._mark(len(items), at, count)
            self._lines(block.split("\n"), items)
            self._dispatch(items)
        del blocks[:-1]

    def _fail_block(
        self, block: str, items: list[Item], bad: list[tuple[int, int, int]] | None = None
    ) -> NoReturn:
        """``block`` is too large: fail, after the comment lines that begin it and fit.

        Read one line at a time, those lines would have been taken (and
        reported) as each ended, before the block grew past the limit
        (see ``_take_comments``), so the result does not depend on the reads.
        """
        marks = {number: (at, count) for number, at, count in bad or ()}
        size = self._pending_size
        number = pos = 0
        if block[:1] == "\n":
            number = pos = 1
            size = 0
        while block[pos : pos + 1] == ":":
            end = block.find("\n", pos)
            if end < 0:
                end = len(block)
            size += end - pos
            if size > self._max:
                break
            size += 1
            if number in marks:
                self._mark(len(items), *marks[number])
            if self._comments:
                items.append(_comment(block[pos:end]))  # type: ignore[arg-type]
            number += 1
            pos = end + 1
        self._fail(items)

    def _raise_not_open(self) -> None:
        if self._state is _FAILED:
            assert self._error is not None
            raise EventTooLarge(self._error.limit, self._error.offset)
        raise UsageError("feed() called after close(): this SSEParser has reached end of stream")

    def _fail(self, items: list[Item]) -> NoReturn:
        self._state = _FAILED
        self._error = EventTooLarge(self._max, self._bytes_fed, events=list(items))
        raise self._error

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
                    items.append(_comment(line))  # type: ignore[arg-type]
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
            elif name == "retry":
                retry = _retry_value(value)
                if retry is not None:
                    self._retry = retry

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
