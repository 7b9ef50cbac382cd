"""Comment lines on the fast path: the events are those of the slow paths.

A parser that does not report comments reads keepalive blocks on its fast
path: the regex split that reads a read's blocks takes the blocks of comment
lines only that come before a block with the separator
(``SPLIT_UNCOMMENTED`` in ``_parser_blocks.py``), and those that end a read's
text are cut; both are nothing to such a parser. So keepalives between events
no longer send the blocks after them the per-line way. These properties hold
that fast path to the slow ones: the literal reference, and the same parser
reporting comments (which never takes that path), on streams dense with
comment lines in every place a block can hold one, every line terminator, a
BOM, odd runs of blank lines, comment lines taken early (a read that ends
right after one), and any split, including the ragged 40-700 B reads of the
benchmark.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_parser_properties import CUTS, reference, run, run_limited, split

from sse_engine import Comment, ServerSentEvent, SSEParser

MANY = settings(
    max_examples=examples(10, thorough=150), deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
_COMMENTS = st.sampled_from(
    [b": keepalive", b":", b": ", b"::", b":data: x", b":\xff", b": \xe2\x82"]
)
_VALUES = st.sampled_from(
    [b"", b"x", b" x", b"a:b", b"{\"k\": 1}", b"\xc3\xa9", b"\x00", b"y" * 300]
)
_FIELDS = st.one_of(
    _VALUES.map(lambda v: b"data: " + v),
    _VALUES.map(lambda v: b"event: " + v),
    _VALUES.map(lambda v: b"id: " + v),
    st.sampled_from([b"retry: 250", b"data", b"data:x", b"id"]),
)
_TERMINATORS = st.sampled_from([b"\n"] * 6 + [b"\r\n"] * 3 + [b"\r"])


@st.composite
def _block(draw: st.DrawFn) -> list[bytes]:
    """A block: comment lines only (a keepalive), or the fast shape with comment lines
    before, between or after its fields, or fields of any kind and comment lines."""
    kind = draw(st.sampled_from(["keepalive", "keepalive", "fast", "fast", "fast", "mixed"]))
    if kind == "keepalive":
        return draw(st.lists(_COMMENTS, min_size=1, max_size=3))
    if kind == "fast":
        lines = [b"data: " + draw(_VALUES)]
        if draw(st.booleans()):
            lines.insert(0, b"event: " + draw(_VALUES))
        if draw(st.booleans()):
            lines.insert(0, b"id: " + draw(_VALUES))
    else:
        lines = draw(st.lists(_FIELDS, min_size=1, max_size=4))
    for _ in range(draw(st.integers(0, 2))):
        lines.insert(draw(st.integers(0, len(lines))), draw(_COMMENTS))
    return lines


@st.composite
def comment_streams(draw: st.DrawFn) -> bytes:
    """Up to 10 blocks repeated up to 5 times, each blank line one or more, one
    terminator throughout or any per line, a BOM, and an unfinished tail."""
    crlf = draw(st.sampled_from([b"\n", b"\n", b"\r\n", b"\r"]))
    mixed = draw(st.integers(0, 3)) == 0
    pieces = []
    for lines in draw(st.lists(_block(), max_size=10)):
        blanks = draw(st.sampled_from([1, 1, 1, 1, 2, 3]))
        for line in [*lines, *[b""] * blanks]:
            pieces.append(line + (draw(_TERMINATORS) if mixed else crlf))
    body = b"".join(pieces) * draw(st.integers(min_value=1, max_value=5))
    head = draw(st.sampled_from([b"", b"", b"\xef\xbb\xbf", b"\xef\xbb\xbf: c\n"]))
    tail = draw(st.sampled_from([b"", b"", b": c\n", b": c", b"data: x\n: c\n", b"data: x"]))
    return head + body + tail


def _events_reported_with_comments(chunks: list[bytes]) -> tuple[object, ...]:
    """What the parser gives when it reports comments (and so never takes them out),
    less the comments."""
    items, last_event_id, retry, in_event = run(chunks, comments=True)
    return [i for i in items if not isinstance(i, Comment)], last_event_id, retry, in_event


def _ragged(stream: bytes, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    chunks, pos = [], 0
    while pos < len(stream):
        step = rng.randint(40, 700)
        chunks.append(stream[pos : pos + step])
        pos += step
    return chunks


@MANY
@given(stream=comment_streams(), cuts=CUTS, seed=st.integers(0, 2**16))
@example(stream=b"event: a\ndata: 1\n\n: keepalive\n\n: keepalive\n\n" * 30, cuts=[], seed=0)
@example(stream=b": ping\n\n" * 5 + b"id: 1\n: x\ndata: a\n: y\n\n" * 30, cuts=[7, 100], seed=1)
@example(stream=b"data: 1\r\n:\r\n\r\n:c\r\n\r\ndata: 2\r\n\r\n" * 40, cuts=[], seed=2)
def test_comment_lines_taken_out_match_the_slow_paths(
    stream: bytes, cuts: list[int], seed: int
) -> None:
    ref = reference(stream)
    expected = (ref.items, ref.last_event_id, ref.retry, ref.in_event)
    for chunks in ([stream], split(stream, cuts), _ragged(stream, seed)):
        assert run(chunks) == expected
        assert _events_reported_with_comments(chunks) == expected


@MANY
@given(stream=comment_streams(), cuts=CUTS, limit=st.sampled_from([8, 40, 300, 1000, 5000]))
def test_comment_lines_taken_out_fail_where_the_reference_does(
    stream: bytes, cuts: list[int], limit: int
) -> None:
    """A limit counts comment lines (they are lines of their block): taking them out
    of a read never moves where a stream fails, nor what it gave before."""
    ref = reference(stream, limit=limit)
    for chunks in ([stream], split(stream, cuts)):
        items, error = run_limited(chunks, limit)
        assert items == ref.items
        assert (error is not None) == ref.too_large


@pytest.mark.parametrize("cut", range(1, 60))
def test_a_keepalive_line_taken_early_then_events(cut: int) -> None:
    """A read that ends right after a keepalive line: the line is taken at once, and
    the next read's blocks are still read as they should be."""
    stream = b": keepalive\n\nevent: a\ndata: 1\n\n: keepalive\n\nid: 2\ndata: 2\n\n" * 5
    parser = SSEParser()
    chunks = [stream[i : i + cut] for i in range(0, len(stream), cut)]
    events = [e for chunk in chunks for e in parser.feed(chunk)] + parser.close()
    two = ServerSentEvent("message", "2", "2")
    first = [ServerSentEvent("a", "1", ""), two]
    assert events == first + [ServerSentEvent("a", "1", "2"), two] * 4
    assert parser.last_event_id == "2"


