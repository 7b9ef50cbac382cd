"""The Responses lane's fast path (``_fast.py``) changes nothing but speed.

A lane with the fast path and one without it (``FAST_HANDLERS`` emptied: every
event takes the general path) are fed the same stream in the same random
chunks: streams of delta events for open items (text, refusal, reasoning
summary, tool-call input) where any event may be malformed (a field missing or
of another type, an unknown or finished item, a sequence number repeated,
skipped, absent or not an integer, an ``event:`` line that disagrees or is
missing). Both must give the same events (and ``raw`` payloads), warnings,
snapshot, streamed texts, verdict and errors, strict or not, lean or not.
"""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from lane_runs import feed_reads
from test_responses_support import response_obj

import sse_engine.responses._lane as lane_module
from sse_engine import StreamEnd, StreamRestarted
from sse_engine._event_build import slot_builder
from sse_engine.responses import (
    ResponseCallDeltaEvent,
    ResponseContentDeltaEvent,
    ResponsesLane,
    ResponseSummaryTextDeltaEvent,
)

SETTINGS = settings(
    max_examples=examples(5, thorough=300), deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# The items the deltas are about: (output_index, item, the delta types it takes, their extra).
MESSAGE = {"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant",
           "content": []}
REASONING = {"id": "rs_1", "type": "reasoning", "summary": []}
CALL = {"id": "fc_1", "type": "function_call", "status": "in_progress", "call_id": "call_1",
        "name": "search", "arguments": ""}
DELTAS: dict[str, tuple[int, str, dict[str, Any]]] = {
    "response.output_text.delta": (1, "msg_1", {"content_index": 0, "logprobs": []}),
    "response.refusal.delta": (1, "msg_1", {"content_index": 1}),
    "response.reasoning_summary_text.delta": (0, "rs_1", {"summary_index": 0}),
    "response.function_call_arguments.delta": (2, "fc_1", {}),
}
ODD_VALUES = st.sampled_from([None, "x", 1, 7, -1, 1.5, True, [], {}, ["a"]])


@st.composite
def delta_frame(draw: st.DrawFn, seq: int) -> tuple[str | None, dict[str, Any]]:
    """One delta frame (its event: line, its payload), perhaps made unusual."""
    kind = draw(st.sampled_from(sorted(DELTAS)))
    index, item_id, extra = DELTAS[kind]
    payload: dict[str, Any] = {
        "type": kind, "sequence_number": seq, "item_id": item_id, "output_index": index,
        **extra, "delta": draw(st.text(max_size=5)),
    }
    if kind == "response.output_text.delta" and draw(st.booleans()):
        payload["logprobs"] = draw(st.sampled_from([None, [], [{"token": "a"}]]))
    event: str | None = kind
    change = draw(st.sampled_from(["none"] * 3 + ["field"] * 2 + ["drop", "seq", "event", "type"]))
    if change == "field":
        payload[draw(st.sampled_from(sorted(payload)))] = draw(ODD_VALUES)
    elif change == "drop":
        del payload[draw(st.sampled_from(sorted(payload)))]
    elif change == "seq":
        payload["sequence_number"] = draw(st.sampled_from([seq - 1, seq + 2, None, "3", True]))
        if payload["sequence_number"] is None and draw(st.booleans()):
            del payload["sequence_number"]
    elif change == "event":
        event = draw(st.sampled_from([None, "response.output_text.done", "message"]))
    elif change == "type":
        payload["type"] = draw(st.sampled_from(sorted(DELTAS)))
    return event, payload


def frame(event: str | None, payload: dict[str, Any]) -> bytes:
    head = "" if event is None else f"event: {event}\n"
    return f"{head}data: {json.dumps(payload)}\n\n".encode()


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    """Three open items (reasoning, message, call), deltas, maybe one finished early, the end."""
    seq = 0
    out: list[bytes] = []

    def emit(payload: dict[str, Any]) -> None:
        nonlocal seq
        out.append(frame(payload["type"], {**payload, "sequence_number": seq}))
        seq += 1

    emit({"type": "response.created", "response": response_obj("in_progress")})
    for index, item in enumerate((REASONING, MESSAGE, CALL)):
        emit({"type": "response.output_item.added", "output_index": index, "item": item})
    emit({"type": "response.reasoning_summary_part.added", "item_id": "rs_1", "output_index": 0,
          "summary_index": 0, "part": {"type": "summary_text", "text": ""}})
    if draw(st.booleans()):  # else the text deltas open the part themselves
        emit({"type": "response.content_part.added", "item_id": "msg_1", "output_index": 1,
              "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}})
    n = draw(st.integers(min_value=0, max_value=25))
    finish_at = draw(st.integers(min_value=0, max_value=40))
    finished = draw(st.sampled_from([0, 1, 2]))  # the item done early, if any
    without_numbers = draw(st.integers(min_value=0, max_value=3)) == 0  # as some gateways send
    for i in range(n):
        if i == finish_at:
            item = (REASONING, MESSAGE, CALL)[finished]
            emit({"type": "response.output_item.done", "output_index": finished, "item": item})
        event, payload = draw(delta_frame(seq))
        if without_numbers:
            payload.pop("sequence_number", None)
        out.append(frame(event, payload))
        seq += 1
    if draw(st.booleans()):
        emit({"type": "response.completed", "response": response_obj("completed")})
    return b"".join(out)


def chunked(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(body) + 1) for c in cuts})
    return [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True) if b > a]


