"""Deltas a ``PartStream`` takes straight from its lane, with no lane event made.

During ``PartStream.feed`` (and a relay's read) the lane hands a plain text
delta (and, per format, reasoning, tool input, Gemini's usage) to the
translator's ``text_sink`` instead of making its event, as long as
no event of that read came before it. Whether a delta goes that way depends on
where the reads were cut, so the property is: for any stream and any cuts,
``feed()`` gives exactly the parts (and turn, snapshot and warnings) that
``translate()`` gives for the same lane's own events, and a relay writes the
same bytes however its reads were cut.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from wire_turns import ALL_LANES, render, turn_specs

from sse_engine import ChatCompletionsLane, GeminiLane, Lane, MessagesLane, ResponsesLane
from sse_engine.chat import ChatContentDelta, ChatToolCallArgumentsDelta
from sse_engine.gemini import TextPart, ThoughtPart, UsageMetadata
from sse_engine.messages import InputJsonDelta, TextBlockDelta, ThinkingDelta
from sse_engine.parts import Part, PartStream
from sse_engine.relay import Relay
from sse_engine.responses import (
    ResponseCallDeltaEvent,
    ResponseContentDeltaEvent,
    ResponseSummaryTextDeltaEvent,
)

CAPTURES = Path(__file__).parents[2] / "sse_engine" / "captures"
LANE_OF = {
    "chat": ChatCompletionsLane,
    "responses": ResponsesLane,
    "messages": MessagesLane,
    "gemini": GeminiLane,
}
STREAMS = {
    path.name: (LANE_OF[path.name.split("_")[0]], path.read_bytes())
    for path in sorted(CAPTURES.glob("*.sse"))
    if path.name.split("_")[0] in LANE_OF
}


#: Where a frame ends, whichever line breaks its stream uses.
FRAME_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")


def _cuts(data: st.DataObject, body: bytes, most: int) -> list[int]:
    """Cuts anywhere, and at a random choice of the frames' ends: where a delta is read
    first in its read (and so goes to the sink), which cuts anywhere seldom hit."""
    ends = [found.end() for found in FRAME_END.finditer(body)]
    anywhere = data.draw(st.lists(st.integers(0, len(body)), max_size=most))
    framed = data.draw(st.sets(st.sampled_from(ends))) if ends else set()
    return [*anywhere, *framed]


def _reads(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted(c for c in cuts if 0 < c < len(data)), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def _fed(lane: Lane[Any], reads: list[bytes]) -> tuple[list[Part], PartStream[Any]]:
    stream = PartStream(lane)
    parts: list[Part] = []
    for read in reads:
        parts += stream.feed(read)
    return parts + stream.close(), stream


def _translated(lane: Lane[Any], reads: list[bytes]) -> tuple[list[Part], PartStream[Any]]:
    """The same reads, the lane driven by hand: every delta is one of its events."""
    stream = PartStream(lane)
    parts: list[Part] = []
    for read in reads:
        parts += stream.translate(lane.feed(read))
    return parts + stream.translate(lane.close()), stream


def _same(kind: type[Lane[Any]], data: bytes, cuts: list[int]) -> None:
    reads = _reads(data, cuts)
    fed, by_feed = _fed(kind(), reads)
    translated, by_hand = _translated(kind(), reads)
    assert fed == translated
    assert by_feed.turns == by_hand.turns
    assert by_feed.lane.snapshot.to_api() == by_hand.lane.snapshot.to_api()
    assert by_feed.warnings == by_hand.warnings


@settings(max_examples=examples(40, thorough=400), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(lane=st.sampled_from(sorted(ALL_LANES)), spec=turn_specs(), data=st.data())
def test_feed_gives_what_translate_gives_for_any_turn_and_any_cuts(
    lane: str, spec: Any, data: st.DataObject
) -> None:
    body = render(lane, spec)
    _same(ALL_LANES[lane], body, _cuts(data, body, 40))


@pytest.mark.parametrize("name", sorted(STREAMS))
@settings(max_examples=examples(5, thorough=100), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_feed_gives_what_translate_gives_for_every_capture_and_any_cuts(
    name: str, data: st.DataObject
) -> None:
    kind, body = STREAMS[name]
    _same(kind, body, _cuts(data, body, 60))


@pytest.mark.parametrize("name", sorted(STREAMS))
@pytest.mark.parametrize("target", ["chat", "responses", "messages", "gemini"])
@settings(max_examples=examples(3, thorough=60), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_relay_writes_the_same_bytes_however_its_reads_are_cut(
    name: str, target: str, data: st.DataObject
) -> None:
    kind, body = STREAMS[name]
    whole = Relay(kind(), to=target, id="x", created=1)
    expected = whole.feed(body) + whole.close()
    relay = Relay(kind(), to=target, id="x", created=1)
    reads = _reads(body, _cuts(data, body, 60))
    got = b"".join(relay.feed(read) for read in reads) + relay.close()
    assert got == expected


#: Each kind of delta a lane hands to its translator's sink, and a capture that has it.
SINKED = [
    ("chat_basic.sse", ChatContentDelta),
    ("chat_parallel_tools.sse", ChatToolCallArgumentsDelta),
    ("responses_basic.sse", ResponseContentDeltaEvent),
    ("responses_reasoning.sse", ResponseSummaryTextDeltaEvent),
    ("responses_kindo_agent.sse", ResponseCallDeltaEvent),
    ("messages_basic.sse", TextBlockDelta),
    ("messages_thinking.sse", ThinkingDelta),
    ("messages_basic.sse", InputJsonDelta),
    ("gemini_basic.sse", TextPart),
    ("gemini_thinking.sse", ThoughtPart),
    ("gemini_basic.sse", UsageMetadata),
]


def _frames(body: bytes) -> list[bytes]:
    ends = [0, *(found.end() for found in FRAME_END.finditer(body))]
    return [body[a:b] for a, b in itertools.pairwise(ends)]


@pytest.mark.parametrize(("name", "kind"), SINKED, ids=[k.__name__ for _, k in SINKED])
def test_a_delta_read_alone_goes_to_the_sink_and_makes_no_lane_event(
    name: str, kind: type[Any]
) -> None:
    """The path the properties above compare is taken for every kind of delta a lane
    sinks: read one frame at a time, the lane makes (nearly) none of their events, and
    the parts are still the stream's."""
    lane_type, body = STREAMS[name]
    alone = lane_type()
    by_lane = [e for e in alone.feed(body) + alone.close() if type(e) is kind]
    assert len(by_lane) >= 2
    lane = lane_type()
    stream = PartStream(lane)
    made: list[Any] = []
    feed = lane.feed

    def counting_feed(data: bytes) -> list[Any]:
        events = feed(data)
        made.extend(events)
        return events

    lane.feed = counting_feed  # type: ignore[method-assign]
    parts: list[Part] = []
    for frame in _frames(body):
        parts += stream.feed(frame)
    parts += stream.close()
    # At most the first (read before the translator knows the response's id) and the
    # last (which may follow another event of its frame: Gemini's last usage) are events.
    events = [e for e in made if type(e) is kind]
    assert len(events) <= 2 and len(events) < len(by_lane)
    by_hand = PartStream(lane_type())
    assert parts == by_hand.translate(by_hand.lane.feed(body) + by_hand.lane.close())
