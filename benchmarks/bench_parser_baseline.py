"""The parser against an earlier revision of itself, in one process.

The peer table (``bench_parser``) compares sse_engine with other projects, so
its ratios move when the peers or the machine change. This benchmark answers
the other question, "did our own parser get slower?": it loads the parser of
a baseline git revision (default :data:`BASELINE`, the parser before the
``id:`` lines and CRLF came onto its fast path) from the repository into a
private package,
checks that both give the same events, and times both on the same reads,
interleaved round by round. Needs a git checkout; without one it says so and
writes nothing.
"""

from __future__ import annotations

import functools
import subprocess
import sys
import types
from pathlib import Path

if __package__ in (None, ""):  # `python benchmarks/bench_parser_baseline.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import corpora, report
from benchmarks.timing import RULE, best_of
from sse_engine import SSEParser

__all__ = ["BASELINE", "load_baseline", "main"]

#: The revision compared against: the parser as it stood before issue 24.
BASELINE = "a05b61e"
#: The parser's modules, in dependency order (a revision has some of them).
_MODULES = ("_errors", "_sse", "_parser_lines", "_parser_tail", "_parser_blocks", "_parser")
#: The most the parser may cost over its baseline before the verdict says so.
TOLERANCE = 1.05


def load_baseline(revision: str = BASELINE) -> type | None:
    """``SSEParser`` as it was at ``revision``, or None without git or that revision."""
    package = f"sse_engine_at_{revision}"
    if package in sys.modules:
        return sys.modules[f"{package}._parser"].SSEParser  # type: ignore[no-any-return]
    try:
        listed = subprocess.run(
            ["git", "ls-tree", "--name-only", revision, "sse_engine/"],
            cwd=report.REPO_ROOT, capture_output=True, text=True, check=True, timeout=30,
        ).stdout.split()
        sources = {
            name: subprocess.run(
                ["git", "show", f"{revision}:sse_engine/{name}.py"],
                cwd=report.REPO_ROOT, capture_output=True, text=True, check=True, timeout=30,
            ).stdout
            for name in _MODULES
            if f"sse_engine/{name}.py" in listed
        }
    except (OSError, subprocess.SubprocessError):
        return None
    root = types.ModuleType(package)
    root.__path__ = []
    sys.modules[package] = root
    for name in sources:
        module = types.ModuleType(f"{package}.{name}")
        module.__package__ = package
        sys.modules[module.__name__] = module
        code = sources[name].replace("sse_engine.", f"{package}.")
        exec(compile(code, f"{revision}:sse_engine/{name}.py", "exec"), module.__dict__)
    return sys.modules[f"{package}._parser"].SSEParser  # type: ignore[no-any-return]


def _decode_all(parser_class: type, chunks: list[bytes]) -> list[tuple[str, str, str]]:
    parser = parser_class()
    events = [event for chunk in chunks for event in parser.feed(chunk)]
    events += parser.close()
    return [(e.event, e.data, e.id) for e in events]


def main(write: bool = True, quick: bool = False) -> int:
    """Time today's parser against :data:`BASELINE`'s; write the section when ``write``."""
    baseline = load_baseline()
    if baseline is None:
        print(f"no git checkout with revision {BASELINE}: baseline comparison skipped")
        return 0
    rounds = 3 if quick else 25
    events = 200 if quick else 2000
    rows: list[list[str]] = []
    worst = 0.0
    for name, build in corpora.CORPORA.items():
        built = build(events)
        for shape, reshape in corpora.SHAPES.items():
            data = reshape(built)
            for mode in ("64k", "ragged"):
                chunks = corpora.chunked(data, mode)
                if _decode_all(SSEParser, chunks) != _decode_all(baseline, chunks):
                    print(f"{name} / {shape} / {mode}: the parsers disagree; not timed")
                    return 1
                timed = best_of(
                    [
                        ("now", functools.partial(_decode_all, SSEParser)),
                        ("baseline", functools.partial(_decode_all, baseline)),
                    ],
                    chunks,
                    rounds,
                )
                best = timed.seconds
                ratio = best["now"] / best["baseline"]
                worst = max(worst, ratio)
                rows.append([
                    name, shape, mode, f"{len(data):,}", str(timed.calls),
                    f"{best['baseline'] * 1e3:.2f} ms",
                    f"{best['now'] * 1e3:.2f} ms", f"{ratio:.3f}",
                ])
    verdict = "met" if worst <= TOLERANCE else "NOT met"
    body = "\n".join([
        "## Parser against its baseline",
        "",
        *report.machine_lines(),
        f"- Baseline: revision {BASELINE} (the parser before `id:` lines and CRLF came onto"
        " its fast path)",
        "",
        "Both parsers decode the same reads in one process, interleaved round by round,",
        f"best of {rounds} rounds each; their events are checked equal first. {RULE}",
        "A ratio above 1 means today's parser is slower; times are per call.",
        "",
        report.markdown_table(
            ["Corpus", "Shape", "Reads", "Bytes", "k", "Baseline", "Now", "Now ÷ baseline"],
            rows, "lllrrrrr",
        ),
        "",
        f"Target (no regression: every row ≤ {TOLERANCE:.2f}): {verdict}; worst {worst:.3f}.",
    ])
    print(body)
    if write:
        path = report.update_section("parser_baseline", body)
        print(f"wrote {path.relative_to(report.REPO_ROOT)} (parser_baseline)")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(report.module_cli(__doc__, main))
