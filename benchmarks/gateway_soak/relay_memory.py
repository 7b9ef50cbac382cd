"""What the Relay itself keeps per stream, apart from any HTTP stack.

The soak's relay gateway grows by what its ``Relay(MessagesLane(), to="chat", lean=True)``
keeps of every delta relayed so far, on top of what its stack costs. To tell
the two apart, the stream the soak's upstream writes (one read per event) is
fed to many relays in one process, with no HTTP at all:

- :func:`retained`: the bytes ``tracemalloc`` counts still allocated after
  the head and ``k`` deltas (what the Relay's objects hold);
- :func:`resident`: the RSS a fresh process gains holding N relays fed ``k``
  deltas each, round-robin as a gateway's streams interleave (what those
  objects cost the process: the allocator's pools and the fragmentation that
  long-lived pieces interleaved with each read's temporaries leave);
- :func:`lingering`: what a finished relay, once dropped, leaves for the
  cyclic garbage collector (objects in reference cycles are freed only when
  it runs, and for objects old enough to be in its oldest generation, that is
  rarely).

    python -m benchmarks.gateway_soak.relay_memory --streams N --fed K
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tracemalloc

from benchmarks.gateway_soak import wire
from benchmarks.gateway_soak.procs import REPO_ROOT, rss_bytes
from sse_engine import MessagesLane
from sse_engine.relay import Relay

__all__ = ["lingering", "resident", "retained", "upstream_reads"]


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
    Relay(MessagesLane(), to="chat", lean=True)  # class tables, lazy imports: not a stream's
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        relays = []
        for reads in inputs:
            relay = Relay(MessagesLane(), to="chat", created=1_700_000_000, lean=True)
            relay.start(200, [("content-type", "text/event-stream")])
            for read in reads:
                relay.feed(read)
            relays.append(relay)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return (after - before) / streams


def lingering(deltas: int = 300) -> tuple[int, int]:
    """``(objects, bytes)`` a relay fed a whole ``deltas``-delta stream and closed leaves,
    once dropped, for ``gc.collect()`` to find and free (0, 0: plain reference counting
    frees it all)."""
    reads = upstream_reads(1, deltas)
    gc.collect()
    gc.disable()
    tracemalloc.start()
    try:
        relay = Relay(MessagesLane(), to="chat", created=1_700_000_000, lean=True)
        relay.start(200, [("content-type", "text/event-stream")])
        for read in reads:
            relay.feed(read)
        relay.close()
        del relay
        before = tracemalloc.get_traced_memory()[0]
        found = gc.collect()
        freed = before - tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
        gc.enable()
    return found, freed


def resident(streams: int, fed: int, deltas: int = 300) -> float:
    """RSS bytes per relay that a fresh process gains holding ``streams`` relays, each fed
    the head and ``fed`` deltas round-robin (measured in a child process)."""
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.gateway_soak.relay_memory", "--streams",
         str(streams), "--fed", str(fed), "--deltas", str(deltas)],
        cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=600,
    ).stdout
    return float(json.loads(out)["per_stream"])


def _resident_here(streams: int, fed: int, deltas: int) -> float:
    inputs = [upstream_reads(seed, deltas)[: 1 + fed] for seed in range(streams)]
    Relay(MessagesLane(), to="chat", lean=True)
    gc.collect()
    before = rss_bytes(os.getpid())
    relays = []
    for _ in range(streams):
        relay = Relay(MessagesLane(), to="chat", created=1_700_000_000, lean=True)
        relay.start(200, [("content-type", "text/event-stream")])
        relays.append(relay)
    for k in range(1 + fed):  # every stream's next read in turn, as a gateway sees them
        for relay, reads in zip(relays, inputs, strict=True):
            relay.feed(reads[k])
    gc.collect()
    return (rss_bytes(os.getpid()) - before) / streams


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="RSS per relay holding K deltas, N relays at once")
    ap.add_argument("--streams", type=int, default=1000)
    ap.add_argument("--fed", type=int, default=300)
    ap.add_argument("--deltas", type=int, default=300)
    args = ap.parse_args(argv)
    per_stream = _resident_here(args.streams, args.fed, args.deltas)
    print(json.dumps({"per_stream": per_stream}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
