"""The Gemini lane, one behaviour per test (the SDK oracle: test_gemini_sdk.py)."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from gemini_cases import (
    GEMINI_STREAMS,
    MODEL,
    RESPONSE_ID,
    call,
    capture,
    chunk,
    error_frame,
    payload,
    run,
    text,
    thought,
    usage,
)

from sse_engine import FORMATS, Outcome, ProtocolError, StreamEnd, StreamError
from sse_engine.gemini import (
    BLOCK_REASONS,
    COMPLETED_FINISH_REASONS,
    FAILED_FINISH_REASONS,
    INCOMPLETE_FINISH_REASONS,
    CandidateField,
    CandidateFinish,
    FunctionCallPart,
    GeminiChunk,
    GeminiError,
    GeminiLane,
    GeminiUnknownFrame,
    OtherPart,
    PromptFeedback,
    TextPart,
    ThoughtPart,
    UsageMetadata,
    encode_gemini_event,
)

# -- the bundled captures ---------------------------------------------------------------------

#: Each capture's verdict, error code and what its text says.
CAPTURE_VERDICTS: dict[str, tuple[Outcome, str | None, str]] = {
    "gemini_basic.sse": (
        Outcome.COMPLETED, None, "I'll check the current weather in Zürich for you.",
    ),
    "gemini_thinking.sse": (
        Outcome.COMPLETED, None,
        "9.9 is larger than 9.11. Written with the same number of decimals, 9.90 > 9.11.",
    ),
    "gemini_tools_two.sse": (Outcome.COMPLETED, None, "Checking both cities."),
    "gemini_max_tokens.sse": (
        Outcome.INCOMPLETE, None,
        "The history of the printing press begins with Johannes Gutenberg, who around 1440"
        " combined movable metal type with",
    ),
    "gemini_safety.sse": (Outcome.INCOMPLETE, None, "To make the mixture you would first"),
    "gemini_prompt_blocked.sse": (Outcome.INCOMPLETE, None, ""),
    "gemini_error.sse": (
        Outcome.FAILED, "UNAVAILABLE", "Let me think about the best way to explain",
    ),
    "gemini_truncated.sse": (
        Outcome.TRUNCATED, "stream_truncated", "Here is a short poem about the sea:\n\nWaves fold",
    ),
}


def test_every_capture_has_its_verdict_here() -> None:
    assert set(CAPTURE_VERDICTS) == set(GEMINI_STREAMS)


@pytest.mark.parametrize("name", sorted(CAPTURE_VERDICTS))
def test_each_capture_ends_with_its_verdict(name: str) -> None:
    lane, events = run(capture(name))
    outcome, code, said = CAPTURE_VERDICTS[name]
    assert lane.outcome is outcome
    assert (lane.error.code if lane.error else None) == code
    assert lane.snapshot.text == said
    ends = [e for e in events if isinstance(e, StreamEnd)]
    assert ends == [events[-1]] == [StreamEnd(outcome, lane.error)]
    expected_warnings = ["unterminated_event"] if name == "gemini_truncated.sse" else []
    assert [w.code for w in lane.warnings] == expected_warnings


def test_basic_capture_event_sequence() -> None:
    _, events = run(capture("gemini_basic.sse"))
    assert [type(e) for e in events] == [
        *[GeminiChunk, TextPart, UsageMetadata] * 6,
        GeminiChunk, FunctionCallPart, CandidateFinish, UsageMetadata,
        StreamEnd,
    ]
    (weather,) = [e for e in events if isinstance(e, FunctionCallPart)]
    assert (weather.candidate, weather.index, weather.id, weather.name, weather.args) == (
        0, 0, None, "get_weather", {"city": "Zürich", "unit": "celsius"})
    assert weather.signature is not None and weather.part["thoughtSignature"] == weather.signature


def test_events_keep_their_chunk_as_raw_out_of_equality() -> None:
    _, events = run(chunk(text("Hi")))
    first, part = events[0], events[1]
    assert isinstance(first, GeminiChunk) and isinstance(part, TextPart)
    assert part.raw is first.raw
    assert part == TextPart(0, "Hi", raw={"other": 1})
    assert "raw" not in repr(part)


def test_the_verdict_waits_for_the_end_of_the_stream() -> None:
    """The API sends no end event: a finished candidate is not the end of the stream."""
    lane = GeminiLane()
    events = lane.feed(chunk(text("Hi"), finish="STOP", index=0))
    assert lane.outcome is None and not any(isinstance(e, StreamEnd) for e in events)
    # Google may still send a usage-only chunk after the finish.
    lane.feed(encode_gemini_event({"usageMetadata": usage(3, 1), "modelVersion": MODEL}))
    assert lane.close() == [StreamEnd(Outcome.COMPLETED)]
    assert lane.snapshot.usage == usage(3, 1)


# -- outcomes ---------------------------------------------------------------------------------

INCOMPLETE = sorted(INCOMPLETE_FINISH_REASONS)
FAILED = sorted(FAILED_FINISH_REASONS)


@pytest.mark.parametrize(
    ("reason", "outcome"),
    [("STOP", Outcome.COMPLETED)]
    + [(r, Outcome.INCOMPLETE) for r in INCOMPLETE]
    + [(r, Outcome.FAILED) for r in FAILED],
)
def test_finish_reason_decides_the_outcome(reason: str, outcome: Outcome) -> None:
    lane, _ = run(chunk(text("Hello")) + chunk(finish=reason, index=0))
    assert lane.outcome is outcome
    if outcome is Outcome.FAILED:
        assert lane.error is not None and lane.error.code == reason
        assert lane.error.message == f"candidate 0 finished with {reason}"
        # The request itself must change for these two; the others may come out right.
        assert lane.error.retryable == (
            reason not in ("MISSING_THOUGHT_SIGNATURE", "PUP_LIMITED_DISABLED"))
    else:
        assert lane.error is None
    assert lane.warnings == []


def test_the_tables_cover_every_finish_reason_google_genai_knows() -> None:
    from google.genai import types

    known = {reason.value for reason in types.FinishReason} - {"FINISH_REASON_UNSPECIFIED"}
    ours = COMPLETED_FINISH_REASONS | INCOMPLETE_FINISH_REASONS | FAILED_FINISH_REASONS
    assert known == ours
    assert not COMPLETED_FINISH_REASONS & INCOMPLETE_FINISH_REASONS
    assert not (COMPLETED_FINISH_REASONS | INCOMPLETE_FINISH_REASONS) & FAILED_FINISH_REASONS
    assert {reason.value for reason in types.BlockedReason} == BLOCK_REASONS


@pytest.mark.parametrize("reason", ["FINISH_REASON_UNSPECIFIED", "SOMETHING_NEW"])
def test_an_unknown_finish_reason_completes_with_a_warning(reason: str) -> None:
    lane, _ = run(chunk(text("Hi"), finish=reason))
    assert lane.outcome is Outcome.COMPLETED
    assert [w.code for w in lane.warnings] == ["unknown_finish_reason"]


@pytest.mark.parametrize("reason", [*sorted(BLOCK_REASONS), "A_NEW_REASON"])
def test_a_blocked_prompt_is_incomplete_whatever_the_block_reason(reason: str) -> None:
    feedback = {"blockReason": reason, "safetyRatings": []}
    lane, events = run(encode_gemini_event(
        {"promptFeedback": feedback, "usageMetadata": usage(9, 0), "modelVersion": MODEL}))
    assert lane.outcome is Outcome.INCOMPLETE and lane.error is None
    (event,) = [e for e in events if isinstance(e, PromptFeedback)]
    assert (event.feedback, event.block_reason) == (feedback, reason)
    assert lane.snapshot.block_reason == reason


def test_prompt_feedback_without_a_block_reason_blocks_nothing() -> None:
    lane, events = run(encode_gemini_event(payload(
        text("Hi"), finish="STOP", promptFeedback={"safetyRatings": []})))
    assert lane.outcome is Outcome.COMPLETED
    (event,) = [e for e in events if isinstance(e, PromptFeedback)]
    assert event.block_reason is None


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b": keepalive\r\n\r\n",
        chunk(text("Hi")),
        chunk(text("Hi")) + chunk(text(" there"), finish="STOP")[:-20],
        encode_gemini_event({"usageMetadata": usage(3, 0), "modelVersion": MODEL}),
    ],
)
def test_a_stream_without_every_finish_reason_is_truncated(data: bytes) -> None:
    lane, _ = run(data)
    assert lane.outcome is Outcome.TRUNCATED
    assert lane.error is not None and lane.error.code == "stream_truncated"
    assert lane.error.retryable


def test_truncation_names_the_unfinished_candidates() -> None:
    two = encode_gemini_event({"candidates": [
        {"content": {"parts": [text("a")], "role": "model"}, "finishReason": "STOP", "index": 0},
        {"content": {"parts": [text("b")], "role": "model"}, "index": 1},
    ]})
    lane, _ = run(two)
    assert lane.error is not None
    assert lane.error.message == "the transport ended before the finishReason of candidate(s) [1]"


def test_several_candidates_are_kept_apart_by_index() -> None:
    def both(first: str, second: str, **more: Any) -> bytes:
        return encode_gemini_event({"candidates": [
            {"content": {"parts": [text(first)], "role": "model"}, "index": 0, **more},
            {"content": {"parts": [text(second)], "role": "model"}, "index": 1, **more},
        ]})

    lane, events = run(both("Hel", "Bon") + both("lo", "jour", finishReason="STOP"))
    assert lane.outcome is Outcome.COMPLETED
    assert [(c.index, c.text) for c in lane.snapshot.candidates.values()] == [
        (0, "Hello"), (1, "Bonjour")]
    assert [(e.candidate, e.text) for e in events if isinstance(e, TextPart)] == [
        (0, "Hel"), (1, "Bon"), (0, "lo"), (1, "jour")]
    # One cut short makes the whole response incomplete.
    cut = both("a", "b") + encode_gemini_event({"candidates": [
        {"finishReason": "STOP", "index": 0}, {"finishReason": "MAX_TOKENS", "index": 1}]})
    assert run(cut)[0].outcome is Outcome.INCOMPLETE


def test_a_candidate_without_index_is_its_position() -> None:
    body = encode_gemini_event({"candidates": [
        {"content": {"parts": [text("a")]}}, {"content": {"parts": [text("b")]}}]})
    lane, _ = run(body)
    assert {i: c.text for i, c in lane.snapshot.candidates.items()} == {0: "a", 1: "b"}


def test_a_stream_that_completes_empty_warns() -> None:
    lane, _ = run(chunk(text(""), finish="STOP"))
    assert lane.outcome is Outcome.COMPLETED
    assert [w.code for w in lane.warnings] == ["empty_completion"]


# -- errors ---------------------------------------------------------------------------------------

GOOGLE_STATUSES = [
    ("RESOURCE_EXHAUSTED", 429, True),
    ("UNAVAILABLE", 503, True),
    ("INTERNAL", 500, True),
    ("DEADLINE_EXCEEDED", 504, True),
    ("INVALID_ARGUMENT", 400, False),
    ("PERMISSION_DENIED", 403, False),
    ("NOT_FOUND", 404, False),
    ("UNAUTHENTICATED", 401, False),
]


@pytest.mark.parametrize(("status", "code", "retryable"), GOOGLE_STATUSES)
def test_an_error_frame_fails_the_stream_retryable_by_its_status(
    status: str, code: int, retryable: bool
) -> None:
    lane, events = run(chunk(text("Hi")) + error_frame(code, "it broke", status))
    assert lane.outcome is Outcome.FAILED
    assert lane.error is not None
    assert (lane.error.code, lane.error.message, lane.error.retryable) == (
        status, "it broke", retryable)
    assert lane.error.status is None  # in the stream: no HTTP status
    assert isinstance(events[-2], GeminiError) and events[-2].error == lane.error
    assert lane.snapshot.text == "Hi"  # what came before is kept


@pytest.mark.parametrize(("status", "code", "retryable"), GOOGLE_STATUSES)
@pytest.mark.parametrize("array", [False, True])
def test_a_prestream_error_body_fails_with_its_status(
    status: str, code: int, retryable: bool, array: bool
) -> None:
    envelope = {"error": {"code": code, "message": "no", "status": status}}
    body = json.dumps([envelope] if array else envelope).encode()
    lane = GeminiLane()
    lane.start(code, {"content-type": "application/json"})
    assert lane.feed(body) == []
    assert lane.close() == [StreamEnd(Outcome.FAILED, lane.error)]
    assert lane.error is not None
    assert (lane.error.code, lane.error.status, lane.error.retryable) == (status, code, retryable)
    assert lane.error.raw == ([envelope] if array else envelope)  # the body as sent


@pytest.mark.parametrize("name", ["gemini_prestream_429.json", "gemini_prestream_400.json"])
def test_prestream_captures(name: str) -> None:
    status = int(name.removesuffix(".json").rsplit("_", 1)[1])
    lane = GeminiLane()
    lane.start(status, {"content-type": "application/json; charset=UTF-8"})
    lane.feed(capture(name))
    lane.close()
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    expected = {429: ("RESOURCE_EXHAUSTED", True, 27.0), 400: ("INVALID_ARGUMENT", False, None)}
    assert (lane.error.code, lane.error.retryable, lane.error.retry_after) == expected[status]


def test_retry_delay_of_the_body_wins_over_no_header_and_yields_to_none() -> None:
    details = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.5s"}]
    body = {"error": {"code": 429, "message": "slow", "status": "RESOURCE_EXHAUSTED",
                      "details": details}}
    assert StreamError.from_payload(body).retry_after == 0.5
    for odd in ("soon", "-1s", "nans", 5, None):
        details[0]["retryDelay"] = odd
        assert StreamError.from_payload(body).retry_after is None


def test_an_error_event_line_fails_whatever_its_data() -> None:
    for data, message in ((b"overloaded", "overloaded"), (b"", "an error event without data")):
        lane, _events = run(chunk(text("Hi")) + b"event: error\r\ndata: " + data + b"\r\n\r\n")
        assert lane.outcome is Outcome.FAILED and lane.error is not None
        assert lane.error.message == message


def test_events_after_an_error_frame_are_ignored_with_a_warning() -> None:
    lane, _ = run(error_frame(500, "x", "INTERNAL") + chunk(text("late"), finish="STOP"))
    assert lane.outcome is Outcome.FAILED
    assert lane.snapshot.text == ""
    assert [w.code for w in lane.warnings] == ["event_after_end"]


def test_only_gemini_claims_googles_error_envelope() -> None:
    envelope = {"error": {"code": 503, "message": "x", "status": "UNAVAILABLE"}}
    for event, report in (("message", envelope), ("", envelope), ("", [envelope])):
        claims = [name for name, row in FORMATS.items() if row.recognize_error(event, report)]
        assert claims == ["gemini"], (event, report)


# -- parts -------------------------------------------------------------------------------------


def test_thought_and_text_parts_and_their_signatures() -> None:
    body = chunk(thought("plan", "c2ln")) + chunk(text("Hi", "dGV4dA==")) + chunk(finish="STOP")
    _, events = run(body)
    assert [e for e in events if isinstance(e, ThoughtPart | TextPart)] == [
        ThoughtPart(0, "plan", "c2ln", raw={}), TextPart(0, "Hi", "dGV4dA==", raw={})]


def test_a_call_with_its_own_id_and_one_without_args() -> None:
    _, events = run(chunk(call("now", {}, id="fc_1")) + chunk(
        {"functionCall": {"name": "ping"}}, finish="STOP"))
    calls = [e for e in events if isinstance(e, FunctionCallPart)]
    assert [(c.index, c.id, c.name, c.args) for c in calls] == [
        (0, "fc_1", "now", {}), (1, None, "ping", {})]


def test_a_call_without_a_name_warns() -> None:
    lane, events = run(chunk({"functionCall": {"args": {"a": 1}}}, finish="STOP"))
    (part,) = [e for e in events if isinstance(e, FunctionCallPart)]
    assert part.name == "" and part.args == {"a": 1}
    assert [w.code for w in lane.warnings] == ["tool_call_without_name"]


def test_unknown_parts_and_fields_pass_through() -> None:
    image = {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
    code = {"executableCode": {"language": "PYTHON", "code": "print(1)"}, "thoughtSignature": "s"}
    body = encode_gemini_event({
        "candidates": [{
            "content": {"parts": [image, code, text("done")], "role": "model", "x": 1},
            "finishReason": "STOP",
            "groundingMetadata": {"webSearchQueries": ["q"]},
            "index": 0,
        }],
        "modelVersion": MODEL,
        "futureField": {"a": [1]},
    })
    lane, events = run(body)
    others = [(e.kind, e.part) for e in events if isinstance(e, OtherPart)]
    assert others == [("inlineData", image), ("executableCode", code)]
    fields = [(e.key, e.value) for e in events if isinstance(e, CandidateField)]
    assert fields == [("groundingMetadata", {"webSearchQueries": ["q"]})]
    api = lane.snapshot.to_api()
    assert api["candidates"][0]["content"] == {
        "parts": [image, code, text("done")], "role": "model", "x": 1}
    assert api["candidates"][0]["groundingMetadata"] == {"webSearchQueries": ["q"]}
    assert api["futureField"] == {"a": [1]}
    assert lane.outcome is Outcome.COMPLETED and lane.warnings == []


def test_a_frame_that_is_no_response_passes_through() -> None:
    body = b"data: 42\r\n\r\n" + encode_gemini_event({"hello": 1}) + chunk(text("x"), finish="STOP")
    lane, events = run(body)
    unknown = [e.raw for e in events if isinstance(e, GeminiUnknownFrame)]
    assert unknown == [42, {"hello": 1}]
    assert [w.code for w in lane.warnings] == ["unexpected_frame"]
    assert lane.outcome is Outcome.COMPLETED


def test_empty_data_is_skipped_with_a_warning() -> None:
    lane, _ = run(b"data: \r\n\r\n" + chunk(text("x"), finish="STOP"))
    assert [w.code for w in lane.warnings] == ["empty_data"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (encode_gemini_event({"candidates": "x", "modelVersion": MODEL}), "bad_field"),
        (encode_gemini_event({"candidates": [3]}), "bad_field"),
        (encode_gemini_event({"candidates": [{"index": -1}]}), "bad_field"),
        (encode_gemini_event({"candidates": [{"content": []}]}), "bad_field"),
        (encode_gemini_event({"candidates": [{"content": {"parts": {}}}]}), "bad_field"),
        (encode_gemini_event({"candidates": [{"content": {"parts": ["x"]}}]}), "bad_field"),
        (chunk({"text": "x", "thought": "yes"}), "bad_field"),
        (chunk({"text": "x", "thoughtSignature": 5}), "bad_field"),
        (chunk({"functionCall": "x"}), "bad_field"),
        (chunk(call("f", {}) | {"functionCall": {"name": "f", "args": [1]}}), "bad_field"),
        (encode_gemini_event({"candidates": [{"finishReason": 7}]}), "bad_field"),
        (encode_gemini_event({"usageMetadata": [], "modelVersion": MODEL}), "bad_field"),
        (encode_gemini_event({"promptFeedback": 1, "modelVersion": MODEL}), "bad_field"),
    ],
)
def test_fields_of_the_wrong_type_warn_and_do_not_fail(body: bytes, code: str) -> None:
    lane, _ = run(body)
    assert code in [w.code for w in lane.warnings]
    assert lane.outcome is not Outcome.FAILED


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (chunk(text("a"), finish="STOP") + chunk(text("b")), "part_after_finish"),
        (chunk(text("a"), finish="STOP") + chunk(finish="MAX_TOKENS"), "finish_reason_changed"),
    ],
)
def test_ordering_anomalies_warn_or_raise_when_strict(body: bytes, code: str) -> None:
    lane, _ = run(body)
    assert code in [w.code for w in lane.warnings]
    strict = GeminiLane(strict=True)
    with pytest.raises(ProtocolError, match="strict mode") as raised:
        strict.feed(body)
    assert isinstance(raised.value.events[-1], StreamEnd)
    assert strict.outcome is Outcome.FAILED


@pytest.mark.parametrize("data", [b"data: {not json\r\n\r\n", b"data: [1,\r\n\r\n"])
def test_undecodable_data_is_a_protocol_error_that_keeps_the_snapshot(data: bytes) -> None:
    lane = GeminiLane()
    lane.feed(chunk(text("kept")))
    with pytest.raises(ProtocolError, match="invalid JSON in SSE event #1"):
        lane.feed(data)
    assert lane.snapshot.text == "kept" and lane.outcome is Outcome.FAILED


def test_orjson_loads_gives_the_same_result() -> None:
    for name in GEMINI_STREAMS:
        plain, _ = run(capture(name))
        fast, _ = run(capture(name), GeminiLane(json_loads=orjson.loads))
        assert fast.snapshot.to_api() == plain.snapshot.to_api()
        assert (fast.outcome, fast.error) == (plain.outcome, plain.error)


def test_the_response_id_and_model_are_kept() -> None:
    lane, _ = run(chunk(text("x"), finish="STOP"))
    assert (lane.snapshot.response_id, lane.snapshot.model_version) == (RESPONSE_ID, MODEL)


def test_a_chunk_that_says_error_null_is_no_failure() -> None:
    lane, _ = run(encode_gemini_event({**payload(text("ok"), finish="STOP"), "error": None}))
    assert lane.outcome is Outcome.COMPLETED and lane.snapshot.text == "ok"
    assert "error" not in lane.snapshot.to_api()
