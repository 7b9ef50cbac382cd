"""Property tests for the Messages lane: chunk invariance, garbage input, cuts at any byte."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from event_types import check_event
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_messages import capture, message_start

from sse_engine import Outcome, SSEEngineError
from sse_engine.messages import MessagesLane

CAPTURES = [
    "messages_basic.sse",
    "messages_thinking.sse",
    "messages_web_search.sse",
    "messages_gateway.sse",
    "messages_max_tokens.sse",
    "messages_truncated.sse",
    "messages_error.sse",
]
BODIES = {name: capture(name) for name in CAPTURES}
FUZZ = settings(
    max_examples=examples(17, thorough=200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def outcome_of(chunks: list[bytes]) -> tuple[list[Any], dict[str, Any], Any, list[str]]:
    lane = MessagesLane()
    events: list[Any] = []
    for chunk in chunks:
        events += lane.feed(chunk)
    events += lane.close()
    return events, lane.snapshot.to_api(), lane.outcome, [w.code for w in lane.warnings]


WHOLE = {name: outcome_of([body]) for name, body in BODIES.items()}


@st.composite
def split(draw: st.DrawFn, body: bytes) -> list[bytes]:
    cuts = sorted(set(draw(st.lists(st.integers(0, len(body)), max_size=40))))
    bounds = [0, *cuts, len(body)]
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


@FUZZ
@given(st.data())
def test_any_chunking_gives_identical_events_and_snapshot(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(CAPTURES))
    chunks = data.draw(split(BODIES[name]))
    assert outcome_of(chunks) == WHOLE[name]


@pytest.mark.parametrize("name", ["messages_basic.sse", "messages_thinking.sse"])
def test_one_byte_at_a_time_gives_identical_results(name: str) -> None:
    body = BODIES[name]
    assert outcome_of([body[i : i + 1] for i in range(len(body))]) == WHOLE[name]


def feed_all(lane: MessagesLane, chunks: list[bytes]) -> None:
    """Feed and close: only SSEEngineError escapes, every event holds its declared types."""
    events: list[Any] = []
    try:
        for chunk in chunks:
            events += lane.feed(chunk)
        events += lane.close()
    except SSEEngineError as exc:
        events += getattr(exc, "events", [])
        assert lane.outcome is not None  # a failure leaves a verdict behind
        # The lane validates what it reads: no stray KeyError/TypeError reached
        # the base class's last-resort wrapper.
        assert "cannot interpret" not in str(exc)
    for event in events:
        check_event(event, "messages")


@FUZZ
@given(st.lists(st.binary(max_size=200), max_size=8), st.booleans())
def test_random_bytes_only_raise_engine_errors(chunks: list[bytes], strict: bool) -> None:
    feed_all(MessagesLane(strict=strict), chunks)


@FUZZ
@given(st.lists(st.binary(max_size=60), max_size=6))
def test_random_bytes_after_a_valid_prefix_only_raise_engine_errors(chunks: list[bytes]) -> None:
    feed_all(MessagesLane(), [message_start(), *chunks])


_scalar = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
)
_value = (
    _scalar
    | st.lists(_scalar, max_size=3)
    | st.dictionaries(st.sampled_from(["type", "text", "input_tokens"]), _scalar, max_size=2)
)
_TYPES = [
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
    "error",
    "mystery",
]
_DELTAS = [
    "text_delta",
    "input_json_delta",
    "thinking_delta",
    "signature_delta",
    "citations_delta",
    "mystery_delta",
]
_BLOCKS = [
    "text",
    "thinking",
    "tool_use",
    "server_tool_use",
    "redacted_thinking",
    "web_search_tool_result",
    "mystery",
]
_FIELDS = [
    "index",
    "message",
    "content_block",
    "delta",
    "usage",
    "error",
    "text",
    "partial_json",
    "thinking",
    "signature",
    "citation",
    "stop_reason",
    "input",
]


@st.composite
def typed_payload(draw: st.DrawFn) -> dict[str, Any]:
    """A dict with a real ``type`` (and nested delta / block types) but random field values."""
    payload: dict[str, Any] = draw(st.dictionaries(st.sampled_from(_FIELDS), _value, max_size=4))
    payload["type"] = draw(st.sampled_from(_TYPES))
    if draw(st.booleans()):
        payload["index"] = draw(st.integers(-1, 3))
    if draw(st.booleans()):
        inner = draw(st.dictionaries(st.sampled_from(_FIELDS), _value, max_size=3))
        inner["type"] = draw(st.sampled_from(_DELTAS) | _value)
        payload["delta"] = inner
    if draw(st.booleans()):
        block = draw(st.dictionaries(st.sampled_from(_FIELDS), _value, max_size=3))
        block["type"] = draw(st.sampled_from(_BLOCKS) | _value)
        payload["content_block"] = block
    return payload


@settings(FUZZ, max_examples=examples(5, thorough=150))
@given(st.lists(typed_payload(), max_size=10), st.booleans(), st.booleans())
def test_random_typed_payloads_only_raise_engine_errors(
    payloads: list[dict[str, Any]], strict: bool, with_start: bool
) -> None:
    frames = [f"event: {p['type']}\ndata: {json.dumps(p)}\n\n".encode() for p in payloads]
    lane = MessagesLane(strict=strict)
    feed_all(lane, [message_start()] * with_start + frames)
    json.dumps(lane.snapshot.to_api())  # the snapshot stays JSON-ready whatever came


def _outcome_before(body: bytes, cut: int) -> Outcome | None:
    lane = MessagesLane()
    lane.feed(body[:cut])
    return lane.outcome


@FUZZ
@given(st.data())
def test_a_cut_at_any_byte_is_truncated_or_the_outcome_already_reached(
    data: st.DataObject,
) -> None:
    name = data.draw(st.sampled_from(CAPTURES))
    body = BODIES[name]
    cut = data.draw(st.integers(0, len(body)))
    lane = MessagesLane()
    lane.feed(body[:cut])
    reached = lane.outcome
    lane.close()
    if reached is None:
        assert lane.outcome is Outcome.TRUNCATED
        assert lane.error is not None and lane.error.retryable
    else:
        assert lane.outcome is reached is WHOLE[name][2]
    json.dumps(lane.snapshot.to_api())
