"""``sse-engine bench``: the repository's benchmarks (``benchmarks/run.py``), from a checkout.

The benchmark code is not part of the installed package: it lives in the
top-level ``benchmarks`` package of the repository. It is found on
``sys.path``, or next to this package's directory (an editable install run
from anywhere). ``benchmarks.run`` runs every benchmark, the parser's and the
lanes', with the flags given here.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import TextIO

__all__ = ["find_benchmarks", "run_bench"]


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
    """Run ``benchmarks.run.main(argv)`` and return its status (3 without a checkout)."""
    runner = find_benchmarks()
    if runner is None:
        err.write(
            "sse-engine bench: the benchmarks are not installed with the package; run this "
            "from a checkout of the repository (python -m sse_engine bench)\n"
        )
        return 3
    out.flush()  # the benchmarks print to sys.stdout: keep what was written before first
    status: int = runner.main(argv) or 0
    return status
