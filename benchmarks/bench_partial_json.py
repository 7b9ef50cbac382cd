"""PartialJSON against the SDKs' way of showing partial tool input, on the same fragments.

Two tool inputs at three sizes (about 10 KB, 100 KB and 1 MB of JSON text),
each cut into 40-character fragments:

- **file**: ``{"path": "src/app.py", "content": "..."}``, one big string of code
  lines with quotes, backslashes, tabs and some non-ASCII (a ``write_file`` call);
- **rows**: ``{"rows": [{"id": ..., "name": ..., ...}, ...]}``, many small values.

Contenders, each reading the partial value after every fragment:

- **sse_engine**: ``PartialJSON().feed(fragment)``, then ``.value``;
- **SDK re-parse**: what the anthropic SDK does per ``input_json_delta`` (the
  openai SDK does the same per arguments delta): append the fragment's UTF-8
  bytes to a buffer, then ``jiter.from_json(buffer, partial_mode=True)``.

Both must end with ``json.loads(text)``. Timing as the other benchmarks
(:mod:`benchmarks.timing`): a sample is k complete runs back to back, k chosen
once per input and the same for both contenders (1 where a run takes 20 ms,
more on the small inputs), CPU time, garbage collector off, best of N rounds,
both contenders sampled once per round, interleaved, the same N for both (N by
size); the rounds go round-robin over all the inputs. The re-parse costs time quadratic in the
input: when one re-parse run of a workload would take longer than the settings'
``exact_budget``, it is *estimated*: one parse in k is timed and counted k
times (the buffers are still built for every fragment), and the table says so.

    python -m benchmarks.bench_partial_json [--quick] [--no-write] [--profile]
"""

from __future__ import annotations

import cProfile
import importlib.metadata
import io
import json
import os
import pstats
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jiter

from benchmarks import report
from benchmarks.linearity import judge_linear
from benchmarks.timing import RULE, calls_per_sample, gc_frozen, time_once, time_sample
from sse_engine.partial_json import PartialJSON

__all__ = ["FULL", "QUICK", "Workload", "build", "main", "run"]

SECTION = "partial_json"
TIMES = "\u00d7"  # multiplication sign
FRAGMENT = 40  # characters per fragment
LINEAR_LIMIT = 12.0  # 10x the input may cost at most this many times the time
SPEEDUP_TARGET = 20.0  # at the largest size, against the re-parse


@dataclass(frozen=True)
class Settings:
    #: Input size in bytes (about) -> rounds, for both contenders.
    sizes: dict[int, int]
    exact_budget: float  # seconds: a re-parse run longer than this is estimated


FULL = Settings(sizes={10_000: 15, 100_000: 7, 1_000_000: 3}, exact_budget=30.0)
# Seven rounds: the linearity verdict reads the middle half of the rounds' ratios, judged
# from 20 KB up (benchmarks/linearity.py: a 2 KB input stays in cache). The re-parse
# of 100 KB is estimated past half a second (a quick run stays quick).
QUICK = Settings(sizes={2_000: 7, 20_000: 7, 100_000: 7}, exact_budget=0.5)


@dataclass
class Workload:
    kind: str  # "file" or "rows"
    text: str
    fragments: list[str]
    expected: object
    ours: float = float("inf")  # best seconds
    times: list[float] = field(default_factory=list)  # PartialJSON's seconds, every round
    repeat: int = 1  # runs per timed sample (k), for both contenders
    sdk: float = float("inf")
    sdk_note: str = ""  # "" if measured exactly, else how it was estimated
    estimate: float = 0.0  # the sampled estimate of the re-parse (checked where exact)
    rounds: int = 0
    strides: int = 0  # the re-parse's sampling stride (0: timed exactly)

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8"))


# -- the inputs ---------------------------------------------------------------------------------


