"""The Chat Completions lane, one test per behaviour (helpers shared by tests/test_chat_*.py).

Scenario bodies are built here from chunk dicts, or read from the bundled
captures in ``sse_engine/captures/chat_*``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import sse_engine
from sse_engine import LaneEvent, Outcome, ProtocolError, StreamEnd
from sse_engine.chat import (
    ChatChunk,
    ChatCompletionsLane,
    ChatContentDelta,
    ChatDeltaField,
    ChatFinish,
    ChatFunctionCallDelta,
    ChatFunctionCallEnd,
    ChatLogprobs,
    ChatRefusalDelta,
    ChatRole,
    ChatToolCallArgumentsDelta,
    ChatToolCallEnd,
    ChatToolCallStarted,
    ChatUnknownFrame,
    ChatUsage,
)

CAPTURES = Path(sse_engine.__file__).parent / "captures"

# -- helpers (imported by the other test_chat_* files) -----------------------------


def capture(name: str) -> bytes:
    return (CAPTURES / name).read_bytes()


def chunk(choices: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    """A chat.completion.chunk with the given choices (and any other top-level keys)."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-test",
        "choices": [] if choices is None else choices,
        **extra,
    }


def choice(index: int = 0, finish: str | None = None, **delta: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"index": index, "delta": delta}
    if finish is not None:
        out["finish_reason"] = finish
    return out


def tool(index: int | None, args: str | None = None, **fields: Any) -> dict[str, Any]:
    """A tool-call fragment: ``tool(0, "", id="c1", name="f")`` opens, ``tool(0, "{}")`` goes on."""
    out: dict[str, Any] = {} if index is None else {"index": index}
    name = fields.pop("name", None)
    if "id" in fields:
        out["id"] = fields.pop("id")
        out["type"] = "function"
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if args is not None:
        function["arguments"] = args
    if function:
        out["function"] = function
    out.update(fields)
    return out


def sse(*frames: Any) -> bytes:
    """An SSE body: dicts become ``data: <json>``, ``":..."`` a comment, other strings raw data."""
    parts = []
    for frame in frames:
        if isinstance(frame, str) and frame.startswith(":"):
            parts.append(frame + "\n\n")
        elif isinstance(frame, str):
            parts.append(f"data: {frame}\n\n")
        else:
            parts.append(f"data: {json.dumps(frame)}\n\n")
    return "".join(parts).encode()


def run(
    body: bytes, *, lane: ChatCompletionsLane | None = None, close: bool = True
) -> tuple[ChatCompletionsLane, list[LaneEvent]]:
    lane = lane or ChatCompletionsLane()
    events = lane.feed(body)
    if close:
        events += lane.close()
    return lane, events


def of(events: list[LaneEvent], cls: type[Any]) -> list[Any]:
    return [e for e in events if type(e) is cls]


def codes(lane: ChatCompletionsLane) -> list[str]:
    return [w.code for w in lane.warnings]


def ends(events: list[LaneEvent]) -> list[StreamEnd]:
    return of(events, StreamEnd)


def text_stream(*pieces: str, finish: str = "stop") -> bytes:
    return sse(
        chunk([choice(role="assistant", content="")]),
        *(chunk([choice(content=p)]) for p in pieces),
        chunk([choice(finish=finish)]),
        "[DONE]",
    )


# -- the wire format -------------------------------------------------------------------


