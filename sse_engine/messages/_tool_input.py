"""What of a tool call's input a Messages client can read, fragment by fragment.

The anthropic SDK reads a ``tool_use`` block's input as it streams
(``MessageStream``; ``accumulate_event`` in ``anthropic/lib/streaming/_messages.py``):
on every ``input_json_delta`` it appends ``partial_json``, encoded as UTF-8, to
the block's buffer and parses the whole buffer with
``jiter.from_json(buffer, partial_mode=True)``; a ``ValueError`` from either
step reaches the caller ("Unable to parse tool parameter JSON from model").
Nothing is parsed at ``content_block_stop``: a valid but unfinished prefix
(``{"city": "Par``) stays the block's input, partial.

So the Messages emitter writes a fragment only when everything written so far
is a prefix jiter reads, and stops a block only when its input is complete.
:class:`ToolInput` decides, in time linear in the input: JSON's grammar is
checked by :class:`~sse_engine.partial_json.PartialJSON`; what jiter's partial
mode refuses on top of it is checked here (jiter 0.x, measured):

- a buffer of whitespace only, and an unfinished top-level scalar (``-``,
  ``1.``, ``tru``, ``"ab``): held back (a top-level scalar until the end);
- a lone surrogate, escaped (``"\\ud800"``, which ``json.loads`` accepts) or
  as a character (which has no UTF-8 form); a number whose integer part has
  more than 4,300 digits (Python's ``int()`` limit; jiter refuses a float's
  too, finished or not); nesting deeper than 201 levels: such an input cannot
  be written at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final, TypeAlias, cast

from sse_engine.partial_json import JSONStreamError, PartialJSON

__all__ = ["ToolInput"]

#: jiter's nesting limit: 202 open brackets are a "recursion limit exceeded".
SDK_MAX_DEPTH: Final = 201
#: The most digits jiter reads in a number's integer part (more: "number out of range",
#: in a float too, finished or not).
SDK_MAX_INT_DIGITS: Final = 4300

# These always match (maybe empty), hence the cast from ``Match | None``.
_Match: TypeAlias = Callable[[str, int], "re.Match[str]"]
#: Inside a string: characters that need no attention (stops at '"', '\\', a surrogate).
_STRING_RUN: Final = cast(_Match, re.compile(r'[^"\\\ud800-\udfff]*').match)
#: Outside strings: anything but a quote or a digit.
_OTHER_RUN: Final = cast(_Match, re.compile(r'[^"0-9]*').match)
_DIGIT_RUN: Final = cast(_Match, re.compile(r"[0-9]*").match)
_WHITESPACE: Final = cast(_Match, re.compile(r"[ \t\n\r]*").match)


class _Unreadable(Exception):
    """The input holds what the SDK's reader refuses (a lone surrogate, a long number)."""


