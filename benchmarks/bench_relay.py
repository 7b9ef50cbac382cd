"""The Relay: what serving one lane's stream as another's costs, next to reading it alone.

For each source lane, its corpus (``corpora.chat_completions``,
``corpora.responses``, ``corpora.messages``, ``bench_gemini.build_stream``:
text deltas between the lane's opening and closing events), built at about
10 KB and about 1 MB, is cut into the same ragged 40-700 B reads and run
through:

- the source lane alone: ``feed()`` per read, ``close()``;
- a :class:`~sse_engine.relay.Relay` to each of the four targets:
  ``feed()`` per read, ``close()``, the returned bytes joined (the lane, the
  parts layer and the target's emitter), by default and ``lean=True`` (what
  the gateway runs: the lane, the turn and the blocks keep no text).

Before timing, each relayed stream is read back by the target's own lane
(through a ``PartStream``), which must end with the source's outcome and the
same text. Timing as the other benchmarks (:mod:`benchmarks.timing`): samples
of k complete runs (k the same for every contender of a row: 1 at 1 MB, more
at 10 KB), CPU time, garbage collector off, best of N interleaved rounds,
every contender sampled once per round. Target: relaying costs at most 1.3x the
source lane alone, default and lean.

    python -m benchmarks.bench_relay [--quick] [--no-write]
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import bench_gemini, corpora, lanes, report
from benchmarks.timing import RULE, Contender, best_of
from sse_engine import ChatCompletionsLane, Lane, MessagesLane, ResponsesLane
from sse_engine.gemini import GeminiLane
from sse_engine.parts import PartStream
from sse_engine.relay import Relay

__all__ = ["SOURCES", "TARGET", "main", "per_stream_and_event"]

#: Relaying may cost at most this many times the source lane alone.
TARGET = 1.3
#: Corpus size in bytes (about) -> rounds, each contender once a round: full and quick.
FULL = {10_000: 9, 1_000_000: 9}
#: The name of a lean relay's contender: its default's, and this.
LEAN = ", lean"
QUICK = {10_000: 2, 100_000: 1}
TARGETS: tuple[str, ...] = ("chat", "responses", "messages", "gemini")
#: Source name -> (its lane, its corpus).
SOURCES: dict[str, tuple[type[Lane[Any]], Callable[[int], bytes]]] = {
    "chat": (ChatCompletionsLane, corpora.chat_completions),
    "responses": (ResponsesLane, corpora.responses),
    "messages": (MessagesLane, corpora.messages),
    "gemini": (GeminiLane, bench_gemini.build_stream),
}
_TARGET_LANES: dict[str, type[Lane[Any]]] = {name: lane for name, (lane, _) in SOURCES.items()}
Reads = list[bytes]


def lane_alone(lane: type[Lane[Any]]) -> Callable[[Reads], Any]:
    def run(reads: Reads) -> Any:
        source = lane()
        feed = source.feed
        for read in reads:
            feed(read)
        return source.close()

    return run


def relayed(lane: type[Lane[Any]], target: str, lean: bool = False) -> Callable[[Reads], bytes]:
    def run(reads: Reads) -> bytes:
        relay = Relay(lane(), to=target, created=1754000000, lean=lean)
        feed = relay.feed
        out = [feed(read) for read in reads]
        out.append(relay.close())
        return b"".join(out)

    return run


def per_stream_and_event(points: list[tuple[int, float]]) -> tuple[float, float]:
    """A cost measured at two stream lengths, ``(events, seconds)`` each (the smallest and
    the largest are used), split into a fixed part per stream and a part per event:
    ``(seconds per stream, seconds per event)``, the line through the two points."""
    (n1, t1), (n2, t2) = min(points), max(points)
    if n2 == n1:
        raise ValueError("two stream lengths are needed to split a cost")
    per_event = (t2 - t1) / (n2 - n1)
    return t1 - per_event * n1, per_event


def check(lane: type[Lane[Any]], target: str, reads: Reads) -> str | None:
    """None if the target's lane reads the relayed bytes as the source said, else why not."""
    source = PartStream(lane())
    for read in reads:
        source.feed(read)
    source.close()
    back = PartStream(_TARGET_LANES[target]())
    back.feed(relayed(lane, target)(reads))
    back.close()
    if back.outcome is not source.outcome:
        return f"outcome {back.outcome} instead of {source.outcome}"
    if back.turn.text != source.turn.text:
        return "the text differs"
    return None


