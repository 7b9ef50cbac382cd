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
character at a time; a string, number or literal that lies whole in one
fragment is taken by one regex match (strings are decoded by the C routine of
``json.loads``). A string cut by a fragment boundary goes to a
:class:`~sse_engine.partial_json._string.StringReader`, which decodes it run by
run; a number or literal cut by one goes through the number automaton or a
character compare. Each keeps just enough state to resume.

This room is the tokenizer; the tree it fills, and the place in it, is the base
class :class:`~sse_engine.partial_json._tree.ValueTree`.
"""

from __future__ import annotations

from typing import Any

from sse_engine._errors import UsageError
from sse_engine.partial_json._events import (
    JSONDelta,
    JSONPath,
    JSONStreamError,
    JSONStringDelta,
)
from sse_engine.partial_json._grammar import (
    ABSENT,
    AFTER,
    COLON,
    DIGITS,
    END,
    EXPECTED,
    KEY,
    KEY_OR_CLOSE,
    LITERAL,
    NUM_ACCEPT,
    NUM_CHARS,
    NUM_EXPECTED,
    NUM_INT,
    NUM_TABLE,
    NUMBER,
    NUMBER_RE,
    STRING,
    VALUE,
    VALUE_OR_CLOSE,
    WORDS,
    WS,
    WS_CHARS,
)
from sse_engine.partial_json._number import NumberText, past_digit_limit, too_many_digits
from sse_engine.partial_json._string import RUN, StringReader, scanstring
from sse_engine.partial_json._tree import ValueTree

__all__ = ["PartialJSON"]


class PartialJSON(ValueTree):
    """An incremental, linear-time reader of one JSON value (RFC 8259, strict).

    Feed it the text as it arrives; each :meth:`feed` returns the
    :class:`~sse_engine.parts.JSONStringDelta` and :class:`~sse_engine.parts.JSONValue`
    events of that fragment, and :attr:`value` is the partial value at any time.
    A fragment boundary may fall anywhere: inside a number, a literal, an escape
    or between the two halves of a surrogate pair.

    :param partial_strings: if true, :attr:`value` also shows the string that is
        still arriving (as ``jiter``'s ``partial_mode="trailing-strings"``); by
        default it leaves it out until its closing quote (``partial_mode=True``).
    :param max_depth: how deeply objects and arrays may nest; an opening bracket
        beyond it raises :class:`~sse_engine.parts.JSONStreamError` (jiter stops
        at 200, ``json.loads`` near the recursion limit).
    """

    __slots__ = (
        "_base", "_closed", "_failure", "_in_key", "_max_depth", "_nat", "_nparts", "_nq",
        "_number_text",
        "_partial_strings", "_parts", "_spath", "_stale", "_str", "_word", "_wpos",
    )

    def __init__(self, *, partial_strings: bool = False, max_depth: int = 256) -> None:
        super().__init__()
        self._partial_strings = partial_strings
        self._max_depth = max_depth
        self._closed = False
        # (offset, expected, got) of the error once failed: not the error, whose traceback
        # holds this reader's frames (a cycle keeping a failed reader for the collector).
        self._failure: tuple[int, str, str] | None = None
        self._base = 0  # characters fed before the current fragment
        self._parts: list[str] = []  # the text fed, joined when read
        # the string being read, unless it lies whole in one fragment
        self._str = StringReader()
        self._in_key = False
        self._spath: JSONPath = ()
        # the number or literal cut by a fragment boundary
        self._nparts: list[str] = []
        self._nq = 0  # the number automaton's state
        self._number_text = NumberText()  # what showing it needs, in bounded size
        self._nat = 0  # the number's offset
        self._word = ""
        self._wpos = 0
        # a pending scalar must be shown in the tree, or taken out (see _settle)
        self._stale = False

    # -- the public surface ---------------------------------------------------------

    @property
    def value(self) -> Any:
        """The value read so far: the live tree, updated in place; do not mutate it.

        For a prefix of valid JSON, equal to ``jiter.from_json(text.encode(),
        partial_mode=True)`` wherever jiter returns a value (``"trailing-strings"``
        with ``partial_strings=True``), and to ``json.loads(text)`` once
        :attr:`done`. Open containers are present from their opening bracket;
        completed items are added as they complete; an unfinished number is
        shown when what has arrived is a valid number (``12`` but not ``12.``);
        an unfinished literal, object key or (by default) string is left out.
        ``None`` before a value has started or while a top-level scalar cannot
        be shown yet.

        Reading it costs O(1) (plus, for an unfinished number, converting at
        most a bounded text of it: 800 significant digits, or an integer within
        ``int()``'s digit limit; with ``partial_strings``, the unfinished
        string's length): the same objects are
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
        return self._state == END

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
            sticky: every later call raises it again (an equal error: the same
            ``offset``, ``expected`` and ``got``).
        :raises UsageError: called after :meth:`close`.
        """
        if self._failure is not None:
            raise JSONStreamError(*self._failure)
        if self._closed:
            raise UsageError("feed() called after close(): this PartialJSON has ended")
        events: list[JSONDelta] = []
        if not text:
            return events
        self._parts.append(text)
        try:
            self._scan(text, events)
        except JSONStreamError as exc:
            self._failure = (exc.offset, exc.expected, exc.got)
            raise
        finally:
            self._base += len(text)
        state = self._state
        if state == STRING and not self._in_key:
            new = self._str.new_text()
            if new:
                events.append(JSONStringDelta(self._spath, new))
            self._stale = self._stale or self._partial_strings or self._placed
        elif state == NUMBER or self._placed:
            self._stale = True
        return events

    def close(self) -> list[JSONDelta]:
        """Declare the end of the input; return the events it completes.

        Only a top-level number completes here (``"12"`` might have been the
        start of ``"123"``). Closing twice is harmless.

        :raises JSONStreamError: the input ended before the value did.
        """
        if self._failure is not None:
            raise JSONStreamError(*self._failure)
        events: list[JSONDelta] = []
        if self._closed:
            return events
        try:
            if self._state == NUMBER and not self._stack:
                if self._nq not in NUM_ACCEPT:
                    raise JSONStreamError(self._base, NUM_EXPECTED[self._nq], "end of input")
                self._finish_number(events)
            if self._state != END:
                raise JSONStreamError(self._base, self._expected(), "end of input")
        except JSONStreamError as exc:
            self._failure = (exc.offset, exc.expected, exc.got)
            raise
        self._closed = True
        return events

    def __repr__(self) -> str:
        state = "failed" if self._failure else "done" if self._state == END else "reading"
        return f"<PartialJSON {state} at offset {self._base}>"

    # -- reading ------------------------------------------------------------------

    def _scan(self, s: str, events: list[JSONDelta]) -> None:
        n = len(s)
        i = 0
        stack = self._stack
        while i < n:
            state = self._state
            if state == STRING:
                i = self._string(s, i, events)
                continue
            if state == NUMBER:
                i = self._number(s, i, events)
                continue
            if state == LITERAL:
                i = self._literal(s, i, events)
                continue
            c = s[i]
            if c in WS_CHARS:
                i += 1
                if i < n and s[i] in WS_CHARS:
                    i = WS(s, i).end()
            elif state == AFTER:
                in_object = type(stack[-1]) is dict
                if c == ",":
                    self._state = KEY if in_object else VALUE
                elif c == ("}" if in_object else "]"):
                    self._close_container(events)
                else:
                    raise self._fail(i, self._expected(), c)
                i += 1
            elif state == COLON:
                if c != ":":
                    raise self._fail(i, EXPECTED[COLON], c)
                self._state = VALUE
                i += 1
            elif state in (KEY, KEY_OR_CLOSE):
                if c == '"':
                    j = RUN(s, i + 1).end()
                    if j < n and s[j] == '"':  # the whole key is here
                        key = s[i + 1 : j]
                        self._key = scanstring(s, i + 1)[0] if "\\" in key else key
                        i = j + 1
                        if i < n and s[i] == ":":  # and the colon, usually
                            self._state = VALUE
                            i += 1
                        else:
                            self._state = COLON
                    else:
                        self._begin_string(True)
                        i += 1
                elif c == "}" and state == KEY_OR_CLOSE:
                    self._close_container(events)
                    i += 1
                else:
                    raise self._fail(i, EXPECTED[state], c)
            elif state == END:
                raise self._fail(i, EXPECTED[END], c)
            else:  # a value starts here
                i = self._value(s, i, c, events)

    def _value(self, s: str, i: int, c: str, events: list[JSONDelta]) -> int:
        """Start the value at ``s[i] == c``; return where reading goes on."""
        n = len(s)
        if c == '"':
            j = RUN(s, i + 1).end()
            if j < n and s[j] == '"':  # the whole string is here
                text = s[i + 1 : j]
                if "\\" in text:
                    text = scanstring(s, i + 1)[0]
                if text:
                    path = self._child_path()
                    events.append(JSONStringDelta(path, text))
                    self._put(text, events, path)
                else:
                    self._put(text, events)
                return j + 1
            self._begin_string(False)
            return i + 1
        if c == "{" or c == "[":
            if len(self._stack) >= self._max_depth:
                raise self._fail(i, f"expected at most {self._max_depth} levels of nesting "
                                 "(max_depth)", c)
            self._open({} if c == "{" else [])
            return i + 1
        if c == "-" or "0" <= c <= "9":
            m = NUMBER_RE(s, i)
            if m is not None and (j := m.end()) < n and s[j] not in NUM_CHARS:
                number = m.group()
                past = past_digit_limit(number)
                if past >= 0:
                    raise self._fail(i + past, too_many_digits(), number[past])
                self._put(float(number) if m.lastindex else int(number), events)
                return j
            # cut by the fragment's end, or invalid: the automaton decides
            self._state = NUMBER
            self._nq = 0
            self._nparts = []
            self._number_text = NumberText()
            self._nat = self._base + i
            return i
        word = WORDS.get(c)
        if word is not None:
            if s.startswith(word[0], i):
                self._put(word[1], events)
                return i + len(word[0])
            self._state = LITERAL
            self._word = c
            self._wpos = 0
            return i
        if c == "]" and self._state == VALUE_OR_CLOSE:
            self._close_container(events)
            return i + 1
        raise self._fail(i, EXPECTED[self._state], c)

    def _string(self, s: str, i: int, events: list[JSONDelta]) -> int:
        """Go on reading the current string from ``s[i]``; return where reading goes on."""
        reader = self._str
        end = reader.read(s, i, self._base)
        if end < 0:
            return len(s)
        if self._in_key:
            self._key = reader.so_far()
            self._state = COLON
        else:
            new = reader.new_text()
            if new:
                events.append(JSONStringDelta(self._spath, new))
            self._put(reader.so_far(), events, self._spath)
        return end

    def _begin_string(self, is_key: bool) -> None:
        self._state = STRING
        self._in_key = is_key
        self._str = StringReader()
        if not is_key:
            self._spath = self._child_path()

    def _number(self, s: str, i: int, events: list[JSONDelta]) -> int:
        """Go on reading a number through the automaton; return where reading goes on."""
        n = len(s)
        q = self._nq
        j = i
        while j < n:
            nxt = NUM_TABLE[q].get(s[j])
            if nxt is None:
                break
            q = nxt
            j += 1
        if j > i:
            run = s[i:j]
            past = self._number_text.add(run)
            if past >= 0:
                raise self._fail(i + past, too_many_digits(), run[past])
            self._nparts.append(run)
        self._nq = q
        if j == n:
            return n
        if q not in NUM_ACCEPT:
            raise self._fail(j, NUM_EXPECTED[q], s[j])
        if q == 2 and s[j] in DIGITS:
            raise self._fail(j, "expected '.', 'e' or the end of the number after a leading "
                             "'0' (no leading zeros)", s[j])
        self._finish_number(events)
        return j

    def _finish_number(self, events: list[JSONDelta]) -> None:
        text = "".join(self._nparts)
        self._nparts = []
        # The integer part was held within int()'s limit as it came (NumberText.add).
        self._put(int(text) if self._nq in NUM_INT else float(text), events)

    def _literal(self, s: str, i: int, events: list[JSONDelta]) -> int:
        """Go on reading ``true``, ``false`` or ``null``; return where reading goes on."""
        word, value = WORDS[self._word]
        p, n = self._wpos, len(s)
        while p < len(word) and i < n:
            if s[i] != word[p]:
                raise self._fail(i, f"expected {word!r}", s[i])
            p += 1
            i += 1
        self._wpos = p
        if p == len(word):
            self._put(value, events)
        return i

    def _settle(self) -> None:
        """Show the pending scalar in the tree, or take it out, as jiter would.

        Called when :attr:`value` is read after a feed that ended inside a number
        (shown if it is valid so far) or, with ``partial_strings``, inside a string
        value; the tree places it (``_show``).
        """
        self._stale = False
        state = self._state
        shown: Any = ABSENT
        if state == NUMBER and self._nq in NUM_ACCEPT:
            shown = self._number_text.value(self._nq in NUM_INT)
        elif state == STRING and self._partial_strings and not self._in_key:
            shown = self._str.so_far()
        self._show(shown)

    # -- errors ---------------------------------------------------------------------

    def _expected(self) -> str:
        state = self._state
        if state == AFTER:
            if type(self._stack[-1]) is dict:
                return "expected ',' or '}' after an object member"
            return "expected ',' or ']' after an array element"
        if state == NUMBER:
            return NUM_EXPECTED.get(self._nq, "expected the rest of the number")
        if state == LITERAL:
            return f"expected {WORDS[self._word][0]!r}"
        return EXPECTED[state]

    def _fail(self, i: int, expected: str, got: str) -> JSONStreamError:
        return JSONStreamError(self._base + i, expected, repr(got))