# --- a long CRLF read that begins a block: read as it is, its first block too ----------------

_LONG_VALUES = st.sampled_from([b"x", b"", b"\xc3\xa9", b"\xff", b"\x00", b"y" * 900, b"z" * 5000])


@st.composite
def long_crlf_streams(draw: st.DrawFn) -> bytes:
    """Over 4 KiB of mostly CRLF blocks of the fast shapes (and a few others), a BOM,
    a lone CR or LF here and there, comment lines, and an unfinished tail."""
    blocks = []
    for lines in draw(st.lists(_block(), min_size=1, max_size=8)):
        value = draw(_LONG_VALUES)
        lines = [*lines[:-1], lines[-1] + value] if lines else [value]
        ends = [draw(st.sampled_from([b"\r\n"] * 12 + [b"\n", b"\r"])) for _ in lines]
        blocks.append(b"".join(map(bytes.__add__, lines, ends)) + b"\r\n")
    body = b"".join(blocks)
    if draw(st.booleans()):  # clean text, as most streams are (invalid UTF-8 is read apart)
        body = body.decode("utf-8", "ignore").encode()
    body *= 1 + 5000 // max(1, len(body))
    head = draw(st.sampled_from([b"", b"", b"\xef\xbb\xbf", b"\r\n", b"\n"]))
    tail = draw(st.sampled_from([b"", b"data: x", b"data: x\r", b"\r", b": c\r\n"]))
    return head + body + tail


@MANY
@given(stream=long_crlf_streams(), first=st.sampled_from([0, 0, 10, 5000]),
       size=st.sampled_from([4097, 6000, 65536]), comments=st.booleans())
@example(stream=(b"event: e\r\ndata: " + b"x" * 100 + b"\r\n\r\n") * 60, first=0, size=65536,
         comments=False)
@example(stream=b"\xef\xbb\xbf" + (b"id: 1\r\ndata: " + b"x" * 100 + b"\r\n\r\n") * 60, first=0,
         size=65536, comments=False)
def test_long_crlf_reads_match_the_reference(
    stream: bytes, first: int, size: int, comments: bool
) -> None:
    """Whole, or after a first read that leaves an unfinished block (or ends one), in
    reads longer than 4 KiB: the events are the reference's."""
    ref = reference(stream, comments=comments)
    chunks = [stream[:first]] + [stream[i : i + size] for i in range(first, len(stream), size)]
    assert run(chunks, comments=comments) == (ref.items, ref.last_event_id, ref.retry, ref.in_event)
