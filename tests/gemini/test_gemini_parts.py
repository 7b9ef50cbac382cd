"""Gemini events as parts: reasoning with its signatures, whole calls, usage, one Finish."""

from __future__ import annotations

from typing import Any

import pytest
from gemini_cases import RESPONSE_ID, call, capture, chunk, text, thought, usage
from hypothesis import HealthCheck, given, settings
from hypothesis_budget import examples
from wire_turns import TurnSpec, read, render, turn_specs

from sse_engine import Outcome, PartStream
from sse_engine.gemini import GeminiLane, encode_gemini_event
from sse_engine.parts import (
    Finish,
    Part,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
    UsageUpdate,
)


def parts_of(data: bytes) -> tuple[list[Part], PartStream]:
    stream = PartStream(GeminiLane())
    return stream.feed(data) + stream.close(), stream


def test_a_run_of_thought_parts_is_one_block_whose_raw_is_its_part() -> None:
    body = chunk(thought("Let me ")) + chunk(thought("see.", "c2ln")) + chunk(text("Yes."),
                                                                             finish="STOP")
    parts, stream = parts_of(body)
    shown = [p for p in parts if not isinstance(p, UsageUpdate)]
    assert [type(p) for p in shown] == [
        ReasoningStart, ReasoningDelta, ReasoningDelta, ReasoningEnd, TextDelta, Finish]
    (block,) = stream.turn.reasoning_blocks
    assert block.text == "Let me see."
    # The signature goes back to Gemini in raw; `signature` is Anthropic's, and stays None.
    assert block.signature is None
    assert block.raw == {"text": "Let me see.", "thought": True, "thoughtSignature": "c2ln"}


def test_a_text_parts_signature_is_a_block_of_reasoning_without_text_before_it() -> None:
    parts, stream = parts_of(chunk(text("Hi", "dGV4dA==")) + chunk(text("!"), finish="STOP"))
    shown = [p for p in parts if not isinstance(p, UsageUpdate)]
    assert [type(p) for p in shown] == [
        ReasoningStart, ReasoningEnd, TextDelta, TextDelta, Finish]
    (block,) = stream.turn.reasoning_blocks
    assert (block.text, block.raw) == ("", {"text": "", "thoughtSignature": "dGV4dA=="})
    assert stream.turn.reasoning == "" and stream.turn.text == "Hi!"


def test_a_block_of_reasoning_ends_at_anything_else_and_is_left_open_by_a_cut() -> None:
    for after in (chunk(call("f", {})), chunk({"inlineData": {"data": "AA"}}),
                  chunk(finish="STOP")):
        parts, _ = parts_of(chunk(thought("hm")) + after)
        assert sum(isinstance(p, ReasoningEnd) for p in parts) == 1
    parts, stream = parts_of(chunk(thought("hm")))  # truncated while thinking
    assert not any(isinstance(p, ReasoningEnd) for p in parts)
    assert stream.turn.reasoning == "hm" and stream.turn.reasoning_blocks == []


def test_a_function_call_is_start_one_delta_end_with_its_part_as_raw() -> None:
    part = call("get_weather", {"city": "Zürich", "days": [1, 2]}, "Y2FsbA==")
    parts, stream = parts_of(chunk(part, finish="STOP"))
    start, delta, end = (p for p in parts if isinstance(p, ToolCallStart | ToolCallDelta
                                                          | ToolCallEnd))
    ident = f"call_{RESPONSE_ID}_0"
    assert start == ToolCallStart(ident, "get_weather", 0)
    assert delta == ToolCallDelta(ident, '{"city":"Zürich","days":[1,2]}', 0)
    assert (end.arguments, end.input, end.input_error) == (
        '{"city":"Zürich","days":[1,2]}', {"city": "Zürich", "days": [1, 2]}, None)
    (made,) = stream.turn.tool_calls
    assert made.done and made.raw == part  # the signature goes back with the call
    assert parts[-1] == Finish("tool_calls", Outcome.COMPLETED, raw_reason="STOP")


def test_a_calls_own_id_is_kept_and_made_up_ones_are_stable_and_distinct() -> None:
    body = chunk(call("a", {}, id="fc_own"), call("b", {})) + chunk(call("c", {}), finish="STOP")
    ids = [c.id for c in parts_of(body)[1].turn.tool_calls]
    assert ids == ["fc_own", f"call_{RESPONSE_ID}_1", f"call_{RESPONSE_ID}_2"]
    assert [c.id for c in parts_of(body)[1].turn.tool_calls] == ids  # the same every time
    two = encode_gemini_event({"candidates": [
        {"content": {"parts": [call("f", {})]}, "index": 0, "finishReason": "STOP"},
        {"content": {"parts": [call("f", {})]}, "index": 1, "finishReason": "STOP"}],
        "responseId": "r9"})
    _, stream = parts_of(two)
    assert [[c.id for c in t.tool_calls] for t in stream.turns] == [["call_r9_0"], ["call_r9_1_0"]]


def test_usage_counts_the_thinking_in_the_output_and_the_cache_in_the_input() -> None:
    meta = {**usage(100, 20, 30), "cachedContentTokenCount": 40, "toolUsePromptTokenCount": 5}
    meta["totalTokenCount"] = 155
    parts, stream = parts_of(chunk(text("x"), finish="STOP", usage=meta))
    (update,) = [p for p in parts if isinstance(p, UsageUpdate)]
    assert update.usage == Usage(105, 50, 155, 40, 30)
    assert stream.turn.usage == update.usage


