"""The Messages lane's hot path (a string delta for an open block, inline in ``_on_event``)
changes nothing but speed.

A lane whose hot path can never fire (its ``_open`` table, which only the hot path
reads, swapped for an empty one: every delta goes to ``BlockAssembly.delta``) and a
normal lane are fed the same stream in the same random chunks: blocks of every kind
with deltas where any delta may be unusual (a field missing or of another type, a
delta for another kind of block, for a block never started or already stopped, an
``event:`` line that disagrees or is missing). Both must give the same events (and
``raw`` payloads), warnings, snapshot, verdict and errors, strict or not.
"""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from lane_runs import feed_reads

from sse_engine import StreamEnd
from sse_engine.messages import MessagesLane, TextBlockDelta

SETTINGS = settings(
    max_examples=examples(5, thorough=300), deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

BLOCKS = [
    {"type": "thinking", "thinking": "", "signature": ""},
    {"type": "text", "text": ""},
    {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {}},
]
DELTAS = [
    ("thinking_delta", "thinking"), ("signature_delta", "signature"), ("text_delta", "text"),
    ("input_json_delta", "partial_json"), ("citations_delta", "citation"),
]
ODD_VALUES = st.sampled_from([None, "x", 1, 9, -1, 1.5, True, [], {}, ["a"]])


def frame(event: str | None, payload: dict[str, Any]) -> bytes:
    head = "" if event is None else f"event: {event}\n"
    return f"{head}data: {json.dumps(payload)}\n\n".encode()


@st.composite
def delta_frame(draw: st.DrawFn) -> bytes:
    index = draw(st.sampled_from([0, 1, 2, 2, 1]))
    delta_type, field = draw(st.sampled_from(DELTAS))
    if index == 0 and draw(st.booleans()):  # mostly deltas of the block's own kind
        delta_type, field = "thinking_delta", "thinking"
    elif index == 1 and draw(st.booleans()):
        delta_type, field = "text_delta", "text"
    elif index == 2 and draw(st.booleans()):
        delta_type, field = "input_json_delta", "partial_json"
    value: Any = draw(st.text(max_size=4))
    delta: dict[str, Any] = {"type": delta_type, field: value}
    payload: dict[str, Any] = {"type": "content_block_delta", "index": index, "delta": delta}
    event: str | None = "content_block_delta"
    change = draw(st.sampled_from(["none"] * 3 + ["field", "delta", "drop", "event", "type"]))
    if change == "field":
        payload[draw(st.sampled_from(["index", "delta"]))] = draw(ODD_VALUES)
    elif change == "delta":
        delta[draw(st.sampled_from(["type", field]))] = draw(ODD_VALUES)
    elif change == "drop":
        del delta[draw(st.sampled_from(sorted(delta)))]
    elif change == "event":
        event = draw(st.sampled_from([None, "message", "ping"]))
    elif change == "type":
        payload["type"] = draw(st.sampled_from(["ping", None, 3]))
    return frame(event, payload)


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    out = [frame("message_start", {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 1}}})]
    started = draw(st.lists(st.sampled_from([0, 1, 2]), unique=True, min_size=2))
    for index in started:
        out.append(frame("content_block_start", {
            "type": "content_block_start", "index": index, "content_block": BLOCKS[index]}))
    stop_at = draw(st.integers(min_value=0, max_value=40))
    stopped = draw(st.sampled_from([0, 1, 2]))
    for i in range(draw(st.integers(min_value=0, max_value=25))):
        if i == stop_at:
            out.append(frame("content_block_stop", {"type": "content_block_stop",
                                                    "index": stopped}))
        out.append(draw(delta_frame()))
    if draw(st.booleans()):
        out.append(frame("message_delta", {"type": "message_delta",
                                           "delta": {"stop_reason": "end_turn"},
                                           "usage": {"output_tokens": 9}}))
        out.append(frame("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def chunked(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(body) + 1) for c in cuts})
    return [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True) if b > a]


def observe(reads: list[bytes], strict: bool, hot: bool) -> tuple[Any, ...]:
    lane = MessagesLane(strict=strict)
    if not hot:
        lane._open = {}  # the hot path finds no open block: every delta is validated
    events, failure = feed_reads(lane, reads)
    raws = [e.raw for e in events if not isinstance(e, StreamEnd)]
    warnings = [(w.code, w.message, w.event_index, w.offset) for w in lane.warnings]
    snap = lane.snapshot
    return events, raws, warnings, snap.to_api(), lane.outcome, lane.error, failure


@SETTINGS
@given(body=streams(), cuts=st.lists(st.integers(min_value=0), max_size=20),
       strict=st.booleans())
def test_the_hot_path_gives_what_the_validating_path_gives(
    body: bytes, cuts: list[int], strict: bool
) -> None:
    reads = chunked(body, cuts)  # the same for both: a warning's offset is where a read ended
    assert observe(reads, strict, hot=True) == observe(reads, strict, hot=False)


def test_the_hot_path_is_what_the_property_compares() -> None:
    """Emptying ``_open`` does switch the hot path off (else the property compares nothing)."""
    body = frame("message_start", {"type": "message_start", "message": {"content": []}})
    body += frame("content_block_start", {"type": "content_block_start", "index": 0,
                                          "content_block": {"type": "text", "text": ""}})
    body += frame("content_block_delta", {"type": "content_block_delta", "index": 0,
                                          "delta": {"type": "text_delta", "text": "hi"}})
    lane = MessagesLane()
    assert lane._open is lane._blocks.open
    assembly = type(lane._blocks)
    with mock.patch.object(assembly, "delta", autospec=True, side_effect=assembly.delta) as spy:
        events = lane.feed(body)
        assert spy.call_count == 0 and TextBlockDelta({}, 0, "hi") in events
        lane._open = {}
        events = lane.feed(body.replace(b'"hi"', b'"yo"').split(b"\n\n", 2)[2])
        assert spy.call_count == 1 and TextBlockDelta({}, 0, "yo") in events
