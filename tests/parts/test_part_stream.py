"""PartStream has its lane's interface: start, feed, close, the verdict, warnings, resume.

And what each lane's translation must get right beyond the shared examples:
several Chat choices, the legacy function call, Gemini's whole calls, usage
shapes, Messages usage on non-Claude models (Responses' own: in
``tests/responses/test_responses_parts.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from lane_runs import feed_reads
from wire_turns import CallSpec, TurnSpec, render

from sse_engine import (
    FORMATS,
    ChatCompletionsLane,
    MessagesLane,
    Outcome,
    ProtocolError,
    ResponsesLane,
    StreamError,
    UsageError,
    encode_chat_event,
    encode_messages_event,
)
from sse_engine.parts import (
    Citation,
    Finish,
    Part,
    PartStream,
    ReasoningDelta,
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

CAPTURES = Path(__file__).resolve().parents[2] / "sse_engine" / "captures"


def capture(name: str) -> bytes:
    return (CAPTURES / name).read_bytes()


def everything(stream: PartStream, data: bytes) -> list[Part]:
    return stream.feed(data) + stream.close()


def chat(*chunks: dict[str, Any], done: bool = True) -> bytes:
    base = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    frames = [encode_chat_event({**base, **chunk}) for chunk in chunks]
    return b"".join(frames) + (b"data: [DONE]\n\n" if done else b"")


def choice(index: int = 0, finish: str | None = None, **delta: Any) -> dict[str, Any]:
    return {"choices": [{"index": index, "delta": delta, "finish_reason": finish}]}


# -- the lane's interface ---------------------------------------------------------------------


def test_a_part_stream_forwards_the_lanes_state() -> None:
    lane = ResponsesLane()
    stream = PartStream(lane)
    assert stream.lane is lane and stream.outcome is None and stream.error is None
    body = capture("responses_kindo_agent.sse")  # carries id: lines
    stream.feed(body)
    assert stream.last_event_id == lane.last_event_id != ""
    assert stream.retry == lane.retry
    assert stream.warnings is lane.warnings
    assert stream.resume_plan() == lane.resume_plan()
    stream.close()
    assert stream.outcome is Outcome.COMPLETED and stream.resume_plan() is None
    assert repr(stream) == "<PartStream over ResponsesLane, completed>"


def test_a_lane_it_cannot_read_is_refused() -> None:
    class NotALane(ChatCompletionsLane.__mro__[1]):  # type: ignore[misc]  # the Lane base
        pass

    with pytest.raises(TypeError, match="NotALane is not the lane of any wire format"):
        PartStream(NotALane())


def test_a_subclass_of_a_lane_is_read_as_its_lane() -> None:
    class MyLane(MessagesLane):
        pass

    stream = PartStream(MyLane())
    everything(stream, capture("messages_gateway.sse"))
    assert stream.turn.text == "One, two, three, four, five."


def test_an_error_body_before_the_stream_finishes_failed() -> None:
    stream = PartStream(ChatCompletionsLane())
    stream.start(429, {"content-type": "application/json"})
    parts = everything(stream, capture("chat_prestream_429.json"))
    assert len(parts) == 1 and isinstance(parts[0], Finish)
    assert parts[0].reason == "error" and parts[0].error is not None
    assert parts[0].error.status == 429 and parts[0].error.code == "rate_limit_exceeded"


def test_bytes_that_cannot_be_read_raise_with_the_parts_decoded_before() -> None:
    stream = PartStream(ChatCompletionsLane())
    good = chat(choice(content="Hi"), done=False)
    with pytest.raises(ProtocolError) as caught:
        stream.feed(good + b"data: {not json\n\n")
    parts = caught.value.events
    assert parts[0] == TextDelta("Hi")
    assert isinstance(parts[-1], Finish) and parts[-1].reason == "error"
    assert stream.turn.text == "Hi" and stream.turn.outcome is Outcome.FAILED
    with pytest.raises(ProtocolError):  # the lane's sticky failed state
        stream.feed(b"data: {}\n\n")


def test_close_with_an_error_puts_it_in_the_finish_the_turn_and_the_lane() -> None:
    cut = StreamError(message="the connection reset (Reset: at byte 80)", code="stream_truncated")
    stream = PartStream(MessagesLane())
    stream.feed(capture("messages_basic.sse")[:400])
    (finish,) = stream.close(error=cut)
    assert finish == Finish("truncated", Outcome.TRUNCATED, cut)
    assert stream.error == stream.lane.error == stream.turn.error == cut
    done = PartStream(MessagesLane())
    parts = done.feed(capture("messages_basic.sse"))  # message_stop: it ended itself
    assert done.close(error=cut) == [] and done.error is None and done.turn.error is None
    assert parts[-1] == Finish("tool_calls", Outcome.COMPLETED, None, "tool_use")


def test_a_lane_that_cannot_resume_is_refused_by_its_part_stream() -> None:
    stream = PartStream(ChatCompletionsLane())
    stream.close()
    with pytest.raises(UsageError, match="Chat Completions stream cannot be resumed"):
        stream.resume()


def test_feed_after_close_is_a_usage_error() -> None:
    stream = PartStream(MessagesLane())
    stream.close()
    with pytest.raises(UsageError):
        stream.feed(b"")


def test_translate_reads_events_the_caller_took_from_the_lane() -> None:
    lane = ResponsesLane()
    stream = PartStream(lane)
    events = lane.feed(capture("responses_basic.sse")) + lane.close()
    parts = stream.translate(events)
    fresh = PartStream(ResponsesLane())
    assert parts == everything(fresh, capture("responses_basic.sse"))
    assert stream.turn == fresh.turn
    assert stream.translate(events) == []  # after the Finish, nothing


# -- several choices ----------------------------------------------------------------------------


def test_several_chat_choices_have_a_turn_each_and_parts_carry_the_choice() -> None:
    stream = PartStream(ChatCompletionsLane())
    parts = everything(stream, capture("chat_n2_length.sse"))
    assert {p.choice for p in parts if isinstance(p, TextDelta)} == {0, 1}
    first, second = stream.turns
    assert stream.turn is first and (first.choice, second.choice) == (0, 1)
    assert (first.finish_reason, second.finish_reason) == ("stop", "length")
    assert second.raw_finish_reason == "length"
    assert first.outcome is second.outcome is Outcome.INCOMPLETE
    assert first.text == "Roses are red." and second.text.startswith("Violets")
    assert first.usage == second.usage is not None  # usage is the whole response's
    assert first.id == second.id == stream.lane.snapshot.id  # type: ignore[attr-defined]
    finish = parts[-1]
    assert isinstance(finish, Finish) and (finish.reason, finish.raw_reason) == ("stop", "stop")


def test_tool_calls_are_numbered_per_choice() -> None:
    def call(index: int, tool: int, name: str) -> dict[str, Any]:
        return choice(index, tool_calls=[{"index": tool, "id": f"{name}{index}", "type": "function",
                                          "function": {"name": name, "arguments": "{}"}}])

    stream = PartStream(ChatCompletionsLane())
    parts = everything(stream, chat(call(0, 0, "a"), call(1, 0, "b"), call(1, 1, "c"),
                                    choice(0, "tool_calls"), choice(1, "tool_calls")))
    starts = [(p.choice, p.index, p.name) for p in parts if isinstance(p, ToolCallStart)]
    assert starts == [(0, 0, "a"), (1, 0, "b"), (1, 1, "c")]
    assert [c.name for c in stream.turns[1].tool_calls] == ["b", "c"]


# -- lane specifics -------------------------------------------------------------------------------


def test_chat_reasoning_is_read_from_the_first_reasoning_key_a_provider_sends() -> None:
    stream = PartStream(ChatCompletionsLane())
    everything(stream, chat(choice(reasoning_content="Hm", reasoning="Hm"),
                            choice(reasoning="!", reasoning_content="."), choice(content="A"),
                            choice(finish="stop")))
    assert (stream.turn.reasoning, stream.turn.text) == ("Hm.", "A")


def test_the_legacy_function_call_is_a_tool_call() -> None:
    stream = PartStream(ChatCompletionsLane())
    parts = everything(stream, chat(
        choice(function_call={"name": "lookup", "arguments": ""}),
        choice(function_call={"arguments": '{"q": '}), choice(function_call={"arguments": '"x"}'}),
        choice(finish="function_call")))
    (call,) = stream.turn.tool_calls
    assert (call.name, call.id, call.type, call.arguments, call.input) == (
        "lookup", "", "function_call", '{"q": "x"}', {"q": "x"})
    assert [type(p) for p in parts] == [
        ToolCallStart, ToolCallDelta, ToolCallDelta, ToolCallEnd, Finish]
    assert isinstance(parts[-1], Finish) and parts[-1].reason == "tool_calls"


def test_a_name_sent_after_the_opening_fragment_is_in_the_end_part() -> None:
    stream = PartStream(ChatCompletionsLane())
    parts = everything(stream, chat(
        choice(tool_calls=[{"index": 0, "id": "x", "function": {"arguments": "{"}}]),
        choice(tool_calls=[{"index": 0, "function": {"name": "late", "arguments": "}"}}]),
        choice(finish="tool_calls")))
    start, end = parts[0], parts[-2]
    assert isinstance(start, ToolCallStart) and start.name == ""
    assert isinstance(end, ToolCallEnd) and end.name == "late" and end.input == {}
    assert stream.turn.tool_calls[0].name == "late"


def test_gemini_whole_tool_calls_start_stream_and_end() -> None:
    stream = PartStream(ChatCompletionsLane())
    parts = everything(stream, capture("chat_gemini_tools.sse"))
    calls = [p for p in parts if isinstance(p, ToolCallEnd)]
    assert [(c.name, c.input) for c in calls] == [
        ("get_weather", {"location": "Paris"}), ("get_weather", {"location": "Tokyo"})]
    assert stream.turn.usage == Usage(61, 38, 180, None, 81)


def test_chat_usage_with_cached_and_reasoning_tokens() -> None:
    usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120,
             "prompt_tokens_details": {"cached_tokens": 64},
             "completion_tokens_details": {"reasoning_tokens": 12}}
    stream = PartStream(ChatCompletionsLane())
    parts = everything(stream, chat(choice(content="a", finish="stop"),
                                    {"choices": [], "usage": usage}))
    (update,) = [p for p in parts if isinstance(p, UsageUpdate)]
    assert update.usage == Usage(100, 20, 120, 64, 12)
    assert update.usage.raw == usage


def test_messages_usage_counts_cache_reads_and_writes_as_input() -> None:
    stream = PartStream(MessagesLane())
    parts = everything(stream, capture("messages_basic.sse"))
    usages = [p.usage for p in parts if isinstance(p, UsageUpdate)]
    start = json.loads(capture("messages_basic.sse").split(b"data: ", 2)[1].split(b"\n")[0])
    raw = start["message"]["usage"]
    fresh = raw["input_tokens"] + raw.get("cache_read_input_tokens", 0) \
        + raw.get("cache_creation_input_tokens", 0)
    assert usages[0].input_tokens == fresh
    assert usages[-1] == stream.turn.usage
    assert stream.turn.usage is not None and stream.turn.usage.total_tokens == (
        stream.turn.usage.input_tokens + stream.turn.usage.output_tokens)  # type: ignore[operator]


def test_messages_zero_input_at_the_start_is_not_known_yet() -> None:
    """A gateway's non-Claude model says input_tokens 0 at message_start, the real count later."""
    stream = PartStream(MessagesLane())
    parts = everything(stream, capture("messages_gateway.sse"))
    first, last = [p.usage for p in parts if isinstance(p, UsageUpdate)]
    assert (first.input_tokens, first.output_tokens, first.total_tokens) == (None, 0, None)
    assert (last.input_tokens, last.output_tokens, last.total_tokens) == (14, 11, 25)


