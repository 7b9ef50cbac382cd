"""The parts layer: what a PartStream costs on top of its lane, and live tool input end to end.

Three measurements, one section of ``docs/benchmarks.md``:

- **Overhead**: ``PartStream(lane)`` against the bare lane on the same bytes,
  on every corpus of the four lane benchmarks (``bench_chat``,
  ``bench_responses``, ``bench_messages``, ``bench_gemini``) at about 10 KB and about 1 MB, in
  the same ragged 40-700 B reads, with stdlib ``json`` and with ``orjson``.
  Both sides: ``feed()`` per read, then ``close()`` (the lane's final object
  is not built on either side, so the overhead is measured against the
  smallest denominator). Target: the parts cost at most 15% on top of the lane.
- **Live tool input, end to end**: a Messages stream whose ``tool_use``
  input (a ``write_file`` call, ``{"path": ..., "content": ...}``, about
  10 KB and about 1 MB of JSON) arrives in 40-character ``input_json_delta``
  fragments, one read per event. ``PartStream(MessagesLane())`` reading ``ToolCallDelta.input``
  (the partial input) after every event, against the anthropic SDK's
  ``MessageStream`` reading ``InputJsonEvent.snapshot`` after every event
  (the SDK re-parses the whole buffer with ``jiter`` on every fragment). Also
  shown: the bare lane and a ``PartStream`` whose input nobody reads (the
  price of the parts layer for a program that never looks). Target: at least
  20 times the SDK's speed at 1 MB (the 10 KB figure is shown beside it).
- **Tool input in every format**: the same call as each format writes it (a
  ``Relay`` from the Messages stream), one read per event: the format's lane
  alone, a ``PartStream`` over it whose input nobody reads, and one reading
  ``ToolCallDelta.input`` after every event; per event, and over the lane.
  Target: the parts (input not read) at most 15% on top of the lane.

Every contender, the SDK too, runs the same number of rounds, interleaved, and
every sample of a row has the same k calls (:mod:`benchmarks.timing`: k > 1 where
a call is short, so the 10 KB rows are not one sub-millisecond call each).

    python -m benchmarks.bench_parts [--quick] [--no-write]
"""

from __future__ import annotations

import functools
import json
import os
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import (
    bench_chat,
    bench_gemini,
    bench_messages,
    bench_responses,
    corpora,
    lanes,
    report,
)
from benchmarks.timing import RULE, Contender, best_of
from sse_engine import ChatCompletionsLane, Lane, MessagesLane, ResponsesLane
from sse_engine.gemini import GeminiLane
from sse_engine.parts import Finish, PartStream, ToolCallDelta
from sse_engine.relay import Relay

__all__ = ["FULL", "QUICK", "build_tool_stream", "main"]

SECTION = "parts"
TIMES = "\u00d7"
OVERHEAD_TARGET = 0.15  # the parts may cost this much on top of the lane
SPEEDUP_TARGET = 20.0  # live tool input end to end, against the SDK
FRAGMENT = 40  # characters of tool input per input_json_delta

Reads = list[bytes]


@dataclass(frozen=True)
class Settings:
    #: Overhead corpora: size in bytes (about) -> rounds; each side runs once a round.
    sizes: dict[int, int]
    #: Live tool input: bytes of tool input -> rounds, for every side, the SDK too.
    tool_inputs: dict[int, int]
    #: Tool input in every format (no SDK side): bytes of tool input -> rounds.
    fragment_inputs: dict[int, int]


FULL = Settings(sizes={10_000: 9, 1_000_000: 9}, tool_inputs={10_000: 9, 1_000_000: 3},
                fragment_inputs={10_000: 9, 1_000_000: 7})
QUICK = Settings(sizes={10_000: 2, 100_000: 1}, tool_inputs={10_000: 2, 50_000: 1},
                 fragment_inputs={10_000: 2, 50_000: 1})

# -- the overhead --------------------------------------------------------------------------


def _lane_run(lane_class: Callable[..., Lane[Any]], loads: Callable[[str], Any],
              reads: Reads) -> Any:
    lane = lane_class(json_loads=loads)
    feed = lane.feed
    for data in reads:
        feed(data)
    return lane.close()


def _parts_run(lane_class: Callable[..., Lane[Any]], loads: Callable[[str], Any],
               reads: Reads) -> Any:
    stream = PartStream(lane_class(json_loads=loads))
    feed = stream.feed
    for data in reads:
        feed(data)
    return stream.close()


