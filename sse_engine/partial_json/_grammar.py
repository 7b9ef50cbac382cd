"""The JSON grammar as PartialJSON reads it: its states, their expectations, numbers.

Constant tables only; the reader is :mod:`sse_engine.partial_json._reader` (its tree
:mod:`sse_engine.partial_json._tree`),
strings are read by :mod:`sse_engine.partial_json._string`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final, cast

__all__: list[str] = []  # private: imported by name

# Where the reader is. The four "expect" states differ in what may come next.
VALUE: Final = 0  # a value must start (top level, after ':' or after ',' in an array)
VALUE_OR_CLOSE: Final = 1  # just after '['
KEY_OR_CLOSE: Final = 2  # just after '{'
KEY: Final = 3  # after ',' in an object
COLON: Final = 4  # after an object key
AFTER: Final = 5  # after a value inside a container
END: Final = 6  # the top-level value is complete
STRING: Final = 7  # inside a string (a key or a value)
NUMBER: Final = 8  # inside a number cut by a fragment boundary
LITERAL: Final = 9  # inside true / false / null, cut by a fragment boundary

EXPECTED: Final = {
    VALUE: "expected a JSON value",
    VALUE_OR_CLOSE: "expected a JSON value or ']'",
    KEY_OR_CLOSE: "expected '\"' to start an object key, or '}'",
    KEY: "expected '\"' to start an object key after ','",
    COLON: "expected ':' after an object key",
    END: "expected nothing but whitespace after the top-level value",
    STRING: "expected the rest of the string and its closing '\"'",
}

WS_CHARS: Final = " \t\n\r"
# always matches (maybe empty), hence the cast from ``Match | None``
WS: Final = cast(Callable[[str, int], "re.Match[str]"], re.compile(r"[ \t\n\r]*").match)
NUMBER_RE: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?").match
NUM_CHARS: Final = frozenset("0123456789+-.eE")
DIGITS: Final = "0123456789"
WORDS: Final[dict[str, tuple[str, Any]]] = {
    "t": ("true", True), "f": ("false", False), "n": ("null", None),
}


def number_automaton() -> list[dict[str, int]]:
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
        table[state].update(dict.fromkeys(DIGITS, target))
    for state in (2, 3):
        table[state]["."] = 4
    for state in (2, 3, 5):
        table[state].update({"e": 6, "E": 6})
    table[6].update({"+": 7, "-": 7})
    return table


NUM_TABLE: Final = number_automaton()
NUM_ACCEPT: Final = frozenset((2, 3, 5, 8))  # a number may end in these states
NUM_INT: Final = frozenset((2, 3))  # ... and is an int if it ends in these
NUM_EXPECTED: Final = {
    0: "expected a digit or '-'",
    1: "expected a digit after '-'",
    4: "expected a digit after '.'",
    6: "expected a digit, '+' or '-' after the exponent mark",
    7: "expected a digit in the exponent",
}

ABSENT: Final[Any] = object()  # "no value" where None is a value