def test_messages_server_tools_are_server_calls_and_need_nothing_from_the_client() -> None:
    stream = PartStream(MessagesLane())
    parts = everything(stream, capture("messages_web_search.sse"))
    calls = stream.turn.tool_calls
    assert calls and all(c.server and c.type == "server_tool_use" and c.done for c in calls)
    assert isinstance(parts[-1], Finish) and parts[-1].reason == "stop"


def test_messages_thinking_blocks_are_reasoning_separated_by_a_blank_line() -> None:
    frames = [{"type": "message_start", "message": {"id": "m", "model": "c", "content": [],
                                                    "usage": {"input_tokens": 5}}}]
    for index, thought in enumerate(["First.", "Second."]):
        frames += [
            {"type": "content_block_start", "index": index,
             "content_block": {"type": "thinking", "thinking": ""}},
            {"type": "content_block_delta", "index": index,
             "delta": {"type": "thinking_delta", "thinking": thought}},
            {"type": "content_block_stop", "index": index},
        ]
    frames += [{"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 3}}, {"type": "message_stop"}]
    stream = PartStream(MessagesLane())
    parts = everything(stream, b"".join(encode_messages_event(f) for f in frames))
    assert [p.text for p in parts if isinstance(p, ReasoningDelta)] == ["First.", "\n\n", "Second."]
    assert stream.turn.reasoning == "First.\n\nSecond."


def test_messages_blocks_complete_in_message_start_are_parts_too() -> None:
    block_call = {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}}
    frames = [{"type": "message_start", "message": {
        "id": "m", "model": "c", "usage": {"input_tokens": 5},
        "content": [{"type": "text", "text": "Pre"}, block_call]}},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
         "usage": {"output_tokens": 3}}, {"type": "message_stop"}]
    stream = PartStream(MessagesLane())
    parts = everything(stream, b"".join(encode_messages_event(f) for f in frames))
    assert parts[0] == TextDelta("Pre")
    end = next(p for p in parts if isinstance(p, ToolCallEnd))
    assert (end.id, end.arguments, end.input) == ("t1", '{"a":1}', {"a": 1})


