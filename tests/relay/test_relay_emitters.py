"""The per-target emitters on hand-built parts: every target's SDK reads what the parts said.

A turn is generated (text, reasoning, refusal, tool calls whose arguments
stream in fragments, possibly interleaved as Chat streams them, usage, each
kind of ending), turned into parts, written by each target's emitter and
read back by the target's official SDK and by our own lane in strict mode.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from relay_oracles import NO_REFUSAL, SEEN, Seen, finish_word, tool_input

from sse_engine import FORMATS, Outcome, StreamError
from sse_engine.parts import (
    Finish,
    FinishReason,
    Part,
    ReasoningBlock,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    RefusalDelta,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Turn,
    Usage,
    UsageUpdate,
)
from sse_engine.relay import Emitter

TARGETS: dict[str, type[Emitter]] = {name: row.emitter for name, row in FORMATS.items()}
LANES = {name: row.lane for name, row in FORMATS.items()}


@attrs.frozen
class Script:
    """A generated turn: its parts, and what a client should see of it."""

    parts: list[Part]
    turn: Turn
    text: str
    refusal: str
    reasoning: str
    #: What a Chat client accumulates: the blank line between two blocks of reasoning
    #: only where nothing came between them (a Chat reader makes it itself elsewhere).
    chat_reasoning: str
    tools: list[tuple[str, Any]]
    usage: Usage | None
    finish: Finish


def tool_parts(
    index: int, name: str, fragments: list[str], *, kind: str = "function", server: bool = False
) -> tuple[ToolCall, ToolCallStart, list[ToolCallDelta], ToolCallEnd]:
    """The parts of one tool call (``kind``/``server``: the lane's kind of call)."""
    call_id = f"call_{index}"
    call = ToolCall(call_id, name, type=kind, server=server)
    arguments = "".join(fragments)
    start = ToolCallStart(call_id, name, index, call=call)
    deltas = [ToolCallDelta(call_id, f, index, call=call) for f in fragments if f]
    end = ToolCallEnd(call_id, name, arguments, tool_input(arguments), index, call=call)
    return call, start, deltas, end


def pieces(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` cut at drawn places (never an empty piece)."""
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=4)))
    bounds = [0, *[c for c in cuts if c < len(text)], len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if text[a:b]]


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
ARGS = st.dictionaries(
    st.sampled_from(["city", "n", "q"]), st.one_of(st.integers(-5, 5), TEXT), min_size=1, max_size=2
)


@st.composite
def scripts(draw: st.DrawFn) -> Script:
    parts: list[Part] = []
    text = refusal = reasoning = chat_reasoning = ""
    kinds = draw(st.lists(st.sampled_from(["text", "reasoning", "refusal"]), max_size=4))
    blocks = 0
    for number, kind in enumerate(kinds):
        value = draw(TEXT)
        if kind == "reasoning":
            # A block of reasoning as the parts layer makes one: after earlier reasoning,
            # the blank line; the block's end (which a cut stream may not reach).
            parts.append(ReasoningStart(blocks))
            if reasoning:
                parts.append(ReasoningDelta("\n\n", separator=True))
                reasoning += "\n\n"
                if kinds[number - 1] == "reasoning":
                    chat_reasoning += "\n\n"
            parts += [ReasoningDelta(p) for p in pieces(draw, value)]
            reasoning += value
            chat_reasoning += value
            if number < len(kinds) - 1 or draw(st.booleans()):
                parts.append(ReasoningEnd(ReasoningBlock(value), blocks))
            blocks += 1
            continue
        cls = {"text": TextDelta, "refusal": RefusalDelta}[kind]
        parts += [cls(p) for p in pieces(draw, value)]
        if kind == "text":
            text += value
        else:
            refusal += value
    calls: list[ToolCall] = []
    tools: list[tuple[str, Any]] = []
    count = draw(st.integers(0, 2))
    interleave = draw(st.booleans())
    built = []
    for index in range(count):
        args = json.dumps(draw(ARGS), ensure_ascii=False)
        name = f"tool_{index}"
        call, start, deltas, end = tool_parts(index, name, pieces(draw, args))
        calls.append(call)
        tools.append((name, json.loads(args)))
        built.append((start, deltas, end))
    if interleave and count == 2:
        # As Chat streams parallel calls: both open, fragments alternate, both end at the finish.
        (s0, d0, e0), (s1, d1, e1) = built
        parts += [s0, *d0[:1], s1, *d1[:1], *d0[1:], *d1[1:], e0, e1]
    else:
        for start, deltas, end in built:
            parts += [start, *deltas, end]
    usage = draw(
        st.one_of(
            st.none(),
            st.builds(
                lambda i, o, c: Usage(i + c, o, i + c + o, c, None),
                st.integers(0, 900),
                st.integers(0, 900),
                st.integers(0, 50),
            ),
        )
    )
    if usage is not None:
        parts.append(UsageUpdate(usage))
    ending = draw(st.sampled_from(["clean", "incomplete", "failed", "truncated"]))
    finish: Finish
    if ending == "clean":
        reason: FinishReason = "tool_calls" if calls else draw(st.sampled_from(["stop", "pause"]))
        finish = Finish(reason, Outcome.COMPLETED)
    elif ending == "incomplete":
        finish = Finish(
            draw(st.sampled_from(["length", "content_filter", "refusal"])), Outcome.INCOMPLETE
        )
    elif ending == "failed":
        code = draw(
            st.sampled_from(["server_error", "rate_limit_exceeded", "context_length_exceeded"])
        )
        finish = Finish(
            "error",
            Outcome.FAILED,
            StreamError.from_payload({"error": {"message": "upstream broke", "code": code}}),
        )
    else:
        finish = Finish(
            "truncated", Outcome.TRUNCATED, StreamError(message="cut", code="stream_truncated")
        )
    parts.append(finish)
    turn = Turn(id="abc123", model="model-x", tool_calls=calls)
    return Script(parts, turn, text, refusal, reasoning, chat_reasoning, tools, usage, finish)


@attrs.define
class Source:
    """What an emitter reads besides the parts (a PartStream has these)."""

    turn: Turn

    @property
    def turns(self) -> list[Turn]:
        return [self.turn]


def relay(target: str, parts: list[Part], turn: Turn, cuts: list[int] | None = None) -> bytes:
    emitter = TARGETS[target](model=None, id=None, created=1700000000)
    source = Source(turn)
    if not cuts:
        return emitter.emit(parts, source)
    bounds = [0, *sorted(c for c in cuts if c < len(parts)), len(parts)]
    return b"".join(emitter.emit(parts[a:b], source) for a, b in itertools.pairwise(bounds))


def expected(target: str, script: Script) -> Seen:
    finish = script.finish
    bad = finish.outcome in (Outcome.FAILED, Outcome.TRUNCATED)
    text, refusal = script.text, script.refusal
    if target in NO_REFUSAL:
        refusal = ""  # no refusal field (Messages, Gemini): the explanation is text
    word = None if bad else finish_word(finish.reason, finish.outcome, target)
    usage = script.usage
    if usage is None and target == "messages":
        usage = Usage(0, 0)  # a Messages stream always carries usage: zeros when unknown
    return Seen(
        text=text,
        refusal=refusal,
        # A target without blocks of reasoning of its own (Chat, Gemini) carries the
        # blank line between two blocks only where nothing came between them.
        reasoning=script.reasoning if TARGETS[target].reasoning_blocks
        else script.chat_reasoning,
        tools=tuple(script.tools),
        usage=None if usage is None else (usage.input_tokens or 0, usage.output_tokens or 0),
        finish=word,
        error=finish.error.message if bad and finish.error else None,
    )


def comparable(target: str, seen: Seen, script: Script) -> Seen:
    """What the test can ask of ``seen``: Messages and Gemini text holds the refusal, in
    stream order."""
    if target in NO_REFUSAL:
        order = [p.text for p in script.parts if isinstance(p, TextDelta | RefusalDelta)]
        assert seen.text == "".join(order)
        seen = attrs.evolve(seen, text=script.text)
    if script.finish.outcome in (Outcome.FAILED, Outcome.TRUNCATED):
        # A failed stream reports no final usage on Chat (the error frame is its end)
        # nor on Messages (message_delta never came).
        seen = attrs.evolve(seen, usage=expected(target, script).usage)
    return seen


@pytest.mark.parametrize("target", sorted(TARGETS))
@settings(
    max_examples=examples(5, thorough=40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(script=scripts(), cuts=st.lists(st.integers(0, 40), max_size=4))
def test_every_target_sdk_reads_what_the_parts_said(
    target: str, script: Script, cuts: list[int]
) -> None:
    body = relay(target, script.parts, script.turn)
    assert relay(target, script.parts, script.turn, cuts) == body  # however the parts are batched
    seen = SEEN[target](body)
    assert comparable(target, seen, script) == expected(target, script)


@pytest.mark.parametrize("target", sorted(TARGETS))
@settings(
    max_examples=examples(5, thorough=40), deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(script=scripts())
def test_our_own_lane_reads_the_relayed_bytes_strictly_with_the_same_outcome(
    target: str, script: Script
) -> None:
    lane = LANES[target](strict=True)
    lane.feed(relay(target, script.parts, script.turn))
    lane.close()
    empty = not (script.text or script.refusal or script.tools)  # reasoning alone is empty
    # An empty turn is relayed as one, and the lanes say so.
    allowed = {"empty_message", "empty_completion"} if empty else set()
    assert {w.code for w in lane.warnings} <= allowed
    if script.finish.outcome in (Outcome.FAILED, Outcome.TRUNCATED):
        assert lane.outcome is Outcome.FAILED
        assert lane.error is not None and script.finish.error is not None
        assert lane.error.message == script.finish.error.message
        assert lane.error.retryable == script.finish.error.retryable
    else:
        assert lane.outcome is script.finish.outcome
