"""Parts as Messages bytes (``messages/_emit.py``): tool input a Messages client can read.

The anthropic SDK parses a ``tool_use`` block's input after every
``input_json_delta`` (``jiter.from_json(buffer, partial_mode=True)`` on the
UTF-8 of all the fragments so far) and raises ``ValueError`` when its reader
refuses the buffer; it parses nothing at ``content_block_stop``. So the
emitter writes a call's fragments only as far as that reader goes, stops the
block only when the input is complete, and a call whose input cannot be
written (not JSON, or JSON jiter refuses) is left open and named in the
stream's ``event: error``. The property: whatever fragments a Chat, Responses
or Messages source streams, the SDK reading the relayed bytes raises nothing
but its API error, and has every call it can read in full. Chat and Responses
carry any text as ``arguments``, and the openai SDK (which parses arguments
only for a tool the caller declared strict) reads every call's text exactly.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import anthropic
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from jiter import from_json
from relay_oracles import chat_stream, message_stream, response_stream
from wire_turns import LANES, CallSpec, TurnSpec, render

from sse_engine import MessagesLane, Outcome
from sse_engine.messages._emit import MessagesEmitter
from sse_engine.messages._tool_input import SDK_MAX_DEPTH, SDK_MAX_INT_DIGITS, ToolInput
from sse_engine.parts import Finish, PartStream, ToolCall, ToolCallEnd, ToolCallStart
from sse_engine.relay import Relay

# -- the anthropic SDK's reader, and what it can read -------------------------------------


def sdk_reads(buffer: str) -> bool:
    """Whether the anthropic SDK's step on an ``input_json_delta`` takes ``buffer``."""
    try:
        data = buffer.encode("utf-8")
    except UnicodeEncodeError:
        return False
    if not data:
        return True  # the SDK parses only a buffer with something in it
    try:
        from_json(data, partial_mode=True)
    except ValueError:
        return False
    return True


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def expected_input(arguments: str) -> tuple[bool, Any]:
    """Whether a call with input ``arguments`` can reach a Messages client, and its input.

    Blank input is no input (``{}``, as the parts layer reads it). Otherwise it
    must be one JSON value (RFC 8259: no NaN) that the SDK's reader takes whole.
    """
    if not arguments.strip():
        return True, {}
    try:
        value = json.loads(arguments, parse_constant=_no_constants)
    except (ValueError, RecursionError):
        return False, None
    return sdk_reads(arguments), value


# -- fragments, valid and not -------------------------------------------------------------

#: Characters that matter to JSON and to the SDK's reader, and any others.
_CHARS = st.characters(codec=None) | st.sampled_from(
    ['"', "\\", "u", "d", "8", "0", "c", "{", "}", "[", "]", ",", ":", " ", "\n", "1", "-",
     ".", "e", "+", "t", "\ud800", "\udc00", "\ud83d", "\ude00", "\x00", "\u2028"]
)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(_CHARS, max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(_CHARS, max_size=4),
                                                               inner, max_size=3),
    max_leaves=6,
)


@st.composite
def tool_inputs(draw: st.DrawFn) -> str:
    """A tool input: JSON (an object, mostly), JSON with a defect, or any text."""
    value = draw(st.dictionaries(st.text(_CHARS, max_size=4), _VALUES, max_size=3) | _VALUES)
    text = json.dumps(value, ensure_ascii=draw(st.booleans()),
                      indent=draw(st.sampled_from([None, 1])))
    defect = draw(st.sampled_from(["none", "none", "insert", "cut", "text", "blank"]))
    if defect == "insert":
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.text(_CHARS, min_size=1, max_size=3)) + text[at:]
    elif defect == "cut":
        text = text[: draw(st.integers(0, len(text)))]
    elif defect == "text":
        text = draw(st.text(_CHARS, max_size=16))
    elif defect == "blank":
        text = draw(st.sampled_from(["", " ", "\n\t "]))
    return text


@st.composite
def fragments(draw: st.DrawFn, text: str) -> tuple[str, ...]:
    """``text`` cut anywhere (inside escapes and surrogate pairs too), never an empty piece."""
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=6)))
    bounds = [0, *(c for c in cuts if c < len(text)), len(text)]
    return tuple(text[a:b] for a, b in itertools.pairwise(bounds) if b > a)


