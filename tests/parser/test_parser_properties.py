"""Hypothesis properties of SSEParser.

* Chunking never matters: any split of a stream into ``feed()`` calls gives the
  same items and the same final ``last_event_id``, ``retry`` and ``in_event``.
* Arbitrary bytes never raise anything but :class:`EventTooLarge`.
* The parser agrees with ``reference()``, a deliberately naive transcription of
  the WHATWG "event stream interpretation" steps that works on the whole stream.
* ``max_event_size``: the parser raises exactly when the reference says an event
  is too big, however the bytes are chunked, and loses nothing decoded before.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import pytest
from byte_settings import HEAVY, LIGHT
from hypothesis import example, given
from hypothesis import strategies as st

from sse_engine import Comment, EventTooLarge, ServerSentEvent, SSEParser

Item = ServerSentEvent | Comment

# --------------------------------------------------------------------------------------
# The reference: the spec's steps, literally, on the whole decoded stream.
# --------------------------------------------------------------------------------------

_EOL = re.compile(r"\r\n|\r|\n")


@dataclass
class Ref:
    items: list[Item] = field(default_factory=list)
    last_event_id: str = ""
    retry: int | None = None
    in_event: bool = False
    too_large: bool = False  # some event's size exceeded the limit


def reference(stream: bytes, *, comments: bool = False, limit: int | None = None) -> Ref:
    """Interpret ``stream`` per WHATWG HTML "Interpreting an event stream", step by step.

    Event size (for ``limit``) follows SSEParser's docstring: the decoded characters
    of the event's non-blank lines, each terminator counting as one. An event that
    is never terminated counts its complete lines plus its unfinished line as far
    as it decodes (a trailing incomplete UTF-8 sequence is not a character yet).
    On the first event over the limit, interpretation stops there.
    """
    text = stream.decode("utf-8", errors="replace")  # the UTF-8 decode algorithm
    if text.startswith("\ufeff"):  # one leading BOM is ignored
        text = text[1:]
    *lines, unfinished = _EOL.split(text)  # the last piece has no terminator yet
    ref = Ref()
    data = event_type = id_buffer = ""
    size = 0
    # Comment lines that begin a block are reported as each one ends; the others
    # when their block ends (held), or by close() for an unterminated block.
    leading = True
    held: list[Item] = []
    for line in lines:
        if line == "":  # blank line: dispatch the event
            if limit is not None and size > limit:
                ref.too_large = True
                return ref
            size = 0
            leading = True
            ref.items += held
            held = []
            ref.last_event_id = id_buffer
            if data == "":
                data = event_type = ""
                continue
            if data.endswith("\n"):
                data = data[:-1]
            ref.items.append(ServerSentEvent(event_type or "message", data, ref.last_event_id))
            data = event_type = ""
            continue
        if limit is not None and size + len(line) > limit:
            ref.too_large = True  # the event grew too large before this line ended
            return ref
        size += len(line) + 1
        if line.startswith(":"):  # a comment
            if comments:
                comment = Comment(line[2:] if line.startswith(": ") else line[1:])
                (ref.items if leading else held).append(comment)
            continue
        leading = False
        if ":" in line:
            name, value = line.split(":", 1)
            if value.startswith(" "):
                value = value[1:]
        else:
            name, value = line, ""
        if name == "data":
            data += value + "\n"
        elif name == "event":
            event_type = value
        elif name == "id":
            if "\x00" not in value:
                id_buffer = value
        # "only ASCII digits"; the empty value is ignored, as browsers do
        elif name == "retry" and value and all(c in "0123456789" for c in value):
            ref.retry = int(value)
        # any other field is ignored
    ref.in_event = size > 0 or unfinished != ""
    if limit is not None:
        # The unfinished line as far as it decodes: final=False keeps a trailing
        # incomplete UTF-8 sequence out, as it is not a character yet.
        decoded = codecs.utf_8_decode(stream, "replace", False)[0]
        if decoded.startswith("\ufeff"):
            decoded = decoded[1:]
        if size + len(_EOL.split(decoded)[-1]) > limit:
            ref.too_large = True
            return ref
    ref.items += held
    return ref


def event_sizes(stream: bytes) -> list[int]:
    """Sizes of every event of ``stream`` as the reference counts them (for limits)."""
    text = codecs.utf_8_decode(stream, "replace", False)[0]
    if text.startswith("\ufeff"):
        text = text[1:]
    sizes, size = [], 0
    *lines, partial = _EOL.split(text)
    for line in lines:
        if line:
            size += len(line) + 1
        else:
            sizes.append(size)
            size = 0
    sizes.append(size + len(partial))
    return [s for s in sizes if s]


# --------------------------------------------------------------------------------------
# Running the parser.
# --------------------------------------------------------------------------------------


def split(stream: bytes, cuts: Iterable[int]) -> list[bytes]:
    points = sorted({c % (len(stream) + 1) for c in cuts})
    chunks, start = [], 0
    for p in points:
        chunks.append(stream[start:p])
        start = p
    chunks.append(stream[start:])
    return chunks


def run(
    chunks: Iterable[bytes], *, comments: bool = False
) -> tuple[list[Item], str, int | None, bool]:
    parser = SSEParser(max_event_size=None, comments=True) if comments else SSEParser(None)
    items: list[Item] = []
    for chunk in chunks:
        items.extend(parser.feed(chunk))
    last_event_id, retry, in_event = parser.last_event_id, parser.retry, parser.in_event
    # close() gives back only the comment lines of an unterminated block.
    items.extend(parser.close())
    return items, last_event_id, retry, in_event


def run_limited(
    chunks: Iterable[bytes], limit: int, *, comments: bool = False
) -> tuple[list[Item], EventTooLarge | None]:
    """Feed until EventTooLarge; return every item delivered and the exception."""
    parser = SSEParser(max_event_size=limit, comments=True) if comments else SSEParser(limit)
    items: list[Item] = []
    try:
        for chunk in chunks:
            items.extend(parser.feed(chunk))
        items.extend(parser.close())
    except EventTooLarge as exc:
        items.extend(exc.events)
        return items, exc
    return items, None


# --------------------------------------------------------------------------------------
# Strategies: SSE-ish streams.
# --------------------------------------------------------------------------------------

_NAMES = st.sampled_from(
    ["data"] * 6
    + ["event"] * 2
    + ["id"] * 2
    + ["retry"] * 2
    + ["unknown", "Data", "data ", " data", "\ufeffdata", "", "ev\u2028ent", "i\x00d"]
)
_SPECIAL = list("ab z:09 \t\x00\ufeff\u2028\u2029\x85\x0b\x0c\x1cé€😀\r\n")
_VALUES = st.one_of(
    st.text(st.sampled_from(_SPECIAL), max_size=10),
    st.sampled_from(["", " ", "x ", " x", "a:b", "\x00", "a\x00b", "\ufeff"]),
    st.text(st.characters(codec="utf-8"), max_size=6),
)
# retry values: valid, and every way of almost being valid
_RETRY_VALUES = st.one_of(
    st.from_regex(r"\A[0-9]{1,6}\Z"),
    st.sampled_from(
        ["", " ", "1a", " 5", "5 ", "\u0661\u0662", "\uff15", "\u00b2", "-1", "+1", "1.5", "007"]
    ),
)
_SEPARATORS = st.sampled_from([":", ": ", ": ", ": ", ":  "])


@st.composite
def _line(draw: st.DrawFn) -> bytes:
    """One line, without its terminator."""
    kind = draw(st.sampled_from(["field"] * 8 + ["bare", "comment", "blank", "raw"]))
    if kind == "field":
        name = draw(_NAMES)
        value = draw(_RETRY_VALUES if name == "retry" else _VALUES)
        return (name + draw(_SEPARATORS) + value).encode()
    if kind == "bare":  # a line without a colon: field with an empty value
        return draw(_NAMES).encode()
    if kind == "comment":
        return (":" + draw(_VALUES)).encode()
    if kind == "blank":  # inside a block: an extra dispatch, or a run of blank lines
        return b""
    # raw bytes: invalid UTF-8, pieces of multi-byte characters, stray CR/LF/BOM
    return draw(
        st.one_of(
            st.binary(max_size=4),
            st.sampled_from([b"\xe2\x82", b"\xf0\x9f\x98", b"\xef\xbb\xbf", b"\xff", b"\xc0\xaf"]),
        )
    )


_TERMINATORS = st.sampled_from([b"\n", b"\n", b"\r\n", b"\r"])
_FAST_SHAPES = st.one_of(  # the shapes SSEParser recognises without a per-line loop
    st.builds(lambda v: [("data: " + v).encode()], _VALUES),
    st.builds(lambda e, v: [("event: " + e).encode(), ("data: " + v).encode()], _VALUES, _VALUES),
).flatmap(lambda lines: st.tuples(*(st.tuples(st.just(x), _TERMINATORS) for x in lines)))
_BLOCKS = st.lists(
    st.one_of(st.lists(st.tuples(_line(), _TERMINATORS), max_size=5), _FAST_SHAPES.map(list)),
    max_size=8,
)


@st.composite
def sse_streams(draw: st.DrawFn) -> bytes:
    """Blocks of lines, each ended by a blank line, between optional BOMs and a tail."""
    bom = draw(st.sampled_from([b"", b"", b"", b"\xef\xbb\xbf", b"\xef\xbb\xbf" * 2, b"\xef\xbb"]))
    out = [bom]
    for block in draw(_BLOCKS):
        out.extend(line + term for line, term in block)
        out.append(draw(_TERMINATORS))
    out.append(
        draw(st.sampled_from([b"", b"", b"data: unfinished", b"\xe2\x82", b"\r", b"id: 9\n"]))
    )
    return b"".join(out)


CUTS = st.lists(st.integers(min_value=0, max_value=10_000), max_size=16)


# --------------------------------------------------------------------------------------
# (a) chunking never matters
# --------------------------------------------------------------------------------------


@HEAVY
@given(stream=sse_streams(), cuts=CUTS, comments=st.booleans())
@example(stream=b"data: a\r\ndata: b\r\n\r\n", cuts=[8], comments=False)
@example(stream=b"\xef\xbb\xbfdata: \xf0\x9f\x98\x80\n\n", cuts=[1, 2, 9], comments=False)
def test_chunking_invariance(stream: bytes, cuts: list[int], comments: bool) -> None:
    whole = run([stream], comments=comments)
    assert run(split(stream, cuts), comments=comments) == whole
    assert run((stream[i : i + 1] for i in range(len(stream))), comments=comments) == whole


# --------------------------------------------------------------------------------------
# (b) garbage never raises anything but EventTooLarge
# --------------------------------------------------------------------------------------

_TOKENS = st.sampled_from(
    [
        *(b"\r", b"\n", b"\r\n", b":", b" ", b"data", b"event", b"id", b"retry", b"5", b"\x00"),
        *(b"\xef\xbb\xbf", b"\xef", b"\xff", b"\xe2\x82", b"\xf0\x9f", b"\x80", b"x" * 40),
    ]
)
GARBAGE = st.one_of(st.binary(max_size=3000), st.lists(_TOKENS, max_size=200).map(b"".join))


@HEAVY
@given(stream=GARBAGE, cuts=CUTS, comments=st.booleans())
def test_garbage_unlimited_never_raises(stream: bytes, cuts: list[int], comments: bool) -> None:
    parser = SSEParser(max_event_size=None, comments=True) if comments else SSEParser(None)
    for chunk in split(stream, cuts):
        for item in parser.feed(chunk):
            assert isinstance(item, ServerSentEvent | Comment)
    assert all(isinstance(item, Comment) for item in parser.close())


@HEAVY
@given(stream=GARBAGE, cuts=CUTS, limit=st.integers(min_value=1, max_value=64))
def test_garbage_small_limit_only_event_too_large(
    stream: bytes, cuts: list[int], limit: int
) -> None:
    parser = SSEParser(max_event_size=limit)
    try:
        for chunk in split(stream, cuts):
            parser.feed(chunk)
        parser.close()
    except EventTooLarge as exc:
        assert exc.limit == limit


# --------------------------------------------------------------------------------------
# (c) agreement with the reference
# --------------------------------------------------------------------------------------


@HEAVY
@given(stream=sse_streams(), cuts=CUTS, comments=st.booleans())
@example(stream=b"data: a\n\n\ndata: b\n\n", cuts=[], comments=False)
@example(stream=b"id: 1\n\nid: a\x00\ndata: x\n\n: c\n", cuts=[3], comments=True)
def test_matches_reference(stream: bytes, cuts: list[int], comments: bool) -> None:
    ref = reference(stream, comments=comments)
    expected = (ref.items, ref.last_event_id, ref.retry, ref.in_event)
    assert run([stream], comments=comments) == expected
    assert run(split(stream, cuts), comments=comments) == expected


@LIGHT
@given(stream=GARBAGE, cuts=CUTS)
def test_matches_reference_on_garbage(stream: bytes, cuts: list[int]) -> None:
    ref = reference(stream, comments=True)
    expected = (ref.items, ref.last_event_id, ref.retry, ref.in_event)
    assert run(split(stream, cuts), comments=True) == expected


def test_reference_self_check() -> None:
    """The reference itself gets the spec's own example right."""
    ref = reference(b"\xef\xbb\xbfdata: YHOO\ndata: +2\ndata: 10\n\n: c\nid: 1\n", comments=True)
    assert ref.items == [ServerSentEvent("message", "YHOO\n+2\n10", ""), Comment("c")]
    assert ref.last_event_id == ""
    assert ref.in_event
    assert event_sizes(b"data: ab\n: c\n\n\ndata: x") == [13, 7]
    assert reference(b"data: abc\n\n", limit=10).too_large is False
    assert reference(b"data: abc\n\n", limit=9).too_large is True
    assert reference(b"data: abcde", limit=10).too_large is True
    assert reference(b"data: abcd\xe2\x82", limit=10).too_large is False


