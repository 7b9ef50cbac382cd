"""The typed events of the Gemini lane (re-exported by :mod:`sse_engine.gemini`).

Every event of a stream's chunk (a ``GenerateContentResponse``) comes after
that chunk's :class:`GeminiChunk` and carries the chunk as ``raw`` (excluded
from equality and repr), so an encoder can re-emit the frame. Per-candidate
events carry ``candidate``, the candidate's ``index`` (several candidates
come with ``candidateCount > 1``).

Every concrete class is ``@final``, and :data:`GeminiEvent` is their union
with ``StreamEnd``: what ``GeminiLane.feed()`` returns, so a type checker
knows every event a Gemini stream can bring (and that no other lane's can).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias, final

import attrs

from sse_engine._event_build import slot_builder
from sse_engine._lane_events import LaneEvent, StreamEnd
from sse_engine._outcome import StreamError

__all__ = [
    "CandidateEvent",
    "CandidateField",
    "CandidateFinish",
    "FunctionCallPart",
    "GeminiChunk",
    "GeminiError",
    "GeminiEvent",
    "GeminiUnknownFrame",
    "OtherPart",
    "PromptFeedback",
    "TextPart",
    "ThoughtPart",
    "UsageMetadata",
]


# -- whole frames -----------------------------------------------------------------------


@final
@attrs.frozen
class GeminiChunk(LaneEvent):
    """One ``GenerateContentResponse`` as decoded, emitted before the events it produces.

    For consumers that want the wire objects themselves (logging, proxying,
    re-encoding); a UI can ignore it.
    """

    raw: dict[str, Any]


@final
@attrs.frozen
class GeminiUnknownFrame(LaneEvent):
    """A frame that is no ``GenerateContentResponse``, passed through and not accumulated.

    A JSON value that is not an object, or an object with none of the
    response's keys; ``raw`` is it as decoded.
    """

    raw: Any


@final
@attrs.frozen
class GeminiError(LaneEvent):
    """An error frame inside the stream (``{"error": {"code", "message", "status"}}``).

    ``error.retryable`` says whether to send the request again (``RESOURCE_EXHAUSTED``,
    ``UNAVAILABLE``, ``INTERNAL``, ``DEADLINE_EXCEEDED``: yes). ``raw`` is the
    decoded payload, or the data text when an ``event: error`` frame's was no
    JSON. A ``StreamEnd`` with ``Outcome.FAILED`` follows at once.
    """

    error: StreamError
    raw: Any = attrs.field(eq=False, repr=False)


# -- what a chunk holds -----------------------------------------------------------------


@attrs.frozen
class _ChunkEvent(LaneEvent):
    """Base of the events a chunk's content produces; ``raw`` is that chunk."""

    raw: dict[str, Any] = attrs.field(eq=False, repr=False, kw_only=True)


@final
@attrs.frozen
class UsageMetadata(_ChunkEvent):
    """``usageMetadata`` arrived (most chunks carry it; the counts grow to the last).

    ``usage`` is the object as sent; the snapshot keeps the latest.
    """

    usage: dict[str, Any]


@final
@attrs.frozen
class PromptFeedback(_ChunkEvent):
    """``promptFeedback``: what the API thought of the prompt.

    ``block_reason`` is its ``blockReason`` when the prompt was refused (``SAFETY``,
    ``BLOCKLIST``, ``PROHIBITED_CONTENT``, ...): no candidate follows and the
    stream ends ``INCOMPLETE``. None when it was not.
    """

    feedback: dict[str, Any]
    block_reason: str | None


@attrs.frozen
class CandidateEvent(_ChunkEvent):
    """Base of the per-candidate events: ``candidate`` is the candidate's ``index``."""

    candidate: int


@final
@attrs.frozen
class TextPart(CandidateEvent):
    """A text part of the answer: print ``text`` now; it extends the candidate's text.

    ``signature`` is the part's ``thoughtSignature`` (the model's hidden thinking,
    signed: it goes back with the part on the next request), None when it has
    none. ``text`` is ``""`` only for a part that carries just a signature.
    """

    text: str
    signature: str | None = None