@st.composite
def turns_with_calls(draw: st.DrawFn) -> TurnSpec:
    calls = []
    for number in range(draw(st.integers(1, 3))):
        calls.append(CallSpec(f"call_{number}", f"tool_{number}",
                              draw(fragments(draw(tool_inputs())))))
    text = tuple(draw(st.lists(st.sampled_from(["Let me ", "check."]), max_size=2)))
    return TurnSpec(text=text, calls=tuple(calls), ending="tool_calls")


def error_message(exc: anthropic.APIStatusError) -> str:
    """The message of the ``event: error`` the SDK raised (its ``message`` is a repr)."""
    body: Any = exc.body
    return str(body["error"]["message"])


def relay(source: str, spec: TurnSpec, to: str) -> bytes:
    relay = Relay(LANES[source](), to=to)
    out = relay.feed(render(source, spec)) + relay.close()
    assert relay.outcome is Outcome.COMPLETED
    return out


# -- the property ------------------------------------------------------------------------

_SURROGATE_PAIR_CUT = TurnSpec(calls=(CallSpec("call_0", "f", ('{"a": "\\ud83d', '\\ude00"}')),),
                               ending="tool_calls")
_LEADING_BLANK = TurnSpec(calls=(CallSpec("call_0", "f", (" ", '{"a": 1}')),), ending="tool_calls")
_LONE = TurnSpec(calls=(CallSpec("call_0", "f", ('{"a": "\\ud800"}',)),
                        CallSpec("call_1", "g", ('{"b": 2}',))), ending="tool_calls")