def _check(lane_class: Callable[..., Lane[Any]], reads: Reads) -> str | None:
    """None if the PartStream ends like its lane, with one Finish, last; else why not."""
    stream = PartStream(lane_class())
    parts = [p for data in reads for p in stream.feed(data)] + stream.close()
    lane = lane_class()
    for data in reads:
        lane.feed(data)
    lane.close()
    finishes = [p for p in parts if isinstance(p, Finish)]
    if finishes != parts[-1:] or finishes[0].outcome is not lane.outcome:
        return "the parts do not end with one Finish carrying the lane's verdict"
    return None


#: (overhead, what, the parts run, its reads): a measured overhead and how to run it again.
Measured = tuple[float, str, Callable[[Reads], Any], Reads]


def _overhead(
    settings: Settings, log: Callable[[str], None],
) -> tuple[list[list[str]], list[Measured], list[str]]:
    rows: list[list[str]] = []
    overheads: list[Measured] = []
    problems: list[str] = []
    variants = lanes._json_variants()
    for module in (bench_chat, bench_responses, bench_messages, bench_gemini):
        bench = module.BENCHMARK
        for corpus, (build, _) in bench.corpora.items():
            for size, rounds in settings.sizes.items():
                data = lanes.sized(build, size)
                reads = corpora.chunked(data, "ragged")
                label = lanes.size_label(size)
                why = _check(bench.lane, reads)
                if why is not None:
                    problems.append(f"{bench.section} {corpus} {label}: {why}")
                    continue
                for name, loads in variants.items():
                    contenders: list[Contender[Reads]] = [
                        ("lane", functools.partial(_lane_run, bench.lane, loads)),
                        ("parts", functools.partial(_parts_run, bench.lane, loads)),
                    ]
                    timed = best_of(contenders, reads, rounds)
                    best = timed.seconds
                    overhead = best["parts"] / best["lane"] - 1
                    overheads.append((
                        overhead, f"`PartStream({bench.lane.__name__}(json_loads={name}))` over"
                        f" `{corpus}` at {label}", contenders[1][1], reads,
                    ))
                    n_events = data.count(b"\n\n") + data.count(b"\r\n\r\n")
                    lane_mb, parts_mb = (len(data) / best[side] / 1e6 for side in ("lane", "parts"))
                    rows.append([bench.lane.__name__, corpus, label, name, f"{n_events:,}",
                                 str(rounds), str(timed.calls), f"{lane_mb:.1f}",
                                 f"{parts_mb:.1f}",
                                 f"{overhead:+.0%}"])
                    log(f"  {bench.lane.__name__:<20} {corpus:<6} {label:<6} {name:<6} lane"
                        f" {lane_mb:5.1f} MB/s, parts {parts_mb:5.1f} MB/s: {overhead:+.0%}")
    return rows, overheads, problems


# -- live tool input, end to end -------------------------------------------------------------

_CODE = [
    'def handler(event, context):\n', '    """Handle one event."""\n',
    '    name = event.get("name", "world")\n', '\treturn f"Hello, {name}!"  # naïve\n',
    "    path = 'C:\\\\temp\\\\out.txt'\n", "    print('café — 日本語 🙂')\n", "\n",
]


def tool_input(size: int, seed: int = corpora.TEXT_SEED) -> dict[str, Any]:
    """A ``write_file`` input whose JSON text is about ``size`` bytes."""
    rng = random.Random(seed)
    lines: list[str] = []
    length = 0
    while length < size:  # bytes of UTF-8 JSON text, escapes included
        line = rng.choice(_CODE)
        lines.append(line)
        length += len(json.dumps(line, ensure_ascii=False).encode()) - 2
    return {"path": "src/app.py", "content": "".join(lines)}


