"""How every benchmark times a run: one complete call, the garbage collector off, best of N.

- :func:`gc_frozen` moves everything alive when a benchmark starts (SDK modules,
  corpora, chunk lists) out of the collector's reach, so that the
  ``gc.collect()`` before each timed call stays cheap.
- :func:`time_once` times one call with ``time.perf_counter``, the collector
  collected first and disabled during the call.
- :func:`best_of` interleaves contenders round by round (a load spike on a
  shared machine then hits every contender alike) and keeps each one's best
  time.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["Contender", "best_of", "gc_frozen", "time_once"]

T = TypeVar("T")

#: ``(name, fn, repeat)``: ``fn(arg)`` is timed ``repeat`` times per round.
Contender = tuple[str, Callable[[T], Any], int]


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
    """Each contender's best time over ``rounds`` interleaved rounds.

    A round runs every contender in turn, each ``repeat`` times (the fast ones
    can run more often, so that they get a fair share of the round's time).
    """
    best = {name: float("inf") for name, _, _ in contenders}
    with gc_frozen():
        for _ in range(rounds):
            for name, fn, repeat in contenders:
                for _ in range(repeat):
                    best[name] = min(best[name], time_once(fn, arg))
    return best
