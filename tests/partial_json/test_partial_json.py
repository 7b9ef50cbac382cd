"""PartialJSON: values as jiter shows them, events, strict RFC 8259, errors, linear reading.

* After every fragment, ``value`` equals ``jiter.from_json(prefix, partial_mode=True)``
  (``"trailing-strings"`` with ``partial_strings=True``) wherever jiter returns a
  value; once the text is complete it equals ``json.loads(text)``.
* The events do not depend on how the text is split: the string deltas of a
  path concatenate to its string, and every value is reported once, in order.
* Any text: PartialJSON accepts exactly what ``json.loads`` accepts (without
  NaN / Infinity), raises nothing but JSONStreamError, and the same error
  (offset, message) however the text is split.
"""

from __future__ import annotations

import itertools
import json
import math
import pickle
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import attrs
import jiter
import pytest
from byte_settings import HEAVY, LIGHT
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import sse_engine.parts
from sse_engine._errors import SSEEngineError, UsageError
from sse_engine.partial_json import (
    JSONDelta,
    JSONPath,
    JSONStreamError,
    JSONStringDelta,
    JSONValue,
    PartialJSON,
    _number,
    _reader,
    _string,
)

ROOT = Path(__file__).resolve().parents[2]


# -- helpers ------------------------------------------------------------------------------------


