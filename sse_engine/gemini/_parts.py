"""Gemini events as parts.

Every part carries its candidate (``candidateCount > 1``). Thought parts are
reasoning: a run of them is one block of reasoning, which ends when the
candidate goes on to anything else (text, a function call, another part) or
finishes. What Gemini needs back goes in the ``raw`` of what carries it, not
in ``ReasoningBlock.signature``, which the Messages emitter writes as an
Anthropic signature (a Gemini signature is valid only for Gemini):

- a block of reasoning's ``raw`` is its thought part as the merged response
  has it (``{"text", "thought": true, "thoughtSignature"}``);
- a text part's ``thoughtSignature`` (the signed thinking of a model that did
  not show it) is a block of reasoning without text, just before that text,
  whose ``raw`` is ``{"text": "", "thoughtSignature": ...}``;
- a function call's ``ToolCall.raw`` is its part as sent, signature included.

A function call comes whole: ``ToolCallStart``, one ``ToolCallDelta`` with
its arguments as JSON text, ``ToolCallEnd`` with the arguments object. Its id
is the call's own ``id``, or, since the Gemini API rarely sends one, a stable
id made from the response id and the call's place (``call_<responseId>_<n>``).
The sources a candidate cites (``groundingMetadata.groundingChunks``,
``citationMetadata.citationSources``) are ``Citation`` parts, each source
once per candidate however many chunks repeat it.
A prompt the API refused (``promptFeedback.blockReason``, no candidate)
finishes as ``content_filter`` with the block reason as ``raw_reason``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from sse_engine._lane import StreamEnd
from sse_engine._tally import Tally
from sse_engine.gemini._events import (
    CandidateField,
    CandidateFinish,
    FunctionCallPart,
    GeminiChunk,
    OtherPart,
    TextPart,
    ThoughtPart,
    UsageMetadata,
)
from sse_engine.gemini._lane import GeminiLane
from sse_engine.gemini._wire import (
    CITATION_FIELDS,
    FINISH_REASONS,
    SIGNATURE_KEY,
    THOUGHT_KEY,
    call_id,
    citations_in,
    usage_counts,
)
from sse_engine.parts import BASE_HANDLERS, Translator

__all__ = ["GeminiParts"]


class _Thinking:
    """A candidate's open block of reasoning: its text, and the latest signature sent."""

    __slots__ = ("pieces", "signature")

    def __init__(self, lean: bool) -> None:
        self.pieces: list[str] = Tally() if lean else []
        self.signature: str | None = None


