"""Run every benchmark module and write the docs: ``python -m benchmarks.run [--quick]``.

Each module listed in :data:`MODULES` has ``main(write: bool = True,
quick: bool = False) -> int``; it writes its own section of
``docs/benchmarks.md`` (see :mod:`benchmarks.report`) and, for the peer
correctness table, its own page. After a run that covered every module, the
intro at the top of ``docs/benchmarks.md`` (what is measured, where, when, how
long it took) is rewritten too. To add a lane benchmark, write
``benchmarks/bench_<name>.py`` as a :class:`benchmarks.lanes.LaneBenchmark`
and append its module name here (and its section name to
``report.SECTION_ORDER``).

``--quick`` is a smoke run: small inputs, one or two rounds, and nothing is
written unless ``--write`` is also given. ``--only NAME`` runs the modules
whose name contains NAME; ``--skip NAME`` leaves them out (the gateway soak
takes most of a full run), and the intro then names the sections that keep
an older stamp.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # `python benchmarks/run.py`: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import report, timing

__all__ = ["MODULES", "intro", "main"]

#: Benchmark modules, run in this order.
MODULES: list[str] = [
    "benchmarks.peer_correctness",
    "benchmarks.bench_parser",
    "benchmarks.bench_parser_baseline",
    "benchmarks.bench_chat",
    "benchmarks.bench_responses",
    "benchmarks.bench_messages",
    "benchmarks.bench_gemini",
    "benchmarks.bench_parts",
    "benchmarks.bench_relay",
    "benchmarks.bench_relay_memory",
    "benchmarks.bench_conversation",
    "benchmarks.bench_memory",
    "benchmarks.bench_partial_json",
    "benchmarks.bench_gateway",  # last: the soak alone takes about 40 minutes
]


def _virtual() -> bool:
    """Whether the CPU says it runs under a hypervisor (Linux only)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            return any(line.startswith("flags") and " hypervisor" in line for line in fh)
    except OSError:
        return False