def same(a: Any, b: Any) -> bool:
    """Equal, with types (int / float / bool), key order and the sign of 0.0 compared too."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    return [text[a:b] for a, b in itertools.pairwise(points)]


def feed_all(
    fragments: list[str], *, close: bool = False, **kwargs: Any
) -> tuple[PartialJSON, list[JSONDelta]]:
    pj = PartialJSON(**kwargs)
    events: list[JSONDelta] = []
    for fragment in fragments:
        events += pj.feed(fragment)
    if close:
        events += pj.close()
    return pj, events


Mode = Literal[True, False, "trailing-strings"]
MODES: tuple[Mode, Mode] = (True, "trailing-strings")  # PartialJSON(), partial_strings=True


def jiter_partial(prefix: str, mode: Mode) -> Any:
    try:
        return jiter.from_json(prefix.encode("utf-8", "surrogatepass"), partial_mode=mode)
    except ValueError:
        return _NO_VALUE


_NO_VALUE = object()


def strict_loads(text: str) -> Any:
    """json.loads without the NaN / Infinity extension (RFC 8259)."""

    def reject(name: str) -> Any:
        raise ValueError(name)

    return json.loads(text, parse_constant=reject)


def completions(value: Any, path: JSONPath = ()) -> list[tuple[JSONPath, Any]]:
    """Every value of a document with its path, in the order its end is read."""
    out: list[tuple[JSONPath, Any]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            out += completions(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += completions(v, (*path, i))
    out.append((path, value))
    return out


def strings_at(value: Any, path: JSONPath = ()) -> dict[JSONPath, str]:
    out: dict[JSONPath, str] = {}
    for p, v in completions(value, path):
        if isinstance(v, str):
            out[p] = v
    return out


def joined_deltas(events: list[JSONDelta]) -> dict[JSONPath, str]:
    out: dict[JSONPath, str] = defaultdict(str)
    for e in events:
        if isinstance(e, JSONStringDelta):
            out[e.path] += e.text
    return dict(out)


def value_events(events: list[JSONDelta]) -> list[tuple[JSONPath, Any]]:
    return [(e.path, e.value) for e in events if isinstance(e, JSONValue)]


def same_sequence(a: list[tuple[JSONPath, Any]], b: list[tuple[JSONPath, Any]]) -> bool:
    return len(a) == len(b) and all(
        pa == pb and same(va, vb) for (pa, va), (pb, vb) in zip(a, b, strict=True)
    )


# -- strategies ---------------------------------------------------------------------------------

_SPECIAL = '"\\/\b\f\n\r\t\x00\x1f\x7f é€😀\U0010fffd\u2028'
texts = st.text(st.sampled_from(_SPECIAL) | st.characters(), max_size=12)
leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts
)
json_values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(texts, inner, max_size=5),
    max_leaves=25,
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    """A JSON text: a random value, ASCII-escaped or not, with random whitespace around."""
    value = draw(json_values)
    indent = draw(st.sampled_from([None, 0, 1, "\t"]))
    separators = draw(st.sampled_from([None, (",", ":"), (" , ", " : ")]))
    text = json.dumps(value, ensure_ascii=draw(st.booleans()), indent=indent,
                      separators=separators)
    ws = st.text(st.sampled_from(" \t\n\r"), max_size=3)
    return draw(ws) + text + draw(ws)


cut_lists = st.lists(st.integers(min_value=0, max_value=10**6), max_size=40)


# -- agreement with jiter and json.loads, after every fragment ------------------------------------


@HEAVY
@given(documents(), cut_lists)
@example('{"a": "x\\ud83d\\ude00y", "b": [1, -0.0, 1e5, true]}', list(range(60)))
def test_value_after_every_fragment_matches_jiter(text: str, cuts: list[int]) -> None:
    plain, partial = PartialJSON(), PartialJSON(partial_strings=True)
    events: list[JSONDelta] = []
    seen = 0
    for fragment in split(text, cuts):
        got = plain.feed(fragment)
        assert got == partial.feed(fragment)
        events += got
        seen += len(fragment)
        prefix = text[:seen]
        for pj, mode in zip((plain, partial), MODES, strict=True):
            want = jiter_partial(prefix, mode)
            if want is not _NO_VALUE:
                assert same(pj.value, want), (prefix, mode, pj.value, want)
        per_path = [e.path for e in got if isinstance(e, JSONStringDelta)]
        assert len(per_path) == len(set(per_path)), "one JSONStringDelta per string per feed"
        assert all(e.text for e in got if isinstance(e, JSONStringDelta))
    final = strict_loads(text)
    closing = plain.close()
    assert closing == partial.close()
    events += closing
    for pj in (plain, partial):
        assert pj.done
        assert same(pj.value, final)
        whole = jiter_partial(text, False)  # raises on lone surrogates, which json keeps
        assert whole is _NO_VALUE or same(pj.value, whole)
        assert pj.text == text
    assert joined_deltas(events) == {p: s for p, s in strings_at(final).items() if s}
    assert same_sequence(value_events(events), completions(final))


@LIGHT
@given(documents(), cut_lists, cut_lists)
def test_events_do_not_depend_on_the_split(text: str, cuts_a: list[int],
                                           cuts_b: list[int]) -> None:
    _, a = feed_all(split(text, cuts_a), close=True)
    _, b = feed_all(split(text, cuts_b), close=True)
    _, whole = feed_all([text], close=True)
    assert joined_deltas(a) == joined_deltas(b) == joined_deltas(whole)
    assert same_sequence(value_events(a), value_events(b))
    assert same_sequence(value_events(a), value_events(whole))


# -- any text: the same verdict as json.loads, only JSONStreamError, split-independent errors ----


def verdict(fragments: list[str]) -> tuple[str, Any]:
    pj = PartialJSON()
    try:
        for fragment in fragments:
            pj.feed(fragment)
        pj.close()
    except JSONStreamError as exc:
        return "error", str(exc)
    assert pj.done
    return "value", pj.value


def check_against_json(text: str, cuts: list[int]) -> None:
    try:
        want: tuple[str, Any] = ("value", strict_loads(text))
    except ValueError:
        want = ("error", None)
    got = verdict(split(text, cuts))
    assert got[0] == want[0], (text, got, want)
    if got[0] == "value":
        assert same(got[1], want[1])
    else:
        assert got == verdict([text]) == verdict(list(text)), "the error depends on the split"


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(documents())
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        char = draw(st.sampled_from('{}[],:"\\ 0123456789-+.eEtrufalsnu\x00x') | st.characters())
        kind = draw(st.sampled_from(["insert", "delete", "replace"]))
        if kind == "insert":
            text = text[:at] + char + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + char + text[at + 1 :]
    return text


@HEAVY
@given(mutated(), cut_lists)
def test_mutated_json_gets_the_verdict_of_json_loads(text: str, cuts: list[int]) -> None:
    check_against_json(text, cuts)


@LIGHT
@given(st.text(st.sampled_from('{}[],:"\\ \n0123456789-+.eEtrufalsn') | st.characters(),
               max_size=30), cut_lists)
@example("NaN", [])
@example("[-Infinity]", [])
@example('"\\ud83d"', [3])
@example("1" * 5000, [10])
@example("\ufeff{}", [])
def test_any_text_gets_the_verdict_of_json_loads(text: str, cuts: list[int]) -> None:
    check_against_json(text, cuts)


# -- what value shows while the text is incomplete ----------------------------------------------

# prefix -> (value, value with partial_strings); each agrees with jiter where jiter has a value.
PREFIXES: dict[str, tuple[Any, Any]] = {
    "": (None, None),
    "  ": (None, None),
    "{": ({}, {}),
    "[": ([], []),
    '{"a"': ({}, {}),
    '{"a":': ({}, {}),
    '{"a": 1': ({"a": 1}, {"a": 1}),
    '{"a": 12': ({"a": 12}, {"a": 12}),
    '{"a": tr': ({}, {}),
    '{"a": -': ({}, {}),
    '{"a": "xy': ({}, {"a": "xy"}),
    '{"a": "': ({}, {"a": ""}),
    '{"a": "x\\': ({}, {"a": "x"}),
    '{"a": "x\\u00': ({}, {"a": "x"}),
    '{"a": "x\\u00e9': ({}, {"a": "xé"}),
    '{"a": "\\ud83d': ({}, {"a": ""}),
    '{"a": "\\ud83d\\ude0': ({}, {"a": ""}),
    '{"a": "\\ud83d\\ude00': ({}, {"a": "😀"}),
    '{"ab': ({}, {}),
    "[1, 2.": ([1], [1]),
    "[1, 2.5": ([1, 2.5], [1, 2.5]),
    "[1.5e": ([], []),
    "[1.5e+3": ([1500.0], [1500.0]),
    "[-0": ([0], [0]),
    "[-0.0": ([-0.0], [-0.0]),
    "[1E5": ([100000.0], [100000.0]),
    "[1e400": ([math.inf], [math.inf]),
    "[123456789012345678901234567890": ([123456789012345678901234567890],) * 2,
    '[1, "a': ([1], [1, "a"]),
    "[tr": ([], []),
    "[true": ([True], [True]),
    "[n": ([], []),
    "[[": ([[]], [[]]),
    '{"a": [1, {"b": "c': ({"a": [1, {}]}, {"a": [1, {"b": "c"}]}),
    '{"a":1,"a":2.': ({"a": 1}, {"a": 1}),
    '{"a":1,"a":2': ({"a": 2}, {"a": 2}),
    '{"a":1,"a":"x': ({"a": 1}, {"a": "x"}),
    '{"a":1,"a":t': ({"a": 1}, {"a": 1}),
    '{"a":1,"a":[': ({"a": []}, {"a": []}),
    '{"a":1,"b":2,"a":3': ({"a": 3, "b": 2}, {"a": 3, "b": 2}),
    # top-level scalars (jiter raises on several of these; value is then None)
    "1": (1, 1),
    "-": (None, None),
    "1e": (None, None),
    "tru": (None, None),
    '"abc': (None, "abc"),
    '"ab\\': (None, "ab"),
}


@pytest.mark.parametrize("prefix", list(PREFIXES))
@pytest.mark.parametrize("one_char_at_a_time", [False, True])
def test_value_of_an_incomplete_text(prefix: str, one_char_at_a_time: bool) -> None:
    want, want_partial = PREFIXES[prefix]
    fragments = list(prefix) if one_char_at_a_time else [prefix]
    for partial_strings, expected, mode in zip((False, True), (want, want_partial), MODES,
                                               strict=True):
        pj, _ = feed_all(fragments, partial_strings=partial_strings)
        assert same(pj.value, expected)
        assert not pj.done
        jv = jiter_partial(prefix, mode)
        assert jv is _NO_VALUE or same(jv, expected), "jiter disagrees with this table"


def test_a_shown_number_leaves_again_when_it_turns_invalid_so_far() -> None:
    pj = PartialJSON()
    pj.feed('{"a": 1, "b": [3')
    assert pj.value == {"a": 1, "b": [3]}
    pj.feed(".")
    assert pj.value == {"a": 1, "b": []}
    pj.feed("5")
    assert same(pj.value, {"a": 1, "b": [3.5]})
    pj.feed('], "a": 7')
    assert pj.value == {"a": 7, "b": [3.5]}
    pj.feed("e")
    assert pj.value == {"a": 1, "b": [3.5]}, "the earlier value of a duplicate key comes back"
    pj.feed("1}")
    assert same(pj.value, {"a": 70.0, "b": [3.5]})
    assert pj.done


def test_value_is_the_live_tree() -> None:
    pj = PartialJSON()
    pj.feed('{"rows": [')
    root, rows = pj.value, pj.value["rows"]
    pj.feed('{"a": 1}, ')
    assert pj.value is root and root["rows"] is rows and rows == [{"a": 1}]
    pj.feed("2]}")
    assert pj.value is root and root == {"rows": [{"a": 1}, 2]}


def test_a_top_level_number_completes_at_whitespace_or_close() -> None:
    pj = PartialJSON()
    assert pj.feed("12") == []
    assert pj.value == 12 and not pj.done
    assert pj.close() == [JSONValue((), 12)]
    assert pj.done and pj.value == 12
    pj = PartialJSON()
    assert pj.feed("-0.5 ") == [JSONValue((), -0.5)]
    assert pj.done
    pj = PartialJSON()
    assert pj.feed("true") == [JSONValue((), True)]
    assert pj.done


def test_close() -> None:
    pj = PartialJSON()
    pj.feed("[1]")
    assert pj.close() == []
    assert pj.close() == []
    with pytest.raises(UsageError):
        pj.feed(" ")
    pj = PartialJSON()
    pj.feed('{"a": [1, ')
    with pytest.raises(JSONStreamError, match=r"offset 10: expected a JSON value, got end of in"):
        pj.close()


def test_text_is_everything_fed() -> None:
    pj = PartialJSON()
    assert pj.text == ""
    for fragment in ['{"a"', "", ": ", "1}"]:
        pj.feed(fragment)
    assert pj.text == '{"a": 1}'
    assert pj.text is pj.text


# -- events ---------------------------------------------------------------------------------------


def test_events_of_a_document() -> None:
    pj = PartialJSON()
    assert pj.feed('{"path": "a.py", "content": "x\\n') == [
        JSONStringDelta(("path",), "a.py"),
        JSONValue(("path",), "a.py"),
        JSONStringDelta(("content",), "x\n"),
    ]
    assert pj.feed("") == []
    assert pj.feed('y"') == [JSONStringDelta(("content",), "y"), JSONValue(("content",), "x\ny")]
    assert pj.feed(', "n": [1, {"k": null}, ""]}') == [
        JSONValue(("n", 0), 1),
        JSONValue(("n", 1, "k"), None),
        JSONValue(("n", 1), {"k": None}),
        JSONValue(("n", 2), ""),
        JSONValue(("n",), [1, {"k": None}, ""]),
        JSONValue((), {"path": "a.py", "content": "x\ny", "n": [1, {"k": None}, ""]}),
    ]


def test_one_string_delta_per_feed_and_none_empty() -> None:
    pj = PartialJSON()
    assert pj.feed('["') == []
    assert pj.feed('a\\nb\\"c\\u00e9') == [JSONStringDelta((0,), 'a\nb"cé')]
    assert pj.feed("\\u00") == [], "an unfinished escape is not text yet"
    assert pj.feed("e9") == [JSONStringDelta((0,), "é")]
    assert pj.feed("\\ud83d") == [], "half a surrogate pair is not text yet"
    assert pj.feed("\\ude00") == [JSONStringDelta((0,), "😀")]
    assert pj.feed('"') == [JSONValue((0,), 'a\nb"céé😀')]


def test_object_keys_make_no_deltas() -> None:
    pj = PartialJSON()
    assert pj.feed('{"lo') == []
    assert pj.feed('ng\\tkey": "v"}') == [
        JSONStringDelta(("long\tkey",), "v"),
        JSONValue(("long\tkey",), "v"),
        JSONValue((), {"long\tkey": "v"}),
    ]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ('"\\ud83d\\ude00"', "😀"),
        ('"\\ud83dx"', "\ud83dx"),  # a lone high surrogate stays, as in json.loads
        ('"\\ude00"', "\ude00"),
        ('"\\ud83d\\u0041"', "\ud83dA"),
        ('"\\ud83d\\ud83d\\ude00"', "\ud83d😀"),
        ('"\\ud83d\\n"', "\ud83d\n"),
        ('"\\ud83d"', "\ud83d"),
        ('"\\\\ud83d\\ude00"', "\\ud83d\ude00"),  # an escaped backslash, then "ud83d"
        ('"\\\\\\ud83d\\ude00"', "\\😀"),
        ('"\\/\\b\\f\\n\\r\\t\\\\\\""', "/\b\f\n\r\t\\\""),
        ('"\\u00E9\\u00e9"', "éé"),
        ('"\x7f\u2028😀"', "\x7f\u2028😀"),
    ],
)
def test_escapes_at_every_split(text: str, want: str) -> None:
    assert json.loads(text) == want
    for cut in range(len(text) + 1):
        for cut2 in range(cut, len(text) + 1):
            pj, events = feed_all([text[:cut], text[cut:cut2], text[cut2:]])
            assert pj.done and pj.value == want
            assert joined_deltas(events) == {(): want}


@pytest.mark.parametrize(
    ("text", "want"),
    [("0", 0), ("-0", 0), ("-0.0", -0.0), ("1E5", 1e5), ("1e-2", 0.01), ("2.50", 2.5),
     ("123456789012345678901234567890", 123456789012345678901234567890), ("1e400", math.inf),
     ("true", True), ("false", False), ("null", None)],
)
def test_scalars_at_every_split(text: str, want: Any) -> None:
    for cut in range(len(text) + 1):
        pj, events = feed_all([f"[{text[:cut]}", f"{text[cut:]}]"])
        assert same(pj.value, [want])
        assert same_sequence(value_events(events), [((0,), want), ((), [want])])


# -- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "offset", "message"),
    [
        ('{"a": 1 x', 8, "expected ',' or '}' after an object member, got 'x'"),
        ("[1 2", 3, "expected ',' or ']' after an array element, got '2'"),
        ('{"a" 1', 5, "expected ':' after an object key, got '1'"),
        ("{1", 1, "expected '\"' to start an object key, or '}', got '1'"),
        ('{"a":1,}', 7, "expected '\"' to start an object key after ',', got '}'"),
        ("[1,]", 3, "expected a JSON value, got ']'"),
        ("[}", 1, "expected a JSON value or ']', got '}'"),
        ('{"a":1}x', 7, "expected nothing but whitespace after the top-level value, got 'x'"),
        ("1 2", 2, "expected nothing but whitespace after the top-level value, got '2'"),
        ("01", 1, "no leading zeros), got '1'"),
        ("[-x", 2, "expected a digit after '-', got 'x'"),
        ("1.]", 2, "expected a digit after '.', got ']'"),
        ("[.5]", 1, "expected a JSON value or ']', got '.'"),
        ("[0,+1]", 3, "expected a JSON value, got '+'"),
        ("1e+", 3, "expected a digit in the exponent, got end of input"),
        ("1ex", 2, "expected a digit, '+' or '-' after the exponent mark, got 'x'"),
        ("NaN", 0, "expected a JSON value, got 'N'"),
        ('{"a": -Infinity}', 7, "expected a digit after '-', got 'I'"),
        ("[trUe]", 3, "expected 'true', got 'U'"),
        ('"a\nb"', 2, "control characters must be escaped), got '\\n'"),
        ('"\\x"', 2, "after '\\', got 'x'"),
        ('"\\u12G4"', 5, "expected 4 hex digits after '\\u', got 'G'"),
        ('"abc', 4, "expected the rest of the string and its closing '\"', got end of input"),
        ("", 0, "expected a JSON value, got end of input"),
        ("\ufeff1", 0, "expected a JSON value, got '\\ufeff'"),
        ("1" * 4301, 4300, "jiter stops there too), got '1'"),
        ("-" + "1" * 4301 + ".5", 4301, "jiter stops there too), got '1'"),
    ],
)
def test_error_names_the_offset_and_the_expectation(text: str, offset: int, message: str) -> None:
    for fragments in ([text], list(text)):
        pj = PartialJSON()
        with pytest.raises(JSONStreamError) as info:
            for fragment in fragments:
                pj.feed(fragment)
            pj.close()
        assert str(info.value).startswith(f"invalid JSON at offset {offset}: ")
        assert str(info.value).endswith(message)
        assert info.value.offset == offset


def test_nesting_is_limited_by_max_depth() -> None:
    pj, _ = feed_all(["[" * 256, "]" * 256], close=True)
    assert pj.done
    pj = PartialJSON()
    with pytest.raises(JSONStreamError, match=r"^invalid JSON at offset 256: expected at most "
                       r"256 levels of nesting \(max_depth\), got '\{'$"):
        pj.feed("[" * 256 + "{")
    pj = PartialJSON(max_depth=2)
    pj.feed('{"a": [1, ')
    with pytest.raises(JSONStreamError, match="offset 10: expected at most 2 levels"):
        pj.feed("[]")


def test_trailing_whitespace_is_fine_and_anything_else_is_not() -> None:
    pj = PartialJSON()
    pj.feed(' {"a": [1]} \n\t\r ')
    pj.feed("  ")
    assert pj.done and pj.close() == []
    pj = PartialJSON()
    pj.feed("[] ")
    with pytest.raises(JSONStreamError, match="offset 3: "):
        pj.feed(",")


def test_the_error_is_sticky() -> None:
    pj = PartialJSON()
    pj.feed('{"a": ')
    with pytest.raises(JSONStreamError) as info:
        pj.feed("[1, }")
    calls: list[Callable[[], object]] = [lambda: pj.feed("1}"), lambda: pj.feed(""), pj.close]
    first = info.value
    for call in calls:
        with pytest.raises(JSONStreamError) as again:
            call()
        # An equal error, not the first one (whose traceback would hold the reader).
        assert (str(again.value), again.value.offset, again.value.expected, again.value.got) \
            == (str(first), first.offset, first.expected, first.got)
    assert first.offset == 10


def test_the_error_class() -> None:
    assert issubclass(JSONStreamError, SSEEngineError)
    assert issubclass(JSONStreamError, ValueError)
    err = JSONStreamError(3, "expected x", "'y'")
    assert (err.offset, err.expected, err.got) == (3, "expected x", "'y'")
    assert str(err) == "invalid JSON at offset 3: expected x, got 'y'"
    again = pickle.loads(pickle.dumps(err))
    assert (type(again), str(again), again.offset) == (JSONStreamError, str(err), 3)


# -- reading once ---------------------------------------------------------------------------------


def test_every_character_of_a_long_string_is_scanned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The work counter: the characters the string scanner passes over, in total."""
    run = _string.RUN
    scanned = [0, 0]

    def counting(s: str, i: int) -> re.Match[str]:
        m = run(s, i)
        scanned[0] += m.end() - i
        scanned[1] += 1
        return m

    monkeypatch.setattr(_string, "RUN", counting)
    monkeypatch.setattr(_reader, "RUN", counting)
    content = 'def f():\n    return "\\u00e9 ok"\n' * 3000
    text = json.dumps({"path": "a.py", "content": content})
    pj = PartialJSON()
    root = None
    for k in range(0, len(text), 40):
        pj.feed(text[k : k + 40])
        root = root or pj.value
        assert pj.value is root  # reading the value copies nothing
    assert pj.done and pj.value["content"] == content
    assert scanned[0] <= len(text)
    assert scanned[1] <= len(text) // 40 + 1 + 4  # one scan per fragment (+ the keys)


