"""One assistant turn, written in each lane's wire format (test helper for tests/parts).

:class:`TurnSpec` says what a turn holds (reasoning, text, tool calls with JSON
arguments, usage, how it ends); :func:`render` writes it as a Chat
Completions, Responses, Messages or Gemini stream, as payload dicts encoded by
each lane's own frame encoder. :func:`turn_specs` is the hypothesis strategy;
:func:`read` reads a lane's bytes back as parts, in the reads it is given.

Endings: ``stop``, ``length`` and ``tool_calls`` finish the turn normally
(``tool_calls`` only when it has calls); ``error`` and ``truncated`` leave the
last thing the turn was writing open, then the stream fails or simply stops.
Gemini sends a call whole, so there a call being written when the turn is cut
was never sent at all.

:data:`LANES` are the formats whose tool calls stream in fragments (one turn
in each gives the very same parts); :data:`ALL_LANES` adds Gemini.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from sse_engine import (
    ChatCompletionsLane,
    GeminiLane,
    MessagesLane,
    Outcome,
    ResponsesLane,
    StreamEnd,
    encode_chat_event,
    encode_gemini_event,
    encode_messages_event,
    encode_responses_event,
)
from sse_engine.parts import Part, PartStream

ENDINGS = ("stop", "length", "tool_calls", "error", "truncated")
ERROR_MESSAGE = "the upstream model failed"


@dataclass(frozen=True)
class CallSpec:
    id: str
    name: str
    fragments: tuple[str, ...]  # the JSON arguments, cut into fragments

    @property
    def arguments(self) -> str:
        return "".join(self.fragments)


@dataclass(frozen=True)
class UsageSpec:
    input: int  # the whole prompt, cached tokens included
    output: int
    cached: int
    reasoning: int


@dataclass(frozen=True)
class TurnSpec:
    reasoning: tuple[str, ...] = ()
    text: tuple[str, ...] = ()
    calls: tuple[CallSpec, ...] = ()
    usage: UsageSpec | None = None
    ending: str = "stop"
    id: str = "turn_0001"
    model: str = "model-x"
    extra: dict[str, Any] = field(default_factory=dict)


# -- the strategy ------------------------------------------------------------------------

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                 max_size=3),
    max_leaves=6,
)


@st.composite
def _fragments(draw: st.DrawFn, text: str) -> tuple[str, ...]:
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=4)))
    bounds = [0, *(c for c in cuts if c < len(text)), len(text)]
    return tuple(text[a:b] for a, b in itertools.pairwise(bounds) if b > a)


@st.composite
def _call(draw: st.DrawFn, number: int) -> CallSpec:
    arguments = json.dumps(draw(st.dictionaries(st.text(max_size=6), _json_values, max_size=3)),
                           ensure_ascii=False)
    return CallSpec(f"call_{number}", draw(st.sampled_from(["get_weather", "write_file"])),
                    draw(_fragments(arguments)))


@st.composite
def turn_specs(draw: st.DrawFn) -> TurnSpec:
    """A turn: reasoning, text, up to two tool calls, usage, and one of :data:`ENDINGS`."""
    calls = tuple(draw(_call(n)) for n in range(draw(st.integers(0, 2))))
    endings = [e for e in ENDINGS if e != "tool_calls" or calls]
    usage = draw(st.none() | st.builds(
        lambda i, o, c, r: UsageSpec(i, o, min(c, i), min(r, o)),
        st.integers(1, 10**5), st.integers(1, 10**5), st.integers(0, 10**4), st.integers(0, 10**4),
    ))
    return TurnSpec(
        reasoning=tuple(draw(st.lists(_text, max_size=3))),
        text=tuple(draw(st.lists(_text, max_size=4))),
        calls=calls,
        usage=usage,
        ending=draw(st.sampled_from(endings)),
    )


# -- Chat Completions ---------------------------------------------------------------------

CHAT_FINISH = {"stop": "stop", "length": "length", "tool_calls": "tool_calls"}


def render_chat(spec: TurnSpec) -> bytes:
    base = {"id": spec.id, "object": "chat.completion.chunk", "created": 1, "model": spec.model}

    def chunk(delta: dict[str, Any], **choice: Any) -> bytes:
        return encode_chat_event({**base, "choices": [{"index": 0, "delta": delta, **choice}]})

    out = [chunk({"role": "assistant"})]
    out += [chunk({"reasoning_content": piece}) for piece in spec.reasoning]
    out += [chunk({"content": piece}) for piece in spec.text]
    for number, call in enumerate(spec.calls):
        out.append(chunk({"tool_calls": [{"index": number, "id": call.id, "type": "function",
                                          "function": {"name": call.name, "arguments": ""}}]}))
        out += [chunk({"tool_calls": [{"index": number, "function": {"arguments": piece}}]})
                for piece in call.fragments]
    if spec.ending == "error":
        out.append(encode_chat_event({"error": {"message": ERROR_MESSAGE, "type": "server_error",
                                                "code": "server_error"}}))
    elif spec.ending != "truncated":
        out.append(chunk({}, finish_reason=CHAT_FINISH[spec.ending]))
        if spec.usage is not None:
            u = spec.usage
            out.append(encode_chat_event({**base, "choices": [], "usage": {
                "prompt_tokens": u.input, "completion_tokens": u.output,
                "total_tokens": u.input + u.output,
                "prompt_tokens_details": {"cached_tokens": u.cached},
                "completion_tokens_details": {"reasoning_tokens": u.reasoning}}}))
        out.append(encode_chat_event(StreamEnd(Outcome.COMPLETED)))
    return b"".join(out)


# -- Responses ---------------------------------------------------------------------------

class _Responses:
    """Numbers the events and keeps the output items, as a Responses server does."""

    def __init__(self, spec: TurnSpec) -> None:
        self.spec = spec
        self.frames: list[bytes] = []
        self.output: list[dict[str, Any]] = []

    def send(self, kind: str, **fields: Any) -> None:
        payload = {"type": kind, **fields, "sequence_number": len(self.frames)}
        self.frames.append(encode_responses_event(payload))

    def response(self, status: str, **fields: Any) -> dict[str, Any]:
        return {"id": self.spec.id, "object": "response", "created_at": 1, "status": status,
                "model": self.spec.model, "output": list(self.output), **fields}

    def item(self, item: dict[str, Any], body: Callable[[int], dict[str, Any] | None]) -> bool:
        """Open an item, stream its body; close it unless the body says the turn stops here."""
        index = len(self.output)
        self.send("response.output_item.added", output_index=index, item=item)
        final = body(index)
        if final is None:
            return False
        self.send("response.output_item.done", output_index=index, item=final)
        self.output.append(final)
        return True


def render_responses(spec: TurnSpec) -> bytes:
    r = _Responses(spec)
    r.send("response.created", response=r.response("in_progress"))
    cut = spec.ending in ("error", "truncated")
    # The item the turn was writing when it was cut: the last one.
    kinds = (["reasoning"] if spec.reasoning else []) + (["message"] if spec.text else []) \
        + [f"call{n}" for n in range(len(spec.calls))]
    last = kinds[-1] if kinds else None

    def reasoning(index: int) -> dict[str, Any] | None:
        text = "".join(spec.reasoning)
        part = {"type": "summary_text", "text": text}
        r.send("response.reasoning_summary_part.added", item_id="rs_1", output_index=index,
               summary_index=0, part={"type": "summary_text", "text": ""})
        for piece in spec.reasoning:
            r.send("response.reasoning_summary_text.delta", item_id="rs_1", output_index=index,
                   summary_index=0, delta=piece)
        if cut and last == "reasoning":
            return None
        r.send("response.reasoning_summary_text.done", item_id="rs_1", output_index=index,
               summary_index=0, text=text)
        r.send("response.reasoning_summary_part.done", item_id="rs_1", output_index=index,
               summary_index=0, part=part)
        return {"id": "rs_1", "type": "reasoning", "summary": [part]}

    def message(index: int) -> dict[str, Any] | None:
        text = "".join(spec.text)
        where = {"item_id": "msg_1", "output_index": index, "content_index": 0}
        r.send("response.content_part.added", **where,
               part={"type": "output_text", "text": "", "annotations": []})
        for piece in spec.text:
            r.send("response.output_text.delta", **where, delta=piece)
        if cut and last == "message":
            return None
        part = {"type": "output_text", "text": text, "annotations": []}
        r.send("response.output_text.done", **where, text=text)
        r.send("response.content_part.done", **where, part=part)
        return {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
                "content": [part]}

    def call(number: int) -> Callable[[int], dict[str, Any] | None]:
        c = spec.calls[number]
        item = {"id": f"fc_{number}", "type": "function_call", "call_id": c.id, "name": c.name}

        def body(index: int) -> dict[str, Any] | None:
            for piece in c.fragments:
                r.send("response.function_call_arguments.delta", item_id=item["id"],
                       output_index=index, delta=piece)
            if cut and last == f"call{number}":
                return None
            r.send("response.function_call_arguments.done", item_id=item["id"],
                   output_index=index, arguments=c.arguments)
            return {**item, "arguments": c.arguments, "status": "completed"}

        return body

    bodies = {"reasoning": reasoning, "message": message,
              **{f"call{n}": call(n) for n in range(len(spec.calls))}}
    for kind in kinds:
        opened: dict[str, Any] = {"id": "rs_1", "type": "reasoning", "summary": []}
        if kind == "message":
            opened = {"id": "msg_1", "type": "message", "role": "assistant",
                      "status": "in_progress", "content": []}
        elif kind.startswith("call"):
            c = spec.calls[int(kind[4:])]
            opened = {"id": f"fc_{kind[4:]}", "type": "function_call", "call_id": c.id,
                      "name": c.name, "arguments": ""}
        if not r.item(opened, bodies[kind]):
            break
    usage = None
    if spec.usage is not None:
        u = spec.usage
        usage = {"input_tokens": u.input, "output_tokens": u.output,
                 "total_tokens": u.input + u.output,
                 "input_tokens_details": {"cached_tokens": u.cached},
                 "output_tokens_details": {"reasoning_tokens": u.reasoning}}
    if spec.ending == "error":
        r.send("error", code="server_error", message=ERROR_MESSAGE, param=None)
        r.send("response.failed", response=r.response(
            "failed", error={"code": "server_error", "message": ERROR_MESSAGE}))
    elif spec.ending == "length":
        r.send("response.incomplete", response=r.response(
            "incomplete", incomplete_details={"reason": "max_output_tokens"}, usage=usage))
    elif spec.ending != "truncated":
        r.send("response.completed", response=r.response("completed", usage=usage))
    return b"".join(r.frames)


# -- Messages ----------------------------------------------------------------------------

MESSAGES_STOP = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}


def render_messages(spec: TurnSpec) -> bytes:
    frames: list[bytes] = []

    def send(kind: str, **fields: Any) -> None:
        frames.append(encode_messages_event({"type": kind, **fields}))

    u = spec.usage
    start_usage = {"input_tokens": 0, "output_tokens": 0} if u is None else {
        "input_tokens": u.input - u.cached, "cache_read_input_tokens": u.cached,
        "cache_creation_input_tokens": 0, "output_tokens": 1}
    send("message_start", message={"id": spec.id, "type": "message", "role": "assistant",
                                   "model": spec.model, "content": [], "stop_reason": None,
                                   "stop_sequence": None, "usage": start_usage})
    cut = spec.ending in ("error", "truncated")
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    if spec.reasoning:
        blocks.append(({"type": "thinking", "thinking": "", "signature": ""},
                       [{"type": "thinking_delta", "thinking": p} for p in spec.reasoning]
                       + [{"type": "signature_delta", "signature": "sig"}]))
    if spec.text:
        blocks.append(({"type": "text", "text": ""},
                       [{"type": "text_delta", "text": p} for p in spec.text]))
    for c in spec.calls:
        blocks.append(({"type": "tool_use", "id": c.id, "name": c.name, "input": {}},
                       [{"type": "input_json_delta", "partial_json": p} for p in c.fragments]))
    for index, (block, deltas) in enumerate(blocks):
        send("content_block_start", index=index, content_block=block)
        for delta in deltas:
            send("content_block_delta", index=index, delta=delta)
        if not (cut and index == len(blocks) - 1):
            send("content_block_stop", index=index)
    if spec.ending == "error":
        send("error", error={"type": "server_error", "message": ERROR_MESSAGE})
    elif spec.ending != "truncated":
        usage = {"output_tokens": 0 if u is None else u.output}
        if u is not None:
            usage["output_tokens_details"] = {"thinking_tokens": u.reasoning}  # type: ignore[assignment]
        send("message_delta", delta={"stop_reason": MESSAGES_STOP[spec.ending],
                                     "stop_sequence": None}, usage=usage)
        send("message_stop")
    return b"".join(frames)


# -- Gemini -----------------------------------------------------------------------------

GEMINI_FINISH = {"stop": "STOP", "length": "MAX_TOKENS", "tool_calls": "STOP"}


def render_gemini(spec: TurnSpec) -> bytes:
    def chunk(parts: list[dict[str, Any]], **more: Any) -> bytes:
        candidate = {"content": {"parts": parts, "role": "model"}} if parts else {}
        return encode_gemini_event({"candidates": [{**candidate, **more}],
                                    "modelVersion": spec.model, "responseId": spec.id})

    out = [chunk([{"text": piece, "thought": True}]) for piece in spec.reasoning]
    out += [chunk([{"text": piece}]) for piece in spec.text]
    cut = spec.ending in ("error", "truncated")
    calls = spec.calls[:-1] if cut else spec.calls  # the last was being written: never sent
    if calls:
        out.append(chunk([{"functionCall": {"name": c.name, "args": json.loads(c.arguments),
                                            "id": c.id}} for c in calls]))
    if spec.ending == "error":
        out.append(encode_gemini_event(
            {"error": {"code": 500, "message": ERROR_MESSAGE, "status": "INTERNAL"}}))
    elif spec.ending != "truncated":
        last = chunk([], finishReason=GEMINI_FINISH[spec.ending], index=0)
        if spec.usage is not None:
            u = spec.usage
            payload = json.loads(last.decode().removeprefix("data: "))
            payload["usageMetadata"] = {
                "promptTokenCount": u.input, "candidatesTokenCount": u.output - u.reasoning,
                "totalTokenCount": u.input + u.output, "cachedContentTokenCount": u.cached,
                "thoughtsTokenCount": u.reasoning}
            last = encode_gemini_event(payload)
        out.append(last)
    return b"".join(out)


RENDERERS: dict[str, Callable[[TurnSpec], bytes]] = {
    "chat": render_chat,
    "responses": render_responses,
    "messages": render_messages,
    "gemini": render_gemini,
}


def render(lane: str, spec: TurnSpec) -> bytes:
    """``spec`` as ``lane``'s wire bytes."""
    return RENDERERS[lane](spec)


LANES = {"chat": ChatCompletionsLane, "responses": ResponsesLane, "messages": MessagesLane}
ALL_LANES = {**LANES, "gemini": GeminiLane}


def read(lane: str, data: bytes, cuts: list[int] | None = None) -> tuple[list[Part], PartStream]:
    """``data`` through ``PartStream`` over ``lane``, cut at ``cuts``."""
    stream = PartStream(ALL_LANES[lane]())
    parts: list[Part] = []
    bounds = [0, *sorted(c for c in cuts or () if 0 < c < len(data)), len(data)]
    for a, b in itertools.pairwise(bounds):
        parts += stream.feed(data[a:b])
    parts += stream.close()
    return parts, stream
