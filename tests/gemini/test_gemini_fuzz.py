"""Properties of the Gemini lane: any split reads the same, hostile input raises only library
errors, and the encoder is the lane's inverse.

Streams are the bundled captures and generated ones (several candidates, every kind
of part, signatures, usage, finish and block reasons, error frames, fields the lane
does not know), fed whole, in arbitrary reads and byte by byte.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import orjson
import pytest
from event_types import check_event
from gemini_cases import GEMINI_STREAMS, capture, chunk, text
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from sse_engine import Outcome, SSEEngineError, StreamEnd, encode_lane_events
from sse_engine.gemini import GeminiLane, encode_gemini_event

FUZZ = settings(
    max_examples=examples(8, thorough=200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
BODIES = {name: capture(name) for name in GEMINI_STREAMS}


def outcome_of(chunks: list[bytes], **options: Any) -> tuple[Any, ...]:
    """Everything that must not depend on how the bytes were read."""
    lane = GeminiLane(**options)
    events: list[Any] = []
    failure = None
    try:
        for piece in chunks:
            events += lane.feed(piece)
        events += lane.close()
    except SSEEngineError as exc:  # anything else escapes and fails the test
        events += getattr(exc, "events", [])
        failure = str(exc)
    for event in events:
        check_event(event, "gemini")
    assert [e for e in events if isinstance(e, StreamEnd)] == [StreamEnd(lane.outcome, lane.error)]
    api = json.dumps(lane.snapshot.to_api(), allow_nan=False, sort_keys=True)
    return (events, [(e.raw if hasattr(e, "raw") else None) for e in events], api,
            lane.outcome, lane.error, [(w.code, w.event_index) for w in lane.warnings], failure)


@st.composite
def split(draw: st.DrawFn, body: bytes) -> list[bytes]:
    cuts = sorted(set(draw(st.lists(st.integers(0, len(body)), max_size=30))))
    return [body[a:b] for a, b in itertools.pairwise([0, *cuts, len(body)])]


# -- generated streams ----------------------------------------------------------------------

_text = st.text(max_size=8)
_scalar = st.none() | st.booleans() | st.integers(-5, 10**6) | _text
_value = st.recursive(_scalar, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(_text, inner, max_size=3), max_leaves=6)
_signature = st.none() | st.sampled_from(["c2ln", "QUJD", ""])
_REASONS = ["STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "MALFORMED_FUNCTION_CALL", "OTHER",
            "NEW_REASON"]


@st.composite
def parts(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["text", "thought", "call", "image", "odd"]))
    part: dict[str, Any]
    if kind in ("text", "thought"):
        part = {"text": draw(_text)}
        if kind == "thought":
            part["thought"] = True
    elif kind == "call":
        body: dict[str, Any] = {"name": draw(st.sampled_from(["f", "g", ""])),
                                "args": draw(st.dictionaries(_text, _value, max_size=3))}
        if draw(st.booleans()):
            body["id"] = draw(_text)
        part = {"functionCall": body}
    elif kind == "image":
        part = {"inlineData": {"mimeType": "image/png", "data": "AAAA"}}
    else:
        part = draw(st.dictionaries(st.sampled_from(["text", "thought", "x", "functionCall"]),
                                    _value, min_size=1, max_size=3))
    signature = draw(_signature)
    if signature is not None:
        part["thoughtSignature"] = signature
    return part


@st.composite
def responses(draw: st.DrawFn) -> dict[str, Any]:
    """One chunk: candidates with parts and maybe a finish, usage, feedback, other fields."""
    out: dict[str, Any] = {}
    candidates = []
    for position in range(draw(st.integers(0, 2))):
        candidate: dict[str, Any] = {}
        if draw(st.booleans()):
            candidate["content"] = {"parts": draw(st.lists(parts(), max_size=3)), "role": "model"}
        if draw(st.integers(0, 3)) == 0:
            candidate["finishReason"] = draw(st.sampled_from(_REASONS))
        if draw(st.booleans()):
            candidate["index"] = draw(st.integers(0, 2)) if draw(st.booleans()) else position
        if draw(st.integers(0, 4)) == 0:
            candidate["safetyRatings"] = draw(_value)
        candidates.append(candidate)
    if candidates or draw(st.booleans()):
        out["candidates"] = candidates
    if draw(st.booleans()):
        out["usageMetadata"] = {"promptTokenCount": draw(st.integers(0, 99)),
                                "candidatesTokenCount": draw(st.integers(0, 99))}
    if draw(st.integers(0, 6)) == 0:
        out["promptFeedback"] = {"blockReason": draw(st.sampled_from(["SAFETY", "OTHER", "X"]))}
    out["modelVersion"] = "gemini-test"
    if draw(st.integers(0, 5)) == 0:
        out[draw(_text)] = draw(_value)
    return out


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    frames = [encode_gemini_event(r) for r in draw(st.lists(responses(), max_size=6))]
    if draw(st.integers(0, 5)) == 0:
        frames.append(encode_gemini_event(
            {"error": {"code": 503, "message": draw(_text), "status": "UNAVAILABLE"}}))
    if draw(st.integers(0, 5)) == 0:
        odd = draw(st.sampled_from([b"42", b'"x"', b"[]", b"null"]))
        frames.append(b"data: " + odd + b"\r\n\r\n")
    return b"".join(frames)


# -- any split reads the same --------------------------------------------------------------------


@FUZZ
@given(st.data())
def test_any_split_of_a_capture_gives_the_same_events_snapshot_and_outcome(
    data: st.DataObject,
) -> None:
    name = data.draw(st.sampled_from(GEMINI_STREAMS))
    body = BODIES[name]
    assert outcome_of(data.draw(split(body))) == outcome_of([body])


@pytest.mark.parametrize("name", GEMINI_STREAMS)
def test_one_byte_at_a_time_gives_the_same_result(name: str) -> None:
    body = BODIES[name]
    assert outcome_of([body[i : i + 1] for i in range(len(body))]) == outcome_of([body])


@FUZZ
@given(body=streams(), data=st.data(), strict=st.booleans())
def test_any_split_of_a_generated_stream_gives_the_same_result(
    body: bytes, data: st.DataObject, strict: bool
) -> None:
    whole = outcome_of([body], strict=strict)
    assert outcome_of(data.draw(split(body)), strict=strict) == whole
    assert outcome_of([body], json_loads=orjson.loads, strict=strict)[2:] == whole[2:]


# -- hostile input --------------------------------------------------------------------------------


@FUZZ
@given(st.lists(st.binary(max_size=200), max_size=8), st.booleans())
def test_random_bytes_only_raise_engine_errors(chunks: list[bytes], strict: bool) -> None:
    outcome_of(chunks, strict=strict)


@FUZZ
@given(st.lists(st.binary(max_size=60), max_size=6))
def test_random_bytes_after_a_valid_prefix_only_raise_engine_errors(chunks: list[bytes]) -> None:
    outcome_of([chunk(text("Hello")), *chunks])


@FUZZ
@given(st.lists(_value, max_size=6), st.booleans())
def test_random_json_only_raises_engine_errors(values: list[Any], strict: bool) -> None:
    frames = [b"data: " + json.dumps(v).encode() + b"\r\n\r\n" for v in values]
    outcome_of(frames, strict=strict)


@FUZZ
@given(st.lists(st.dictionaries(
    st.sampled_from(["candidates", "usageMetadata", "promptFeedback", "modelVersion", "error",
                     "responseId", "content", "parts", "finishReason", "index", "text",
                     "functionCall", "thought", "thoughtSignature", "args", "name", "status"]),
    _value | st.lists(st.dictionaries(st.sampled_from(["content", "parts", "index", "text",
                                                         "finishReason"]), _value, max_size=3),
                      max_size=2), max_size=4), max_size=6))
def test_payloads_of_the_right_keys_and_wrong_values_only_raise_engine_errors(
    payloads: list[dict[str, Any]],
) -> None:
    outcome_of([encode_gemini_event(p) for p in payloads])


DEEP = 5000


@pytest.mark.parametrize("loads", [json.loads, orjson.loads])
@pytest.mark.parametrize(
    "where",
    [
        '{"candidates": [{"content": {"parts": [{"text": "a", "x": %s}]}}]}',
        '{"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": %s}}]}}]}',
        '{"candidates": [{"safetyRatings": %s}]}',
        '{"usageMetadata": %s, "modelVersion": "m"}',
        '{"error": %s}',
        "%s",
    ],
)
@pytest.mark.parametrize("depth", [200, 1000, DEEP])
def test_deep_nesting_anywhere_gives_a_verdict_and_plain_json(
    loads: Any, where: str, depth: int
) -> None:
    deep = "[" * depth + "1" + "]" * depth
    body = chunk(text("before")) + b"data: " + (where % deep).encode() + b"\r\n\r\n"
    _events, _, api, outcome, *_ = outcome_of([body], json_loads=loads)
    assert outcome is not None
    json.loads(api)


# -- the encoder is the lane's inverse -----------------------------------------------------


@pytest.mark.parametrize("name", GEMINI_STREAMS)
def test_encoding_a_captures_events_gives_the_capture_back_byte_for_byte(name: str) -> None:
    lane = GeminiLane()
    events = lane.feed(BODIES[name]) + lane.close()
    encoded = b"".join(encode_lane_events(lane, events))
    whole = BODIES[name]
    # A capture cut inside an event lost that event: the rest comes back exactly.
    assert encoded == whole[: whole.rfind(b"\r\n\r\n") + 4]


@FUZZ
@given(body=streams())
@example(body=b'event: error\r\ndata: {"message": "x"}\r\n\r\n')
@example(body=b"event: error\r\ndata: plain text\r\n\r\n")
def test_encoded_events_read_back_to_the_same_events_snapshot_and_outcome(body: bytes) -> None:
    lane = GeminiLane()
    events = lane.feed(body) + lane.close()
    again = b"".join(encode_lane_events(GeminiLane, events))
    assert outcome_of([again])[::2] == outcome_of([body])[::2]  # events, api, error, failure


def test_a_cut_at_any_byte_is_truncated_or_failed_never_completed_early() -> None:
    body = BODIES["gemini_basic.sse"]
    # Cut before its last byte: the last event's blank line is "\r\n" or a lone "\r"
    # (which ends a line too), so the stream is whole there.
    for cut in range(len(body) - 1):
        lane = GeminiLane()
        lane.feed(body[:cut])
        lane.close()
        assert lane.outcome is Outcome.TRUNCATED, cut
        json.dumps(lane.snapshot.to_api())
