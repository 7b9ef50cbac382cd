"""Shared helpers for benchmark reports: machine facts and sectioned Markdown files.

``docs/benchmarks.md`` is assembled from sections, one per benchmark module, each
between ``<!-- section:NAME -->`` and ``<!-- /section:NAME -->``. A module
rewrites only its own section, so one benchmark can be re-run without touching
the others' figures. A section that is not in the file yet is put in its place
in :data:`SECTION_ORDER` (at the end if its name is not listed).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = [
    "BENCHMARKS_MD",
    "REPO_ROOT",
    "SECTION_ORDER",
    "cpu_model",
    "git_revision",
    "load1",
    "machine_lines",
    "markdown_table",
    "module_cli",
    "print_targets",
    "target_lines",
    "update_section",
]

REPO_ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS_MD = REPO_ROOT / "docs" / "benchmarks.md"

#: Where each section goes in ``docs/benchmarks.md``, top to bottom.
SECTION_ORDER = (
    "intro", "parser", "parser_baseline", "peer_correctness", "chat", "responses", "messages",
    "gemini", "parts", "relay", "relay_memory", "conversation", "partial_json", "memory",
    "gateway",
)

_DEFAULT_HEADER = "# Benchmarks\n"


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (falls back to platform.processor())."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def git_revision() -> str:
    """Short commit of the working tree (with ``+dirty`` for uncommitted parser changes)."""
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True,
            text=True, check=True, timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "sse_engine"], cwd=REPO_ROOT,
            capture_output=True, text=True, check=True, timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return rev + ("+dirty" if dirty else "")


def load1() -> float | None:
    """The 1-minute load average, or None where the platform has none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def machine_lines() -> list[str]:
    """Markdown bullet lines describing where and when the figures were taken."""
    cpus = os.cpu_count() or 0
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = cpus
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    try:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except (AttributeError, OSError):
        load = "unknown"
    return [
        f"- Machine: {cpu_model()}, {usable} usable CPU(s) of {cpus}, "
        f"{platform.system()} {platform.release()}",
        f"- Python: {platform.python_implementation()} {platform.python_version()} "
        f"({sys.executable})",
        f"- Date: {now}; load average (1, 5, 15 min) when the section was written: {load}",
        f"- sse_engine revision: {git_revision()}",
    ]


def markdown_table(header: list[str], rows: list[list[str]], align: str = "") -> str:
    """A GitHub-flavoured Markdown table; ``align`` is one of ``l``/``r``/``c`` per column."""
    align = align.ljust(len(header), "l")
    marks = {"l": ":---", "r": "---:", "c": ":---:"}
    lines = [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join(marks[a] for a in align) + " |",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def update_section(name: str, body: str, path: Path = BENCHMARKS_MD) -> Path:
    """Write ``body`` as section ``name`` of ``path``, leaving other sections untouched."""
    start, end = f"<!-- section:{name} -->", f"<!-- /section:{name} -->"
    block = f"{start}\n{body.strip()}\n{end}"
    text = path.read_text(encoding="utf-8") if path.exists() else _DEFAULT_HEADER
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _m: block, text, count=1)
    else:
        later = SECTION_ORDER[SECTION_ORDER.index(name) + 1 :] if name in SECTION_ORDER else ()
        at = min((i for n in later if (i := text.find(f"<!-- section:{n} -->")) >= 0),
                 default=-1)
        if at < 0:
            text = text.rstrip("\n") + "\n\n" + block + "\n"
        else:
            text = text[:at] + block + "\n\n" + text[at:]
    if not text.endswith("\n"):
        text += "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def module_cli(
    description: str,
    main: Callable[..., int],
    profile: Callable[[bool], object],
    profiled: str,
    argv: list[str] | None = None,
) -> int:
    """``python -m benchmarks.bench_X [--quick] [--no-write] [--profile]`` for one module.

    ``main(write=..., quick=...)`` runs the benchmark; ``profile(quick)``
    cProfiles ``profiled`` instead. ``--quick`` never writes the docs.
    """
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--quick", action="store_true", help="small inputs, 1-2 rounds (smoke)")
    ap.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    ap.add_argument(
        "--profile", action="store_true", help=f"cProfile {profiled} instead of benchmarking"
    )
    args = ap.parse_args(argv)
    if args.profile:
        profile(args.quick)
        return 0
    return main(write=not args.no_write and not args.quick, quick=args.quick)


#: A benchmark's target: its name, met (True), missed (False) or not measured
#: (None), and the figures that say so.
Target = tuple[str, bool | None, str]


def target_lines(targets: Iterable[Target]) -> list[str]:
    """The Markdown list of a section's targets: ``- name: met — evidence``."""
    marks = {True: "met", False: "**missed**", None: "not measured"}
    return [f"- {name}: {marks[ok]} — {evidence}" for name, ok, evidence in targets]


def print_targets(targets: Iterable[Target]) -> None:
    """The same targets on the console while a benchmark runs."""
    marks = {True: "met", False: "MISSED", None: "-"}
    for name, ok, evidence in targets:
        print(f"  [{marks[ok]}] {name}: {evidence}")
