"""The Chat lane's fast paths give exactly what its general path gives.

The lane reads the common choice (a content-only or tool_calls-only delta of an
open choice) in ``_on_plain_choice`` and the common tool-call fragment (``index``
and ``arguments`` of an open call) in ``ChatCalls._continued``, and builds its
hottest events without attrs' ``__init__``. Each property compares the lane with
a lane whose fast paths are switched off, on any stream (well-formed, captured,
or random JSON of the chunk's shape) cut into any reads.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from lane_runs import same_event
from test_chat import CAPTURES, capture
from test_chat_properties import _frames, feed_all, observed
from test_chat_sdk import chat_streams

from sse_engine import ProtocolError
from sse_engine.chat import (
    ChatChunk,
    ChatCompletionsLane,
    ChatContentDelta,
    ChatToolCallArgumentsDelta,
)
from sse_engine.chat._calls import ChatCalls
from sse_engine.chat._events import new_arguments_delta, new_chunk, new_content_delta

SETTINGS = settings(
    max_examples=examples(6, thorough=250), deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
STREAMS = sorted(p.name for p in CAPTURES.glob("chat_*.sse"))


class _GeneralCalls(ChatCalls):
    def _continued(self, *args: Any) -> bool:
        return False


class GeneralLane(ChatCompletionsLane):
    """The lane with both fast paths off: every choice and fragment takes the general path."""

    def _setup(self) -> None:
        super()._setup()
        self._calls = _GeneralCalls(self._reports, self.json_loads)

    def _on_plain_choice(self, choice: Any, raw: dict[str, Any], out: list[Any]) -> bool:
        return False


def run(lane: ChatCompletionsLane, body: bytes, cuts: list[int]) -> Any:
    """What the lane gives, with each event's ``raw`` (outside equality) and any error."""
    try:
        lane, events = feed_all(body, cuts, lane)
    except ProtocolError as exc:
        return ("error", str(exc), exc.events, lane.snapshot.to_api(), lane.warnings)
    raws = [getattr(event, "raw", None) for event in events]
    return (observed(lane, events), raws, [repr(event) for event in events])


def both(body: bytes, cuts: list[int], strict: bool = False, lean: bool = False) -> None:
    fast, general = ChatCompletionsLane(strict=strict), GeneralLane(strict=strict)
    if lean:  # the content fast path appends to the kept pieces itself: a lean lane's a Tally
        fast.make_lean()
        general.make_lean()
    assert run(fast, body, cuts) == run(general, body, cuts)


@st.composite
def any_stream(draw: st.DrawFn) -> tuple[bytes, list[int], bool]:
    frames = draw(_frames)
    random = "".join(
        f"data: {f if f == '[DONE]' else json.dumps(f)}\n\n" for f in frames
    ).encode()
    body = draw(st.one_of(st.sampled_from(STREAMS).map(capture), chat_streams(), st.just(random)))
    cuts = draw(st.lists(st.integers(0, len(body)), max_size=20))
    return body, cuts, draw(st.booleans())


@pytest.mark.parametrize("lean", [False, True], ids=["default", "lean"])
@SETTINGS
@given(any_stream())
def test_the_fast_paths_give_what_the_general_path_gives(
    lean: bool, case: tuple[bytes, list[int], bool],
) -> None:
    body, cuts, strict = case
    both(body, cuts, strict, lean)


_open = {"index": 0, "id": "call_1", "type": "function",
         "function": {"name": "f", "arguments": ""}}


def _chunk(delta: dict[str, Any], **choice: Any) -> dict[str, Any]:
    return {"object": "chat.completion.chunk", "id": "c", "model": "m", "created": 1,
            "choices": [{"index": 0, "delta": delta, **choice}]}


# Chunks one key away from the common shape: each must take the general path and
# give the same (a finished choice, a second key, a null, logprobs, a reused index).
_NEAR = [
    _chunk({"content": "x"}, finish_reason="stop"),
    _chunk({"content": "x", "role": "assistant"}),
    _chunk({"content": None}),
    _chunk({"content": 3}),
    _chunk({"content": "x"}, logprobs={"content": [{"token": "x"}]}),
    _chunk({"content": "x"}, usage={"total_tokens": 3}),
    _chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}),
    _chunk({"tool_calls": [{"index": 0, "function": {"arguments": 5}}]}),
    _chunk({"tool_calls": [{"index": 1, "function": {"arguments": "{"}}]}),
    _chunk({"tool_calls": [{"index": 0, "id": "call_2", "function": {"arguments": "{"}}]}),
    _chunk({"tool_calls": [{"index": True, "function": {"arguments": "{"}}]}),
    _chunk({"tool_calls": "no"}),
    _chunk({"refusal": "no"}),
    {"object": "chat.completion.chunk", "choices": [{"delta": {"content": "x"}}]},
    {"object": "chat.completion.chunk", "choices": [{"index": "0", "delta": {"content": "x"}}]},
]


@pytest.mark.parametrize("strict", [False, True])
@given(st.lists(st.sampled_from(_NEAR), max_size=6), st.booleans())
@settings(max_examples=examples(20, thorough=150), deadline=None)
def test_near_misses_of_the_common_shape(
    strict: bool, later: list[dict[str, Any]], done: bool
) -> None:
    frames = [_chunk({"role": "assistant", "content": ""}), _chunk({"tool_calls": [_open]}),
              _chunk({"content": "a"}), *later]
    body = "".join(f"data: {json.dumps(f)}\n\n" for f in frames) + ("data: [DONE]\n\n" * done)
    both(body.encode(), [], strict)


def test_the_common_chunks_take_the_fast_paths() -> None:
    """So that the properties above compare two paths, not one with itself."""
    taken: list[str] = []

    class Watched(ChatCompletionsLane):
        def _on_plain_choice(self, choice: Any, raw: dict[str, Any], out: list[Any]) -> bool:
            done = super()._on_plain_choice(choice, raw, out)
            taken.append(f"choice {done}")
            return done

    frames = [_chunk({"role": "assistant", "content": ""}), _chunk({"content": "a"}),
              _chunk({"tool_calls": [_open]}),
              _chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]})]
    lane = Watched()
    events = lane.feed("".join(f"data: {json.dumps(f)}\n\n" for f in frames).encode())
    assert taken == ["choice False", "choice True", "choice True", "choice True"]
    assert [type(e) for e in events if type(e) is not ChatChunk][-1] is ChatToolCallArgumentsDelta
    assert lane.snapshot.choices[0].tool_calls[0].arguments == "{}"


_raw = st.dictionaries(st.text(max_size=3), st.integers(), max_size=3)


@given(st.integers(), st.integers(), st.text(), _raw)
def test_the_builders_make_what_the_constructors_make(
    choice: int, tool: int, text: str, raw: dict[str, Any]
) -> None:
    same_event(new_chunk(raw), ChatChunk(raw))
    same_event(new_content_delta(choice, text, raw), ChatContentDelta(choice, text, raw=raw))
    same_event(
        new_arguments_delta(choice, tool, text, raw),
        ChatToolCallArgumentsDelta(choice, tool, text, raw=raw),
    )
