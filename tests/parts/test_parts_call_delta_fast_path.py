"""The Responses translator's fast path for a tool call's input fragment gives what its
general path gives.

``ResponsesParts._call_delta`` looks the call up itself for the common fragment
(its call started, not done) and leaves every other case to ``_call_for`` (a
fragment before its item, which may wait for it; one after the call or its
item is done). The property: a ``PartStream`` over a Responses stream gives the
same parts, turn and warnings with the fast path as with the general one, on
generated turns and on their frames reordered and dropped (fragments before
their item, after its end, for no item at all), whatever the reads.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from wire_turns import render, turn_specs

from sse_engine import ResponsesLane, SSEEngineError
from sse_engine.parts import PartStream
from sse_engine.responses import ResponseCallDeltaEvent
from sse_engine.responses._parts import ResponsesParts

FAST = settings(max_examples=examples(6, thorough=300), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


def _general_call_delta(self: Any, event: ResponseCallDeltaEvent) -> None:
    """The fragment's call through ``_call_for``, as before the fast path."""
    found = self._call_for(event)
    if found is not None and event.delta:
        self.builder.call_delta(found[0], event.delta, found[1])


@contextmanager
def general_path() -> Iterator[None]:
    with mock.patch.dict(ResponsesParts.HANDLERS, {ResponseCallDeltaEvent: _general_call_delta}):
        yield


def _run(reads: list[bytes]) -> Any:
    stream = PartStream(ResponsesLane())
    parts: list[Any] = []
    failure = None
    try:
        for read in reads:
            parts += stream.feed(read)
        parts += stream.close()
    except SSEEngineError as exc:
        parts += getattr(exc, "events", [])
        failure = str(exc)
    return (parts, [repr(p) for p in parts], stream.turn, repr(stream.turn),
            [(w.code, w.message) for w in stream.warnings], failure)


@st.composite
def shuffled_streams(draw: st.DrawFn) -> bytes:
    """A generated Responses turn, its events often reordered and some dropped."""
    body = render("responses", draw(turn_specs()))
    frames = [frame + b"\n\n" for frame in body.split(b"\n\n") if frame]
    if draw(st.booleans()):
        frames = draw(st.permutations(frames))
        keep = draw(st.lists(st.booleans(), min_size=len(frames), max_size=len(frames)))
        frames = [f for f, k in zip(frames, keep, strict=True) if k or b"arguments" in f]
    return b"".join(frames)


@FAST
@given(body=shuffled_streams(), data=st.data())
def test_a_calls_fragments_make_the_same_parts_by_either_path(
    body: bytes, data: st.DataObject,
) -> None:
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(body)), max_size=10))))
    reads = [body[a:b] for a, b in itertools.pairwise([0, *cuts, len(body)])]
    fast = _run(reads)
    with general_path():
        general = _run(reads)
    assert fast == general


def _frame(payload: dict[str, Any]) -> bytes:
    return f"event: {payload['type']}\ndata: {json.dumps(payload)}\n\n".encode()


_ITEM = {"type": "function_call", "id": "fc", "call_id": "c1", "name": "f", "arguments": "",
         "status": "in_progress"}
#: Fragments the lane passes on around a call's end: before its item, after its input's
#: done event, after its item's done event, for an item never announced.
NEAR_MISSES = b"".join(_frame(p) for p in (
    {"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc",
     "delta": '{"a"'},
    {"type": "response.output_item.added", "output_index": 0, "item": _ITEM},
    {"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc",
     "delta": ":1"},
    {"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc",
     "delta": ""},
    {"type": "response.function_call_arguments.done", "output_index": 0, "item_id": "fc",
     "arguments": '{"a":1}'},
    {"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc",
     "delta": "XX"},
    {"type": "response.output_item.done", "output_index": 0,
     "item": {**_ITEM, "arguments": '{"a":1}', "status": "completed"}},
    {"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc",
     "delta": "YY"},
    {"type": "response.function_call_arguments.delta", "output_index": 3, "item_id": "zz",
     "delta": "{"},
))


@pytest.mark.parametrize("read", [1, 7, 50, len(NEAR_MISSES)])
def test_fragments_around_a_calls_end_make_the_same_parts_by_either_path(read: int) -> None:
    reads = [NEAR_MISSES[i : i + read] for i in range(0, len(NEAR_MISSES), read)]
    fast = _run(reads)
    with general_path():
        general = _run(reads)
    assert fast == general
    assert len(fast[0]) > 3  # the call's parts were made


def test_the_general_path_is_really_taken() -> None:
    with general_path(), mock.patch.object(ResponsesParts, "_call_for",
                                           autospec=True, return_value=None) as looked:
        PartStream(ResponsesLane()).feed(
            b'event: response.function_call_arguments.delta\ndata: {"type": '
            b'"response.function_call_arguments.delta","output_index":0,"item_id":"fc",'
            b'"delta":"{"}\n\n'
        )
    looked.assert_called_once()