# -- the public surface ---------------------------------------------------------------------------


def test_public_names() -> None:
    names = {"PartialJSON", "JSONDelta", "JSONStringDelta", "JSONValue", "JSONStreamError",
             "JSONPath"}
    assert set(sse_engine.partial_json.__all__) == names
    for name in names:
        assert getattr(sse_engine.partial_json, name) is getattr(sse_engine, name)
    # A JSON reader, not a part: the parts vocabulary no longer carries it.
    assert not names & set(sse_engine.parts.__all__)


def test_events_are_frozen_slotted_values() -> None:
    event = JSONStringDelta(("a", 0), "x")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        event.text = "y"  # type: ignore[misc]
    assert not hasattr(event, "__dict__")
    assert JSONValue((), 1) == JSONValue((), 1)
    for item in (event, JSONValue(("a",), {"b": [1, None]})):
        assert pickle.loads(pickle.dumps(item)) == item
    assert "PartialJSON reading" in repr(PartialJSON())


# -- the docs page's example runs ----------------------------------------------------------------


def test_the_docs_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    page = (ROOT / "docs" / "live-tool-input.md").read_text(encoding="utf-8")
    code = re.findall(r"^```python\n(.*?)^```", page, flags=re.M | re.S)[0]
    printed = re.findall(r"^prints\n\n```\n(.*?)^```", page, flags=re.M | re.S)[0]
    exec(compile(code, "docs/live-tool-input.md", "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out == printed


def test_the_docs_error_example() -> None:
    page = (ROOT / "docs" / "live-tool-input.md").read_text(encoding="utf-8")
    text, message = re.findall(r"for `(.*)`:\n\n```\n(invalid JSON.*)\n```", page)[0]
    with pytest.raises(JSONStreamError) as info:
        PartialJSON().feed(text)
    assert str(info.value) == message


# -- issue 20 item 7: long numbers, read after every fragment --------------------------------------


@st.composite
def long_numbers(draw: st.DrawFn) -> str:
    """A number whose digits run long: past 800 significant digits, past int()'s limit."""
    sign = draw(st.sampled_from(["", "-"]))
    zeros = "0" * draw(st.sampled_from([0, 0, 5, 900]))
    integer = draw(st.sampled_from(["0", "1", "9" * 50, "123456789" * 100, "1" * 4300,
                                    "1" * 4301]))
    fraction = draw(st.sampled_from(["", "." + zeros + "5", "." + "3" * 1200,
                                     "." + "0" * 850 + "7", "." + "4" * 799 + "5" + "0" * 300]))
    exponent = draw(st.sampled_from(["", "e5", "E-400", "e+308", "e" + "0" * 30 + "2",
                                     "e-" + "9" * 40, "e" + "1" * 30]))
    return f"[{sign}{integer}{fraction}{exponent}]"


@settings(max_examples=examples(16, thorough=120), deadline=None)
@given(long_numbers(), st.lists(st.integers(0, 10**5), max_size=12))
def test_a_long_number_read_after_every_fragment_agrees_with_jiter(
    text: str, cuts: list[int]
) -> None:
    pj = PartialJSON()
    seen = 0
    try:
        for fragment in split(text, cuts):
            pj.feed(fragment)
            seen += len(fragment)
            want = jiter_partial(text[:seen], True)
            if want is not _NO_VALUE:
                assert same(pj.value, want), text[:seen][-60:]
    except JSONStreamError as exc:
        # Refused as jiter refuses it, at the integer part's digit past int()'s limit.
        with pytest.raises(ValueError, match="number out of range"):
            jiter.from_json(text.encode())
        digits = text[: exc.offset].lstrip("[-")
        assert digits.isdigit() and len(digits) == sys.get_int_max_str_digits()
        return
    assert same(pj.value, jiter.from_json(text.encode()))
    assert same(pj.value, json.loads(text))


def test_an_integer_past_the_digit_limit_is_refused_when_the_digit_arrives() -> None:
    pj = PartialJSON()
    pj.feed('{"n": ' + "7" * 4000)
    with pytest.raises(JSONStreamError, match="offset 4306: expected at most 4300 digits"):
        pj.feed("7" * 400)  # the refusal does not wait for the rest of a megabyte


def test_reading_a_long_number_after_every_fragment_converts_bounded_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    converted = 0
    real = float

    def counting(text: str) -> float:
        nonlocal converted
        converted += len(text)
        return real(text)

    monkeypatch.setattr(_number, "float", counting, raising=False)
    text = "[0." + "3" * 200_000 + "1e-5]"
    pj = PartialJSON()
    reads = 0
    for at in range(0, len(text), 40):
        pj.feed(text[at : at + 40])
        pj.value  # noqa: B018
        reads += 1
    # Each read converts at most ~800 digits, not the whole number so far.
    assert converted <= reads * 850
    assert pj.value == [json.loads(text)[0]]
