"""A Turn copies and pickles whole, a tool call still streaming included (issue 20 item 5).

The partial input of an unfinished call is read lazily and marked "not known
yet" by a sentinel: a copy that lost the sentinel's identity took the
sentinel for the call's final input. Whatever prefix of a stream a turn holds,
and whether or not its input was read before, ``copy.deepcopy`` and a pickle
round trip give an equal turn whose calls read the same input and stay as
finished or unfinished as they were.
"""

from __future__ import annotations

import copy
import itertools
import json
import pickle
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from sse_engine import ChatCompletionsLane, encode_chat_event
from sse_engine.parts import PartStream, Turn

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                               max_size=3),
    max_leaves=8,
)


def frames(arguments: str, cuts: list[int]) -> list[bytes]:
    """A Chat stream of one tool call whose arguments arrive in pieces cut at ``cuts``."""
    bounds = sorted({0, len(arguments), *(c % (len(arguments) + 1) for c in cuts)})
    pieces = [arguments[a:b] for a, b in itertools.pairwise(bounds)]

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return encode_chat_event({"id": "c", "object": "chat.completion.chunk", "created": 1,
                                  "model": "m",
                                  "choices": [{"index": 0, "delta": delta,
                                               "finish_reason": finish}]})
    out = [chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1",
                                                        "type": "function",
                                                        "function": {"name": "f"}}]})]
    out += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in pieces]
    return [*out, chunk({}, "tool_calls"), b"data: [DONE]\n\n"]


def same(copied: Turn, turn: Turn) -> None:
    assert copied == turn
    for mine, theirs in zip(copied.tool_calls, turn.tool_calls, strict=True):
        assert mine.done == theirs.done
        assert mine.input == theirs.input
        assert mine.arguments == theirs.arguments


@settings(max_examples=examples(7, thorough=150), deadline=None)
@given(
    value=st.dictionaries(st.text(max_size=4), JSON_VALUES, max_size=4),
    cuts=st.lists(st.integers(0, 500), max_size=6),
    stop=st.integers(0, 20),
    read=st.booleans(),
)
def test_a_turn_at_any_point_copies_and_pickles_whole(
    value: dict[str, Any], cuts: list[int], stop: int, read: bool
) -> None:
    stream = PartStream(ChatCompletionsLane())
    for frame in frames(json.dumps(value), cuts)[:stop]:
        stream.feed(frame)
        if read and stream.turn.tool_calls:
            stream.turn.tool_calls[0].input  # noqa: B018  # reading starts the partial reader
    turn = stream.turn
    same(copy.deepcopy(turn), turn)
    same(pickle.loads(pickle.dumps(turn)), turn)


def test_a_copy_goes_on_apart_from_its_original() -> None:
    stream = PartStream(ChatCompletionsLane())
    arguments = json.dumps({"path": "a.txt", "lines": [1, 2, 3]})
    all_frames = frames(arguments, [5, 12])
    for frame in all_frames[:3]:
        stream.feed(frame)
    snapshot = copy.deepcopy(stream.turn)
    before = snapshot.tool_calls[0].input
    for frame in all_frames[3:]:
        stream.feed(frame)
    stream.close()
    assert stream.turn.tool_calls[0].done and not snapshot.tool_calls[0].done
    assert snapshot.tool_calls[0].input == before