def intro(seconds: float, quick: bool) -> str:
    """The top section of docs/benchmarks.md: what, where, when, how to reproduce."""
    kind = "a `--quick` smoke run" if quick else "the full run"
    vm = " (a virtual machine)" if _virtual() else ""
    others = {name: mark for name, mark in report.stamps().items()
              if name != "intro" and mark != report.stamp()}
    one_run = (
        "Every section below was measured in this one run, on this revision."
        if not others else
        "**Not every section below comes from this run**: "
        + "; ".join(f"`{name}` ({mark})" for name, mark in others.items()) + "."
    )
    return f"""\
What is measured:

- **Parser**: `SSEParser` alone against the SSE decoders people use today (the
  openai and anthropic SDKs' own, httpx-sse, sseclient-py) on the same bytes:
  three LLM-shaped corpora in four shapes each (LF only, an `id:` line before
  every event, CRLF line endings, both) and every bundled capture, each at
  about 10 KB and about 1 MB, in 64 KiB and ragged 40-700 B reads; one-byte
  reads; single 1 MiB and 8 MiB events.
  Throughput in MB/s and the ratio to the fastest peer (the target: at least
  2\u00d7 on every corpus and capture row, or what bounds a row that misses).
- **Parser against its baseline**: today's parser against the parser of an
  earlier revision, loaded from git, on the same reads in one process: the
  peer ratios move with the machine and the peers, this one only with us.
- **Parser correctness**: the spec's corner cases through the parser and every peer.
- **Lanes**: the Chat Completions, Responses, Messages and Gemini lanes end to
  end (SSE parsing, JSON, typed events, snapshot, final object) against the
  official SDK's streaming path on the same ragged reads (google-genai's own
  stream reading for Gemini), at about 10 KB and about 1 MB, with stdlib `json`
  and with `orjson`, beside the *parse+json floor* (`SSEParser` and one
  `loads` per JSON payload, nothing else). Throughput, the ratio to the SDK
  (the target: at least 10\u00d7) and the lane's share of the floor's speed
  (the target: at least 0.75).
- **Parts**: what a `PartStream` costs on top of its lane on the lanes'
  corpora at both sizes (the target is at most 15%); live tool input end to
  end: a Messages stream with a 10 KB and a 1 MB `write_file` input, its
  partial value read after every event, against the anthropic SDK's
  `MessageStream` (the target is at least 20\u00d7 at 1 MB); and the same
  call in every format, the parts' cost per fragment over the lane (the
  target is at most 15%).
- **Relay**: relayed MB/s for each of the sixteen pairings, at both sizes,
  next to the source lane alone; the target is at most 1.3\u00d7 the source
  lane's time.
- **Idle lane memory**: what one lane costs before any byte arrives
  (`tracemalloc`); the target is at most 2 KB.
- **Partial JSON**: `PartialJSON` alone on 10 KB to 1 MB tool inputs in
  40-character fragments, `value` read after each, against the SDKs' way
  (jiter re-parsing the whole buffer per fragment); the targets are linear
  growth and at least 20\u00d7 the re-parse at 1 MB.
- **Gateway soak**: the HTTP stack for the gateway, chosen by a loopback
  soak (a fake Messages upstream, then on each stack a pass-through proxy
  and a relay serving it as Chat Completions, each in its own process, for
  100 and 1,000 concurrent streams): gateway CPU per 1,000 events, memory
  per stream, added latency, errors and lost text. The targets: at most
  64 KB per stream at N = 1,000, relay CPU per event at most 1.5\u00d7 the
  proxy's, nothing lost. It takes about 40 minutes of the full run
  (`python -m benchmarks.bench_gateway` runs it alone; install `.[soak]`
  for every stack).

Where and when: {report.stamp()}{vm}. {one_run} The runtime of {kind} of
`python -m benchmarks.run`: {seconds / 60:.1f} min ({seconds:.0f} s).

Reproduce, from the repository root:

```
python -m pip install -e '.[bench,soak]' && python -m benchmarks.run
```

`--quick` is a smoke run that writes nothing; `--only NAME` runs the modules
whose name contains NAME (and leaves the other sections, with their own
stamps, as they were).

The figures are ratios measured side by side in one run: every contender gets
the same bytes cut into the same reads and the same number of timed samples,
the contenders take turns round by round (A, B, A, B, ...), and each keeps its
best time per call; a ratio is taken between two figures of one run and one
size. {timing.RULE} The machine is a noisy shared one, so absolute MB/s move
by 20-30% (more under load: each section gives the load average) between runs;
compare the ratios, and not the absolute figures across machines.
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Run the sse_engine benchmarks.")
    ap.add_argument("--quick", action="store_true",
                    help="fast smoke run (small inputs; does not write docs unless --write)")
    ap.add_argument("--write", action="store_true", help="write docs even with --quick")
    ap.add_argument("--no-write", action="store_true", help="never write docs")
    ap.add_argument("--only", metavar="NAME", help="run only modules whose name contains NAME")
    ap.add_argument("--skip", metavar="NAME", action="append", default=[],
                    help="leave out modules whose name contains NAME (their sections keep "
                         "their own stamps; repeatable)")
    args = ap.parse_args(argv)
    write = not args.no_write and (args.write or not args.quick)

    status = 0
    t0 = time.perf_counter()
    for name in MODULES:
        if args.only and args.only not in name:
            continue
        if any(skipped in name for skipped in args.skip):
            continue
        module = importlib.import_module(name)
        print(f"\n### {name}", flush=True)
        started = time.perf_counter()
        rc = module.main(write=write, quick=args.quick)
        print(f"### {name}: {time.perf_counter() - started:.1f} s", flush=True)
        status = status or (rc or 0)
    total = time.perf_counter() - t0
    print(f"\nall benchmarks: {total:.1f} s")
    if write and not args.only:
        path = report.update_section("intro", intro(total, args.quick))
        print(f"wrote {path.relative_to(report.REPO_ROOT)} (intro)")
    return status


if __name__ == "__main__":
    sys.exit(main())
