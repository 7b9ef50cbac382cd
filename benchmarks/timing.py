"""How every benchmark times a run: one complete call, the garbage collector off, best of N.

- :func:`gc_frozen` moves everything alive when a benchmark starts (SDK modules,
  corpora, chunk lists) out of the collector's reach, so that the
  ``gc.collect()`` before each timed call stays cheap.
- :func:`time_once` times one call with ``time.perf_counter``, the collector
  collected first and disabled during the call.
- :func:`best_of` runs every contender the same number of times, interleaved
  round by round (A, B, A, B, ...: a load spike on a shared machine then hits
  every contender alike), and keeps each one's best time. Ratios are taken
  between the best times of one call, never across calls or runs.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["Contender", "best_of", "gc_frozen", "time_once"]

T = TypeVar("T")

#: ``(name, fn)``: ``fn(arg)`` is timed once per round.
Contender = tuple[str, Callable[[T], Any]]


@contextmanager
def gc_frozen() -> Iterator[None]:
    """Collect once, then keep what is alive now out of every later collection."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def time_once(fn: Callable[[T], Any], arg: T) -> float:
    """Seconds for ``fn(arg)``, with the garbage collector off during the call."""
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        fn(arg)
        return time.perf_counter() - t0
    finally:
        gc.enable()


def best_of(contenders: Sequence[Contender[T]], arg: T, rounds: int) -> dict[str, float]:
    """Each contender's best time over ``rounds`` rounds; a round runs each once, in turn.

    Every contender is timed exactly ``rounds`` times, so none gets more
    chances at a quiet moment of the machine than another.
    """
    best = {name: float("inf") for name, _ in contenders}
    with gc_frozen():
        for _ in range(rounds):
            for name, fn in contenders:
                best[name] = min(best[name], time_once(fn, arg))
    return best
