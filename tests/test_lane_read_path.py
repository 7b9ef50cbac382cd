"""The base lane's short read path and its stdlib JSON decoding change nothing but speed.

A read of an open stream goes straight to the parser (``Lane._plain``), skipping the
state checks every read used to make; and a lane given the stdlib's ``json.loads``
decodes with its scanner directly (``_lane_decode.lane_loads``). Each property compares
a lane with both on against one with each switched off, fed the same bytes in the same
reads: mutated captures of every format (flipped bytes, invalid UTF-8, cuts, fields of
the wrong type, deep nesting), with or without comments kept, strict or not, with a
small ``max_event_size`` or not. The events (and their ``raw``), warnings, snapshot,
verdict, error, and the parser's position must be the same.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_lanes_fuzz import LANES, mutated, split

from sse_engine import Comment, Lane, ProtocolError, StreamEnd, UsageError
from sse_engine._lane_decode import lane_loads

SETTINGS = settings(
    max_examples=examples(13, thorough=600),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def general(lane: type[Lane[Any]]) -> type[Lane[Any]]:
    """``lane`` with the short read path off: every read goes through the state checks."""

    class General(lane):  # type: ignore[valid-type,misc]
        def _open_for(self, data: Any) -> Any:
            done = super()._open_for(data)
            self._plain = False
            return done

    return General


def other_loads(text: str) -> Any:
    """``json.loads``, but not the stdlib's function object: the lane calls it as given."""
    return json.loads(text)


def observe(
    lane: Lane[Any], reads: list[bytes], comments: bool
) -> tuple[Any, ...]:
    feed = lane.feed_with_comments if comments else lane.feed
    events: list[Any] = []
    failure = None
    try:
        for read in reads:
            events += feed(read)
        events += lane.close()
    except ProtocolError as exc:
        events += exc.events
        failure = str(exc)
    raws = [getattr(event, "raw", None) for event in events if type(event) is not StreamEnd]
    warnings = [(w.code, w.message, w.event_index, w.offset, w.count) for w in lane.warnings]
    return (
        [repr(event) for event in events], json.dumps(raws, default=repr), warnings,
        json.dumps(lane.snapshot.to_api()), lane.outcome, lane.error, failure,
        lane.bytes_fed, lane.last_event_id,
    )


@SETTINGS
@given(
    body=mutated(),
    lane_name=st.sampled_from(sorted(LANES)),
    cuts=st.lists(st.integers(0, 1 << 20), max_size=12),
    strict=st.booleans(),
    comments=st.booleans(),
    limit=st.sampled_from([None, 200, 1 << 20]),
    off=st.sampled_from(["read", "json", "both"]),
)
def test_the_short_read_path_and_the_direct_decoding_give_what_the_general_path_gives(
    body: bytes, lane_name: str, cuts: list[int], strict: bool, comments: bool,
    limit: int | None, off: str,
) -> None:
    reads = split(body, cuts)
    cls = LANES[lane_name]
    fast = cls(strict=strict, max_event_size=limit)
    slow_cls = general(cls) if off in ("read", "both") else cls
    slow = slow_cls(
        strict=strict, max_event_size=limit,
        json_loads=other_loads if off in ("json", "both") else json.loads,
    )
    assert observe(fast, reads, comments) == observe(slow, reads, comments)


def test_the_general_lane_really_takes_the_general_path() -> None:
    """The switch the property relies on: the general lane never opens the short path."""
    lane = general(LANES["chat"])()
    lane.feed(b"data: {}\n\n")
    assert lane._plain is False
    normal = LANES["chat"]()
    normal.feed(b"data: {}\n\n")
    assert normal._plain is True
    assert lane_loads(other_loads) is other_loads
    assert lane_loads(json.loads) is not json.loads


@pytest.mark.parametrize("lane_name", sorted(LANES))
def test_a_read_after_the_end_or_a_failure_is_refused_on_the_short_path(lane_name: str) -> None:
    lane = LANES[lane_name]()
    lane.feed(b": open\n\n")  # opens the short path
    with pytest.raises(UsageError, match="bytes, not str"):
        lane.feed("data: {}\n\n")  # type: ignore[arg-type]
    lane.close()
    with pytest.raises(UsageError, match="after close"):
        lane.feed(b"data: {}\n\n")
    failed = LANES[lane_name]()
    failed.feed(b": open\n\n")
    with pytest.raises(ProtocolError):
        failed.feed(b"data: {\n\n")
    with pytest.raises(ProtocolError, match="failed earlier"):
        failed.feed(b": more\n\n")


def test_comments_asked_for_after_an_empty_read_come_where_they_were() -> None:
    """``feed(b"")`` opens the short path; ``feed_with_comments()`` may still follow it."""
    lane = LANES["messages"]()
    assert lane.feed(b"") == []
    got = lane.feed_with_comments(b": one\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\n: two\n\n")
    assert [type(item).__name__ for item in got] == ["Comment", "Ping", "Comment"]
    assert got[0] == Comment("one")


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                 max_size=3),
    max_leaves=8,
)
PADDING = st.sampled_from(["", " ", "\n", "\t ", "\ufeff", "x", ",1", "]", "}", " 2", "\x00"])


@st.composite
def near_json(draw: st.DrawFn) -> str:
    """JSON text and its near misses: padded, cut, with a BOM, extra data, or plain text."""
    text = json.dumps(draw(JSON_VALUES), ensure_ascii=draw(st.booleans()))
    kind = draw(st.sampled_from(["whole", "whole", "pad", "cut", "text"]))
    if kind == "pad":
        text = draw(PADDING) + text + draw(PADDING)
    elif kind == "cut":
        text = text[: draw(st.integers(0, len(text)))]
    elif kind == "text":
        text = draw(st.text(max_size=12))
    return text


def outcome(loads: Any, text: str) -> tuple[str, str]:
    try:
        value = loads(text)
    except Exception as exc:  # the very error json.loads raises, with its message
        return type(exc).__name__, str(exc)
    if type(value) is float and math.isnan(value):
        return "value", "nan"
    return "value", json.dumps(value) + repr(type(value))


@settings(max_examples=examples(22, thorough=2000), deadline=None)
@given(text=near_json())
@example(text="[" * 100_000)  # RecursionError from the scanner, then from json.loads
@example(text="1" * 5000)  # past the int digit limit: ValueError
@example(text="NaN")
@example(text="\ufeff{}")
@example(text="")
def test_the_direct_decoding_answers_as_json_loads_does(text: str) -> None:
    assert outcome(lane_loads(json.loads), text) == outcome(json.loads, text)
