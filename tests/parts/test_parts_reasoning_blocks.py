"""Blocks of reasoning: each reaches the turn with the data its provider needs to have it back.

``ReasoningStart`` ... ``ReasoningEnd`` bracket every block of reasoning (an
Anthropic thinking or redacted thinking block, an OpenAI reasoning item, a
Chat run of reasoning); the end carries the block, which ``Turn.reasoning_blocks``
keeps: its text and the provider's opaque replay data (a signature, redacted
data, an encrypted content and an id, OpenRouter's reasoning details).
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from reasoning_turns import ThinkingTurn, render, thinking_turns
from wire_turns import LANES, read

from sse_engine import (
    MessagesLane,
    Outcome,
    StreamEnd,
    encode_chat_event,
    encode_messages_event,
    encode_responses_event,
)
from sse_engine.parts import (
    Part,
    PartStream,
    ReasoningBlock,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    TextDelta,
    ToolCallStart,
    UsageUpdate,
)

CAPTURES = files("sse_engine") / "captures"


def check_brackets(parts: list[Part], stream: PartStream) -> None:
    """Every block opens once, ends at most once, in order; its end is the turn's block."""
    opened = [p for p in parts if isinstance(p, ReasoningStart)]
    ended = [p for p in parts if isinstance(p, ReasoningEnd)]
    assert [p.index for p in opened] == list(range(len(opened)))
    assert [p.index for p in ended] == list(range(len(ended)))
    assert len(opened) - len(ended) in (0, 1)
    blocks = stream.turn.reasoning_blocks
    assert [p.block for p in ended] == blocks
    assert all(p.block is block for p, block in zip(ended, blocks, strict=True))
    # Reasoning text only inside a block: never between an end and the next start.
    inside = False
    for part in parts:
        if isinstance(part, ReasoningStart):
            inside = True
        elif isinstance(part, ReasoningEnd):
            inside = False
        elif isinstance(part, ReasoningDelta):
            assert inside, part


@pytest.mark.parametrize("lane", LANES)
@settings(max_examples=examples(5, thorough=40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_block_of_reasoning_reaches_the_turn_with_its_replay_data_however_cut(
    lane: str, data: st.DataObject
) -> None:
    turn: ThinkingTurn = data.draw(thinking_turns(lane), label="turn")
    body = render(turn)
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=8), label="cuts")
    parts, stream = read(lane, body, cuts)
    assert stream.turn.reasoning_blocks == turn.blocks()
    assert [block.raw for block in stream.turn.reasoning_blocks] == turn.raws()
    assert stream.turn.reasoning == turn.reasoning
    assert stream.turn.text == turn.text
    check_brackets(parts, stream)
    # The blank line between two pieces is flagged; the model's own "\n\n" is text.
    model_text = "".join(p.text for p in parts if isinstance(p, ReasoningDelta)
                         and not p.separator)
    assert model_text == "".join("".join(piece) for t in turn.thoughts for piece in t.pieces)
    pieces = [piece for t in turn.thoughts for piece in t.pieces]
    separators = [p for p in parts if isinstance(p, ReasoningDelta) and p.separator]
    assert [p.text for p in separators] == ["\n\n"] * (len(pieces) - 1)


# -- Messages ------------------------------------------------------------------------------

def messages_body(*blocks: list[dict[str, Any]], stop: bool = True) -> bytes:
    """A Messages stream of ``blocks``, each a list of the payloads after message_start."""
    start = {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 1}}}
    payloads = [start, *(p for block in blocks for p in block)]
    if stop:
        payloads += [{"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                      "usage": {"output_tokens": 3}}, {"type": "message_stop"}]
    return b"".join(encode_messages_event(p) for p in payloads)


def test_the_thinking_capture_keeps_its_signature_and_its_redacted_block() -> None:
    body = (CAPTURES / "messages_thinking.sse").read_bytes()
    parts, stream = read("messages", body)
    lane = MessagesLane()
    lane.feed(body)
    lane.close()
    thinking, redacted, _ = lane.snapshot.to_api()["content"]
    assert stream.turn.reasoning_blocks == [
        ReasoningBlock(thinking["thinking"], signature=thinking["signature"]),
        ReasoningBlock("", redacted=redacted["data"]),
    ]
    assert [b.raw for b in stream.turn.reasoning_blocks] == [thinking, redacted]
    kinds = [type(p) for p in parts if not isinstance(p, ReasoningDelta | UsageUpdate)][:5]
    assert kinds == [ReasoningStart, ReasoningEnd, ReasoningStart, ReasoningEnd, TextDelta]
    check_brackets(parts, stream)


def test_a_thinking_block_without_signature_delta_has_no_signature() -> None:
    """A block opens with ``"signature": ""``: that empty string is no signature."""
    block = [
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "thinking_delta", "thinking": "Hmm."}},
        {"type": "content_block_stop", "index": 0},
    ]
    _, stream = read("messages", messages_body(block))
    assert stream.turn.reasoning_blocks == [ReasoningBlock("Hmm.")]


