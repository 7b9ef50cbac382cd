"""Gemini's usage on the hot path reads exactly what the general reading gives.

A Gemini stream reports ``usageMetadata`` in (nearly) every chunk, so its
reading is on the parts layer's hot path: ``usage_counts`` reads the counts
with plain lookups, the builder keeps them (``usage_counts``) and the part and
the turns make the :class:`Usage` from them slot by slot (``new_usage``) only
when first read; the builder makes each ``UsageUpdate`` slot by slot too. The
properties: the fast reading equals the general one (``count_tokens`` per field
and the attrs constructor, as before) on any ``usageMetadata`` object,
near-miss values included (a count sent as a float, a bool, a string), and a
``PartStream`` gives the same parts, and the same usage at every point it is
read, by the fast path and by the general one (a Usage made and compared per
report, as before), whatever the reads.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from lane_runs import same_event

from sse_engine import SSEEngineError
from sse_engine.gemini import GeminiLane, encode_gemini_event
from sse_engine.gemini._events import UsageMetadata
from sse_engine.gemini._parts import GeminiParts
from sse_engine.gemini._wire import usage_counts, usage_from_wire
from sse_engine.parts import PartStream, Usage, UsageUpdate, count_tokens, new_usage
from sse_engine.parts._builder import make_usage_update

_KEYS = ("promptTokenCount", "toolUsePromptTokenCount", "candidatesTokenCount",
         "thoughtsTokenCount", "totalTokenCount", "cachedContentTokenCount")
FAST = settings(max_examples=examples(5, thorough=300), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


def general_usage(usage: Mapping[str, Any]) -> Usage:
    """``usage_from_wire`` as it read before the fast path: ``count_tokens`` per field."""
    prompt = count_tokens(usage, "promptTokenCount")
    tools = count_tokens(usage, "toolUsePromptTokenCount")
    answer = count_tokens(usage, "candidatesTokenCount")
    thoughts = count_tokens(usage, "thoughtsTokenCount")
    total = count_tokens(usage, "totalTokenCount")
    if prompt is None and tools is None and answer is None and thoughts is None and total is None:
        return Usage(cached_input_tokens=count_tokens(usage, "cachedContentTokenCount"), raw=usage)
    input_tokens = (prompt or 0) + (tools or 0)
    output = (answer or 0) + (thoughts or 0)
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output,
        total_tokens=input_tokens + output if total is None else total,
        cached_input_tokens=count_tokens(usage, "cachedContentTokenCount"),
        reasoning_tokens=thoughts,
        raw=usage,
    )


def _made_at_once(translator: GeminiParts, event: UsageMetadata) -> None:
    translator.builder.usage(general_usage(event.usage))


@contextmanager
def general_path() -> Iterator[None]:
    """Each report's usage read by ``count_tokens`` and made at once, with its part, by the
    attrs constructors, and compared as a Usage (``PartBuilder.usage``)."""
    with mock.patch.dict(GeminiParts.HANDLERS, {UsageMetadata: _made_at_once}), \
            mock.patch("sse_engine.parts._builder.make_usage_update", UsageUpdate):
        yield


# A count as a server may send it, near misses included: a float or a bool equal to an
# int compares equal to it, but is no count.
_count = (st.integers(-3, 10**7) | st.sampled_from([0.0, 1.0, 7.5, True, False])
          | st.none() | st.sampled_from(["12", "", [], {}]))
usage_objects = st.dictionaries(
    st.sampled_from((*_KEYS, "promptTokensDetails", "trafficType")), _count, max_size=7,
)


def _typed(usage: Usage) -> list[tuple[type, Any]]:
    """Every field with its type (``1 == 1.0 == True``: equality alone would miss one)."""
    fields = (usage.input_tokens, usage.output_tokens, usage.total_tokens,
              usage.cached_input_tokens, usage.reasoning_tokens, usage.cache_write_input_tokens)
    return [(type(value), value) for value in fields]


@FAST
@given(usage=usage_objects)
def test_the_fast_reading_of_usage_metadata_is_the_general_one(usage: dict[str, Any]) -> None:
    fast, general = usage_from_wire(usage), general_usage(usage)
    same_event(fast, general)
    assert _typed(fast) == _typed(general)
    assert fast.raw is usage


def test_usage_and_its_part_made_slot_by_slot_are_what_their_constructors_make() -> None:
    raw = {"promptTokenCount": 3}
    usage = new_usage(3, 4, 7, 1, 2, None, raw)
    made = Usage(3, 4, 7, 1, 2, None, raw=raw)
    same_event(usage, made)
    assert usage.raw is raw
    same_event(make_usage_update(usage), UsageUpdate(made))


# -- a stream: the same parts, the same usage at every point -----------------------------------


@st.composite
def usage_streams(draw: st.DrawFn) -> bytes:
    """Chunks of text, each with a usage object that often repeats the one before."""
    frames = []
    usage: dict[str, Any] = {}
    for _ in range(draw(st.integers(1, 8))):
        if not usage or draw(st.booleans()):
            usage = draw(usage_objects)
        chunk: dict[str, Any] = {
            "candidates": [{"content": {"parts": [{"text": draw(st.text(max_size=4))}],
                                        "role": "model"}}],
            "usageMetadata": usage, "modelVersion": "gemini-test",
        }
        if draw(st.integers(0, 4)) == 0:
            del chunk["usageMetadata"]
        frames.append(encode_gemini_event(chunk))
    if draw(st.booleans()):
        frames.append(encode_gemini_event({"candidates": [{"finishReason": "STOP"}],
                                           "usageMetadata": draw(usage_objects)}))
    if draw(st.integers(0, 5)) == 0:
        frames.append(b"data: {oops\r\n\r\n")
    return b"".join(frames)


def _seen(reads: list[bytes]) -> list[Any]:
    """Each read's parts, with each usage's raw object and the turn's usage after it."""
    stream = PartStream(GeminiLane())
    seen: list[Any] = []

    def note(parts: list[Any]) -> None:
        usage = stream.turn.usage
        seen.append((parts, [repr(p) for p in parts],
                     [p.usage.raw for p in parts if type(p) is UsageUpdate],
                     usage, None if usage is None else (_typed(usage), usage.raw)))

    try:
        for read in reads:
            note(stream.feed(read))
        note(stream.close())
    except SSEEngineError as exc:
        note(getattr(exc, "events", []))
        seen.append(str(exc))
    return seen


