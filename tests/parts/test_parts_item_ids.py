"""Responses output item ids in the parts: ``MessageItemStart`` and ``ToolCallStart.item_id``.

Each message item is told once, with its id, before its text, whether the
stream announced it (``output_item.added``) or only the final response held
it; each ``function_call`` / ``custom_tool_call`` keeps its item ``id``
beside its ``call_id``. Other lanes have no such ids.
"""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

import pytest

from sse_engine import ChatCompletionsLane, Lane, MessagesLane, ResponsesLane
from sse_engine.parts import MessageItemStart, Part, PartStream, TextDelta, ToolCallStart
from sse_engine.responses import encode_responses_event

CAPTURES = files("sse_engine") / "captures"


def parts_of(lane: Lane[Any], data: bytes) -> list[Part]:
    stream = PartStream(lane)
    return stream.feed(data) + stream.close()


def added_items(data: bytes) -> list[dict[str, Any]]:
    """The items the capture's ``output_item.added`` events open, in order."""
    items = []
    for line in data.decode().splitlines():
        if line.startswith("data:") and '"response.output_item.added"' in line:
            items.append(json.loads(line[5:])["item"])
    return items


@pytest.mark.parametrize("name", ["responses_basic.sse", "responses_kindo_agent.sse",
                                  "responses_refusal.sse", "responses_truncated.sse"])
def test_each_responses_item_id_is_in_the_part_that_opens_it(name: str) -> None:
    data = (CAPTURES / name).read_bytes()
    parts = parts_of(ResponsesLane(), data)
    items = added_items(data)
    assert [p.id for p in parts if isinstance(p, MessageItemStart)] == [
        i["id"] for i in items if i["type"] == "message"]
    calls = [p for p in parts if isinstance(p, ToolCallStart)]
    client = [i for i in items if i["type"] in ("function_call", "custom_tool_call")]
    assert [(p.id, p.item_id) for p in calls if p.call is not None and not p.call.server] == [
        (i["call_id"], i["id"]) for i in client]


def test_a_message_item_opens_before_its_text() -> None:
    parts = parts_of(ResponsesLane(), (CAPTURES / "responses_basic.sse").read_bytes())
    kinds = [type(p) for p in parts]
    assert kinds.index(MessageItemStart) < kinds.index(TextDelta)


def frames(*payloads: dict[str, Any]) -> bytes:
    return b"".join(
        encode_responses_event({**p, "sequence_number": n}) for n, p in enumerate(payloads)
    )


def response(status: str, output: list[Any]) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "created_at": 1, "status": status,
            "model": "m", "output": output}


MESSAGE = {"id": "msg_9", "type": "message", "role": "assistant", "status": "completed",
           "content": [{"type": "output_text", "text": "Hi.", "annotations": []}]}


def test_a_message_item_only_the_final_response_holds_is_told_once_before_its_text() -> None:
    data = frames({"type": "response.created", "response": response("in_progress", [])},
                  {"type": "response.completed", "response": response("completed", [MESSAGE])})
    parts = parts_of(ResponsesLane(), data)
    told = [(type(p), getattr(p, "id", None) or getattr(p, "text", None))
            for p in parts if isinstance(p, MessageItemStart | TextDelta)]
    assert told == [(MessageItemStart, "msg_9"), (TextDelta, "Hi.")]


def test_a_message_item_announced_and_done_is_told_once() -> None:
    opened = {**MESSAGE, "status": "in_progress", "content": []}
    data = frames({"type": "response.created", "response": response("in_progress", [])},
                  {"type": "response.output_item.added", "output_index": 0, "item": opened},
                  {"type": "response.output_item.done", "output_index": 0, "item": MESSAGE},
                  {"type": "response.completed", "response": response("completed", [MESSAGE])})
    parts = parts_of(ResponsesLane(), data)
    assert [p.id for p in parts if isinstance(p, MessageItemStart)] == ["msg_9"]


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