def test_basic_capture_gives_text_then_a_tool_call_and_completes() -> None:
    lane, events = run(capture("chat_basic.sse"))
    assert lane.outcome is Outcome.COMPLETED and lane.error is None and lane.warnings == []
    text = "".join(e.text for e in of(events, ChatContentDelta))
    assert text == "I'll check the current weather in Paris for you."
    started = of(events, ChatToolCallStarted)
    assert [(s.tool_index, s.id, s.name) for s in started] == [
        (0, "call_Jz8kQp2VbN4mXr7tLw1cYs5e", "get_weather")
    ]
    (done,) = of(events, ChatToolCallEnd)
    assert json.loads(done.arguments) == {"location": "Paris, France", "unit": "celsius"}
    api = lane.snapshot.to_api()
    assert api["object"] == "chat.completion"
    assert api["choices"][0]["finish_reason"] == "tool_calls"
    assert api["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] == done.arguments
    assert api["usage"]["total_tokens"] == 115
    assert (api["system_fingerprint"], api["service_tier"]) == ("fp_b3f1157249", "default")
    assert "obfuscation" not in api


def test_done_frame_is_never_json_decoded() -> None:
    seen: list[str] = []

    def loads(text: str) -> Any:
        seen.append(text)
        return json.loads(text)

    lane, _ = run(text_stream("hi"), lane=ChatCompletionsLane(json_loads=loads))
    assert lane.outcome is Outcome.COMPLETED
    assert len(seen) == 3 and not any(s.startswith("[DONE]") for s in seen)


def test_absent_null_keys_are_tolerated() -> None:
    # The gateway shape: no finish_reason key until the end, no usage, no logprobs.
    body = sse(
        {"id": "g1", "choices": [{"delta": {"content": "", "role": "assistant"}, "index": 0}],
         "created": 1, "model": "haiku", "object": "chat.completion.chunk"},
        {"id": "g1", "choices": [{"delta": {"content": "Hello"}, "index": 0}],
         "created": 1, "model": "haiku", "object": "chat.completion.chunk"},
        {"id": "g1", "choices": [{"delta": {}, "finish_reason": "stop", "index": 0}],
         "created": 1, "model": "haiku", "object": "chat.completion.chunk"},
        "[DONE]",
    )
    lane, _ = run(body)
    assert lane.outcome is Outcome.COMPLETED and lane.warnings == []
    api = lane.snapshot.to_api()
    assert api["choices"][0]["message"]["content"] == "Hello"
    assert api["usage"] is None and api["choices"][0]["logprobs"] is None


def test_unknown_fields_and_provider_extras_are_tolerated() -> None:
    body = sse(
        chunk(
            [{**choice(role="assistant", content="a"), "native_finish_reason": None, "x": [1]}],
            system_fingerprint="fp_1", service_tier="priority", obfuscation="Zx9",
            provider="SomeCloud", x_groq={"id": "req_1"}, usage=None,
        ),
        chunk([choice(finish="stop")], obfuscation="q", moderation=None),
        "[DONE]",
    )
    lane, events = run(body)
    assert lane.outcome is Outcome.COMPLETED and lane.warnings == []
    api = lane.snapshot.to_api()
    assert api["system_fingerprint"] == "fp_1" and api["service_tier"] == "priority"
    assert "provider" not in api and "obfuscation" not in api
    assert of(events, ChatChunk)[0].raw["provider"] == "SomeCloud"


def test_azure_content_filter_frames_pass_through_without_counting() -> None:
    lane, events = run(capture("chat_azure_filter.sse"))
    assert lane.outcome is Outcome.COMPLETED and lane.warnings == []
    unknown = of(events, ChatUnknownFrame)
    assert len(unknown) == 2
    assert "prompt_filter_results" in unknown[0].raw
    assert "content_filter_offsets" in unknown[1].raw["choices"][0]
    assert list(lane.snapshot.choices) == [0]
    assert lane.snapshot.to_api()["choices"][0]["message"]["content"] == "Azure says hello."
    assert lane.snapshot.id == "chatcmpl-C4pZ1fV8wYbQ2nTr6sKm0aLcXe9H"  # not the filter frame's ""


def test_kimi_usage_nested_in_the_finish_choice_and_reasoning_content() -> None:
    lane, events = run(capture("chat_kimi.sse"))
    assert lane.outcome is Outcome.COMPLETED
    (usage,) = of(events, ChatUsage)
    assert usage.usage["total_tokens"] == 48
    assert lane.snapshot.usage == usage.usage
    reasoning = [e.value for e in of(events, ChatDeltaField) if e.key == "reasoning_content"]
    assert "".join(reasoning) == "The user wants a haiku."
    message = lane.snapshot.to_api()["choices"][0]["message"]
    assert message["reasoning_content"] == "The user wants a haiku."
    assert message["content"] == "Logs flow through the gate;\nmetrics rise like steam."


# -- per-choice events ---------------------------------------------------------------------


def test_role_is_reported_once_even_when_repeated() -> None:
    body = sse(
        chunk([choice(role="assistant", content="a")]),
        chunk([choice(role="assistant", content="b")]),
        chunk([choice(role="assistant", finish="stop")]),
        "[DONE]",
    )
    lane, events = run(body)
    assert [(e.choice_index, e.role) for e in of(events, ChatRole)] == [(0, "assistant")]
    assert lane.snapshot.to_api()["choices"][0]["message"]["role"] == "assistant"


def test_content_deltas_come_in_order_and_are_never_empty() -> None:
    lane, events = run(text_stream("Hel", "", "lo", " wo", "rld"))
    assert [e.text for e in of(events, ChatContentDelta)] == ["Hel", "lo", " wo", "rld"]
    assert lane.snapshot.choices[0].content == "Hello world"


def test_events_follow_their_chunk_in_wire_order() -> None:
    body = sse(
        chunk([choice(role="assistant", content="Hi")]),
        chunk([choice(finish="stop")]),
        chunk([], usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}),
        "[DONE]",
    )
    _, events = run(body)
    assert [type(e).__name__ for e in events] == [
        "ChatChunk", "ChatRole", "ChatContentDelta",
        "ChatChunk", "ChatFinish",
        "ChatChunk", "ChatUsage",
        "StreamEnd",
    ]


def test_refusal_deltas() -> None:
    lane, events = run(capture("chat_refusal.sse"))
    assert "".join(e.text for e in of(events, ChatRefusalDelta)) == (
        "I'm sorry, I can't help with that."
    )
    assert of(events, ChatContentDelta) == []
    message = lane.snapshot.to_api()["choices"][0]["message"]
    assert message["refusal"] == "I'm sorry, I can't help with that." and message["content"] is None
    assert lane.outcome is Outcome.COMPLETED


def test_logprobs_events_and_snapshot() -> None:
    def lp(token: str) -> dict[str, Any]:
        return {"content": [{"token": token, "logprob": -0.5, "bytes": [1], "top_logprobs": []}],
                "refusal": None}

    body = sse(
        chunk([{**choice(role="assistant", content="a"), "logprobs": lp("a")}]),
        chunk([{**choice(content="b"), "logprobs": lp("b")}]),
        chunk([{**choice(finish="stop"), "logprobs": None}]),
        "[DONE]",
    )
    lane, events = run(body)
    assert [[t["token"] for t in e.content] for e in of(events, ChatLogprobs)] == [["a"], ["b"]]
    kept = lane.snapshot.to_api()["choices"][0]["logprobs"]
    assert [t["token"] for t in kept["content"]] == ["a", "b"] and kept["refusal"] is None
    # The raw chunks were not mutated by the accumulation.
    assert len(of(events, ChatChunk)[0].raw["choices"][0]["logprobs"]["content"]) == 1


# -- tool calls ----------------------------------------------------------------------------


