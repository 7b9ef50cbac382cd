"""Every bundled capture through ``PartStream``: one Finish, last, with the lane's verdict.

Cut, failed and incomplete streams included: the ``Finish`` carries the
verdict and the turn keeps what arrived (the same text as the lane's own
snapshot). The parts do not depend on how the bytes were split.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sse_engine import ChatCompletionsLane, GeminiLane, Lane, MessagesLane, Outcome, ResponsesLane
from sse_engine.parts import (
    FINISH_REASONS,
    Finish,
    Part,
    PartStream,
    ReasoningDelta,
    RefusalDelta,
    TextDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
)

CAPTURES = Path(__file__).resolve().parents[2] / "sse_engine" / "captures"
NAMES = sorted(p.name for p in CAPTURES.iterdir() if p.suffix in (".sse", ".json"))

LANE_OF: dict[str, type[Lane[Any]]] = {
    "chat": ChatCompletionsLane,
    "responses": ResponsesLane,
    "messages": MessagesLane,
    "gemini": GeminiLane,
    "sample": ResponsesLane,
}
#: The text each lane's snapshot holds (choice 0 for Chat).
SNAPSHOT_TEXT: dict[type[Lane[Any]], Callable[[Any], str]] = {
    ChatCompletionsLane: lambda s: (s.choices[0].content or "") if 0 in s.choices else "",
    ResponsesLane: lambda s: s.output_text,
    MessagesLane: lambda s: s.text,
    GeminiLane: lambda s: s.text,
}
#: What each capture must end as (the unified reason and the lane's outcome).
EXPECTED = {
    "chat_azure_filter.sse": ("stop", Outcome.COMPLETED),
    "chat_basic.sse": ("tool_calls", Outcome.COMPLETED),
    "chat_error.sse": ("error", Outcome.FAILED),
    "chat_gemini_tools.sse": ("tool_calls", Outcome.COMPLETED),  # Gemini says "stop"
    "chat_kimi.sse": ("stop", Outcome.COMPLETED),
    "chat_n2_length.sse": ("stop", Outcome.INCOMPLETE),  # choice 0 stopped, choice 1 did not
    "chat_parallel_tools.sse": ("tool_calls", Outcome.COMPLETED),
    "chat_prestream_401.json": ("error", Outcome.FAILED),
    "chat_prestream_429.json": ("error", Outcome.FAILED),
    "chat_refusal.sse": ("stop", Outcome.COMPLETED),
    "chat_slow_start_error.sse": ("error", Outcome.FAILED),
    "chat_truncated.sse": ("truncated", Outcome.TRUNCATED),
    "gemini_basic.sse": ("tool_calls", Outcome.COMPLETED),  # Gemini says "STOP"
    "gemini_error.sse": ("error", Outcome.FAILED),
    "gemini_max_tokens.sse": ("length", Outcome.INCOMPLETE),
    "gemini_prestream_400.json": ("error", Outcome.FAILED),  # a one-element array
    "gemini_prestream_429.json": ("error", Outcome.FAILED),
    "gemini_prompt_blocked.sse": ("content_filter", Outcome.INCOMPLETE),  # no candidate
    "gemini_safety.sse": ("content_filter", Outcome.INCOMPLETE),
    "gemini_thinking.sse": ("stop", Outcome.COMPLETED),
    "gemini_tools_two.sse": ("tool_calls", Outcome.COMPLETED),
    "gemini_truncated.sse": ("truncated", Outcome.TRUNCATED),
    "messages_basic.sse": ("tool_calls", Outcome.COMPLETED),
    "messages_error.sse": ("error", Outcome.FAILED),
    "messages_gateway.sse": ("stop", Outcome.COMPLETED),
    "messages_max_tokens.sse": ("length", Outcome.INCOMPLETE),
    "messages_prestream_429.json": ("error", Outcome.FAILED),
    "messages_prestream_529.json": ("error", Outcome.FAILED),
    "messages_thinking.sse": ("stop", Outcome.COMPLETED),
    "messages_truncated.sse": ("truncated", Outcome.TRUNCATED),
    "messages_web_search.sse": ("stop", Outcome.COMPLETED),  # server tools: nothing to run
    "responses_basic.sse": ("tool_calls", Outcome.COMPLETED),
    "responses_error.sse": ("error", Outcome.FAILED),
    "responses_kindo_agent.sse": ("tool_calls", Outcome.COMPLETED),  # a custom tool call
    "responses_max_tokens.sse": ("length", Outcome.INCOMPLETE),
    "responses_prestream_429.json": ("error", Outcome.FAILED),
    "responses_reasoning.sse": ("stop", Outcome.COMPLETED),
    "responses_refusal.sse": ("content_filter", Outcome.INCOMPLETE),
    "responses_slow_start_failed.sse": ("error", Outcome.FAILED),
    "responses_truncated.sse": ("truncated", Outcome.TRUNCATED),
    "sample.sse": ("stop", Outcome.COMPLETED),
}


def stream_of(name: str) -> PartStream:
    stream = PartStream(LANE_OF[name.split("_", 1)[0].split(".")[0]]())
    if name.endswith(".json"):
        stream.start(int(name.rsplit("_", 1)[1][:3]), {"content-type": "application/json"})
    return stream


def run(name: str, reads: list[bytes]) -> tuple[list[Part], PartStream]:
    stream = stream_of(name)
    parts: list[Part] = []
    for data in reads:
        parts += stream.feed(data)
    parts += stream.close()
    return parts, stream


def test_every_capture_is_listed() -> None:
    assert set(NAMES) == set(EXPECTED)


@pytest.mark.parametrize("name", NAMES)
def test_every_capture_finishes_once_last_with_the_lanes_verdict(name: str) -> None:
    parts, stream = run(name, [(CAPTURES / name).read_bytes()])
    finishes = [p for p in parts if isinstance(p, Finish)]
    assert finishes == [parts[-1]]
    finish = finishes[0]
    assert (finish.reason, finish.outcome) == EXPECTED[name]
    assert finish.reason in FINISH_REASONS
    assert finish.outcome is stream.outcome is stream.lane.outcome
    assert finish.error == stream.error == stream.lane.error
    turn = stream.turn
    assert (turn.finish_reason, turn.outcome, turn.error) == (
        finish.reason, finish.outcome, finish.error)
    # The turn keeps what arrived: the same text as the lane's snapshot.
    lane = stream.lane
    assert turn.text == SNAPSHOT_TEXT[type(lane)](lane.snapshot)
    # Nothing more once it is over.
    assert stream.close() == []


@pytest.mark.parametrize("name", NAMES)
def test_the_turn_is_the_sum_of_the_parts(name: str) -> None:
    parts, stream = run(name, [(CAPTURES / name).read_bytes()])
    for turn in stream.turns:
        for kind, field in ((TextDelta, "text"), (ReasoningDelta, "reasoning"),
                            (RefusalDelta, "refusal")):
            pieces = [p.text for p in parts if isinstance(p, kind) and p.choice == turn.choice]
            assert getattr(turn, field) == "".join(pieces)
        starts = [p for p in parts if isinstance(p, ToolCallStart) and p.choice == turn.choice]
        assert [(c.id, c.name) for c in turn.tool_calls] == [(p.id, p.name) for p in starts]
        ends = {p.index: p for p in parts if isinstance(p, ToolCallEnd) and p.choice == turn.choice}
        for index, call in enumerate(turn.tool_calls):
            assert call.done is (index in ends)
            if call.done:
                end = ends[index]
                assert (call.arguments, call.input, call.input_error) == (
                    end.arguments, end.input, end.input_error)
        usages = [p.usage for p in parts if isinstance(p, UsageUpdate)]
        assert turn.usage == (usages[-1] if usages else None)


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(NAMES), data=st.data())
def test_the_parts_of_a_capture_do_not_depend_on_how_its_bytes_are_split(
    name: str, data: st.DataObject
) -> None:
    body = (CAPTURES / name).read_bytes()
    whole, whole_stream = run(name, [body])
    cuts = sorted(data.draw(st.lists(st.integers(0, len(body)), max_size=30)))
    bounds = [0, *cuts, len(body)]
    split, split_stream = run(name, [body[a:b] for a, b in itertools.pairwise(bounds)])
    assert split == whole
    assert split_stream.turn == whole_stream.turn