@pytest.mark.parametrize("source", sorted(LANES))
@settings(
    max_examples=examples(5, thorough=80),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(spec=turns_with_calls())
@example(spec=_SURROGATE_PAIR_CUT)
@example(spec=_LEADING_BLANK)
@example(spec=_LONE)
def test_the_anthropic_sdk_reads_every_relayed_call_or_an_error_naming_the_ones_it_cannot(
    source: str, spec: TurnSpec
) -> None:
    stream = message_stream(relay(source, spec, "messages"))
    error = None
    try:  # anything but the SDK's API error fails the test
        message: Any = stream.get_final_message()
    except anthropic.APIStatusError as exc:
        error = error_message(exc)
        message = stream.current_message_snapshot
    blocks = [b for b in message.content if b.type == "tool_use"]
    assert [b.id for b in blocks] == [c.id for c in spec.calls]  # every call opened, in order
    unreadable = []
    for call, block in zip(spec.calls, blocks, strict=True):
        readable, value = expected_input(call.arguments)
        if readable:
            assert block.input == value, call  # read in full
        else:
            unreadable.append(call.id)
    if unreadable:
        assert error is not None
        assert [c.id for c in spec.calls if f"'{c.id}'" in error] == unreadable
    else:
        assert error is None and message.stop_reason == "tool_use"


@pytest.mark.parametrize("source", sorted(LANES))
@settings(
    max_examples=examples(5, thorough=40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(spec=turns_with_calls())
@example(spec=_LONE)
def test_the_openai_sdk_reads_every_relayed_calls_arguments_as_sent(
    source: str, spec: TurnSpec
) -> None:
    # Chat and Responses do not share the Messages failure: arguments are text.
    # (A Messages call with no fragments has the input its block opened with: {}.)
    empty = "{}" if source == "messages" else ""
    want = [(c.id, c.arguments or empty) for c in spec.calls]
    completion = chat_stream(relay(source, spec, "chat")).get_final_completion()
    calls = completion.choices[0].message.tool_calls or []
    assert [(c.id, c.function.arguments) for c in calls] == want  # type: ignore[union-attr]
    response = response_stream(relay(source, spec, "responses")).get_final_response()
    assert [(i.call_id, i.arguments) for i in response.output
            if i.type == "function_call"] == want


# -- the reader, against the SDK's ---------------------------------------------------------


@settings(max_examples=examples(14, thorough=400), deadline=None)
@given(data=st.data())
def test_every_prefix_written_is_one_the_sdk_reads_and_a_readable_input_is_written_whole(
    data: st.DataObject,
) -> None:
    text = data.draw(tool_inputs())
    written = ""
    tool = ToolInput()
    for piece in data.draw(fragments(text)):
        out = tool.feed(piece)
        if out:
            written += out
            assert sdk_reads(written), written
    rest = tool.finish(text)
    readable, value = expected_input(text)
    assert (rest is not None) == readable, tool.error
    if rest is not None and text.strip():
        assert written + rest == text
        assert from_json((written + rest).encode()) == value


@pytest.mark.parametrize("digits", [SDK_MAX_INT_DIGITS - 1, SDK_MAX_INT_DIGITS,
                                    SDK_MAX_INT_DIGITS + 1])
@pytest.mark.parametrize("number", ["{d}", "-{d}", "{d}.5", "{d}e3", "0.{d}", "1e{d}"])
@pytest.mark.parametrize("step", [1, 97, 10_000])
def test_long_numbers_are_written_as_far_as_the_sdk_reads_them(
    digits: int, number: str, step: int
) -> None:
    text = '{"n": [' + number.format(d="7" * digits) + "]}"
    tool = ToolInput()
    written = ""
    for at in range(0, len(text), step):
        written += tool.feed(text[at : at + step])
        assert sdk_reads(written)
    rest = tool.finish(text)
    assert (rest is not None) == expected_input(text)[0] == sdk_reads(text), tool.error


@pytest.mark.parametrize("depth", [SDK_MAX_DEPTH - 1, SDK_MAX_DEPTH, SDK_MAX_DEPTH + 1])
def test_nesting_is_written_as_deep_as_the_sdk_reads_it(depth: int) -> None:
    text = "[" * depth + "]" * depth
    tool = ToolInput()
    written = "".join(tool.feed(c) for c in text)
    assert sdk_reads(written)
    assert (tool.finish(text) is not None) == (depth <= SDK_MAX_DEPTH) == sdk_reads(text)


# -- one behaviour each --------------------------------------------------------------------


def test_blank_input_is_a_call_without_parameters() -> None:
    for arguments in ("", "  ", "\n"):
        tool = ToolInput()
        assert tool.feed(arguments) == "" and tool.finish(arguments) == ""


def test_a_top_level_scalar_is_held_until_it_is_complete() -> None:
    tool = ToolInput()
    assert [tool.feed(p) for p in ("1", "2")] == ["", ""]
    assert tool.finish("12") == "12"  # written whole: the SDK refuses "tru", "1." and the like


def test_an_input_whose_final_text_differs_from_what_was_written_is_not_written() -> None:
    tool = ToolInput()
    assert tool.feed('{"a": 1') == '{"a": 1'
    assert tool.finish('{"b": 2}') is None
    assert tool.error is not None and "differs" in tool.error


def test_the_final_text_completes_what_the_fragments_could_not() -> None:
    # A Responses source whose .done says more than its deltas did.
    tool = ToolInput()
    assert tool.feed('{"a": ') == '{"a": '
    assert tool.feed("tru") == "tru"
    assert tool.feed("x") == ""  # the SDK would refuse it
    assert tool.finish('{"a": true}') == "e}"


def test_the_error_names_the_call_and_why_and_the_turn_after_it_is_relayed() -> None:
    stream = message_stream(relay("chat", _LONE, "messages"))
    with pytest.raises(anthropic.APIStatusError) as raised:
        stream.get_final_message()
    said = error_message(raised.value)
    assert said.startswith("the upstream's tool call 'call_0' (f) has input a Messages client")
    assert "lone surrogate" in said and "call_1" not in said
    blocks = [b for b in stream.current_message_snapshot.content if b.type == "tool_use"]
    assert [(b.id, b.input) for b in blocks[1:]] == [("call_1", {"b": 2})]


def test_a_call_left_open_is_never_stopped_and_the_stream_fails() -> None:
    body = relay("messages", _LONE, "messages")
    lane = MessagesLane(strict=True)
    events = lane.feed(body) + lane.close()
    stops = [e.index for e in events if type(e).__name__ == "ToolUseStop"]
    assert stops == [1]  # call_1 (block 1) stopped, call_0 (block 0) never did
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert lane.error.retryable  # an upstream's defect: asking again may well work


def test_a_plain_text_input_the_sdk_cannot_read_is_not_written() -> None:
    # A Responses custom tool call's input goes whole, as a JSON string: one with a
    # lone surrogate has no UTF-8 form, which the SDK raises on.
    call = ToolCall.streaming("ctc_1", "shell", "custom_tool_call", server=False, plain=True,
                              partial_strings=False)
    emitter = MessagesEmitter(model="m", id="msg_1", created=0)
    out = emitter.emit([
        ToolCallStart("ctc_1", "shell", 0, call=call),
        ToolCallEnd("ctc_1", "shell", "echo \ud800", "echo \ud800", 0, call=call),
        Finish("tool_calls", Outcome.COMPLETED),
    ], PartStream(MessagesLane()))
    with pytest.raises(anthropic.APIStatusError) as raised:
        message_stream(out).get_final_message()
    assert "'ctc_1'" in error_message(raised.value)
    assert "surrogate character (U+D800)" in error_message(raised.value)
