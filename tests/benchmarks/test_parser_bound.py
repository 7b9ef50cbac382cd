"""benchmarks/parser_bound.py: the floor a missed parser row is compared with does the
floor's work on every row the parser benchmark can miss: it finds every block, whatever
the stream's line endings (a capture keeps its own: the Gemini captures are CRLF), and
however the bytes are cut into reads. A floor that finds no block decodes nothing and
re-joins a growing tail on every read, and the bound it reports means nothing."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks import corpora
from benchmarks.parser_bound import blank_line, floor_events

#: Every stream the parser benchmark builds rows from, small: each corpus in each shape,
#: and each bundled capture in its own.
STREAMS: dict[str, bytes] = {
    **{f"{name} {shape}": make(build(40))
       for name, build in (("chat", corpora.chat_completions), ("responses", corpora.responses),
                           ("messages", corpora.messages))
       for shape, make in corpora.SHAPES.items()},
    **{name: corpora.capture(name, 1) for name in corpora.CAPTURES},
}


def _reads(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_the_floor_finds_a_block_for_every_event(name: str) -> None:
    data = STREAMS[name]
    events = corpora.expected_events(data)
    assert events, name
    for mode in ("64k", "ragged", "1k"):
        reads = corpora.chunked(data, mode)
        assert len(floor_events(reads, blank_line(reads))) >= len(events), (name, mode)


@given(name=st.sampled_from(sorted(STREAMS)),
       cuts=st.lists(st.integers(min_value=0, max_value=1 << 20), max_size=40))
def test_the_blank_line_is_the_streams_own_however_it_is_cut(name: str, cuts: list[int]) -> None:
    data = STREAMS[name]
    reads = _reads(data, cuts)
    assert blank_line(reads) == blank_line([data])
    assert len(floor_events(reads, blank_line(reads))) >= len(corpora.expected_events(data))


def test_crlf_is_the_blank_line_of_a_crlf_stream_only() -> None:
    assert blank_line([b"data: a\r\n\r\ndata: b\r\n\r\n"]) == b"\r\n\r\n"
    assert blank_line([b"data: a\n\ndata: b\n\n"]) == b"\n\n"
    assert blank_line([b"data: a\r\n\r", b"\ndata: b\r\n\r\n"]) == b"\r\n\r\n"