def test_tool_call_common_shape_opening_fragment_then_arguments() -> None:
    body = sse(
        chunk([choice(role="assistant", tool_calls=[tool(0, "", id="call_1", name="lookup")])]),
        chunk([choice(tool_calls=[tool(0, '{"q":')])]),
        chunk([choice(tool_calls=[tool(0, ' "x"}')])]),
        chunk([choice(finish="tool_calls")]),
        "[DONE]",
    )
    lane, events = run(body)
    calls = [e for e in events if type(e).__name__.startswith("ChatToolCall")]
    assert calls == [
        ChatToolCallStarted(0, 0, "call_1", "lookup", "function", raw={}),
        ChatToolCallArgumentsDelta(0, 0, '{"q":', raw={}),
        ChatToolCallArgumentsDelta(0, 0, ' "x"}', raw={}),
        ChatToolCallEnd(0, 0, "call_1", "lookup", "function", '{"q": "x"}', raw={}),
    ]
    # Done comes before the finish event, from the finish chunk.
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("ChatToolCallEnd") == kinds.index("ChatFinish") - 1
    assert lane.outcome is Outcome.COMPLETED


def test_tool_call_is_done_as_soon_as_the_next_index_starts() -> None:
    body = capture("chat_parallel_tools.sse")
    cut = body.index(b'"index":1') + 1
    cut = body.index(b"\n\n", cut) + 2
    lane = ChatCompletionsLane()
    first = lane.feed(body[:cut])
    (done,) = of(first, ChatToolCallEnd)  # before any byte of tool 1's arguments
    assert (done.tool_index, json.loads(done.arguments)) == (0, {"location": "Paris"})
    kinds = [type(e).__name__ for e in first]
    assert kinds[-2:] == ["ChatToolCallEnd", "ChatToolCallStarted"]
    rest = lane.feed(body[cut:]) + lane.close()
    (done1,) = of(rest, ChatToolCallEnd)
    assert (done1.tool_index, json.loads(done1.arguments)) == (1, {"location": "Tokyo"})
    assert lane.outcome is Outcome.COMPLETED


def test_tool_calls_in_a_single_chunk_gemini_without_index() -> None:
    lane, events = run(capture("chat_gemini_tools.sse"))
    assert lane.outcome is Outcome.COMPLETED
    assert codes(lane) == ["missing_tool_index"]
    done = of(events, ChatToolCallEnd)
    assert [(d.tool_index, d.name, json.loads(d.arguments)) for d in done] == [
        (0, "get_weather", {"location": "Paris"}),
        (1, "get_weather", {"location": "Tokyo"}),
    ]
    # Gemini finishes tool calls with "stop": they are done all the same.
    assert of(events, ChatFinish)[0].reason == "stop"
    signature = {"google": {"thought_signature": "CiQBVKhc7kq1sT0xPq3bQm9Yw2Yx0dGhdnNl"}}
    assert done[0].extra == {"extra_content": signature} and done[1].extra == {}
    calls = lane.snapshot.to_api()["choices"][0]["message"]["tool_calls"]
    assert calls[0]["extra_content"] == signature
    assert [c["id"] for c in calls] == [
        "function-call-7741209865345521098", "function-call-7741209865345521099"
    ]
    assert lane.snapshot.usage is not None and lane.snapshot.usage["total_tokens"] == 180


def test_indexless_fragments_continue_the_current_call() -> None:
    body = sse(
        chunk([choice(tool_calls=[tool(None, '{"a":', id="c1", name="f")])]),
        chunk([choice(tool_calls=[tool(None, "1}")])]),
        chunk([choice(tool_calls=[tool(None, extra_content={"google": {"thought_signature": "s"}})])]),  # noqa: E501
        chunk([choice(tool_calls=[tool(None, "{}", id="c2", name="g")])]),
        chunk([choice(finish="stop")]),
        "[DONE]",
    )
    lane, events = run(body)
    assert [(d.id, d.arguments) for d in of(events, ChatToolCallEnd)] == [
        ("c1", '{"a":1}'), ("c2", "{}")
    ]
    calls = lane.snapshot.to_api()["choices"][0]["message"]["tool_calls"]
    assert calls[0]["extra_content"] == {"google": {"thought_signature": "s"}}


def gemini_call(name: str, args: str, **fields: Any) -> dict[str, Any]:
    """A whole tool call in one fragment, without an index (Gemini)."""
    return {**fields, "function": {"name": name, "arguments": args}}


@pytest.mark.parametrize("ids", [{"id": ""}, {}, {"id": "", "type": "function"}])
def test_whole_calls_without_index_or_id_stay_distinct(ids: dict[str, Any]) -> None:
    one_chunk = sse(
        chunk([choice(tool_calls=[
            gemini_call("f", '{"x":1}', **ids), gemini_call("f", '{"y":2}', **ids)
        ])]),
        chunk([choice(finish="stop")]),
        "[DONE]",
    )
    one_per_chunk = sse(
        chunk([choice(tool_calls=[gemini_call("f", '{"x":1}', **ids)])]),
        chunk([choice(tool_calls=[gemini_call("f", '{"y":2}', **ids)])]),
        chunk([choice(finish="stop")]),
        "[DONE]",
    )
    for body in (one_chunk, one_per_chunk):
        lane, events = run(body)
        assert [(d.tool_index, d.name, d.arguments) for d in of(events, ChatToolCallEnd)] == [
            (0, "f", '{"x":1}'), (1, "f", '{"y":2}')
        ]
        calls = lane.snapshot.to_api()["choices"][0]["message"]["tool_calls"]
        assert [c["function"]["arguments"] for c in calls] == ['{"x":1}', '{"y":2}']
        assert codes(lane) == ["missing_tool_index"]


def test_an_indexless_call_with_another_name_is_a_new_call() -> None:
    body = sse(
        chunk([choice(tool_calls=[tool(None, '{"a":', name="f")])]),
        chunk([choice(tool_calls=[tool(None, "1}")])]),
        chunk([choice(tool_calls=[tool(None, "", name="g")])]),
        chunk([choice(tool_calls=[tool(None, "{}")])]),
        chunk([choice(finish="stop")]),
        "[DONE]",
    )
    lane, events = run(body)
    assert [(d.name, d.arguments) for d in of(events, ChatToolCallEnd)] == [
        ("f", '{"a":1}'), ("g", "{}")
    ]
    assert codes(lane) == ["missing_tool_index"]


