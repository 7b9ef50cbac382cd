"""A lane, a part stream or a relay that is dropped is freed at once: no reference cycles.

A gateway drops a relay when its client goes away, mid-stream or after the
end; an SDK drops a part stream with its response. An object graph holding a
cycle is not freed by reference counting: it waits for the cyclic garbage
collector, a whole stream's text with it, and makes that collector's work.
Three such cycles were found (a translator keeping its own bound method, the
emitter keeping the stream that held its methods, the block queues keeping the
emitter that kept them); any turn, in any format, read by any layer to any
target, cut anywhere, closed or not: the garbage collector finds nothing. A
fourth held every lane that failed: its sticky error state kept the exception,
whose traceback holds the lane's frames (and the parser's kept its
EventTooLarge); so the same holds for broken bytes, strict or not, events over
the size limit, after any error status, the parser alone too.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from wire_turns import ALL_LANES, TurnSpec, render, turn_specs

from sse_engine import DEFAULT_MAX_EVENT_SIZE, Lane, SSEEngineError, SSEParser
from sse_engine.partial_json import JSONStreamError, PartialJSON
from sse_engine.parts import PartStream
from sse_engine.relay import Relay

LAYERS = ("parser", "lane", "parts", "lean parts", "partial strings", "relay", "lean relay")


Reader = tuple[Callable[[bytes], object], Callable[[], object]]  # its feed and close


def reader(layer: str, source: str, target: str, strict: bool = False, status: int = 200,
           limit: int = DEFAULT_MAX_EVENT_SIZE) -> Reader:
    """The ``feed`` and ``close`` of a new reader of ``source``'s bytes, by ``layer``,
    started with ``status``, its events at most ``limit`` characters."""
    if layer == "parser":
        parser = SSEParser(limit, comments=True)
        return parser.feed, parser.close
    lane = ALL_LANES[source](strict=strict, max_event_size=limit)
    read: Lane[Any] | PartStream[Any] | Relay = lane
    if layer.endswith("relay"):
        read = Relay(lane, to=target, created=1754000000, lean=layer == "lean relay")
    elif layer != "lane":
        read = PartStream(lane, lean=layer == "lean parts",
                          partial_strings=layer == "partial strings")
    read.start(status, [("content-type", "text/event-stream")])
    return read.feed, read.close


def garbage_after(make: Callable[[], Reader], reads: list[bytes], close: bool) -> int:
    """The objects the garbage collector frees once a reader ``make`` made has read
    ``reads`` (and closed) and is dropped."""
    gc.disable()  # nothing is collected but what the reader leaves
    # Whatever exists now (earlier garbage too) out of the count, and out of the
    # collection's walk: a full collection of a test process's heap costs ~0.1 s.
    gc.freeze()
    try:
        feed, end = make()
        try:
            for read in reads:
                feed(read)
            if close:
                end()
        except SSEEngineError:
            pass  # a broken stream fails: what its reader then holds is the question
        del feed, end
        return gc.collect()
    finally:
        gc.unfreeze()
        gc.enable()


@settings(max_examples=examples(60, thorough=600), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(spec=turn_specs(), source=st.sampled_from(sorted(ALL_LANES)),
       target=st.sampled_from(sorted(ALL_LANES)), layer=st.sampled_from(LAYERS),
       cut=st.floats(0, 1), size=st.integers(1, 200), close=st.booleans())
def test_a_dropped_reader_leaves_nothing_to_the_garbage_collector(
    spec: TurnSpec, source: str, target: str, layer: str, cut: float, size: int, close: bool
) -> None:
    data = render(source, spec)
    data = data[: round(len(data) * cut)]
    reads = [data[at : at + size] for at in range(0, len(data), size)]
    assert garbage_after(lambda: reader(layer, source, target), reads, close) == 0


#: What breaks a stream: bad JSON, invalid UTF-8, frames cut or run together, error
#: frames and bodies, an end where none belongs.
BREAKS = [b"{", b"}", b"\xff", b"\n\n", b"data: {not json\n\n", b"event: error\n",
          b'data: {"error":{"message":"x"}}\n\n', b'{"error":{"message":"x"}}',
          b"data: [DONE]\n\n", b"data: 1\n\n"]


@settings(max_examples=examples(60, thorough=600), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(spec=turn_specs(), source=st.sampled_from(sorted(ALL_LANES)),
       target=st.sampled_from(sorted(ALL_LANES)), layer=st.sampled_from(LAYERS),
       breaks=st.lists(st.tuples(st.floats(0, 1), st.sampled_from(BREAKS)), min_size=1,
                       max_size=4),
       strict=st.booleans(), status=st.sampled_from([200, 200, 429, 500]),
       limit=st.sampled_from([DEFAULT_MAX_EVENT_SIZE, 60, 300]),
       size=st.integers(1, 200), close=st.booleans())
def test_a_reader_of_broken_bytes_leaves_nothing_to_the_garbage_collector(
    spec: TurnSpec, source: str, target: str, layer: str, breaks: list[tuple[float, bytes]],
    strict: bool, status: int, limit: int, size: int, close: bool,
) -> None:
    data = render(source, spec)
    for at, piece in breaks:
        cut = round(len(data) * at)
        data = data[:cut] + piece + data[cut:]
    reads = [data[at : at + size] for at in range(0, len(data), size)]
    made = functools.partial(reader, layer, source, target, strict, status, limit)
    assert garbage_after(made, reads, close) == 0


@settings(max_examples=examples(60, thorough=600), deadline=None)
@given(fragments=st.lists(st.text(alphabet='{}[]",: 0123456789.eE-atrufnlsx\\', max_size=8),
                          max_size=12),
       close=st.booleans(), again=st.booleans())
def test_a_failed_partial_json_reader_leaves_nothing_to_the_garbage_collector(
    fragments: list[str], close: bool, again: bool
) -> None:
    """The live tool input's reader, failed or not, closed or not, read again after its
    error or not: a relay's Messages target holds one per tool call (a broken input
    failed it, and its error's traceback held it)."""

    def made() -> Reader:
        reader = PartialJSON(max_depth=5)

        def feed(data: bytes) -> object:
            for fragment in fragments:
                try:
                    reader.feed(fragment)
                except JSONStreamError:
                    if not again:
                        raise
            return None

        return feed, reader.close

    assert garbage_after(made, [b""], close) == 0


def test_the_check_sees_a_cycle() -> None:
    """The measure itself: a reader that holds a cycle is seen (0 above means none)."""

    class Held:
        def __init__(self) -> None:
            self.me = self

    def cyclic() -> Reader:
        held = Held()
        return (lambda read: held), (lambda: held)

    assert garbage_after(cyclic, [b"data: x\n\n"], True) >= 1