def test_usage_reported_in_every_chunk_makes_a_part_only_when_it_changes() -> None:
    body = (chunk(text("a"), usage=usage(5, 1)) + chunk(text("b"), usage=usage(5, 1))
            + chunk(text("c"), finish="STOP", usage=usage(5, 3)))
    parts, _ = parts_of(body)
    assert [p.usage.output_tokens for p in parts if isinstance(p, UsageUpdate)] == [1, 3]


def test_a_blocked_prompt_finishes_as_a_content_filter_with_its_block_reason() -> None:
    for reason in ("SAFETY", "OTHER", "JAILBREAK", "NEW"):
        body = encode_gemini_event({"promptFeedback": {"blockReason": reason},
                                    "usageMetadata": {"promptTokenCount": 9}})
        parts, stream = parts_of(body)
        assert parts[-1] == Finish("content_filter", Outcome.INCOMPLETE, raw_reason=reason)
        assert stream.turn.text == ""


@pytest.mark.parametrize(("reason", "unified", "outcome"), [
    ("STOP", "stop", Outcome.COMPLETED),
    ("MAX_TOKENS", "length", Outcome.INCOMPLETE),
    ("SAFETY", "content_filter", Outcome.INCOMPLETE),
    ("RECITATION", "content_filter", Outcome.INCOMPLETE),
    ("OTHER", "other", Outcome.INCOMPLETE),
    ("MALFORMED_FUNCTION_CALL", "error", Outcome.FAILED),
])
def test_each_finish_reason_gives_its_unified_reason(
    reason: str, unified: str, outcome: Outcome
) -> None:
    parts, _ = parts_of(chunk(text("x"), finish=reason))
    finish = parts[-1]
    assert isinstance(finish, Finish)
    assert (finish.reason, finish.outcome, finish.raw_reason) == (unified, outcome, reason)


def test_several_candidates_are_several_turns() -> None:
    body = encode_gemini_event({"candidates": [
        {"content": {"parts": [text("one")]}, "index": 0, "finishReason": "STOP"},
        {"content": {"parts": [thought("hm"), text("two")]}, "index": 1,
         "finishReason": "MAX_TOKENS"}], "responseId": "r", "modelVersion": "m"})
    parts, stream = parts_of(body)
    assert [(t.choice, t.text, t.reasoning, t.finish_reason) for t in stream.turns] == [
        (0, "one", "", "stop"), (1, "two", "hm", "length")]
    assert {p.choice for p in parts if isinstance(p, TextDelta)} == {0, 1}
    assert all((t.id, t.model) == ("r", "m") for t in stream.turns)


@pytest.mark.parametrize("name", ["gemini_basic.sse", "gemini_thinking.sse",
                                  "gemini_tools_two.sse"])
def test_the_parts_do_not_depend_on_the_reads(name: str) -> None:
    data = capture(name)
    whole = parts_of(data)
    stream = PartStream(GeminiLane())
    parts: list[Any] = []
    for i in range(len(data)):
        parts += stream.feed(data[i : i + 1])
    parts += stream.close()
    assert parts == whole[0] and stream.turn == whole[1].turn


def test_gemini_tools_two_keeps_the_signature_on_the_first_call_only() -> None:
    _, stream = parts_of(capture("gemini_tools_two.sse"))
    first, second = stream.turn.tool_calls
    assert "thoughtSignature" in first.raw and "thoughtSignature" not in second.raw
    assert (first.input, second.input) == ({"city": "Paris"}, {"city": "Tokyo"})


# -- one turn, written as Gemini and as Chat: the same turn ------------------------------------


@settings(max_examples=examples(17, thorough=60), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(spec=turn_specs())
def test_one_turn_as_gemini_reads_as_the_same_turn_as_chat(spec: TurnSpec) -> None:
    _, gemini = read("gemini", render("gemini", spec))
    _, chat = read("chat", render("chat", spec))
    ours, theirs = gemini.turn, chat.turn
    cut = spec.ending in ("error", "truncated")
    assert (ours.text, ours.reasoning) == (theirs.text, theirs.reasoning)
    sent = spec.reasoning or spec.text or spec.calls[: len(spec.calls) - cut] or not cut
    if sent:  # a Gemini stream that is only its error frame names no response
        assert (ours.id, ours.model) == (theirs.id, theirs.model)
    assert (ours.finish_reason, ours.outcome) == (theirs.finish_reason, theirs.outcome)
    # Gemini sends a call whole: the one cut short in Chat was never sent.
    done = [(c.id, c.name, c.input) for c in theirs.tool_calls if c.done]
    assert [(c.id, c.name, c.input) for c in ours.tool_calls] == done
    assert all(c.done for c in ours.tool_calls)
    if not cut:
        assert ours.usage == theirs.usage
        assert [b.text for b in ours.reasoning_blocks] == [b.text for b in theirs.reasoning_blocks]
    else:
        assert ours.error is not None and theirs.error is not None
        if spec.ending == "error":
            assert ours.error.message == theirs.error.message
