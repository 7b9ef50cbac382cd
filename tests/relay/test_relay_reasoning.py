"""Reasoning a client must send back: through the identity pairings exactly, never forged.

An Anthropic thinking block's ``signature`` and a ``redacted_thinking``
block's ``data``, an OpenAI reasoning item's ``id`` and ``encrypted_content``
are valid only for the provider that made them. Relayed Messages to
Messages, or Responses to Responses, the official SDK's final object holds
the source's reasoning blocks exactly, so the client can send them back;
relayed to another lane they are dropped (the text stays), and no relayed
byte carries them.
"""

from __future__ import annotations

import itertools
from importlib.resources import files
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from reasoning_turns import CUT, ThinkingTurn, render, thinking_turns
from relay_oracles import message_stream, response_stream

from sse_engine import FORMATS, ChatCompletionsLane, Lane, MessagesLane, Outcome, ResponsesLane
from sse_engine.parts import (
    Finish,
    Part,
    PartStream,
    ReasoningBlock,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Turn,
)
from sse_engine.relay import Emitter, Relay

CAPTURES = files("sse_engine") / "captures"
#: The sources the generated thinking turns are written in (``reasoning_turns``).
LANES: dict[str, type[Lane[Any]]] = {
    "chat": ChatCompletionsLane,
    "responses": ResponsesLane,
    "messages": MessagesLane,
}
TARGETS: tuple[str, ...] = tuple(FORMATS)
READERS: dict[str, type[Lane[Any]]] = {name: row.lane for name, row in FORMATS.items()}
TARGETS_BY_NAME: dict[str, type[Emitter]] = {
    "responses": FORMATS["responses"].emitter, "messages": FORMATS["messages"].emitter}
#: A reasoning item's encrypted content, put into the bundled capture's finished items.
ENCRYPTED = "gAAAAABo-encrypted-reasoning-state=="


def relayed(source: str, target: str, body: bytes, cuts: list[int] = []) -> bytes:  # noqa: B006
    relay = Relay(LANES[source](), to=target, created=1754000000)
    bounds = [0, *sorted(c for c in cuts if 0 < c < len(body)), len(body)]
    out = b"".join(relay.feed(body[a:b]) for a, b in itertools.pairwise(bounds))
    return out + relay.close()


def turn_of(lane: str, body: bytes) -> Turn:
    stream = PartStream(READERS[lane]())
    stream.feed(body)
    stream.close()
    return stream.turn


def reasoning_capture(encrypted: bool) -> bytes:
    body = (CAPTURES / "responses_reasoning.sse").read_bytes()
    if encrypted:  # as with include=["reasoning.encrypted_content"]: on the finished item
        body = body.replace(b'"type":"reasoning","summary":[{',
                            b'"type":"reasoning","encrypted_content":"%s","summary":[{'
                            % ENCRYPTED.encode())
        assert body.count(ENCRYPTED.encode()) == 2  # output_item.done, response.completed
    return body


# -- the bundled captures, read by the official SDKs -------------------------------------

def test_messages_to_messages_the_sdks_final_message_has_the_sources_thinking_blocks() -> None:
    source = (CAPTURES / "messages_thinking.sse").read_bytes()
    want = message_stream(source).get_final_message()
    got = message_stream(relayed("messages", "messages", source)).get_final_message()
    assert [b.type for b in want.content] == ["thinking", "redacted_thinking", "text"]
    assert got.content == want.content  # thinking text and signature, redacted data, text
    assert want.content[0].signature  # type: ignore[union-attr]


@pytest.mark.parametrize("encrypted", [False, True])
def test_responses_to_responses_the_sdks_final_response_has_the_sources_reasoning_item(
    encrypted: bool,
) -> None:
    source = reasoning_capture(encrypted)
    want = response_stream(source).get_final_response()
    got = response_stream(relayed("responses", "responses", source)).get_final_response()
    item, again = want.output[0], got.output[0]
    assert item.type == again.type == "reasoning"
    assert again.id == item.id  # the source's id: what a client sends back
    assert again.summary == item.summary  # both summary parts, as they were
    assert again.encrypted_content == item.encrypted_content
    assert (item.encrypted_content == ENCRYPTED) is encrypted


def test_another_lanes_thinking_reaches_a_messages_client_unsigned() -> None:
    """The Messages SDK takes a thinking block with the empty signature it opens with;
    a relay has no signature for another provider's reasoning and never makes one up."""
    source = reasoning_capture(encrypted=True)
    message = message_stream(relayed("responses", "messages", source)).get_final_message()
    thinking = message.content[0]
    assert thinking.type == "thinking" and thinking.signature == ""
    assert thinking.thinking == turn_of("responses", source).reasoning


