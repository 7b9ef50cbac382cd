"""``PartStream.write_text_with``: which deltas a relay's writer is offered.

A delta goes to the writer only when nothing but usage updates came before it
in the same ``feed()`` (usage updates write no bytes, and a Gemini chunk brings
one with every delta); after any other part it is made a part, so the writer's
bytes never run ahead of a part that comes first. The count of usage updates
is the current call's: those of earlier calls must not let a delta jump ahead.
"""

from __future__ import annotations

import json
from typing import Any

from sse_engine.gemini import GeminiLane
from sse_engine.parts import PartStream, TextDelta, ToolCallStart, UsageUpdate


def _chunk(parts: list[dict[str, Any]], tokens: int) -> bytes:
    usage = {"promptTokenCount": 5, "candidatesTokenCount": tokens, "totalTokenCount": 5 + tokens}
    payload = {"candidates": [{"content": {"parts": parts, "role": "model"}}],
               "usageMetadata": usage}
    return b"data: " + json.dumps(payload).encode() + b"\r\n\r\n"


def test_deltas_after_usage_updates_go_to_the_writer_and_after_other_parts_do_not() -> None:
    offered: list[str] = []

    def writer(kind: str, text: str, choice: int) -> bool:
        offered.append(text)
        return True

    stream = PartStream(GeminiLane())
    stream.write_text_with(writer)
    first = stream.feed(b"".join(_chunk([{"text": w}], n) for n, w in enumerate("abcdef", 1)))
    # Each chunk's usage changed: six updates, and every delta went to the writer.
    assert [type(p) for p in first] == [UsageUpdate] * 6
    assert offered == list("abcdef")

    call = {"functionCall": {"name": "f", "args": {}}}
    second = stream.feed(_chunk([call], 7) + _chunk([{"text": "g"}], 8))
    # A tool call came first in this call: "g" is a part after it, never offered,
    # however many usage updates earlier calls made.
    assert offered == list("abcdef")
    kinds = [type(p) for p in second]
    assert kinds.index(ToolCallStart) < kinds.index(TextDelta)
    assert [p.text for p in second if type(p) is TextDelta] == ["g"]
    assert stream.turn.text == "abcdefg"
