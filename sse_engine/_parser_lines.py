"""The spec's per-line steps, and the blocks that must take them one line at a time.

The bottom layer of :class:`~sse_engine._parser.SSEParser` (which adds the
unfinished block in ``_parser_tail.py`` and the block-at-a-time hot path in
``_parser.py``). This room holds the state the WHATWG algorithm names (the
data buffer, the event type, the ID buffer, the last event ID, the
reconnection time), its per-line steps and its blank-line step, and the two
rare shapes of a complete block that leave the fast path for them: a block
whose bytes held invalid UTF-8 (read line by line and marked where, see
``invalid_utf8``) and a block past ``max_event_size`` (failed after the
comment lines that begin it and fit). It also holds the sticky failed state.

Nothing here runs per event on the common path: ``data: …`` and ``event: …`` +
``data: …`` blocks become events in ``SSEParser.feed`` without a call.
"""

from __future__ import annotations

import sys
from typing import Generic, NoReturn, TypeVar

from sse_engine._errors import EventTooLarge, UsageError
from sse_engine._sse import Comment, ServerSentEvent

__all__ = [
    "AFTER_CR",
    "BOM",
    "CLOSED",
    "COLON",
    "FAILED",
    "LF",
    "OPEN",
    "Item",
    "LineParser",
    "bad_lines",
    "comment",
    "new_event",
    "replaced",
    "retry_value",
]

Item = TypeVar("Item", ServerSentEvent, ServerSentEvent | Comment)

# AFTER_CR: open, and the last read ended with CR (an LF first in the next one
# is the rest of that CRLF).
OPEN, AFTER_CR, CLOSED, FAILED = "open", "open after CR", "closed", "failed"
BOM = b"\xef\xbb\xbf"
LF, COLON = 10, 58  # ``10 in data`` is a memchr; ``b"\n" in data`` is ~10x slower
_FFFD = b"\xef\xbf\xbd"  # U+FFFD itself, encoded: a replacement character the server sent
#: Builds a ServerSentEvent from a tuple without NamedTuple's Python-level __new__.
new_event = tuple.__new__


def retry_value(value: str) -> int | None:
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


def comment(line: str) -> Comment:
    """The Comment a ``:`` line carries: its text, less one leading space."""
    return Comment(line[2:] if line[1:2] == " " else line[1:])


def replaced(region: bytes, blocks: list[str]) -> list[bytes] | None:
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


def bad_lines(text: str, raw: bytes, offset: int) -> list[tuple[int, int, int]]:
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


class LineParser(Generic[Item]):
    """The spec's state and per-line steps; the base of :class:`SSEParser`, not used alone."""

    __slots__ = (
        "_bad_utf8",
        "_bytes_fed",
        "_comments",
        "_data",
        "_event_type",
        "_failed_at",
        "_id_buffer",
        "_last_event_id",
        "_max",
        "_pending_size",
        "_retry",
        "_state",
    )

    def __init__(self, max_size: int, comments: bool) -> None:
        self._max = max_size
        self._comments = comments
        self._state = OPEN
        # (limit, offset) of the sticky EventTooLarge: not the error, whose traceback holds
        # this parser's frames (a cycle keeping a failed parser for the garbage collector).
        self._failed_at = (0, 0)
        self._bytes_fed = 0
        # Invalid UTF-8 met by a feed(): (bytes_fed after it, its marks); see invalid_utf8.
        self._bad_utf8: tuple[int, list[tuple[int, int, int]]] | None = None
        # Characters of the lines of the block the line-by-line path is in.
        self._pending_size = 0
        self._data: list[str] = []
        self._event_type = ""
        self._id_buffer = ""
        self._last_event_id = ""
        self._retry: int | None = None

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
            bad = bad_lines(block, raw, offset) if not block.isascii() else []
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
        (see ``TailParser._take_comments``), so the result does not depend on the reads.
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
                items.append(comment(block[pos:end]))  # type: ignore[arg-type]
            number += 1
            pos = end + 1
        self._fail(items)

    def _raise_not_open(self) -> None:
        if self._state is FAILED:
            raise EventTooLarge(*self._failed_at)
        raise UsageError("feed() called after close(): this SSEParser has reached end of stream")

    def _fail(self, items: list[Item]) -> NoReturn:
        self._state = FAILED
        self._failed_at = (self._max, self._bytes_fed)
        raise EventTooLarge(self._max, self._bytes_fed, events=list(items))

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
                    items.append(comment(line))  # type: ignore[arg-type]
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
                retry = retry_value(value)
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
