"""One JSON string read in pieces: decoded once, whatever the fragment boundaries cut.

A fragment boundary may fall inside an escape (``\\u00`` | ``e9``) or between
the two escapes of a surrogate pair (``\\ud83d`` | ``\\ude00``). The reader
keeps the cut escape (at most 6 characters) and a high surrogate waiting for
its low half, and decodes everything else as it arrives: a run of plain
characters and complete escapes is found by one regex match and decoded by
the C ``scanstring`` that ``json.loads`` itself uses, so the result is the
same as ``json.loads`` (a lone surrogate escape stays a lone surrogate).
"""

from __future__ import annotations

import re
from _json import scanstring
from collections.abc import Callable
from typing import Final, TypeAlias, cast

from sse_engine.partial_json._events import JSONStreamError

__all__ = ["RUN", "StringReader", "scanstring"]

# These always match (maybe empty), hence the cast from ``Match | None``.
_Matcher: TypeAlias = Callable[[str, int], "re.Match[str]"]
#: A run of string characters and complete escapes (stops at '"', a control
#: character, or a backslash that does not start a complete, valid escape).
RUN: Final = cast(_Matcher, re.compile(
    r'(?:[^"\\\x00-\x1f]+|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*').match)
_HEX: Final = cast(_Matcher, re.compile(r"[0-9a-fA-F]*").match)
_ESCAPES: Final = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                   "t": "\t"}


def _pair(high: int, low: int) -> str:
    return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))


def _escapes_at(run: str, k: int) -> bool:
    """Whether the backslash at ``run[k]`` starts an escape (is not itself escaped)."""
    start = k
    while k > 0 and run[k - 1] == "\\":
        k -= 1
    return (start - k) % 2 == 0


class StringReader:
    """The decoded pieces of the string being read, and what a boundary cut."""

    __slots__ = ("chunks", "esc", "esc_at", "hi", "sent")

    def __init__(self) -> None:
        self.chunks: list[str] = []  # decoded pieces
        self.sent = 0  # pieces already handed out by new_text()
        self.esc = ""  # an escape cut by a fragment's end, from its backslash
        self.esc_at = 0  # ... and its offset
        self.hi = 0  # a high surrogate escape waiting for its low half

    def read(self, s: str, i: int, base: int) -> int:
        """Read on from ``s[i]``: the index after the closing quote, or -1 if ``s`` ends first.

        ``base`` is the offset of ``s`` in the whole text, for errors.
        """
        n = len(s)
        if self.esc:  # finish the escape cut by the previous fragment's end
            carried = self.esc
            joined = carried + s[i : i + 6]
            k = self._escape(joined, 0, self.esc_at)
            if k < 0:
                self.esc = joined
                return -1
            self.esc = ""
            i += k - len(carried)
        while True:
            j = RUN(s, i).end()
            if j > i:
                self._take(s[i:j], j == n or s[j] == "\\")
            if j == n:
                return -1
            c = s[j]
            if c == '"':
                if self.hi:
                    self.chunks.append(chr(self.hi))
                    self.hi = 0
                return j + 1
            if c != "\\":
                raise JSONStreamError(base + j, "expected a string character (control "
                                      "characters must be escaped)", repr(c))
            i = self._escape(s, j, base)  # an escape cut by the end, or invalid
            if i < 0:
                self.esc = s[j:]
                self.esc_at = base + j
                return -1

    def new_text(self) -> str:
        """The text decoded since the last call ("" if none)."""
        chunks, sent = self.chunks, self.sent
        if len(chunks) == sent:
            return ""
        new = chunks[sent] if len(chunks) == sent + 1 else "".join(chunks[sent:])
        del chunks[sent + 1 :]
        chunks[sent] = new
        self.sent = sent + 1
        return new

    def so_far(self) -> str:
        """All the text decoded so far (a cut escape and a lone high half left out)."""
        chunks = self.chunks
        if len(chunks) < 2:
            return chunks[0] if chunks else ""
        text = "".join(chunks)
        if self.sent in (0, len(chunks)):  # keep one piece, and what was handed out
            self.chunks = [text]
            self.sent = min(self.sent, 1)
        return text

    def _take(self, run: str, hold: bool) -> None:
        """Add a run of characters and complete escapes.

        A high surrogate escape that ends the run is held back if an escape may
        follow (``hold``): its low half may come with the next fragment.
        """
        chunks = self.chunks
        if self.hi:
            high, self.hi = self.hi, 0
            if run[:2] == "\\u" and 0xDC00 <= (low := int(run[2:6], 16)) <= 0xDFFF:
                chunks.append(_pair(high, low))
                run = run[6:]
            else:
                chunks.append(chr(high))
        if "\\" in run:
            if (hold and len(run) >= 6 and run[-6:-4] == "\\u" and run[-4] in "dD"
                    and run[-3] in "89abAB" and _escapes_at(run, len(run) - 6)):
                self.hi = int(run[-4:], 16)
                run = run[:-6]
            run = scanstring(run + '"', 0)[0]
        if run:
            chunks.append(run)

    def _escape(self, t: str, j: int, base: int) -> int:
        """Decode the escape at ``t[j] == '\\'``: its end, or -1 if ``t`` ends first."""
        if j + 1 >= len(t):
            return -1
        e = t[j + 1]
        chunks = self.chunks
        if e != "u":
            char = _ESCAPES.get(e)
            if char is None:
                raise JSONStreamError(base + j + 1, "expected an escape (one of "
                                      "\" \\ / b f n r t u) after '\\'", repr(e))
            if self.hi:
                chunks.append(chr(self.hi))
                self.hi = 0
            chunks.append(char)
            return j + 2
        digits = t[j + 2 : j + 6]
        good = _HEX(digits, 0).end()
        if good < len(digits):
            raise JSONStreamError(base + j + 2 + good, "expected 4 hex digits after '\\u'",
                                  repr(digits[good]))
        if good < 4:
            return -1
        code = int(digits, 16)
        if self.hi:  # as json.loads: a pair makes one character, a lone half stays
            high, self.hi = self.hi, 0
            if 0xDC00 <= code <= 0xDFFF:
                chunks.append(_pair(high, code))
                return j + 6
            chunks.append(chr(high))
        if 0xD800 <= code <= 0xDBFF:
            self.hi = code
        else:
            chunks.append(chr(code))
        return j + 6
