"""Blocks longer than the parser's long-tail threshold take their own path.

An unfinished block of 64 KiB or more is not searched for blank lines again when
it ends, and a long single ``data:`` line is decoded straight from the joined
bytes. These tests pin that path to the same results as feeding everything at
once, for every shape that can reach it.
"""

from __future__ import annotations

import pytest

from sse_engine import Comment, EventTooLarge, ServerSentEvent, SSEParser

BIG = 70_000  # past the 64 KiB threshold


def feed_in(
    body: bytes, size: int, *, comments: bool = False, limit: int | None = None
) -> list[ServerSentEvent | Comment]:
    parser: SSEParser[ServerSentEvent | Comment] = SSEParser(limit, comments=True)
    items = []
    for start in range(0, len(body), size):
        items += parser.feed(body[start : start + size])
    items += parser.close()
    return items if comments else [i for i in items if isinstance(i, ServerSentEvent)]


def whole(body: bytes, *, comments: bool = False) -> list[ServerSentEvent | Comment]:
    return feed_in(body, len(body) or 1, comments=comments)


payload = "é" * 10 + "x" * BIG + "€"
SHAPES = {
    "one data line": f"data: {payload}\n\ndata: after\n\n",
    "data line then more blocks in the same read": f"id: 7\n\ndata: {payload}\n\ndata: b\n\n",
    "event and data": f"event: big\ndata: {payload}\n\n",
    "multi-line data": f"data: {payload}\ndata: second\n\n",
    "ends with CRLF": f"data: {payload}\r\n\r\ndata: z\r\n\r\n",
    "ends with CR": f"data: {payload}\r\rdata: z\r\r",
    "odd run of blank lines after it": f"data: {payload}\n\n\n\ndata: z\n\n",
    "comment lines first": f": keepalive\n: again\ndata: {payload}\n\n",
    "long comment": f": {payload}\ndata: x\n\n",
    "long unknown field": f"foo: {payload}\n\ndata: x\n\n",
    "id line after data": f"data: {payload}\nid: 9\n\ndata: x\n\n",
}


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
@pytest.mark.parametrize("read", [1, 1000, 1024, 4096, 65536, 70_013])
def test_long_blocks_match_feeding_whole(shape: str, read: int) -> None:
    body = SHAPES[shape].encode()
    assert feed_in(body, read, comments=True) == whole(body, comments=True)


def test_long_single_line_event_content() -> None:
    body = f"id: 3\n\ndata: {payload}\n\n".encode()
    (event,) = feed_in(body, 1024)
    assert event == ServerSentEvent("message", payload, "3")


def test_blank_line_split_from_a_long_block_by_the_read_boundary() -> None:
    # The tail ends with LF and the next read starts with the blank line.
    body = f"data: {payload}\n".encode()
    parser = SSEParser()
    for start in range(0, len(body), 1000):
        assert parser.feed(body[start : start + 1000]) == []
    assert parser.feed(b"\ndata: next\n\n") == [
        ServerSentEvent("message", payload, ""),
        ServerSentEvent("message", "next", ""),
    ]


@pytest.mark.parametrize("extra", [-1, 0, 1])
def test_limit_is_exact_for_long_blocks(extra: int) -> None:
    # A data line of n characters is an event of n + 1 (its LF): the limit
    # admits it exactly when n + 1 <= limit, however it is read.
    line = f"data: {payload}"
    limit = len(line) + 1 + extra
    body = (line + "\n\n").encode()
    for read in (1000, len(body)):
        if extra < 0:
            with pytest.raises(EventTooLarge):
                feed_in(body, read, limit=limit)
        else:
            assert feed_in(body, read, limit=limit) == [ServerSentEvent("message", payload, "")]


def test_long_block_after_taken_comments_counts_them_in_the_limit() -> None:
    line = f"data: {payload}"
    body = (": c\n" + line + "\n\n").encode()
    limit = len(line) + 1 + len(": c") + 1
    assert feed_in(body, 1000, limit=limit) == feed_in(body, len(body), limit=limit)
    with pytest.raises(EventTooLarge):
        feed_in(body, 1000, limit=limit - 1)
    with pytest.raises(EventTooLarge):
        feed_in(body, len(body), limit=limit - 1)
