"""The unfinished block: the raw bytes after the last blank line, and what is read from them early.

The middle layer of :class:`~sse_engine._parser.SSEParser`, between the spec's
per-line steps (``_parser_lines.py``) and the block-at-a-time hot path
(``_parser.py``). Bytes after the last blank line of a read wait here, raw
and LF-normalised, as a list of pieces joined once, when their block ends.
Before that, some of them must be read anyway, and this room does it:

- comment lines that begin the block (bare keepalives) are taken as each line
  ends (``_take_comments``);
- past ``max_event_size`` in bytes, the block's characters are counted
  exactly, each piece decoded once (``_count_tail``);
- ``retry``, ``in_event`` and ``close()`` read its complete lines
  (``_tail_lines``);
- a block that grew long is not searched for blank lines again when it ends,
  and a long single ``data:`` line becomes its event straight from the joined
  bytes (``_split_after_long_tail``).

It also knows where the stream starts: one BOM is dropped from the first text.
"""

from __future__ import annotations

import codecs

from sse_engine._parser_lines import (
    BOM,
    LF,
    Item,
    LineParser,
    bad_lines,
    comment,
    new_event,
    replaced,
)
from sse_engine._sse import ServerSentEvent

__all__ = ["TailParser"]


class TailParser(LineParser[Item]):
    """The unfinished block's state and its reads; a base of :class:`SSEParser`, not used alone."""

    __slots__ = (
        "_counter",
        "_removed",
        "_started",
        "_tail",
        "_tail_size",
    )

    def __init__(self, max_size: int, comments: bool) -> None:
        super().__init__(max_size, comments)
        # Bytes the CRLF -> LF normalisation removed: offsets of invalid UTF-8
        # are counted in the normalised stream (each CRLF one byte).
        self._removed = 0
        self._started = False
        # The unfinished block, as raw byte pieces (LF-normalised), joined and
        # decoded once, when its blank line comes.
        self._tail: list[bytes] = []
        self._tail_size = 0
        # Set only when the tail's byte count passes the limit: an incremental
        # decoder and [pieces counted, characters, phase], to count exactly, once
        # each, for the tail list it was made for (feed() starts a new list per block).
        self._counter: tuple[codecs.IncrementalDecoder, list[int], list[bytes]] | None = None

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
        if data[0] == LF and tail[-1][-1] == LF:
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
            raws = replaced(rest, blocks)
        if not self._pending_size and raw.startswith(b"data: ") and raw.find(b"\n", 0, end) < 0:
            self._started = True
            value = str(memoryview(raw)[6:end], "utf-8", "replace")
            if len(value) + 7 > self._max:
                self._fail(items)
            if not value.isascii() and "\ufffd" in value:
                for _, offset, count in bad_lines(value, raw[6:end], start + 6):
                    self._mark(len(items), offset, count)
            items.append(new_event(ServerSentEvent, ("message", value, self._id_buffer)))
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
            if len(raw) < 3 and BOM.startswith(raw):
                return  # a BOM may still be arriving
            # Whether the stream began with a BOM is known now; a blank line
            # right after it dispatches nothing (no data, no id).
            self._started = True
            if raw.startswith(BOM):
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
                for _, offset, count in bad_lines(line, raw[pos:end], start + pos):
                    self._mark(len(items), offset, count)
            if self._comments:
                items.append(comment(line))  # type: ignore[arg-type]
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
        if not self._started and self._tail and self._tail[0][:1] == BOM[:1]:
            # Comment lines after a BOM at the stream start are taken only now,
            # before failing (a tail that begins with ":" had them taken at once).
            self._take_comments(items)
        if self._counter is None or self._counter[2] is not self._tail:  # a new block
            # [pieces counted, characters, phase]: at the stream start a BOM
            # (phase 0) and then one blank line (phase 1) are not the event's.
            phase = 2 if self._started else 0
            self._counter = (
                codecs.getincrementaldecoder("utf-8")("replace"), [0, 0, phase], self._tail
            )
        decoder, state, _ = self._counter
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