def build_tool_stream(size: int) -> tuple[Reads, Any]:
    """The Messages stream of one ``write_file`` call, one read per event, and its input."""
    value = tool_input(size)
    text = json.dumps(value, ensure_ascii=False)

    def frame(payload: dict[str, Any]) -> bytes:
        data = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        return f"event: {payload['type']}\ndata: {data}\n\n".encode()

    reads = [
        frame({"type": "message_start", "message": {
            "id": "msg_01LiveToolInput", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": [], "stop_reason": None,
            "stop_sequence": None, "usage": {"input_tokens": 512, "output_tokens": 1}}}),
        frame({"type": "content_block_start", "index": 0, "content_block": {
            "type": "tool_use", "id": "toolu_01WriteFile", "name": "write_file", "input": {}}}),
    ]
    reads += [
        frame({"type": "content_block_delta", "index": 0,
               "delta": {"type": "input_json_delta", "partial_json": text[i : i + FRAGMENT]}})
        for i in range(0, len(text), FRAGMENT)
    ]
    reads += [
        frame({"type": "content_block_stop", "index": 0}),
        frame({"type": "message_delta", "delta": {"stop_reason": "tool_use",
                                                  "stop_sequence": None},
               "usage": {"output_tokens": len(text) // 4}}),
        frame({"type": "message_stop"}),
    ]
    return reads, value


def _ours_reading(reads: Reads) -> Any:
    stream = PartStream(MessagesLane())
    feed = stream.feed
    for data in reads:
        for part in feed(data):
            if type(part) is ToolCallDelta:
                part.input  # noqa: B018 - what a UI does after every event
    stream.close()
    return stream.turn.tool_calls[0].input


def _ours_not_reading(reads: Reads) -> Any:
    stream = PartStream(MessagesLane())
    feed = stream.feed
    for data in reads:
        feed(data)
    stream.close()
    return stream.turn.tool_calls[0].input


def _bare_lane(reads: Reads) -> Any:
    lane = MessagesLane()
    feed = lane.feed
    for data in reads:
        feed(data)
    lane.close()
    return lane.snapshot.content[0].input


def _sdk() -> Callable[[Reads], Any]:
    """``anthropic.Stream`` in ``MessageStream``, reading ``InputJsonEvent.snapshot``."""
    import anthropic
    from anthropic.lib.streaming import MessageStream
    from anthropic.types import RawMessageStreamEvent

    def run(reads: Reads) -> Any:
        raw = lanes.sdk_stream("anthropic", cast(Any, RawMessageStreamEvent), reads,
                               "/v1/messages")
        stream = MessageStream(raw, output_format=anthropic.NOT_GIVEN)
        for event in stream:
            if event.type == "input_json":
                event.snapshot  # noqa: B018 - the partial input, as a UI reads it
        return stream.get_final_message().content[0].input  # type: ignore[union-attr]

    return run


_SDK_SIDE = "anthropic MessageStream, InputJsonEvent.snapshot after every event"
_READING = "PartStream, ToolCallDelta.input after every event"


def _end_to_end(settings: Settings, log: Callable[[str], None]) -> tuple[
        list[list[str]], dict[int, float], list[str]]:
    """The rows of every tool input size, the speed-up over the SDK by size, the problems."""
    try:
        sdk: Callable[[Reads], Any] | None = _sdk()
    except ImportError as exc:  # pragma: no cover - the bench extra is not installed
        log(f"  anthropic is not installed ({exc}): no SDK row")
        sdk = None
    rows: list[list[str]] = []
    speedups: dict[int, float] = {}
    problems: list[str] = []
    for tool_size, rounds in settings.tool_inputs.items():
        reads, value = build_tool_stream(tool_size)
        size = sum(len(r) for r in reads)
        contenders: list[Contender[Reads]] = [
            ("MessagesLane alone (no partial input)", _bare_lane),
            ("PartStream, input never read", _ours_not_reading),
            (_READING, _ours_reading),
        ]
        problems += [f"{name}: wrong final input" for name, fn in contenders if fn(reads) != value]
        if sdk is not None:
            if sdk(reads) != value:
                problems.append("the SDK: wrong final input")
            else:
                contenders.append((_SDK_SIDE, sdk))
        timed = best_of(contenders, reads, rounds)
        best = timed.seconds
        sdk_time = best.get(_SDK_SIDE)
        text = json.dumps(value, ensure_ascii=False)
        label = (f"{lanes.size_label(tool_size)}: {len(text.encode()):,} bytes of tool input in"
                 f" {len(reads):,} events, {size:,} bytes in all")
        for name, seconds in best.items():
            ratio = "—" if sdk_time is None else f"{sdk_time / seconds:,.1f}{TIMES}"
            rows.append([label, name, str(rounds), str(timed.calls), _duration(seconds),
                         f"{size / seconds / 1e6:.2f}", ratio])
            log(f"  {lanes.size_label(tool_size):<6} {name:<70} {_duration(seconds):>9}"
                f"  {size / seconds / 1e6:7.2f} MB/s")
        if sdk_time is not None:
            speedups[tool_size] = sdk_time / best[_READING]
    return rows, speedups, problems


# -- tool input in every format: what the parts layer costs per fragment ---------------------

#: Format name -> its lane, for the per-fragment rows.
_FORMAT_LANES: dict[str, Callable[..., Lane[Any]]] = {
    "chat": ChatCompletionsLane, "responses": ResponsesLane, "messages": MessagesLane,
    "gemini": GeminiLane,
}


def tool_stream_as(target: str, size: int) -> tuple[Reads, Any]:
    """The ``write_file`` stream of :func:`build_tool_stream` as ``target`` writes it (a
    ``Relay`` from Messages), one read per event, and the call's input."""
    reads, value = build_tool_stream(size)
    relay = Relay(MessagesLane(), to=target, created=1754000000)
    data = b"".join(relay.feed(read) for read in reads) + relay.close()
    blank = b"\r\n\r\n" if b"\r\n\r\n" in data else b"\n\n"
    return [event + blank for event in data.split(blank)[:-1]], value


def _parts_input(lane_class: Callable[..., Lane[Any]], read_input: bool, reads: Reads) -> Any:
    stream = PartStream(lane_class())
    feed = stream.feed
    for data in reads:
        for part in feed(data):
            if read_input and type(part) is ToolCallDelta:
                part.input  # noqa: B018 - what a UI does after every event
    stream.close()
    return stream.turn.tool_calls[0].input


def _per_fragment(settings: Settings, log: Callable[[str], None]) -> tuple[
        list[list[str]], list[tuple[str, float]], list[str]]:
    """Per format and tool input size: the lane alone, the parts without and with reading the
    input; the rows, each (label, overhead of the parts not reading), the problems."""
    rows: list[list[str]] = []
    overheads: list[tuple[str, float]] = []
    problems: list[str] = []
    for target, lane_class in _FORMAT_LANES.items():
        for tool_size, rounds in settings.fragment_inputs.items():
            reads, value = tool_stream_as(target, tool_size)
            label = lanes.size_label(tool_size)
            sides: list[Contender[Reads]] = [
                ("lane", functools.partial(_lane_run, lane_class, json.loads)),
                ("parts", functools.partial(_parts_input, lane_class, False)),
                ("parts, input read", functools.partial(_parts_input, lane_class, True)),
            ]
            if any(fn(reads) != value for name, fn in sides[1:]):
                problems.append(f"{target} {label}: the parts' final input is not the input")
                continue
            timed = best_of(sides, reads, rounds)
            best = timed.seconds
            lane_time = best["lane"]
            overhead = best["parts"] / lane_time - 1
            overheads.append((f"{target} {label}", overhead))
            rows.append([
                target, label, f"{len(reads):,}", str(rounds), str(timed.calls),
                *(f"{seconds / len(reads) * 1e6:.2f}" for seconds in best.values()),
                f"{overhead:+.0%}", f"{best['parts, input read'] / lane_time - 1:+.0%}",
            ])
            log(f"  {target:<10} {label:<6} {len(reads):>6} events: lane"
                f" {lane_time / len(reads) * 1e6:.2f} us/event, parts {overhead:+.0%},"
                f" reading {best['parts, input read'] / lane_time - 1:+.0%}")
    return rows, overheads, problems


def _duration(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds >= 1 else f"{seconds * 1000:.1f} ms"


# -- the section ----------------------------------------------------------------------------


def run(quick: bool = False, log: Callable[[str], None] = print) -> tuple[str, bool]:
    settings = QUICK if quick else FULL
    load = report.load1()
    overhead_rows, overheads, problems = _overhead(settings, log)
    e2e_rows, speedups, e2e_problems = _end_to_end(settings, log)
    problems += e2e_problems
    fragment_rows, fragment_overheads, fragment_problems = _per_fragment(settings, log)
    problems += fragment_problems
    load_text = "unknown" if load is None else f"{load:.2f}"
    worst_case = max(overheads, key=lambda m: m[0]) if overheads else None
    worst = worst_case[0] if worst_case else None
    lines = [
        "## Parts: PartStream over each lane, and live tool input",
        "",
        f"{report.stamp_line()} 1-minute load average at the start {load_text} on"
        f" {os.cpu_count() or 1} CPU(s).",
        "",
        "### What the parts cost on top of the lane",
        "",
        "The corpora of the four lane benchmarks above, at about "
        + " and ".join(lanes.size_label(size) for size in settings.sizes) + ", in the same"
        " ragged 40-700 B reads. **lane**: `Lane(json_loads=...)`, `feed()` per read,"
        " `close()`. **parts**: `PartStream(Lane(json_loads=...))`, the same. Neither side"
        " builds the final object, so the overhead is measured against the bare lane's"
        " smallest time. Checked first: the parts end with one `Finish` carrying the lane's"
        " verdict. Best of the Rounds column's interleaved rounds, each side sampled once"
        " per round. " + RULE,
        "",
        report.markdown_table(
            ["Lane", "Corpus", "Size", "JSON", "Events", "Rounds", "k", "lane MB/s",
             "parts MB/s", "overhead"],
            overhead_rows, "llllrrrrrr"),
        "",
        "### Live tool input, end to end",
        "",
        "A Messages stream with one `write_file` `tool_use` block whose input"
        f" (`{{\"path\": ..., \"content\": ...}}`) streams in {FRAGMENT}-character"
        " `input_json_delta` fragments, one read per event; every side must end with the"
        " complete input. The SDK re-parses the whole input buffer with `jiter` on every"
        " fragment (whether or not the snapshot is read); `PartStream` parses each character"
        " once, and only when the input is read: the difference between its two rows is what"
        " reading the partial input costs, and what a program that never reads it saves (an"
        " eager parse would cost every program the larger figure). The last column is the"
        " SDK's time divided by the row's, within one size. Every side, the SDK too, runs"
        " the Rounds column's rounds, interleaved, each sample k calls (the k column, the"
        " same for every side of a size; the rule as above); Time is per call.",
        "",
        report.markdown_table(["Input", "Side", "Rounds", "k", "Time", "MB/s", "vs the SDK"],
                              e2e_rows, "llrrrrr"),
        "",
        "### Tool input in every format: the parts' cost per fragment",
        "",
        "The same `write_file` call as above, written by each format (a `Relay` from the"
        " Messages stream: Chat, Responses and Messages stream the input in"
        f" {FRAGMENT}-character fragments, one event each; Gemini sends a call whole, in one"
        " chunk), one read per event. **lane**: the format's lane alone, `feed()` per read,"
        " `close()`; **parts**: a `PartStream` over it, the input never read; **parts, input"
        " read**: `ToolCallDelta.input` read after every event. Time per event (µs), and"
        " each parts side's cost over the lane alone, within one size; every side runs the"
        " Rounds column's rounds, interleaved, each sample k calls (the k column, the same"
        " for every side of a row; the rule as above). Checked first: both parts sides end with the"
        " call's whole input.",
        "",
        report.markdown_table(
            ["Format", "Input", "Events", "Rounds", "k", "lane µs/event", "parts µs/event",
             "parts, input read µs/event", "parts over the lane", "reading over the lane"],
            fragment_rows, "llrrrrrrrr"),
        "",
        "### Targets",
        "",
    ]
    if worst is not None:
        met = all(o <= OVERHEAD_TARGET for o, *_ in overheads)
        lines.append(f"- parts at most {OVERHEAD_TARGET:.0%} on top of the lane, every lane,"
                     f" corpus, size and JSON decoder: {'met' if met else '**missed**'} —"
                     f" worst {worst:+.0%}")
    if fragment_overheads:
        met = all(o <= OVERHEAD_TARGET for _, o in fragment_overheads)
        lines.append(
            f"- tool input: the parts (input not read) at most {OVERHEAD_TARGET:.0%} on top of"
            f" the lane, every format and input size: {'met' if met else '**missed**'} — "
            + ", ".join(f"{label} {o:+.0%}" for label, o in fragment_overheads))
    if speedups:
        big = max(speedups)
        verdict = "met" if speedups[big] >= SPEEDUP_TARGET else "**missed**"
        lines.append(
            f"- live tool input at least {SPEEDUP_TARGET:g}{TIMES} the anthropic SDK at"
            f" {lanes.size_label(big)}: {verdict} — "
            + ", ".join(f"{lanes.size_label(k)} {v:,.1f}{TIMES}"
                        for k, v in sorted(speedups.items())))
    lines.append("")
    if worst_case is not None:
        _, what, runner, reads = worst_case
        lines += [
            "### Where the parts' time goes",
            "",
            f"cProfile of one run of the row with the largest overhead, {what}, functions by"
            " own time (the lane's own functions are in it too; cProfile's cost per call makes"
            " many small calls look heavier than the timed figures say):",
            "",
            report.profile_table(runner, reads),
            "",
        ]
    if problems:
        lines += ["### Problems (not timed)", "", *(f"- {p}" for p in problems), ""]
    return "\n".join(lines), not problems


def main(write: bool = True, quick: bool = False) -> int:
    """Run, print the section, write it to docs/benchmarks.md if ``write``; 1 on a problem."""
    print(f"parts benchmark ({'quick' if quick else 'full'})")
    text, ok = run(quick)
    print()
    print(text)
    if write:
        path = report.update_section(SECTION, text)
        print(f"wrote {path.relative_to(report.REPO_ROOT)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(report.module_cli(__doc__, main))
