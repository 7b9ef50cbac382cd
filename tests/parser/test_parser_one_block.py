"""A read that is one whole block: the fast path ``SSEParser.feed`` takes first.

A gateway reads one event at a time (``event: …`` + ``data: …`` + a blank line),
so ``feed()`` matches such a read whole before anything else (strict UTF-8
decoding, one regular expression). These tests feed streams one block per
read (the only split that takes it) and check, read by read, that it gives
exactly what the general path gives (the same blocks fed as ``bytearray``,
which never takes it) and what the literal reference gives: items, last event
ID, retry, ``in_event``, ``invalid_utf8`` and ``bytes_fed``. The blocks are
mostly of the fast shape and of every shape that nearly is: CR and CRLF line
ends, a BOM, ``data:`` without its space, field names with junk after them, an
id with NUL, retry, comment lines, empty values, invalid UTF-8, a U+FFFD the
server sent, extra blank lines, and reads that follow a read that ended mid-line,
with CR, or with comment lines taken early.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_parser_properties import reference

from sse_engine import EventTooLarge, SSEParser

_VALUES = st.one_of(
    st.sampled_from(["", "x", " x", "a:b", "17", "\x00", "a\x00b", "\ufeff", "\ufffd", "é€😀"]),
    st.text(st.sampled_from(list("ab :{}\"é€😀\x00\t\u2028\x85")), max_size=12),
)
#: The lines of a block of the fast shape's fields, and every near miss of them.
_FIELD_LINES = st.sampled_from([
    "id: {}", "event: {}", "data: {}", "data: {}", "data: {}",
    "data:{}", "data:  {}", "event:{}", "id:{}", "id", "data", "event",
    "data : {}", "datax: {}", "event : {}", "Data: {}", "retry: {}", "retry: 300",
    ": {}", ":", "\ufeffdata: {}", " data: {}",
])
_RAW = st.sampled_from([b"\xff", b"\xe2\x82", b"\xc0\xaf", b"\xef\xbb\xbf", b"\xed\xa0\x80"])


@st.composite
def _block(draw: st.DrawFn) -> bytes:
    """One block and its blank line: mostly the fast shape, else a near miss of it."""
    if draw(st.integers(0, 2)):  # the fast shape, its optional lines drawn
        lines = [f"data: {draw(_VALUES)}"]
        if draw(st.booleans()):
            lines.insert(0, f"event: {draw(_VALUES)}")
        if draw(st.booleans()):
            lines.insert(0, f"id: {draw(_VALUES)}")
    else:
        lines = [draw(_FIELD_LINES).format(draw(_VALUES)) for _ in range(draw(st.integers(1, 3)))]
    raw = [line.encode() for line in lines]
    if draw(st.integers(0, 5)) == 0:  # invalid UTF-8 in one line
        at = draw(st.integers(0, len(raw) - 1))
        raw[at] += draw(_RAW)
    end = draw(st.sampled_from([b"\n"] * 8 + [b"\r\n", b"\r"]))
    blank = draw(st.sampled_from([end] * 8 + [end * 2, b"\r\n" if end == b"\n" else b"\n"]))
    return b"".join(line + end for line in raw) + blank


@st.composite
def one_block_reads(draw: st.DrawFn) -> list[bytes]:
    """Reads of one block each, some preceded by what leaves the parser mid-block."""
    reads = [draw(st.sampled_from([b"", b"", b"\xef\xbb\xbf", b"\n"]))]
    for _ in range(draw(st.integers(1, 12))):
        before = draw(st.sampled_from(
            [b""] * 8 + [b"data: a\n", b": ping\n", b": ping\n: pong\n", b"id: 4\r", b"data"]
        ))
        if before:
            reads.append(before)
        reads.append(draw(_block()))
    return reads


def _feed_all(reads: list[bytes], as_type: type, **kwargs: Any) -> list[Any]:
    """Everything observable after each read (and after close)."""
    parser: SSEParser[Any] = SSEParser(**kwargs)
    seen: list[Any] = []
    try:
        for read in reads:
            items = parser.feed(as_type(read))
            seen.append((items, parser.last_event_id, parser.retry, parser.in_event,
                         parser.invalid_utf8, parser.bytes_fed))
        seen.append(parser.close())
    except EventTooLarge as exc:
        seen.append(("too large", exc.events, exc.limit, exc.offset))
    return seen


ONE_BLOCK = settings(
    max_examples=examples(9, thorough=400),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@ONE_BLOCK
@given(reads=one_block_reads(), comments=st.booleans())
@example(reads=[b"", b"event: e\ndata: x\n\n", b"data: y\n\n"], comments=False)
@example(reads=[b"\xef\xbb\xbf", b"data: x\n\n"], comments=False)
@example(reads=[b"", b"id: a\x00b\ndata: x\n\n"], comments=False)
@example(reads=[b"", b"id: 4\r", b"\ndata: x\n\n"], comments=False)
@example(reads=[b"", b": ping\n", b"data: x\n\n"], comments=True)
@example(reads=[b"", b"data: x\xff\n\n", b"data: \xef\xbf\xbd\n\n"], comments=False)
def test_one_block_per_read_as_the_general_path(reads: list[bytes], comments: bool) -> None:
    fast = _feed_all(reads, bytes, max_event_size=None, comments=comments)
    general = _feed_all(reads, bytearray, max_event_size=None, comments=comments)
    assert fast == general
    ref = reference(b"".join(reads), comments=comments)
    items = [item for step in fast[:-1] for item in step[0]] + fast[-1]
    assert items == ref.items
    assert fast[-2][1:4] == (ref.last_event_id, ref.retry, ref.in_event)


@ONE_BLOCK
@given(reads=one_block_reads(), limit=st.integers(1, 40))
def test_one_block_per_read_within_a_limit(reads: list[bytes], limit: int) -> None:
    """A small ``max_event_size``: the same events, and the same failure, either way."""
    assert _feed_all(reads, bytes, max_event_size=limit) == (
        _feed_all(reads, bytearray, max_event_size=limit)
    )


_NEAR_MISSES = {
    "the fast shape": b"id: 7\nevent: e\ndata: {\"a\": 1}\n\n",
    "data only": b"data: x\n\n",
    "CR only": b"event: e\rdata: x\r\r",
    "CRLF": b"event: e\r\ndata: x\r\n\r\n",
    "LF lines, CRLF blank line": b"event: e\ndata: x\n\r\n",
    "a BOM first": b"\xef\xbb\xbfdata: x\n\n",
    "data: without its space": b"event: e\ndata:x\n\n",
    "data: with two spaces": b"data:  x\n\n",
    "junk after the field name": b"event : e\ndatax: y\ndata : z\n\n",
    "an id with NUL": b"id: 1\x002\ndata: x\n\n",
    "an empty id": b"id: \ndata: x\n\n",
    "an empty event type": b"event: \ndata: x\n\n",
    "empty data": b"data: \n\n",
    "data with no colon": b"data\n\n",
    "retry": b"retry: 250\ndata: x\n\n",
    "a comment first": b": keepalive\ndata: x\n\n",
    "comments only": b": keepalive\n\n",
    "two data lines": b"data: a\ndata: b\n\n",
    "one more blank line": b"data: x\n\n\n",
    "a blank line first": b"\ndata: x\n\n",
    "invalid UTF-8": b"data: x\xff\n\n",
    "an encoded surrogate": b"data: \xed\xa0\x80\n\n",
    "a U+FFFD the server sent": "event: \ufffd\ndata: \ufffd\n\n".encode(),
    "the lines swapped": b"data: x\nevent: e\n\n",
}


@pytest.mark.parametrize("block", _NEAR_MISSES.values(), ids=_NEAR_MISSES.keys())
@pytest.mark.parametrize("first", [b"", b"id: 1\ndata: a\n\n"])  # the stream's first read, or not
@pytest.mark.parametrize("comments", [False, True])
def test_a_near_miss_read_alone(block: bytes, first: bytes, comments: bool) -> None:
    reads = [first, block, block]
    fast = _feed_all(reads, bytes, max_event_size=None, comments=comments)
    assert fast == _feed_all(reads, bytearray, max_event_size=None, comments=comments)
    ref = reference(b"".join(reads), comments=comments)
    assert [item for step in fast[:-1] for item in step[0]] + fast[-1] == ref.items
    assert fast[-2][1:4] == (ref.last_event_id, ref.retry, ref.in_event)
