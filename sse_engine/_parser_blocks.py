"""Complete blocks: the text up to a read's last blank line, made into events.

The layer of :class:`~sse_engine._parser.SSEParser` between its hot path
(``_parser.py``, which finds the blocks of a read and matches a few of them
itself) and the unfinished block (``_parser_tail.py``). It takes a read's
complete blocks, decoded, without the last blank line, and:

- many blocks of a clean read: one ``re.split`` whose separator is a blank
  line plus the field names of the common shape (an optional ``id`` line, an
  optional ``event`` line, then ``data:``) leaves each such block's ``id``,
  type and data value as strings, with no per-line step and no second copy;
  every event is then built in one pass of C calls (``map``), and any value
  that holds a line break (more data lines, or blocks of other shapes after
  it) goes the per-line way; when comments are not reported, keepalive
  blocks go with the separator and those that end the text are cut;
- a long CRLF read that begins a block: the same split, with CRLF in it;
- a few blocks (the usual read of a network stream): one match per block;
- everything else (invalid UTF-8, a block near ``max_event_size``, a long
  unfinished block that ended): the spec's per-line steps, block by block.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from itertools import accumulate, repeat
from typing import Any

from sse_engine._parser_lines import Item, new_event, replaced
from sse_engine._parser_tail import TailParser
from sse_engine._sse import ServerSentEvent

__all__ = ["FEW", "LONG_CRLF", "LONG_TAIL", "ONE_BLOCK", "SPLIT", "BlockParser"]

#: Fewer characters of complete blocks than this are read in feed() itself.
FEW = 2048
#: From this many fields of ``SPLIT`` on, the events are built in one pass of C calls.
_MANY = 3 * 8 + 1
_LF = "\n"
_CR = "\r"
#: Splits a text of blocks at each blank line followed by an optional ``id``
#: line (without NUL), an optional ``event`` line and ``data:``; gives
#: ``[before, id, event, data, id, event, data, ...]``, None for a line that
#: is not there. A data value is the rest up to the next such block: when it
#: holds LF, it is not one line.
SPLIT = re.compile(r"\n\n(?:id: ([^\n\x00]*+)\n)?(?:event: ([^\n]*+)\n)?data: ").split
#: One whole block of the shape ``SPLIT`` reads (an optional ``id`` line without
#: NUL, an optional ``event`` line, one ``data:`` line) and its blank line, LF-only:
#: its ``(id, event, data)`` values, None for a line that is not there.
ONE_BLOCK = re.compile(
    r"(?:id: ([^\n\x00]*+)\n)?(?:event: ([^\n]*+)\n)?data: ([^\n]*+)\n\n"
).fullmatch
#: ``SPLIT`` for a parser that does not report comments: a separator also takes the
#: blocks of comment lines only (keepalives) between its blank line and the next block.
#: To such a parser they are nothing: the spec's steps give the same events and state
#: without them (a comment-only block's blank line commits the ID buffer that the
#: blank line before it committed, and sees no data).
SPLIT_UNCOMMENTED = re.compile(
    r"\n\n(?::[^\n]*+\n(?::[^\n]*+\n)*+\n)*+"
    r"(?:id: ([^\n\x00]*+)\n)?(?:event: ([^\n]*+)\n)?data: "
).split
#: Comment-only blocks (keepalives), each but the last followed by one blank line: to a
#: parser that does not report comments, text that is nothing but these gives nothing.
_KEEPALIVES = re.compile(r":[^\n]*+(?:\n\n?+:[^\n]*+)*+").fullmatch
#: ``SPLIT`` for text whose lines end with CRLF.
SPLIT_CRLF = re.compile(
    r"\r\n\r\n(?:id: ([^\r\n\x00]*+)\r\n)?(?:event: ([^\r\n]*+)\r\n)?data: "
).split
#: An event's type: "message" when the block has no event line or an empty one.
_TYPE = {None: "message", "": "message"}.get


def _lf(text: str) -> str:
    """``text`` with every line ending in LF (CRLF and CR become LF)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _lf_bytes(data: bytes) -> bytes:
    """``data`` with every line ending in LF (CRLF and CR become LF)."""
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def _later(earlier: str, ident: str | None) -> str:
    """The ID buffer after a block: its own ``id`` if it has one, else the one before."""
    return earlier if ident is None else ident


