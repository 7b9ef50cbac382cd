"""Mutated captures through every lane, with ``json`` and ``orjson`` (issue 11, "Done when").

The bundled captures are mutated the ways a broken peer or gateway breaks a
stream (flipped bytes, a cut, a field of the wrong type, a value nested a
thousand levels deep, NaN, events out of order), then fed to every lane, the
right one and the wrong ones. Whatever comes in:

* only :class:`SSEEngineError` subclasses escape ``feed()`` / ``close()``;
* exactly one ``StreamEnd`` is given (for a ``ProtocolError``, last in
  ``exc.events``) and the lane has an outcome;
* ``snapshot.to_api()`` is plain JSON (``json.dumps(..., allow_nan=False)``);
* every event is one of the lane's union and each field holds the type its
  class declares (``event_types.check_event``: no None in an ``int`` field);
* the same result comes out however the bytes are split into reads.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from event_types import check_event
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from sse_engine import (
    FORMATS,
    Lane,
    ProtocolError,
    ResponsesLane,
    StreamEnd,
)

CAPTURES = Path(__file__).resolve().parents[1] / "sse_engine" / "captures"
BODIES = {p.name: p.read_bytes() for p in sorted(CAPTURES.glob("*.sse"))}
LANES: dict[str, type[Lane[Any]]] = {name: row.lane for name, row in FORMATS.items()}
LOADS: dict[str, Callable[[Any], Any]] = {"json": json.loads, "orjson": orjson.loads}
FUZZ = settings(
    max_examples=examples(6, thorough=250),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# After the verdict, which warning the base class gives depends on the reads
# (events in the same read: event_after_end each; a later read: trailing_data),
# so only "something came after the end" is compared for those.
_AFTER_END = ("trailing_data", "event_after_end")


def run(
    lane_name: str, loads: str, chunks: list[bytes], strict: bool = False
) -> tuple[Any, ...]:
    """Feed ``chunks``; check the per-run invariants; return what must not depend on the split."""
    lane = LANES[lane_name](json_loads=LOADS[loads], strict=strict)
    events: list[Any] = []
    failure = None
    try:
        for chunk in chunks:
            events += lane.feed(chunk)
        events += lane.close()
    except ProtocolError as exc:  # any other exception fails the test as it escapes
        events += exc.events
        # The message too: it names the event, never the read it came in (issue 20 item 8).
        failure = f"{type(exc).__name__}: {exc}"
        assert (exc.events and isinstance(exc.events[-1], StreamEnd)) or any(
            isinstance(e, StreamEnd) for e in events[: len(events) - len(exc.events)]
        )
    for event in events:
        check_event(event, lane_name)
    ends = [e for e in events if isinstance(e, StreamEnd)]
    assert len(ends) == 1, ends
    assert lane.outcome is ends[0].outcome and lane.error == ends[0].error
    api = json.dumps(lane.snapshot.to_api(), allow_nan=False, sort_keys=True)
    warnings = [w.code for w in lane.warnings if w.code not in _AFTER_END]
    after_end = any(w.code in _AFTER_END for w in lane.warnings)
    error = (
        None if lane.error is None
        else (lane.error.code, lane.error.retryable, lane.error.message)
    )
    return (
        [type(e).__name__ for e in events],
        lane.outcome,
        error,
        failure,
        warnings,
        after_end,
        api,
    )


# -- mutations ---------------------------------------------------------------------------


def blocks_of(body: bytes) -> list[bytes]:
    """The body's events, each with its blank line (LF captures, and Gemini's CRLF ones)."""
    return [b for b in re.split(rb"(?<=\r\n\r\n)|(?<=[^\r]\n\n)", body) if b]


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every position in a decoded payload (the root excluded), depth first."""
    found: list[tuple[Any, ...]] = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(
        value, list
    ) else ()
    for key, child in items:
        found.append((*prefix, key))
        found += paths(child, (*prefix, key))
    return found


DEEP = "__deep__"


def deep_text(depth: int, kind: str) -> str:
    if kind == "list":
        return "[" * depth + "0" + "]" * depth
    return '{"a":' * depth + "0" + "}" * depth


#: Values a wrong-typed (or hostile) field can take; DEEP is spliced in as text.
ODD_VALUES: list[Any] = [
    None, True, 0, -1, 2**70, 1.5, "", "x" * 3000, [], {}, ["message"], {"type": "x"},
    float("nan"), float("inf"), DEEP,
]


