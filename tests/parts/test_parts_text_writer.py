"""``PartStream.write_text_with``: which deltas a relay's writer is offered, and which
usage reports its taker keeps.

A delta goes to the writer only when no part came before it in the same
``feed()``; after any part it is made a part, so the writer's bytes never run
ahead of a part that comes first. A usage report before any part of the call
goes to the taker, if one is given, with no part made (a Gemini chunk brings
one with every delta, and the deltas after it are still offered); a report
after a part is a part, so it keeps its place among them.
"""

from __future__ import annotations

import json
from typing import Any

from sse_engine.gemini import GeminiLane
from sse_engine.parts import (
    PartStream,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
    UsageUpdate,
    read_pending,
)


def _chunk(parts: list[dict[str, Any]], tokens: int) -> bytes:
    usage = {"promptTokenCount": 5, "candidatesTokenCount": tokens, "totalTokenCount": 5 + tokens}
    payload = {"candidates": [{"content": {"parts": parts, "role": "model"}}],
               "usageMetadata": usage}
    return b"data: " + json.dumps(payload).encode() + b"\r\n\r\n"


def test_deltas_after_usage_reports_go_to_the_writer_and_after_other_parts_do_not() -> None:
    offered: list[str] = []
    taken: list[Any] = []

    def writer(kind: str, text: str, choice: int) -> bool:
        offered.append(text)
        return True

    stream = PartStream(GeminiLane())
    stream.write_text_with(writer, usage=taken.append)
    first = stream.feed(b"".join(_chunk([{"text": w}], n) for n, w in enumerate("abcdef", 1)))
    # Each chunk's usage changed: six reports taken, no part, every delta to the writer.
    assert first == []
    assert offered == list("abcdef")
    assert [read_pending(usage) for usage in taken] == [
        Usage(5, n, 5 + n) for n in range(1, 7)
    ]

    call = {"functionCall": {"name": "f", "args": {}}}
    second = stream.feed(_chunk([call], 7) + _chunk([{"text": "g"}], 8))
    # A tool call came first in this call: its usage and "g" are parts after it, in order.
    assert offered == list("abcdef")
    assert len(taken) == 6
    assert [type(p) for p in second] == [ToolCallStart, ToolCallDelta, ToolCallEnd, UsageUpdate,
                                         TextDelta, UsageUpdate]
    assert [p.text for p in second if type(p) is TextDelta] == ["g"]
    assert [p.usage for p in second if type(p) is UsageUpdate] == [Usage(5, 7, 12),
                                                                     Usage(5, 8, 13)]
    assert stream.turn.text == "abcdefg"
    assert stream.turn.usage == Usage(5, 8, 13)


def test_without_a_taker_a_usage_report_is_a_part_and_the_delta_after_it_is_not_offered() -> None:
    offered: list[str] = []

    def writer(kind: str, text: str, choice: int) -> bool:
        offered.append(text)
        return True

    stream = PartStream(GeminiLane())
    stream.write_text_with(writer)
    parts = stream.feed(_chunk([{"text": "a"}], 1) + _chunk([{"text": "b"}], 2))
    # The first delta comes before its chunk's usage (the writer takes it); the second
    # comes after the first report's part.
    assert offered == ["a"]
    assert [type(p) for p in parts] == [UsageUpdate, TextDelta, UsageUpdate]


def test_no_writer_turns_the_taker_off_too() -> None:
    taken: list[Any] = []
    stream = PartStream(GeminiLane())
    stream.write_text_with(lambda kind, text, choice: True, usage=taken.append)
    stream.write_text_with(None)
    parts = stream.feed(_chunk([{"text": "a"}], 1))
    assert taken == []
    assert [type(p) for p in parts] == [TextDelta, UsageUpdate]