def _header(ident: str | None, kind: str | None) -> str:
    """The lines ``SPLIT`` took from the front of a block, ``data: `` included."""
    return ("" if ident is None else f"id: {ident}\n") + (
        "" if kind is None else f"event: {kind}\n") + "data: "


class BlockParser(TailParser[Item]):
    """Complete blocks to events; a base of :class:`SSEParser`, not used alone."""

    __slots__ = ("_split",)

    def __init__(self, max_size: int, comments: bool) -> None:
        super().__init__(max_size, comments)
        # Keepalive blocks go with the separator unless they are reported.
        self._split: Callable[[str], list[Any]] = SPLIT if comments else SPLIT_UNCOMMENTED

    def _complete(self, region: bytes, text: str, rest: int, items: list[Item]) -> None:
        """The blocks of ``text`` (``region`` decoded): the way their read calls for.

        ``text`` is a blank line, then the read's complete blocks up to where its
        last blank line begins; ``rest`` bytes of the read follow that blank line.
        """
        if (text.isascii() or "\ufffd" not in text) and (  # O(1) for ASCII text
            len(text) + self._pending_size < self._max
        ):
            # The first block may have begun with comment lines taken earlier: they
            # are read, and with them the block is still within the limit.
            self._pending_size = 0
            self._fast_blocks(text, items)
            return
        region = region[2:] + b"\n\n"
        text = text[2:] + "\n\n"
        blocks = text.split("\n\n")
        if not text.isascii() and "\ufffd" in text:
            raws = replaced(region, blocks)
            if raws is not None:  # the decoder replaced invalid bytes (rare): mark them
                start = self._bytes_fed - self._removed - rest - len(region)
                self._blocks_marked(blocks, raws, start, items)
        self._blocks(blocks, len(text) >= self._max, items)

    def _whole_crlf_blocks(self, data: bytes, last: int, items: list[Item]) -> bytes | None:
        """A long read whose lines end with CRLF and that begins a block (nothing of an
        unfinished block before it): its blocks up to the blank line at ``last``, read as
        they are, with no pass to turn CRLF into LF; returns the bytes after that
        blank line, LF-only, for ``feed()`` to go on with.

        Only for clean text within the limit (no invalid UTF-8 to mark where, no
        block to fail): else None, and nothing is read.
        """
        text = b"".join((b"\r\n\r\n", memoryview(data)[:last])).decode("utf-8", "replace")
        if not self._started and text[4:5] == "\ufeff":  # the stream's first text: one BOM
            text = "\r\n\r\n" + text[5:]
        if not ((text.isascii() or "\ufffd" not in text) and len(text) < self._max):
            return None
        self._started = True
        if not self._data_blocks(text, items, "\r\n\r\ndata: "):
            self._parts(SPLIT_CRLF(text), items, crlf=True)
        rest = data[last + 4 :]
        lf = _lf_bytes(rest)
        self._removed += data.count(b"\r\n", 0, last + 4) + len(rest) - len(lf)
        return lf

    def _crlf_blocks(self, data: bytes, first: int, last: int, items: list[Item]) -> bytes:
        """A long read whose lines end with CRLF: its complete blocks read as they are.

        The blocks between the read's first ``\r\n\r\n`` (at ``first``) and
        its last (at ``last``) are split with ``SPLIT_CRLF``, with no pass to
        turn CRLF into LF; the bytes before them (which end the unfinished
        block) and after them are turned to LF and read the usual way: the
        first here, the others returned, for ``feed()`` to go on with. A block
        in the middle that is not of the fast shapes, or holds a lone CR or LF,
        is turned to LF alone.
        """
        head = _lf_bytes(data[: first + 4])
        middle = data[first + 4 : last]
        rest = _lf_bytes(data[last + 4 :])
        # Stream offsets count each CRLF as one byte: while the head and the
        # middle are read, they are taken as the last bytes fed (see _complete).
        after_head = len(middle) - middle.count(b"\r\n") + 2 + len(rest)
        removed = self._removed + len(data) - len(head) - after_head
        self._removed = removed + after_head
        self._read_blocks(head, len(head) - 2, items)
        self._tail_size = 0
        self._removed = removed
        text = data[first:last].decode("utf-8", "replace")  # its own blank line first
        if (text.isascii() or "\ufffd" not in text) and len(text) < self._max:
            if not self._data_blocks(text, items, "\r\n\r\ndata: "):
                self._parts(SPLIT_CRLF(text), items, crlf=True)
        else:
            region = b"\n\n" + _lf_bytes(middle)
            self._complete(region, region.decode("utf-8", "replace"), len(rest), items)
        return rest

    def _fast_blocks(self, text: str, items: list[Item]) -> None:
        """The events of ``text`` (a blank line, then LF-only blocks with no invalid
        UTF-8, none past the limit) by the fast shapes where they fit.

        Comment lines, when not reported, are no reason to leave them: keepalive
        blocks before a block go with the split's separator (``SPLIT_UNCOMMENTED``,
        at no cost over ``SPLIT``), and those that end the text are cut (they
        have nothing to give). Other comment lines take the per-block way.
        """
        text = self._cut_keepalives(text)
        if not self._data_blocks(text, items):
            self._parts(self._split(text), items)

    def _cut_keepalives(self, text: str) -> str:
        """``text`` without the comment-only blocks that end it when comments are not
        reported (``text`` itself when there are none to cut)."""
        if self._comments or not text.startswith(":", text.rfind("\n\n") + 2):
            return text
        end = len(text)
        while end:  # comment-only blocks at the end
            start = text.rfind("\n\n", 0, end)
            if text[start + 2 : start + 3] != ":" or (
                text.count("\n", start + 2, end) != text.count("\n:", start + 2, end)
            ):
                break
            end = start
        return text[:end]

    def _data_blocks(self, text: str, items: list[Item], head: str = "\n\ndata: ") -> bool:
        """The events of ``text`` if every block is one data line, the shape of
        Chat Completions (a plain split is faster than ``SPLIT``); else False.

        ``head`` is a blank line and ``data: ``, with the text's line ends.
        """
        if not text.startswith(head):
            return False
        values = text.split(head)
        if any(map(str.__contains__, values, repeat(_LF))) or (
            head[0] == "\r" and any(map(str.__contains__, values, repeat(_CR)))
        ):
            return False
        del values[0]
        items += map(new_event, repeat(ServerSentEvent), zip(
            repeat("message"), values, repeat(self._id_buffer)))
        return True

    def _parts(self, parts: list[Any], items: list[Item], crlf: bool = False) -> None:
        """The events of ``SPLIT(text)``'s fields (``SPLIT_CRLF``'s, when ``crlf``):
        a few one at a time, many at once."""
        first: str = parts[0]
        if len(first) > 2 + 2 * crlf:  # blocks of other shapes before the first split
            self._text_blocks(_lf(first[2 + 2 * crlf :]) if crlf else first[2:], items)
        if len(parts) < _MANY:
            self._split_blocks(parts, items, crlf)
            return
        values = parts[3::3]
        if any(map(str.__contains__, values, repeat(_LF))) or (
            crlf and any(map(str.__contains__, values, repeat(_CR)))
        ):
            self._split_blocks(parts, items, crlf)
            return
        id_buffer = self._id_buffer
        idents = parts[1::3]
        ids: Iterable[str]
        if None not in idents:
            id_buffer = idents[-1]
            ids = idents
        elif idents.count(None) == len(idents):
            ids = repeat(id_buffer)
        else:
            ids = idents = list(accumulate(idents, _later, initial=id_buffer))
            del idents[0]
            id_buffer = idents[-1]
        kinds = parts[2::3]
        items += map(new_event, repeat(ServerSentEvent), zip(
            map(_TYPE, kinds, kinds), values, ids, strict=False))
        self._id_buffer = self._last_event_id = id_buffer

    def _split_blocks(self, parts: list[Any], items: list[Item], crlf: bool = False) -> None:
        """``SPLIT``'s fields after the first, one block at a time.

        A data value that holds LF (or CR, when ``crlf``) is its block's first
        data line and more lines (the block goes the per-line way), or its
        only line and more blocks of other shapes after it (they do).
        """
        id_buffer = self._id_buffer
        fields = iter(parts)
        next(fields)
        for ident, kind, value in zip(fields, fields, fields, strict=False):
            if _LF in value or (crlf and _CR in value):
                value, sep, more = (_lf(value) if crlf else value).partition("\n\n")
                self._id_buffer = self._last_event_id = id_buffer
                if _LF in value:
                    more = _header(ident, kind) + value + sep + more
                else:
                    if ident is not None:
                        self._id_buffer = self._last_event_id = ident
                    items.append(new_event(ServerSentEvent, (
                        kind or "message", value, self._id_buffer)))
                if self._comments or _KEEPALIVES(more) is None:  # (keepalives end a read)
                    self._text_blocks(more, items)
                id_buffer = self._id_buffer
                continue
            if ident is not None:
                id_buffer = ident
            items.append(new_event(ServerSentEvent, (kind or "message", value, id_buffer)))
        self._id_buffer = self._last_event_id = id_buffer

    def _text_blocks(self, text: str, items: list[Item]) -> None:
        """Complete blocks, each followed by a blank line (the last one's is not in ``text``)."""
        blocks = text.split("\n\n")
        blocks.append("")
        self._blocks(blocks, False, items)

    def _blocks(self, blocks: list[str], sized: bool, items: list[Item]) -> None:
        """Blocks by the spec's per-line steps: each is followed by a blank line, except
        the last piece, which is empty or a lone LF (an odd run of blank lines: one more).

        ``sized``: a block may be larger than ``max_event_size`` (else none can be).
        """
        odd = blocks.pop()
        if self._pending_size and blocks:
            # The first block began with comment lines taken earlier.
            if self._block_size(blocks[0]) > self._max:
                self._fail_block(blocks[0], items)
            self._lines(blocks[0].split("\n"), items)
            self._dispatch(items)
            del blocks[0]
        keep_comments = self._comments
        for block in blocks:
            # A block's size is its length + 1 (its last terminator), but a
            # leading LF is a blank line of its own, not part of the event.
            if sized and len(block) + (block[:1] != "\n") > self._max:
                self._fail_block(block, items)
            if block[:1] == ":" and not keep_comments and (
                block.count("\n:") == block.count("\n")
            ):
                # Comment lines only (keepalives), not kept: no field, no event, and
                # nothing for the blank line to commit or reset (each block before it
                # ended with one).
                continue
            self._lines(block.split("\n"), items)
            self._dispatch(items)
        if odd:
            self._dispatch(items)

    def _read_blocks(self, data: bytes, last: int, items: list[Item]) -> None:
        """The complete blocks of an LF-only read whose last blank line is at ``last``
        (-1: the read's first byte, ending the unfinished block's last line), the
        unfinished block's bytes first; those after the blank line stay in ``data``.

        ``feed()`` reads the common case itself, faster; this is every case.
        """
        if self._tail_size >= LONG_TAIL:
            blocks, raws, start = self._split_after_long_tail(data, last + 1, items)
            if raws is not None:
                self._blocks_marked(blocks, raws, start, items)
            self._blocks(blocks, True, items)
            return
        tail = self._tail
        if last < 0:
            if tail:
                tail[-1] = tail[-1][:-1]
            rest = len(data) - 1
        else:
            tail.append(data[:last])
            rest = len(data) - last - 2
        region = b"".join(tail)
        self._clear_tail()
        self._complete(b"\n\n" + region, "\n\n" + self._decode(region), rest, items)


#: A read with CR in it whose complete blocks span this many bytes has them read
#: as they are (``_crlf_blocks``); a shorter one is turned to LF first.
LONG_CRLF = 4096
#: An unfinished block this long is not searched again for blank lines when it
#: ends (``str.split("\n\n")`` scans at about 1 ns a character).
LONG_TAIL = 1 << 16
