"""Tally: where a lean reader puts text it passes on and does not keep.

Every room that accumulates streamed text (a lane's snapshot, a turn, a
relay's block) keeps it as a list of pieces joined when read. In lean mode
(``Relay(..., lean=True)``, ``PartStream(lane, lean=True)``, a lane's
``make_lean()``) that list is a :class:`Tally`: the code that appends pieces
and joins them is the same, and nothing grows with the stream.
"""

from __future__ import annotations

import zlib
from typing import Any

__all__ = ["CheckedTally", "Compacted", "Tally", "said", "text_crc"]


class Tally(list[str]):
    """Text passed on and not kept (a lean turn, a lean relay's block): its length only.

    Always empty, so whatever joins it reads ``""``; ``append`` counts the
    characters instead of keeping them (``length``).
    """

    __slots__ = ("length",)

    def __init__(self) -> None:
        super().__init__()
        self.length = 0

    def append(self, text: str) -> None:
        self.length += len(text)


def text_crc(text: str, start: int = 0) -> int:
    """The CRC-32 of ``text``'s UTF-8 (a lone surrogate as Python writes it), from ``start``."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass"), start)


class CheckedTally(Tally):
    """A :class:`Tally` that also keeps the CRC-32 of the text (:attr:`crc`): enough to
    tell, without the text, whether a final text a server sends again repeats it.

    The newest pieces wait in :attr:`pending`, at most :data:`RUN` of them, and go
    into the CRC joined, a run at a time: a CRC per delta (an encode and a call
    each) was most of what a lean Responses lane paid per delta over a default one.
    The CRC of the pieces joined is the CRC of the pieces one after another.
    """

    __slots__ = ("_crc", "pending")

    #: How many pieces wait at most (a delta is a few characters: about 1 KB held).
    RUN = 16

    def __init__(self) -> None:
        super().__init__()
        self._crc = 0
        #: The pieces not yet in the CRC, oldest first.
        self.pending: list[str] = []

    def append(self, text: str) -> None:
        self.length += len(text)
        pending = self.pending
        pending.append(text)
        if len(pending) >= 16:  # RUN, read without an attribute lookup per delta
            self.fold()

    def fold(self) -> None:
        """Take the pending pieces into the CRC (what :meth:`append` does every
        :data:`RUN` pieces; a caller that appends to :attr:`pending` calls it then)."""
        pending = self.pending
        self._crc = text_crc("".join(pending), self._crc)
        pending.clear()

    @property
    def crc(self) -> int:
        """The CRC-32 of every piece's UTF-8 so far (see :func:`text_crc`)."""
        if self.pending:
            self.fold()
        return self._crc


def said(pieces: list[str] | None) -> bool:
    """Whether any text came into ``pieces`` (a list of pieces, or a :class:`Tally`)."""
    if pieces is None:
        return False
    if type(pieces) is Tally:
        return pieces.length > 0
    return any(pieces)


class Compacted(list[str]):
    """Text kept as few pieces: every :data:`RUN` pieces appended are joined into one.

    For text that must be kept whole (a lean relay's Responses target writes
    each block's text again at its end) without a string object and a list
    slot per delta: about the text's own size. The pieces before ``kept``
    are never joined again, so an index taken as ``len(pieces)`` right after
    :meth:`settle` still marks where the text after it starts.
    """

    __slots__ = ("kept",)

    #: How many pieces are joined at a time (a delta is a few characters).
    RUN = 64

    def __init__(self) -> None:
        super().__init__()
        self.kept = 0

    def append(self, text: str, _append: Any = list.append) -> None:
        _append(self, text)
        if len(self) - self.kept >= 64:  # RUN, read without an attribute lookup per delta
            self.join_run()

    def join_run(self) -> None:
        """Join the pieces after ``kept`` into one (what :meth:`append` does every
        :data:`RUN` pieces; a caller that appends with ``list.append`` calls it then)."""
        kept = self.kept
        self[kept:] = ["".join(self[kept:])]
        self.kept = kept + 1

    def settle(self) -> None:
        """Join every piece into one, never to be joined again (before taking a mark)."""
        if len(self) > 1:
            self[:] = ["".join(self)]
        self.kept = len(self)
