"""The Gemini snapshot: the chunks merged into the response the API returns without streaming."""

from __future__ import annotations

import itertools
import json
from typing import Any

from gemini_cases import MODEL, RESPONSE_ID, call, capture, chunk, run, text, thought, usage
from hypothesis import example, given
from hypothesis import strategies as st

from sse_engine.gemini import GeminiLane, encode_gemini_event


def parts_of(data: bytes, candidate: int = 0) -> list[dict[str, Any]]:
    lane, _ = run(data)
    parts: list[dict[str, Any]] = lane.snapshot.to_api()["candidates"][candidate]["content"][
        "parts"]
    return parts


def test_adjacent_text_parts_join_and_thought_parts_join_apart() -> None:
    body = (chunk(thought("Let me ")) + chunk(thought("think.")) + chunk(text("The "))
            + chunk(text("answer.")) + chunk(finish="STOP"))
    assert parts_of(body) == [
        {"text": "Let me think.", "thought": True},
        {"text": "The answer."},
    ]


def test_a_signature_stays_on_the_part_it_came_with() -> None:
    # Gemini 3 sends the signature of a text answer on a last, empty, text part.
    body = chunk(text("Hi")) + chunk(text(" there")) + chunk(text("", "c2ln"), finish="STOP")
    assert parts_of(body) == [{"text": "Hi there", "thoughtSignature": "c2ln"}]
    # Gemini 2.5 sends it on the first part after the thinking.
    body = chunk(thought("hm")) + chunk(text("Hi", "c2ln")) + chunk(text("!"), finish="STOP")
    assert parts_of(body) == [
        {"text": "hm", "thought": True}, {"text": "Hi!", "thoughtSignature": "c2ln"}]


def test_a_second_signature_starts_a_new_part_so_none_is_lost() -> None:
    body = chunk(text("a", "czE=")) + chunk(text("b", "czI=")) + chunk(finish="STOP")
    assert parts_of(body) == [
        {"text": "a", "thoughtSignature": "czE="}, {"text": "b", "thoughtSignature": "czI="}]


def test_function_calls_and_other_parts_stay_whole_and_in_place() -> None:
    first = call("get_weather", {"city": "Paris"}, "c2ln")
    second = call("get_weather", {"city": "Tokyo"})
    image = {"inlineData": {"mimeType": "image/png", "data": "AAAA"}}
    body = (chunk(text("Checking")) + chunk(first, second) + chunk(image) + chunk(text("a"))
            + chunk(text("b"), finish="STOP"))
    lane, _ = run(body)
    assert parts_of(body) == [text("Checking"), first, second, image, text("ab")]
    assert lane.snapshot.candidates[0].function_calls == [
        first["functionCall"], second["functionCall"]]


def test_a_text_part_with_a_field_of_its_own_is_not_joined() -> None:
    odd = {"text": "b", "partMetadata": {"k": 1}}
    body = chunk(text("a")) + chunk(odd) + chunk(text("c"), finish="STOP")
    assert parts_of(body) == [text("a"), odd, text("c")]
    lane, _ = run(body)
    assert lane.snapshot.text == "abc"


def test_to_api_is_the_merged_response_in_googles_field_order() -> None:
    body = (
        chunk(text("Hel"), usage=usage(5, 1))
        + chunk(text("lo"), usage=usage(5, 2))
        + chunk(finish="STOP", index=0, usage=usage(5, 3),
                safetyRatings=[{"category": "HARM_CATEGORY_HATE_SPEECH",
                                "probability": "NEGLIGIBLE"}])
    )
    lane, _ = run(body)
    api = lane.snapshot.to_api()
    assert api == {
        "candidates": [{
            "content": {"parts": [{"text": "Hello"}], "role": "model"},
            "finishReason": "STOP",
            "index": 0,
        }],
        "usageMetadata": usage(5, 3),
        "modelVersion": MODEL,
        "responseId": RESPONSE_ID,
        "safetyRatings": [{"category": "HARM_CATEGORY_HATE_SPEECH", "probability": "NEGLIGIBLE"}],
    }
    assert list(api) == ["candidates", "usageMetadata", "modelVersion", "responseId",
                         "safetyRatings"]


