"""The parser's fast paths against the reference, on the streams that take them.

``SSEParser.feed`` reads the common blocks (an optional ``id`` line, an
optional ``event`` line, one ``data`` line) without the spec's per-line
steps: one at a time in a short read, split out of the whole text in a long
one, and all at once (the events built by C calls) when there are many; a
read of data-only blocks takes a plain split. The general property tests
rarely build streams of many such blocks, so these do: streams of up to 40
blocks, mostly of the fast shapes with the values that must not pass as them
(NUL in an id, a line break in a value, an empty event type), blocks of
other shapes between them, every line terminator, a BOM, comment lines that
begin a block (taken before the block ends), values long enough to make a
read's text pass the short-read limit, and invalid UTF-8. Every stream is fed
whole, in random pieces and one byte at a time, and must give what the
literal reference gives.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_parser_properties import CUTS, reference, run, run_limited, split

from sse_engine import Comment, ServerSentEvent, SSEParser

_VALUES = st.one_of(
    st.sampled_from(["", "x", " x", "a:b", "0", "17", "\x00", "a\x00b", "\ufeff", "é€😀"]),
    st.text(st.sampled_from(list("ab :{}\"é€😀\x00\t")), max_size=12),
    st.sampled_from([0] * 8 + [300, 2100]).map(lambda n: "y" * n),  # past the short read
)
#: Each example is a stream of up to 40 blocks, fed three ways: fewer examples
#: than the general properties, each covering more.
MANY = settings(
    max_examples=examples(7, thorough=150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
_TERMINATORS = st.sampled_from([b"\n"] * 6 + [b"\r\n"] * 3 + [b"\r"])


@st.composite
def _fast_block(draw: st.DrawFn) -> list[bytes]:
    """The lines of a block of the fast shape, or of one that almost is."""
    lines = []
    if draw(st.booleans()):
        lines.append(b"id: " + draw(_VALUES).encode())
    if draw(st.booleans()):
        lines.append(b"event: " + draw(_VALUES).encode())
    lines.append(b"data: " + draw(_VALUES).encode())
    twist = draw(st.sampled_from(["none"] * 6 + ["second data", "comment first", "raw", "swap"]))
    if twist == "second data":  # more data lines: not one line
        lines.append(b"data: " + draw(_VALUES).encode())
    elif twist == "comment first":  # a comment line that begins the block
        lines.insert(0, b": " + draw(_VALUES).encode())
    elif twist == "raw":  # invalid UTF-8 in the value
        lines[-1] += draw(st.sampled_from([b"\xff", b"\xe2\x82", b"\xc0\xaf", b"\xef\xbb\xbf"]))
    elif twist == "swap" and len(lines) > 1:  # the lines in another order
        lines.reverse()
    return lines


_OTHER_BLOCK = st.lists(
    st.sampled_from([b": keepalive", b"retry: 500", b"id: 9", b"event: e", b"data", b"data:x",
                     b"", b"id", b"data:  two spaces"]),
    min_size=1, max_size=3,
)


@st.composite
def fast_streams(draw: st.DrawFn) -> bytes:
    """Up to 8 blocks, mostly of the fast shapes, repeated up to 6 times in a shuffled
    order (many blocks per read, few draws), with every terminator, a BOM and a tail."""
    crlf_stream = draw(st.booleans())  # most streams keep one terminator throughout
    blocks = []
    for _ in range(draw(st.integers(min_value=0, max_value=8))):
        lines = draw(st.one_of(_fast_block(), _fast_block(), _fast_block(), _OTHER_BLOCK))
        if draw(st.integers(0, 4)) == 0:  # this block's lines end any way
            ends = [draw(_TERMINATORS) for _ in range(len(lines) + 1)]
        else:
            ends = [b"\r\n" if crlf_stream else b"\n"] * (len(lines) + 1)
        blocks.append(b"".join(line + end for line, end in zip([*lines, b""], ends, strict=True)))
    repeated = blocks * draw(st.integers(min_value=1, max_value=6))
    order = draw(st.permutations(range(len(repeated))))
    head = draw(st.sampled_from([b"", b"", b"", b"\xef\xbb\xbf"]))
    tail = draw(st.sampled_from([b"", b"", b"data: unfinished", b"id: 5\n", b": c\n"]))
    return head + b"".join(repeated[i] for i in order) + tail


@MANY
@given(stream=fast_streams(), cuts=CUTS, comments=st.booleans())
@example(stream=b"id: 1\ndata: a\n\n" * 40, cuts=[], comments=False)
@example(stream=b"data: a\n\n" * 40 + b": c\n\n" + b"data: b\n\n" * 40, cuts=[100], comments=True)
@example(stream=b"id: a\x00b\ndata: x\n\n" * 30, cuts=[], comments=False)
@example(stream=b"event: \ndata: x\n\n" * 30, cuts=[], comments=False)
# Keepalives that end a read's blocks, and a comment block that is not only comments.
@example(stream=b"data: a\n\n: k\n\n: k\n\ndata: b\n\n", cuts=[20], comments=False)
@example(stream=b"data: a\n\n: c\nid: 7\n\ndata: b\n\n", cuts=[], comments=False)
def test_fast_paths_match_reference(stream: bytes, cuts: list[int], comments: bool) -> None:
    ref = reference(stream, comments=comments)
    expected = (ref.items, ref.last_event_id, ref.retry, ref.in_event)
    assert run([stream], comments=comments) == expected
    assert run(split(stream, cuts), comments=comments) == expected


@MANY
@given(stream=fast_streams(), size=st.sampled_from([1, 2, 7, 40, 700, 4096, 65536]))
def test_fast_paths_in_reads_of_one_size(stream: bytes, size: int) -> None:
    """Reads of a fixed size, as transports give them: every read cuts somewhere new."""
    assume(size > 2 or len(stream) < 4000)  # a byte at a time: the short streams suffice
    ref = reference(stream)
    chunks = [stream[i : i + size] for i in range(0, len(stream), size)]
    assert run(chunks) == (ref.items, ref.last_event_id, ref.retry, ref.in_event)


# --- the rules the fast paths must keep, one each -------------------------------------------


def parse(stream: bytes) -> tuple[list[ServerSentEvent], str]:
    parser = SSEParser()
    events = parser.feed(stream) + parser.close()
    return events, parser.last_event_id


@pytest.mark.parametrize("blocks", [1, 2, 40])  # one block, a few, many (all at once)
def test_an_id_with_nul_is_ignored(blocks: int) -> None:
    events, last = parse(b"id: 7\ndata: a\n\n" + b"id: 8\x009\ndata: b\n\n" * blocks)
    assert [e.id for e in events] == ["7"] * (blocks + 1)
    assert last == "7"


@pytest.mark.parametrize("blocks", [1, 2, 40])
def test_an_empty_event_type_is_message(blocks: int) -> None:
    events, _ = parse(b"event: \ndata: a\n\n" * blocks)
    assert events == [ServerSentEvent("message", "a", "")] * blocks


@pytest.mark.parametrize("blocks", [1, 2, 40])
def test_ids_carry_over_to_blocks_without_one(blocks: int) -> None:
    stream = b"".join(
        (b"id: %d\n" % i if i % 3 == 0 else b"") + b"data: %d\n\n" % i for i in range(blocks * 3)
    )
    events, last = parse(stream)
    assert [e.id for e in events] == [str(i - i % 3) for i in range(blocks * 3)]
    assert last == str(blocks * 3 - 3)


def test_a_block_of_another_shape_between_many_data_blocks() -> None:
    stream = b"data: a\n\n" * 20 + b"data: b\ndata: c\n\n" + b": x\n\n" + b"data: d\n\n" * 20
    parser = SSEParser(comments=True)
    items = parser.feed(stream)
    assert items == (
        [ServerSentEvent("message", "a", "")] * 20
        + [ServerSentEvent("message", "b\nc", ""), Comment("x")]
        + [ServerSentEvent("message", "d", "")] * 20
    )


def test_an_odd_run_of_blank_lines_between_fast_blocks() -> None:
    events, last = parse(b"id: 1\ndata: a\n\n\n\nid: 2\ndata: b\n\n\n" * 10)
    pair = [ServerSentEvent("message", "a", "1"), ServerSentEvent("message", "b", "2")]
    assert events == pair * 10
    assert last == "2"


def test_comment_lines_taken_early_then_a_fast_block() -> None:
    """A keepalive line that ends a read begins the next block; the block is still its event."""
    parser = SSEParser(comments=True)
    assert parser.feed(b": ping\n") == [Comment("ping")]
    assert parser.feed(b"id: 3\nevent: e\ndata: x\n\n") == [ServerSentEvent("e", "x", "3")]
    assert parser.last_event_id == "3"


def test_a_bom_before_a_fast_block_in_a_long_read() -> None:
    events, _ = parse(b"\xef\xbb\xbfid: 1\ndata: a\n\n" + b"data: b\n\n" * 400)
    assert events[0] == ServerSentEvent("message", "a", "1")
    assert len(events) == 401


def test_crlf_at_every_read_boundary() -> None:
    stream = b"id: 1\r\nevent: e\r\ndata: x\r\n\r\n" * 50
    whole = parse(stream)
    for cut in range(1, 40):
        parser = SSEParser()
        chunks = [stream[i : i + cut] for i in range(0, len(stream), cut)]
        events = [e for chunk in chunks for e in parser.feed(chunk)] + parser.close()
        assert (events, parser.last_event_id) == whole, cut


# A short read (the usual network read) holds a few blocks, which feed() reads itself: a
# block that is not one line (or blocks of other shapes after one) in the middle of them
# goes the per-line way from there on; the blocks before it are already events.
_SHORT_READS = {
    "data blocks, a two-line one between": b"data: 1\n\ndata: 2\ndata: 3\n\ndata: 4\n\n",
    "data blocks, a comment block after": b"data: 1\n\ndata: 2\n\n: c\n\ndata: 4\n\n",
    "typed blocks, a two-line one between": (
        b"event: a\ndata: 1\n\nid: 7\nevent: b\ndata: 2\ndata: 3\n\nevent: c\ndata: 4\n\n"
    ),
    "ids, then a retry block, then ids": (
        b"id: 1\ndata: a\n\nid: 2\ndata: b\nretry: 9\n\nid: 3\ndata: c\n\ndata: d\n\n"
    ),
    "an id with NUL between": b"id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\nevent: e\ndata: c\n\n",
    "non-ASCII values": "data: caf\u00e9\n\nevent: \u20ac\ndata: \U0001f600\n\n".encode(),
    "a U+FFFD the server sent": "data: \ufffd\n\nid: 2\ndata: \ufffd\n\n".encode(),
    "invalid UTF-8 in the second block": b"data: a\n\ndata: b\xff\n\ndata: c\n\n",
    "CRLF": b"id: 1\r\nevent: e\r\ndata: a\r\n\r\ndata: b\r\ndata: c\r\n\r\ndata: d\r\n\r\n",
    "a lone CR between CRLF lines": (
        b"data: a\r\n\r\ndata: b\rdata: c\r\n\r\nid: 4\r\ndata: d\r\n\r\n"
    ),
}


@pytest.mark.parametrize("stream", _SHORT_READS.values(), ids=_SHORT_READS.keys())
@pytest.mark.parametrize("comments", [False, True])
def test_a_short_read_of_a_few_blocks(stream: bytes, comments: bool) -> None:
    ref = reference(stream, comments=comments)
    expected = (ref.items, ref.last_event_id, ref.retry, ref.in_event)
    assert run([stream], comments=comments) == expected
    for cut in range(1, len(stream)):  # a block ended by the first read, the rest by the next
        assert run([stream[:cut], stream[cut:]], comments=comments) == expected, cut


@pytest.mark.parametrize("end", [b"\n", b"\r\n"])
def test_invalid_utf8_in_a_short_read_is_marked(end: bytes) -> None:
    """Where a short read's invalid bytes were, counting a CRLF as one byte."""
    parser = SSEParser()
    events = parser.feed(b"data: a" + end * 2 + b"data: b\xff" + end * 2 + b"data: c" + end * 2)
    assert [e.data for e in events] == ["a", "b\ufffd", "c"]
    assert parser.invalid_utf8 == [(1, len("data: a\n\ndata: b"), 1)]


