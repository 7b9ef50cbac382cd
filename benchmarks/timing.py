"""How every benchmark times a run: k complete calls per sample, CPU time, best of N.

- :func:`gc_frozen` moves everything alive when a benchmark starts (SDK modules,
  corpora, chunk lists) out of the collector's reach, so that the
  ``gc.collect()`` before each timed sample stays cheap.
- :func:`calls_per_sample` is the rule for k: the fewest calls from
  :data:`STEPS` (1, 2, 5, 10, 20, 50, ...) whose sample lasts at least
  :data:`MIN_SAMPLE` seconds for the *fastest* contender of the row, judged
  from a calibration call of each contender (two where the calls are short:
  a first call runs on cold caches). A 1 MB row's call already takes
  longer, so k = 1 there; a 10 KB row's call takes 0.2-1 ms, and one call is
  then at the mercy of the timer, of one scheduler tick, and of the cold caches
  a ``gc.collect()`` leaves behind (a cost a server reading many streams in a
  row does not pay on each): its k is 20-100.
- :func:`time_sample` times one sample: ``k`` calls back to back, each a
  complete fresh run (a new lane, parser or relay each time: the caller's
  ``fn`` builds its own), so every per-stream cost is still paid every call;
  the collector collected before the sample and disabled during the calls,
  then run once more inside the sample, after them: what a contender leaves in
  reference cycles is freed there, on its clock, not left to the next sample's
  untimed collection (sse_engine's readers leave none:
  tests/test_no_reference_cycles.py). The sample's time over k is the time per
  call.
- the clock is the process's CPU time (``time.process_time``, user and system,
  nanosecond resolution), not the wall clock: on a shared machine a sample of
  20 ms or more is always preempted, and its wall time then counts the other
  processes' turns (measured under a load of 6 on 2 CPUs: 5.8 ms of wall time
  per 1.2 ms call at k = 50, where one lone call could still slip into a quiet
  slice); CPU time counts this process's work only. Every contender runs in
  this process, in its thread, so none does work the clock misses.
- :func:`best_of` runs every contender the same number of rounds with the same
  k, interleaved round by round (A, B, A, B, ...: a load spike on a shared
  machine then hits every contender alike), and keeps each one's best time per
  call. Ratios are taken between the best times of one call, never across calls
  or runs, and k never differs between the contenders of a row.
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

__all__ = [
    "MIN_SAMPLE", "RULE", "STEPS", "Best", "Contender", "best_of", "calibrate", "calls_per_sample",
    "gc_frozen", "time_once", "time_sample",
]

T = TypeVar("T")

#: ``(name, fn)``: ``fn(arg)`` is one complete call, run k times per sample.
Contender = tuple[str, Callable[[T], Any]]

#: A sample of the fastest contender lasts at least this long (seconds).
MIN_SAMPLE = 0.020
#: The values k takes: round ones, so that a row's k is the same from run to run
#: unless the machine's speed changes by more than a step.
STEPS = (1, 2, 5)

#: The rule, as every section states it.
RULE = (
    "A timed sample is k complete calls back to back (each builds its own lane, parser, "
    "relay or PartialJSON, so every per-stream cost is paid every call), garbage "
    "collector collected before the sample, off during the calls and run once after them, "
    "inside the sample (what a contender leaves in reference cycles is freed on its "
    "clock); the time per call is the sample's over k. k is chosen once per row, the same "
    "for every contender: the fewest of 1, 2, 5, 10, 20, 50, ... calls that make a sample "
    f"of the row's fastest contender last at least {MIN_SAMPLE * 1000:g} ms "
    "(from a calibration call of each, two where the calls are short, which also warms "
    "the caches): k is 1 where one call takes that long (the 1 MB rows), and tens where "
    "a call takes under a millisecond (the 10 KB rows). The clock is the process's CPU time "
    "(`time.process_time`), not the wall clock: on a shared machine a sample of 20 ms is "
    "always preempted, and its wall time would count the other processes' turns."
)

#: Seconds of this process's CPU time; a module attribute so that tests can stand a
#: fake clock in.
_clock: Callable[[], float] = time.process_time


@dataclass(frozen=True)
class Best:
    """One row's timing: each contender's best seconds per call, and the k of every sample."""

    #: Contender name -> best seconds per call (best sample over k), in contender order.
    seconds: dict[str, float]
    #: Calls per sample, the same for every contender of the row.
    calls: int


@contextmanager
def gc_frozen() -> Iterator[None]:
    """Collect once, then keep what is alive now out of every later collection."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def time_sample(fn: Callable[[T], Any], arg: T, calls: int) -> float:
    """Seconds per call of ``calls`` calls of ``fn(arg)`` back to back, the collector off
    during them and run after them, inside the timing."""
    gc.collect()
    gc.disable()
    try:
        t0 = _clock()
        for _ in range(calls):
            fn(arg)
        # What the calls left in reference cycles is theirs to free, inside the sample:
        # with the collector off, freeing it would otherwise fall outside every sample.
        gc.collect()
        return (_clock() - t0) / calls
    finally:
        gc.enable()


def time_once(fn: Callable[[T], Any], arg: T) -> float:
    """Seconds for one call of ``fn(arg)``, with the garbage collector off during it."""
    return time_sample(fn, arg, 1)


def calls_per_sample(fastest: float) -> int:
    """k for a row whose fastest contender's call takes ``fastest`` seconds: the least of
    1, 2, 5, 10, 20, 50, ... with ``k * fastest >= MIN_SAMPLE``."""
    if fastest >= MIN_SAMPLE:
        return 1
    need = MIN_SAMPLE / max(fastest, 1e-9)
    decade = 1
    while True:
        for step in STEPS:
            if step * decade >= need:
                return step * decade
        decade *= 10


def calibrate(contenders: Sequence[Contender[T]], arg: T) -> int:
    """k for a row: :func:`calls_per_sample` of its fastest contender's call.

    Each contender is timed once; where that says k > 1 (short calls, cheap to
    repeat) each is timed once more and the faster call counts, since a first
    call runs on cold caches and would make k too small.
    """
    fastest = min(time_once(fn, arg) for _, fn in contenders)
    if calls_per_sample(fastest) > 1:
        fastest = min(fastest, *(time_once(fn, arg) for _, fn in contenders))
    return calls_per_sample(fastest)


def best_of(
    contenders: Sequence[Contender[T]], arg: T, rounds: int, calls: int | None = None,
) -> Best:
    """Each contender's best time per call over ``rounds`` rounds of one sample each.

    A round takes one sample of each contender, in turn; every sample has the
    same ``calls`` calls (k), chosen by :func:`calibrate` unless given. Every contender is
    sampled exactly ``rounds`` times with the same k, so none gets more
    chances at a quiet moment of the machine, nor a longer sample, than
    another.
    """
    with gc_frozen():
        if calls is None:
            calls = calibrate(contenders, arg)
        best = {name: math.inf for name, _ in contenders}
        for _ in range(rounds):
            for name, fn in contenders:
                best[name] = min(best[name], time_sample(fn, arg, calls))
    return Best(best, calls)
