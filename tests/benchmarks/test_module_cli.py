"""Every benchmark module runs on its own with the flags ``benchmarks.run`` documents.

``python -m benchmarks.bench_X --quick`` is a smoke run that writes nothing and
``--no-write`` keeps docs/benchmarks.md as it is: a module whose ``__main__``
ignored its arguments ran the full benchmark and rewrote its section of the docs.
"""

from __future__ import annotations

import contextlib
import io
import runpy
import sys
from pathlib import Path
from unittest import mock

import pytest

BENCHMARKS = Path(__file__).parents[2] / "benchmarks"
MODULES = sorted(path.stem for path in BENCHMARKS.glob("bench_*.py"))


# run_module warns that a module another test imported is run again: that is the point.
@pytest.mark.filterwarnings("ignore:.*found in sys.modules:RuntimeWarning")
@pytest.mark.parametrize("name", MODULES)
def test_a_benchmark_module_reads_quick_and_no_write(name: str) -> None:
    out = io.StringIO()
    with mock.patch.object(sys, "argv", [name, "--help"]), contextlib.redirect_stdout(out), \
            pytest.raises(SystemExit) as exited:
        runpy.run_module(f"benchmarks.{name}", run_name="__main__")
    assert exited.value.code == 0
    assert "--quick" in out.getvalue()
    assert "--no-write" in out.getvalue()