# Keepalive blocks (comment lines only) between events, as a gateway sends them while the
# model thinks: a block of comments only is passed over whole when comments are not kept.
_KEEPALIVES = (
    b": keepalive\n\n: keepalive\n\n"
    + b"id: 4\ndata: {\"a\": 1}\n\n"
    + b":\n:two comment lines\n\n"  # one block of two comment lines
    + b": c\n\nid: 5\n\n"  # an id-only block after a comment block: the id is committed
    + b"event: e\ndata: x\n: trailing comment\n\n"
    + b": c\r\n\r\ndata: y\r\n\r\n"  # CRLF
)


@pytest.mark.parametrize("copies", [1, 3, 200])  # one read of a few blocks, a long read
@pytest.mark.parametrize("comments", [False, True])
def test_keepalive_blocks_between_events(copies: int, comments: bool) -> None:
    stream = _KEEPALIVES * copies
    ref = reference(stream, comments=comments)
    expected = (ref.items, ref.last_event_id, ref.retry, ref.in_event)
    for size in (len(stream), 4096, 700, 41, 7):
        chunks = [stream[i : i + size] for i in range(0, len(stream), size)]
        assert run(chunks, comments=comments) == expected, size


@pytest.mark.parametrize("comments", [False, True])
def test_a_keepalive_block_over_the_limit_fails(comments: bool) -> None:
    stream = b"data: a\n\n" * 300 + b": " + b"k" * 80 + b"\n\n" + b"data: b\n\n"
    items, error = run_limited([stream], 50, comments=comments)
    ref = reference(stream, comments=comments, limit=50)
    assert error is not None
    assert items == ref.items
