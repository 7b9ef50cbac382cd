"""benchmarks/timing.py: a row's samples all have the same k calls, every contender the same
rounds, and the figure is the time per call. A fake clock stands in for the CPU clock, so
nothing here depends on the machine's speed; nothing about speed is asserted."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchmarks import timing


class FakeClock:
    """A clock that only moves when a contender says it worked for so many seconds."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def contender(clock: FakeClock, seconds: float, calls: Counter[str], name: str
              ) -> Callable[[object], None]:
    def fn(_arg: object) -> None:
        calls[name] += 1
        clock.now += seconds
    return fn


@pytest.mark.parametrize(
    ("per_call", "k"),
    [
        # a 10 KB row: sub-millisecond calls, many per sample
        ({"fast": 0.0004, "slow": 0.003}, 50),
        ({"fast": 0.0009, "slow": 0.0011, "sdk": 0.05}, 50),
        # a 1 MB row: every call lasts a sample on its own
        ({"fast": 0.030, "slow": 0.9}, 1),
        # in between: the fastest contender sets k, whatever its place in the row
        ({"slow": 0.012, "fast": 0.008}, 5),
    ],
)
def test_every_contender_of_a_row_gets_the_same_k_and_the_same_rounds(
    monkeypatch: pytest.MonkeyPatch, per_call: dict[str, float], k: int,
) -> None:
    clock = FakeClock()
    monkeypatch.setattr(timing, "_clock", clock)
    calls: Counter[str] = Counter()
    contenders = [(name, contender(clock, s, calls, name)) for name, s in per_call.items()]
    rounds = 3
    best = timing.best_of(contenders, None, rounds)
    assert best.calls == k
    # a calibration call each (two where k > 1), then `rounds` samples of k calls each: no
    # contender gets more samples, or longer ones, than another
    assert calls == Counter({name: (1 if k == 1 else 2) + rounds * k for name in per_call})
    assert best.seconds == pytest.approx(per_call)  # per call, not per sample
    assert list(best.seconds) == list(per_call)  # in the row's order


def test_a_given_k_is_used_as_is(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    monkeypatch.setattr(timing, "_clock", clock)
    calls: Counter[str] = Counter()
    contenders = [(n, contender(clock, 0.001, calls, n)) for n in ("a", "b")]
    best = timing.best_of(contenders, None, 2, calls=7)
    assert best.calls == 7 and calls == Counter({"a": 14, "b": 14})


def test_the_best_sample_wins_and_a_slow_sample_does_not_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = FakeClock()
    monkeypatch.setattr(timing, "_clock", clock)
    spikes = iter([0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0])  # one slow call in round 1

    def fn(_arg: object) -> None:
        clock.now += 0.01 + next(spikes, 0.0)

    best = timing.best_of([("a", fn)], None, 3, calls=2)
    assert best.seconds["a"] == pytest.approx(0.01)


@pytest.mark.parametrize(
    ("fastest", "k"),
    [(1.0, 1), (0.020, 1), (0.0199, 2), (0.010, 2), (0.0099, 5), (0.004, 5), (0.0039, 10),
     (0.001, 20), (0.0005, 50), (0.0002, 100), (0.00001, 2000)],
)
def test_the_rule_for_k(fastest: float, k: int) -> None:
    assert timing.calls_per_sample(fastest) == k
    assert k * fastest >= timing.MIN_SAMPLE


def test_the_sample_runs_the_real_function_k_times_with_the_collector_off() -> None:
    import gc

    seen: list[bool] = []
    assert timing.time_sample(lambda _: seen.append(gc.isenabled()), None, 4) >= 0
    assert seen == [False] * 4 and gc.isenabled()


def test_what_a_contender_leaves_in_cycles_is_freed_inside_its_sample(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A contender that leaves reference cycles pays for their collection on its clock."""
    import gc

    events: list[str] = []
    monkeypatch.setattr(timing, "_clock", lambda: events.append("clock") or 0.0)

    def collected(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["collected"]:
            events.append(f"freed {info['collected']}")

    class Cyclic:
        def __init__(self) -> None:
            self.me = self

    gc.collect()  # earlier tests' garbage is not the sample's
    gc.callbacks.append(collected)
    try:
        timing.time_sample(lambda _: Cyclic(), None, 3)
    finally:
        gc.callbacks.remove(collected)
    assert events == ["clock", "freed 3", "clock"]


def test_a_real_benchmark_row_samples_every_side_with_the_same_k(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """bench_parts' per-fragment rows at 10 KB, the real lanes, recorded sample by sample."""
    bench_parts = pytest.importorskip("benchmarks.bench_parts")
    samples: list[tuple[int, Any, int]] = []
    row = 0
    real_sample, real_best_of = timing.time_sample, timing.best_of

    def record(fn: Callable[[Any], Any], arg: Any, calls: int) -> float:
        samples.append((row, fn, calls))
        return real_sample(fn, arg, calls)

    def one_row(*args: Any, **kwargs: Any) -> timing.Best:
        nonlocal row
        row += 1
        return real_best_of(*args, **kwargs)

    monkeypatch.setattr(timing, "time_sample", record)
    monkeypatch.setattr(bench_parts, "best_of", one_row)
    # Samples a tenth as long: what is checked is who gets which k, not the times.
    monkeypatch.setattr(timing, "MIN_SAMPLE", timing.MIN_SAMPLE / 10)
    settings = bench_parts.Settings(sizes={}, tool_inputs={}, fragment_inputs={10_000: 2})
    rows, _, problems = bench_parts._per_fragment(settings, lambda _: None)
    assert not problems and len(rows) == row == len(bench_parts._FORMAT_LANES)
    for r in range(1, row + 1):
        these = [(fn, calls) for n, fn, calls in samples if n == r]
        # a calibration call of each of the three sides (two where k > 1), then two rounds
        calibration, timed = these[:-6], these[-6:]
        assert len(calibration) in (3, 6) and {calls for _, calls in calibration} == {1}
        assert len({id(fn) for fn, _ in calibration}) == 3
        ks = {calls for _, calls in timed}
        assert len(ks) == 1, f"row {r}: samples of {sorted(ks)} calls"
        # every side sampled in both rounds, in turn
        assert [id(fn) for fn, _ in timed] == [id(fn) for fn, _ in calibration[:3]] * 2
        k = ks.pop()
        assert len(calibration) == (3 if k == 1 else 6)
        assert rows[r - 1][4] == str(k)  # the k column says it


_TIMED = re.compile(r"\b(best_of|time_sample|time_once)\(")


def test_every_module_that_times_states_the_rule() -> None:
    """Whatever section times with benchmarks.timing prints its rule (timing.RULE)."""
    folder = Path(timing.__file__).parent
    timed = [p for p in folder.glob("*.py")
             if p.name != "timing.py" and _TIMED.search(p.read_text(encoding="utf-8"))]
    assert {p.stem for p in timed} >= {"lanes", "bench_parts", "bench_relay", "bench_parser",
                                       "bench_parser_baseline", "parser_bound",
                                       "bench_conversation", "bench_partial_json"}
    for path in timed:
        assert "RULE" in path.read_text(encoding="utf-8"), f"{path.name} does not state it"


def test_the_rule_says_what_the_code_does() -> None:
    assert f"{timing.MIN_SAMPLE * 1000:g} ms" in timing.RULE
    assert "same for every contender" in timing.RULE
    assert "process_time" in timing.RULE and timing._clock is __import__("time").process_time
    assert all(str(step) in timing.RULE for step in timing.STEPS)
