"""What the Relay itself keeps per stream, apart from any HTTP stack (``tracemalloc``).

The soak's relay gateway grows by what its ``Relay(MessagesLane(), to="chat")``
keeps of every delta relayed so far, on top of what its stack costs. To tell
the two apart, the same upstream stream the soak's upstream writes (one read
per event) is fed to many relays in one process, and the bytes still
allocated are counted after the head and after ``k`` deltas.
"""

from __future__ import annotations

import gc
import tracemalloc

from benchmarks.gateway_soak import wire
from sse_engine import MessagesLane
from sse_engine.relay import Relay

__all__ = ["retained", "upstream_reads"]


def upstream_reads(seed: int, deltas: int) -> list[bytes]:
    """The soak upstream's stream for ``seed``, one read per event (the head in one)."""
    texts = wire.Texts(seed, deltas)
    stamps = range(1_700_000_000_000_000, 1_800_000_000_000_000, 20_000)
    return [wire.head_frames(seed), *(wire.delta_frame(texts.next(t)) for t in stamps[:deltas]),
            wire.tail_frames(deltas)]


def retained(fed: int, deltas: int = 300, streams: int = 50) -> float:
    """Bytes a relay holds after the head and ``fed`` of a ``deltas``-delta stream's deltas
    (the mean over ``streams`` relays, none of them closed)."""
    inputs = [upstream_reads(seed, deltas)[: 1 + fed] for seed in range(streams)]
    Relay(MessagesLane(), to="chat")  # class-level tables and lazy imports are not a stream's
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        relays = []
        for reads in inputs:
            relay = Relay(MessagesLane(), to="chat", created=1_700_000_000)
            relay.start(200, [("content-type", "text/event-stream")])
            for read in reads:
                relay.feed(read)
            relays.append(relay)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return (after - before) / streams
