"""Ids a client sends back: through the identity pairings, the source's own.

A client keeps a response's output items and sends them back (a stored
conversation, an item reference, a ``function_call_output`` naming its
``call_id``; a ``tool_result`` naming its ``tool_use_id``). Relayed Responses
to Responses, Messages to Messages or Chat to Chat, the official SDK's final
object holds the source's ids: the response's, each message item's, each
tool call's item id and call id. (Responses to Responses, over the bundled
captures: ``tests/responses/test_responses_emit.py``.)
"""

from __future__ import annotations

import dataclasses
from importlib.resources import files
from typing import Any

import anthropic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis_budget import examples
from relay_oracles import chat_stream, message_stream, response_stream
from wire_turns import ALL_LANES, TurnSpec, render, turn_specs

from sse_engine import ChatCompletionsLane
from sse_engine.parts import MessageItemStart, Part, PartStream, ReasoningStart, ToolCallStart
from sse_engine.relay import Relay
from sse_engine.responses import encode_responses_event

# The openai SDK's own models warn while serialising the Kindo capture's custom
# item types (kindo_call): the SDK oracle's noise, not ours; the ids are compared.
pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

CAPTURES = files("sse_engine") / "captures"
def relayed(lane: str, data: bytes, to: str | None = None) -> bytes:
    """``data``, read by ``lane``, relayed to ``to`` (default: the same lane)."""
    relay = Relay(ALL_LANES[lane](), to=to or lane, created=1754000000)
    return relay.feed(data) + relay.close()


MESSAGES = ["messages_basic.sse", "messages_thinking.sse", "messages_web_search.sse",
            "messages_gateway.sse", "messages_max_tokens.sse", "messages_truncated.sse"]


def message_ids(data: bytes) -> tuple[str, list[str]]:
    """What ``MessageStream`` makes of ``data``: the message id, its tool_use ids."""
    stream = message_stream(data)
    try:
        for _ in stream:
            pass
    except anthropic.APIStatusError:  # the stream failed: what it held by then
        pass
    message = stream.current_message_snapshot
    return message.id, [block.id for block in message.content if block.type == "tool_use"]


@pytest.mark.parametrize("name", MESSAGES)
def test_a_messages_relay_keeps_the_message_and_tool_use_ids(name: str) -> None:
    data = (CAPTURES / name).read_bytes()
    source = message_ids(data)
    assert message_ids(relayed("messages", data)) == source


def test_the_messages_captures_hold_tool_uses() -> None:
    assert any(message_ids((CAPTURES / name).read_bytes())[1] for name in MESSAGES)


CHATS = ["chat_basic.sse", "chat_parallel_tools.sse", "chat_kimi.sse",  # (Gemini: no index)
         "chat_refusal.sse", "chat_n2_length.sse"]


def completion_ids(data: bytes) -> tuple[str, list[str]]:
    """What ``ChatCompletionStream`` makes of ``data``: the completion id, its tool call ids."""
    stream = chat_stream(data)
    for _ in stream:
        pass
    completion = stream.current_completion_snapshot
    calls = completion.choices[0].message.tool_calls or []
    return completion.id, [call.id for call in calls]


@pytest.mark.parametrize("name", CHATS)
def test_a_chat_relay_keeps_the_completion_and_tool_call_ids(name: str) -> None:
    data = (CAPTURES / name).read_bytes()
    source = completion_ids(data)
    assert completion_ids(relayed("chat", data)) == source


def test_the_chat_captures_hold_tool_calls() -> None:
    assert any(completion_ids((CAPTURES / name).read_bytes())[1] for name in CHATS)


def two_message_items() -> bytes:
    """A Responses stream of two message items in a row, ``msg_a`` and ``msg_b``."""
    frames = [{"type": "response.created", "response": {"id": "resp_2", "object": "response",
               "created_at": 1, "status": "in_progress", "model": "m", "output": []}}]
    output = []
    for index, (ident, text) in enumerate([("msg_a", "Hello."), ("msg_b", "Bye.")]):
        item = {"id": ident, "type": "message", "role": "assistant", "status": "in_progress",
                "content": []}
        where = {"item_id": ident, "output_index": index, "content_index": 0}
        part = {"type": "output_text", "text": text, "annotations": []}
        done = {**item, "status": "completed", "content": [part]}
        output.append(done)
        frames += [
            {"type": "response.output_item.added", "output_index": index, "item": item},
            {"type": "response.content_part.added", **where,
             "part": {"type": "output_text", "text": "", "annotations": []}},
            {"type": "response.output_text.delta", **where, "delta": text},
            {"type": "response.output_text.done", **where, "text": text},
            {"type": "response.content_part.done", **where, "part": part},
            {"type": "response.output_item.done", "output_index": index, "item": done},
        ]
    frames.append({"type": "response.completed", "response": {
        "id": "resp_2", "object": "response", "created_at": 1, "status": "completed",
        "model": "m", "output": output}})
    return b"".join(
        encode_responses_event({**frame, "sequence_number": n}) for n, frame in enumerate(frames)
    )


def test_two_message_items_in_a_row_stay_two_with_their_ids() -> None:
    """The second item's text starts a new item (with its id), not more of the first."""
    response = response_stream(relayed("responses", two_message_items())).get_final_response()
    assert [(item.id, item.content[0].text) for item in response.output] == [  # type: ignore[union-attr]
        ("msg_a", "Hello."), ("msg_b", "Bye.")]


def test_two_message_items_are_two_text_blocks_on_messages_and_one_text_on_chat() -> None:
    message = message_stream(relayed("responses", two_message_items(), "messages")) \
        .get_final_message()
    assert [block.text for block in message.content] == ["Hello.", "Bye."]  # type: ignore[union-attr]
    stream = PartStream(ChatCompletionsLane())
    stream.feed(relayed("responses", two_message_items(), "chat"))
    stream.close()
    assert stream.turn.text == "Hello.Bye."


# -- every generated turn ----------------------------------------------------------------

#: A response id as each lane's relay keeps it (it adds its prefix to one without).
PREFIX = {"chat": "chatcmpl-", "responses": "resp_", "messages": "msg_", "gemini": ""}


def ids(parts: list[Part], stream: PartStream) -> tuple[Any, ...]:
    """The ids a client sends back, as the parts tell them."""
    return (
        stream.turn.id,
        [p.id for p in parts if isinstance(p, MessageItemStart)],
        [(p.id, p.item_id) for p in parts if isinstance(p, ToolCallStart)],
        [p.id for p in parts if isinstance(p, ReasoningStart)],
    )


def read_parts(lane: str, data: bytes) -> tuple[Any, ...]:
    stream = PartStream(ALL_LANES[lane]())
    return ids(stream.feed(data) + stream.close(), stream)


@settings(max_examples=examples(5, thorough=40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(spec=turn_specs())
def test_an_identity_relay_keeps_every_id_the_source_gave(spec: TurnSpec) -> None:
    for lane in ("chat", "responses", "messages", "gemini"):
        data = render(lane, dataclasses.replace(spec, id=PREFIX[lane] + "0001"))
        source = read_parts(lane, data)
        bad = spec.ending in ("error", "truncated")
        if lane != "responses" and bad and not (spec.text or spec.calls or spec.reasoning):
            source = (None, *source[1:])  # a failure before content is just the error: no id
        assert read_parts(lane, relayed(lane, data)) == source  # type: ignore[arg-type]
