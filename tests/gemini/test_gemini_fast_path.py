"""The Gemini lane's fast path gives exactly what its general path gives.

The lane reads the common candidate (the chunk's only one, already seen, holding
only text or thought parts) in ``_on_plain_candidate``, and builds its hottest
events without attrs' ``__init__``. The properties compare the lane with a lane
whose fast path is switched off, on any stream (captured or generated) cut into
any reads, and the builders with the constructors.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from lane_runs import same_event
from test_gemini_fuzz import BODIES, FUZZ, split, streams

from sse_engine import SSEEngineError
from sse_engine.gemini import (
    GeminiChunk,
    GeminiLane,
    TextPart,
    ThoughtPart,
    UsageMetadata,
    encode_gemini_event,
)
from sse_engine.gemini._events import new_chunk, new_text_part, new_usage


class GeneralLane(GeminiLane):
    """The lane with its fast path off: every candidate takes the general path."""

    def _on_plain_candidate(self, candidate: Any, raw: dict[str, Any], out: list[Any]) -> bool:
        return False


def run(lane: GeminiLane, chunks: list[bytes]) -> Any:
    """Everything the lane gives: events (with ``raw``, outside equality), snapshot, verdict."""
    events: list[Any] = []
    failure = None
    try:
        for piece in chunks:
            events += lane.feed(piece)
        events += lane.close()
    except SSEEngineError as exc:
        events += getattr(exc, "events", [])
        failure = str(exc)
    return (events, [getattr(e, "raw", None) for e in events], [repr(e) for e in events],
            json.dumps(lane.snapshot.to_api(), sort_keys=True), lane.snapshot.text,
            lane.snapshot.candidates[0].thoughts if 0 in lane.snapshot.candidates else None,
            lane.outcome, lane.error, lane.warnings, failure)


def both(chunks: list[bytes], strict: bool) -> None:
    assert run(GeminiLane(strict=strict), chunks) == run(GeneralLane(strict=strict), chunks)


@st.composite
def any_split(draw: st.DrawFn) -> tuple[list[bytes], bool]:
    body = draw(st.one_of(st.sampled_from(sorted(BODIES)).map(BODIES.__getitem__), streams()))
    return draw(split(body)), draw(st.booleans())


@FUZZ
@given(any_split())
def test_the_fast_path_gives_what_the_general_path_gives(case: tuple[list[bytes], bool]) -> None:
    both(*case)


def _chunk(candidate: dict[str, Any]) -> bytes:
    return encode_gemini_event({"candidates": [candidate], "modelVersion": "m"})


_text = {"content": {"parts": [{"text": "a"}], "role": "model"}}
# Candidates one step away from the common shape: each takes the general path.
_NEAR = [
    _text,
    {"content": {"parts": [{"text": "b", "thought": True}], "role": "model"}},
    {"content": {"parts": [{"text": "b", "thought": "yes"}]}},
    {"content": {"parts": [{"text": "b", "thoughtSignature": "c2ln"}]}},
    {"content": {"parts": [{"text": "b"}, {"functionCall": {"name": "f", "args": {}}}]}},
    {"content": {"parts": [{"text": 3}]}},
    {"content": {"parts": [{"text": "b"}, "no"]}},
    {"content": {"parts": "no"}},
    {"content": {"role": "model"}},
    {"content": {"parts": []}},
    {"content": {"parts": [{"text": "b"}]}, "index": 0},
    {"content": {"parts": [{"text": "b"}]}, "finishReason": "STOP"},
    {"content": "no"},
    {"content": {"parts": [{"text": "c"}]}, "safetyRatings": []},
]


@pytest.mark.parametrize("strict", [False, True])
@given(st.lists(st.sampled_from(_NEAR), max_size=6))
@settings(max_examples=examples(20, thorough=150), deadline=None)
def test_near_misses_of_the_common_shape(strict: bool, later: list[dict[str, Any]]) -> None:
    body = b"".join(_chunk(candidate) for candidate in [_text, *later])
    both([body], strict)


def test_the_common_chunks_take_the_fast_path() -> None:
    """So that the properties above compare two paths, not one with itself."""
    taken: list[bool] = []

    class Watched(GeminiLane):
        def _on_plain_candidate(
            self, candidate: Any, raw: dict[str, Any], out: list[Any]
        ) -> bool:
            done = super()._on_plain_candidate(candidate, raw, out)
            taken.append(done)
            return done

    thought = {"content": {"parts": [{"text": "t", "thought": True}], "role": "model"}}
    lane = Watched()
    lane.feed(b"".join(_chunk(c) for c in (_text, thought, _text)))
    assert taken == [False, True, True]
    assert lane.snapshot.text == "aa" and lane.snapshot.candidates[0].thoughts == "t"


_raw = st.dictionaries(st.text(max_size=3), st.integers(), max_size=3)


@given(st.integers(), st.text(), st.none() | st.text(), _raw, _raw)
def test_the_builders_make_what_the_constructors_make(
    candidate: int, text: str, signature: str | None, usage: dict[str, Any], raw: dict[str, Any]
) -> None:
    same_event(new_chunk(raw), GeminiChunk(raw))
    same_event(new_usage(usage, raw), UsageMetadata(usage, raw=raw))
    same_event(new_text_part(False, candidate, text, signature, raw),
               TextPart(candidate, text, signature, raw=raw))
    same_event(new_text_part(True, candidate, text, signature, raw),
               ThoughtPart(candidate, text, signature, raw=raw))
