"""Two checkouts of sse_engine, timed in one run: the lanes, the parts and the relay.

A change that moves code (issue 19's layout) should not move the numbers. This
times the same streams through the lane alone, through ``PartStream`` and through
``Relay`` to every other format, with the code of checkout A and of checkout B,
each in its own process, in interleaved rounds with the same number of repeats,
and prints B/A per row (below 1.00: B is faster)::

    python benchmarks/ab_revisions.py /path/to/checkout-a /path/to/checkout-b

The streams are written here (not read from ``benchmarks/corpora``, which may
differ between the checkouts): per format, 2,000 text deltas and one tool call
whose input arrives in 400 fragments, in the wire shapes the official APIs send.
Only the names both revisions share are used (``<Format>Lane``, ``PartStream``,
``Relay(lane, to=...)``).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

ROUNDS = 7
REPEATS = 5

PROBE = Path(__file__).with_name("ab_probe.py")


def _probe(checkout: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, str(PROBE), str(REPEATS)],
        cwd=checkout,
        env={"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main(argv: list[str]) -> int:
    """Time checkout A and checkout B in interleaved rounds; print B/A per row."""
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = Path(argv[0]).resolve(), Path(argv[1]).resolve()
    runs_a: list[dict[str, float]] = []
    runs_b: list[dict[str, float]] = []
    for _ in range(ROUNDS):
        runs_a.append(_probe(a))
        runs_b.append(_probe(b))
    print(
        f"A: {a}\nB: {b}\n{ROUNDS} interleaved rounds, best of {REPEATS} per round,"
        " median of rounds"
    )
    print(f"{'row':<32} {'A ms':>9} {'B ms':>9} {'B/A':>6}")
    for row in runs_a[0]:
        ta = statistics.median(r[row] for r in runs_a)
        tb = statistics.median(r[row] for r in runs_b)
        print(f"{row:<32} {ta * 1e3:9.2f} {tb * 1e3:9.2f} {tb / ta:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
