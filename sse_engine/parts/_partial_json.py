"""PartialJSON: one JSON document read as it streams in, in time linear in its length.

Why this room exists: a model streams a tool call's arguments as fragments of
one JSON text. The SDKs show the partial input by re-parsing everything
received so far after every fragment, which costs time quadratic in the size
of the input: a 1 MB ``write_file`` call in 40-byte fragments re-parses about
12 GB. :class:`PartialJSON` keeps its tokenizer state between fragments instead,
reads each character once, builds the value tree in place as items complete,
and reports what changed as events, so a UI can show a file's content as it
arrives.

How it reads: structure (brackets, commas, colons, whitespace) is handled one
character at a time; runs of plain string characters are taken by one regex
match; a number or string that lies entirely inside one fragment is taken by
one regex match too. Only a token cut by a fragment boundary goes through the
slow paths (the number automaton, the literal compare, the escape carry),
which keep just enough state to resume.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from typing import Any, Final, TypeAlias, cast

from sse_engine._errors import UsageError
from sse_engine.parts._json_events import (
    JSONDelta,
    JSONPath,
    JSONStreamError,
    JSONStringDelta,
    JSONValue,
)

__all__ = ["PartialJSON"]

# Where the reader is. The four "expect" states differ in what may come next.
_VALUE: Final = 0  # a value must start (top level, after ':' or after ',' in an array)
_VALUE_OR_CLOSE: Final = 1  # just after '['
_KEY_OR_CLOSE: Final = 2  # just after '{'
_KEY: Final = 3  # after ',' in an object
_COLON: Final = 4  # after an object key
_AFTER: Final = 5  # after a value inside a container
_END: Final = 6  # the top-level value is complete
_STRING: Final = 7  # inside a string (a key or a value)
_NUMBER: Final = 8  # inside a number cut by a fragment boundary
_LITERAL: Final = 9  # inside true / false / null, cut by a fragment boundary

_EXPECTED: Final = {
    _VALUE: "expected a JSON value",
    _VALUE_OR_CLOSE: "expected a JSON value or ']'",
    _KEY_OR_CLOSE: "expected '\"' to start an object key, or '}'",
    _KEY: "expected '\"' to start an object key after ','",
    _COLON: "expected ':' after an object key",
    _END: "expected nothing but whitespace after the top-level value",
    _STRING: "expected the rest of the string and its closing '\"'",
}

_WS_CHARS: Final = " \t\n\r"
# These three always match (maybe empty), hence the cast from ``Match | None``.
_Matcher: TypeAlias = Callable[[str, int], "re.Match[str]"]
_WS: Final = cast(_Matcher, re.compile(r"[ \t\n\r]*").match)
_PLAIN: Final = cast(_Matcher, re.compile(r'[^"\\\x00-\x1f]*').match)  # taken as they are
_HEX: Final = cast(_Matcher, re.compile(r"[0-9a-fA-F]*").match)
_NUMBER_RE: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?").match
_NUM_CHARS: Final = frozenset("0123456789+-.eE")
_DIGITS: Final = "0123456789"
_ESCAPES: Final = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r",
                   "t": "\t"}
_WORDS: Final[dict[str, tuple[str, Any]]] = {
    "t": ("true", True), "f": ("false", False), "n": ("null", None),
}


def _number_automaton() -> list[dict[str, int]]:
    """RFC 8259's number grammar as a DFA: ``table[state][char] -> state``.

    States: 0 start, 1 after '-', 2 a leading '0', 3 integer digits, 4 after '.',
    5 fraction digits, 6 after 'e', 7 after the exponent's sign, 8 exponent digits.
    """
    table: list[dict[str, int]] = [{} for _ in range(9)]
    table[0]["-"] = 1
    for state in (0, 1):
        table[state]["0"] = 2
        table[state].update(dict.fromkeys("123456789", 3))
    for state, target in ((3, 3), (4, 5), (5, 5), (6, 8), (7, 8), (8, 8)):
        table[state].update(dict.fromkeys(_DIGITS, target))
    for state in (2, 3):
        table[state]["."] = 4
    for state in (2, 3, 5):
        table[state].update({"e": 6, "E": 6})
    table[6].update({"+": 7, "-": 7})
    return table


_NUM_TABLE: Final = _number_automaton()
_NUM_ACCEPT: Final = frozenset((2, 3, 5, 8))  # a number may end in these states
_NUM_INT: Final = frozenset((2, 3))  # ... and is an int if it ends in these
_NUM_EXPECTED: Final = {
    0: "expected a digit or '-'",
    1: "expected a digit after '-'",
    4: "expected a digit after '.'",
    6: "expected a digit, '+' or '-' after the exponent mark",
    7: "expected a digit in the exponent",
}

_ABSENT: Final[Any] = object()  # "no value" where None is a value


class PartialJSON:
    """An incremental, linear-time reader of one JSON value (RFC 8259, strict).

    Feed it the text as it arrives; each :meth:`feed` returns the
    :class:`~sse_engine.parts.JSONStringDelta` and :class:`~sse_engine.parts.JSONValue`
    events of that fragment, and :attr:`value` is the partial value at any time.
    A fragment boundary may fall anywhere: inside a number, a literal, an escape
    or between the two halves of a surrogate pair.

    :param partial_strings: if true, :attr:`value` also shows the string that is
        still arriving (as ``jiter``'s ``partial_mode="trailing-strings"``); by
        default it leaves it out until its closing quote (``partial_mode=True``).
    """

    __slots__ = (
        "_base", "_chunks", "_closed", "_error", "_esc", "_esc_at", "_hi", "_in_key", "_key",
        "_nat", "_nparts", "_nq", "_partial_strings", "_parts", "_paths", "_placed", "_root",
        "_saved", "_sent", "_spath", "_stack", "_stale", "_state", "_word", "_wpos",
    )

    def __init__(self, *, partial_strings: bool = False) -> None:
        self._partial_strings = partial_strings
        self._state: int = _VALUE
        self._stack: list[dict[str, Any] | list[Any]] = []  # the open containers, outermost first
        self._paths: list[JSONPath] = []  # the path of each open container
        self._key = ""  # the current key of the innermost open object
        self._root: Any = None
        self._closed = False
        self._error: JSONStreamError | None = None
        self._base = 0  # characters fed before the current fragment
        self._parts: list[str] = []  # the text fed, joined when read
        # the string being read
        self._in_key = False
        self._chunks: list[str] = []  # decoded pieces
        self._sent = 0  # pieces already reported in a JSONStringDelta
        self._esc = ""  # an escape cut by a fragment boundary, from its backslash
        self._esc_at = 0  # ... and its offset
        self._hi = 0  # a high surrogate escape waiting for its low half
        self._spath: JSONPath = ()
        # the number or literal cut by a fragment boundary
        self._nparts: list[str] = []
        self._nq = 0  # the number automaton's state
        self._nat = 0  # the number's offset
        self._word = ""
        self._wpos = 0
        # the pending scalar shown in the tree (see _settle)
        self._stale = False
        self._placed = False
        self._saved: Any = _ABSENT

    # -- the public surface ---------------------------------------------------------

    @property
    def value(self) -> Any:
        """The value read so far: the live tree, updated in place; do not mutate it.

        Equal to ``jiter.from_json(text.encode(), partial_mode=True)`` wherever jiter
        returns a value (with ``partial_strings=True``: ``"trailing-strings"``), and to
        ``json.loads(text)`` once :attr:`done`. Open containers are present from
        their opening bracket; completed items are added as they complete; an
        unfinished number is shown when what has arrived is a valid number (``12``
        but not ``12.``); an unfinished literal, object key or (by default)
        string is left out. ``None`` before a value has started or while a
        top-level scalar cannot be shown yet.

        Reading it costs O(1) (plus the length of an unfinished number or, with
        ``partial_strings``, of the unfinished string): the same objects are
        returned every time and keep changing with later feeds. Take
        ``copy.deepcopy(pj.value)`` to keep a snapshot.
        """
        if self._stale:
            self._settle()
        return self._root

    @property
    def done(self) -> bool:
        """Whether a complete top-level value has been read.

        A top-level number is complete only at the whitespace after it or at
        :meth:`close`, since more digits could follow.
        """
        return self._state == _END

    @property
    def text(self) -> str:
        """All the text fed so far (joined when read after new text arrived)."""
        parts = self._parts
        if len(parts) > 1:
            parts[:] = ["".join(parts)]
        return parts[0] if parts else ""

    def feed(self, text: str) -> list[JSONDelta]:
        """Read the next fragment and return its events, in document order.

        :raises JSONStreamError: the text so far is not the start of one JSON
            value, or text other than whitespace follows it. The error is
            sticky: every later call raises it again.
        :raises UsageError: called after :meth:`close`.
        """
        if self._error is not None:
            raise self._error
        if self._closed:
            raise UsageError("feed() called after close(): this PartialJSON has ended")
        events: list[JSONDelta] = []
        if not text:
            return events
        self._parts.append(text)
        try:
            self._scan(text, events)
        except JSONStreamError as exc:
            self._error = exc
            raise
        finally:
            self._base += len(text)
        state = self._state
        if state == _STRING and not self._in_key:
            self._report_growth(events)
            self._stale = self._stale or self._partial_strings or self._placed
        elif state == _NUMBER or self._placed:
            self._stale = True
        return events

    def close(self) -> list[JSONDelta]:
        """Declare the end of the input; return the events it completes.

        Only a top-level number completes here (``"12"`` might have been the
        start of ``"123"``). Closing twice is harmless.

        :raises JSONStreamError: the input ended before the value did.
        """
        if self._error is not None:
            raise self._error
        events: list[JSONDelta] = []
        if self._closed:
            return events
        try:
            if self._state == _NUMBER and not self._stack:
                if self._nq not in _NUM_ACCEPT:
                    raise JSONStreamError(self._base, _NUM_EXPECTED[self._nq], "end of input")
                self._finish_number(events)
            if self._state != _END:
                raise JSONStreamError(self._base, self._expected(), "end of input")
        except JSONStreamError as exc:
            self._error = exc
            raise
        self._closed = True
        return events

    def __repr__(self) -> str:
        state = "failed" if self._error else "done" if self._state == _END else "reading"
        return f"<PartialJSON {state} at offset {self._base}>"

    # -- reading ------------------------------------------------------------------

    def _scan(self, s: str, events: list[JSONDelta]) -> None:
        n = len(s)
        i = 0
        stack = self._stack
        while i < n:
            state = self._state
            if state == _STRING:
                i = self._string(s, i, events)
                continue
            if state == _NUMBER:
                i = self._number(s, i, events)
                continue
            if state == _LITERAL:
                i = self._literal(s, i, events)
                continue
            c = s[i]
            if c in _WS_CHARS:
                i = _WS(s, i).end()
            elif state == _AFTER:
                in_object = type(stack[-1]) is dict
                if c == ",":
                    self._state = _KEY if in_object else _VALUE
                elif c == ("}" if in_object else "]"):
                    self._close_container(events)
                else:
                    raise self._fail(i, self._expected(), c)
                i += 1
            elif state == _COLON:
                if c != ":":
                    raise self._fail(i, _EXPECTED[_COLON], c)
                self._state = _VALUE
                i += 1
            elif state in (_KEY, _KEY_OR_CLOSE):
                if c == '"':
                    j = _PLAIN(s, i + 1).end()
                    if j < n and s[j] == '"':  # the whole key is here, without escapes
                        self._key = s[i + 1 : j]
                        self._state = _COLON
                        i = j + 1
                    else:
                        self._begin_string(True)
                        i += 1
                elif c == "}" and state == _KEY_OR_CLOSE:
                    self._close_container(events)
                    i += 1
                else:
                    raise self._fail(i, _EXPECTED[state], c)
            elif state == _END:
                raise self._fail(i, _EXPECTED[_END], c)
            else:  # a value starts here
                i = self._value(s, i, c, events)

    def _value(self, s: str, i: int, c: str, events: list[JSONDelta]) -> int:
        """Start the value at ``s[i] == c``; return where reading goes on."""
        n = len(s)
        if c == '"':
            j = _PLAIN(s, i + 1).end()
            if j < n and s[j] == '"':  # the whole string is here, without escapes
                text = s[i + 1 : j]
                path = self._child_path()
                if text:
                    events.append(JSONStringDelta(path, text))
                self._put(text, path, events)
                return j + 1
            self._begin_string(False)
            return i + 1
        if c == "{" or c == "[":
            self._open({} if c == "{" else [])
            return i + 1
        if c == "-" or "0" <= c <= "9":
            m = _NUMBER_RE(s, i)
            if m is not None and (j := m.end()) < n and s[j] not in _NUM_CHARS:
                number = m.group()
                if m.lastindex:
                    self._put(float(number), self._child_path(), events)
                else:
                    self._put(self._int(number, i + self._base), self._child_path(), events)
                return j
            # cut by the fragment's end, or invalid: the automaton decides
            self._state = _NUMBER
            self._nq = 0
            self._nparts = []
            self._nat = self._base + i
            return i
        word = _WORDS.get(c)
        if word is not None:
            if s.startswith(word[0], i):
                self._put(word[1], self._child_path(), events)
                return i + len(word[0])
            self._state = _LITERAL
            self._word = c
            self._wpos = 0
            return i
        if c == "]" and self._state == _VALUE_OR_CLOSE:
            self._close_container(events)
            return i + 1
        raise self._fail(i, _EXPECTED[self._state], c)

    def _string(self, s: str, i: int, events: list[JSONDelta]) -> int:
        """Go on reading the current string from ``s[i]``; return where reading goes on."""
        n = len(s)
        chunks = self._chunks
        if self._esc:  # finish the escape cut by the previous fragment's end
            carried = self._esc
            joined = carried + s[i : i + 6]
            k = self._escape(joined, 0, self._esc_at)
            if k < 0:
                self._esc = joined
                return n
            self._esc = ""
            i += k - len(carried)
        while True:
            j = _PLAIN(s, i).end()
            if j > i:
                if self._hi:
                    chunks.append(chr(self._hi))
                    self._hi = 0
                chunks.append(s[i:j])
            if j == n:
                return n
            c = s[j]
            if c == '"':
                if self._hi:
                    chunks.append(chr(self._hi))
                    self._hi = 0
                self._end_string(events)
                return j + 1
            if c != "\\":
                raise self._fail(j, "expected a string character (control characters must be "
                                 "escaped)", c)
            i = self._escape(s, j, self._base)
            if i < 0:
                self._esc = s[j:]
                self._esc_at = self._base + j
                return n

    def _escape(self, t: str, j: int, base: int) -> int:
        """Decode the escape at ``t[j] == '\\'``: its end, or -1 if ``t`` ends first."""
        if j + 1 >= len(t):
            return -1
        e = t[j + 1]
        chunks = self._chunks
        if e != "u":
            char = _ESCAPES.get(e)
            if char is None:
                raise JSONStreamError(base + j + 1, "expected an escape (one of "
                                      "\" \\ / b f n r t u) after '\\'", repr(e))
            if self._hi:
                chunks.append(chr(self._hi))
                self._hi = 0
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
        if self._hi:  # json.loads: a pair makes one character; a lone half stays as it is
            high, self._hi = self._hi, 0
            if 0xDC00 <= code <= 0xDFFF:
                chunks.append(chr(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)))
                return j + 6
            chunks.append(chr(high))
        if 0xD800 <= code <= 0xDBFF:
            self._hi = code
        else:
            chunks.append(chr(code))
        return j + 6

    def _begin_string(self, is_key: bool) -> None:
        self._state = _STRING
        self._in_key = is_key
        self._chunks = []
        self._sent = 0
        self._hi = 0
        if not is_key:
            self._spath = self._child_path()

    def _end_string(self, events: list[JSONDelta]) -> None:
        chunks = self._chunks
        text = "".join(chunks)
        if self._in_key:
            self._key = text
            self._state = _COLON
        else:
            if len(chunks) > self._sent:
                events.append(JSONStringDelta(self._spath, "".join(chunks[self._sent :])))
            self._put(text, self._spath, events)
        self._chunks = []

    def _report_growth(self, events: list[JSONDelta]) -> None:
        """At the end of a feed inside a string value: report what it gained."""
        chunks, sent = self._chunks, self._sent
        if len(chunks) > sent:
            new = chunks[sent] if len(chunks) == sent + 1 else "".join(chunks[sent:])
            del chunks[sent + 1 :]
            chunks[sent] = new
            self._sent = sent + 1
            events.append(JSONStringDelta(self._spath, new))

    def _number(self, s: str, i: int, events: list[JSONDelta]) -> int:
        """Go on reading a number through the automaton; return where reading goes on."""
        n = len(s)
        q = self._nq
        j = i
        while j < n:
            nxt = _NUM_TABLE[q].get(s[j])
            if nxt is None:
                break
            q = nxt
            j += 1
        if j > i:
            self._nparts.append(s[i:j])
        self._nq = q
        if j == n:
            return n
        if q not in _NUM_ACCEPT:
            raise self._fail(j, _NUM_EXPECTED[q], s[j])
        if q == 2 and s[j] in _DIGITS:
            raise self._fail(j, "expected '.', 'e' or the end of the number after a leading "
                             "'0' (no leading zeros)", s[j])
        self._finish_number(events)
        return j

    def _finish_number(self, events: list[JSONDelta]) -> None:
        text = "".join(self._nparts)
        self._nparts = []
        number = self._int(text, self._nat) if self._nq in _NUM_INT else float(text)
        self._put(number, self._child_path(), events)

    def _int(self, text: str, at: int) -> int:
        try:
            return int(text)
        except ValueError:  # longer than sys.get_int_max_str_digits(), as json.loads
            raise JSONStreamError(at, "expected an integer Python can convert (int() is "
                                  "limited to sys.get_int_max_str_digits() digits)",
                                  f"{len(text.lstrip('-'))} digits") from None

    def _literal(self, s: str, i: int, events: list[JSONDelta]) -> int:
        """Go on reading ``true``, ``false`` or ``null``; return where reading goes on."""
        word, value = _WORDS[self._word]
        p, n = self._wpos, len(s)
        while p < len(word) and i < n:
            if s[i] != word[p]:
                raise self._fail(i, f"expected {word!r}", s[i])
            p += 1
            i += 1
        self._wpos = p
        if p == len(word):
            self._put(value, self._child_path(), events)
        return i

    # -- the value tree -------------------------------------------------------------

    def _child_path(self) -> JSONPath:
        """The path of the value being read in the innermost open container."""
        if not self._stack:
            return ()
        top = self._stack[-1]
        if type(top) is list:
            return (*self._paths[-1], len(top) - self._placed)
        return (*self._paths[-1], self._key)

    def _put(self, value: Any, path: JSONPath, events: list[JSONDelta]) -> None:
        """Store a completed scalar at ``path`` (where the reader is) and report it."""
        stack = self._stack
        if stack:
            top = stack[-1]
            if type(top) is list:
                if self._placed:
                    top[-1] = value
                else:
                    top.append(value)
            else:
                top[self._key] = value  # type: ignore[call-overload]
            self._placed = False
            self._state = _AFTER
        else:
            self._root = value
            self._state = _END
        events.append(JSONValue(path, value))

    def _open(self, container: dict[str, Any] | list[Any]) -> None:
        stack = self._stack
        if stack:
            path = self._child_path()
            top = stack[-1]
            if type(top) is list:
                top.append(container)
            else:
                top[self._key] = container  # type: ignore[call-overload]
        else:
            path = ()
            self._root = container
        stack.append(container)
        self._paths.append(path)
        self._state = _KEY_OR_CLOSE if type(container) is dict else _VALUE_OR_CLOSE

    def _close_container(self, events: list[JSONDelta]) -> None:
        container = self._stack.pop()
        events.append(JSONValue(self._paths.pop(), container))
        self._state = _AFTER if self._stack else _END

    def _settle(self) -> None:
        """Show the pending scalar in the tree, or take it out, as jiter would.

        Called when :attr:`value` is read after a feed that ended inside a number
        (shown if it is valid so far) or, with ``partial_strings``, inside a string
        value. A shown scalar sits where it will go when complete (``_placed``);
        in an object it may hide an earlier value of a duplicate key, kept in
        ``_saved`` until the new value is complete or withdrawn.
        """
        self._stale = False
        state = self._state
        shown: Any = _ABSENT
        if state == _NUMBER and self._nq in _NUM_ACCEPT:
            text = "".join(self._nparts)
            self._nparts = [text]
            with contextlib.suppress(ValueError):  # too many digits: jiter gives up too
                shown = int(text) if self._nq in _NUM_INT else float(text)
        elif state == _STRING and self._partial_strings and not self._in_key:
            chunks = self._chunks
            shown = "".join(chunks)
            if len(chunks) > 1:
                chunks[:] = [shown]
                self._sent = 1
        stack = self._stack
        if not stack:
            if state != _END:
                self._root = None if shown is _ABSENT else shown
            return
        top = stack[-1]
        if type(top) is list:
            if shown is _ABSENT:
                if self._placed:
                    top.pop()
            elif self._placed:
                top[-1] = shown
            else:
                top.append(shown)
        else:
            key = self._key
            if shown is _ABSENT:
                if self._placed:
                    if self._saved is _ABSENT:
                        del top[key]  # type: ignore[arg-type]
                    else:
                        top[key] = self._saved  # type: ignore[call-overload]
            else:
                if not self._placed:
                    self._saved = top.get(key, _ABSENT)  # type: ignore[union-attr]
                top[key] = shown  # type: ignore[call-overload]
        self._placed = shown is not _ABSENT

    # -- errors ---------------------------------------------------------------------

    def _expected(self) -> str:
        state = self._state
        if state == _AFTER:
            if type(self._stack[-1]) is dict:
                return "expected ',' or '}' after an object member"
            return "expected ',' or ']' after an array element"
        if state == _NUMBER:
            return _NUM_EXPECTED.get(self._nq, "expected the rest of the number")
        if state == _LITERAL:
            return f"expected {_WORDS[self._word][0]!r}"
        return _EXPECTED[state]

    def _fail(self, i: int, expected: str, got: str) -> JSONStreamError:
        return JSONStreamError(self._base + i, expected, repr(got))
