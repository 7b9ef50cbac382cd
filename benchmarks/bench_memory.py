"""What an idle lane costs in memory: a gateway holds thousands of them.

Measured with :mod:`tracemalloc`: the bytes still allocated after building
1,000 fresh lanes of one class (warmed up once, so class-level tables and
imports are not counted), divided by 1,000. Deterministic for one Python
version, so one round is enough. Target: every idle lane at most 2 KB.
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python benchmarks/bench_memory.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import report
from sse_engine import ChatCompletionsLane, Lane, MessagesLane, ResponsesLane

__all__ = ["TARGET_BYTES", "idle_bytes", "main"]

#: The most an idle lane may cost.
TARGET_BYTES = 2048
_LANES: tuple[type[Lane[Any]], ...] = (ChatCompletionsLane, ResponsesLane, MessagesLane)


def idle_bytes(cls: type[Lane[Any]], count: int = 1000) -> float:
    """Bytes per idle lane of ``cls``: traced allocations of ``count`` new lanes / ``count``."""
    cls()  # class-level tables, caches and lazy imports are not a lane's cost
    gc.collect()
    tracemalloc.start()
    try:
        lanes = [cls() for _ in range(count)]
        allocated, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del lanes
    return allocated / count


def main(write: bool = True, quick: bool = False) -> int:
    """Measure every lane, print the table and (when ``write``) its docs section."""
    rows = []
    worst = 0.0
    for cls in _LANES:
        cost = idle_bytes(cls, 200 if quick else 1000)
        worst = max(worst, cost)
        rows.append([cls.__name__, f"{cost:,.0f}", f"{cost / TARGET_BYTES:.2f}"])
    verdict = "met" if worst <= TARGET_BYTES else "NOT met"
    body = "\n".join(
        [
            "## Idle lane memory",
            "",
            *report.machine_lines(),
            "",
            "Method: `tracemalloc` counts the bytes still allocated after building 1,000",
            "fresh lanes of one class (one lane is built first, so class-level tables are",
            "not counted), divided by 1,000. Handler tables are built once per class, not",
            "per lane, which is what keeps this small.",
            "",
            report.markdown_table(["Lane", "Bytes per idle lane", "Share of 2 KB"], rows, "lrr"),
            "",
            f"Target (every idle lane ≤ {TARGET_BYTES:,} bytes): {verdict}; "
            f"the largest is {worst:,.0f} bytes.",
        ]
    )
    print(body)
    if write:
        path = report.update_section("memory", body)
        print(f"wrote {path.relative_to(report.REPO_ROOT)} (memory)")
    return 0 if worst <= TARGET_BYTES else 1


if __name__ == "__main__":
    sys.exit(report.module_cli(__doc__, main))
