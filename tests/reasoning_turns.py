"""Turns with blocks of reasoning and their replay data, in each lane's wire format.

Test helper shared by tests/parts and tests/relay. A :class:`ThinkingTurn` is
a sequence of blocks of reasoning (:class:`Thought`) and answer texts, and an
ending; :func:`render` writes it as its lane's stream, each lane with the
replay data its provider sends:

- Messages: ``thinking`` blocks with a ``signature_delta`` or without one
  (empty thinking with a signature too, as the API sends with its display
  ``omitted``), and ``redacted_thinking`` blocks with their ``data``;
- Responses: ``reasoning`` items with an ``id``, one ``summary_text`` part per
  piece, and an ``encrypted_content`` (only partly there at
  ``output_item.added``, whole at ``output_item.done``) or none;
- Chat: runs of reasoning between answer texts, as ``reasoning_content``, or
  as OpenRouter sends them: ``reasoning`` with ``reasoning_details`` whose
  signature comes in a chunk of its own.

:func:`thinking_turns` is the hypothesis strategy of a lane's turns;
:meth:`ThinkingTurn.blocks` the ``ReasoningBlock`` list the turn must end
with. Endings ``error`` and ``truncated`` leave the last item unfinished.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from sse_engine import (
    Outcome,
    StreamEnd,
    encode_chat_event,
    encode_messages_event,
    encode_responses_event,
)
from sse_engine.parts import ReasoningBlock

ENDINGS = ("stop", "length", "error", "truncated")
CUT = ("error", "truncated")
ERROR_MESSAGE = "the upstream model failed"
#: OpenRouter's name for signed Anthropic reasoning.
OPENROUTER_FORMAT = "anthropic-claude-v1"

Text = tuple[str, ...]  # an answer text, as its deltas


@dataclass(frozen=True)
class Thought:
    """One block of reasoning: its pieces (each as its deltas) and its replay data."""

    pieces: tuple[Text, ...] = ()
    signature: str | None = None  # Messages; Chat: the OpenRouter detail's
    redacted: str | None = None  # Messages
    encrypted: str | None = None  # Responses
    id: str | None = None  # Responses

    @property
    def text(self) -> str:
        return "\n\n".join("".join(piece) for piece in self.pieces)


@dataclass(frozen=True)
class ThinkingTurn:
    lane: str
    items: tuple[Thought | Text, ...]
    ending: str = "stop"
    openrouter: bool = False  # Chat: reasoning with reasoning_details, as OpenRouter sends it
    id: str = "turn_0001"
    model: str = "model-x"

    @property
    def thoughts(self) -> list[Thought]:
        return [item for item in self.items if isinstance(item, Thought)]

    @property
    def reasoning(self) -> str:
        """What ``Turn.reasoning`` says: every piece received, a blank line between two."""
        return "\n\n".join(t.text for t in self.thoughts if t.text)

    @property
    def text(self) -> str:
        return "".join("".join(item) for item in self.items if not isinstance(item, Thought))

    def ended(self) -> list[Thought]:
        """The blocks the stream ended (a cut stream leaves its last item unfinished)."""
        thoughts = self.thoughts
        if self.ending in CUT and self.items and isinstance(self.items[-1], Thought):
            thoughts = thoughts[:-1]
        return thoughts

    def blocks(self) -> list[ReasoningBlock]:
        """The ``Turn.reasoning_blocks`` this turn must give (``raw`` is not compared)."""
        if self.lane == "messages":
            return [ReasoningBlock(t.text, t.signature, t.redacted) for t in self.ended()]
        if self.lane == "responses":
            return [ReasoningBlock(t.text, encrypted_content=t.encrypted, id=t.id)
                    for t in self.ended()]
        return [ReasoningBlock(t.text) for t in self.ended()]

    def raws(self) -> list[Any]:
        """The ``raw`` of each block: the provider's own object for it, as it ended."""
        out: list[Any] = []
        for number, t in enumerate(self.ended()):
            if self.lane == "messages":
                out.append({"type": "redacted_thinking", "data": t.redacted}
                           if t.redacted is not None else
                           {"type": "thinking", "thinking": t.text, "signature": t.signature or ""})
            elif self.lane == "responses":
                out.append(_reasoning_item(t))
            else:
                out.append([_detail(t, number)] if self.openrouter else None)
        return out


# -- the strategies ------------------------------------------------------------------------

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=8)
#: Deltas, "\n\n" among them: the model's own blank line is text, not a separator.
_deltas = st.lists(st.one_of(_text, st.just("\n\n")), min_size=1, max_size=4).map(tuple)
_blob = st.text("ABCDEFGHIJKLMNOPabcdefghijklmnop0123456789+/", min_size=8, max_size=40)


