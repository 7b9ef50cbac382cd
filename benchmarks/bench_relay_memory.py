"""What a relayed stream holds after N deltas, for every pairing, lean and default.

A gateway holds one :class:`~sse_engine.relay.Relay` per open stream for as
long as the stream runs (longer, for a slow client). The default relay keeps
everything it relayed (the source lane's snapshot, the turn, the target's
blocks); ``Relay(..., lean=True)`` keeps only what the target must still
write. Measured with :mod:`tracemalloc`: the bytes still allocated after a
relay read the head of a stream and N text deltas of 12 characters (no end:
the stream is still running), for N = 100, 1,000, 10,000 and 30,000, for each
source and target format. Deterministic for one Python version: one round.

Targets: a lean relay to Chat, Messages or Gemini holds the same at 30,000
deltas as at 100 (within 2 KB); to Responses, at most the text once more
(1.25x its characters: its ``.done`` events and final response repeat it).
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
from pathlib import Path

if __package__ in (None, ""):  # `python benchmarks/bench_relay_memory.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import report
from sse_engine import FORMATS, ChatCompletionsLane, encode_chat_event
from sse_engine.relay import Relay

__all__ = ["held", "main", "source_reads"]

DELTA = "hello world "  # 12 characters
COUNTS = (100, 1_000, 10_000, 30_000)
QUICK_COUNTS = (100, 1_000)


def _chat_reads(deltas: int) -> list[bytes]:
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(delta: dict[str, str]) -> bytes:
        return encode_chat_event(
            {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
        )

    return [chunk({"role": "assistant", "content": ""}), *(chunk({"content": DELTA})
                                                          for _ in range(deltas))]


def source_reads(source: str, deltas: int) -> list[bytes]:
    """A stream of ``source``'s format: its head and ``deltas`` text deltas, one read each,
    not ended (written by relaying a Chat stream, so every format has the same text)."""
    reads = _chat_reads(deltas)
    if source == "chat":
        return reads
    relay = Relay(ChatCompletionsLane(), to=source, created=1)
    return [out for out in map(relay.feed, reads) if out]


def held(source: str, target: str, reads: list[bytes], lean: bool) -> int:
    """Bytes a relay holds after reading ``reads`` (tracemalloc; the stream still open)."""
    Relay(FORMATS[source].lane(), to=target, lean=lean)  # class tables, lazy imports
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        relay = Relay(FORMATS[source].lane(), to=target, lean=lean, created=1)
        relay.start(200, {"content-type": "text/event-stream"})
        for read in reads:
            relay.feed(read)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del relay
    return after - before


def _kb(n: int) -> str:
    return f"{n / 1024:,.1f}"


def main(write: bool = True, quick: bool = False) -> int:
    """Measure every pairing, print the table and (when ``write``) its docs section."""
    counts = QUICK_COUNTS if quick else COUNTS
    first, last = counts[0], counts[-1]
    rows = []
    flat_worst = 0
    responses_worst = 0.0
    for source in FORMATS:
        streams = {n: source_reads(source, n) for n in counts}
        for target in FORMATS:
            lean = [held(source, target, streams[n], True) for n in counts]
            default = [held(source, target, streams[n], False) for n in counts]
            growth = lean[-1] - lean[0]
            if target == "responses":
                responses_worst = max(responses_worst, growth / ((last - first) * len(DELTA)))
            else:
                flat_worst = max(flat_worst, growth)
            rows.append([f"{source} → {target}", *map(_kb, lean), *map(_kb, default)])
            print(f"  {source:>9} -> {target:<9} lean {lean}  default {default}", flush=True)
    header = [
        "Pairing",
        *(f"lean, {n:,}" for n in counts),
        *(f"default, {n:,}" for n in counts),
    ]
    targets: list[report.Target] = [
        (
            f"lean to Chat, Messages, Gemini: flat from {first:,} to {last:,} deltas (≤ 2 KB)",
            flat_worst <= 2048,
            f"the most any pairing grew: {flat_worst:,} bytes",
        ),
        (
            "lean to Responses: the text once (≤ 1.25 bytes per character relayed)",
            responses_worst <= 1.25,
            f"the most: {responses_worst:.2f} bytes per character",
        ),
    ]
    body = "\n".join(
        [
            "## Relay memory per stream",
            "",
            *report.machine_lines(),
            "",
            "Method: `tracemalloc` counts the bytes a `Relay` holds after the head of a",
            f"stream and N text deltas of {len(DELTA)} characters, the stream still open",
            "(what a gateway holds per running stream), for every source → target pairing,",
            "`Relay(..., lean=True)` and the default. KB per stream:",
            "",
            report.markdown_table(header, rows, "l" + "r" * (len(header) - 1)),
            "",
            *report.target_lines(targets),
            "",
            "The default relay keeps every delta three or four times over (the lane's",
            "snapshot, the turn, the target's blocks; a Responses source's translator",
            "too): about 90 bytes per 12-character delta. The lean relay keeps what the",
            "target must still write: nothing that grows for Chat, Messages and Gemini;",
            "for Responses, the text in runs of 64 deltas (its `.done` events and final",
            "response repeat it). See docs/gateways.md, \"Memory: the lean relay\".",
        ]
    )
    print(body)
    report.print_targets(targets)
    if write:
        path = report.update_section("relay_memory", body)
        print(f"wrote {path.relative_to(report.REPO_ROOT)} (relay_memory)")
    return 0 if all(ok for _, ok, _ in targets) else 1


if __name__ == "__main__":
    sys.exit(report.module_cli(__doc__, main))
