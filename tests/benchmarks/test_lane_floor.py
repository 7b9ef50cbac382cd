"""The lanes' parse+json floor does what a lane must and keeps nothing a lane would not."""

from __future__ import annotations

import tracemalloc

import pytest

lanes = pytest.importorskip("benchmarks.lanes")
corpora = pytest.importorskip("benchmarks.corpora")


def _floor_peak(events: int) -> int:
    """The peak bytes the floor holds over a Chat corpus of ``events`` chunks."""
    reads = corpora.chunked(corpora.chat_completions(events), "ragged")
    tracemalloc.start()
    try:
        lanes.parse_json_floor(reads)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


def test_the_floor_loads_every_json_payload_and_only_those() -> None:
    reads = corpora.chunked(corpora.chat_completions(50), "ragged")
    frames = b"".join(reads).split(b"\n\n")
    payloads = [f for f in frames if f.startswith(b"data: {")]
    assert lanes.parse_json_floor(reads) == len(payloads)
    assert any(f == b"data: [DONE]" for f in frames)  # present, and not counted


def test_the_floor_holds_no_more_for_a_longer_stream() -> None:
    # A floor that kept its decoded payloads (as it once did) held every chunk's dict:
    # about a kilobyte each, so 40 times the chunks would hold megabytes more. A lane
    # keeps none of them, and neither may the floor it is measured against.
    short, long = _floor_peak(100), _floor_peak(4_000)
    assert long - short < 256 * 1024
