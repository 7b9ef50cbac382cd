"""Properties of the Responses lane under hypothesis: chunking, garbage, truncation."""

from __future__ import annotations

import json
from typing import Any

from event_types import check_event
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_responses import REFERENCE_TYPES, payload_for
from test_responses_support import capture, frames, run

from sse_engine import LaneEvent, Outcome, SSEEngineError, StreamEnd, StreamRestarted
from sse_engine.responses import ResponsesLane

SETTINGS = settings(
    max_examples=examples(16, thorough=200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

CAPTURES = [
    "responses_basic.sse",
    "responses_truncated.sse",
    "responses_error.sse",
    "responses_max_tokens.sse",
    "responses_refusal.sse",
    "responses_reasoning.sse",
    "responses_slow_start_failed.sse",
    "responses_kindo_agent.sse",
]
BODIES = {name: capture(name) for name in CAPTURES}

# The outcome each capture reaches, and the bytes after which it is known.
VERDICTS: dict[str, tuple[Outcome, int]] = {}
for _name, _body in BODIES.items():
    _lane = ResponsesLane()
    _known_at = len(_body) + 1
    for _i in range(len(_body)):
        _lane.feed(_body[_i : _i + 1])
        if _lane.outcome is not None:
            _known_at = _i + 1
            break
    _lane.close()
    assert _lane.outcome is not None
    VERDICTS[_name] = (_lane.outcome, _known_at)


def observe(lane: ResponsesLane, events: list[LaneEvent]) -> tuple[Any, ...]:
    raws = [e.raw for e in events if not isinstance(e, StreamEnd | StreamRestarted)]
    warnings = [(w.code, w.event_index) for w in lane.warnings]
    return events, raws, lane.snapshot.to_api(), lane.outcome, lane.error, warnings


@st.composite
def chunk_sizes(draw: st.DrawFn) -> list[int]:
    return draw(st.lists(st.integers(min_value=1, max_value=900), min_size=1, max_size=60))


@SETTINGS
@given(name=st.sampled_from(CAPTURES), sizes=chunk_sizes())
def test_any_chunking_gives_the_same_events_and_snapshot(name: str, sizes: list[int]) -> None:
    body = BODIES[name]
    whole = observe(*run(body))
    assert observe(*run(body, sizes)) == whole


@SETTINGS
@given(name=st.sampled_from(CAPTURES), single=st.booleans())
def test_byte_by_byte_feeding_gives_the_same_result(name: str, single: bool) -> None:
    body = BODIES[name]
    sizes = [1] * len(body) if single else [2] * len(body)
    assert observe(*run(body, sizes)) == observe(*run(body))


def survive(body: bytes, sizes: list[int], **options: Any) -> ResponsesLane:
    """Feed and close; only SSEEngineError subclasses may escape; the snapshot stays readable.

    Every event given holds the types its class declares (an ``int``
    ``output_index`` is never None, a ``type`` is one of its class's Literal).
    """
    lane = ResponsesLane(**options)
    events: list[Any] = []
    try:
        pos = 0
        for size in sizes:
            events += lane.feed(body[pos : pos + size])
            pos += size
        events += lane.feed(body[pos:])
        events += lane.close()
    except SSEEngineError as exc:
        events += getattr(exc, "events", [])
    for event in events:
        check_event(event, "responses")
    json.dumps(lane.snapshot.to_api())
    lane.resume_plan()
    return lane


@SETTINGS
@given(body=st.binary(max_size=3000), sizes=chunk_sizes(), strict=st.booleans())
def test_random_bytes_only_raise_engine_errors(body: bytes, sizes: list[int], strict: bool) -> None:
    survive(body, sizes, strict=strict)


@SETTINGS
@given(
    name=st.sampled_from(CAPTURES),
    flips=st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 255)), max_size=8),
)
def test_corrupted_captures_only_raise_engine_errors(
    name: str, flips: list[tuple[int, int]]
) -> None:
    body = bytearray(BODIES[name])
    for position, value in flips:
        body[position % len(body)] = value
    survive(bytes(body), [97] * (len(body) // 97))


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**40), max_value=2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)

TERMINAL = {"error", "response.completed", "response.incomplete", "response.failed"}
FIELD_NAMES = sorted({f for fields in REFERENCE_TYPES.values() for f in fields} | {"type"})


@st.composite
def random_payload(draw: st.DrawFn) -> dict[str, Any]:
    """An event with a real type and random values for its fields (some left valid)."""
    kind = draw(st.sampled_from(sorted(REFERENCE_TYPES)))
    payload = payload_for(kind)
    for field in draw(
        st.lists(
            st.sampled_from(
                [*REFERENCE_TYPES[kind], "sequence_number", "response", "item", "part", "delta"]
            )
        )
    ):
        payload[field] = draw(JSON_VALUES)
    if draw(st.booleans()):
        payload.pop("sequence_number", None)
    for field in draw(st.lists(st.sampled_from(FIELD_NAMES), max_size=3)):
        payload[field] = draw(JSON_VALUES)
    return payload


@settings(SETTINGS, max_examples=examples(5, thorough=120))
@given(
    payloads=st.lists(random_payload(), min_size=1, max_size=8),
    event_lines=st.booleans(),
    strict=st.booleans(),
)
def test_random_json_payloads_only_raise_engine_errors(
    payloads: list[dict[str, Any]], event_lines: bool, strict: bool
) -> None:
    parts = []
    for payload in payloads:
        head = f"event: {payload.get('type')}\n" if event_lines else ""
        parts.append(f"{head}data: {json.dumps(payload)}\n\n")
    survive("".join(parts).encode(), [], strict=strict)


@SETTINGS
@given(
    shape=st.lists(st.sampled_from(sorted(REFERENCE_TYPES)), min_size=1, max_size=20),
    numbered=st.booleans(),
)
def test_valid_payloads_in_any_order_never_crash(shape: list[str], numbered: bool) -> None:
    payloads = [payload_for(kind) for kind in shape]
    for payload in payloads:
        del payload["sequence_number"]
    lane, events = run(frames(payloads, numbered=numbered))
    for event in events:
        check_event(event, "responses")
    seen = [e.type for e in events if not isinstance(e, StreamEnd | StreamRestarted)]
    ended = next((i for i, kind in enumerate(shape) if kind in TERMINAL), len(shape) - 1)
    assert seen[: ended + 1] == shape[: ended + 1]
    assert lane.outcome is not None
    json.dumps(lane.snapshot.to_api())


@SETTINGS
@given(name=st.sampled_from(CAPTURES), data=st.data())
def test_truncating_a_stream_anywhere_is_truncated_or_the_outcome_before(
    name: str, data: st.DataObject
) -> None:
    body = BODIES[name]
    cut = data.draw(st.integers(min_value=0, max_value=len(body)))
    lane, events = run(body[:cut], data.draw(chunk_sizes()))
    outcome, known_at = VERDICTS[name]
    expected = outcome if cut >= known_at else Outcome.TRUNCATED
    assert lane.outcome is expected
    assert [e.outcome for e in events if isinstance(e, StreamEnd)] == [expected]
    if expected is Outcome.TRUNCATED:
        assert lane.error is not None and lane.error.retryable
    json.dumps(lane.snapshot.to_api())