# --------------------------------------------------------------------------------------
# (d) max_event_size
# --------------------------------------------------------------------------------------


@st.composite
def limited_streams(draw: st.DrawFn) -> tuple[bytes, int]:
    stream = draw(sse_streams())
    sizes = event_sizes(stream)
    aim = draw(st.booleans())
    if sizes and aim:
        # Aim at the boundary: exactly an event's size, one below, one above.
        limit = max(1, draw(st.sampled_from(sizes)) + draw(st.sampled_from([-1, 0, 0, 1])))
    else:
        limit = draw(st.integers(min_value=1, max_value=80))
    return stream, limit


@HEAVY
@given(stream_limit=limited_streams(), cuts=CUTS, comments=st.booleans())
@example(stream_limit=(b"data: a\n\n\ndata: x\n\n", 8), cuts=[], comments=False)
@example(stream_limit=(b"data: a\n\n\ndata: x\n\n", 7), cuts=[], comments=False)
@example(stream_limit=(b"data: 123456789\n", 10), cuts=[], comments=False)
# Issue 11 item 15: the comment before an oversized event, whole and split after it.
@example(stream_limit=(b": keepalive\ndata: " + b"x" * 100 + b"\n\n", 50), cuts=[12], comments=True)
@example(stream_limit=(b": " + b"x" * 60 + b"\n\n", 50), cuts=[], comments=True)
@example(stream_limit=(b"\xef\xbb\xbf: a\ndata: " + b"x" * 20 + b"\n\n", 12), cuts=[],
         comments=True)