def file_input(size: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    words = ["value", "count", "name", "path", "résumé", "naïve", "data", "i", "x", "→", "🙂"]
    lines: list[str] = []
    length = 40
    while length < size:
        indent = "    " * rng.randrange(3)
        a, b = rng.choice(words), rng.choice(words)
        line = rng.choice([
            f'{indent}{a} = "{b}" + \'{a}\'  # {b}',
            f"{indent}if {a} > {rng.randrange(1000)}:\treturn {b}",
            f'{indent}print(f"{{{a}}}\\n", end="")',
            f"{indent}{a}.append({b!r})",
        ])
        lines.append(line)
        length += len(json.dumps(line, ensure_ascii=False)) - 2 + 2
    return json.dumps({"path": "src/app.py", "content": "\n".join(lines) + "\n"},
                      ensure_ascii=False)


def rows_input(size: int, seed: int = 2) -> str:
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    length = 10
    while length < size:
        row = {
            "id": len(rows) + 1,
            "name": rng.choice(["Ada", "Grace", "Linus", "Zoë", "Ken"]) + str(rng.randrange(99)),
            "score": round(rng.uniform(-100, 100), 3),
            "active": rng.random() < 0.5,
            "tags": rng.sample(["a", "b", "c", "d", "e"], 2),
            "parent": None,
        }
        rows.append(row)
        length += len(json.dumps(row, ensure_ascii=False)) + 2
    return json.dumps({"rows": rows}, ensure_ascii=False)


def build(settings: Settings) -> list[Workload]:
    out = []
    for kind, make in (("file", file_input), ("rows", rows_input)):
        for size, rounds in settings.sizes.items():
            text = make(size)
            fragments = [text[k : k + FRAGMENT] for k in range(0, len(text), FRAGMENT)]
            out.append(Workload(kind, text, fragments, json.loads(text), rounds=rounds))
    return out


# -- the contenders -----------------------------------------------------------------------------


def ours(fragments: list[str]) -> object:
    pj = PartialJSON()
    value = None
    for fragment in fragments:
        pj.feed(fragment)
        value = pj.value
    return value


def sdk_reparse(fragments: list[str]) -> object:
    buf = b""
    value = None
    for fragment in fragments:
        buf += bytes(fragment, "utf-8")
        value = jiter.from_json(buf, partial_mode=True)
    return value


def sdk_reparse_sampled(fragments: list[str], stride: int) -> float:
    """Seconds of the re-parse, with only one parse in ``stride`` actually run.

    The fragments are taken in blocks of ``stride``; the parse of the buffer in
    the middle of each block is timed and counted once per fragment of the
    block. Every buffer is built as the SDK builds it, and that part is timed
    in full.
    """
    weights: dict[int, int] = {}
    for start in range(0, len(fragments), stride):
        end = min(start + stride, len(fragments))
        weights[(start + end - 1) // 2] = end - start
    buf = b""
    total = 0.0
    clock = time.process_time  # as benchmarks.timing: CPU time
    for k, fragment in enumerate(fragments):
        t0 = clock()
        buf += bytes(fragment, "utf-8")
        total += clock() - t0
        weight = weights.get(k)
        if weight:
            t0 = clock()
            jiter.from_json(buf, partial_mode=True)
            total += (clock() - t0) * weight
    return total


# -- running ------------------------------------------------------------------------------------


def run(workloads: list[Workload], settings: Settings,
        log: Callable[[str], None] = print) -> None:
    """Time both contenders on every workload, the same rounds each, interleaved.

    PartialJSON's rounds go round-robin over every workload (it is fast), so that
    a busy spell on a shared machine hits every size alike: the linearity target
    compares sizes with one another. Every sample lasts at least
    ``timing.MIN_SAMPLE`` (k runs of a small input, the same k for both
    contenders): a 2 ms run timed alone escapes the scheduler's 4 ms preemptions
    and the caches' refills in some rounds while a 20 ms one never does, which
    made the small inputs look cheap and the growth superlinear.
    """
    with gc_frozen():
        for w in workloads:
            assert ours(w.fragments) == w.expected, f"{w.kind} {w.size}: PartialJSON differs"
            # One sampled re-parse tells how long an exact one would take.
            stride = max(1, len(w.fragments) // 400)
            estimate = w.estimate = sdk_reparse_sampled(w.fragments, stride)
            exact = estimate <= settings.exact_budget
            if exact:
                assert sdk_reparse(w.fragments) == w.expected, f"{w.kind}: re-parse differs"
            else:
                assert jiter.from_json(w.text.encode()) == w.expected
                w.sdk_note = f"1 parse in {stride} timed, counted {stride} times"
            w.strides = stride if not exact else 0
            # The faster contender's run sets k for both (the re-parse is the faster on a
            # small input: jiter re-reads a short buffer quicker than Python parses it).
            fastest = time_once(ours, w.fragments)
            if exact:
                fastest = min(fastest, time_once(sdk_reparse, w.fragments))
            w.repeat = calls_per_sample(fastest)
        for turn in range(max(w.rounds for w in workloads)):
            for w in workloads:
                if turn >= w.rounds:
                    continue
                seconds = time_sample(ours, w.fragments, w.repeat)
                w.times.append(seconds)
                w.ours = min(w.ours, seconds)
                w.sdk = min(w.sdk, time_sample(sdk_reparse, w.fragments, w.repeat)
                            if not w.strides else sdk_reparse_sampled(w.fragments, w.strides))
    for w in workloads:
        log(f"  {w.kind:<4} {w.size:>9,} B  {len(w.fragments):>6} fragments: "
            f"sse_engine {_ms(w.ours)}, SDK re-parse {_ms(w.sdk)}"
            f"{' (est.)' if w.sdk_note else ''}: {_ratio(w.sdk / w.ours)}")


def _ratio(r: float) -> str:
    return f"{r:,.0f}{TIMES}" if r >= 10 else f"{r:.2f}{TIMES}"


def _ms(t: float) -> str:
    return f"{t * 1e3:,.1f} ms" if t < 10 else f"{t:,.1f} s"


def _mbps(w: Workload, t: float) -> str:
    return f"{w.size / t / 1e6:.2f}" if w.size / t < 1e7 else f"{w.size / t / 1e6:.1f}"


def table(workloads: list[Workload]) -> str:
    header = ["Input", "Bytes", "Fragments", "Rounds", "k", "sse_engine", "MB/s", "SDK re-parse",
              "MB/s", "sse_engine ÷ SDK"]
    rows = [[
        w.kind, f"{w.size:,}", f"{len(w.fragments):,}", str(w.rounds),
        str(w.repeat), _ms(w.ours),
        _mbps(w, w.ours),
        _ms(w.sdk) + (" (est.)" if w.sdk_note else ""), _mbps(w, w.sdk),
        f"**{_ratio(w.sdk / w.ours)}**",
    ] for w in workloads]
    return report.markdown_table(header, rows, "lrrrrrrrrr")


def targets(workloads: list[Workload]) -> list[tuple[str, bool | None, str]]:
    out: list[tuple[str, bool | None, str]] = []
    for kind in ("file", "rows"):
        ws = [w for w in workloads if w.kind == kind]
        # Judged from rounds that agree (benchmarks/linearity.py): a busy spell on a
        # shared machine is "too noisy to judge", not "not linear".
        met, evidence = judge_linear({w.size: w.times for w in ws}, LINEAR_LIMIT)
        out.append((
            f"{kind}: linear (10{TIMES} the input costs ≤ {LINEAR_LIMIT:g}{TIMES} the time)",
            met,
            evidence,
        ))
        big = ws[-1]
        measured = big.size >= 950_000
        out.append((
            f"{kind}: ≥ {SPEEDUP_TARGET:g}{TIMES} faster than the SDK re-parse at 1 MB",
            big.sdk / big.ours >= SPEEDUP_TARGET if measured else None,
            (f"{_ratio(big.sdk / big.ours)} ({_ms(big.ours)} vs {_ms(big.sdk)}"
             f"{', re-parse estimated' if big.sdk_note else ''})") if measured
            else f"not measured (largest input {_kb(big.size)})",
        ))
    return out


def _kb(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 * 0.95 else f"{n / 1e3:.0f} KB"


def section(workloads: list[Workload], settings: Settings, load: float | None = None) -> str:
    lines = ["## Partial JSON (live tool input)", ""]
    lines += report.machine_lines()
    lines += [
        f"- jiter {importlib.metadata.version('jiter')}",
        "",
        "A tool call's JSON arguments, cut into 40-character fragments, with the partial"
        " value read after every fragment (see [Live tool input](live-tool-input.md)):"
        " **file** is a `write_file` call, `{\"path\": ..., \"content\": ...}` with one big"
        " string of code lines (quotes, backslashes, tabs, some non-ASCII); **rows** is"
        " `{\"rows\": [...]}` with many small objects. **sse_engine** is `PartialJSON.feed()`"
        " then `.value` per fragment; **SDK re-parse** is what the anthropic and openai SDKs"
        " do per fragment: append its UTF-8 bytes to a buffer and call"
        " `jiter.from_json(buffer, partial_mode=True)`, which re-reads everything so far.",
        "",
        "Method: both must end with `json.loads(text)`; best of the Rounds column's rounds,"
        " both contenders sampled once per round, interleaved, the rounds taken round-robin"
        " over all the inputs (a busy spell hits every size alike). " + RULE + " Where one"
        f" re-parse run would exceed {settings.exact_budget:g} s, its time is *estimated*"
        " (marked est.): the buffer is built for every fragment, but only the middle parse"
        " of each block of k fragments is run, timed and counted k times (one such run per"
        " round, whatever the k column says)."
        " MB/s is 10⁶ bytes of JSON text per second.",
        "",
    ]
    cpus = os.cpu_count() or 1
    if load is not None and load >= 0.5 * cpus:
        lines += [
            f"Caveat: the machine was shared while this ran (1-minute load average {load:.2f}"
            f" at the start, on {cpus} CPU(s)). Best-of-N absorbs most of it for sse_engine;"
            " the long re-parse runs get one or a few rounds, so their times, and the ratios,"
            " may be inflated.",
            "",
        ]
    notes = [f"{w.kind} {_kb(w.size)}: {w.sdk_note}" for w in workloads if w.sdk_note]
    checks = [f"{w.kind} {_kb(w.size)}: {_ms(w.estimate)} estimated, {_ms(w.sdk)} measured"
              for w in workloads if not w.sdk_note and w.size >= 50_000]
    lines += [table(workloads), ""]
    if notes:
        lines += ["Estimated: " + "; ".join(notes) + ". The estimator against exact runs"
                  " (its first estimate, before the best-of rounds): " + "; ".join(checks)
                  + ".", ""]
    lines += ["### Targets", ""]
    lines += report.target_lines(targets(workloads))
    return "\n".join(lines) + "\n"


def profile(workloads: list[Workload], top: int = 14) -> None:
    for w in workloads:
        prof = cProfile.Profile()
        prof.enable()
        ours(w.fragments)
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(top)
        print(f"\n=== {w.kind} {w.size:,} B ===")
        print("\n".join(buf.getvalue().splitlines()[: top + 12]))


def main(write: bool = True, quick: bool = False) -> int:
    settings = QUICK if quick else FULL
    print(f"partial JSON benchmark ({'quick' if quick else 'full'})")
    workloads = build(settings)
    load = report.load1()
    t0 = time.perf_counter()
    run(workloads, settings)
    print(f"  timed in {time.perf_counter() - t0:.1f} s\n")
    print(table(workloads))
    print()
    report.print_targets(targets(workloads))
    if write:
        path = report.update_section(SECTION, section(workloads, settings, load))
        print(f"\nwrote {path.relative_to(report.REPO_ROOT)}")
    return 0


def _cli(argv: list[str] | None = None) -> int:
    return report.module_cli(
        __doc__,
        main,
        lambda quick: profile(build(QUICK if quick else FULL)),
        "PartialJSON on every input",
        argv,
    )


if __name__ == "__main__":
    sys.exit(_cli())