def test_a_messages_tool_without_parameters_has_empty_object_input() -> None:
    spec = TurnSpec(calls=(CallSpec("t", "now", ()),), ending="tool_calls")
    for lane in (MessagesLane(), ChatCompletionsLane(), ResponsesLane()):
        stream = PartStream(lane)
        parts = everything(stream, render(
            {MessagesLane: "messages", ChatCompletionsLane: "chat",
             ResponsesLane: "responses"}[type(lane)], spec))
        end = next(p for p in parts if isinstance(p, ToolCallEnd))
        assert end.input == {} and end.input_error is None, type(lane).__name__


# -- tool input that is not JSON ----------------------------------------------------------


@pytest.mark.parametrize("lane", ["chat", "responses", "messages"])
def test_invalid_tool_input_keeps_its_text_and_warns_without_failing(lane: str) -> None:
    spec = TurnSpec(text=("ok",), calls=(CallSpec("c1", "f", ('{"a": ', "nope}")),),
                    ending="tool_calls")
    stream = PartStream({"chat": ChatCompletionsLane, "responses": ResponsesLane,
                         "messages": MessagesLane}[lane]())
    parts = everything(stream, render(lane, spec))
    end = next(p for p in parts if isinstance(p, ToolCallEnd))
    assert end.arguments == '{"a": nope}' and end.input is None
    assert end.input_error is not None and "not valid JSON" in end.input_error
    call = stream.turn.tool_calls[0]
    assert call.done and call.input is None and call.input_error == end.input_error
    assert [w.code for w in stream.warnings] == ["tool_input_invalid"]
    assert stream.outcome is Outcome.COMPLETED and isinstance(parts[-1], Finish)
    assert parts[-1].reason == "tool_calls"