@example(stream_limit=(b"\xef\xbb\xbf\n: a\ndata: " + b"x" * 20 + b"\n\n", 12), cuts=[4],
         comments=True)
@example(stream_limit=(b": a\nid: 1\n: b\ndata: " + b"x" * 20 + b"\n\n", 20), cuts=[4],
         comments=True)
@example(stream_limit=(b":\n\n\r", 2), cuts=[2], comments=False)  # a blank line after taken lines
def test_limit_raises_iff_reference_says_too_large(
    stream_limit: tuple[bytes, int], cuts: list[int], comments: bool
) -> None:
    stream, limit = stream_limit
    ref = reference(stream, limit=limit, comments=comments)
    for chunks in ([stream], split(stream, cuts), [stream[i : i + 1] for i in range(len(stream))]):
        items, exc = run_limited(chunks, limit, comments=comments)
        assert (exc is not None) == ref.too_large, chunks
        # Nothing decoded before the failure is lost, nothing after it appears.
        assert items == ref.items, chunks
        if exc is not None:
            assert exc.limit == limit
            assert f"max_event_size={limit}" in str(exc)


def _failed_parser(limit: int = 8) -> SSEParser[ServerSentEvent]:
    parser = SSEParser(max_event_size=limit)
    with pytest.raises(EventTooLarge):
        parser.feed(b"data: a\n\ndata: 123456789\n\n")
    return parser