def test_an_indexless_fragment_repeating_the_name_of_a_partial_call_continues_it() -> None:
    # Only a call sent whole (complete JSON) is closed by the next whole one.
    body = sse(
        chunk([choice(tool_calls=[tool(None, '{"a":', name="f")])]),
        chunk([choice(tool_calls=[tool(None, "1}", name="f")])]),
        chunk([choice(finish="stop")]),
        "[DONE]",
    )
    lane, events = run(body)
    assert [(d.name, d.arguments) for d in of(events, ChatToolCallEnd)] == [("f", '{"a":1}')]
    assert codes(lane) == ["missing_tool_index"]


def test_whole_calls_all_numbered_zero_without_ids_stay_distinct() -> None:
    body = sse(
        chunk([choice(tool_calls=[tool(0, '{"q":1}', name="f")])]),
        chunk([choice(tool_calls=[tool(0, '{"q":2}', name="f")])]),
        chunk([choice(finish="tool_calls")]),
        "[DONE]",
    )
    lane, events = run(body)
    assert [(d.tool_index, d.arguments) for d in of(events, ChatToolCallEnd)] == [
        (0, '{"q":1}'), (1, '{"q":2}')
    ]
    assert codes(lane) == ["tool_index_reused"]


def test_several_tool_calls_in_one_chunk_and_interleaved_by_index() -> None:
    body = sse(
        chunk([choice(tool_calls=[tool(0, "", id="a", name="f"), tool(1, "", id="b", name="g")])]),
        chunk([choice(tool_calls=[tool(0, '{"x":'), tool(1, '{"y":')])]),
        chunk([choice(tool_calls=[tool(1, "2}")])]),
        chunk([choice(tool_calls=[tool(0, "1}")])]),
        chunk([choice(finish="tool_calls")]),
        "[DONE]",
    )
    for lane in (ChatCompletionsLane(), ChatCompletionsLane(strict=True)):
        lane, events = run(body, lane=lane)
        calls = lane.snapshot.to_api()["choices"][0]["message"]["tool_calls"]
        assert [(c["id"], c["function"]["arguments"]) for c in calls] == [
            ("a", '{"x":1}'), ("b", '{"y":2}')
        ]
        # Call 0 had no input yet when call 1 opened: both stayed open and end at
        # the finish, in order, each with all its arguments. Nothing is an anomaly.
        ends = of(events, ChatToolCallEnd)
        assert [(d.tool_index, d.arguments) for d in ends] == [(0, '{"x":1}'), (1, '{"y":2}')]
        kinds = [type(e).__name__ for e in events]
        assert kinds.index("ChatFinish") - 2 == kinds.index("ChatToolCallEnd")
        assert lane.warnings == []


def test_fragments_of_the_same_index_in_one_chunk_are_merged() -> None:
    body = sse(
        chunk([choice(tool_calls=[tool(0, '{"a"', id="c1", name="f"), tool(0, ":1}")])]),
        chunk([choice(finish="tool_calls")]),
        "[DONE]",
    )
    lane, events = run(body)
    assert of(events, ChatToolCallEnd)[0].arguments == '{"a":1}'
    assert len(of(events, ChatToolCallStarted)) == 1 and lane.warnings == []


def test_a_reused_tool_index_with_a_new_id_is_a_new_call() -> None:
    body = sse(
        chunk([choice(tool_calls=[tool(0, '{"q":1}', id="c1", name="f")])]),
        chunk([choice(tool_calls=[tool(0, '{"q":2}', id="c2", name="f")])]),
        chunk([choice(finish="tool_calls")]),
        "[DONE]",
    )
    lane, events = run(body)
    assert [(d.tool_index, d.id, d.arguments) for d in of(events, ChatToolCallEnd)] == [
        (0, "c1", '{"q":1}'), (1, "c2", '{"q":2}')
    ]
    assert codes(lane) == ["tool_index_reused"]


def test_repeated_tool_id_and_name_are_kept_once() -> None:
    body = sse(
        chunk([choice(tool_calls=[tool(0, "", id="c1", name="f")])]),
        chunk([choice(tool_calls=[tool(0, "{}", id="c1", name="f")])]),
        chunk([choice(tool_calls=[tool(0, "", id="c1", name="other")])]),
        chunk([choice(finish="tool_calls")]),
        "[DONE]",
    )
    lane, events = run(body)
    (done,) = of(events, ChatToolCallEnd)
    assert (done.id, done.name, done.arguments) == ("c1", "f", "{}")
    assert codes(lane) == ["tool_call_changed"]


def test_a_call_no_fragment_named_is_done_with_an_empty_name_and_a_warning() -> None:
    body = sse(
        chunk([choice(tool_calls=[tool(0, '{"a"', id="c1")])]),
        chunk([choice(tool_calls=[tool(0, ": 1}")])]),
        chunk([choice(function_call={"arguments": "{}"})]),
        chunk([choice(finish="tool_calls")]),
        "[DONE]",
    )
    lane, events = run(body)
    (done,) = of(events, ChatToolCallEnd)
    assert (done.id, done.name, done.arguments) == ("c1", "", '{"a": 1}')
    (legacy,) = of(events, ChatFunctionCallEnd)
    assert (legacy.name, legacy.arguments) == ("", "{}")
    assert codes(lane) == ["tool_call_without_name", "tool_call_without_name"]
    assert lane.outcome is Outcome.COMPLETED
    assert lane.snapshot.to_api()["choices"][0]["message"]["tool_calls"][0]["function"] == {
        "name": None, "arguments": '{"a": 1}'
    }
    strict, _ = run(body, lane=ChatCompletionsLane(strict=True))  # well formed: no error
    assert codes(strict) == codes(lane)