def observe(body: bytes, reads: list[bytes], strict: bool, lean: bool) -> tuple[Any, ...]:
    lane = ResponsesLane(strict=strict)
    if lean:
        lane.make_lean()
    events, failure = feed_reads(lane, reads)
    raws = [e.raw for e in events if not isinstance(e, StreamEnd | StreamRestarted)]
    warnings = [(w.code, w.message, w.event_index, w.offset) for w in lane.warnings]
    snap = lane.snapshot
    texts = [
        (item.output_index, [(i, p.streamed, p.streamed_length, p.text) for i, p in
                             sorted({**item.parts, **{-1 - k: v for k, v in item.summary.items()}}
                                    .items())], item.arguments, item.done)
        for item in snap.items
    ]
    return (events, raws, warnings, snap.to_api(), texts, lane.outcome, lane.error, failure,
            lane.last_sequence_number)


@SETTINGS
@given(body=streams(), cuts=st.lists(st.integers(min_value=0), max_size=20),
       strict=st.booleans(), lean=st.booleans())
def test_the_fast_path_gives_what_the_general_path_gives(
    body: bytes, cuts: list[int], strict: bool, lean: bool
) -> None:
    reads = chunked(body, cuts)  # the same for both: a warning's offset is where a read ended
    fast = observe(body, reads, strict, lean)
    with mock.patch.object(lane_module, "FAST_HANDLERS", {}):
        general = observe(body, reads, strict, lean)
    assert fast == general


def test_the_fast_path_takes_the_usual_deltas() -> None:
    """The property above compares something: the usual deltas do take the fast path."""
    seen: list[str] = []
    real = dict(lane_module.FAST_HANDLERS)

    def spy(kind: str) -> Any:
        def handler(*args: Any) -> bool:
            seen.append(kind)
            return real[kind](*args)
        return handler

    body = [frame("response.created", {"type": "response.created", "sequence_number": 0,
                                       "response": response_obj("in_progress")})]
    seq = 1
    for index, item in enumerate((REASONING, MESSAGE, CALL)):
        body.append(frame("response.output_item.added", {
            "type": "response.output_item.added", "sequence_number": seq, "output_index": index,
            "item": item}))
        seq += 1
    body.append(frame("response.reasoning_summary_part.added", {
        "type": "response.reasoning_summary_part.added", "sequence_number": seq,
        "item_id": "rs_1", "output_index": 0, "summary_index": 0,
        "part": {"type": "summary_text", "text": ""}}))
    seq += 1
    body.append(frame("response.content_part.added", {
        "type": "response.content_part.added", "sequence_number": seq, "item_id": "msg_1",
        "output_index": 1, "content_index": 0, "part": {"type": "output_text", "text": ""}}))
    seq += 1
    kinds = ["response.output_text.delta", "response.reasoning_summary_text.delta",
             "response.function_call_arguments.delta"]
    for kind in kinds:
        index, item_id, extra = DELTAS[kind]
        body.append(frame(kind, {"type": kind, "sequence_number": seq, "item_id": item_id,
                                 "output_index": index, **extra, "delta": "hi"}))
        seq += 1
    with mock.patch.object(lane_module, "FAST_HANDLERS", {k: spy(k) for k in real}):
        lane = ResponsesLane()
        lane.feed(b"".join(body))
    assert seen == kinds
    # Only the three items open at once are reported (at their output_item.added).
    assert [w.code for w in lane.warnings] == ["item_overlap", "item_overlap"]
    assert lane.snapshot.item(1) is not None and lane.snapshot.item(1).text == "hi"


# -- the events built slot by slot ----------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "values"),
    [
        (ResponseContentDeltaEvent, ("response.output_text.delta", 3, "msg_1", 0, 1, "hi", None)),
        (ResponseSummaryTextDeltaEvent,
         ("response.reasoning_summary_text.delta", 4, "rs_1", 0, 0, "so")),
        (ResponseCallDeltaEvent, ("response.function_call_arguments.delta", None, None, 2, "{")),
    ],
)
def test_a_built_event_is_the_event_its_class_makes(cls: type, values: tuple[Any, ...]) -> None:
    names = [f.name for f in attrs.fields(cls) if f.name != "raw"]
    raw = {"type": values[0]}
    built = slot_builder(cls, *names, "raw")(*values, raw)
    made = cls(*values, raw=raw)
    assert type(built) is cls
    assert built == made and hash(built) == hash(made) and repr(built) == repr(made)
    assert built.raw is raw
    assert attrs.asdict(built) == attrs.asdict(made)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        built.sequence_number = 9


def test_a_builder_refuses_a_class_it_cannot_build() -> None:
    """Names must be the fields, and the class's __init__ must do nothing but set them."""
    with pytest.raises(TypeError, match="fields"):
        slot_builder(ResponseCallDeltaEvent, "type", "delta")

    @attrs.frozen
    class Checked:
        value: int = attrs.field(validator=attrs.validators.instance_of(int))

    with pytest.raises(TypeError, match="validator"):
        slot_builder(Checked, "value")

    @attrs.frozen
    class Hooked:
        value: int

        def __attrs_post_init__(self) -> None:
            pass

    with pytest.raises(TypeError, match="post-init"):
        slot_builder(Hooked, "value")
