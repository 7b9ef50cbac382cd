"""The relay benchmark's split of a cost into a part per stream and a part per event."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.bench_relay import per_stream_and_event

_SECONDS = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@given(
    fixed=_SECONDS, per_event=_SECONDS,
    lengths=st.lists(st.integers(1, 10**6), min_size=2, max_size=4, unique=True),
)
def test_a_cost_on_a_line_splits_into_its_two_parts(
    fixed: float, per_event: float, lengths: list[int]
) -> None:
    points = [(n, fixed + per_event * n) for n in lengths]
    got_fixed, got_per_event = per_stream_and_event(points)
    assert got_per_event == pytest.approx(per_event, rel=1e-6, abs=1e-12)
    assert got_fixed == pytest.approx(fixed, rel=1e-6, abs=1e-6)


def test_the_smallest_and_largest_lengths_are_used() -> None:
    # The middle point is off the line: it must not move the split.
    assert per_stream_and_event([(100, 3.0), (10, 2.0), (50, 99.0)]) == pytest.approx(
        (1.0 + 8 / 9, 1 / 90)
    )


def test_one_length_cannot_be_split() -> None:
    with pytest.raises(ValueError, match="two stream lengths"):
        per_stream_and_event([(10, 1.0), (10, 2.0)])
