"""QuietTimer: quiet is an interval without a touch, told once per interval while it lasts.

On a clock the test moves itself (a stand-in for the event loop's ``time`` and
``call_at``), so a loaded machine cannot make a busy stream look quiet: with
asyncio's own clock, a 10 ms sleep that took 100 ms on a busy CI machine did.
The gateway's keepalives on a real loop are tests/gateway/test_gateway_faults.py's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sse_engine.gateway._quiet import QuietTimer


class _Handle:
    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when, self.callback, self.cancelled = when, callback, False

    def cancel(self) -> None:
        self.cancelled = True


class _Clock:
    """The two things QuietTimer asks of its loop, ``time()`` and ``call_at()``, on a
    clock that moves only when :meth:`run_until` moves it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.handles: list[_Handle] = []

    def time(self) -> float:
        return self.now

    def call_at(self, when: float, callback: Callable[[], None]) -> _Handle:
        handle = _Handle(when, callback)
        self.handles.append(handle)
        return handle

    def run_until(self, until: float) -> None:
        """Fire every timer due by ``until`` in time order, then stop the clock at ``until``."""
        while True:
            due = [h for h in self.handles if not h.cancelled and h.when <= until]
            if not due:
                break
            handle = min(due, key=lambda h: h.when)
            self.handles.remove(handle)
            self.now = max(self.now, handle.when)
            handle.callback()
        self.now = until


def quiet_timer(clock: _Clock, told: list[float]) -> QuietTimer:
    """A QuietTimer of 100 (ms, here) on ``clock``, noting in ``told`` when it tells."""
    with pytest.MonkeyPatch.context() as patch:  # the timer asks for its loop once
        patch.setattr(asyncio, "get_running_loop", lambda: clock)
        return QuietTimer(100, lambda: told.append(clock.now))


def test_a_busy_stream_is_never_quiet_and_a_quiet_one_is_told_every_interval() -> None:
    clock, told = _Clock(), list[float]()
    timer = quiet_timer(clock, told)
    for i in range(1, 31):  # busy for 300 ms: three intervals, touched every 10 ms
        clock.run_until(i * 10)
        timer.touch()
    assert told == []
    clock.run_until(650)  # then quiet: told at 400, 500 and 600
    assert told == [400, 500, 600]
    timer.cancel()
    clock.run_until(2000)  # cancelled: never again
    assert told == [400, 500, 600]


@given(gaps=st.lists(st.integers(1, 500), max_size=30), tail=st.integers(0, 500))
def test_each_silence_is_told_once_per_whole_interval_in_it(gaps: list[int], tail: int) -> None:
    """Touched after each of ``gaps`` ms, then left alone ``tail`` ms: a silence of g ms
    that began at t is told at t + 100, t + 200, ... up to t + g, and at no other time.
    (A timer due at the very moment of a touch fires first, on this clock.)"""
    fake, told = _Clock(), list[float]()
    timer = quiet_timer(fake, told)
    expected: list[int] = []
    start = 0
    for gap in gaps:
        fake.run_until(start + gap)
        timer.touch()
        expected += [start + k * 100 for k in range(1, gap // 100 + 1)]
        start += gap
    fake.run_until(start + tail)
    expected += [start + k * 100 for k in range(1, tail // 100 + 1)]
    timer.cancel()
    assert told == expected
