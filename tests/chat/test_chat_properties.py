"""Properties of the Chat Completions lane: chunking never matters, garbage never escapes
as anything but SSEEngineError, and a stream cut anywhere ends TRUNCATED (or with the
outcome it had already reached)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from event_types import check_event
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_chat import CAPTURES, capture, codes
from test_chat_sdk import chat_streams

from sse_engine import LaneEvent, Outcome, SSEEngineError
from sse_engine.chat import ChatCompletionsLane, ChatToolCallStarted

SETTINGS = settings(
    max_examples=examples(10, thorough=200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
STREAMS = sorted(p.name for p in CAPTURES.glob("chat_*.sse"))


def feed_all(
    body: bytes, cuts: list[int], lane: ChatCompletionsLane | None = None
) -> tuple[ChatCompletionsLane, list[LaneEvent]]:
    lane = lane or ChatCompletionsLane()
    events: list[LaneEvent] = []
    start = 0
    for cut in [*sorted(set(cuts)), len(body)]:
        events += lane.feed(body[start:cut])
        start = cut
    events += lane.close()
    return lane, events


# What the base class notices after the StreamEnd depends on the reads: bytes of
# the same feed() are parsed and each event warned as event_after_end, a later
# feed() is one trailing_data warning. Only "something came after the end" is
# chunking-independent, so that is what is compared for those two codes.
_AFTER_END = ("trailing_data", "event_after_end")


def observed(lane: ChatCompletionsLane, events: list[LaneEvent]) -> Any:
    return (
        events,
        lane.snapshot.to_api(),
        lane.outcome,
        lane.error,
        [(w.code, w.event_index) for w in lane.warnings if w.code not in _AFTER_END],
        any(w.code in _AFTER_END for w in lane.warnings),
    )


@st.composite
def split_body(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    body = draw(st.one_of(st.sampled_from(STREAMS).map(capture), chat_streams()))
    cuts = draw(st.lists(st.integers(0, len(body)), max_size=40))
    return body, cuts


@SETTINGS
@given(split_body())
def test_any_chunking_gives_identical_events_and_snapshot(case: tuple[bytes, list[int]]) -> None:
    body, cuts = case
    assert observed(*feed_all(body, cuts)) == observed(*feed_all(body, []))


def test_one_byte_at_a_time_equals_one_read() -> None:
    for name in STREAMS:
        body = capture(name)
        whole = observed(*feed_all(body, []))
        assert observed(*feed_all(body, list(range(len(body))))) == whole, name


# -- garbage in ----------------------------------------------------------------------------


def only_engine_errors(body: bytes, cuts: list[int], strict: bool = False) -> ChatCompletionsLane:
    """Feed and close: only SSEEngineError escapes, and every event holds its declared types."""
    lane = ChatCompletionsLane(strict=strict)
    events: list[Any] = []
    try:
        start = 0
        for cut in [*sorted(set(cuts)), len(body)]:
            events += lane.feed(body[start:cut])
            start = cut
        events += lane.close()
    except SSEEngineError as exc:
        events += getattr(exc, "events", [])
    for event in events:
        check_event(event, "chat")
    return lane


@SETTINGS
@given(st.binary(max_size=2000), st.lists(st.integers(0, 2000), max_size=10))
def test_random_bytes_raise_only_engine_errors(body: bytes, cuts: list[int]) -> None:
    only_engine_errors(b"data: " + body, cuts)
    only_engine_errors(body, cuts)


_scalar = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False)
_json = st.recursive(
    _scalar | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)
_index = st.one_of(st.integers(-1, 3), st.none(), st.text(max_size=2), st.booleans())


def _maybe(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(value, _json)


_function = _maybe(st.fixed_dictionaries(
    {}, optional={"name": _maybe(st.text(max_size=4)), "arguments": _maybe(st.text(max_size=6))}
))
_fragment = _maybe(st.fixed_dictionaries(
    {}, optional={"index": _index, "id": _maybe(st.sampled_from(["c1", "c2", ""])),
                  "type": _maybe(st.just("function")), "function": _function,
                  "extra_content": _json},
))
_delta = _maybe(st.fixed_dictionaries({}, optional={
    "role": _maybe(st.just("assistant")),
    "content": _maybe(st.text(max_size=5)),
    "refusal": _maybe(st.text(max_size=5)),
    "tool_calls": _maybe(st.lists(_fragment, max_size=3)),
    "function_call": _maybe(st.fixed_dictionaries({}, optional={
        "name": _maybe(st.text(max_size=3)), "arguments": _maybe(st.text(max_size=3))})),
    "reasoning_content": _json,
}))
_choice = _maybe(st.fixed_dictionaries({}, optional={
    "index": _index,
    "delta": _delta,
    "finish_reason": _maybe(st.sampled_from(["stop", "length", "tool_calls", "eos", ""])),
    "logprobs": _maybe(st.fixed_dictionaries({}, optional={
        "content": _maybe(st.lists(_json, max_size=2)),
        "refusal": _maybe(st.lists(_json, max_size=2))})),
    "usage": _json,
}))
_chunk = st.fixed_dictionaries(
    {"object": st.sampled_from(["chat.completion.chunk", "", None])},
    optional={"id": _json, "model": _json, "created": _json, "choices": _maybe(
        st.lists(_choice, max_size=3)), "usage": _json, "system_fingerprint": _json,
        "service_tier": _json, "error": _json, "moderation": _json},
)
_frames = st.lists(st.one_of(_chunk, _json, st.just("[DONE]")), max_size=8)


@SETTINGS
@given(_frames, st.booleans())
def test_random_json_chunks_raise_only_engine_errors(frames: list[Any], strict: bool) -> None:
    body = "".join(
        f"data: {f if f == '[DONE]' else json.dumps(f)}\n\n" for f in frames
    ).encode()
    if strict:
        lane = only_engine_errors(body, [], strict=True)
    else:
        # Valid JSON of any shape is tolerated: warnings, never an exception (not
        # even one the base class made out of a stray KeyError or TypeError).
        lane, _ = feed_all(body, [])
        assert lane.outcome is not None
    # Whatever happened, the snapshot stays readable and JSON-ready.
    api = lane.snapshot.to_api()
    assert json.loads(json.dumps(api)) == api


# -- cut anywhere ---------------------------------------------------------------------------


def check_cut(body: bytes, cut: int, final: Outcome, require_done: bool = True) -> None:
    lane, _ = feed_all(body[:cut], [], ChatCompletionsLane(require_done=require_done))
    outcome = lane.outcome
    prefix = body[:cut]
    if outcome is Outcome.TRUNCATED:
        assert lane.error is not None and lane.error.retryable
    elif outcome is Outcome.FAILED:
        assert final is Outcome.FAILED
    else:
        # Only a stream that reached [DONE] can be anything else: a cut after every
        # choice finished but before [DONE] is still a truncation, unless the lane
        # was told the server never sends [DONE] (then missing_done says so).
        assert outcome is final
        reached = b"data: [DONE]\n\n" in prefix
        assert reached or (not require_done and "missing_done" in codes(lane))


FINALS = {name: feed_all(capture(name), [])[0].outcome for name in STREAMS}


@SETTINGS
@given(st.sampled_from(STREAMS), st.data())
def test_a_stream_cut_at_any_byte_is_truncated_or_already_decided(name: str, data: Any) -> None:
    body = capture(name)
    final = FINALS[name]
    assert final is not None
    check_cut(body, data.draw(st.integers(0, len(body))), final)


@pytest.mark.parametrize("require_done", [True, False])
@pytest.mark.parametrize("name", ["chat_gemini_tools.sse", "chat_n2_length.sse"])
def test_every_cut_of_a_small_capture(name: str, require_done: bool) -> None:
    body = capture(name)
    final = FINALS[name]
    assert final is not None
    for cut in range(len(body) + 1):
        check_cut(body, cut, final, require_done)


# -- tool calls that carry nothing to tell them apart ---------------------------------------

_args = st.dictionaries(
    st.sampled_from(["x", "y", "path"]), st.integers(0, 9) | st.text(max_size=3), max_size=2
).map(lambda value: json.dumps(value, separators=(",", ":")))
_names = st.sampled_from(["f", "get_weather"])


@st.composite
def mixed_tool_calls(draw: st.DrawFn) -> tuple[list[tuple[str, str]], list[list[Any]]]:
    """Whole index-less calls (Gemini) and streamed indexed calls (OpenAI), interleaved.

    Returns the calls in the order they start, as (name, arguments), and the
    fragments grouped into chunks at arbitrary boundaries.
    """
    calls: list[tuple[str, str]] = []
    pending: list[list[dict[str, Any]]] = []  # each call's fragments, in order
    wire = 0
    for _ in range(draw(st.integers(1, 6))):
        name, args = draw(_names), draw(_args)
        calls.append((name, args))
        if draw(st.booleans()):
            # Gemini: no index, an empty or absent id, name and arguments at once.
            fragment: dict[str, Any] = {"function": {"name": name, "arguments": args}}
            fragment.update(draw(st.sampled_from([{}, {"id": ""}, {"id": "", "type": "function"}])))
            pending.append([fragment])
        else:
            cuts = sorted(set(draw(st.lists(st.integers(0, len(args)), max_size=3))))
            pieces = [args[a:b] for a, b in zip([0, *cuts], [*cuts, len(args)], strict=True)]
            opening = {"index": wire, "id": f"call_{wire}", "type": "function",
                       "function": {"name": name, "arguments": ""}}
            pending.append([opening] + [
                {"index": wire, "function": {"arguments": p}} for p in pieces if p
            ])
            wire += 1
    # Interleave: a call's first fragment comes after the previous call's first
    # fragment (so the start order is the call order); the rest wherever.
    order: list[dict[str, Any]] = []
    started = 0
    while started < len(pending) or any(pending[:started]):
        open_calls = [i for i in range(started) if pending[i]]
        if started < len(pending) and (not open_calls or draw(st.booleans())):
            order.append(pending[started].pop(0))
            started += 1
        else:
            order.append(pending[draw(st.sampled_from(open_calls))].pop(0))
    chunks: list[list[Any]] = []
    for fragment in order:
        if not chunks or draw(st.booleans()):
            chunks.append([])
        chunks[-1].append(fragment)
    return calls, chunks


@SETTINGS
@given(mixed_tool_calls())
def test_calls_without_index_or_id_never_merge_into_another_call(
    case: tuple[list[tuple[str, str]], list[list[Any]]],
) -> None:
    calls, chunks = case
    body = "".join(
        "data: " + json.dumps({"object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": {"tool_calls": fragments}}]}) + "\n\n"
        for fragments in chunks
    ) + 'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},' \
        '"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
    lane, events = feed_all(body.encode(), [])
    assert lane.outcome is Outcome.COMPLETED
    got = lane.snapshot.to_api()["choices"][0]["message"]["tool_calls"]
    assert [(c["function"]["name"], c["function"]["arguments"]) for c in got] == calls
    assert sum(type(e) is ChatToolCallStarted for e in events) == len(calls)