def _opaque(kind: str) -> st.SearchStrategy[str]:
    """Opaque replay data, marked so a test can tell it anywhere in relayed bytes."""
    return _blob.map(lambda blob: f"{kind}-{blob}=")


@st.composite
def _thought(draw: st.DrawFn, lane: str, number: int) -> Thought:
    if lane == "messages":
        kind = draw(st.sampled_from(["thinking", "thinking", "redacted", "omitted"]))
        if kind == "redacted":
            return Thought(redacted=draw(_opaque("RED")))
        if kind == "omitted":
            return Thought(signature=draw(_opaque("SIG")))
        return Thought((draw(_deltas),), signature=draw(st.none() | _opaque("SIG")))
    if lane == "responses":
        return Thought(tuple(draw(st.lists(_deltas, max_size=3))), id=f"rs_{number:04}",
                       encrypted=draw(st.none() | _opaque("ENC")))
    return Thought((draw(_deltas),), signature=draw(st.none() | _opaque("SIG")))


@st.composite
def thinking_turns(draw: st.DrawFn, lane: str) -> ThinkingTurn:
    """A turn of ``lane``: 1 to 4 blocks of reasoning, answer text after some, an ending."""
    items: list[Thought | Text] = []
    for number in range(draw(st.integers(1, 4))):
        if lane == "chat" and items and isinstance(items[-1], Thought):
            items.append(draw(_deltas))  # Chat has no boundary between two runs but text
        items.append(draw(_thought(lane, number)))
        if draw(st.booleans()):
            items.append(draw(_deltas))
    return ThinkingTurn(lane, tuple(items), draw(st.sampled_from(ENDINGS)),
                        openrouter=lane == "chat" and draw(st.booleans()))


# -- Messages ---------------------------------------------------------------------------

def render_messages(turn: ThinkingTurn) -> bytes:
    frames: list[bytes] = []

    def send(kind: str, **fields: Any) -> None:
        frames.append(encode_messages_event({"type": kind, **fields}))

    send("message_start", message={"id": turn.id, "type": "message", "role": "assistant",
                                   "model": turn.model, "content": [], "stop_reason": None,
                                   "stop_sequence": None,
                                   "usage": {"input_tokens": 10, "output_tokens": 1}})
    for index, item in enumerate(turn.items):
        last = index == len(turn.items) - 1
        cut = last and turn.ending in CUT
        if isinstance(item, Thought) and item.redacted is not None:
            send("content_block_start", index=index,
                 content_block={"type": "redacted_thinking", "data": item.redacted})
        elif isinstance(item, Thought):
            send("content_block_start", index=index,
                 content_block={"type": "thinking", "thinking": "", "signature": ""})
            for piece in item.pieces:
                for delta in piece:
                    send("content_block_delta", index=index,
                         delta={"type": "thinking_delta", "thinking": delta})
            if item.signature is not None and not cut:
                send("content_block_delta", index=index,
                     delta={"type": "signature_delta", "signature": item.signature})
        else:
            send("content_block_start", index=index, content_block={"type": "text", "text": ""})
            for delta in item:
                send("content_block_delta", index=index,
                     delta={"type": "text_delta", "text": delta})
        if not cut:
            send("content_block_stop", index=index)
    if turn.ending == "error":
        send("error", error={"type": "api_error", "message": ERROR_MESSAGE})
    elif turn.ending != "truncated":
        reason = "end_turn" if turn.ending == "stop" else "max_tokens"
        send("message_delta", delta={"stop_reason": reason, "stop_sequence": None},
             usage={"output_tokens": 20})
        send("message_stop")
    return b"".join(frames)


# -- Responses ---------------------------------------------------------------------------

def _reasoning_item(thought: Thought) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": thought.id, "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "".join(p)} for p in thought.pieces],
    }
    if thought.encrypted is not None:
        item["encrypted_content"] = thought.encrypted
    return item


