"""Whether a cost grows linearly with its input, judged from noisy timings.

A benchmark times one piece of work at a few input sizes, several rounds each,
and asks: does 10x the input cost at most ``limit`` times the time? On a
shared machine a busy spell slows some rounds, and a short run slips into a
quiet moment more often than a long one: the ratio of the best times (what
``bench --quick`` used to judge by, over two rounds) then says "not linear"
when the code is (issue 20 item 11: 21x for 10x the bytes, from 2 KB). So:

- a size is judged only when it is large enough (``min_size`` bytes) and
  its best time long enough (``min_time``): a small input stays in the
  CPU's first caches and costs less per byte than a larger one however
  linear the code, and in a short time the timer's grain and fixed costs
  say more than the work (measured on the 2-core VM: PartialJSON's rows,
  2 KB then 20 KB, 9x the time alone, 20x beside another busy process);
- the rounds of every size run one after another in each pass, so round *i*
  of two sizes met the same machine: each round gives its own ratio, and
  the verdict reads the middle half of them (their quartiles), which the
  few rounds a busy spell hit at one size only do not move;
- the middle half entirely within the limit is met, entirely over it is
  missed; a middle half on both sides of the limit, or fewer than three
  rounds, is "too noisy to judge", never a verdict.

:func:`judge_linear` is pure (timings in, verdict out), so the rule is
tested with made-up timings (``tests/test_bench_linearity.py``).
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["MIN_ROUNDS", "MIN_SIZE", "MIN_TIME", "TIMES", "Step", "judge_linear"]

TIMES = "\u00d7"  # multiplication sign
#: Bytes: a smaller input is not judged.
MIN_SIZE = 10_000
#: Seconds: a size whose best time is shorter is not judged.
MIN_TIME = 1e-4
#: Rounds a step needs before its quartiles say anything.
MIN_ROUNDS = 3


@dataclass(frozen=True)
class Step:
    """From ``small`` to ``big`` bytes: the time's growth per 10x the input in each round
    (``growths``), its quartiles and median; ``met`` True (the middle half within the
    limit), False (over it), None (too noisy to judge)."""

    small: int
    big: int
    growths: tuple[float, ...]
    low: float
    median: float
    high: float
    met: bool | None


def _judged(timings: Mapping[int, Sequence[float]], min_size: int, min_time: float) -> list[int]:
    return sorted(
        size for size, times in timings.items()
        if size >= min_size and times and min(times) >= min_time
    )


def _step(small: int, big: int, t_small: Sequence[float], t_big: Sequence[float],
          limit: float) -> Step:
    scale = 10 / (big / small)  # a round's time ratio, per 10x the input
    growths = tuple(b / a * scale for a, b in zip(t_small, t_big, strict=False) if a > 0)
    if len(growths) < MIN_ROUNDS:
        median = statistics.median(growths) if growths else float("nan")
        return Step(small, big, growths, median, median, median, None)
    low, median, high = statistics.quantiles(growths, n=4, method="inclusive")
    met = True if high <= limit else False if low > limit else None
    return Step(small, big, growths, low, median, high, met)


def judge_linear(
    timings: Mapping[int, Sequence[float]],
    limit: float,
    *,
    min_size: int = MIN_SIZE,
    min_time: float = MIN_TIME,
) -> tuple[bool | None, str]:
    """Whether 10x the input costs at most ``limit`` times the time, and the figures.

    ``timings`` maps an input size (bytes) to the seconds of each round at
    that size, round *i* of every size timed in the same pass; sizes under
    ``min_size`` bytes or ``min_time`` seconds are not judged. The verdict is
    False when the middle half of some step's per-round growths is over the
    limit, True when every step's is within it, None when a step's spans the
    limit or has fewer than three rounds, or fewer than two sizes are judged.
    """
    sizes = _judged(timings, min_size, min_time)
    steps = [_step(a, b, timings[a], timings[b], limit) for a, b in itertools.pairwise(sizes)]
    if not steps:
        return None, (
            f"not judged: {len(sizes)} of {len(timings)} sizes are ≥ {_kb(min_size)} and take "
            f"≥ {min_time * 1e3:g} ms (two are needed)"
        )
    evidence = "; ".join(_describe(step, limit) for step in steps)
    if any(step.met is False for step in steps):
        return False, evidence
    if any(step.met is None for step in steps):
        return None, evidence
    return True, evidence


def _describe(step: Step, limit: float) -> str:
    rounds = len(step.growths)
    figures = (
        f"{_kb(step.small)} → {_kb(step.big)}: {step.median:.1f}{TIMES} the time per "
        f"10{TIMES} the bytes (median of {rounds} rounds"
    )
    if rounds < MIN_ROUNDS:
        return f"{figures}), too noisy to judge ({MIN_ROUNDS} rounds are needed)"
    figures += f", middle half {step.low:.1f}{TIMES} to {step.high:.1f}{TIMES})"
    if step.met is None:
        return f"{figures}, too noisy to judge (the middle half spans {limit:g}{TIMES})"
    return figures


def _kb(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 * 0.95 else f"{n / 1e3:.0f} KB"
