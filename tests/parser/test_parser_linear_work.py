"""A large event fed in many reads costs work linear in its size: no read copies old bytes.

The unfinished block waits as the pieces it was fed in, joined once, when its
blank line comes. If a read ever re-joined (or re-decoded) what is already
pending, a large event would cost quadratic work; these tests catch that
without timing anything: tracemalloc's peak during each ``feed()`` is the memory
that read allocated, and it must stay within a few times the read's own size
however much is pending; the read that ends the event may allocate only a
fixed multiple of the event (the one join, the one decode, the lines' strings).
"""

from __future__ import annotations

import tracemalloc

import pytest

from sse_engine import SSEParser

EVENT = 1 << 20  # 1 MiB: past the 64 KiB long-tail threshold, still quick
#: Allocated beyond the read's own bytes by any read: a list's growth, small objects.
SLACK = 16 * 1024

SHAPES = {
    "one data line": (b"data: ", b"x"),
    "event and data": (b"event: big\ndata: ", "\u00e9".encode()),
    "multi-line data": (b"data: ", b"x" * 63 + b"\ndata: "),
    "a comment line first": (b": keepalive\ndata: ", b"y"),
    "CRLF lines": (b"data: ", b"z" * 63 + b"\r\ndata: "),
    "CR lines": (b"data: ", b"z" * 63 + b"\rdata: "),
}


def _peak_of(feed: object, read: bytes) -> int:
    """Bytes allocated at the peak of one ``feed(read)``, beyond what was held before."""
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    feed(read)  # type: ignore[operator]
    return tracemalloc.get_traced_memory()[1] - before


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
@pytest.mark.parametrize("size", [1024, 65536])
def test_no_read_copies_what_is_pending(shape: tuple[bytes, bytes], size: int) -> None:
    head, unit = shape
    body = head + unit * (EVENT // len(unit))
    reads = [body[i : i + size] for i in range(0, len(body), size)]
    parser = SSEParser(max_event_size=None)
    tracemalloc.start()
    try:
        worst = max(_peak_of(parser.feed, read) - 3 * len(read) for read in reads)
        last = _peak_of(parser.feed, b"\n\n")
    finally:
        tracemalloc.stop()
    assert worst <= SLACK, f"a read allocated {worst} bytes beyond 3x its own size"
    # A fixed number of passes over the event: the one join of the pending pieces,
    # the one decode, and for many lines their strings and the data's join.
    assert last <= 6 * len(body) + SLACK
    assert not parser.in_event
