"""encode_event / encode_comment / encode_json are the parser's exact inverse."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from sse_engine import (
    Comment,
    ServerSentEvent,
    SSEParser,
    encode_comment,
    encode_event,
    encode_json,
)

no_breaks = st.text().filter(lambda s: "\r" not in s and "\n" not in s)
ids = no_breaks.filter(lambda s: "\x00" not in s)
events = st.tuples(
    st.text(), st.none() | no_breaks, st.none() | ids, st.none() | st.integers(0, 10**12)
)


def parse_in_chunks(body: bytes, cuts: list[int]) -> list[ServerSentEvent | Comment]:
    parser = SSEParser(comments=True)
    out: list[ServerSentEvent | Comment] = []
    start = 0
    for cut in [*sorted({c % (len(body) + 1) for c in cuts}), len(body)]:
        out += parser.feed(body[start:cut])
        start = cut
    return out + parser.close()


@settings(max_examples=examples(6, thorough=300), deadline=None)
@given(st.lists(events, max_size=6), st.lists(st.integers(0, 10**6), max_size=8))
def test_round_trip_under_any_chunking(
    batch: list[tuple[str, str | None, str | None, int | None]], cuts: list[int]
) -> None:
    body = b"".join(encode_event(*args) for args in batch)
    expected = []
    last_id = ""
    for data, event, id_, _retry in batch:
        last_id = last_id if id_ is None else id_
        normal = data.replace("\r\n", "\n").replace("\r", "\n")
        expected.append(ServerSentEvent(event or "message", normal, last_id))
    assert parse_in_chunks(body, cuts) == expected


@given(st.integers(0, 10**12))
def test_retry_round_trips(retry: int) -> None:
    parser = SSEParser()
    parser.feed(encode_event("x", retry=retry))
    assert parser.retry == retry


@given(no_breaks)
def test_comment_round_trips(text: str) -> None:
    assert SSEParser(comments=True).feed(encode_comment(text)) == [Comment(text)]


def test_exact_bytes() -> None:
    assert encode_event("a\r\nb", event="delta", id="7", retry=1500) == (
        b"event: delta\nid: 7\nretry: 1500\ndata: a\ndata: b\n\n"
    )
    assert encode_event("") == b"data: \n\n"
    assert encode_comment("keepalive") == b": keepalive\n\n"
    assert encode_json({"type": "ping", "n": "é"}, event="ping") == (
        'event: ping\ndata: {"type":"ping","n":"é"}\n\n'.encode()
    )


def test_encode_json_round_trips_the_payload() -> None:
    payload = {"a": [1, 2.5, None, True], "b": "line\nbreak", "c": {"d": "\u2028"}}
    (sse,) = SSEParser().feed(encode_json(payload, event="x", id="3"))
    assert (sse.event, sse.id) == ("x", "3")
    assert json.loads(sse.data) == payload


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"event": "a\nb"}, "SSE event must not contain '\\n'"),
        ({"event": "a\rb"}, "SSE event must not contain '\\r'"),
        ({"id": "1\n"}, "SSE id must not contain '\\n'"),
        ({"id": "1\x002"}, "SSE id must not contain '\\x00'"),
        ({"retry": -1}, "retry must be a non-negative int"),
        ({"retry": True}, "retry must be a non-negative int"),
    ],
)
def test_fields_that_cannot_be_encoded_are_rejected(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError) as info:
        encode_event("x", **kwargs)  # type: ignore[arg-type]
    assert message in str(info.value)


def test_comment_with_a_line_break_is_rejected() -> None:
    with pytest.raises(ValueError, match="comment must not contain"):
        encode_comment("two\nlines")


def test_encode_json_survives_a_lone_surrogate() -> None:
    payload = {"text": "\ud800 ok"}
    (sse,) = SSEParser().feed(encode_json(payload))
    assert json.loads(sse.data) == payload


#: JSON-ish values, near misses included: lone surrogates, line breaks and U+2028 in
#: strings, NaN and infinities, non-str keys, tuples, and values JSON has no form for.
_leaves = (
    st.none() | st.booleans() | st.integers() | st.floats() | st.text()
    | st.sampled_from(["\ud800", "a\r\nb", "\u2028", "\x00", "\"\\", object()])
)
_keys = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
_values = st.recursive(
    _leaves,
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=12,
)


def _reference(payload: object, separators: tuple[str, str]) -> str | type[BaseException]:
    try:
        text = json.dumps(payload, ensure_ascii=False, separators=separators)
        try:
            text.encode()
        except UnicodeEncodeError:
            text = json.dumps(payload, separators=separators)
    except Exception as exc:  # the exception is what is compared
        return type(exc)
    return text


@settings(max_examples=examples(75, thorough=1000), deadline=None)
@given(_values, st.sampled_from([(",", ":"), (",", ": "), (", ", ": ")]))
def test_json_text_is_json_dumps(payload: object, separators: tuple[str, str]) -> None:
    """json_text (the C encoder made once) writes what json.dumps writes, raises what it
    raises; encode_json frames it as encode_event does."""
    from sse_engine._encoder import json_text

    expected = _reference(payload, separators)
    if isinstance(expected, str):
        assert json_text(payload, separators) == expected
        if separators == (",", ":"):
            assert encode_json(payload) == encode_event(expected)
            assert encode_json(payload, event="e", id="7") == encode_event(
                expected, event="e", id="7"
            )
    else:
        with pytest.raises(expected):
            json_text(payload, separators)


def test_json_text_cycles_raise_as_json_dumps() -> None:
    from sse_engine._encoder import json_text

    cycle: list[object] = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="Circular reference"):
        json_text(cycle)
    assert json_text({"a": [1.5, float("nan")]}) == '{"a":[1.5,NaN]}'
