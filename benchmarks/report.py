"""Shared helpers for benchmark reports: machine facts and sectioned Markdown files.

``docs/benchmarks.md`` is assembled from sections, one per benchmark module, each
between ``<!-- section:NAME -->`` and ``<!-- /section:NAME -->``. A module
rewrites only its own section, so one benchmark can be re-run without touching
the others' figures. A section that is not in the file yet is put in its place
in :data:`SECTION_ORDER` (at the end if its name is not listed).

Every section is stamped (:func:`stamp`) with what it was measured on: the
git revision (``+dirty`` when the working tree differs from it), the date the
run started and the machine. One process has one stamp, so the sections of
one ``python -m benchmarks.run`` carry the same one, and :func:`stamps` finds
a section that came from another run.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as _dt
import functools
import gc
import os
import platform
import pstats
import re
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

__all__ = [
    "BENCHMARKS_MD",
    "REPO_ROOT",
    "SECTION_ORDER",
    "cpu_model",
    "git_revision",
    "load1",
    "machine",
    "machine_lines",
    "markdown_table",
    "module_cli",
    "print_targets",
    "profile_table",
    "stamp",
    "stamp_line",
    "stamps",
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
    """Short commit of the working tree, with ``+dirty`` when any file differs from it.

    The benchmark outputs (``docs/benchmarks.md``, ``docs/parser_peers.md``) do
    not count: a run rewrites them.
    """
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True,
            text=True, check=True, timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", ".", ":!docs/benchmarks.md",
             ":!docs/parser_peers.md"],
            cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return rev + ("+dirty" if dirty else "")


@functools.cache
def stamp() -> str:
    """What this process measures on: revision, the date it first asked, the machine.

    Cached: every section written by one run gets the same stamp.
    """
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"sse_engine {git_revision()}, {now}, {machine()}"


def stamp_line() -> str:
    """The stamp as a sentence, for the top of a section."""
    return f"Measured on {stamp()}."


_STAMP = re.compile(r"<!-- stamp: (.*?) -->")


def stamps(path: Path = BENCHMARKS_MD) -> dict[str, str]:
    """Section name -> the stamp it was written with, as the file says now."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    found = {}
    for match in re.finditer(r"<!-- section:(\w+) -->(.*?)<!-- /section:\1 -->", text, re.DOTALL):
        mark = _STAMP.search(match.group(2))
        found[match.group(1)] = mark.group(1) if mark else "none"
    return found


def machine() -> str:
    """The machine in a few words: CPU, usable cores, OS, Python."""
    cpus = os.cpu_count() or 0
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = cpus
    return (f"{cpu_model()} ({usable} of {cpus} CPUs), {platform.system()} {platform.release()},"
            f" {platform.python_implementation()} {platform.python_version()}")


def load1() -> float | None:
    """The 1-minute load average, or None where the platform has none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def machine_lines() -> list[str]:
    """Markdown bullet lines describing where and when the figures were taken."""
    try:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except (AttributeError, OSError):
        load = "unknown"
    return [
        f"- {stamp_line()}",
        f"- Load average (1, 5, 15 min) when the section was written: {load}",
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
    block = f"{start}\n<!-- stamp: {stamp()} -->\n{body.strip()}\n{end}"
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
    doc: str | None,
    main: Callable[..., int],
    profile: Callable[[bool], object] | None = None,
    profiled: str = "",
    argv: list[str] | None = None,
) -> int:
    """``python -m benchmarks.bench_X [--quick] [--no-write] [--profile]`` for one module.

    ``doc`` is the module's docstring (its first line is the help's description);
    ``main(write=..., quick=...)`` runs the benchmark; ``profile(quick)``
    cProfiles ``profiled`` instead (no ``--profile`` without one). ``--quick``
    never writes the docs.
    """
    ap = argparse.ArgumentParser(description=(doc or "").strip().splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small inputs, 1-2 rounds (smoke)")
    ap.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    if profile is not None:
        ap.add_argument(
            "--profile", action="store_true", help=f"cProfile {profiled} instead of benchmarking"
        )
    args = ap.parse_args(argv)
    if profile is not None and args.profile:
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


def profile_table(fn: Callable[[Any], object], arg: Any, top: int = 10) -> str:
    """Where ``fn(arg)`` spends its time: cProfile's functions by own time, as Markdown.

    One run under cProfile, garbage collector off. cProfile adds a fixed cost to
    every call it sees, so a path of many small calls looks heavier than it is:
    the shares say where to look, the timed tables what it costs.
    """
    profiler = cProfile.Profile()
    gc.disable()
    try:
        profiler.enable()
        fn(arg)
        profiler.disable()
    finally:
        gc.enable()
    stats = pstats.Stats(profiler)
    entries: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    total = sum(own for _, _, own, _, _ in entries.values()) or 1.0
    rows = []
    ranked = sorted(entries.items(), key=lambda kv: kv[1][2], reverse=True)
    for (path, line, name), (_, calls, own, cumulative, _) in ranked[:top]:
        where = name if path == "~" else f"{_short(path)}:{line} {name}"
        rows.append([f"`{where}`", f"{calls:,}", f"{own / total:.0%}", f"{cumulative / total:.0%}"])
    return markdown_table(["Function", "Calls", "Own time", "With callees"], rows, "lrrr")


def _short(path: str) -> str:
    """A profiled function's file, from the package or the standard library down."""
    parts = Path(path).parts
    for anchor in ("sse_engine", "benchmarks", "json"):
        if anchor in parts:
            return "/".join(parts[parts.index(anchor):])
    return Path(path).name