def test_another_lanes_thinking_reaches_a_responses_client_without_encrypted_content() -> None:
    source = (CAPTURES / "messages_thinking.sse").read_bytes()
    response = response_stream(relayed("messages", "responses", source)).get_final_response()
    reasoning = [item for item in response.output if item.type == "reasoning"]
    # The thinking block is a reasoning item of the relay's own; the redacted one has no
    # place in Responses and is dropped.
    (item,) = reasoning
    assert item.encrypted_content is None and item.id.startswith("rs_")
    assert [s.text for s in item.summary] == [turn_of("messages", source).reasoning]


@pytest.mark.parametrize(("source", "target"), [
    (s, t) for s in ("messages", "responses") for t in TARGETS if s != t])
def test_no_relayed_byte_carries_another_providers_replay_data(source: str, target: str) -> None:
    body = (reasoning_capture(encrypted=True) if source == "responses"
            else (CAPTURES / "messages_thinking.sse").read_bytes())
    blocks = turn_of(source, body).reasoning_blocks
    opaque = [value for block in blocks
              for value in (block.signature, block.redacted, block.encrypted_content, block.id)
              if value is not None]
    assert opaque
    out = relayed(source, target, body)
    assert not [value for value in opaque if value.encode() in out]


# -- generated turns -------------------------------------------------------------------------

def pairs() -> list[tuple[str, str]]:
    return [(source, target) for source in LANES for target in TARGETS]


@pytest.mark.parametrize("lane", ["messages", "responses"])
@settings(max_examples=examples(5, thorough=30), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_an_identity_relay_gives_the_client_the_sources_blocks_of_reasoning(
    lane: str, data: st.DataObject
) -> None:
    turn: ThinkingTurn = data.draw(thinking_turns(lane), label="turn")
    body = render(turn)
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=6), label="cuts")
    source, again = turn_of(lane, body), turn_of(lane, relayed(lane, lane, body, cuts))
    assert again.reasoning_blocks == source.reasoning_blocks == turn.blocks()
    assert again.reasoning == source.reasoning
    assert again.text == source.text


@pytest.mark.parametrize(("source", "target"), [p for p in pairs() if p[0] != p[1]])
@settings(max_examples=examples(5, thorough=20), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_another_lanes_client_gets_the_reasoning_text_and_none_of_its_replay_data(
    source: str, target: str, data: st.DataObject
) -> None:
    turn: ThinkingTurn = data.draw(thinking_turns(source), label="turn")
    body = render(turn)
    out = relayed(source, target, body)
    again = turn_of(target, out)
    assert again.reasoning == turn_of(source, body).reasoning
    for thought in turn.thoughts:
        for value in (thought.signature, thought.redacted, thought.encrypted, thought.id):
            assert value is None or value.encode() not in out, value
    for block in again.reasoning_blocks:
        assert block.signature is None and block.redacted is None
        assert block.encrypted_content is None
        assert block.id is None or block.id.startswith(f"rs_{turn.id}_")  # the relay's own
    if FORMATS[target].emitter.reasoning_blocks and turn.ending not in CUT:
        # One block for each source block with text (Chat and Gemini run their blocks
        # together).
        want = [ReasoningBlock(t.text) for t in turn.thoughts if t.text]
        assert [ReasoningBlock(b.text) for b in again.reasoning_blocks] == want


# -- a block of reasoning behind a tool call still streaming ------------------------------

@pytest.mark.parametrize("target", ["responses", "messages"])
def test_a_block_of_reasoning_that_ended_while_waiting_its_turn_keeps_its_text_and_data(
    target: str,
) -> None:
    """Parts need not be sequential: a block may end while a tool call ahead of it streams.
    It is written when its turn comes, whole: its text, then its replay data."""
    call = ToolCall("call_1", "f")
    block = ReasoningBlock("Hmm.", signature="SIG-x", encrypted_content="ENC-x", id="rs_x")
    parts: list[Part] = [
        ToolCallStart("call_1", "f", 0, call=call),
        ToolCallDelta("call_1", '{"a":', 0, call=call),
        ReasoningStart(0, id="rs_x"),
        ReasoningDelta("Hmm."),
        ReasoningEnd(block, 0),
        ToolCallDelta("call_1", " 1}", 0, call=call),
        ToolCallEnd("call_1", "f", '{"a": 1}', {"a": 1}, 0, call=call),
        Finish("tool_calls", Outcome.COMPLETED),
    ]
    emitter = TARGETS_BY_NAME[target](model="m", id=None, created=1)
    out = emitter.emit(parts, _Source(Turn("resp_1", "m")))
    (again,) = turn_of(target, out).reasoning_blocks
    if target == "responses":
        assert again == ReasoningBlock("Hmm.", encrypted_content="ENC-x", id="rs_x")
        item = response_stream(out).get_final_response().output[1]
        assert item.type == "reasoning" and [s.text for s in item.summary] == ["Hmm."]
    else:
        assert again == ReasoningBlock("Hmm.", signature="SIG-x")
        thinking = message_stream(out).get_final_message().content[1]
        assert thinking.type == "thinking"
        assert (thinking.thinking, thinking.signature) == ("Hmm.", "SIG-x")


class _Source:
    """What an emitter reads besides the parts: the source's turn."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self.turns = [turn]