def test_arguments_sent_as_an_object_are_serialised() -> None:
    body = sse(
        chunk([choice(tool_calls=[{"index": 0, "id": "c1", "type": "function",
                                   "function": {"name": "f", "arguments": {"a": [1, "é"]}}}])]),
        chunk([choice(finish="tool_calls")]),
        "[DONE]",
    )
    lane, events = run(body)
    assert json.loads(of(events, ChatToolCallEnd)[0].arguments) == {"a": [1, "é"]}
    assert codes(lane) == ["arguments_not_string"]


def test_truncated_tool_call_is_never_reported_done() -> None:
    body = sse(
        chunk([choice(tool_calls=[tool(0, '{"path": "/et', id="c1", name="rm")])]),
    )
    lane, events = run(body)
    assert of(events, ChatToolCallEnd) == []
    assert lane.outcome is Outcome.TRUNCATED
    assert lane.snapshot.choices[0].tool_calls[0].done is False


LEGACY_FUNCTION_CALL = sse(
    chunk([choice(role="assistant", function_call={"name": "f", "arguments": ""})]),
    chunk([choice(function_call={"arguments": '{"a":'})]),
    chunk([choice(function_call={"arguments": "1}"})]),
    chunk([choice(finish="function_call")]),
    "[DONE]",
)


def test_legacy_function_call() -> None:
    lane, events = run(LEGACY_FUNCTION_CALL)
    assert [(e.name, e.arguments) for e in of(events, ChatFunctionCallDelta)] == [
        ("f", ""), (None, '{"a":'), (None, "1}")
    ]
    assert of(events, ChatFunctionCallEnd) == [ChatFunctionCallEnd(0, "f", '{"a":1}', raw={})]
    assert lane.snapshot.to_api()["choices"][0]["message"]["function_call"] == {
        "name": "f", "arguments": '{"a":1}'
    }
    assert lane.outcome is Outcome.COMPLETED


# -- several choices --------------------------------------------------------------------------


def test_several_choices_interleave_by_index() -> None:
    lane, events = run(capture("chat_n2_length.sse"))
    per_choice: dict[int, str] = {}
    for e in of(events, ChatContentDelta):
        per_choice[e.choice_index] = per_choice.get(e.choice_index, "") + e.text
    assert per_choice == {0: "Roses are red.", 1: "Violets are blue, sugar"}
    api = lane.snapshot.to_api()
    reasons = [(c["index"], c["finish_reason"]) for c in api["choices"]]
    assert reasons == [(0, "stop"), (1, "length")]


def test_any_incomplete_choice_makes_the_stream_incomplete() -> None:
    lane, events = run(capture("chat_n2_length.sse"))
    assert lane.outcome is Outcome.INCOMPLETE and lane.error is None
    assert ends(events) == [StreamEnd(Outcome.INCOMPLETE, None)]


def test_choices_arriving_out_of_order_are_sorted() -> None:
    body = sse(
        chunk([choice(1, content="b")]),
        chunk([choice(0, content="a")]),
        chunk([choice(1, finish="stop"), choice(0, finish="stop")]),
        "[DONE]",
    )
    lane, _ = run(body)
    assert [c["message"]["content"] for c in lane.snapshot.to_api()["choices"]] == ["a", "b"]
    assert lane.outcome is Outcome.COMPLETED


# -- usage -------------------------------------------------------------------------------------


def test_final_usage_chunk_with_empty_choices() -> None:
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    body = sse(
        chunk([choice(role="assistant", content="hi")], usage=None),
        chunk([choice(finish="stop")], usage=None),
        chunk([], usage=usage),
        "[DONE]",
    )
    lane, events = run(body)
    assert [e.usage for e in of(events, ChatUsage)] == [usage]
    assert lane.snapshot.to_api()["usage"] == usage
    assert lane.snapshot.to_api()["choices"][0]["message"]["content"] == "hi"


def test_a_later_null_usage_does_not_erase_usage() -> None:
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    body = sse(
        chunk([choice(content="hi")]),
        chunk([choice(finish="stop")]),
        chunk([], usage=usage),
        chunk([], usage=None),
        "[DONE]",
    )
    lane, _ = run(body)
    assert lane.snapshot.usage == usage


# -- outcomes -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reason", "outcome"),
    [
        ("stop", Outcome.COMPLETED),
        ("tool_calls", Outcome.COMPLETED),
        ("function_call", Outcome.COMPLETED),
        ("length", Outcome.INCOMPLETE),
        ("content_filter", Outcome.INCOMPLETE),
    ],
)
def test_finish_reason_decides_the_outcome(reason: str, outcome: Outcome) -> None:
    lane, events = run(text_stream("x", finish=reason))
    assert lane.outcome is outcome and lane.error is None
    assert of(events, ChatFinish) == [ChatFinish(0, reason, raw={})]


def test_outcome_waits_for_done_after_the_finish_chunk() -> None:
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    lane = ChatCompletionsLane()
    events = lane.feed(sse(chunk([choice(content="x")]), chunk([choice(finish="stop")])))
    assert ends(events) == [] and lane.outcome is None
    events = lane.feed(sse(chunk([], usage=usage)))
    assert ends(events) == [] and lane.snapshot.usage == usage
    events = lane.feed(sse("[DONE]"))
    assert ends(events) == [StreamEnd(Outcome.COMPLETED, None)]
    assert lane.close() == []


def test_error_frame_mid_stream_fails_with_the_error() -> None:
    body = capture("chat_error.sse")
    lane = ChatCompletionsLane()
    events = lane.feed(body)  # the StreamEnd comes with the frame, before close()
    (end,) = ends(events)
    assert end.outcome is Outcome.FAILED and end.error is not None
    assert (end.error.code, end.error.type) == ("server_error", "server_error")
    assert end.error.message.startswith("The server had an error")
    assert end.error.retryable and end.error.status is None
    assert lane.snapshot.choices[0].content == "The answer is"  # kept
    assert lane.close() == [] and lane.outcome is Outcome.FAILED