def test_candidates_come_in_index_order_whatever_order_they_started_in() -> None:
    body = encode_gemini_event({"candidates": [
        {"content": {"parts": [text("second")]}, "index": 1, "finishReason": "STOP"}]})
    body += encode_gemini_event({"candidates": [
        {"content": {"parts": [text("first")]}, "index": 0, "finishReason": "STOP"}]})
    lane, _ = run(body)
    assert [c["content"]["parts"][0]["text"] for c in lane.snapshot.to_api()["candidates"]] == [
        "first", "second"]


def test_a_candidate_whose_output_was_blocked_has_no_content() -> None:
    lane, _ = run(capture("gemini_safety.sse"))
    candidate = lane.snapshot.to_api()["candidates"][0]
    assert candidate["finishReason"] == "SAFETY"
    assert candidate["content"]["parts"] == [text("To make the mixture you would first")]
    blocked, _ = run(chunk(finish="SAFETY", index=0))
    assert blocked.snapshot.to_api()["candidates"] == [{"finishReason": "SAFETY", "index": 0}]


def test_a_blocked_prompt_has_no_candidates() -> None:
    lane, _ = run(capture("gemini_prompt_blocked.sse"))
    api = lane.snapshot.to_api()
    assert "candidates" not in api
    assert api["promptFeedback"]["blockReason"] == "SAFETY"
    assert lane.snapshot.text == ""


def test_to_api_is_a_fresh_plain_json_copy() -> None:
    lane = GeminiLane()
    lane.feed(chunk(text("a")) + b'data: {"candidates": [], "x": NaN}\r\n\r\n')
    first = lane.snapshot.to_api()
    first["candidates"][0]["content"]["parts"].append("junk")
    second = lane.snapshot.to_api()
    assert second["candidates"][0]["content"]["parts"] == [text("a")]
    assert second["x"] is None
    json.dumps(second, allow_nan=False)
    assert [w.code for w in lane.warnings] == ["not_plain_json"]


def test_the_snapshot_is_readable_mid_stream() -> None:
    lane = GeminiLane()
    lane.feed(chunk(thought("hm")) + chunk(text("Hel")))
    assert (lane.snapshot.text, lane.snapshot.candidates[0].thoughts) == ("Hel", "hm")
    lane.feed(chunk(text("lo")))
    assert lane.snapshot.text == "Hello"
    assert lane.snapshot.candidates[0].finish_reason is None


@given(st.lists(st.tuples(st.booleans(), st.text(max_size=5)), max_size=12))
def test_merged_parts_hold_every_piece_in_order(pieces: list[tuple[bool, str]]) -> None:
    """Joined or not, the parts of each kind say all that was sent, in order."""
    body = b"".join(chunk(thought(t) if is_thought else text(t)) for is_thought, t in pieces)
    lane, _ = run(body + chunk(finish="STOP"))
    candidate = lane.snapshot.candidates.get(0)
    thoughts = "".join(t for is_thought, t in pieces if is_thought)
    answer = "".join(t for is_thought, t in pieces if not is_thought)
    assert (candidate.thoughts, candidate.text) == (thoughts, answer)  # type: ignore[union-attr]
    merged = lane.snapshot.to_api()["candidates"][0].get("content", {"parts": []})["parts"]
    flags = [bool(p.get("thought")) for p in merged]
    assert all(a != b for a, b in itertools.pairwise(flags))  # no two alike in a row


@given(st.lists(st.tuples(st.booleans(), st.text(max_size=3)), max_size=8))
@example([(False, ""), (False, "Hi")])
def test_a_lean_lane_says_what_the_default_one_does_of_text_it_did_not_keep(
    pieces: list[tuple[bool, str]],
) -> None:
    """A lean lane counts the text it passes on: a candidate whose first piece was empty
    has content all the same, and no warning says otherwise."""
    body = b"".join(chunk(thought(t) if is_thought else text(t)) for is_thought, t in pieces)
    lean = GeminiLane()
    lean.make_lean()
    lane, _ = run(body + chunk(finish="STOP"), lean)
    default, _ = run(body + chunk(finish="STOP"))
    assert (lane.outcome, lane.warnings) == (default.outcome, default.warnings)
    ours, theirs = lane.snapshot.candidates.get(0), default.snapshot.candidates.get(0)
    assert (ours and ours.has_content) == (theirs and theirs.has_content)