def test_exception_carries_events_of_the_same_feed() -> None:
    parser = SSEParser(max_event_size=16)
    with pytest.raises(EventTooLarge) as info:
        # Sizes 8, 14 (fast path, slow path), then 22: too large.
        parser.feed(b"data: a\n\nid: 1\ndata: b\n\ndata: 123456789012345\n\ndata: c\n\n")
    assert info.value.events == [
        ServerSentEvent("message", "a", ""),
        ServerSentEvent("message", "b", "1"),
    ]
    assert "max_event_size=16" in str(info.value)


def test_exception_events_empty_when_failing_on_an_unfinished_line() -> None:
    parser = SSEParser(max_event_size=8)
    assert parser.feed(b"data: a\n\n") == [ServerSentEvent("message", "a", "")]
    with pytest.raises(EventTooLarge) as info:
        parser.feed(b"data: 123")
    assert info.value.events == []


def test_every_call_after_failure_raises() -> None:
    parser = _failed_parser()
    for _ in range(2):
        with pytest.raises(EventTooLarge) as info:
            parser.feed(b"data: ok\n\n")
        assert info.value.limit == 8
        assert "max_event_size=8" in str(info.value)
        with pytest.raises(EventTooLarge):
            parser.feed(b"")
        with pytest.raises(EventTooLarge):
            parser.close()