def test_error_frame_as_first_frame_after_a_slow_start() -> None:
    lane, events = run(capture("chat_slow_start_error.sse"))
    assert lane.outcome is Outcome.FAILED
    assert lane.error is not None
    assert (lane.error.code, lane.error.type) == ("rate_limit_exceeded", "rate_limit_error")
    assert lane.error.retryable
    assert len(ends(events)) == 1 and lane.snapshot.choices == {}


def test_error_event_without_an_error_key() -> None:
    body = b'event: error\ndata: {"message": "upstream died", "code": "stream_error"}\n\n'
    lane, _ = run(body)
    assert lane.outcome is Outcome.FAILED
    assert lane.error is not None and lane.error.code == "stream_error"


@pytest.mark.parametrize(
    ("data", "message", "code", "retryable"),
    [
        ('"overloaded"', "overloaded", "overloaded", True),
        ('"context_length_exceeded"', "context_length_exceeded", "context_length_exceeded", False),
        ('"upstream timed out"', "upstream timed out", None, True),
        ("503", "503", None, True),
        ("null", "null", None, True),
        ('["x"]', '["x"]', None, True),
        ("upstream stream interrupted", "upstream stream interrupted", None, True),
        ("rate_limit_exceeded", "rate_limit_exceeded", "rate_limit_exceeded", True),
        ("{not json", "{not json", None, True),
        ("", "an error event without data", "stream_error", True),
    ],
)
def test_an_error_event_fails_the_stream_whatever_its_data(
    data: str, message: str, code: str | None, retryable: bool
) -> None:
    lane = ChatCompletionsLane()
    events = lane.feed(sse(chunk([choice(role="assistant", content="kept")])))
    events += lane.feed(f"event: error\ndata: {data}\n\n".encode())
    # The verdict comes with the frame, not from close().
    (end,) = ends(events)
    assert end.outcome is Outcome.FAILED and end.error == lane.error
    assert lane.error is not None
    assert (lane.error.message, lane.error.code) == (message, code)
    assert lane.error.retryable is retryable and lane.error.status is None
    assert lane.error.raw == data  # what the frame carried, as sent
    assert lane.snapshot.choices[0].content == "kept" and lane.warnings == []
    assert lane.close() == []


def test_an_error_event_with_a_json_object_is_read_as_an_error_payload() -> None:
    body = b'event: error\ndata: {"error": {"message": "no", "code": "invalid_prompt"}}\n\n'
    lane, _ = run(body)
    assert lane.error is not None and (lane.error.code, lane.error.message) == (
        "invalid_prompt", "no"
    )
    assert lane.error.retryable is False


def test_an_error_event_wins_over_done_data() -> None:
    body = sse(chunk([choice(content="x", finish="stop")])) + b"event: error\ndata: [DONE]\n\n"
    lane, events = run(body)
    assert lane.outcome is Outcome.FAILED and len(ends(events)) == 1


def test_transport_ending_before_every_choice_finished_is_truncated() -> None:
    lane, events = run(capture("chat_truncated.sse"))
    assert lane.outcome is Outcome.TRUNCATED
    assert lane.error is not None and lane.error.code == "stream_truncated"
    assert lane.error.retryable
    assert codes(lane) == ["unterminated_event"]
    assert lane.snapshot.choices[0].content == "Here is a long answer that will"
    assert len(ends(events)) == 1


def test_done_without_a_finish_reason_is_truncated() -> None:
    body = sse(chunk([choice(role="assistant", content="partial")]), "[DONE]")
    lane, events = run(body, close=False)  # final at [DONE], without close()
    (end,) = ends(events)
    assert end.outcome is Outcome.TRUNCATED
    assert lane.error is not None and lane.error.code == "missing_finish_reason"
    assert "[0]" in lane.error.message and lane.error.retryable


def test_done_with_one_choice_unfinished_is_truncated() -> None:
    body = sse(
        chunk([choice(0, content="a"), choice(1, content="b")]),
        chunk([choice(0, finish="stop")]),
        "[DONE]",
    )
    lane, _ = run(body)
    assert lane.outcome is Outcome.TRUNCATED
    assert lane.error is not None and "[1]" in lane.error.message


def test_done_before_any_choice_is_truncated() -> None:
    lane, _ = run(sse(chunk([], usage={"prompt_tokens": 1}), "[DONE]"))
    assert lane.outcome is Outcome.TRUNCATED
    assert lane.error is not None and lane.error.code == "missing_finish_reason"


FINISHED_WITHOUT_DONE = sse(
    chunk([choice(content="ok")]),
    chunk([choice(finish="length")]),
    chunk([], usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}),
)


def test_every_choice_finished_but_no_done_is_truncated() -> None:
    # The MindsHub rule: a stream cut before its final event failed, and Chat's
    # final event is [DONE]; the usage chunk, just before it, may be the loss.
    lane, events = run(FINISHED_WITHOUT_DONE)
    assert lane.outcome is Outcome.TRUNCATED
    assert lane.error is not None and lane.error.code == "stream_truncated"
    assert lane.error.retryable
    assert codes(lane) == ["missing_done"]
    assert "every choice had finished" in lane.warnings[0].message
    assert "usage chunk" in lane.warnings[0].message
    assert lane.snapshot.usage is not None and lane.snapshot.choices[0].content == "ok"
    assert ends(events) == [StreamEnd(Outcome.TRUNCATED, lane.error)]


def test_an_unfinished_choice_without_done_gets_no_finished_warning() -> None:
    lane, _ = run(sse(chunk([choice(content="ok")])))
    assert lane.outcome is Outcome.TRUNCATED and codes(lane) == []


