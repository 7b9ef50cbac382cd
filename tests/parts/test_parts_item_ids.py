"""Output item ids in the parts (``MessageItemStart``, ``ToolCallStart.item_id``) are
Responses' own (tested in ``tests/responses/test_responses_parts.py``): other lanes have none.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

import pytest

from sse_engine import ChatCompletionsLane, Lane, MessagesLane, ResponsesLane
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


@pytest.mark.parametrize("name", ["responses_basic.sse", "responses_kindo_agent.sse"])
def test_the_turn_keeps_the_item_ids_and_its_format(name: str) -> None:
    # What a client sends back to refer to the items: conv.append(turn) reads these.
    data = (CAPTURES / name).read_bytes()
    stream = PartStream(ResponsesLane())
    parts = stream.feed(data) + stream.close()
    turn = stream.turn
    assert turn.format == "responses"
    opened = [p.id for p in parts if isinstance(p, MessageItemStart)]
    assert turn.message_id == opened[0]
    starts = [p for p in parts if isinstance(p, ToolCallStart)]
    assert [call.item_id for call in turn.tool_calls] == [p.item_id for p in starts]
    assert any(call.item_id for call in turn.tool_calls)


@pytest.mark.parametrize(("lane", "name"), [(ChatCompletionsLane, "chat_basic.sse"),
                                            (MessagesLane, "messages_basic.sse")])
def test_other_lanes_turns_name_their_format_and_have_no_item_ids(
    lane: type[Lane[Any]], name: str
) -> None:
    stream = PartStream(lane())
    stream.feed((CAPTURES / name).read_bytes())
    stream.close()
    turn = stream.turn
    assert turn.format == ("chat" if lane is ChatCompletionsLane else "messages")
    assert turn.message_id is None
    assert turn.tool_calls and all(call.item_id is None for call in turn.tool_calls)