def run(quick: bool = False, log: Callable[[str], None] = print) -> tuple[str, bool]:
    """Check, then time, every pairing at every size; the markdown section and whether all
    were met."""
    sizes = QUICK if quick else FULL
    load = report.load1()
    rows: list[list[str]] = []
    costs: list[tuple[str, float]] = []
    lean_costs: list[tuple[str, float]] = []
    problems: list[str] = []
    #: the pairing costing most at the largest size: (cost, what, its run, its reads)
    worst: tuple[float, str, Callable[[Reads], Any], Reads] | None = None
    #: side -> [(events, the relay's time over the lane's alone, the lane's time)], by size
    extras: dict[str, list[tuple[int, float, float]]] = {}
    for name, (lane, build) in SOURCES.items():
        for size, rounds in sizes.items():
            label = lanes.size_label(size)
            data = lanes.sized(build, size)
            reads = corpora.chunked(data, "ragged")
            n_events = data.count(b"\n\n") + data.count(b"\r\n\r\n")  # LF or CRLF frames
            alone_side = f"{name} lane alone"
            contenders: list[Contender[Reads]] = [(alone_side, lane_alone(lane))]
            for target in TARGETS:
                why = check(lane, target, reads)
                if why is not None:
                    problems.append(f"{name} to {target}, {label}: {why}")
                    log(f"  {name} to {target} {label}: MISMATCH, not timed: {why}")
                    continue
                contenders.append((f"{name} to {target}", relayed(lane, target)))
                contenders.append((f"{name} to {target}{LEAN}", relayed(lane, target, lean=True)))
            timed = best_of(contenders, reads, rounds)
            best = timed.seconds
            alone = best[alone_side]
            runners = dict(contenders)
            for side, seconds in best.items():
                if side.endswith(LEAN):
                    continue  # its own column, on its default's row
                cost = seconds / alone
                lean_cost = best[side + LEAN] / alone if side != alone_side else 1.0
                if side != alone_side:
                    extras.setdefault(side, []).append((n_events, seconds - alone, alone))
                    costs.append((f"{side} {label}", cost))
                    lean_costs.append((f"{side} {label}", lean_cost))
                    for what, value in ((side, cost), (side + LEAN, lean_cost)):
                        if size == max(sizes) and (worst is None or value > worst[0]):
                            worst = (value, f"{what}, {label}", runners[what], reads)
                rows.append([
                    name, label, side.removeprefix(f"{name} "), str(rounds), str(timed.calls),
                    f"{len(data) / seconds / 1e6:.1f}", f"{n_events / seconds:,.0f}",
                    f"{cost:.2f}{lanes.TIMES}", f"{lean_cost:.2f}{lanes.TIMES}",
                ])
                log(f"  {side:<22} {label:<6} {len(data) / seconds / 1e6:6.1f} MB/s"
                    f"  {cost:5.2f}x the lane, lean {lean_cost:5.2f}x")
    met = not problems and all(cost <= TARGET for _, cost in costs + lean_costs)
    load_text = "unknown" if load is None else f"{load:.2f}"
    lines = [
        "## Relay: one lane served as another",
        "",
        f"{report.stamp_line()} 1-minute load average at the start {load_text} on"
        f" {os.cpu_count() or 1} CPU(s).",
        "",
        "Each source lane's corpus (mostly text deltas; the lane benchmarks' for Chat,"
        " Responses and Messages, the Gemini benchmark's for Gemini), built at about "
        + " and ".join(lanes.size_label(size) for size in sizes)
        + ", in the same ragged 40-700 B reads: the source lane alone (`feed()` per read,"
        " `close()`), and a `Relay(lane, to=...)` to each target (`feed()` per read,"
        " `close()`, the bytes joined: the lane, the parts layer and the target's emitter)."
        " Checked before timing: the target's own lane reads the relayed bytes back with the"
        " source's outcome and text. Timing: best of the Rounds column's rounds, each"
        " contender sampled once per round, interleaved. " + RULE
        + " MB/s is 10⁶ bytes of *input* per second; the last columns are the time over the"
        " lane's alone, within one size, of the default relay and of `Relay(..., lean=True)`"
        " (a gateway's: the lane, the turn and the blocks keep no text), timed in the same"
        " rounds (MB/s and events/s are the default's).",
        "",
        report.markdown_table(
            ["Source", "Size", "Run", "Rounds", "k", "MB/s", "Events/s", "vs the lane alone",
             "lean, vs the lane alone"],
            rows, "lllrrrrrr",
        ),
        "",
        "### Target",
        "",
        f"- relaying costs at most {TARGET:g}{lanes.TIMES} the source lane alone, every"
        " pairing and size: "
        + ("met" if met else "**missed**")
        + " — default: "
        + ", ".join(f"{side} {cost:.2f}{lanes.TIMES}" for side, cost in costs)
        + "; lean: "
        + ", ".join(f"{side} {cost:.2f}{lanes.TIMES}" for side, cost in lean_costs),
        "",
    ]
    if len(sizes) > 1:
        lines += _split_section(extras, sizes)
    if worst is not None:
        _, what, runner, reads = worst
        lines += [
            "### Where the relay's time goes",
            "",
            f"cProfile of one run of the pairing costing most at the largest size ({what}),"
            " functions by own time (the source lane's own functions are in it too;"
            " cProfile's cost per call makes many small calls look heavier than the timed"
            " figures say):",
            "",
            report.profile_table(runner, reads),
            "",
        ]
    if problems:
        lines += ["### Mismatches (not timed)", "", *(f"- {p}" for p in problems), ""]
    return "\n".join(lines), met