def test_a_thinking_block_cut_off_by_the_end_of_the_stream_gets_no_end() -> None:
    block = [
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "thinking_delta", "thinking": "Let me"}},
    ]
    parts, stream = read("messages", messages_body(block, stop=False))
    assert [type(p) for p in parts][1:3] == [ReasoningStart, ReasoningDelta]
    assert not any(isinstance(p, ReasoningEnd) for p in parts)
    assert stream.turn.reasoning == "Let me" and stream.turn.reasoning_blocks == []


def test_blocks_complete_in_message_start_open_and_end_at_once() -> None:
    content = [
        {"type": "thinking", "thinking": "Done already.", "signature": "SIG"},
        {"type": "redacted_thinking", "data": "RED"},
    ]
    start = {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
        "content": content, "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 1}}}
    body = encode_messages_event(start) + encode_messages_event(
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
         "usage": {"output_tokens": 3}}) + encode_messages_event({"type": "message_stop"})
    parts, stream = read("messages", body)
    assert stream.turn.reasoning_blocks == [
        ReasoningBlock("Done already.", signature="SIG"), ReasoningBlock("", redacted="RED")]
    check_brackets(parts, stream)


# -- Responses -----------------------------------------------------------------------------

def responses_body(*payloads: dict[str, Any]) -> bytes:
    created = {"type": "response.created",
               "response": {"id": "resp_1", "status": "in_progress", "model": "gpt"}}
    every = [created, *payloads]
    return b"".join(encode_responses_event({**p, "sequence_number": n})
                    for n, p in enumerate(every))


def completed(*output: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.completed", "response": {
        "id": "resp_1", "status": "completed", "model": "gpt", "output": list(output)}}


def test_the_reasoning_capture_keeps_its_item_id_and_summary_parts() -> None:
    parts, stream = read("responses", (CAPTURES / "responses_reasoning.sse").read_bytes())
    (block,) = stream.turn.reasoning_blocks
    assert block.id == "rs_68a1f0c2f0e081909d8c7b6a5f4e3d2c" and block.encrypted_content is None
    summary = [part["text"] for part in block.raw["summary"]]
    assert len(summary) == 2 and block.text == "\n\n".join(summary) == stream.turn.reasoning
    start = next(p for p in parts if isinstance(p, ReasoningStart))
    assert start.id == block.id  # known when the item opens, before any of its text
    check_brackets(parts, stream)


def test_encrypted_content_is_the_finished_items_not_the_partial_one_of_its_opening() -> None:
    """The SDK: the ``encrypted_content`` of ``output_item.added`` may be incomplete."""
    item = {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "gAAAA-part"}
    done = {**item, "encrypted_content": "gAAAA-partial-no-more"}
    body = responses_body(
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        completed(done),
    )
    parts, stream = read("responses", body)
    # No summary: a block without text, still one to send back.
    assert stream.turn.reasoning_blocks == [
        ReasoningBlock("", encrypted_content="gAAAA-partial-no-more", id="rs_1")]
    assert [type(p) for p in parts][:2] == [ReasoningStart, ReasoningEnd]


def test_an_item_known_only_from_the_final_response_is_a_block_too() -> None:
    """A gateway that sends finished items (or only the terminal response) still gives it."""
    item = {"id": "rs_9", "type": "reasoning", "encrypted_content": "gAAAA-x",
            "summary": [{"type": "summary_text", "text": "One."},
                        {"type": "summary_text", "text": "Two."}]}
    for body in (
        responses_body({"type": "response.output_item.done", "output_index": 0, "item": item},
                       completed(item)),
        responses_body(completed(item)),
    ):
        parts, stream = read("responses", body)
        assert stream.turn.reasoning_blocks == [
            ReasoningBlock("One.\n\nTwo.", encrypted_content="gAAAA-x", id="rs_9")]
        assert isinstance(parts[0], ReasoningStart) and parts[0].id == "rs_9"
        check_brackets(parts, stream)


def test_a_reasoning_item_the_response_did_not_finish_gets_no_end() -> None:
    item = {"id": "rs_1", "type": "reasoning", "summary": []}
    body = responses_body(
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.failed", "response": {
            "id": "resp_1", "status": "failed", "error": {"code": "server_error", "message": "x"},
            "output": [{**item, "status": "in_progress"}]}},
    )
    parts, stream = read("responses", body)
    assert [type(p) for p in parts][:1] == [ReasoningStart]
    assert stream.turn.reasoning_blocks == []


# -- Chat Completions -----------------------------------------------------------------------

