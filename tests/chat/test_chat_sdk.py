"""Differential tests: the lane against the official ``openai`` SDK on the same bytes.

The SDK side is its own streaming path, offline: ``openai.Stream`` over an
in-memory ``httpx.Response`` (a client with a dummy key; no request is sent),
wrapped in ``openai.lib.streaming.chat.ChatCompletionStream``, which feeds
``ChatCompletionStreamState``; its final completion is dumped with
``model_dump(mode="json", exclude_unset=True)``.

:func:`sdk_comparable` removes what only the SDK's Python objects have
(``parsed``, ``parsed_arguments``, the ``index`` kept on tool calls, fields it
sets to None that the API object does not carry, choice-level extras copied
from the first chunk). Everything else must be equal; where the lane
deliberately differs, the test says so and checks both sides.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import loopback
import openai
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from openai.lib.streaming.chat import ChatCompletionStream
from openai.types.chat import ChatCompletionChunk
from test_chat import LEGACY_FUNCTION_CALL, capture, choice, chunk, run, sse, tool

from sse_engine import Outcome
from sse_engine.chat import ChatContentDelta, ChatToolCallEnd

_CLIENT = loopback.openai_client("https://example.invalid/v1")


class SDKResult:
    """What the SDK made of a body: its final completion, events, and what it raised."""

    def __init__(self, body: bytes) -> None:
        response = httpx.Response(
            200,
            headers={"content-type": "text/event-stream"},
            content=body,
            request=httpx.Request("POST", "https://example.invalid/v1/chat/completions"),
        )
        raw = openai.Stream(cast_to=ChatCompletionChunk, response=response, client=_CLIENT)
        stream = ChatCompletionStream(
            raw_stream=raw, response_format=openai.omit, input_tools=openai.omit
        )
        self.events: list[Any] = []
        self.error: Exception | None = None
        completion: Any = None
        try:
            for event in stream:
                self.events.append(event)
            completion = stream.get_final_completion()
        except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as exc:
            # get_final_completion() raises for these even without a response_format.
            self.error = exc
            completion = exc.completion
        except openai.APIError as exc:
            self.error = exc
            completion = stream.current_completion_snapshot if self.events else None
        self.api = (
            None
            if completion is None
            else sdk_comparable(completion.model_dump(mode="json", exclude_unset=True))
        )

    def text(self) -> str:
        return "".join(e.delta for e in self.events if e.type == "content.delta")

    def tool_done(self) -> list[tuple[int, str, str]]:
        return [
            (e.index, e.name, e.arguments)
            for e in self.events
            if e.type == "tool_calls.function.arguments.done"
        ]


_TOP = (
    "id",
    "object",
    "created",
    "model",
    "choices",
    "usage",
    "system_fingerprint",
    "service_tier",
    "moderation",
)
_SDK_NONE = ("annotations", "audio", "function_call", "tool_calls")


def sdk_comparable(dump: dict[str, Any]) -> dict[str, Any]:
    out = {k: dump[k] for k in _TOP if k in dump}
    for key in ("system_fingerprint", "service_tier", "moderation"):
        if out.get(key) is None:
            out.pop(key, None)
    out.setdefault("usage", None)
    out["choices"] = [_choice(c) for c in out["choices"]]
    return out


def _choice(c: dict[str, Any]) -> dict[str, Any]:
    message = {k: v for k, v in c["message"].items() if k != "parsed"}
    for key in _SDK_NONE:
        if message.get(key) is None:
            message.pop(key, None)
    message.setdefault("content", None)
    message.setdefault("refusal", None)
    for call in message.get("tool_calls", []):
        call.pop("index", None)
        call["function"].pop("parsed_arguments", None)
    return {
        "index": c["index"],
        "message": message,
        "finish_reason": c.get("finish_reason"),
        "logprobs": c.get("logprobs"),
    }


def both(body: bytes) -> tuple[Any, SDKResult, list[Any]]:
    lane, events = run(body)
    return lane, SDKResult(body), events


# -- equal on the same bytes ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["chat_basic.sse", "chat_parallel_tools.sse", "chat_refusal.sse"])
def test_openai_captures_equal_the_sdk(name: str) -> None:
    lane, sdk, events = both(capture(name))
    assert sdk.error is None
    assert lane.snapshot.to_api() == sdk.api
    assert "".join(e.text for e in events if type(e) is ChatContentDelta) == sdk.text()


def test_tool_call_done_events_match_the_sdk() -> None:
    for name in ("chat_basic.sse", "chat_parallel_tools.sse"):
        _, sdk, events = both(capture(name))
        ours = [(e.tool_index, e.name, e.arguments) for e in events if type(e) is ChatToolCallEnd]
        assert ours == sdk.tool_done() and ours


def test_several_choices_with_a_length_finish_equal_the_sdk() -> None:
    lane, sdk, _ = both(capture("chat_n2_length.sse"))
    # The SDK raises LengthFinishReasonError from get_final_completion(); the lane
    # reports Outcome.INCOMPLETE instead. The assembled completions are the same.
    assert isinstance(sdk.error, openai.LengthFinishReasonError)
    assert lane.outcome is Outcome.INCOMPLETE
    assert lane.snapshot.to_api() == sdk.api


def test_content_filter_finish_equals_the_sdk() -> None:
    body = sse(
        chunk([choice(role="assistant", content="Once upon")]),
        chunk([choice(finish="content_filter")]),
        "[DONE]",
    )
    lane, sdk, _ = both(body)
    assert isinstance(sdk.error, openai.ContentFilterFinishReasonError)
    assert lane.outcome is Outcome.INCOMPLETE
    assert lane.snapshot.to_api() == sdk.api


def test_azure_filter_frames_are_skipped_like_the_sdk() -> None:
    lane, sdk, _ = both(capture("chat_azure_filter.sse"))
    assert sdk.error is None
    assert lane.snapshot.to_api() == sdk.api


def test_absent_null_keys_equal_the_sdk() -> None:
    frames = [
        {
            "id": "g1",
            "choices": [{"delta": {"content": "", "role": "assistant"}, "index": 0}],
            "created": 1,
            "model": "haiku",
            "object": "chat.completion.chunk",
        },
        {
            "id": "g1",
            "choices": [{"delta": {"content": "Hello"}, "index": 0}],
            "created": 1,
            "model": "haiku",
            "object": "chat.completion.chunk",
        },
        {
            "id": "g1",
            "choices": [{"delta": {}, "finish_reason": "stop", "index": 0}],
            "created": 1,
            "model": "haiku",
            "object": "chat.completion.chunk",
        },
    ]
    lane, sdk, _ = both(sse(*frames, "[DONE]"))
    assert lane.snapshot.to_api() == sdk.api


def test_provider_extras_equal_the_sdk() -> None:
    extras = {"system_fingerprint": "fp_1", "service_tier": "default", "obfuscation": "Zq"}
    body = sse(
        chunk([choice(role="assistant", content="a", refusal=None)], usage=None, **extras),
        chunk([choice(content="b")], usage=None, **extras),
        chunk([choice(finish="stop")], usage=None, **extras),
        chunk([], usage={"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}, **extras),
        "[DONE]",
    )
    lane, sdk, _ = both(body)
    assert lane.snapshot.to_api() == sdk.api
    assert "obfuscation" not in lane.snapshot.to_api()


def test_single_chunk_tool_calls_with_an_index_equal_the_sdk() -> None:
    body = sse(
        chunk(
            [
                choice(
                    role="assistant",
                    tool_calls=[
                        tool(0, '{"location":"Paris"}', id="call_a", name="get_weather"),
                        tool(1, '{"location":"Tokyo"}', id="call_b", name="get_weather"),
                    ],
                )
            ]
        ),
        chunk([choice(finish="tool_calls")]),
        "[DONE]",
    )
    lane, sdk, events = both(body)
    assert lane.snapshot.to_api() == sdk.api
    ours = [(e.tool_index, e.name, e.arguments) for e in events if type(e) is ChatToolCallEnd]
    assert ours == sdk.tool_done()


def test_interleaved_and_merged_fragments_equal_the_sdk() -> None:
    body = sse(
        chunk(
            [
                choice(
                    role="assistant",
                    tool_calls=[tool(0, "", id="a", name="f"), tool(1, "", id="b", name="g")],
                )
            ]
        ),
        chunk([choice(tool_calls=[tool(0, '{"x"'), tool(0, ":"), tool(1, '{"y":')])]),
        chunk([choice(tool_calls=[tool(1, "2}")])]),
        chunk([choice(tool_calls=[tool(0, "1}")])]),
        chunk([choice(finish="tool_calls")]),
        "[DONE]",
    )
    lane, sdk, _ = both(body)
    assert lane.snapshot.to_api() == sdk.api


def test_legacy_function_call_equals_the_sdk() -> None:
    lane, sdk, _ = both(LEGACY_FUNCTION_CALL)
    assert lane.snapshot.to_api() == sdk.api


def test_logprobs_equal_the_sdk() -> None:
    def lp(token: str, key: str = "content") -> dict[str, Any]:
        item = {
            "token": token,
            "logprob": -0.25,
            "bytes": [104],
            "top_logprobs": [{"token": token, "logprob": -0.25, "bytes": [104]}],
        }
        return {"content": None, "refusal": None, key: [item]}

    body = sse(
        chunk([{**choice(role="assistant", content="h"), "logprobs": lp("h")}]),
        chunk([{**choice(content="i"), "logprobs": lp("i")}]),
        chunk([{**choice(refusal="no"), "logprobs": lp("no", "refusal")}]),
        chunk([{**choice(finish="stop"), "logprobs": None}]),
        "[DONE]",
    )
    lane, sdk, _ = both(body)
    assert lane.snapshot.to_api() == sdk.api


def test_reasoning_content_equals_the_sdk_kimi_usage_deliberately_differs() -> None:
    lane, sdk, _ = both(capture("chat_kimi.sse"))
    ours = lane.snapshot.to_api()
    assert sdk.api is not None
    # Deliberate: Kimi nests usage in the finish chunk's choice; the SDK only reads
    # the top-level key, so its usage is None. The lane keeps the nested usage.
    assert sdk.api["usage"] is None and ours["usage"]["total_tokens"] == 48
    ours["usage"] = None
    assert ours == sdk.api
    assert ours["choices"][0]["message"]["reasoning_content"] == "The user wants a haiku."


# -- deliberate differences ---------------------------------------------------------------------


def test_later_null_usage_erases_usage_in_the_sdk_but_not_in_the_lane() -> None:
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    body = sse(
        chunk([choice(role="assistant", content="hi")], system_fingerprint="fp_1"),
        chunk([choice(finish="stop")], system_fingerprint="fp_1"),
        chunk([], usage=usage, system_fingerprint="fp_1"),
        chunk([], usage=None),  # a gateway's trailing frame, without a fingerprint either
        "[DONE]",
    )
    lane, sdk, _ = both(body)
    ours = lane.snapshot.to_api()
    assert sdk.api is not None
    assert sdk.api["usage"] is None and "system_fingerprint" not in sdk.api
    assert ours["usage"] == usage and ours["system_fingerprint"] == "fp_1"
    del ours["system_fingerprint"]
    ours["usage"] = None
    assert ours == sdk.api


def test_truncation_is_silent_in_the_sdk_and_detected_by_the_lane() -> None:
    lane, sdk, _ = both(capture("chat_truncated.sse"))
    # Same partial completion; the SDK raises nothing and reports nothing.
    assert sdk.error is None and lane.snapshot.to_api() == sdk.api
    assert lane.outcome is Outcome.TRUNCATED


def test_done_without_finish_reason_is_silent_in_the_sdk_and_truncated_in_the_lane() -> None:
    body = sse(chunk([choice(role="assistant", content="partial")]), "[DONE]")
    lane, sdk, _ = both(body)
    assert sdk.error is None and lane.snapshot.to_api() == sdk.api
    assert lane.outcome is Outcome.TRUNCATED and lane.error is not None


@pytest.mark.parametrize("name", ["chat_error.sse", "chat_slow_start_error.sse"])
def test_error_frames_raise_in_the_sdk_and_fail_the_lane(name: str) -> None:
    lane, sdk, _ = both(capture(name))
    assert isinstance(sdk.error, openai.APIError)
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert lane.error.message == sdk.error.message
    assert isinstance(sdk.error.body, dict)
    assert (lane.error.code, lane.error.type) == (sdk.error.body["code"], sdk.error.body["type"])
    if sdk.api is not None:  # the partial completion before the error is the same
        assert lane.snapshot.to_api() == sdk.api


def test_gemini_indexless_tool_calls_crash_the_sdk_and_assemble_in_the_lane() -> None:
    body = capture("chat_gemini_tools.sse")
    # The SDK's accumulate_delta cannot place a tool-call fragment without "index".
    with pytest.raises(TypeError):
        SDKResult(body)
    lane, _ = run(body)
    calls = lane.snapshot.to_api()["choices"][0]["message"]["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [
        {"location": "Paris"},
        {"location": "Tokyo"},
    ]


def test_repeated_role_and_tool_id_are_concatenated_by_the_sdk_not_the_lane() -> None:
    body = sse(
        chunk([choice(role="assistant", tool_calls=[tool(0, "", id="call_1", name="f")])]),
        chunk([choice(role="assistant", tool_calls=[tool(0, "{}", id="call_1", name="f")])]),
        chunk([choice(finish="tool_calls")]),
        "[DONE]",
    )
    lane, sdk, _ = both(body)
    assert sdk.api is not None
    sdk_message = sdk.api["choices"][0]["message"]
    assert sdk_message["role"] == "assistantassistant"
    assert sdk_message["tool_calls"][0]["id"] == "call_1call_1"
    assert sdk_message["tool_calls"][0]["function"]["name"] == "ff"
    ours = lane.snapshot.to_api()["choices"][0]["message"]
    assert ours["role"] == "assistant"
    assert (ours["tool_calls"][0]["id"], ours["tool_calls"][0]["function"]["name"]) == (
        "call_1",
        "f",
    )


def test_missing_role_is_none_in_the_sdk_and_assistant_in_the_lane() -> None:
    body = sse(chunk([choice(content="a")]), chunk([choice(finish="stop")]), "[DONE]")
    lane, sdk, _ = both(body)
    assert sdk.api is not None and sdk.api["choices"][0]["message"]["role"] is None
    ours = lane.snapshot.to_api()
    assert ours["choices"][0]["message"]["role"] == "assistant"
    ours["choices"][0]["message"]["role"] = None
    assert ours == sdk.api


# -- generated streams ------------------------------------------------------------------------

_REASONS = ("stop", "length", "tool_calls", "content_filter", "function_call")
_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)


@st.composite
def chat_streams(draw: st.DrawFn) -> bytes:
    """A well-formed OpenAI stream: n choices, text/refusal pieces, sequential tool calls."""
    n = draw(st.integers(1, 3))
    extra = draw(st.sampled_from([{}, {"system_fingerprint": "fp_x", "service_tier": "default"}]))
    queues: list[list[dict[str, Any]]] = []
    for _ in range(n):
        deltas: list[dict[str, Any]] = []
        for _ in range(draw(st.integers(0, 4))):
            deltas.append({draw(st.sampled_from(["content", "refusal"])): draw(_text)})
        for t in range(draw(st.integers(0, 3))):
            name = draw(st.sampled_from(["f", "get_weather", "search"]))
            deltas.append({"tool_calls": [tool(t, draw(_text), id=f"call_{t}", name=name)]})
            for _ in range(draw(st.integers(0, 3))):
                deltas.append({"tool_calls": [tool(t, draw(_text))]})
        queues.append(deltas)
    frames: list[Any] = [
        chunk([choice(i, role="assistant", content="")], **extra) for i in range(n)
    ]
    while any(queues):
        i = draw(st.sampled_from([i for i, q in enumerate(queues) if q]))
        frames.append(chunk([choice(i, **queues[i].pop(0))], **extra))
    for i in range(n):
        frames.append(chunk([choice(i, finish=draw(st.sampled_from(_REASONS)))], **extra))
    if draw(st.booleans()):
        usage = {"prompt_tokens": 7, "completion_tokens": 9, "total_tokens": 16}
        frames.append(chunk([], usage=usage, **extra))
    return sse(*frames, "[DONE]")


@settings(max_examples=examples(5, thorough=60), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(chat_streams())
def test_generated_streams_equal_the_sdk(body: bytes) -> None:
    lane, sdk, events = both(body)
    assert lane.snapshot.to_api() == sdk.api
    assert "".join(e.text for e in events if type(e) is ChatContentDelta) == sdk.text()
    ours = [(e.tool_index, e.name, e.arguments) for e in events if type(e) is ChatToolCallEnd]
    if len(lane.snapshot.choices) == 1:  # the SDK's done events carry no choice index
        assert ours == sdk.tool_done()
    assert lane.outcome in (Outcome.COMPLETED, Outcome.INCOMPLETE)


_piece = st.text(alphabet="abc xyz", min_size=1, max_size=4)
# Provider extras as they stream: nested objects of strings, a "type" repeated on
# every delta, lists whose entries carry an "index" (OpenRouter's reasoning_details).
_detail = st.fixed_dictionaries(
    {"index": st.integers(0, 2)},
    optional={"type": st.just("reasoning.text"), "text": _piece,
              "signature": _piece, "format": st.just("unknown")},
)
_extras = st.fixed_dictionaries({}, optional={
    "reasoning_content": _piece,
    "reasoning_details": st.lists(_detail, min_size=1, max_size=3),
    "provider_x": st.fixed_dictionaries({}, optional={
        "type": st.just("trace"),
        "note": _piece,
        "nested": st.fixed_dictionaries({}, optional={"deeper": _piece, "more": _piece}),
    }),
})


@settings(max_examples=examples(8, thorough=60), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_extras, min_size=1, max_size=8))
def test_nested_provider_extras_merge_like_the_sdk(deltas: list[dict[str, Any]]) -> None:
    body = sse(
        chunk([choice(role="assistant", content="")]),
        *(chunk([choice(**delta)]) for delta in deltas),
        chunk([choice(finish="stop")]),
        "[DONE]",
    )
    lane, sdk, _ = both(body)
    assert lane.snapshot.to_api() == sdk.api


def test_audio_deltas_merge_like_the_sdk() -> None:
    body = sse(
        chunk([choice(role="assistant", audio={"id": "audio_1", "data": "AA", "expires_at": 9,
                                               "transcript": "he"})]),
        chunk([choice(audio={"data": "BB", "transcript": "llo"})]),
        chunk([choice(audio={"data": "CC"})]),
        chunk([choice(finish="stop")]),
        "[DONE]",
    )
    lane, sdk, _ = both(body)
    assert lane.snapshot.to_api() == sdk.api
    audio = lane.snapshot.to_api()["choices"][0]["message"]["audio"]
    assert (audio["data"], audio["transcript"]) == ("AABBCC", "hello")


@pytest.mark.parametrize("data", ['"overloaded"', "503", "null", '["x"]', "upstream died"])
def test_error_events_without_an_object_crash_the_sdk_and_fail_the_lane(data: str) -> None:
    body = sse(chunk([choice(role="assistant", content="a")])) + (
        f"event: error\ndata: {data}\n\n".encode()
    ) + sse(chunk([choice(finish="stop")]), "[DONE]")
    # The SDK tries to read the data as a chunk and fails on it (no APIError).
    with pytest.raises((AttributeError, ValueError)):
        SDKResult(body)
    lane, _ = run(body)
    assert lane.outcome is Outcome.FAILED and lane.error is not None
    assert lane.snapshot.choices[0].content == "a"
