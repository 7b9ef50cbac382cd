"""The Gemini lane: ``models/{model}:streamGenerateContent?alt=sse``, each event a whole
``GenerateContentResponse``.

Text and thought parts, function calls (each complete in one part, with its
``thoughtSignature``), ``usageMetadata``, each candidate's ``finishReason``,
``promptFeedback``, and Google's ``{"error": {"code", "message", "status"}}``
frame. See ``docs/gemini.md`` for the events, the outcome rules and the
warning codes.

:data:`GeminiEvent` is the union of the lane's ``@final`` event classes and
``StreamEnd``: what ``GeminiLane.feed()`` returns.
"""

from __future__ import annotations

from sse_engine._formats import WireFormat, register_format
from sse_engine._public import publish as _publish
from sse_engine.gemini._emit import GeminiEmitter
from sse_engine.gemini._events import (
    CandidateEvent,
    CandidateField,
    CandidateFinish,
    FunctionCallPart,
    GeminiChunk,
    GeminiError,
    GeminiEvent,
    GeminiUnknownFrame,
    OtherPart,
    PromptFeedback,
    TextPart,
    ThoughtPart,
    UsageMetadata,
)
from sse_engine.gemini._frames import encode_gemini_event
from sse_engine.gemini._lane import GeminiLane
from sse_engine.gemini._parts import GeminiParts
from sse_engine.gemini._request import CODEC
from sse_engine.gemini._snapshot import CandidateSnapshot, GeminiSnapshot
from sse_engine.gemini._wire import (
    BLOCK_REASONS,
    COMPLETED_FINISH_REASONS,
    ENDPOINT,
    FAILED_FINISH_REASONS,
    INCOMPLETE_FINISH_REASONS,
    PATHS,
    recognize,
    recognize_error,
)

__all__ = [
    "BLOCK_REASONS",
    "COMPLETED_FINISH_REASONS",
    "FAILED_FINISH_REASONS",
    "INCOMPLETE_FINISH_REASONS",
    "CandidateEvent",
    "CandidateField",
    "CandidateFinish",
    "CandidateSnapshot",
    "FunctionCallPart",
    "GeminiChunk",
    "GeminiError",
    "GeminiEvent",
    "GeminiLane",
    "GeminiSnapshot",
    "GeminiUnknownFrame",
    "OtherPart",
    "PromptFeedback",
    "TextPart",
    "ThoughtPart",
    "UsageMetadata",
    "encode_gemini_event",
]

register_format(
    WireFormat(
        name="gemini",
        title="Gemini",
        lane=GeminiLane,
        parts=GeminiParts,
        emitter=GeminiEmitter,
        encode=encode_gemini_event,
        recognize=recognize,
        recognize_error=recognize_error,
        paths=PATHS,
        request=CODEC,
        endpoint=ENDPOINT,
    )
)

_publish(__name__)  # help() and pickles show this module, not the private ones