def chat_body(*deltas: dict[str, Any], choice: int = 0, finish: str | None = "stop") -> bytes:
    base = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    frames = [encode_chat_event({**base, "choices": [
        {"index": choice, "delta": d, "finish_reason": None}]}) for d in deltas]
    if finish is not None:
        frames.append(encode_chat_event({**base, "choices": [
            {"index": choice, "delta": {}, "finish_reason": finish}]}))
        frames.append(encode_chat_event(StreamEnd(Outcome.COMPLETED)))
    return b"".join(frames)


def test_a_chat_run_of_reasoning_ends_before_what_follows_it() -> None:
    body = chat_body({"reasoning_content": "Plan."}, {"content": "Hi"},
                     {"reasoning_content": "More."}, {"tool_calls": [{
                         "index": 0, "id": "call_1", "type": "function",
                         "function": {"name": "f", "arguments": "{}"}}]},
                     finish="tool_calls")
    parts, stream = read("chat", body)
    kinds = [type(p) for p in parts]
    assert kinds[:9] == [ReasoningStart, ReasoningDelta, ReasoningEnd, TextDelta, ReasoningStart,
                         ReasoningDelta, ReasoningDelta, ReasoningEnd, ToolCallStart]
    assert stream.turn.reasoning == "Plan.\n\nMore."
    assert stream.turn.reasoning_blocks == [ReasoningBlock("Plan."), ReasoningBlock("More.")]
    check_brackets(parts, stream)


def test_a_chat_run_of_reasoning_ends_with_its_choice_and_not_when_cut() -> None:
    _, stream = read("chat", chat_body({"reasoning_content": "Only this."}))
    assert stream.turn.reasoning_blocks == [ReasoningBlock("Only this.")]
    parts, stream = read("chat", chat_body({"reasoning_content": "Cut."}, finish=None))
    assert stream.turn.reasoning_blocks == [] and stream.turn.reasoning == "Cut."
    assert not any(isinstance(p, ReasoningEnd) for p in parts)


def test_each_chat_choice_has_its_own_blocks() -> None:
    base = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(*choices: tuple[int, dict[str, Any], str | None]) -> bytes:
        return encode_chat_event({**base, "choices": [
            {"index": i, "delta": d, "finish_reason": f} for i, d, f in choices]})

    body = b"".join([
        chunk((0, {"reasoning_content": "A"}, None), (1, {"reasoning_content": "B"}, None)),
        chunk((0, {"content": "x"}, None)),  # ends choice 0's block; choice 1 still thinks
        chunk((1, {"reasoning_content": "B2"}, None)),
        chunk((1, {"content": "y"}, None)),
        chunk((0, {}, "stop"), (1, {}, "stop")),
        encode_chat_event(StreamEnd(Outcome.COMPLETED)),
    ])
    parts, stream = read("chat", body)
    first, second = stream.turns
    assert first.reasoning_blocks == [ReasoningBlock("A")]
    assert second.reasoning_blocks == [ReasoningBlock("BB2")]
    ends = [(p.choice, p.index) for p in parts if isinstance(p, ReasoningEnd)]
    assert ends == [(0, 0), (1, 0)]


def test_openrouter_reasoning_details_are_the_blocks_raw_merged_by_index() -> None:
    fmt = "anthropic-claude-v1"
    body = chat_body(
        {"reasoning": None, "reasoning_details": []},
        {"content": "", "reasoning": None, "reasoning_details": [
            {"type": "reasoning.text", "text": "", "signature": "", "format": fmt, "index": 0}]},
        {"content": "", "reasoning": "Think ", "reasoning_details": [
            {"type": "reasoning.text", "text": "Think ", "format": fmt, "index": 0}]},
        {"content": "", "reasoning": "twice.", "reasoning_details": [
            {"type": "reasoning.text", "text": "twice.", "format": fmt, "index": 0}]},
        {"content": "", "reasoning": None, "reasoning_details": [
            {"type": "reasoning.text", "signature": "SIG", "format": fmt, "index": 0}]},
        {"content": "", "reasoning": None, "reasoning_details": [
            {"type": "reasoning.encrypted", "data": "RED", "format": fmt, "index": 1}]},
        {"content": "Answer.", "reasoning": None, "reasoning_details": []},
    )
    _, stream = read("chat", body)
    (block,) = stream.turn.reasoning_blocks
    # OpenRouter's replay data is its own: the Chat block keeps it as raw, for OpenRouter.
    assert block == ReasoningBlock("Think twice.")
    assert block.raw == [
        {"type": "reasoning.text", "text": "Think twice.", "signature": "SIG", "format": fmt,
         "index": 0},
        {"type": "reasoning.encrypted", "data": "RED", "format": fmt, "index": 1},
    ]
    assert stream.turn.text == "Answer."
