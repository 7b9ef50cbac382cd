"""Run every benchmark module and write the docs: ``python -m benchmarks.run [--quick]``.

Each module listed in :data:`MODULES` has ``main(write: bool, ...) -> int | None``;
it writes its own section of ``docs/benchmarks.md`` (see
:mod:`benchmarks.report`) or its own page. To add a benchmark (a lane, say),
write ``benchmarks/bench_<name>.py`` with such a ``main`` and append its module
name here. A ``main`` that also accepts ``quick`` gets the ``--quick`` flag.

``--quick`` is a smoke run: small inputs, one or two rounds, and nothing is
written unless ``--write`` is also given. ``--only NAME`` runs the modules
whose name contains NAME.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # `python benchmarks/run.py`: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

__all__ = ["MODULES", "main"]

#: Benchmark modules, run in this order.
MODULES: list[str] = [
    "benchmarks.peer_correctness",
    "benchmarks.bench_parser",
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Run the sse_engine benchmarks.")
    ap.add_argument("--quick", action="store_true",
                    help="fast smoke run (small inputs; does not write docs unless --write)")
    ap.add_argument("--write", action="store_true", help="write docs even with --quick")
    ap.add_argument("--no-write", action="store_true", help="never write docs")
    ap.add_argument("--only", metavar="NAME", help="run only modules whose name contains NAME")
    args = ap.parse_args(argv)
    write = not args.no_write and (args.write or not args.quick)

    status = 0
    t0 = time.perf_counter()
    for name in MODULES:
        if args.only and args.only not in name:
            continue
        module = importlib.import_module(name)
        kwargs: dict[str, bool] = {"write": write}
        if "quick" in inspect.signature(module.main).parameters:
            kwargs["quick"] = args.quick
        print(f"\n### {name}")
        started = time.perf_counter()
        rc = module.main(**kwargs)
        print(f"### {name}: {time.perf_counter() - started:.1f} s")
        status = status or (rc or 0)
    print(f"\nall benchmarks: {time.perf_counter() - t0:.1f} s")
    return status


if __name__ == "__main__":
    sys.exit(main())
