"""A call whose input comes whole and parsed (Gemini): its text is written only when read.

The parts of such a call hold a ``JSONText`` where the text goes; every public
reader (``ToolCallDelta.text``, ``ToolCallEnd.arguments``, ``ToolCall.arguments``,
equality, hash, repr, pickling, ``attrs`` introspection) sees the very ``str``
the parts said before: the compact ``json.dumps`` of the value, UTF-8 kept.
"""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import attrs
from gemini_cases import call, chunk
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from sse_engine import PartStream
from sse_engine.gemini import GeminiLane
from sse_engine.parts import Part, ToolCallDelta, ToolCallEnd

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
_args = st.dictionaries(st.text(), _json, max_size=5)


def _parts(args: dict[str, Any]) -> tuple[list[Part], PartStream[GeminiLane]]:
    stream = PartStream(GeminiLane())
    body = chunk(call("write_file", args), finish="STOP")
    return stream.feed(body) + stream.close(), stream


def _written(args: dict[str, Any]) -> str:
    return json.dumps(args, ensure_ascii=False, separators=(",", ":"))


@settings(max_examples=examples(8, thorough=150), suppress_health_check=[HealthCheck.too_slow])
@given(_args)
def test_every_reader_of_a_whole_input_sees_its_compact_json_text(args: dict[str, Any]) -> None:
    parts, stream = _parts(args)
    (delta,) = (p for p in parts if type(p) is ToolCallDelta)
    (end,) = (p for p in parts if type(p) is ToolCallEnd)
    text = _written(args)
    # Read in an order no reader had to follow: the call first, the parts after.
    (tool,) = stream.turn.tool_calls
    assert type(tool.arguments) is str and tool.arguments == text
    assert type(delta.text) is str and delta.text == text
    assert type(end.arguments) is str and end.arguments == text
    assert end.input == args == tool.input
    # The parts compare, hash and print as parts built with the text itself.
    assert delta == ToolCallDelta(delta.id, text, delta.index, delta.choice)
    assert hash(delta) == hash(ToolCallDelta(delta.id, text, delta.index, delta.choice))
    assert end == attrs.evolve(end, arguments=text)
    assert repr(delta) == repr(ToolCallDelta(delta.id, text, delta.index, delta.choice))


@settings(max_examples=examples(5, thorough=60), suppress_health_check=[HealthCheck.too_slow])
@given(_args)
def test_unread_whole_input_pickles_copies_and_introspects_as_its_text(
    args: dict[str, Any],
) -> None:
    parts, stream = _parts(args)
    text = _written(args)
    for part in parts:
        if type(part) in (ToolCallDelta, ToolCallEnd):
            # Nothing has read the text yet: each way of looking writes it.
            fields = attrs.asdict(part, recurse=False)
            assert text in fields.values()
            assert pickle.loads(pickle.dumps(part)) == part
    again = copy.deepcopy(stream.turn)
    assert again.tool_calls[0].arguments == text
    assert pickle.loads(pickle.dumps(stream.turn)) == stream.turn
