"""Same content, same parts: one turn written in the three wire formats reads back the same.

A generated turn (reasoning, text, up to two tool calls with JSON arguments,
usage, one of five endings) is rendered as a Chat Completions, a Responses
and a Messages stream (``wire_turns``), fed to ``PartStream`` in arbitrary
reads, and the three part sequences and turns must be equal, apart from what
is lane-specific by nature (each exception is named where it is normalised):

- ``Finish.raw_reason`` / ``Turn.raw_finish_reason``: the lane's own word
  (``stop``, ``completed``, ``end_turn``);
- ``ToolCall.type``: the lane's kind of call (``function``, ``function_call``,
  ``tool_use``);
- the error: a failure carries the server's message and a truncation the code
  ``stream_truncated``, but each lane's ``StreamError`` has its own wording,
  type and raw payload;
- usage: when and how often it is reported (Messages reports it at
  ``message_start`` too), so ``UsageUpdate`` parts are compared through the
  final usage only;
- a block of reasoning's replay data (``ReasoningStart.id``, and the
  ``signature``, ``encrypted_content`` and ``id`` of the ``ReasoningBlock``): each
  provider's own, so blocks are compared by their text (the data has its own
  tests in ``test_parts_reasoning_blocks.py``);
- the ids of output items (``MessageItemStart``, ``ToolCallStart.item_id``):
  only Responses has items with ids of their own beside the call ids (kept by
  a Responses relay: ``tests/relay/test_relay_ids.py``).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from wire_turns import ERROR_MESSAGE, LANES, TurnSpec, read, render, turn_specs

from sse_engine import Outcome
from sse_engine.parts import (
    Finish,
    MessageItemStart,
    Part,
    PartStream,
    ReasoningBlock,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Turn,
    Usage,
    UsageUpdate,
)


def comparable(parts: list[Part]) -> list[Any]:
    """The parts without what is lane-specific (see the module docstring)."""
    out: list[Any] = []
    for part in parts:
        if isinstance(part, UsageUpdate):
            continue
        if isinstance(part, Finish):
            # The lanes word a truncation differently; a failure carries the server's message.
            error = part.error
            said = None if error is None else (
                error.code if part.outcome is Outcome.TRUNCATED else error.message)
            out.append(("finish", part.reason, part.outcome, said))
            continue
        if isinstance(part, MessageItemStart):
            continue
        if isinstance(part, ReasoningStart):
            part = ReasoningStart(part.index, part.choice)
        elif isinstance(part, ToolCallStart):
            part = ToolCallStart(part.id, part.name, part.index, part.choice)
        elif isinstance(part, ReasoningEnd):
            part = ReasoningEnd(ReasoningBlock(part.block.text), part.index, part.choice)
        out.append(part)
    return out


def comparable_turn(turn: Turn) -> Turn:
    calls = list(turn.tool_calls)
    for call in calls:
        call.type = "function"
    return Turn(
        turn.id, turn.model, turn.text, turn.reasoning, turn.refusal, calls, None,
        turn.finish_reason, turn.outcome, None, choice=turn.choice,
        reasoning_blocks=[ReasoningBlock(b.text) for b in turn.reasoning_blocks],
    )


def expected_usage(spec: TurnSpec, lane: str) -> Usage | None:
    u = spec.usage
    if u is None or spec.ending in ("error", "truncated"):
        return None
    # Only Messages counts cache writes (the rendered stream says 0); the others cannot.
    written = 0 if lane == "messages" else None
    return Usage(u.input, u.output, u.input + u.output, u.cached, u.reasoning, written)


@settings(max_examples=examples(5, thorough=60), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(spec=turn_specs(), data=st.data())
def test_one_turn_in_every_wire_format_gives_the_same_parts_and_turn(
    spec: TurnSpec, data: st.DataObject
) -> None:
    seen: dict[str, tuple[list[Any], Turn, PartStream]] = {}
    for lane in LANES:
        body = render(lane, spec)
        cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=8), label=f"{lane} cuts")
        parts, stream = read(lane, body, cuts)
        finishes = [p for p in parts if isinstance(p, Finish)]
        assert finishes == [parts[-1]], f"{lane}: one Finish, the last part"
        assert stream.turn.outcome is parts[-1].outcome
        usage = expected_usage(spec, lane)
        if usage is not None:
            assert stream.turn.usage == usage, lane
            assert [p for p in parts if isinstance(p, UsageUpdate)][-1].usage == usage
        seen[lane] = (comparable(parts), comparable_turn(stream.turn), stream)
    (chat, chat_turn, _), (responses, responses_turn, _), (messages, messages_turn, _) = (
        seen.values()
    )
    assert chat == responses == messages
    assert chat_turn == responses_turn == messages_turn
    # And the turn says what was written.
    turn = seen["chat"][2].turn
    assert turn.text == "".join(spec.text)
    assert turn.reasoning == "".join(spec.reasoning)
    # One block of reasoning, ended unless the stream was cut while it streamed.
    cut_reasoning = spec.ending in ("error", "truncated") and not (spec.text or spec.calls)
    ended = spec.reasoning and not cut_reasoning
    assert [b.text for b in turn.reasoning_blocks] == (["".join(spec.reasoning)] if ended else [])
    assert turn.id == spec.id and turn.model == spec.model
    closed = len(spec.calls) - (spec.ending in ("error", "truncated") and bool(spec.calls))
    assert [c.done for c in turn.tool_calls] == [n < closed for n in range(len(spec.calls))]
    for call, written in zip(turn.tool_calls, spec.calls, strict=True):
        assert (call.id, call.name, call.arguments) == (written.id, written.name,
                                                        written.arguments)


_ENDS = {
    "stop": ("stop", Outcome.COMPLETED),
    "length": ("length", Outcome.INCOMPLETE),
    "error": ("error", Outcome.FAILED),
    "truncated": ("truncated", Outcome.TRUNCATED),
}


@pytest.mark.parametrize("lane", LANES)
@pytest.mark.parametrize("ending", _ENDS)
def test_each_ending_gives_its_unified_reason_and_the_lanes_verdict(
    lane: str, ending: str
) -> None:
    from wire_turns import CallSpec, UsageSpec

    spec = TurnSpec(("Think",), ("Hello", " world"), (), UsageSpec(10, 5, 2, 1), ending)
    parts, stream = read(lane, render(lane, spec), [])
    finish = parts[-1]
    assert isinstance(finish, Finish)
    assert (finish.reason, finish.outcome) == _ENDS[ending]
    assert (stream.turn.finish_reason, stream.turn.outcome) == _ENDS[ending]
    assert finish.outcome is stream.outcome
    assert (finish.error is None) == (ending in ("stop", "length"))
    if ending == "error":
        assert finish.error is not None and finish.error.message == ERROR_MESSAGE
    assert stream.turn.text == "Hello world"
    shown = [type(p) for p in parts if not isinstance(p, UsageUpdate | MessageItemStart)]
    assert shown[:5] == [
        ReasoningStart, ReasoningDelta, ReasoningEnd, TextDelta, TextDelta]
    # A turn that stops normally holding tool calls finishes with tool_calls, in every lane.
    with_calls = TurnSpec(calls=(CallSpec("c1", "f", ('{"a":', " 1}")),), ending="stop")
    parts, stream = read(lane, render(lane, with_calls), [])
    assert isinstance(parts[-1], Finish) and parts[-1].reason == "tool_calls"
    assert [type(p) for p in parts[:-1] if not isinstance(p, UsageUpdate)] == [
        ToolCallStart, ToolCallDelta, ToolCallDelta, ToolCallEnd]
    end = parts[-2] if not isinstance(parts[-2], UsageUpdate) else parts[-3]
    assert isinstance(end, ToolCallEnd) and end.input == {"a": 1} and end.arguments == '{"a": 1}'