@final
@attrs.frozen
class ThoughtPart(CandidateEvent):
    """A thought part (``"thought": true``): the model's thinking, shown apart if at all.

    Sent when the request asked for thoughts (``includeThoughts``).
    ``signature`` as for :class:`TextPart`.
    """

    text: str
    signature: str | None = None


@final
@attrs.frozen
class FunctionCallPart(CandidateEvent):
    """A function call, complete in one part: run it now.

    ``index`` numbers the candidate's calls from 0. ``id`` is the call's own
    (None when the API gave none, as the Gemini API usually does: match the
    result by ``name`` then, or take the stable id the parts layer makes).
    ``args`` is its arguments object (``{}`` when it had none);
    ``signature`` the part's ``thoughtSignature``, which must go back with the
    call. ``part`` is the part as sent.
    """

    index: int
    id: str | None
    name: str
    args: dict[str, Any]
    signature: str | None
    part: dict[str, Any]


@final
@attrs.frozen
class OtherPart(CandidateEvent):
    """A part of another kind, passed through as sent: ``inlineData`` (an image),
    ``executableCode``, ``codeExecutionResult``, ``fileData``, and what the API adds.

    ``kind`` is its first key other than ``thought`` and ``thoughtSignature``;
    ``part`` the whole part. The snapshot keeps it in its place.
    """

    kind: str
    part: dict[str, Any]


@final
@attrs.frozen
class CandidateField(CandidateEvent):
    """A field of the candidate this lane has no event of its own for, as sent.

    ``safetyRatings``, ``citationMetadata``, ``groundingMetadata`` (search
    sources), ``avgLogprobs``, ``logprobsResult``, ``urlContextMetadata`` and
    what the API adds. The snapshot keeps the latest value of each.
    """

    key: str
    value: Any


@final
@attrs.frozen
class CandidateFinish(CandidateEvent):
    """The candidate finished: ``reason`` is its ``finishReason``.

    ``STOP`` is a normal end (with function calls too); ``MAX_TOKENS``, the
    filters (``SAFETY``, ``RECITATION``, ...) and the other limits cut the
    answer short; ``MALFORMED_FUNCTION_CALL`` and its kin are failures. The
    verdict comes when the stream ends (the API sends no end event of its own).
    """

    reason: str


#: Every event :class:`~sse_engine.GeminiLane` emits: what its ``feed()`` and
#: ``close()`` return. A union of ``@final`` classes, so ``mypy --strict
#: --warn-unreachable`` flags an ``isinstance`` against another lane's class,
#: and a ``match`` over it can be checked for exhaustiveness.
GeminiEvent: TypeAlias = (
    GeminiChunk
    | GeminiUnknownFrame
    | GeminiError
    | TextPart
    | ThoughtPart
    | FunctionCallPart
    | OtherPart
    | CandidateField
    | CandidateFinish
    | UsageMetadata
    | PromptFeedback
    | StreamEnd
)


# -- builders for the lane's hot path ---------------------------------------------------
# Each one is its class's constructor, made without the class call and attrs'
# __init__ (see sse_engine/_event_build.py): the lane builds three of these per
# chunk. tests/gemini/test_gemini_fast_path.py checks they equal the constructor's.

new_chunk: Callable[[dict[str, Any]], GeminiChunk] = slot_builder(GeminiChunk, "raw")
new_usage: Callable[[dict[str, Any], dict[str, Any]], UsageMetadata] = slot_builder(
    UsageMetadata, "usage", "raw"
)
_new_text = slot_builder(TextPart, "candidate", "text", "signature", "raw")
_new_thought = slot_builder(ThoughtPart, "candidate", "text", "signature", "raw")


def new_text_part(
    thought: bool, candidate: int, text: str, signature: str | None, raw: dict[str, Any]
) -> TextPart | ThoughtPart:
    """``TextPart(candidate, text, signature, raw=raw)``, or ``ThoughtPart`` if ``thought``."""
    if thought:
        return _new_thought(candidate, text, signature, raw)
    return _new_text(candidate, text, signature, raw)