def replace_at(block: bytes, path_index: int, value: Any, deep: str) -> bytes:
    """The block with the JSON value at the ``path_index``-th position replaced."""
    head, sep, data = block.rstrip(b"\r\n").rpartition(b"data: ")
    try:
        payload = json.loads(data)
        spots = paths(payload)
    except (ValueError, RecursionError):  # not JSON, or already made too deep to walk here
        return block
    if not spots:
        return block
    *parents, last = spots[path_index % len(spots)]
    target = payload
    for key in parents:
        target = target[key]
    target[last] = value
    try:
        text = json.dumps(payload, ensure_ascii=False)  # NaN and Infinity as stdlib spells them
    except (ValueError, RecursionError):
        return block
    text = text.replace(json.dumps(DEEP), deep)
    return head + sep + text.encode() + b"\n\n"


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A bundled capture with one to three mutations."""
    body = BODIES[draw(st.sampled_from(sorted(BODIES)))]
    for _ in range(draw(st.integers(1, 3))):
        blocks = blocks_of(body)
        if not blocks:
            break
        kind = draw(st.sampled_from(["flip", "cut", "value", "value", "deep", "swap", "drop"]))
        at = draw(st.integers(0, len(blocks) - 1))
        if kind == "flip":
            data = bytearray(body)
            for _ in range(draw(st.integers(1, 4))):
                data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
            body = bytes(data)
        elif kind == "cut":
            body = body[: draw(st.integers(0, len(body)))]
        elif kind in ("value", "deep"):
            value = DEEP if kind == "deep" else draw(st.sampled_from(ODD_VALUES))
            depth = draw(st.sampled_from([300, 900, 1000, 1020, 5000]))
            deep = deep_text(depth, draw(st.sampled_from(["list", "dict"])))
            blocks[at] = replace_at(blocks[at], draw(st.integers(0, 10_000)), value, deep)
            body = b"".join(blocks)
        elif kind == "swap":
            other = draw(st.integers(0, len(blocks) - 1))
            blocks[at], blocks[other] = blocks[other], blocks[at]
            body = b"".join(blocks)
        else:
            del blocks[at]
            body = b"".join(blocks)
    return body


def split(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(body) + 1) for c in cuts})
    return [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]


@FUZZ
@given(
    body=mutated(),
    lane_name=st.sampled_from(sorted(LANES)),
    loads=st.sampled_from(sorted(LOADS)),
    cuts=st.lists(st.integers(0, 1 << 20), max_size=12),
    strict=st.booleans(),
)
@example(  # issue 11 item 1: orjson, a list nested 1000 deep where an index belongs
    body=b'event: content_block_start\ndata: {"type":"content_block_start","index":"x",'
    b'"content_block":' + b"[" * 1000 + b"0" + b"]" * 1000 + b"}\n\n",
    lane_name="messages", loads="orjson", cuts=[], strict=False,
)
def test_mutated_captures_give_one_verdict_plain_json_and_the_same_result_however_split(
    body: bytes, lane_name: str, loads: str, cuts: list[int], strict: bool
) -> None:
    whole = run(lane_name, loads, [body], strict)
    assert run(lane_name, loads, split(body, cuts), strict) == whole


# -- issue 11 item 1: a deep or non-finite value at every payload position ----------------------


@st.composite
def payload_positions(draw: st.DrawFn) -> tuple[str, int, int]:
    name = draw(st.sampled_from(sorted(BODIES)))
    block = draw(st.integers(0, len(blocks_of(BODIES[name])) - 1))
    return name, block, draw(st.integers(0, 10_000))


@settings(FUZZ, max_examples=examples(19, thorough=300))
@given(
    where=payload_positions(),
    value=st.sampled_from([DEEP, float("nan"), float("-inf"), 10**4000]),
    depth=st.sampled_from([200, 700, 1000, 1022]),
    container=st.sampled_from(["list", "dict"]),
    lane_name=st.sampled_from(sorted(LANES)),
    loads=st.sampled_from(sorted(LOADS)),
)
def test_any_value_any_loads_returns_at_any_position_gives_a_verdict_and_plain_json(
    where: tuple[str, int, int],
    value: Any,
    depth: int,
    container: str,
    lane_name: str,
    loads: str,
) -> None:
    name, at, path = where
    blocks = blocks_of(BODIES[name])
    blocks[at] = replace_at(blocks[at], path, value, deep_text(depth, container))
    body = b"".join(blocks)
    whole = run(lane_name, loads, [body])
    assert run(lane_name, loads, [body[i : i + 977] for i in range(0, len(body), 977)]) == whole


def test_the_issues_deep_messages_example_fails_cleanly() -> None:
    body = (
        b'event: content_block_start\ndata: {"type":"content_block_start","index":"x",'
        b'"content_block":' + b"[" * 1000 + b"0" + b"]" * 1000 + b"}\n\n"
    )
    _, outcome, error, failure, *_ = run("messages", "orjson", [body])
    assert failure.startswith("ProtocolError: ") and outcome is not None and error is not None


def test_nan_from_the_wire_becomes_null_with_a_warning() -> None:
    body = (
        b'event: response.created\ndata: {"type":"response.created","sequence_number":0,'
        b'"response":{"id":"resp_1","object":"response","status":"in_progress",'
        b'"temperature":NaN,"top_p":Infinity}}\n\n'
    )
    lane = ResponsesLane()
    lane.feed(body)
    api = lane.snapshot.to_api()
    assert api["temperature"] is None and api["top_p"] is None
    assert not any(isinstance(v, float) and math.isnan(v) for v in api.values())
    assert [w.code for w in lane.warnings] == ["not_plain_json"]
    lane.snapshot.to_api()
    assert [w.code for w in lane.warnings] == ["not_plain_json"]  # once per kind of loss
