"""SSEParser against the SSE decoders people use today, side by side in one run.

Rows, each fed as 64 KiB reads and as ragged 40-700 B reads:

- the three ~2,000-event corpora (Chat Completions, Responses, Messages) in
  four shapes: as built (LF), with an ``id: N`` line before every event (as
  the Kindo gateway and the Responses relay write them), with CRLF line
  endings, and with both;
- every bundled capture (``sse_engine/captures/*.sse``) repeated to ~512 KB:
  its own shape, comments, ``retry`` and multi-line data included.

Also one byte at a time (a 200-event prefix of each LF corpus, for every peer
alike) and one 1 MiB and one 8 MiB ``data:`` event in 1 KiB reads.

Every peer's ``(event, data, id)`` tuples are checked against
``corpora.expected_events`` (a literal reading of the spec's steps) before
it is timed. A peer that decodes a row differently is still timed (its speed
is the speed of the work it did) and marked; one that raises is not.

Timing (:mod:`benchmarks.timing`): a sample is k complete decodes (all reads,
then end of input) back to back, k the same for every peer of a row (1 where
a decode takes 20 ms, more on the 10 KB rows), CPU time, garbage collector
off during it; every peer runs the same number of rounds, interleaved round
by round; the best time per decode of each.

    python -m benchmarks.bench_parser [--quick] [--no-write] [--profile]
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import corpora, lanes, parser_bound, report
from benchmarks.peers import MISSING, PEERS, Peer
from benchmarks.timing import RULE, best_of

__all__ = ["Row", "build_rows", "main", "run"]

SECTION = "parser"
TIMES = "\u00d7"  # multiplication sign
OURS = "sse_engine"
#: sse_engine is to decode every stream row at least this many times as fast as the
#: fastest peer.
TARGET = 2.0


@dataclass
class Row:
    """One workload: bytes, how they are cut, and what they must decode to."""

    label: str
    shape: str
    reads: str
    data: bytes
    chunks: list[bytes]
    expected: list[tuple[str, str, str]]
    group: str  # "stream", "capture", "byte" or "single"
    rounds: int
    size: str = ""  # "10 KB", "1 MB": the size the stream or capture row was built for
    payload: int = 0  # for single-event rows: the payload size
    # filled in by run(): peer name -> best seconds per decode, or None when it raised
    best: dict[str, float | None] = field(default_factory=dict)
    #: filled in by run(): decodes per timed sample (k), the same for every peer
    calls: int = 0
    #: peer name -> how its events differ from the expected ones (it was timed anyway)
    notes: dict[str, str] = field(default_factory=dict)

    def mbps(self, name: str) -> float | None:
        t = self.best.get(name)
        return None if t is None else len(self.data) / t / 1e6

    def fastest_peer(self) -> tuple[str, float] | None:
        speeds = [
            (name, s)
            for name in self.best
            if name != OURS and (s := self.mbps(name)) is not None
        ]
        return max(speeds, key=lambda x: x[1]) if speeds else None

    def ratio(self) -> float | None:
        """sse_engine's speed over the fastest peer's."""
        fastest = self.fastest_peer()
        return _ratio(self.mbps(OURS), fastest[1] if fastest else None)


@dataclass(frozen=True)
class Settings:
    #: Stream and capture rows: size in bytes (about) -> rounds at that size.
    sizes: dict[int, int]
    byte_events: int
    single_sizes: tuple[int, int]
    byte_rounds: int
    single_rounds: int


FULL = Settings({10_000: 9, 1_000_000: 9}, 200, (1 << 20, 8 << 20), 7, 3)
QUICK = Settings({10_000: 2, 100_000: 1}, 40, (128 << 10, 1 << 20), 1, 1)

_READS = {"64k": "64 KiB", "ragged": "ragged 40-700 B", "byte": "1 byte", "1k": "1 KiB"}
_CORPUS_LABEL = {"chat": "Chat Completions", "responses": "Responses", "messages": "Messages"}


def _size_label(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def build_rows(s: Settings) -> list[Row]:
    """Every row: each corpus in each shape and each capture, in both reads, at each size
    (the sizes of one workload next to each other)."""
    rows = []
    for name, builder in corpora.CORPORA.items():
        # the LF corpus at each size; the other shapes add their bytes to it
        built = {size: lanes.sized(builder, size) for size in s.sizes}
        for shape, reshape in corpora.SHAPES.items():
            shaped = {size: reshape(data) for size, data in built.items()}
            by_size = {size: corpora.expected_events(data) for size, data in shaped.items()}
            for mode in ("64k", "ragged"):
                for size, rounds in s.sizes.items():
                    data = shaped[size]
                    rows.append(Row(
                        label=f"{_CORPUS_LABEL[name]} ({len(by_size[size]):,} events)",
                        shape=shape, reads=_READS[mode], data=data,
                        chunks=corpora.chunked(data, mode), expected=by_size[size],
                        group="stream", rounds=rounds, size=lanes.size_label(size),
                    ))
    for name in corpora.CAPTURES:
        repeated = {size: corpora.capture(name, size) for size in s.sizes}
        by_capture_size = {size: corpora.expected_events(data) for size, data in repeated.items()}
        for mode in ("64k", "ragged"):
            for size, rounds in s.sizes.items():
                data = repeated[size]
                rows.append(Row(
                    label=f"{name} ({len(by_capture_size[size]):,} events)", shape="capture",
                    reads=_READS[mode], data=data, chunks=corpora.chunked(data, mode),
                    expected=by_capture_size[size], group="capture", rounds=rounds,
                    size=lanes.size_label(size),
                ))
    for name, builder in corpora.CORPORA.items():
        data = corpora.prefix_events(builder(s.byte_events), s.byte_events)
        expected = corpora.expected_events(data)
        rows.append(Row(
            label=f"{_CORPUS_LABEL[name]} ({len(expected)} events)", shape="LF",
            reads=_READS["byte"], data=data, chunks=corpora.chunked(data, "byte"),
            expected=expected, group="byte", rounds=s.byte_rounds,
        ))
    for size in s.single_sizes:
        data = corpora.single_event(size)
        rows.append(Row(
            label=f"single {_size_label(size)} event", shape="LF", reads=_READS["1k"],
            data=data, chunks=corpora.chunked(data, "1k"), expected=corpora.expected_events(data),
            group="single", rounds=s.single_rounds, payload=size,
        ))
    return rows


def _describe_mismatch(got: list[tuple[str, str, str]], want: list[tuple[str, str, str]]) -> str:
    for i, (g, w) in enumerate(zip(got, want, strict=False)):
        if g != w:
            return f"event {i}: {g!r:.60} instead of {w!r:.60}"
    return f"{len(got)} events instead of {len(want)}"


def _check(peer: Peer, row: Row) -> tuple[bool, str | None]:
    """Whether the peer can be timed on the row, and how its events differ (None: they don't)."""
    try:
        got = peer.tuples(row.chunks)
    except Exception as exc:  # a peer crashing on valid input cannot be timed
        return False, f"raised {type(exc).__name__}: {exc}"
    return True, None if got == row.expected else _describe_mismatch(got, row.expected)


def run(rows: list[Row], peers: list[Peer], log: Callable[[str], None] = print) -> None:
    """Check then time every peer on every row: the same rounds for each, interleaved."""
    for row in rows:
        live = []
        for peer in peers:
            ok, why = _check(peer, row)
            if why is not None:
                row.notes[peer.name] = why
            if ok:
                live.append(peer)
            else:
                row.best[peer.name] = None
        if live:
            timed = best_of([(peer.name, peer.events) for peer in live], row.chunks, row.rounds)
            row.best.update(timed.seconds)
            row.calls = timed.calls
        ratio = row.ratio()
        log(f"  {row.label:<40} {row.size:<6} {row.shape:<15} {row.reads:<16} "
            + ", ".join(f"{p.name} {_fmt_speed(row, p.name, bold=False)}" for p in peers)
            + f" MB/s; {_fmt_ratio(ratio)} (k = {row.calls})")


def _fmt_speed(row: Row, name: str, bold: bool = True) -> str:
    m = row.mbps(name)
    if m is None:
        return "error"
    text = f"{m:.1f}" if m >= 10 else f"{m:.2f}"
    if name in row.notes:
        text += "†"
    fastest = row.fastest_peer()
    if bold and name != OURS and fastest and fastest[0] == name:
        text = f"**{text}**"
    return text


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def _fmt_ratio(r: float | None) -> str:
    return "—" if r is None else f"{r:.2f}{TIMES}"


def table(rows: list[Row], peers: list[Peer]) -> str:
    header = ["Workload", "Size", "Shape", "Reads", "Bytes", "k", *[p.name for p in peers],
              "Fastest peer", f"{OURS} ÷ fastest"]
    body = []
    for row in rows:
        fastest = row.fastest_peer()
        ratio = row.ratio()
        mark = _fmt_ratio(ratio)
        if row.group in ("stream", "capture") and ratio is not None and ratio < TARGET:
            mark = f"**{mark}**"
        body.append([
            row.label, row.size or "—", row.shape, row.reads, f"{len(row.data):,}",
            str(row.calls),
            *[_fmt_speed(row, p.name) for p in peers],
            fastest[0] if fastest else "—", mark,
        ])
    return report.markdown_table(header, body, "llllrr" + "r" * len(peers) + "lr")


def missed(rows: list[Row]) -> list[Row]:
    """The stream and capture rows below the target."""
    return [r for r in rows if r.group in ("stream", "capture")
            and ((x := r.ratio()) is None or x < TARGET)]


def targets(rows: list[Row], peers: list[Peer]) -> list[tuple[str, bool | None, str]]:
    """(target, met?, evidence) for each target of the parser."""
    out: list[tuple[str, bool | None, str]] = []
    for group, what in (("stream", "corpus"), ("capture", "capture")):
        sizes = dict.fromkeys(r.size for r in rows if r.group == group)
        for size, reads in ((size, reads) for size in sizes for reads in ("64k", "ragged")):
            these = [r for r in rows
                     if r.group == group and r.size == size and r.reads == _READS[reads]]
            if not these:
                continue
            ratios = [(r, r.ratio()) for r in these]
            worst = min(ratios, key=lambda rx: rx[1] if rx[1] is not None else -1.0)
            below = [r for r, x in ratios if x is None or x < TARGET]
            out.append((
                f"≥ {TARGET:g}{TIMES} the fastest peer on every {what} row, {size},"
                f" {_READS[reads]} reads",
                not below,
                f"{len(these) - len(below)} of {len(these)} rows; worst: {worst[0].label},"
                f" {worst[0].shape}: {_fmt_ratio(worst[1])}",
            ))
    byte = [r for r in rows if r.group == "byte"]
    if byte and any(p.name == "openai" for p in peers):
        vs_openai = [_ratio(r.mbps(OURS), r.mbps("openai")) for r in byte]
        out.append((
            f"one byte at a time: ≥ 1.5{TIMES} the openai SDK decoder",
            all(x is not None and x >= 1.5 for x in vs_openai),
            ", ".join(f"{r.label.split(' (')[0]} {_fmt_ratio(x)}"
                      for r, x in zip(byte, vs_openai, strict=True)),
        ))
    if byte:
        out.append((
            f"one byte at a time: ≥ 0.5{TIMES} the fastest peer",
            all((x := r.ratio()) is not None and x >= 0.5 for r in byte),
            ", ".join(f"{r.label.split(' (')[0]} {_fmt_ratio(r.ratio())} of"
                      f" {(r.fastest_peer() or ('—', 0))[0]}" for r in byte),
        ))
    single = [r for r in rows if r.group == "single"]
    if len(single) == 2:
        small, big = single
        t_small, t_big = small.best.get(OURS), big.best.get(OURS)
        growth = _ratio(t_big, t_small)
        out.append((
            f"the {_size_label(big.payload)} event costs ≤ 10{TIMES} the "
            f"{_size_label(small.payload)} one",
            growth is not None and growth <= 10,
            f"{_ms(t_big)} vs {_ms(t_small)}: {_fmt_ratio(growth)} "
            f"(bytes grow {len(big.data) / len(small.data):.0f}{TIMES})",
        ))
        peer_times = {n: t for n, t in big.best.items() if n != OURS and t is not None}
        best_peer = min(peer_times.items(), key=lambda kv: kv[1]) if peer_times else None
        out.append((
            f"the {_size_label(big.payload)} event costs less than with any peer",
            t_big is not None and best_peer is not None and t_big < best_peer[1],
            f"{OURS} {_ms(t_big)}; peers: "
            + ", ".join(f"{n} {_ms(t)}" for n, t in sorted(peer_times.items(), key=lambda x: x[1])),
        ))
    return out


def _ms(t: float | None) -> str:
    return "error" if t is None else f"{t * 1e3:.1f} ms"


def section(rows: list[Row], peers: list[Peer], settings: Settings, bound: str = "") -> str:
    lines = ["## Parser", ""]
    lines += report.machine_lines()
    sizes = " and ".join(lanes.size_label(size) for size in settings.sizes)
    rounds = ", ".join(f"{r} at {lanes.size_label(size)}" for size, r in settings.sizes.items())
    lines.append("- Peers: " + ", ".join(
        f"{p.name} {p.version}" for p in peers if p.name != OURS))
    if MISSING:
        lines.append("- Not installed (skipped): " + ", ".join(sorted(MISSING)))
    lines += [
        "",
        "How each peer is driven (no network, the bytes are in memory):",
        "",
        "- **sse_engine**: `SSEParser().feed(chunk)` for each read, then `close()`.",
        "- **openai** / **anthropic**: the SDK's own `SSEDecoder().iter_bytes(iter(chunks))`"
        " (`openai/_streaming.py`, `anthropic/_streaming.py`), as their `Stream` class"
        " drives it over `response.iter_bytes()`.",
        "- **httpx-sse**: what `EventSource.iter_sse()` does without the transport: httpx's"
        " incremental `TextDecoder` (as `response.iter_text()`), then"
        " `httpx_sse._decoders.SSELineDecoder` and `SSEDecoder`.",
        "- **sseclient-py**: `sseclient.SSEClient(iter(chunks)).events()`.",
        "",
        f"The rows, each built at about {sizes} (the size column; a ratio holds for its size):"
        " the three LLM-shaped corpora of `benchmarks/corpora.py` (fixed seeds) in"
        " four shapes each (as the APIs send them, LF only; with an `id: N` line before every"
        " event, as the Kindo gateway and the Responses relay write them; with CRLF line"
        " endings; with both; the size is the LF corpus's, the other shapes add their bytes),"
        " and every bundled capture repeated whole to the size (its own shape: comments, `retry`,"
        " multi-line data, ids), each in 64 KiB reads and in ragged 40-700 B reads; then"
        f" the first {settings.byte_events} events of each LF corpus one byte at a time,"
        " and single 1 MiB and 8 MiB events in 1 KiB reads.",
        "",
        "Method: each peer's `(event, data, id)` tuples are first checked against the events"
        " a literal line-by-line reading of the spec's steps gives (`corpora.expected_events`);"
        " a peer that decodes a row differently is timed all the same and its figure marked †"
        " (see *Mismatches*), one that raises reads `error`. Then each peer is timed, a call"
        f" being one complete decode (all reads, end of input). {RULE} Best of {rounds}"
        " rounds for the stream and capture rows"
        f" ({settings.byte_rounds} for one-byte rows, {settings.single_rounds} for single"
        " events), every peer the same number, interleaved round by round. MB/s is 10⁶ bytes"
        " of input per second; **bold** marks the fastest peer; the last column is"
        " sse_engine's speed divided by the fastest peer's (bold where it is under the"
        f" {TARGET:g}{TIMES} target).",
        "",
    ]
    stream = [r for r in rows if r.group == "stream"]
    capture = [r for r in rows if r.group == "capture"]
    other = [r for r in rows if r.group in ("byte", "single")]
    for title, these in (("LLM-shaped corpora", stream), ("Bundled captures", capture),
                         ("One byte at a time, and single large events", other)):
        if these:
            lines += [f"### {title}", "", table(these, peers), ""]
    lines += ["### Targets", ""]
    lines += report.target_lines(targets(rows, peers))
    if bound:
        lines += ["", bound]
    notes = [(r, n, why) for r in rows for n, why in r.notes.items()]
    if notes:
        lines += ["", "### Mismatches", "",
                  "Where a peer's events differ from the spec's (it was timed all the same,"
                  " except where it raised):", ""]
        seen: dict[tuple[str, str], list[str]] = {}
        for r, n, why in notes:
            seen.setdefault((r.label.split(" (")[0], n), []).append(f"{r.shape}, {r.reads}: {why}")
        lines += [f"- {label}, {n}: {whys[0]}" + (f" (and {len(whys) - 1} more rows)"
                                                  if len(whys) > 1 else "")
                  for (label, n), whys in seen.items()]
    return "\n".join(lines) + "\n"


def profile(rows: list[Row], top: int = 12) -> None:
    """cProfile sse_engine alone on each row and print the top functions by own time."""
    ours = next(p for p in PEERS if p.name == OURS)
    for row in rows:
        prof = cProfile.Profile()
        prof.enable()
        ours.events(row.chunks)
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(top)
        print(f"\n=== {row.label} / {row.shape} / {row.reads} ===")
        print("\n".join(buf.getvalue().splitlines()[:top + 12]))


def main(write: bool = True, quick: bool = False) -> int:
    settings = QUICK if quick else FULL
    print(f"parser benchmark ({'quick' if quick else 'full'}): building corpora")
    rows = build_rows(settings)
    if MISSING:
        print("  skipped (not installed): " + ", ".join(sorted(MISSING)))
    t0 = time.perf_counter()
    run(rows, PEERS)
    print(f"  timed in {time.perf_counter() - t0:.1f} s\n")
    report.print_targets(targets(rows, PEERS))
    if write:
        bound = parser_bound.section(missed(rows), quick)
        path = report.update_section(SECTION, section(rows, PEERS, settings, bound))
        print(f"\nwrote {path.relative_to(report.REPO_ROOT)}")
    return 0


def _cli(argv: list[str] | None = None) -> int:
    return report.module_cli(
        __doc__,
        main,
        lambda quick: profile(build_rows(QUICK if quick else FULL)),
        "sse_engine on every row",
        argv,
    )


if __name__ == "__main__":
    sys.exit(_cli())