class GeminiParts(Translator):
    """The Gemini lane's events as parts."""

    REASONS = FINISH_REASONS
    lane: GeminiLane

    def _setup(self) -> None:
        # This stream's own table, changed in place (see ChatParts): the chunk row
        # goes once the response's id and model are known.
        self.handlers = dict(self.HANDLERS)
        self._response_id: str | None = None
        # Each candidate's open block of reasoning.
        self._thinking: dict[int, _Thinking] = {}
        # The sources cited so far, by candidate and source (a chunk may repeat them).
        self._cited: set[tuple[int, str]] = set()

    def raw_reasons(self) -> Mapping[int, str | None]:
        snap = self.lane.snapshot
        if not snap.candidates:
            return {0: snap.block_reason}
        return {index: c.finish_reason for index, c in snap.candidates.items()}

    def on_end(self, event: StreamEnd) -> None:
        snap = self.lane.snapshot
        block = snap.block_reason
        if block is not None and not snap.candidates:
            # The prompt was refused: a content filter, whatever the word (known or not).
            # StreamEnd is the lane's last event: nothing follows for a Finished to skip.
            self.builder.finish(event.outcome, event.error, {0: block}, {block: "content_filter"})
            return
        super().on_end(event)

    def _chunk(self, event: GeminiChunk) -> None:
        raw = event.raw
        ident, model = raw.get("responseId"), raw.get("modelVersion")
        ident = ident if type(ident) is str else None
        self._response_id = self._response_id or ident
        self.builder.identify(ident, model if type(model) is str else None)
        if self._response_id is not None and type(model) is str:
            self.handlers.pop(GeminiChunk, None)  # every chunk after this needs no look
            self.sink = self.text_sink()

    def text_sink(self) -> Callable[..., None] | None:
        # Once the chunks' own events have nothing more to say (the id and model are
        # known), the lane gives its plain parts and its usage to _sink, and makes no
        # chunk events (see GeminiLane._on_event).
        return None if GeminiChunk in self.handlers else GeminiParts._sink

    def _sink(self, kind: str, value: Any, candidate: int) -> None:
        """What _text, _thought and _usage do with their events' fields (``kind``:
        ``text``, ``thought`` or ``usage``; a part the lane gives here has no signature)."""
        if kind == "text":
            if candidate in self._thinking:
                self._end_thinking(candidate)
            self.builder.text(value, candidate)
        elif kind == "thought":
            self._think(candidate, value, None)
        else:
            self.builder.usage_counts(usage_counts, value)

    def _text(self, event: TextPart) -> None:
        candidate = event.candidate
        if candidate in self._thinking:
            self._end_thinking(candidate)
        signature = event.signature
        if signature is not None:
            # The signed, hidden thinking behind this text: a block of its own, no text.
            self.builder.reasoning_start(candidate)
            self.builder.reasoning_end(candidate, raw={"text": "", SIGNATURE_KEY: signature})
        self.builder.text(event.text, candidate)

    def _thought(self, event: ThoughtPart) -> None:
        self._think(event.candidate, event.text, event.signature)

    def _think(self, candidate: int, text: str, signature: str | None) -> None:
        thinking = self._thinking.get(candidate)
        if thinking is None:
            thinking = self._thinking[candidate] = _Thinking(self.builder.lean)
            self.builder.reasoning_start(candidate)
        if text:
            thinking.pieces.append(text)
            self.builder.reasoning(text, candidate)
        if signature is not None:
            thinking.signature = signature

    def _end_thinking(self, candidate: int) -> None:
        thinking = self._thinking.pop(candidate)
        raw: dict[str, Any] = {"text": "".join(thinking.pieces), THOUGHT_KEY: True}
        if thinking.signature is not None:
            raw[SIGNATURE_KEY] = thinking.signature
        self.builder.reasoning_end(candidate, raw=raw)

    def _call(self, event: FunctionCallPart) -> None:
        candidate = event.candidate
        if candidate in self._thinking:
            self._end_thinking(candidate)
        builder = self.builder
        ident = event.id or call_id(self._response_id, candidate, event.index)
        call, index = builder.call_start(ident, event.name, "function", candidate, raw=event.part)
        if event.signature is not None:
            # Named where it cannot go (a request to another format), as a body's extra field.
            call.extra = {SIGNATURE_KEY: event.signature}
        # One fragment, its compact JSON text, written only when read (a large input costs
        # as much to write as the lane paid to read it).
        builder.call_whole(call, event.args, index, candidate)

    def _other(self, event: OtherPart | CandidateFinish) -> None:
        if event.candidate in self._thinking:
            self._end_thinking(event.candidate)

    def _field(self, event: CandidateField) -> None:
        if event.key not in CITATION_FIELDS:
            return
        candidate = event.candidate
        for kind, url, title, raw in citations_in(event.key, event.value):
            key = (candidate, json.dumps(raw, sort_keys=True, ensure_ascii=False))
            if key not in self._cited:
                self._cited.add(key)
                self.builder.citation(kind, raw, url=url, title=title, choice=candidate)

    def _usage(self, event: UsageMetadata) -> None:
        # The counts only: the Usage is made if a part or turn is read (usage_counts).
        self._sink("usage", event.usage, 0)


GeminiParts.HANDLERS = {
    **BASE_HANDLERS,
    GeminiChunk: GeminiParts._chunk,
    TextPart: GeminiParts._text,
    ThoughtPart: GeminiParts._thought,
    FunctionCallPart: GeminiParts._call,
    OtherPart: GeminiParts._other,
    CandidateFinish: GeminiParts._other,
    CandidateField: GeminiParts._field,
    UsageMetadata: GeminiParts._usage,
    StreamEnd: GeminiParts.on_end,
}