# -- Turn and ToolCall ------------------------------------------------------------------------


def test_turn_and_tool_call_compare_by_value() -> None:
    call = ToolCall("c", "f", '{"a":1}', {"a": 1}, done=True)
    assert call == ToolCall("c", "f", '{"a":1}', {"a": 1}, done=True)
    assert call != ToolCall("c", "f", '{"a":1}', {"a": 2}, done=True)
    assert "ToolCall(id='c'" in repr(call)
    turn = Turn("r", "m", "Hello", tool_calls=[call])
    assert turn == Turn("r", "m", "Hello", tool_calls=[ToolCall("c", "f", '{"a":1}', {"a": 1},
                                                                done=True)])
    assert turn != Turn("r", "m", "Hello!")
    assert "text='Hello'" in repr(turn)
    assert turn.__eq__(object()) is NotImplemented


def test_parts_made_on_the_hot_path_are_the_frozen_parts_their_constructor_makes() -> None:
    import attrs

    from sse_engine.parts._makers import make_call_delta, make_reasoning, make_refusal, make_text

    call = ToolCall("c", "f")
    made = [make_text("a", 1), make_reasoning("b", 0), make_refusal("c", 2),
            make_call_delta("id", "{", 3, 0, call)]
    built = [TextDelta("a", 1), ReasoningDelta("b", 0), RefusalDelta("c", 2),
             ToolCallDelta("id", "{", 3, 0, call=call)]
    assert made == built and [repr(p) for p in made] == [repr(p) for p in built]
    assert [hash(p) for p in made] == [hash(p) for p in built]
    assert made[3].call is call
    for part in made:
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            part.text = "x"  # type: ignore[misc]


