"""The Chat Completions emitter (``chat/_emit.py``): parts as ``chat.completion.chunk`` frames.

What every target shares is tested in ``tests/relay``; here, what only Chat
has: several choices. The openai SDK reads a choice's ``index`` as a position
in the list of choices it has seen, so the emitter numbers the relayed choices
0, 1, 2, ... in the order they are first written, whatever the parts called
them.
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import openai
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from relay_oracles import chat_stream

from sse_engine import FORMATS, Outcome
from sse_engine.chat import ChatCompletionsLane
from sse_engine.parts import (
    Finish,
    FinishReason,
    Part,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Turn,
)

#: A choice index as a source may number it: 0, 1, 2, ..., or anything at all.
CHOICE_INDEX = st.integers(0, 3) | st.integers(-(2**63), 2**63)
_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=6)
_arguments = st.dictionaries(st.sampled_from(["q", "n"]), st.integers(-9, 9) | _text, max_size=2)


@attrs.frozen
class Choice:
    """One choice of a generated turn: what a client should see of it."""

    text: str
    tools: list[tuple[str, str]]  # (name, arguments)
    reason: FinishReason


@attrs.define
class Source:
    """What an emitter reads besides the parts: the turns of every choice."""

    turns: list[Turn]

    @property
    def turn(self) -> Turn:
        return self.turns[0]


@st.composite
def choices_script(draw: st.DrawFn) -> tuple[list[Part], Source, list[Choice]]:
    """Parts of 1-4 choices numbered anyhow, interleaved; the choices in the order their
    first part comes."""
    indexes = draw(st.lists(CHOICE_INDEX, min_size=1, max_size=4, unique=True))
    queues: list[list[Part]] = []
    made: dict[int, Choice] = {}
    turns = []
    for choice in indexes:
        texts = draw(st.lists(_text, min_size=1, max_size=3))
        queue: list[Part] = [TextDelta(text, choice) for text in texts]
        tools = []
        for number, value in enumerate(draw(st.lists(_arguments, max_size=2))):
            arguments = json.dumps(value)
            call_id, name = f"call_{choice}_{number}", f"tool_{number}"
            call = ToolCall(call_id, name)
            queue += [
                ToolCallStart(call_id, name, number, choice, call=call),
                ToolCallDelta(call_id, arguments, number, choice, call=call),
                ToolCallEnd(call_id, name, arguments, value, number, choice, call=call),
            ]
            tools.append((name, arguments))
        reason: FinishReason = "tool_calls" if tools else draw(st.sampled_from(["stop", "length"]))
        made[choice] = Choice("".join(texts), tools, reason)
        turns.append(Turn("chatcmpl-1", "m", choice=choice, finish_reason=reason))
        queues.append(queue)
    parts: list[Part] = []
    first: list[int] = []  # the choices in the order their first part comes
    while any(queues):
        queue = draw(st.sampled_from([q for q in queues if q]))
        part = queue.pop(0)
        choice = part.choice  # type: ignore[attr-defined]
        if choice not in first:
            first.append(choice)
        parts.append(part)
    incomplete = any(c.reason == "length" for c in made.values())
    outcome = Outcome.INCOMPLETE if incomplete else Outcome.COMPLETED
    parts.append(Finish(made[first[0]].reason, outcome))
    return parts, Source(turns), [made[choice] for choice in first]


def final_completion(body: bytes) -> Any:
    """The openai SDK's completion, every choice (as ``chat.completions.stream()`` reads)."""
    stream = chat_stream(body)
    try:
        for _ in stream:
            pass
        return stream.get_final_completion()
    except openai.LengthFinishReasonError as exc:  # raised whenever a choice said "length"
        return exc.completion


@settings(
    max_examples=examples(5, thorough=100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(choices_script())
def test_the_sdk_reads_every_choice_however_the_source_numbered_them(
    script: tuple[list[Part], Source, list[Choice]],
) -> None:
    parts, source, choices = script
    emitter = FORMATS["chat"].emitter(model=None, id=None, created=1700000000)
    body = emitter.emit(parts, source)

    completion = final_completion(body)
    assert [c.index for c in completion.choices] == list(range(len(choices)))
    seen = [
        Choice(
            c.message.content or "",
            [(t.function.name, t.function.arguments) for t in c.message.tool_calls or []],
            c.finish_reason,
        )
        for c in completion.choices
    ]
    assert seen == choices

    lane = ChatCompletionsLane(strict=True)
    lane.feed(body)
    lane.close()
    assert sorted(lane.snapshot.choices) == list(range(len(choices)))
    finish = parts[-1]
    assert isinstance(finish, Finish) and lane.outcome is finish.outcome
    assert lane.warnings == []
