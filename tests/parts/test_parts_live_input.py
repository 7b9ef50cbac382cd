"""Live tool input: every streamed tool call shows its partial input from the first fragment on.

``Turn.tool_calls[i].input`` and ``ToolCallDelta.input`` are the PartialJSON
value of the text so far (what ``jiter`` gives in ``partial_mode``), read
lazily: a program that never reads them never parses the fragments twice.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import jiter
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from wire_turns import CallSpec, TurnSpec, render

from sse_engine import ChatCompletionsLane, MessagesLane, ResponsesLane, encode_responses_event
from sse_engine.parts import PartStream, ToolCallDelta, ToolCallEnd, ToolCallStart

LANES = {"chat": ChatCompletionsLane, "responses": ResponsesLane, "messages": MessagesLane}


def events_of(body: bytes) -> list[bytes]:
    return [e + b"\n\n" for e in body.split(b"\n\n") if e]


def jiter_partial(text: str) -> Any:
    try:
        return jiter.from_json(text.encode(), partial_mode=True)
    except ValueError:
        return "no value"


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                 max_size=3),
    max_leaves=8,
)


@settings(max_examples=examples(8, thorough=40), deadline=None)
@given(lane=st.sampled_from(list(LANES)), value=st.dictionaries(st.text(max_size=5), _values,
                                                                 max_size=4), data=st.data())
def test_the_partial_input_after_every_event_is_jiters_partial_value(
    lane: str, value: dict[str, Any], data: st.DataObject
) -> None:
    text = json.dumps(value)
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=10)))
    bounds = [0, *[c for c in cuts if c < len(text)], len(text)]
    fragments = tuple(text[a:b] for a, b in itertools.pairwise(bounds) if b > a)
    spec = TurnSpec(calls=(CallSpec("c", "write_file", fragments),), ending="tool_calls")
    stream = PartStream(LANES[lane]())
    for event in events_of(render(lane, spec)):
        for part in stream.feed(event):
            if isinstance(part, ToolCallDelta):
                call = stream.turn.tool_calls[part.index]
                expected = jiter_partial(call.arguments)
                if expected != "no value":
                    assert part.input == call.input == expected
            elif isinstance(part, ToolCallEnd):
                assert part.input == value == stream.turn.tool_calls[0].input
    stream.close()


@pytest.mark.parametrize("lane", list(LANES))
def test_a_write_file_call_shows_its_input_from_the_first_fragment(lane: str) -> None:
    fragments = ('{"path": "app.py", ', '"content": "print(1)\\n', 'print(2)\\n"}')
    spec = TurnSpec(calls=(CallSpec("c", "write_file", fragments),), ending="tool_calls")
    stream = PartStream(LANES[lane]())
    seen = []
    for event in events_of(render(lane, spec)):
        for part in stream.feed(event):
            if isinstance(part, ToolCallDelta):
                seen.append(json.dumps(part.input))
    assert seen == ['{"path": "app.py"}', '{"path": "app.py"}',
                    '{"path": "app.py", "content": "print(1)\\nprint(2)\\n"}']
    # With partial_strings, the file's content shows as it is written.
    stream = PartStream(LANES[lane](), partial_strings=True)
    seen = []
    for event in events_of(render(lane, spec)):
        for part in stream.feed(event):
            if isinstance(part, ToolCallDelta):
                seen.append(part.input.get("content"))
    assert seen == [None, "print(1)\n", "print(1)\nprint(2)\n"]


def test_nobody_reading_the_input_means_no_partial_parse() -> None:
    fragments = tuple('{"rows": [1, 2, 3, 4, 5]}')
    spec = TurnSpec(calls=(CallSpec("c", "f", fragments),), ending="tool_calls")
    stream = PartStream(ChatCompletionsLane())
    parts = stream.feed(render("chat", spec)) + stream.close()
    call = stream.turn.tool_calls[0]
    assert call._reader is None  # the fragments were joined and parsed once, at the end
    assert next(p for p in parts if isinstance(p, ToolCallEnd)).input == {"rows": [1, 2, 3, 4, 5]}


def test_reading_the_arguments_between_reads_of_the_input_loses_nothing() -> None:
    fragments = ('{"a": [1, ', '2], "b"', ': "x', 'y"}')
    spec = TurnSpec(calls=(CallSpec("c", "f", fragments),), ending="tool_calls")
    stream = PartStream(ResponsesLane())
    values = []
    for event in events_of(render("responses", spec)):
        for part in stream.feed(event):
            if isinstance(part, ToolCallDelta):
                call = stream.turn.tool_calls[0]
                values.append((call.arguments, json.dumps(call.input)))
    assert values == [('{"a": [1, ', '{"a": [1]}'), ('{"a": [1, 2], "b"', '{"a": [1, 2]}'),
                      ('{"a": [1, 2], "b": "x', '{"a": [1, 2]}'),
                      ('{"a": [1, 2], "b": "xy"}', '{"a": [1, 2], "b": "xy"}')]


def test_input_that_turns_out_invalid_keeps_the_value_read_so_far_until_the_end() -> None:
    fragments = ('{"a": 1, ', '"b": oops', "}")
    spec = TurnSpec(calls=(CallSpec("c", "f", fragments),), ending="tool_calls")
    stream = PartStream(ChatCompletionsLane())
    values = []
    for event in events_of(render("chat", spec)):
        for part in stream.feed(event):
            if isinstance(part, ToolCallDelta | ToolCallEnd):
                values.append(part.input)
    assert values == [{"a": 1}, {"a": 1}, {"a": 1}, None]
    call = stream.turn.tool_calls[0]
    assert call.input is None and call.arguments == '{"a": 1, "b": oops}'
    assert call.input_error is not None
    assert [w.code for w in stream.warnings] == ["tool_input_invalid"]


def test_a_custom_tool_calls_input_is_its_text_as_it_streams() -> None:
    payloads = [
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"id": "ct", "type": "custom_tool_call", "call_id": "c", "name": "note",
                  "input": ""}},
        {"type": "response.custom_tool_call_input.delta", "output_index": 0, "delta": "Hello "},
        {"type": "response.custom_tool_call_input.delta", "output_index": 0, "delta": "world"},
        {"type": "response.custom_tool_call_input.done", "output_index": 0,
         "input": "Hello world"},
        {"type": "response.output_item.done", "output_index": 0,
         "item": {"id": "ct", "type": "custom_tool_call", "call_id": "c", "name": "note",
                  "input": "Hello world"}},
    ]
    stream = PartStream(ResponsesLane())
    inputs = []
    for number, payload in enumerate(payloads):
        for part in stream.feed(encode_responses_event({**payload, "sequence_number": number})):
            if isinstance(part, ToolCallStart | ToolCallDelta | ToolCallEnd):
                inputs.append(stream.turn.tool_calls[0].input)
    assert inputs == ["", "Hello ", "Hello world", "Hello world"]


def test_a_delta_made_without_a_call_has_no_input() -> None:
    assert ToolCallDelta("c", "{", 0).input is None