def test_limit_is_inclusive() -> None:
    # "data: 1234" + LF is 11 characters.
    assert SSEParser(max_event_size=11).feed(b"data: 1234\n\n") == [
        ServerSentEvent("message", "1234", "")
    ]
    with pytest.raises(EventTooLarge):
        SSEParser(max_event_size=10).feed(b"data: 1234\n\n")


def test_leading_blank_line_does_not_count() -> None:
    """An odd run of blank lines leaves an LF at the start of the next block."""
    parser = SSEParser(max_event_size=8)  # "data: x" + LF is exactly 8
    assert parser.feed(b"data: a\n\n\ndata: x\n\n") == [
        ServerSentEvent("message", "a", ""),
        ServerSentEvent("message", "x", ""),
    ]


def test_lines_without_blank_line_are_bounded() -> None:
    """Reads that each end on a line terminator must still be counted."""
    parser = SSEParser(max_event_size=10)
    assert parser.feed(b"data: 123\n") == []  # 10 characters: at the limit
    with pytest.raises(EventTooLarge):
        parser.feed(b"data: 4\n")


def _drip(parser: SSEParser[ServerSentEvent], read: bytes, cap: int) -> int:
    fed = 0
    with pytest.raises(EventTooLarge):
        while fed < cap:
            parser.feed(read)
            fed += len(read)
    return fed


def test_peer_without_newline_is_stopped() -> None:
    parser = SSEParser(max_event_size=64 * 1024)
    parser.feed(b"data: ")
    fed = _drip(parser, b"x" * 1024, 10 * 1024 * 1024)
    assert fed < 70 * 1024


def test_peer_without_blank_line_is_stopped() -> None:
    parser = SSEParser(max_event_size=64 * 1024)
    fed = _drip(parser, b"data: " + b"x" * 1017 + b"\n", 10 * 1024 * 1024)  # 1 KiB lines
    assert fed < 70 * 1024


def test_peer_without_blank_line_cr_terminated_is_stopped() -> None:
    parser = SSEParser(max_event_size=64 * 1024)
    fed = _drip(parser, b": " + b"x" * 1021 + b"\r", 10 * 1024 * 1024)
    assert fed < 70 * 1024


def test_limit_counts_characters_not_bytes() -> None:
    parser = SSEParser(max_event_size=64 * 1024)
    # 1 KiB reads of 341 three-byte characters, each ending inside a character.
    fed = _drip(parser, "€".encode() * 341 + b"\xe2", 10 * 1024 * 1024)
    assert 3 * 60 * 1024 < fed < 3 * 70 * 1024