# -- issue 20 item 6: many choices cost linear work --------------------------------------------


class _CountingTurns(dict[int, Any]):
    """The builder's turns, counting every turn any code walks over (a ``min``, an ``any``)."""

    walked = 0

    def __iter__(self) -> Any:
        for key in super().__iter__():
            _CountingTurns.walked += 1
            yield key

    def values(self) -> Any:
        for key in self:
            yield self[key]

    def items(self) -> Any:
        for key in self:
            yield key, self[key]


def _walked_for(choices: int) -> int:
    """How many turns the parts layer walks over for one chunk of ``choices`` choices,
    each with reasoning then text (the shape that asked the most), and the end."""
    reasoning = [{"index": i, "delta": {"role": "assistant", "reasoning_content": "r"}}
                 for i in range(choices)]
    text = [{"index": i, "delta": {"content": "t"}, "finish_reason": "stop"}
            for i in range(choices)]
    body = b"".join(
        encode_chat_event({"id": "c", "object": "chat.completion.chunk", "created": 1,
                           "model": "m", "choices": part})
        for part in (reasoning, text)
    ) + b"data: [DONE]\n\n"
    stream = PartStream(ChatCompletionsLane())
    stream._builder.turns = _CountingTurns(stream._builder.turns)
    _CountingTurns.walked = 0
    parts = stream.feed(body) + stream.close()
    assert isinstance(parts[-1], Finish) and len(stream.turns) == choices
    return _CountingTurns.walked


def test_many_choices_in_one_chunk_cost_work_linear_in_the_choices() -> None:
    # Quadratic work (each new turn or each event walking every turn) would
    # quadruple when the choices double; linear work doubles.
    small, large = _walked_for(200), _walked_for(400)
    assert large <= 2 * small + 10, (small, large)


# -- issue 20 item 12: citations -----------------------------------------------------------------


def test_chat_annotations_are_citations_on_the_turn() -> None:
    cite = {"type": "url_citation", "url_citation": {"url": "https://example.org/a",
                                                     "title": "A", "start_index": 0,
                                                     "end_index": 5}}
    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return encode_chat_event({"id": "c", "object": "chat.completion.chunk", "created": 1,
                                  "model": "m", "choices": [{"index": 0, "delta": delta,
                                                             "finish_reason": finish}]})
    stream = PartStream(ChatCompletionsLane())
    parts = stream.feed(chunk({"role": "assistant", "content": "Hello"})
                        + chunk({"annotations": [cite, "not an object"]})
                        + chunk({}, "stop") + b"data: [DONE]\n\n") + stream.close()
    citations = [p for p in parts if isinstance(p, Citation)]
    assert citations == [Citation("url_citation", "https://example.org/a", "A")]
    assert citations[0].raw == cite and stream.turn.citations == citations


@settings(max_examples=examples(10, thorough=100), deadline=None)
@given(name=st.sampled_from(sorted(p.name for p in CAPTURES.glob("*.sse"))),
       data=st.data())
def test_a_lane_that_keeps_comments_gives_the_same_parts(name: str, data: st.DataObject) -> None:
    """PartStream reads its lane past ``Lane.feed``'s filter of kept comments: a comment
    makes no part, so a lane asked for them (``feed_with_comments``) gives the same parts,
    errors and turn, however the body is cut and wherever keepalives come."""
    frames = capture(name).split(b"\n\n")
    keepalives = data.draw(st.lists(st.integers(0, len(frames)), max_size=4))
    for at in sorted(keepalives, reverse=True):
        frames.insert(at, b": keepalive")
    body = b"\n\n".join(frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(body)), max_size=6)))
    reads = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    lane_class = FORMATS[name.split("_", 1)[0]].lane if name != "sample.sse" else ResponsesLane
    keeping = lane_class()
    keeping.feed_with_comments(b"")
    plain = PartStream(lane_class())
    with_comments = PartStream(keeping)
    assert feed_reads(with_comments, reads) == feed_reads(plain, reads)
    assert with_comments.turn == plain.turn
