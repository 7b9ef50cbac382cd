"""``sse-engine bench``: the repository's benchmarks (``benchmarks/run.py``), from a checkout.

The benchmark code is not part of the installed package: it lives in the
top-level ``benchmarks`` package of the repository. It is found on
``sys.path``, or next to this package's directory (an editable install run
from anywhere). Lane benchmarks (``benchmarks/bench_<lane>.py`` with
``run(quick) -> str``) that ``benchmarks.run`` does not list yet are run
after it, so the table covers the parser and every lane either way.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import TextIO

__all__ = ["LANE_BENCHMARKS", "find_benchmarks", "run_bench"]

LANE_BENCHMARKS = (
    "benchmarks.bench_chat",
    "benchmarks.bench_responses",
    "benchmarks.bench_messages",
)


def find_benchmarks() -> ModuleType | None:
    """``benchmarks.run``, or None when this is an installed package without a checkout."""
    try:
        return importlib.import_module("benchmarks.run")
    except ImportError:
        pass
    checkout = Path(__file__).resolve().parent.parent
    if not (checkout / "benchmarks" / "run.py").is_file():
        return None
    sys.path.insert(0, str(checkout))
    try:
        return importlib.import_module("benchmarks.run")
    except ImportError:
        return None


def run_bench(out: TextIO, err: TextIO, argv: list[str]) -> int:
    """Run ``benchmarks.run.main(argv)``, then the lane benchmarks it does not list."""
    runner = find_benchmarks()
    if runner is None:
        err.write(
            "sse-engine bench: the benchmarks are not installed with the package; run this "
            "from a checkout of the repository (python -m sse_engine bench)\n"
        )
        return 3
    status: int = runner.main(argv) or 0
    listed = set(getattr(runner, "MODULES", []))
    quick = "--quick" in argv
    only = argv[argv.index("--only") + 1] if "--only" in argv[:-1] else None
    for name in LANE_BENCHMARKS:
        if name in listed or (only and only not in name):
            continue
        try:
            module = importlib.import_module(name)
        except ImportError as exc:  # an SDK it compares with is missing
            out.write(f"\n### {name}: skipped ({exc})\n")
            continue
        out.write(f"\n### {name}\n")
        out.flush()
        out.write(module.run(quick=quick).rstrip() + "\n")
    return status