def _split_section(
    extras: dict[str, list[tuple[int, float, float]]], sizes: dict[int, int]
) -> list[str]:
    """What the relay adds to its lane, split into a part per stream and a part per event."""
    small = lanes.size_label(min(sizes))
    rows = []
    for side, points in extras.items():
        fixed, per_event = per_stream_and_event([(n, extra) for n, extra, _ in points])
        lane_fixed, lane_per_event = per_stream_and_event([(n, t) for n, _, t in points])
        _, extra_small, _ = min(points)
        rows.append([
            side, f"{fixed * 1e6:,.0f}", f"{per_event * 1e6:.2f}",
            f"{lane_fixed * 1e6:,.0f}", f"{lane_per_event * 1e6:.2f}",
            f"{per_event / lane_per_event:.2f}{lanes.TIMES}",
            f"{min(1.0, max(0.0, fixed / extra_small)):.0%}" if extra_small > 0 else "n/a",
        ])
    return [
        "### Per stream and per event",
        "",
        "The default relay's time over its lane's, and the lane's own time, each split into"
        " a part paid once per stream and a part per event: the line through the"
        f" {small} and {lanes.size_label(max(sizes))} rows above"
        " (their events: the corpus's frames; the split inherits the rows' noise, so a"
        " small negative part is zero within it). The relay's part per event over the"
        " lane's is what decides a long stream's ratio; its part per stream (opening and"
        " closing frames, the emitter, blocks and parts set up, the target's bookkeeping"
        f" events) is what makes the {small} rows' ratios larger: the last column is its"
        f" share of the relay's extra time at {small}.",
        "",
        report.markdown_table(
            ["Pairing", "relay's extra µs per stream", "relay's extra µs per event",
             "lane µs per stream", "lane µs per event", "extra per event over the lane's",
             f"per-stream share at {small}"],
            rows, "lrrrrrr",
        ),
        "",
    ]


def main(write: bool = True, quick: bool = False) -> int:
    """Run, print the section, write it to docs/benchmarks.md if ``write``; 1 if missed."""
    print(f"relay benchmark ({'quick' if quick else 'full'})")
    text, ok = run(quick)
    print()
    print(text)
    if write:
        path = report.update_section("relay", text)
        print(f"wrote {path.relative_to(report.REPO_ROOT)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(report.module_cli(__doc__, main))
