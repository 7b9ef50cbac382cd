"""Output item ids in the parts (``MessageItemStart``, ``ToolCallStart.item_id``) are
Responses' own (tested in ``tests/responses/test_responses_parts.py``): other lanes have none.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

import pytest

from sse_engine import ChatCompletionsLane, Lane, MessagesLane
from sse_engine.parts import MessageItemStart, Part, PartStream, ToolCallStart

CAPTURES = files("sse_engine") / "captures"


def parts_of(lane: Lane[Any], data: bytes) -> list[Part]:
    stream = PartStream(lane)
    return stream.feed(data) + stream.close()


@pytest.mark.parametrize("lane, name", [(ChatCompletionsLane, "chat_parallel_tools.sse"),
                                        (MessagesLane, "messages_basic.sse")])
def test_other_lanes_have_no_item_ids(lane: type[Lane[Any]], name: str) -> None:
    parts = parts_of(lane(), (CAPTURES / name).read_bytes())
    assert not any(isinstance(p, MessageItemStart) for p in parts)
    starts = [p for p in parts if isinstance(p, ToolCallStart)]
    assert starts and all(p.item_id is None for p in starts)
