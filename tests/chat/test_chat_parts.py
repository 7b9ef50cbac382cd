"""The Chat Completions events as parts (``chat/_parts.py``): the choices.

Parts number a stream's choices 0, 1, 2, ... in the order the lane met them:
the wire's ``index`` for every provider that numbers them so, and numbers a
turn can have for one that does not. So ``stream.turn`` is the first choice's
whatever its wire index, a relay to a format with one choice carries it, and a
relay to Chat writes indexes the openai SDK can read.
"""

from __future__ import annotations

import json
from typing import Any

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from relay_oracles import SEEN
from test_chat import chunk, sse, tool
from test_chat_emit import CHOICE_INDEX, final_completion

from sse_engine import FORMATS, Outcome
from sse_engine.chat import ChatCompletionsLane
from sse_engine.parts import PartStream, TextDelta
from sse_engine.relay import Relay


def test_a_lone_choice_is_the_turn_whatever_its_index() -> None:
    body = sse(
        chunk([{"index": 5, "delta": {"role": "assistant", "content": "Hi"}}]),
        chunk([{"index": 5, "delta": {}, "finish_reason": "stop"}]),
        "[DONE]",
    )
    stream = PartStream(ChatCompletionsLane())
    parts = stream.feed(body) + stream.close()
    assert [p for p in parts if type(p) is TextDelta] == [TextDelta("Hi", 0)]
    assert [(t.choice, t.text, t.finish_reason) for t in stream.turns] == [(0, "Hi", "stop")]
    assert stream.turn.text == "Hi" and stream.lane.snapshot.choices[5].content == "Hi"
    for target in FORMATS:
        relay = Relay(ChatCompletionsLane(), to=target)
        assert SEEN[target](relay.feed(body) + relay.close()).text == "Hi", target


def test_choices_numbered_in_order_keep_their_numbers() -> None:
    body = sse(
        chunk([{"index": 0, "delta": {"content": "a"}}, {"index": 1, "delta": {"content": "b"}}]),
        chunk([{"index": 1, "delta": {}, "finish_reason": "length"},
               {"index": 0, "delta": {}, "finish_reason": "stop"}]),
        "[DONE]",
    )
    stream = PartStream(ChatCompletionsLane())
    stream.feed(body)
    stream.close()
    assert [(t.choice, t.text, t.finish_reason) for t in stream.turns] == [
        (0, "a", "stop"), (1, "b", "length")
    ]


@attrs.frozen
class Wanted:
    """One choice as every reader should see it."""

    text: str
    tools: list[tuple[str, Any]]  # (name, input)
    reason: str


_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=6)
_arguments = st.dictionaries(st.sampled_from(["q", "n"]), st.integers(-9, 9) | _text, max_size=2)
#: A tool call's wire index: OpenAI's 0, or anything a provider sends.
_tool_index = st.integers(0, 2) | st.integers(-(2**63), 2**63)


@st.composite
def numbered_choices(draw: st.DrawFn) -> tuple[bytes, list[Wanted]]:
    """A Chat stream of 1-4 choices whose indexes are anything (large, sparse, negative),
    several choices to a chunk at times; the choices in the order they first come."""
    indexes = draw(st.lists(CHOICE_INDEX, min_size=1, max_size=4, unique=True))
    queues: list[list[dict[str, Any]]] = []
    wanted: dict[int, Wanted] = {}
    for index in indexes:
        texts = draw(st.lists(_text, min_size=1, max_size=3))
        entries = [{"index": index, "delta": {"content": text}} for text in texts]
        tools = []
        if draw(st.booleans()):
            value = draw(_arguments)
            arguments = json.dumps(value)
            wire = draw(_tool_index)
            call = tool(wire, arguments[:3], id=f"call_{index}", name="lookup")
            entries += [{"index": index, "delta": {"tool_calls": [call]}},
                        {"index": index, "delta": {"tool_calls": [tool(wire, arguments[3:])]}}]
            tools.append(("lookup", value))
        reason = "tool_calls" if tools else draw(st.sampled_from(["stop", "length"]))
        entries.append({"index": index, "delta": {}, "finish_reason": reason})
        queues.append(entries)
        wanted[index] = Wanted("".join(texts), tools, reason)
    chunks: list[list[dict[str, Any]]] = []
    first: list[int] = []
    while any(queues):
        queue = draw(st.sampled_from([q for q in queues if q]))
        entry = queue.pop(0)
        if entry["index"] not in first:
            first.append(entry["index"])
        if not chunks or any(e["index"] == entry["index"] for e in chunks[-1]) \
                or draw(st.booleans()):
            chunks.append([])
        chunks[-1].append(entry)
    body = sse(*(chunk(entries) for entries in chunks), "[DONE]")
    return body, [wanted[index] for index in first]


@settings(
    max_examples=examples(5, thorough=100),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(numbered_choices())
def test_any_choice_numbering_reaches_every_reader(case: tuple[bytes, list[Wanted]]) -> None:
    body, choices = case
    outcome = Outcome.INCOMPLETE if any(c.reason == "length" for c in choices) \
        else Outcome.COMPLETED

    # The parts: one turn per choice, numbered in the order they came, the first one first.
    stream = PartStream(ChatCompletionsLane())
    stream.feed(body)
    stream.close()
    assert stream.outcome is outcome and stream.warnings == []
    turns = stream.turns
    assert [t.choice for t in turns] == list(range(len(choices)))
    assert [
        Wanted(t.text, [(c.name, c.input) for c in t.tool_calls], t.raw_finish_reason or "")
        for t in turns
    ] == choices
    assert stream.turn is turns[0]

    # Relayed: Chat carries every choice, numbered as the parts number them; a format
    # with one choice carries the first.
    for target in FORMATS:
        relay = Relay(ChatCompletionsLane(), to=target)
        out = relay.feed(body) + relay.close()
        first = choices[0]
        if target == "chat":
            completion = final_completion(out)
            assert [
                Wanted(c.message.content or "",
                       [(t.function.name, json.loads(t.function.arguments))
                        for t in c.message.tool_calls or []],
                       c.finish_reason)
                for c in completion.choices
            ] == choices
        else:
            seen = SEEN[target](out)
            assert (seen.text, list(seen.tools)) == (first.text, first.tools), target
        reader = FORMATS[target].lane(strict=True)
        reader.feed(out)
        reader.close()
        # A format with one choice ends as that choice did; Chat as the whole stream.
        ends = {outcome} if target == "chat" else {Outcome.COMPLETED, Outcome.INCOMPLETE}
        assert reader.outcome in ends, target
