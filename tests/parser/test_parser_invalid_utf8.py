"""Invalid UTF-8 becomes U+FFFD (the spec) and the parser says where (``invalid_utf8``).

The lanes turn these marks into an ``invalid_utf8`` warning; what must hold is
that the marks name every invalid sequence once, at its stream offset,
whatever the reads, and never a U+FFFD the server itself sent.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_parser_properties import CUTS, split

from sse_engine import Comment, ServerSentEvent, SSEParser, UsageError

FUZZ = settings(
    max_examples=examples(22, thorough=200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

Mark = tuple[int, int, int]


def marks_of(chunks: list[bytes], *, comments: bool = False) -> tuple[list[object], list[Mark]]:
    """Items and marks with positions made global (index in all items so far)."""
    parser = SSEParser(comments=True) if comments else SSEParser()
    items: list[object] = []
    marks: list[Mark] = []
    for chunk in chunks:
        got = parser.feed(chunk)
        marks += [(len(items) + pos, offset, count) for pos, offset, count in parser.invalid_utf8]
        items += got
    items += parser.close()
    return items, marks


def first_invalid(stream: bytes) -> int | None:
    try:
        stream.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    return None


def test_a_latin1_byte_is_replaced_and_marked_at_its_offset() -> None:
    stream = b'data: {"text": "caf\xe9"}\n\n'
    items, marks = marks_of([stream])
    assert items == [ServerSentEvent("message", '{"text": "caf\ufffd"}', "")]
    assert marks == [(0, stream.index(b"\xe9"), 1)]


def test_a_u_fffd_the_server_sent_is_not_marked() -> None:
    items, marks = marks_of(["data: \ufffd ok\n\n".encode()])
    assert items == [ServerSentEvent("message", "\ufffd ok", "")]
    assert marks == []


def test_marks_are_for_the_latest_read_only() -> None:
    parser = SSEParser()
    parser.feed(b"data: \xff\n\n")
    assert parser.invalid_utf8 == [(0, 6, 1)]
    parser.feed(b"data: ok\n\n")
    assert parser.invalid_utf8 == []


def test_a_comment_line_is_marked_too() -> None:
    stream = b": \xc3\n: ok\ndata: x\n\n"
    for chunks in ([stream], [stream[:4], stream[4:]]):
        items, marks = marks_of(chunks, comments=True)
        assert items[0] == Comment("\ufffd")
        assert [offset for _, offset, _ in marks] == [2]


_PIECES = st.sampled_from(
    [b"data: ", b"event: x\n", b": c ", b"id: 1\n", b"a", b"\n", b"\n\n", b"\r\n", b"\r",
     b"\xff", b"\xe9", b"\xe2\x82", b"\xf0\x9f\x98", "\ufffd".encode(), "é€😀".encode(),
     b"\xef\xbb\xbf"]
)


@FUZZ
@given(stream=st.lists(_PIECES, max_size=30).map(b"".join), cuts=CUTS, comments=st.booleans())
@example(stream=b"data: a\xff\n\n", cuts=[7], comments=False)
@example(stream=b"\xef\xbb\xbf: \xff\ndata: x\n\n", cuts=[], comments=True)
def test_marks_count_every_replacement_once_whatever_the_reads(
    stream: bytes, cuts: list[int], comments: bool
) -> None:
    whole_items, whole = marks_of([stream], comments=comments)
    for chunks in (split(stream, cuts), [stream[i : i + 1] for i in range(len(stream))]):
        items, marks = marks_of(chunks, comments=comments)
        assert items == whole_items
        # The same invalid bytes, in stream order, at the same offsets; each read
        # may see them through different lines, so compare the totals.
        assert sum(c for *_, c in marks) == sum(c for *_, c in whole)
        assert [o for _, o, _ in marks][:1] == [o for _, o, _ in whole][:1]
    # Once every block ends, every replacement is counted, at the first invalid
    # byte (counted in the CRLF-normalised stream).
    ended = stream + b"\n\n"
    _, marks = marks_of([ended], comments=comments)
    normalised = ended.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    expected = normalised.decode("utf-8", "replace").count("\ufffd") - normalised.count(
        "\ufffd".encode()
    )
    assert sum(c for *_, c in marks) == expected
    if expected:
        assert marks[0][1] == first_invalid(normalised)


def test_feeding_str_is_a_usage_error() -> None:
    parser = SSEParser()
    try:
        parser.feed("data: x\n\n")  # type: ignore[arg-type]
    except UsageError as exc:
        assert "bytes" in str(exc)
    else:
        raise AssertionError("feed(str) did not raise")
    assert parser.feed(b"data: x\n\n") == [ServerSentEvent("message", "x", "")]


_CRLF_BLOCK = st.tuples(
    st.sampled_from([b"", b"id: 7\r\n", b"id: \xff\r\n"]),
    st.sampled_from([b"", b"event: e\r\n", b": \xe9 c\r\n"]),
    st.lists(st.sampled_from([b"x" * 300, b"\xff", b"\xe2\x82", "é€".encode(), b"\r", b"\n"]),
             max_size=6).map(b"".join),
).map(lambda parts: parts[0] + parts[1] + b"data: " + parts[2] + b"\r\n\r\n")


@settings(FUZZ, max_examples=examples(18, thorough=80))
@given(blocks=st.lists(_CRLF_BLOCK, min_size=1, max_size=30), cuts=CUTS, comments=st.booleans())
def test_long_crlf_reads_mark_where_their_lf_form_does(
    blocks: list[bytes], cuts: list[int], comments: bool
) -> None:
    """A long CRLF read has its middle blocks read without turning CRLF to LF (the
    bytes before and after them are turned): the items and marks are those of the
    same stream with LF line ends (offsets count a CRLF as one byte), whatever the reads."""
    stream = b"data: first\r\n\r\n" + b"".join(blocks) * 6 + b"data: unfinished"
    normalised = stream.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    expected = marks_of([normalised], comments=comments)
    assert marks_of([stream], comments=comments) == expected
    items, marks = marks_of(split(stream, cuts), comments=comments)
    assert items == expected[0]
    assert sum(c for *_, c in marks) == sum(c for *_, c in expected[1])