class _Scan:
    """What JSON's grammar leaves to the reader and jiter minds: strings' escapes
    and surrogates, and how long a number's integer part is.

    Fed only text that :class:`PartialJSON` accepted, so a backslash is always in
    a string and a digit outside one is part of a number.
    """

    __slots__ = ("before", "digits", "escape", "first", "high", "in_string")

    def __init__(self) -> None:
        self.first = ""  # the first character that is not whitespace ("" until one came)
        self.in_string = False
        self.escape = ""  # an escape cut by a fragment's end, from its backslash
        self.high = False  # the string's last character was a high surrogate escape
        self.digits = -1  # the length of the integer part being read (-1: not in one)
        self.before = ""  # the last two characters fed (what precedes a run of digits)

    def feed(self, s: str, offset: int) -> bool:
        """Read ``s`` (at ``offset`` in the input); whether jiter reads the input so far.

        :raises _Unreadable: a lone surrogate, a number too long.
        """
        n = len(s)
        i = 0
        if not self.first:
            i = _WHITESPACE(s, 0).end()
            if i == n:
                return False
            self.first = s[i]
        while i < n:
            if self.in_string:
                i = self._string(s, i, offset)
                continue
            j = _OTHER_RUN(s, i).end()
            if j > i:
                self.digits = -1
                i = j
                if i == n:
                    break
            if s[i] == '"':
                self.in_string = True
                i += 1
                continue
            j = _DIGIT_RUN(s, i).end()
            if i == 0 and self.before[-1:].isdigit():  # the run the last fragment ended in
                if self.digits >= 0:
                    self.digits += j - i
            else:
                ahead = s[i - 2 : i] if i >= 2 else (self.before + s[:i])[-2:]
                exponent = ahead[-1:] in (".", "e", "E", "+") or ahead in ("e-", "E-")
                self.digits = -1 if exponent else j - i
            if self.digits > SDK_MAX_INT_DIGITS:
                raise _Unreadable(
                    f"a number at offset {offset + j - self.digits} whose integer "
                    f"part has more than {SDK_MAX_INT_DIGITS:,} digits, which the anthropic "
                    "SDK's JSON reader refuses"
                )
            i = j
        self.before = s[-2:] if n >= 2 else (self.before + s)[-2:]
        return self.first in "{["

    def _string(self, s: str, i: int, offset: int) -> int:
        """Read on in a string from ``s[i]``; return where reading goes on."""
        n = len(s)
        if self.escape:  # finish the escape the last fragment cut
            carried = self.escape
            joined = carried + s[i : i + 6]
            need = 6 if joined[1:2] == "u" else 2
            if len(joined) < need:
                self.escape = joined
                return n
            self.escape = ""
            self._escaped(joined[:need], offset + i)
            i += need - len(carried)
        while i < n:
            j = _STRING_RUN(s, i).end()
            if j > i:
                if self.high:
                    raise self._lone(offset + i)
                i = j
                if i == n:
                    break
            c = s[i]
            if c == '"':
                if self.high:
                    raise self._lone(offset + i)
                self.in_string = False
                return i + 1
            if c != "\\":
                raise _Unreadable(
                    f"a surrogate character (U+{ord(c):04X}) at offset {offset + i}, which "
                    "has no UTF-8 form"
                )
            need = 6 if s[i + 1 : i + 2] == "u" else 2
            if i + need > n:
                self.escape = s[i:]
                return n
            self._escaped(s[i : i + need], offset + i)
            i += need
        return n

    def _escaped(self, escape: str, at: int) -> None:
        """An escape: a surrogate escape must be half of a pair, high then low."""
        code = int(escape[2:], 16) if escape[1] == "u" else 0
        if 0xDC00 <= code <= 0xDFFF:
            if not self.high:
                raise self._lone(at)
            self.high = False
        elif self.high:
            raise self._lone(at)
        else:
            self.high = 0xD800 <= code <= 0xDBFF

    @staticmethod
    def _lone(at: int) -> _Unreadable:
        return _Unreadable(
            f"a lone surrogate escape before offset {at} (json.loads keeps it; the "
            "anthropic SDK's JSON reader refuses it)"
        )


class ToolInput:
    """One tool call's input on its way into a ``tool_use`` block.

    :meth:`feed` each fragment as it comes and write what it returns (often
    the fragment itself; ``""`` while the input so far is not something the
    SDK reads); :meth:`finish` with the call's final input gives the rest to
    write before the block stops, or None when the input cannot be written
    (then :attr:`error` says why).
    """

    __slots__ = ("_fed", "_held", "_json", "_scan", "_written", "error")

    def __init__(self) -> None:
        self._json = PartialJSON(max_depth=SDK_MAX_DEPTH)
        self._scan = _Scan()
        self._held: list[str] = []  # fed, not written yet
        self._fed = 0  # how much text was fed
        self._written = 0  # how much of it was written
        #: Why the input cannot be written (None while it can).
        self.error: str | None = None

    def feed(self, text: str) -> str:
        """The next fragment arrived: what to write now (``""``: nothing yet)."""
        if self.error is not None or not text:
            return ""
        offset = self._fed
        self._fed += len(text)
        try:
            self._json.feed(text)
            readable = self._scan.feed(text, offset)
        except (JSONStreamError, _Unreadable) as exc:
            self.error = str(exc)
            return ""
        if not readable:
            self._held.append(text)
            return ""
        if self._held:
            self._held.append(text)
            text = "".join(self._held)
            self._held.clear()
        self._written += len(text)
        return text

    def finish(self, arguments: str) -> str | None:
        """The call ended with input ``arguments``: the rest to write, or None.

        The rest completes what was written into ``arguments``, which must be
        a complete JSON value the SDK reads. Empty or blank ``arguments`` mean
        no input (the block's ``{}``, as a call without parameters has it).
        """
        fed = self._json.text
        written = fed[: self._written]
        if not arguments.strip() and not written:
            return ""  # no input: nothing to write (the SDK refuses a blank buffer)
        if arguments == fed and self.error is None:
            problem = self._close()
        elif not arguments.startswith(written):
            problem = (
                f"its final input differs from the {len(written)} characters of it already sent"
            )
        else:  # a fragment was not readable, or the final input says more: read it whole
            whole = ToolInput()
            whole.feed(arguments)
            problem = whole.error or whole._close()
        if problem is not None:
            self.error = problem
            return None
        return arguments[len(written) :]

    def _close(self) -> str | None:
        """Why the input fed so far is not one complete value (None when it is)."""
        try:
            self._json.close()
        except JSONStreamError as exc:
            return str(exc)
        return self.error
