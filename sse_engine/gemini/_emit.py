"""Parts to Gemini: ``data: {GenerateContentResponse}`` chunks, as the API streams them.

Every chunk is a whole response: ``candidates`` (one per relayed choice, each
with its ``index``), ``modelVersion`` and ``responseId``. Text is a text part
per delta, reasoning a thought part (``"thought": true``) per delta (its
blocks run together, a blank line between them, as Gemini's consecutive
thought parts do), a refusal text (Gemini has no refusal field; its finish
reason says it), a tool call one ``functionCall`` part, whole, in the chunk
of its end (the arguments object; a plain-text input as ``{"input": text}``).
What Gemini needs back comes back only from a Gemini source: a block of
reasoning's ``thoughtSignature`` is written on an empty part of its kind at
its end (the reader joins it to the part before), a call's on its part, and
a call's ``id`` is written unless it was one the parts layer made up for a
Gemini call that had none. The last chunk holds each candidate's
``finishReason`` and the ``usageMetadata``; a failed or truncated source
ends with Google's in-stream error frame instead, never a finish.
"""

from __future__ import annotations

import json
from typing import Any, Final

from sse_engine._outcome import Outcome
from sse_engine.gemini._frames import dumps, frame
from sse_engine.gemini._wire import (
    CALL_KEY,
    COMPLETED_FINISH_REASONS,
    FAILED_FINISH_REASONS,
    FINISH_REASONS,
    INCOMPLETE_FINISH_REASONS,
    SIGNATURE_KEY,
    THOUGHT_KEY,
    WIRE_REASONS,
    error_body,
    signature_of,
    usage_to_wire,
)
from sse_engine.parts import Finish, FinishReason, ReasoningBlock
from sse_engine.relay import Block, Emitter, failure_of, fill, template

__all__ = ["GeminiEmitter"]

#: Every finish reason the API sends (a relayed Gemini source keeps its own word).
_KNOWN: Final = COMPLETED_FINISH_REASONS | INCOMPLETE_FINISH_REASONS | FAILED_FINISH_REASONS


def finish_reason(reason: FinishReason, raw: str | None, outcome: Outcome) -> str:
    """What Gemini says for a candidate that ended for ``reason`` (``raw``: the source's word)."""
    if raw in _KNOWN and FINISH_REASONS.get(raw, "other") == reason:
        return raw
    return WIRE_REASONS.get(reason) or ("STOP" if outcome is Outcome.COMPLETED else "OTHER")


def _arguments(block: Block) -> dict[str, Any]:
    """A relayed call's arguments object (Gemini's ``args`` is always an object)."""
    final = block.final
    if block.plain:
        return {"input": final}
    if not final.strip():
        return {}
    try:
        value = json.loads(final)
    except ValueError:
        return {"input": final}
    return value if type(value) is dict else {"input": value}


class GeminiEmitter(Emitter):
    """Writes a Gemini stream (every choice of the source, as candidates)."""

    id_prefix = ""
    many_choices = True
    opens_on_failure = False  # a failure before any content is just the error frame
    reasoning_blocks = False  # consecutive thought parts read as one: the blank line is text
    request_id_header = "x-request-id"  # Google names none; a gateway's own
    # google-genai reads a line that is not `data: ...` as JSON and raises on a comment
    # (`: keepalive`); a blank line is skipped by it and by every SSE reader.
    keepalive = b"\r\n"
    error_body = staticmethod(error_body)

    def _response(self, candidates: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return {"candidates": candidates, **extra, "modelVersion": self.model,
                "responseId": self.id}

    def _chunk(self, choice: int, part: dict[str, Any], out: list[bytes]) -> None:
        content = {"parts": [part], "role": "model"}
        out.append(frame(dumps(self._response([{"content": content, "index": choice}]))))

    def open_block(self, block: Block, out: list[bytes]) -> None:
        if block.kind == "tool":
            return  # written whole when it ends
        thought = block.kind == "reasoning"

        def write(text: str, number: str) -> bytes:
            part: dict[str, Any] = {"text": text, THOUGHT_KEY: True} if thought else {"text": text}
            content = {"parts": [part], "role": "model"}
            return frame(dumps(self._response([{"content": content, "index": block.choice}])))

        block.template = template(write)
        block.fills = True  # a delta is the template filled

    def block_delta(self, block: Block, text: str, out: list[bytes]) -> None:
        if block.kind != "tool":
            out.append(fill(block.template, text))

    def close_block(self, block: Block, out: list[bytes]) -> None:
        if block.kind == "tool":
            self._call(block, out)
            return
        reasoning = block.reasoning
        signature = None if reasoning is None else signature_of(reasoning.raw)
        if reasoning is not None and signature is not None:
            part: dict[str, Any] = {"text": ""}
            if reasoning.raw.get(THOUGHT_KEY) is True:
                part[THOUGHT_KEY] = True
            part[SIGNATURE_KEY] = signature
            self._chunk(block.choice, part, out)

    def _call(self, block: Block, out: list[bytes]) -> None:
        call: dict[str, Any] = {"name": block.name, "args": _arguments(block)}
        raw = block.raw
        source = raw.get(CALL_KEY) if type(raw) is dict else None
        if type(source) is dict:  # a Gemini call: its own id, if it had one
            ident = source.get("id")
            if type(ident) is str and ident:
                call["id"] = ident
        elif block.id:
            call["id"] = block.id
        part: dict[str, Any] = {CALL_KEY: call}
        signature = signature_of(raw)
        if signature is not None:
            part[SIGNATURE_KEY] = signature
        self._chunk(block.choice, part, out)

    def keeps(self, reasoning: ReasoningBlock) -> bool:
        return signature_of(reasoning.raw) is not None

    def finish(self, finish: Finish, out: list[bytes]) -> None:
        failure = failure_of(finish)
        if failure is not None:
            self.flush(False, out)
            out.append(frame(dumps(error_body(failure))))
            return
        self.flush(True, out)
        turns = {turn.choice: turn for turn in self.source.turns}
        candidates = []
        for choice in self.choices or (0,):
            turn = turns.get(choice)
            reason = (turn.finish_reason if turn is not None else None) or finish.reason
            raw = turn.raw_finish_reason if turn is not None else finish.raw_reason
            word = finish_reason(reason, raw, finish.outcome)
            candidates.append({"finishReason": word, "index": choice})
        extra = {} if self.usage is None else {"usageMetadata": usage_to_wire(self.usage)}
        out.append(frame(dumps(self._response(candidates, **extra))))
