"""The lane sections' target lines: a missed speed-up says what bounds it (benchmarks/lanes.py)."""

from __future__ import annotations

import pytest

lanes = pytest.importorskip("benchmarks.lanes")
bench_messages = pytest.importorskip("benchmarks.bench_messages")

ROWS = [["agent", "10 KB", "79", "10,235", "sse_engine (json)", "9", "50", "19.7", "1", "6.5\u00d7",
         "0.76"]]


def test_a_floor_under_the_target_is_named_as_the_bound() -> None:
    text = lanes.floor_bound([("agent 10 KB", 8.5), ("agent 1 MB", 12.9)])
    assert text == ("; the parse+json floor itself: agent 10 KB 8.5\u00d7, agent 1 MB 12.9\u00d7"
                    " (bounded: under 10\u00d7 even for the floor on agent 10 KB)")


def test_a_floor_over_the_target_is_given_and_bounds_nothing() -> None:
    text = lanes.floor_bound([("agent 10 KB", 14.9)])
    assert text == "; the parse+json floor itself: agent 10 KB 14.9\u00d7"
    assert lanes.floor_bound([]) == ""


def _target_lines(ratio: float, floor: float) -> list[str]:
    text = bench_messages.BENCHMARK._section(
        lanes.FULL, 1.0, ROWS, {"json": [("agent 10 KB", ratio)]}, [], False,
        {"json": [("agent 10 KB", 0.8)]}, {"json": [("agent 10 KB", floor)]},
    )
    return [line for line in text.splitlines() if "the anthropic SDK on every" in line]


def test_the_section_adds_the_floor_to_a_missed_target_only() -> None:
    [missed] = _target_lines(6.5, 8.5)
    assert missed.endswith("**missed** — agent 10 KB 6.5\u00d7; the parse+json floor itself:"
                           " agent 10 KB 8.5\u00d7 (bounded: under 10\u00d7 even for the floor on"
                           " agent 10 KB)")
    [met] = _target_lines(11.0, 14.0)
    assert met.endswith("met — agent 10 KB 11.0\u00d7")