@FAST
@given(body=usage_streams(), data=st.data())
def test_a_part_stream_reports_the_same_usage_by_either_path(
    body: bytes, data: st.DataObject,
) -> None:
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(body)), max_size=12))))
    reads = [body[a:b] for a, b in itertools.pairwise([0, *cuts, len(body)])]
    fast = _seen(reads)
    with general_path():
        general = _seen(reads)
    assert fast == general


def test_the_general_path_is_really_taken() -> None:
    """The switch works: the names it replaces are the ones the hot path calls."""
    body = encode_gemini_event({"candidates": [], "usageMetadata": {"promptTokenCount": 2}})
    make = mock.patch("sse_engine.parts._builder.make_usage_update", side_effect=UsageUpdate)
    with general_path(), make as made, mock.patch(
        f"{__name__}.general_usage", side_effect=general_usage,
    ) as read:
        parts = PartStream(GeminiLane()).feed(body)
    read.assert_called_once()
    made.assert_called_once()
    assert UsageUpdate(Usage(2, 0, 2)) in parts


def test_a_usage_nobody_reads_is_never_made() -> None:
    """Chunks that each grow the usage make its parts, but a Usage only when one is read."""
    body = b"".join(
        encode_gemini_event({"candidates": [{"content": {"parts": [{"text": "x"}]}}],
                             "usageMetadata": {"promptTokenCount": 2, "totalTokenCount": 2 + n,
                                               "candidatesTokenCount": n}})
        for n in range(1, 6)
    )
    stream = PartStream(GeminiLane())
    with mock.patch("sse_engine.parts._usage.new_usage", side_effect=new_usage) as made:
        parts = stream.feed(body)
        updates = [part for part in parts if type(part) is UsageUpdate]
        assert len(updates) == 5
        assert made.call_count == 0
        assert updates[2].usage == Usage(2, 3, 5)
        assert updates[2].usage is updates[2].usage  # made once, then kept
        assert stream.turn.usage == Usage(2, 5, 7)
        assert made.call_count == 2


def test_after_a_restart_the_same_counts_are_reported_again() -> None:
    """Whether counts are unchanged is read off the turn, so a replay's fresh turn starts
    with none: its first report makes a part, as the general path's does."""
    builder = PartStream(GeminiLane())._builder
    raw = {"promptTokenCount": 2}
    builder.usage_counts(usage_counts(raw), raw)
    builder.usage_counts(usage_counts(raw), raw)
    assert [type(part) for part in builder.out] == [UsageUpdate]
    builder.restart("replay")
    builder.usage_counts(usage_counts(raw), raw)
    assert [type(part) for part in builder.out][-1] is UsageUpdate
    assert sum(type(part) is UsageUpdate for part in builder.out) == 2
    assert builder.turns[0].usage == Usage(2, 0, 2)