def render_responses(turn: ThinkingTurn) -> bytes:
    frames: list[bytes] = []
    output: list[dict[str, Any]] = []

    def send(kind: str, **fields: Any) -> None:
        frames.append(encode_responses_event(
            {"type": kind, **fields, "sequence_number": len(frames)}))

    def response(status: str, **fields: Any) -> dict[str, Any]:
        return {"id": turn.id, "object": "response", "created_at": 1, "status": status,
                "model": turn.model, "output": list(output), **fields}

    send("response.created", response=response("in_progress"))
    for index, item in enumerate(turn.items):
        cut = index == len(turn.items) - 1 and turn.ending in CUT
        if isinstance(item, Thought):
            added: dict[str, Any] = {"id": item.id, "type": "reasoning", "summary": []}
            if item.encrypted is not None:  # "may be incomplete" at output_item.added
                added["encrypted_content"] = item.encrypted[: len(item.encrypted) // 2]
            send("response.output_item.added", output_index=index, item=added)
            for number, piece in enumerate(item.pieces):
                where = {"item_id": item.id, "output_index": index, "summary_index": number}
                send("response.reasoning_summary_part.added", **where,
                     part={"type": "summary_text", "text": ""})
                for delta in piece:
                    send("response.reasoning_summary_text.delta", **where, delta=delta)
                if not cut:
                    part = {"type": "summary_text", "text": "".join(piece)}
                    send("response.reasoning_summary_text.done", **where, text=part["text"])
                    send("response.reasoning_summary_part.done", **where, part=part)
            final = _reasoning_item(item)
        else:
            message_id = f"msg_{index:04}"
            send("response.output_item.added", output_index=index, item={
                "id": message_id, "type": "message", "role": "assistant",
                "status": "in_progress", "content": []})
            where = {"item_id": message_id, "output_index": index, "content_index": 0}
            send("response.content_part.added", **where,
                 part={"type": "output_text", "text": "", "annotations": []})
            for delta in item:
                send("response.output_text.delta", **where, delta=delta)
            text = "".join(item)
            part = {"type": "output_text", "text": text, "annotations": []}
            if not cut:
                send("response.output_text.done", **where, text=text)
                send("response.content_part.done", **where, part=part)
            final = {"id": message_id, "type": "message", "role": "assistant",
                     "status": "completed", "content": [part]}
        if cut:
            break
        send("response.output_item.done", output_index=index, item=final)
        output.append(final)
    if turn.ending == "error":
        send("error", code="server_error", message=ERROR_MESSAGE, param=None)
        send("response.failed", response=response(
            "failed", error={"code": "server_error", "message": ERROR_MESSAGE}))
    elif turn.ending == "length":
        send("response.incomplete", response=response(
            "incomplete", incomplete_details={"reason": "max_output_tokens"}))
    elif turn.ending == "stop":
        send("response.completed", response=response("completed"))
    return b"".join(frames)


# -- Chat Completions --------------------------------------------------------------------

def _detail(thought: Thought, index: int) -> dict[str, Any]:
    """The OpenRouter reasoning detail a Chat run is sent with, merged."""
    detail: dict[str, Any] = {"type": "reasoning.text", "text": thought.text,
                              "format": OPENROUTER_FORMAT, "index": index}
    if thought.signature is not None:
        detail["signature"] = thought.signature
    return detail


def render_chat(turn: ThinkingTurn) -> bytes:
    base = {"id": turn.id, "object": "chat.completion.chunk", "created": 1, "model": turn.model}

    def chunk(delta: dict[str, Any], **choice: Any) -> bytes:
        return encode_chat_event({**base, "choices": [{"index": 0, "delta": delta, **choice}]})

    out = [chunk({"role": "assistant"})]
    runs = itertools.count()  # each run's reasoning detail is the next of the message
    for item in turn.items:
        if not isinstance(item, Thought):
            out += [chunk({"content": delta}) for delta in item]
            continue
        index = next(runs)
        for piece in item.pieces:
            for delta in piece:
                if turn.openrouter:
                    detail = {"type": "reasoning.text", "text": delta,
                              "format": OPENROUTER_FORMAT, "index": index}
                    out.append(chunk({"content": "", "reasoning": delta,
                                      "reasoning_details": [detail]}))
                else:
                    out.append(chunk({"reasoning_content": delta}))
        if turn.openrouter and item.signature is not None:
            detail = {"type": "reasoning.text", "signature": item.signature,
                      "format": OPENROUTER_FORMAT, "index": index}
            out.append(chunk({"content": "", "reasoning": None, "reasoning_details": [detail]}))
    if turn.ending == "error":
        out.append(encode_chat_event({"error": {"message": ERROR_MESSAGE, "type": "server_error",
                                                "code": "server_error"}}))
    elif turn.ending != "truncated":
        out.append(chunk({}, finish_reason="stop" if turn.ending == "stop" else "length"))
        out.append(encode_chat_event(StreamEnd(Outcome.COMPLETED)))
    return b"".join(out)


RENDERERS: dict[str, Callable[[ThinkingTurn], bytes]] = {
    "chat": render_chat,
    "responses": render_responses,
    "messages": render_messages,
}


def render(turn: ThinkingTurn) -> bytes:
    """``turn`` as its lane's wire bytes."""
    return RENDERERS[turn.lane](turn)
