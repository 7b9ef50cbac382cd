"""SSEParser against the SSE decoders people use today, side by side in one run.

Rows: three ~2,000-event corpora (Chat Completions, Responses, Messages) fed as
64 KiB reads, as ragged 40-700 B reads and one byte at a time (a 200-event
prefix, for every peer alike), plus one 1 MiB and one 8 MiB ``data:`` event fed
in 1 KiB reads. Every peer's ``(event, data, id)`` tuples are checked against
the corpus's expected events before it is timed; a peer that differs is
reported as ``mismatch`` on that row and not timed.

Timing: ``time.perf_counter`` around one complete decode (all chunks, then end
of input), garbage collector disabled during the timed call, best of N rounds;
peers are interleaved round by round so drift in machine speed hits all alike.

    python -m benchmarks.bench_parser [--quick] [--no-write] [--profile]
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import corpora, report
from benchmarks.peers import MISSING, PEERS, Peer
from benchmarks.timing import gc_frozen, time_once

__all__ = ["Row", "build_rows", "main", "run"]

SECTION = "parser"
SLOW_CUTOFF = 10
TIMES = "\u00d7"  # multiplication sign
OURS = "sse_engine"


@dataclass
class Row:
    """One workload: bytes, how they are cut, and what they must decode to."""

    label: str
    reads: str
    data: bytes
    chunks: list[bytes]
    expected: list[tuple[str, str, str]]
    group: str  # "stream", "byte" or "single"
    repeats: int
    budget: float  # seconds of timing per row, across all peers
    payload: int = 0  # for single-event rows: the payload size
    # filled in by run(): peer name -> best seconds, or None for a mismatch
    best: dict[str, float | None] = field(default_factory=dict)
    rounds: dict[str, int] = field(default_factory=dict)
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


@dataclass(frozen=True)
class Settings:
    n_events: int
    byte_events: int
    single_sizes: tuple[int, int]
    repeats: int
    byte_repeats: int
    single_repeats: int
    budget: float
    single_budget: float


FULL = Settings(2000, 200, (1 << 20, 8 << 20), 40, 12, 9, 6.0, 15.0)
QUICK = Settings(300, 40, (128 << 10, 1 << 20), 2, 1, 1, 0.5, 2.0)

_READS = {"64k": "64 KiB", "ragged": "ragged 40-700 B", "byte": "1 byte", "1k": "1 KiB"}
_CORPUS_LABEL = {"chat": "Chat Completions", "responses": "Responses", "messages": "Messages"}


def _size_label(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def build_rows(s: Settings) -> list[Row]:
    rows = []
    for name, builder in corpora.CORPORA.items():
        full = builder(s.n_events)
        for mode in ("64k", "ragged", "byte"):
            data = corpora.prefix_events(full, s.byte_events) if mode == "byte" else full
            n = data.count(b"\n\n")
            rows.append(Row(
                label=f"{_CORPUS_LABEL[name]} ({n} events)",
                reads=_READS[mode],
                data=data,
                chunks=corpora.chunked(data, mode),
                expected=corpora.expected_events(data),
                group="byte" if mode == "byte" else "stream",
                repeats=s.byte_repeats if mode == "byte" else s.repeats,
                budget=s.budget,
            ))
    for size in s.single_sizes:
        data = corpora.single_event(size)
        rows.append(Row(
            label=f"single {_size_label(size)} event",
            reads=_READS["1k"],
            data=data,
            chunks=corpora.chunked(data, "1k"),
            expected=corpora.expected_events(data),
            group="single",
            repeats=s.single_repeats,
            budget=s.single_budget,
            payload=size,
        ))
    return rows


def _describe_mismatch(got: list[tuple[str, str, str]], want: list[tuple[str, str, str]]) -> str:
    if len(got) != len(want):
        return f"{len(got)} events instead of {len(want)}"
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if g != w:
            return f"event {i}: {g!r:.60} instead of {w!r:.60}"
    return "differs"  # pragma: no cover


def _check(peer: Peer, row: Row) -> str | None:
    """None if the peer decodes the row exactly, else why not."""
    try:
        got = peer.tuples(row.chunks)
    except Exception as exc:  # a peer crashing on valid input is a mismatch too
        return f"raised {type(exc).__name__}: {exc}"
    return None if got == row.expected else _describe_mismatch(got, row.expected)


def run(rows: list[Row], peers: list[Peer], log: Callable[[str], None] = print) -> None:
    """Check then time every peer on every row (rounds interleave peers)."""
    with gc_frozen():
        _run(rows, peers, log)


def _run(rows: list[Row], peers: list[Peer], log: Callable[[str], None]) -> None:
    for row in rows:
        live = []
        for peer in peers:
            why = _check(peer, row)
            if why is None:
                live.append(peer)
                row.rounds[peer.name] = 0
            else:
                row.best[peer.name] = None
                row.notes[peer.name] = why
        best = {peer.name: float("inf") for peer in live}
        deadline = time.perf_counter() + row.budget
        for _ in range(row.repeats):
            for peer in live:
                best[peer.name] = min(best[peer.name], time_once(peer.events, row.chunks))
                row.rounds[peer.name] += 1
            if time.perf_counter() > deadline:
                break
            # A peer over SLOW_CUTOFF times slower than the fastest is out of
            # contention: one round gives its figure, more would only eat budget.
            fastest = min(best.values())
            live = [p for p in live if best[p.name] <= SLOW_CUTOFF * fastest]
        row.best.update(best)
        speeds = ", ".join(
            f"{p.name} {m:.1f}" if (m := row.mbps(p.name)) is not None else f"{p.name} mismatch"
            for p in peers
        )
        log(f"  {row.label:<32} {row.reads:<16} {speeds} MB/s")


def _fmt_speed(row: Row, name: str) -> str:
    m = row.mbps(name)
    if m is None:
        return "mismatch"
    text = f"{m:.1f}" if m >= 10 else f"{m:.2f}"
    fastest = row.fastest_peer()
    if name != OURS and fastest and fastest[0] == name:
        text = f"**{text}**"
    return text


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def _fmt_ratio(r: float | None) -> str:
    return "—" if r is None else f"{r:.2f}{TIMES}"


def table(rows: list[Row], peers: list[Peer]) -> str:
    header = ["Workload", "Reads", "Bytes", *[p.name for p in peers], "Fastest peer",
              f"{OURS} ÷ fastest"]
    body = []
    for row in rows:
        fastest = row.fastest_peer()
        body.append([
            row.label,
            row.reads,
            f"{len(row.data):,}",
            *[_fmt_speed(row, p.name) for p in peers],
            fastest[0] if fastest else "—",
            _fmt_ratio(_ratio(row.mbps(OURS), fastest[1] if fastest else None)),
        ])
    return report.markdown_table(header, body, "llr" + "r" * len(peers) + "lr")


def targets(rows: list[Row], peers: list[Peer]) -> list[tuple[str, bool | None, str]]:
    """(target, met?, evidence) for each target of the parser."""
    out: list[tuple[str, bool | None, str]] = []
    stream = [r for r in rows if r.group == "stream"]
    ratios = []
    for r in stream:
        f = r.fastest_peer()
        ratios.append((r, _ratio(r.mbps(OURS), f[1] if f else None)))
    ok = all(x is not None and x >= 1.5 for _, x in ratios)
    worst = min(ratios, key=lambda rx: rx[1] if rx[1] is not None else -1.0)
    out.append((
        f"≥ 1.5{TIMES} the fastest peer on every corpus {TIMES} (64 KiB, ragged) row",
        ok,
        f"worst row: {worst[0].label}, {worst[0].reads}: {_fmt_ratio(worst[1])}; all: "
        + ", ".join(f"{_fmt_ratio(x)}" for _, x in ratios),
    ))
    byte = [r for r in rows if r.group == "byte"]
    if any(p.name == "openai" for p in peers):
        vs_openai = [_ratio(r.mbps(OURS), r.mbps("openai")) for r in byte]
        out.append((
            f"one byte at a time: ≥ 1.5{TIMES} the openai SDK decoder",
            all(x is not None and x >= 1.5 for x in vs_openai),
            ", ".join(f"{r.label.split(' (')[0]} {_fmt_ratio(x)}"
                      for r, x in zip(byte, vs_openai, strict=True)),
        ))
    vs_fastest = []
    for r in byte:
        f = r.fastest_peer()
        vs_fastest.append((r, _ratio(r.mbps(OURS), f[1] if f else None), f))
    out.append((
        f"one byte at a time: ≥ 0.5{TIMES} the fastest peer",
        all(x is not None and x >= 0.5 for _, x, _ in vs_fastest),
        ", ".join(f"{r.label.split(' (')[0]} {_fmt_ratio(x)} of {f[0] if f else '—'}"
                  for r, x, f in vs_fastest),
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
    return "mismatch" if t is None else f"{t * 1e3:.1f} ms"


def section(
    rows: list[Row], peers: list[Peer], settings: Settings, load: float | None = None
) -> str:
    lines = ["## Parser", ""]
    lines += report.machine_lines()
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
        "Method: each peer's `(event, data, id)` tuples are first checked against the"
        " events the corpus was built from (a peer that differs would read `mismatch`"
        " and not be timed); then one complete decode (all reads, end of input) is timed"
        " with `time.perf_counter`, garbage collector off during the timed call, best of"
        f" up to {settings.repeats} rounds ({settings.byte_repeats} for one-byte rows,"
        f" {settings.single_repeats} for single events, fewer if a row's time budget runs"
        " out), peers interleaved round by round. MB/s is 10⁶ bytes of input per second;"
        " **bold** marks the fastest peer; the last column is sse_engine's speed divided"
        " by the fastest peer's. Corpora are built by `benchmarks/corpora.py`"
        f" (fixed seeds); the one-byte rows use the first {settings.byte_events} events"
        " of each corpus, for every peer alike.",
        "",
    ]
    short = [
        f"{r.label.split(' (')[0]} / {r.reads}: "
        + ", ".join(f"{n} {k}" for n, k in r.rounds.items() if k < r.repeats)
        for r in rows
        if any(k < r.repeats for k in r.rounds.values())
    ]
    if short:
        lines += [
            "Fewer rounds than planned (the row's time budget ran out, or the peer was"
            f" over {SLOW_CUTOFF}{TIMES} slower than the fastest after a round): "
            + "; ".join(short) + ".",
            "",
        ]
    cpus = os.cpu_count() or 1
    if load is not None and load >= 0.5 * cpus:
        lines += [
            f"Caveat: the machine was shared while this ran (1-minute load average"
            f" {load:.2f} at the start, on {cpus} CPU(s)). Best-of-N and"
            " interleaving absorb most of it, but absolute figures moved by up to"
            " ±20-30% between runs here; ratios within one run are steadier.",
            "",
        ]
    lines += [
        table(rows, peers),
        "",
        "### Targets",
        "",
    ]
    lines += report.target_lines(targets(rows, peers))
    notes = [(r, n, why) for r in rows for n, why in r.notes.items()]
    if notes:
        lines += ["", "### Mismatches", ""]
        lines += [f"- {r.label}, {r.reads}, {n}: {why}" for r, n, why in notes]
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
        print(f"\n=== {row.label} / {row.reads} ===")
        print("\n".join(buf.getvalue().splitlines()[:top + 12]))


def main(write: bool = True, quick: bool = False) -> int:
    settings = QUICK if quick else FULL
    print(f"parser benchmark ({'quick' if quick else 'full'}): building corpora")
    rows = build_rows(settings)
    if MISSING:
        print("  skipped (not installed): " + ", ".join(sorted(MISSING)))
    load = report.load1()
    t0 = time.perf_counter()
    run(rows, PEERS)
    print(f"  timed in {time.perf_counter() - t0:.1f} s\n")
    print(table(rows, PEERS))
    print()
    report.print_targets(targets(rows, PEERS))
    if write:
        path = report.update_section(SECTION, section(rows, PEERS, settings, load))
        print(f"\nwrote {path.relative_to(report.REPO_ROOT)}")
    return 0


def _cli(argv: list[str] | None = None) -> int:
    return report.module_cli(
        (__doc__ or "").splitlines()[0],
        main,
        lambda quick: profile(build_rows(QUICK if quick else FULL)),
        "sse_engine on every row",
        argv,
    )


if __name__ == "__main__":
    sys.exit(_cli())