def test_require_done_false_completes_a_finished_stream_at_close() -> None:
    lane, events = run(FINISHED_WITHOUT_DONE, lane=ChatCompletionsLane(require_done=False))
    assert lane.outcome is Outcome.INCOMPLETE and lane.error is None
    assert codes(lane) == ["missing_done"]
    assert lane.snapshot.usage is not None
    assert ends(events) == [StreamEnd(Outcome.INCOMPLETE, None)]
    # Opting out changes nothing else: an unfinished choice is still a truncation,
    # and [DONE] still ends the stream at once.
    lane, _ = run(sse(chunk([choice(content="ok")])), lane=ChatCompletionsLane(require_done=False))
    assert lane.outcome is Outcome.TRUNCATED
    lane, events = run(text_stream("x"), lane=ChatCompletionsLane(require_done=False), close=False)
    assert ends(events) == [StreamEnd(Outcome.COMPLETED, None)] and lane.warnings == []


def test_frames_after_done_are_ignored_with_a_warning() -> None:
    lane, _ = run(text_stream("x") + sse(chunk([choice(content="late")])))
    assert lane.outcome is Outcome.COMPLETED
    assert codes(lane) == ["event_after_end"]
    assert lane.snapshot.choices[0].content == "x"


# -- what a finished stream lacks ----------------------------------------------------------------


@pytest.mark.parametrize(
    "delta",
    [{}, {"content": ""}, {"reasoning_content": "thinking, then nothing"}],
    ids=["nothing", "empty-content", "reasoning-only"],
)
def test_a_completed_stream_with_nothing_in_it_gets_empty_completion(
    delta: dict[str, Any],
) -> None:
    # Gemini sends a finish reason even when generation failed upstream.
    body = sse(chunk([choice(role="assistant", finish="stop", **delta)]), "[DONE]")
    lane, _ = run(body)
    assert lane.outcome is Outcome.COMPLETED and codes(lane) == ["empty_completion"]
    lane, _ = run(body[: -len(b"data: [DONE]\n\n")], lane=ChatCompletionsLane(require_done=False))
    assert lane.outcome is Outcome.COMPLETED
    assert codes(lane) == ["missing_done", "empty_completion"]


@pytest.mark.parametrize(
    "delta",
    [
        {"content": "x"},
        {"refusal": "I can't"},
        {"tool_calls": [tool(0, "{}", id="c1", name="f")]},
        {"function_call": {"name": "f", "arguments": "{}"}},
        {"audio": {"id": "audio_1", "transcript": "hi"}},
    ],
    ids=["text", "refusal", "tool-call", "function-call", "audio"],
)
def test_any_answer_in_any_choice_is_not_an_empty_completion(delta: dict[str, Any]) -> None:
    body = sse(
        chunk([choice(0, role="assistant"), choice(1, role="assistant", **delta)]),
        chunk([choice(0, finish="stop"), choice(1, finish="stop")]),
        "[DONE]",
    )
    lane, _ = run(body)
    assert lane.outcome is Outcome.COMPLETED and codes(lane) == []


def test_only_a_completed_stream_can_be_an_empty_completion() -> None:
    lane, _ = run(sse(chunk([choice(finish="length")]), "[DONE]"))
    assert lane.outcome is Outcome.INCOMPLETE and codes(lane) == []
    lane, _ = run(sse(chunk([choice(role="assistant")]), "[DONE]"))
    assert lane.outcome is Outcome.TRUNCATED and codes(lane) == []


USAGE = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}


def test_expect_usage_warns_when_the_usage_chunk_never_came() -> None:
    lane, _ = run(text_stream("x"), lane=ChatCompletionsLane(expect_usage=True))
    assert lane.outcome is Outcome.COMPLETED and codes(lane) == ["missing_usage"]
    # Not asked for, not missed.
    assert run(text_stream("x"))[0].warnings == []


def test_expect_usage_is_satisfied_by_usage_anywhere() -> None:
    final_chunk = sse(
        chunk([choice(content="x", finish="stop")]), chunk([], usage=USAGE), "[DONE]"
    )
    nested = sse(chunk([{**choice(content="x", finish="stop"), "usage": USAGE}]), "[DONE]")
    for body in (final_chunk, nested):
        lane, _ = run(body, lane=ChatCompletionsLane(expect_usage=True))
        assert lane.outcome is Outcome.COMPLETED and codes(lane) == []


def test_expect_usage_on_a_cut_stream_and_on_a_failure() -> None:
    # Cut after the finish chunk, before the usage chunk: the usage is lost.
    lane, _ = run(sse(chunk([choice(content="x", finish="stop")])),
                  lane=ChatCompletionsLane(expect_usage=True))
    assert lane.outcome is Outcome.TRUNCATED
    assert codes(lane) == ["missing_done", "missing_usage"]
    # A reported failure says what happened; no usage warning on top.
    lane, _ = run(capture("chat_error.sse"), lane=ChatCompletionsLane(expect_usage=True))
    assert lane.outcome is Outcome.FAILED and codes(lane) == []


# -- pre-stream errors (handled by the base class; checked for this lane) -----------------------


@pytest.mark.parametrize(
    ("status", "code", "retryable"),
    [
        (400, "context_length_exceeded", False),
        (401, "invalid_api_key", False),
        (404, "model_not_found", False),
        (429, "rate_limit_exceeded", True),
        (500, None, True),
    ],
)
def test_pre_stream_json_errors(status: int, code: str | None, retryable: bool) -> None:
    body = json.dumps(
        {"error": {"message": f"failure {status}", "type": "x_error", "param": None, "code": code}}
    ).encode()
    lane = ChatCompletionsLane()
    lane.start(status, {"content-type": "application/json"})
    assert lane.feed(body[:10]) == [] and lane.feed(body[10:]) == []
    (end,) = ends(lane.close())
    assert end.outcome is Outcome.FAILED and end.error is not None
    # No code: the error type is the code (issue 20), as for Anthropic's errors.
    assert (end.error.status, end.error.code) == (status, code or "x_error")
    assert end.error.message == f"failure {status}"
    assert end.error.retryable is retryable
    assert lane.snapshot.choices == {}


def test_pre_stream_429_capture() -> None:
    lane = ChatCompletionsLane()
    lane.start(429, [("Content-Type", "application/json; charset=utf-8")])
    lane.feed(capture("chat_prestream_429.json"))
    lane.close()
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert (lane.error.code, lane.error.type, lane.error.status) == (
        "rate_limit_exceeded", "tokens", 429
    )
    assert lane.error.retryable and "Rate limit reached" in lane.error.message


def test_pre_stream_non_json_body() -> None:
    lane = ChatCompletionsLane()
    lane.start(502, {"content-type": "text/html"})
    lane.feed(b"<html><body><h1>502 Bad Gateway</h1></body></html>")
    lane.close()
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert lane.error.status == 502 and lane.error.retryable
    assert "502 Bad Gateway" in lane.error.message


# -- anomalies ------------------------------------------------------------------------------------


def test_wrong_typed_fields_are_ignored_leniently_and_fatal_when_strict() -> None:
    body = sse(
        chunk([choice(content=5)]),
        chunk([choice(content="ok", tool_calls="nope")]),
        chunk([{"index": "0", "delta": {}}]),
        chunk([choice(finish="stop")], usage=[1]),
        "[DONE]",
    )
    lane, _ = run(body)
    assert lane.outcome is Outcome.COMPLETED
    assert codes(lane) == ["bad_field"] * 4
    assert lane.snapshot.choices[0].content == "ok"
    strict = ChatCompletionsLane(strict=True)
    with pytest.raises(ProtocolError, match=r"delta\.content should be a string"):
        strict.feed(body)
    assert strict.outcome is Outcome.FAILED


def test_delta_after_finish_is_a_violation() -> None:
    body = sse(
        chunk([choice(content="a")]),
        chunk([choice(finish="stop")]),
        chunk([choice(content="b")]),
        "[DONE]",
    )
    lane, _ = run(body)
    assert codes(lane) == ["delta_after_finish"]
    assert lane.snapshot.choices[0].content == "ab"
    # An empty delta after the finish (a usage chunk repeating the choice) is not one.
    harmless = sse(
        chunk([choice(content="a", finish="stop")]),
        chunk([choice(content="", role="assistant", refusal=None)], usage={"total_tokens": 1}),
        "[DONE]",
    )
    assert run(harmless, lane=ChatCompletionsLane(strict=True))[0].outcome is Outcome.COMPLETED
    with pytest.raises(ProtocolError):
        run(body, lane=ChatCompletionsLane(strict=True))


def test_finish_reason_repeated_or_changed() -> None:
    body = sse(
        chunk([choice(content="a", finish="stop")]),
        chunk([choice(finish="stop")]),
        chunk([choice(finish="length")]),
        "[DONE]",
    )
    lane, events = run(body)
    assert [e.reason for e in of(events, ChatFinish)] == ["stop", "length"]
    assert codes(lane) == ["finish_reason_changed"]
    assert lane.outcome is Outcome.INCOMPLETE


def test_unknown_finish_reason_counts_as_a_normal_end_with_a_warning() -> None:
    lane, _ = run(text_stream("x", finish="eos"))
    assert lane.outcome is Outcome.COMPLETED
    assert codes(lane) == ["unknown_finish_reason"]


def test_missing_choice_index_uses_the_position() -> None:
    body = sse(
        chunk([{"delta": {"content": "a"}}]),
        chunk([{"delta": {}, "finish_reason": "stop"}]),
        "[DONE]",
    )
    lane, _ = run(body)
    assert lane.outcome is Outcome.COMPLETED and codes(lane) == ["missing_choice_index"]
    assert lane.snapshot.choices[0].content == "a"


def test_non_object_and_empty_frames() -> None:
    body = sse(chunk([choice(content="a")]), "[1, 2]", '"ping"') + b"data:\n\n" + sse(
        chunk([choice(finish="stop")]), "[DONE]"
    )
    lane, events = run(body)
    assert [e.raw for e in of(events, ChatUnknownFrame)] == [[1, 2], "ping"]
    assert codes(lane) == ["unexpected_frame", "unexpected_frame", "empty_frame"]
    assert lane.outcome is Outcome.COMPLETED


def test_invalid_json_is_a_protocol_error_that_keeps_the_snapshot() -> None:
    lane = ChatCompletionsLane()
    with pytest.raises(ProtocolError, match="invalid JSON") as info:
        lane.feed(sse(chunk([choice(content="kept")])) + b"data: {nope\n\n")
    assert [type(e) for e in info.value.events] == [ChatChunk, ChatContentDelta, StreamEnd]
    assert lane.snapshot.choices[0].content == "kept"
    assert lane.outcome is Outcome.FAILED
    with pytest.raises(ProtocolError):
        lane.feed(b"more")


def test_to_api_is_a_fresh_json_ready_copy() -> None:
    lane, _ = run(capture("chat_basic.sse"))
    first = lane.snapshot.to_api()
    assert json.loads(json.dumps(first)) == first
    first["usage"]["total_tokens"] = 0
    first["choices"][0]["message"]["tool_calls"].clear()
    assert lane.snapshot.to_api()["usage"]["total_tokens"] == 115
    assert len(lane.snapshot.to_api()["choices"][0]["message"]["tool_calls"]) == 1


def test_snapshot_is_available_mid_stream() -> None:
    lane = ChatCompletionsLane()
    lane.feed(sse(chunk([choice(role="assistant", content="Hel")]), chunk([choice(content="lo")])))
    api = lane.snapshot.to_api()
    assert api["choices"][0]["message"]["content"] == "Hello"
    assert api["choices"][0]["finish_reason"] is None and lane.outcome is None


def test_chat_has_no_resume_plan() -> None:
    assert ChatCompletionsLane().resume_plan() is None
